"""Crash safety: kill -9 an ingest at points spread over a run, then check nothing half-done is
visible (the code is ``tests.support.crash``, which says what is checked after every kill).

    .venv/bin/python benchmarks/crash_ingest.py                       # 20 kills of the CLI
    .venv/bin/python benchmarks/crash_ingest.py --mode direct --provider runpod --runs 20

Prints one line per attempt (a run that finished before its kill is followed by an earlier
kill) and a summary; exit status 1 on any problem.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

from tests.support.crash import crash_runs  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="kills that land mid-run")
    parser.add_argument("--mode", choices=["cli", "direct"], default="cli")
    parser.add_argument("--provider", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument(
        "--no-recovery-runs",
        action="store_true",
        help="complete a run only after the last kill, not after every kill",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpuprices-crash-") as tmp:
        results, left = crash_runs(
            Path(tmp) / "home",
            Path(tmp),
            args.provider,
            runs=args.runs,
            mode=args.mode,
            seed=args.seed,
            recovery_runs=not args.no_recovery_runs,
            report=True,
        )
    bad = [r for r in results if r.problems]
    print(
        f"{len(results)} runs, {sum(r.killed for r in results)} killed mid-run "
        f"({sum(bool(r.debris) for r in results)} left debris for the next run), "
        f"{len(bad)} with problems, leftovers after the last run: {left or 'none'}; "
        f"{time.perf_counter() - started:.0f} s"
    )
    return 1 if bad or left else 0


if __name__ == "__main__":
    raise SystemExit(main())
