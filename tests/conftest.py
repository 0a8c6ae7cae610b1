"""Shared test fixtures: where the read-only captures live and how to load one as a response."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapers.base import RawResponse
from scrapers.replay import capture_time

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SNAPSHOTS = SHARED / "snapshots"
HISTORY = SHARED / "history"
SPECS = SHARED / "specs"

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


@pytest.fixture(scope="session")
def snapshots() -> Path:
    if not SNAPSHOTS.is_dir():
        pytest.fail(f"read-only captures not found at {SNAPSHOTS} (../shared beside the repo)")
    return SNAPSHOTS


@pytest.fixture(scope="session")
def replayed_home(tmp_path_factory):
    """A GPUPRICES_HOME into which every real capture was replayed through the Dagster jobs
    (once per test session). Tests must not modify it; copy it if they need to."""
    import dagster as dg

    from pipelines.run import run_ingest
    from warehouse.paths import Paths

    paths = Paths(tmp_path_factory.mktemp("replayed-home"))
    report = run_ingest(paths, replay_dir=SNAPSHOTS, instance=dg.DagsterInstance.ephemeral())
    return paths, report
