"""The API under hostile load (issue 15): server memory after many distinct large queries, and
how long requests stall while a new snapshot is swapped in.

    .venv/bin/python benchmarks/hostile_api.py                     # builds a snapshot first
    .venv/bin/python benchmarks/hostile_api.py --home ~/.local/share/gpuprices --queries 5000
    .venv/bin/python benchmarks/hostile_api.py --app-root /tmp/old-tree   # another version

Starts ``gpuprices serve`` (1 worker, its server limits; from ``--app-root`` when given, e.g.
``git archive main | tar -x -C /tmp/old-tree`` for a before/after) over a published snapshot.

1. Memory: RSS of the server process (``/proc/<pid>/status``) after it starts, after one
   warm request, and after ``--queries`` distinct ``limit=1000`` queries (``/instances``
   and ``/changes`` alternately, each query string new), sent by 8 client threads.
2. Swap stall: one client requests ``GET /health`` back to back (it runs on the event loop)
   for ``--quiet`` seconds, then while ``--swaps`` new snapshots are published (from the
   home's warehouse, one every ``SWAP_EVERY_S``; the server checks CURRENT every 0.2 s).
   Prints p50, p99 and max latency of each phase and the slowest request in the second after
   each publish. Before this change a swap loaded the snapshot inside a request.

3. Flood (issue 27): ``--flood`` client threads send distinct /estimates and /fit queries (each
   computed, none cached) for ``--flood-s`` seconds while one probe asks ``GET /health`` every
   0.1 s with a 2 s timeout. Prints the flood's answers per second by status, and the probe's
   latency and failures. Before answers were built off the event loop, 200 connections gave 34
   requests/s and /health failed 8 of 10.

Without ``--home``, a temporary home is filled by replaying every capture
(``tests.support.harness.direct_ingest``).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from tests.support.harness import (  # noqa: E402
    SNAPSHOTS,
    direct_ingest,
    free_port,
    running_server,
)

SWAP_EVERY_S = 1.5
THREADS = 8


@contextmanager
def serve(home: Path, app_root: Path) -> Iterator[tuple[str, int]]:
    """``gpuprices serve`` from ``app_root`` on a free port; yields (base URL, server pid)."""
    port = free_port()
    command = [sys.executable, "-m", "pipelines.cli", "serve", "--port", str(port)]
    command += ["--log-level", "warning"]
    env = {
        **os.environ,
        "GPUPRICES_HOME": str(home),
        "GPUPRICES_RELOAD_INTERVAL_S": "0.2",
        "PYTHONPATH": str(app_root),
    }
    with running_server(
        command,
        cwd=app_root,
        env=env,
        url=f"http://127.0.0.1:{port}",
        ready_path="/health",
        name="gpuprices serve",
    ) as server:
        yield server


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def distinct_queries(count: int) -> list[str]:
    """``count`` distinct large query strings (each answers up to 1,000 rows)."""
    out = []
    for i in range(count):
        if i % 2:
            out.append(f"/changes?limit=1000&since=2020-01-01T00:00:{i // 2 % 60:02d}.{i:06d}Z")
        else:
            out.append(f"/instances?limit=1000&max_price={100000 + i / 1000:.3f}")
    return out


def memory(url: str, pid: int, count: int) -> tuple[float, float, float, int, float]:
    """(RSS at start, after a warm request, after ``count`` distinct queries, bytes served,
    seconds) of the server."""
    start = rss_mb(pid)
    httpx.get(url + "/instances?limit=1000", timeout=30).raise_for_status()
    warm = rss_mb(pid)
    paths = distinct_queries(count)
    served = [0] * THREADS
    failures: list[str] = []

    def run(n: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            for path in paths[n::THREADS]:
                response = client.get(path)
                if response.status_code != 200:
                    failures.append(f"{path}: {response.status_code}")
                served[n] += len(response.content)

    began = time.perf_counter()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - began
    if failures:
        raise RuntimeError(f"{len(failures)} failed queries, e.g. {failures[0]}")
    return start, warm, rss_mb(pid), sum(served), seconds


def _latencies(url: str, stop: threading.Event, out: list[tuple[float, float]]) -> None:
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            began = time.perf_counter()
            client.get("/health").raise_for_status()
            out.append((began, time.perf_counter() - began))


def _summary(samples: Sequence[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"p50 {statistics.median(ms):6.1f} ms  p99 {p99:6.1f} ms  max {ms[-1]:6.1f} ms  "
        f"({len(ms)} requests)"
    )


def swap_stall(url: str, home: Path, quiet_s: float, swaps: int) -> list[str]:
    from warehouse.db import Warehouse
    from warehouse.paths import Paths
    from warehouse.publish import publish

    paths = Paths(home)
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    client = threading.Thread(target=_latencies, args=(url, stop, samples))
    client.start()
    time.sleep(quiet_s)
    quiet_end = time.perf_counter()
    published_at = []
    try:
        for _ in range(swaps):
            with Warehouse(paths.warehouse).connect() as con:
                publish(con, paths.published)
            published_at.append(time.perf_counter())
            time.sleep(SWAP_EVERY_S)
    finally:
        stop.set()
        client.join()
    quiet = [s for t, s in samples if t < quiet_end]
    during = [s for t, s in samples if t >= quiet_end]
    after_each = [
        max((s for t, s in samples if at <= t < at + 1.0), default=0.0) * 1000
        for at in published_at
    ]
    return [
        f"GET /health, no swap:       {_summary(quiet)}",
        f"GET /health, {swaps} swaps:      {_summary(during)}",
        "slowest request in the second after each publish: "
        + ", ".join(f"{ms:.0f}" for ms in after_each)
        + " ms",
    ]


def flood_queries(n: int) -> list[str]:
    """Distinct computed queries: /estimates off the standard shape, /fit at a new context."""
    models = ("llama-3.1-8b", "llama-3.1-70b")
    out = []
    for i in range(n):
        model = models[i % 2]
        if i % 3:
            out.append(f"/estimates?model={model}&input_tokens={1001 + i}&limit=20")
        else:
            out.append(f"/fit?model={model}&context={4096 + i}&limit=20")
    return out


def flood(url: str, threads: int, seconds: float) -> list[str]:
    stop = threading.Event()
    statuses: list[int] = []
    probes: list[float | None] = []
    queries = flood_queries(200_000)

    def run(n: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            for path in queries[n::threads]:
                if stop.is_set():
                    return
                try:
                    statuses.append(client.get(path).status_code)
                except httpx.HTTPError:
                    statuses.append(0)

    def probe() -> None:
        with httpx.Client(base_url=url, timeout=2) as client:
            while not stop.is_set():
                began = time.perf_counter()
                try:
                    client.get("/health").raise_for_status()
                    probes.append(time.perf_counter() - began)
                except httpx.HTTPError:
                    probes.append(None)
                time.sleep(0.1)

    workers = [threading.Thread(target=run, args=(n,)) for n in range(threads)]
    workers.append(threading.Thread(target=probe))
    began = time.perf_counter()
    for t in workers:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in workers:
        t.join()
    elapsed = time.perf_counter() - began
    by_status = {code: statuses.count(code) for code in sorted(set(statuses))}
    answered = [p for p in probes if p is not None]
    return [
        f"flood of {threads} threads, distinct /estimates and /fit: "
        f"{len(statuses) / elapsed:.1f} answers/s "
        + ", ".join(f"{code or 'error'}: {n}" for code, n in by_status.items()),
        f"GET /health during the flood: {len(probes) - len(answered)} of {len(probes)} failed; "
        + (_summary(answered) if answered else "none answered"),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="GPUPRICES_HOME with a published snapshot")
    parser.add_argument(
        "--queries", type=int, default=5000, help="distinct large queries (0: skip)"
    )
    parser.add_argument("--swaps", type=int, default=5, help="snapshots published (0: skip)")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds without a swap")
    parser.add_argument("--flood", type=int, default=64, help="flood client threads (0: skip)")
    parser.add_argument("--flood-s", type=float, default=20.0, help="seconds of flood")
    parser.add_argument(
        "--app-root", type=Path, default=REPO, help="source tree the server runs from"
    )
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="gpuprices-hostile-api-") as tmp:
        home = args.home
        if home is None:
            from scrapers.registry import PROVIDERS

            home = Path(tmp) / "home"
            direct_ingest(home, SNAPSHOTS, sorted(PROVIDERS))
        with serve(home, args.app_root.resolve()) as (url, pid):
            figures = memory(url, pid, args.queries) if args.queries else None
            lines = swap_stall(url, home, args.quiet, args.swaps) if args.swaps else []
            if args.flood:
                lines += flood(url, args.flood, args.flood_s)
    print(f"server from {args.app_root}")
    if figures is not None:
        start, warm, after, served, seconds = figures
        print(
            f"server RSS: {start:.0f} MB at start, {warm:.0f} MB after one limit=1000 query, "
            f"{after:.0f} MB after {args.queries} distinct limit=1000 queries "
            f"({served / 1e6:.0f} MB served in {seconds:.0f} s)"
        )
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
