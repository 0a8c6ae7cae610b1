"""Serving speed: the API against the same bytes served by a do-nothing ASGI app.

    .venv/bin/python benchmarks/serving.py                      # builds a snapshot first
    .venv/bin/python benchmarks/serving.py --home ~/.local/share/gpuprices --duration 20

Starts two uvicorn servers (1 worker each, loopback, no access log): the API (``api.app``)
over a published snapshot, and ``benchmarks/static_app.py`` answering every request with the
API's own response body for ``GET /instances?min_vram=80&fp8=true``, precomputed. Each is
driven in turn with 16 concurrent connections by ``wrk`` (Debian package ``wrk``) or, when
``wrk`` is missing, by a threaded keep-alive client pool (said so in the output). Prints
requests/s, latency p50 and p99 for both and the ratio API/static; the target is >= 0.5.
Without ``--home``, a temporary home is filled by replaying every capture
(``tests.support.harness.direct_ingest``). Exit status 1 below the target.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from tests.support.harness import SNAPSHOTS, api_server, direct_ingest  # noqa: E402

QUERY = "/instances?min_vram=80&fp8=true"
CONNECTIONS = 16
TARGET_RATIO = 0.5


@dataclass(frozen=True)
class Load:
    tool: str
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int

    def line(self, name: str) -> str:
        return (
            f"{name:<8} {self.requests_per_s:>9.0f} req/s   p50 {self.p50_ms:6.2f} ms   "
            f"p99 {self.p99_ms:6.2f} ms   ({self.requests} requests, {self.errors} errors)"
        )


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str, duration_s: float, connections: int, threads: int, extra: Sequence[str] = ()
) -> Load:
    """Drive ``url`` with wrk; parse requests/s and the latency percentiles (``--latency``).
    ``extra``: more wrk arguments after the URL (``-s script.lua -- args``)."""
    done = subprocess.run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{connections}",
            f"-d{duration_s:g}s",
            "--latency",
            url,
            *extra,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = done.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    percentiles = {
        p: _ms(v, u)
        for p, v, u in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
    }
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), "
        r"timeout (\d+)",
        out,
    )
    failed = int(errors.group(1)) if errors else 0
    if socket_errors:
        failed += sum(int(g) for g in socket_errors.groups())
    return Load("wrk", rps, percentiles["50"], percentiles["99"], total, failed)


def thread_pool(url: str, duration_s: float, connections: int) -> Load:
    """Fallback load generator: ``connections`` threads, one keep-alive client each."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.perf_counter() + duration_s

    def worker() -> None:
        mine: list[float] = []
        failed = 0
        with httpx.Client(timeout=10.0) as client:
            while time.perf_counter() < stop:
                started = time.perf_counter()
                try:
                    ok = client.get(url).status_code == 200
                except httpx.HTTPError:
                    ok = False
                mine.append(time.perf_counter() - started)
                failed += not ok
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    began = time.perf_counter()
    workers = [threading.Thread(target=worker) for _ in range(connections)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - began
    ordered = sorted(latencies) or [0.0]
    return Load(
        "python threads (wrk not found)",
        len(latencies) / elapsed,
        statistics.median(ordered) * 1000,
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        len(latencies),
        errors[0],
    )


def drive(url: str, duration_s: float, connections: int, threads: int) -> Load:
    if shutil.which("wrk"):
        return wrk(url, duration_s, connections, threads)
    return thread_pool(url, duration_s, connections)


def compare(
    home: Path,
    *,
    duration_s: float = 10.0,
    warmup_s: float = 2.0,
    rounds: int = 1,
    connections: int = CONNECTIONS,
    threads: int = 2,
) -> tuple[Load, Load]:
    """(API, static) loads over ``home``'s published snapshot; the best of ``rounds``, the two
    servers measured alternately so that a noisy neighbour hits both alike."""
    best: dict[str, Load] = {}
    with api_server(home, reload_interval_s=1.0) as api:
        body = httpx.get(api + QUERY).raise_for_status().content
        with tempfile.NamedTemporaryFile(suffix=".json") as static_body:
            static_body.write(body)
            static_body.flush()
            with api_server(
                None,
                app="benchmarks.static_app:create_app",
                env={"STATIC_BODY_FILE": static_body.name},
                ready_path="/",
            ) as static:
                assert httpx.get(static + QUERY).content == body
                for _ in range(rounds):
                    for name, base in (("api", api), ("static", static)):
                        drive(base + QUERY, warmup_s, connections, threads)
                        load = drive(base + QUERY, duration_s, connections, threads)
                        if name not in best or load.requests_per_s > best[name].requests_per_s:
                            best[name] = load
    return best["api"], best["static"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="GPUPRICES_HOME with a published snapshot")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; best kept")
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    args = parser.parse_args(argv)
    # an app created in this process turns on INFO logging; httpx would log every request
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="gpuprices-serving-") as tmp:
        home = args.home
        if home is None:
            from scrapers.registry import PROVIDERS

            home = Path(tmp) / "home"
            direct_ingest(home, SNAPSHOTS, sorted(PROVIDERS))
        api, static = compare(
            home,
            duration_s=args.duration,
            rounds=args.rounds,
            connections=args.connections,
            threads=args.threads,
        )
    ratio = api.requests_per_s / static.requests_per_s
    print(
        f"GET {QUERY}, {args.connections} connections, {args.duration:g} s per run, "
        f"best of {args.rounds}, load generator: {api.tool}"
    )
    print(api.line("api"))
    print(static.line("static"))
    print(f"ratio api/static: {ratio:.2f} (target >= {TARGET_RATIO})")
    return 0 if ratio >= TARGET_RATIO and not api.errors and not static.errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
