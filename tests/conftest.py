"""Shared test fixtures: where the read-only captures live and how to load one as a response,
and a session environment that keeps every write of the suite inside temporary directories."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from scrapers.base import RawResponse
from scrapers.replay import capture_time

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SNAPSHOTS = SHARED / "snapshots"
HISTORY = SHARED / "history"
SPECS = SHARED / "specs"

# Variables the suite points into its temporary root (see temp_homes): anything that would
# otherwise land in the user's home directory or data folders.
TEMP_HOME_VARS = (
    "HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "DAGSTER_HOME",
    "GPUPRICES_HOME",
)
DAGSTER_YAML = "telemetry:\n  enabled: false\n"


def file_weight_s(items: list[pytest.Item]) -> float:
    """About how long a test file takes (``pytest.mark.slow(seconds=N)`` on it or on one of its
    tests; 0 for a file with no such mark)."""
    return max(
        (float(m.kwargs.get("seconds", 0)) for i in items for m in i.iter_markers("slow")),
        default=0.0,
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first: pytest-xdist hands out whole files (``--dist loadfile``) in
    collection order (``--no-loadscope-reorder``), so a long file handed out last would run
    alone at the end. Runs after pytest-randomly's shuffle, which it keeps within each weight
    (the same seed gives every worker the same order, as xdist requires)."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    weights = {name: file_weight_s(found) for name, found in files.items()}
    items[:] = [
        item
        for name in sorted(files, key=lambda name: -weights[name])  # stable: keeps the shuffle
        for item in files[name]
    ]


_CONTENT_TYPES = {".json": "application/json", ".html": "text/html; charset=utf-8"}


def raw_from_capture(path: Path, url: str = "https://example.invalid/") -> RawResponse:
    """A recorded capture as the RawResponse a live fetch of ``url`` would have produced."""
    stamp = capture_time(path.name)
    assert stamp is not None, f"capture file without a date prefix: {path.name}"
    return RawResponse(
        url=url,
        method="GET",
        status=200,
        content_type=_CONTENT_TYPES.get(path.suffix, "application/octet-stream"),
        body=path.read_bytes(),
        fetched_at=stamp[0],
    )


def dagster_home(path: Path) -> Path:
    """A DAGSTER_HOME at ``path`` whose dagster.yaml disables telemetry (created if missing)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "dagster.yaml").write_text(DAGSTER_YAML, encoding="utf-8")
    return path


def temp_home_env(root: Path) -> dict[str, str]:
    """The values of ``TEMP_HOME_VARS`` under ``root`` (directories created)."""
    home = root / "home"
    env = {
        "HOME": home,
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_STATE_HOME": home / ".local" / "state",
        "DAGSTER_HOME": dagster_home(root / "dagster-home"),
        "GPUPRICES_HOME": root / "gpuprices-home",
    }
    for path in env.values():
        path.mkdir(parents=True, exist_ok=True)
    return {name: str(path) for name, path in env.items()}


@pytest.fixture(scope="session", autouse=True)
def temp_homes(tmp_path_factory) -> Iterator[dict[str, str]]:
    """For the whole session, HOME, the XDG folders, DAGSTER_HOME and GPUPRICES_HOME point into
    a temporary root (issue 12 point 9: the suite wrote ~/.dagster).

    Dagster writes telemetry for every instance whose settings leave it on: the event log and
    instance id under $DAGSTER_HOME, else ~/.dagster, and a user id under ~/.dagster/.telemetry
    whatever DAGSTER_HOME says. Ephemeral instances never log; ``DagsterInstance.get()`` reads
    our dagster.yaml (telemetry off); but ``DagsterInstance.local_temp(dir)`` reads dir's own
    dagster.yaml, which tests' fresh temp dirs lack, so those instances do log. Pointing HOME
    into the temporary root keeps even those writes (and ~/.local/share/gpuprices, the default
    GPUPRICES_HOME) out of the user's home. Subprocesses inherit the environment.
    """
    env = temp_home_env(tmp_path_factory.mktemp("temp-homes"))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield env


@pytest.fixture(scope="session")
def snapshots() -> Path:
    if not SNAPSHOTS.is_dir():
        pytest.fail(f"read-only captures not found at {SNAPSHOTS} (../shared beside the repo)")
    return SNAPSHOTS


def _fingerprint(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime in ns) of every file under ``root``, by relative path."""
    return {
        path.relative_to(root).as_posix(): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary root of the whole run: the one all pytest-xdist workers' roots are in."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _replay_once(shared: Path) -> Path:
    """Every real capture replayed through the Dagster jobs into ``shared/replayed-home``, once
    per test run: the first worker to ask replays (under a file lock), the others wait for it
    and reuse it. Returns the home; its ingest report is pickled beside it."""
    import dagster as dg

    from pipelines.run import run_ingest
    from warehouse.paths import Paths

    home = shared / "replayed-home"
    done = shared / "replayed-home.report.pickle"
    with FileLock(str(shared / "replayed-home.lock")):
        if not done.is_file():
            if home.exists():  # a replay that failed half-way: start again
                shutil.rmtree(home)
            report = run_ingest(
                Paths(home), replay_dir=SNAPSHOTS, instance=dg.DagsterInstance.ephemeral()
            )
            done.write_bytes(pickle.dumps(report))
    return home


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory) -> Path:
    """A migrated, seeded warehouse file built once per worker; copy it with
    ``tests.support.seeded.seeded_warehouse`` (never open it directly)."""
    from pipelines.ingest import ensure_seeded
    from warehouse.db import Warehouse

    path = tmp_path_factory.mktemp("seeded-template") / "warehouse.duckdb"
    ensure_seeded(Warehouse(path))
    return path


@pytest.fixture(scope="session")
def replayed_home(tmp_path_factory):
    """(Paths, IngestReport) of a GPUPRICES_HOME into which every real capture was replayed
    through the Dagster jobs: replayed once per test run (``_replay_once``, ~20 s) and copied
    into this worker's own temporary root, so no two worker processes share its files.

    Read-only: a test that changes a file of it fails (``_replayed_home_unchanged``); a test
    that ingests or publishes into it works on a copy (``shutil.copytree(paths.home, ...)``)."""
    from warehouse.paths import Paths

    shared = _replay_once(_shared_root(tmp_path_factory))
    report = pickle.loads((shared.parent / "replayed-home.report.pickle").read_bytes())
    home = tmp_path_factory.mktemp("replayed-home")
    shutil.copytree(shared, home, dirs_exist_ok=True)
    _REPLAYED[str(home)] = _fingerprint(home)
    return Paths(home), report


_REPLAYED: dict[str, dict[str, tuple[int, int]]] = {}  # replayed_home's files as copied


@pytest.fixture(scope="session")
def replayed_published(replayed_home, tmp_path_factory) -> Path:
    """A published directory holding one snapshot of ``replayed_home``'s warehouse, published
    once per worker (~0.55 s a publish); copy it with ``tests.support.published.published_copy``
    (never serve or write it directly)."""
    from warehouse.db import Warehouse
    from warehouse.publish import publish

    paths, _ = replayed_home
    target = tmp_path_factory.mktemp("replayed-published") / "published"
    with Warehouse(paths.warehouse).connect() as con:
        publish(con, target)
    return target


@pytest.fixture(autouse=True)
def _replayed_home_unchanged(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test that uses ``replayed_home`` (directly or through a fixture): its files
    are as they were copied, so that tests sharing it pass in any order."""
    yield
    if "replayed_home" not in request.fixturenames:
        return
    paths, _ = request.getfixturevalue("replayed_home")
    before, after = _REPLAYED[str(paths.home)], _fingerprint(paths.home)
    changed = sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
    assert not changed, (
        f"this test (or a fixture it uses) changed the shared replayed_home: {changed}; "
        "work on a copy (shutil.copytree(paths.home, ...))"
    )
