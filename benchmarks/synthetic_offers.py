"""Pieces of ``benchmarks/uncached_queries.py`` beyond wrk runs: a synthetic snapshot of many
current offers, gpuhunt's own ``query()`` over our gpuhunt export of it, the API server's
memory, and ``/health`` latency while the API is loaded.

- :func:`synthetic_home`: a GPUPRICES_HOME whose published snapshot holds ``count`` current
  offers replicated from a real home's (every column kept, ``offer_id`` made distinct with a
  ``~<n>`` suffix), plus our gpuhunt export of that snapshot.
- :func:`gpuhunt_query_ms`: median milliseconds of gpuhunt's in-process ``query()`` over an
  export directory (a subprocess: gpuhunt reads its catalog location from the environment).
- :func:`server_rss_mb`: resident memory of the uvicorn server we started on a port.
- :func:`health_under_load`: ``/health`` latencies from one client while wrk drives the API.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx

from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.publish import publish

GPUHUNT_SCRIPT = """
import json, statistics, sys, time
import gpuhunt
from gpuhunt._internal.catalog import OFFLINE_PROVIDERS
kwargs = json.loads(sys.argv[1])
runs = int(sys.argv[2])
found = gpuhunt.query(provider=list(OFFLINE_PROVIDERS), **kwargs)  # loads the catalog
times = []
for _ in range(runs):
    started = time.perf_counter()
    found = gpuhunt.query(provider=list(OFFLINE_PROVIDERS), **kwargs)
    times.append(time.perf_counter() - started)
print(json.dumps({"ms": statistics.median(times) * 1000, "rows": len(found)}))
"""


def synthetic_home(source: Path, target: Path, count: int) -> tuple[Path, Path, int]:
    """(home, gpuhunt export dir, gpuhunt rows) with ``count`` current offers copied from
    ``source``'s warehouse (a home a replay filled). The warehouse copy is never rebuilt (that
    would derive current_offers from the observations again)."""
    from pipelines.exports import export

    paths = Paths(target)
    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Paths(source).warehouse, paths.warehouse)
    with Warehouse(paths.warehouse).connect() as con:
        row = con.execute("select count(*) from current_offers").fetchone()
        real = int(row[0]) if row else 0
        copies = -(-count // real)
        con.execute(
            "create or replace table current_offers as"
            " select * replace (offer_id || '~' || lpad(k::varchar, 3, '0') as offer_id)"
            " from current_offers, range(?) as r(k) order by offer_id limit ?",
            [copies, count],
        )
        info = publish(con, paths.published)
    out = target / "gpuhunt"
    report = export("gpuhunt", info, out)
    return target, out, report.rows


def gpuhunt_query_ms(catalog: Path, runs: int = 15, **kwargs: object) -> tuple[float, int]:
    """(median ms, rows returned) of ``gpuhunt.query(provider=<offline providers>, **kwargs)``
    in-process over ``catalog`` (our export), the catalog loaded before timing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUNT_")}
    env.update(GPUHUNT_CATALOG_DIR=str(catalog), GPUHUNT_CATALOG_URL=catalog.as_uri())
    done = subprocess.run(
        [sys.executable, "-c", GPUHUNT_SCRIPT, json.dumps(kwargs), str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return float(result["ms"]), int(result["rows"])


def server_rss_mb(base_url: str) -> float:
    """Resident memory (MB) of the uvicorn process we started listening on ``base_url``'s port
    (found by its command line: ``--port <port>``)."""
    port = base_url.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
            status = (proc / "status").read_text()
        except OSError:
            continue
        if (
            b"uvicorn" in args
            and b"--port" in args
            and args[args.index(b"--port") + 1] == port.encode()
        ):
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    raise RuntimeError(f"no uvicorn process on port {port}")


@dataclass(frozen=True)
class HealthProbe:
    latencies_ms: list[float]
    failures: int

    def line(self) -> str:
        ordered = sorted(self.latencies_ms) or [float("nan")]
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return (
            f"/health from one client meanwhile: p50 {statistics.median(ordered):.1f} ms, "
            f"p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms ({len(self.latencies_ms)} answered, "
            f"{self.failures} failed or over 5 s)"
        )


T = TypeVar("T")


def health_under_load(base_url: str, load: Callable[[], T]) -> tuple[T, HealthProbe]:
    """Run ``load()`` (a wrk run) while one client asks ``/health`` every 50 ms."""
    stop = threading.Event()
    latencies: list[float] = []
    failures = [0]

    def probe() -> None:
        with httpx.Client(timeout=5.0) as client:
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    ok = client.get(base_url + "/health").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    latencies.append((time.perf_counter() - started) * 1000)
                else:
                    failures[0] += 1
                stop.wait(0.05)

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    try:
        result = load()
    finally:
        stop.set()
        worker.join(timeout=10)
    return result, HealthProbe(latencies, failures[0])
