"""The API under load while ingest runs back to back: zero errors, and every response
consistent with exactly one published snapshot.

    .venv/bin/python benchmarks/concurrent_ingest.py                    # 10 runs, all providers
    .venv/bin/python benchmarks/concurrent_ingest.py --runs 3 --provider lambda --threads 8

Starts the API under uvicorn (its own process) over a fresh temporary ``GPUPRICES_HOME``,
then runs ``gpuprices ingest --replay ../shared/snapshots`` ``--runs`` times, one after the
other, while ``--threads`` clients keep requesting ``GET /instances?min_vram=80&fp8=true`` and
``GET /health``. After each run it records what those queries must answer for the snapshot
just published (a fresh in-process app on that snapshot). At the end every response is checked:
HTTP 200, its ``as_of`` names a published snapshot, and its totals and item ids are exactly
that snapshot's. Prints requests, errors, snapshots seen, requests/s and latency p50/p99.
Exit status 1 on any error or inconsistency.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

from tests.support.concurrent import serve_while_ingesting  # noqa: E402
from tests.support.harness import SNAPSHOTS  # noqa: E402

GPUPRICES = REPO / ".venv" / "bin" / "gpuprices"


def cli_ingest(home: Path, replay: Path, providers: Sequence[str]) -> Callable[[int], None]:
    """One ``gpuprices ingest --replay`` process per run (what an operator or cron runs)."""

    def ingest(run: int) -> None:
        command = [str(GPUPRICES), "ingest", "--replay", str(replay)]
        for slug in providers:
            command += ["--provider", slug]
        done = subprocess.run(
            command,
            cwd=REPO,
            env={**os.environ, "GPUPRICES_HOME": str(home)},
            capture_output=True,
            text=True,
            check=False,
        )
        if "published snapshot" not in done.stdout:  # a failed provider still publishes
            raise RuntimeError(f"ingest run {run} published nothing: {done.stderr[-2000:]}")

    return ingest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=4, help="concurrent API clients")
    parser.add_argument("--provider", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--replay", type=Path, default=SNAPSHOTS)
    args = parser.parse_args(argv)
    # an app created in this process turns on INFO logging; httpx would log every request
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="gpuprices-concurrent-") as tmp:
        home = Path(tmp) / "home"
        result = serve_while_ingesting(
            home, cli_ingest(home, args.replay, args.provider), args.runs, threads=args.threads
        )
    for line in result.lines():
        print(line)
    print("OK" if result.ok else "FAILED")
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
