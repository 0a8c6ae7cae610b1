"""Shared pieces of the reliability benchmarks and of the tests that run them small (moved from
``benchmarks/harness.py``: tests never import ``benchmarks/``).

- ``api_server``: the API (or any ASGI app) under uvicorn in a subprocess on a free loopback
  port, ready when it answers; stopped (its own process only) on exit.
- ``redated_replay``: copies of real captures under a later date, so a replay has new scrapes
  to load every time (content unchanged unless another capture is chosen).
- ``Hammer``: client threads that keep requesting the API and record what every response
  claims (its snapshot, its totals), for checking against ``expectations``.
- ``expectations``: what each query must answer for the snapshot ``published/CURRENT`` names,
  computed by a fresh in-process app on that snapshot.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import msgspec

REPO = Path(__file__).resolve().parents[2]
SNAPSHOTS = REPO.parent / "shared" / "snapshots"
# What the hammer asks, and what a consistent answer is checked on.
INSTANCES_QUERY = "/instances?min_vram=80&fp8=true&limit=1000"
HEALTH_QUERY = "/health"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def api_server(
    home: Path | None,
    *,
    app: str = "api.app:create_app",
    factory: bool = True,
    reload_interval_s: float = 0.2,
    env: dict[str, str] | None = None,
    ready_path: str = HEALTH_QUERY,
    timeout_s: float = 120.0,
) -> Iterator[str]:
    """Run ``app`` under uvicorn (1 worker, no access log) on 127.0.0.1; yield its base URL."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    if factory:
        command.append("--factory")
    child_env = {
        **os.environ,
        "GPUPRICES_RELOAD_INTERVAL_S": str(reload_interval_s),
        "PYTHONPATH": str(REPO),
        **(env or {}),
    }
    if home is not None:
        child_env["GPUPRICES_HOME"] = str(home)
    with running_server(
        command,
        cwd=REPO,
        env=child_env,
        url=f"http://127.0.0.1:{port}",
        ready_path=ready_path,
        timeout_s=timeout_s,
        name="uvicorn",
    ) as (url, _):
        yield url


@contextmanager
def running_server(
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    url: str,
    ready_path: str = HEALTH_QUERY,
    timeout_s: float = 120.0,
    name: str = "server",
) -> Iterator[tuple[str, int]]:
    """Start ``command`` (an HTTP server listening at ``url``), wait until ``ready_path``
    answers, yield (``url``, pid); terminate it (then kill) on the way out."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                error = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"{name} exited with {process.returncode}: {error[-2000:]}")
            try:
                httpx.get(url + ready_path, timeout=2.0)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{name} did not answer on {url} within {timeout_s} s"
                    ) from None
                time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def past_days(count: int) -> list[str]:
    """``count`` consecutive ISO days ending yesterday (UTC): capture dates a replay may use,
    since the pipeline rejects observations dated in the future (warehouse.quality)."""
    today = datetime.now(UTC).date()
    return [(today - timedelta(days=count - i)).isoformat() for i in range(count)]


def redated_replay(target: Path, captures: Sequence[Path], when: str, pad: int = 0) -> Path:
    """Copy ``captures`` (real capture files) into ``target/<provider>/`` with the capture
    time ``when`` (a past day, see ``past_days``) plus ``T<HH>00Z`` keeping their order: a replay of
    ``target`` then loads them as new scrapes. ``pad`` newlines are appended (JSON and HTML
    parse the same) so the bodies are new to the raw archive too. Returns ``target``."""
    per_provider: dict[str, int] = {}
    for capture in captures:
        index = per_provider[capture.parent.name] = per_provider.get(capture.parent.name, -1) + 1
        if index > 23:
            raise ValueError(f"more than 24 captures of {capture.parent.name} for one day")
        rest = capture.name.split("_", 1)[1]
        folder = target / capture.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{when}T{index:02d}00Z_{rest}").write_bytes(capture.read_bytes() + b"\n" * pad)
    return target


def newest_captures(target: Path, providers: Sequence[str]) -> Path:
    """A replay directory ``target`` holding each of ``providers``' newest real capture (copied
    under its own name and date): a replay of it does one scrape per provider."""
    from scrapers.replay import discover

    for slug, captures in discover(SNAPSHOTS, list(providers)).items():
        newest = captures[-1].path
        (target / slug).mkdir(parents=True, exist_ok=True)
        (target / slug / newest.name).write_bytes(newest.read_bytes())
    return target


def direct_ingest(home: Path, replay: Path, providers: Sequence[str]) -> str:
    """What ``gpuprices ingest --replay`` does, minus Dagster: the same functions its assets
    call (seeds, one scrape per capture, derived models, snapshot), in one process, in order.
    Returns the published snapshot id. For tests and the crash benchmark, where starting
    Dagster for every run would dominate the time."""
    from pipelines.ingest import ensure_seeded, scrape_provider
    from scrapers.registry import PROVIDERS
    from warehouse.db import Warehouse
    from warehouse.derive import rebuild
    from warehouse.paths import Paths
    from warehouse.publish import publish

    paths = Paths(home)
    warehouse = Warehouse(paths.warehouse)
    ensure_seeded(warehouse)
    for slug in providers:
        with warehouse.held():  # as the provider assets do for a replay
            scrape_provider(PROVIDERS[slug], paths=paths, replay_dir=replay)
    with warehouse.connect() as con:
        rebuild(con)
        return publish(con, paths.published).snapshot_id


def digest(ids: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Expected:
    snapshot_id: str
    as_of: str
    instances_total: int
    instances_digest: str
    offers: int


def expectations(published: Path) -> Expected:
    """What the hammered queries must answer while ``published/CURRENT``'s snapshot is served,
    from a fresh in-process app (the same code; no server involved)."""
    from litestar.testing import TestClient

    from api.app import create_app

    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        page = client.get(INSTANCES_QUERY).json()
        health = client.get(HEALTH_QUERY).json()
    assert page["as_of"] == health["as_of"], "one app, one snapshot"
    return Expected(
        health["snapshot_id"],
        health["as_of"],
        page["total"],
        digest([i["id"] for i in page["items"]]),
        health["offers"],
    )


@dataclass
class Observation:
    query: str
    status: int
    as_of: str | None = None
    snapshot_id: str | None = None
    total: int | None = None
    digest: str | None = None
    latency_s: float = 0.0


@dataclass
class Hammer:
    """``threads`` clients alternating the instances query and /health until ``stop``."""

    base_url: str
    threads: int = 4
    observations: list[Observation] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpx_level: int = logging.NOTSET

    def start(self) -> Hammer:
        # httpx logs every request at INFO, and an app created in this process (Litestar's
        # default logging config) may have set the root logger to INFO: mute it while hammering
        self._httpx_level = logging.getLogger("httpx").level
        logging.getLogger("httpx").setLevel(logging.WARNING)
        for n in range(self.threads):
            worker = threading.Thread(target=self._run, args=(n,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def stop(self) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=60)
        logging.getLogger("httpx").setLevel(self._httpx_level)

    def _run(self, n: int) -> None:
        queries = [INSTANCES_QUERY, HEALTH_QUERY]
        with httpx.Client(base_url=self.base_url, timeout=30.0) as client:
            i = n
            while not self._stop.is_set():
                query = queries[i % 2]
                i += 1
                started = time.perf_counter()
                try:
                    response = client.get(query)
                    seen = self._observe(query, response)
                except Exception as exc:  # every failure is a finding, never a crash
                    with self._lock:
                        self.errors.append(f"{query}: {type(exc).__name__}: {exc}")
                    continue
                seen.latency_s = time.perf_counter() - started
                with self._lock:
                    self.observations.append(seen)

    @staticmethod
    def _observe(query: str, response: httpx.Response) -> Observation:
        seen = Observation(query, response.status_code)
        if response.status_code != 200:
            return seen
        body = msgspec.json.decode(response.content)  # C-speed: the clients share the GIL
        seen.as_of = body.get("as_of")
        if query == HEALTH_QUERY:
            seen.snapshot_id, seen.total = body["snapshot_id"], body["offers"]
        else:
            seen.total, seen.digest = body["total"], digest([i["id"] for i in body["items"]])
        return seen


def inconsistencies(
    observations: Sequence[Observation], expected: dict[str, Expected]
) -> list[str]:
    """Responses that are not 200, or that do not match exactly one published snapshot."""
    problems = []
    for seen in observations:
        if seen.status != 200:
            problems.append(f"{seen.query}: HTTP {seen.status}")
            continue
        snapshot = expected.get(seen.as_of or "")
        if snapshot is None:
            problems.append(f"{seen.query}: as_of {seen.as_of} is no published snapshot")
        elif seen.query == HEALTH_QUERY and (seen.snapshot_id, seen.total) != (
            snapshot.snapshot_id,
            snapshot.offers,
        ):
            problems.append(
                f"/health: {seen.snapshot_id}/{seen.total} offers, snapshot "
                f"{snapshot.snapshot_id} has {snapshot.offers}"
            )
        elif seen.query == INSTANCES_QUERY and (seen.total, seen.digest) != (
            snapshot.instances_total,
            snapshot.instances_digest,
        ):
            problems.append(
                f"/instances: total {seen.total} ({seen.digest}), snapshot "
                f"{snapshot.snapshot_id} has {snapshot.instances_total} "
                f"({snapshot.instances_digest})"
            )
    return problems
