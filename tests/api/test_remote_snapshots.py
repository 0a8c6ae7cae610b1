"""Snapshots published to an fsspec URL (a local directory via file:// here; s3:// in
production) and served by two independent API processes that read only that URL."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import httpx
import pytest

from pipelines.cli import main
from pipelines.run import run_ingest
from tests.conftest import SNAPSHOTS
from tests.servers import start_api, wait_until
from warehouse import remote
from warehouse.paths import Paths
from warehouse.publish import POINTER, SnapshotError, SnapshotInfo, current


def _start_api(url: str, home: Path, log: Path) -> tuple[subprocess.Popen, str]:
    env = {
        "GPUPRICES_HOME": str(home),
        remote.SNAPSHOT_URL_ENV: url,
        "GPUPRICES_RELOAD_INTERVAL_S": "0.2",
    }
    return start_api(env, log)


def _wait_healthy(proc: subprocess.Popen, base: str, log: Path, snapshot_id: str) -> None:
    wait_until(
        proc,
        base,
        log,
        lambda r: r.json().get("snapshot_id") == snapshot_id,
        f"served snapshot {snapshot_id}",
    )


def test_pipeline_publishes_to_the_url(monkeypatch, tmp_path):
    bucket = tmp_path / "bucket"
    monkeypatch.setenv(remote.PUBLISH_URL_ENV, bucket.as_uri())
    paths = Paths(tmp_path / "home")
    report = run_ingest(
        paths, replay_dir=SNAPSHOTS, providers=["lambda"], instance=dg.DagsterInstance.ephemeral()
    )
    assert report.snapshot_id
    local = current(paths.published)
    assert local is not None and local.snapshot_id == report.snapshot_id
    pushed = remote.RemoteSnapshots(bucket.as_uri(), tmp_path / "cache").current()
    assert pushed is not None and pushed.snapshot_id == report.snapshot_id
    assert pushed.path.read_bytes() == local.path.read_bytes()
    assert sorted(p.name for p in bucket.iterdir()) == [POINTER, local.path.name]


def test_two_api_processes_serve_the_same_snapshot_from_the_url(replayed_home, tmp_path):
    published = current(replayed_home[0].published)
    assert published is not None
    bucket = tmp_path / "bucket"
    url = bucket.as_uri()
    remote.push(published, url)

    apis = []
    try:
        for name in ("a", "b"):
            log = tmp_path / f"api-{name}.log"
            # separate homes and caches: nothing shared but the URL
            apis.append((*_start_api(url, tmp_path / f"home-{name}", log), log))
        for proc, base, log in apis:
            _wait_healthy(proc, base, log, published.snapshot_id)
        # include_expired: Lambda's 2026-01 list price is past its 180 days in December 2026
        params = {"limit": 1000, "sort": "price_per_gpu", "include_expired": "true"}
        bodies = [httpx.get(f"{base}/instances", params=params).content for _, base, _ in apis]
        assert bodies[0] == bodies[1]
        assert b"8x NVIDIA H100 SXM (80 GB)" in bodies[0]
        for name in ("a", "b"):
            cached = list((tmp_path / f"home-{name}" / "snapshot-cache").glob("snapshot-*.duckdb"))
            assert [p.name for p in cached] == [published.path.name]

        # A new snapshot: upload, then the pointer; both replicas move to it without a restart.
        newer_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        newer_file = tmp_path / f"snapshot-{newer_id}.duckdb"
        shutil.copyfile(published.path, newer_file)
        remote.push(SnapshotInfo(newer_id, datetime.now(UTC), newer_file), url)
        for proc, base, log in apis:
            _wait_healthy(proc, base, log, newer_id)
    finally:
        for proc, _, _ in apis:
            proc.terminate()
            proc.wait(timeout=10)


def test_reader_refuses_a_pointer_outside_the_url(tmp_path):
    bucket = tmp_path / "bucket"
    bucket.mkdir()
    reader = remote.RemoteSnapshots(bucket.as_uri(), tmp_path / "cache")
    assert reader.current() is None  # nothing pushed yet
    (bucket / POINTER).write_text(
        '{"snapshot_id": "x", "file": "../secret.duckdb", "as_of": "2026-01-01T00:00:00+00:00"}'
    )
    with pytest.raises(SnapshotError, match=r"names '\.\./secret\.duckdb'"):
        reader.current()
    (bucket / POINTER).write_text("{not json")
    with pytest.raises(SnapshotError, match="unreadable snapshot pointer"):
        reader.current()


def test_push_keeps_a_few_remote_snapshots(replayed_home, tmp_path):
    published = current(replayed_home[0].published)
    assert published is not None
    bucket = tmp_path / "bucket"
    ids = [f"20260101T0000{i:02d}000000Z" for i in range(remote.KEEP_REMOTE_SNAPSHOTS + 3)]
    for snapshot_id in ids:
        copy = tmp_path / f"snapshot-{snapshot_id}.duckdb"
        shutil.copyfile(published.path, copy)
        remote.push(SnapshotInfo(snapshot_id, datetime.now(UTC), copy), bucket.as_uri())
    kept = sorted(p.name for p in bucket.glob("snapshot-*.duckdb"))
    assert kept == [f"snapshot-{i}.duckdb" for i in ids[-remote.KEEP_REMOTE_SNAPSHOTS :]]
    assert remote.RemoteSnapshots(bucket.as_uri(), tmp_path / "c").current().snapshot_id == ids[-1]


def test_cli_reads_the_url_too(replayed_home, monkeypatch, tmp_path, capsys):
    published = current(replayed_home[0].published)
    assert published is not None
    remote.push(published, (tmp_path / "bucket").as_uri())
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "empty-home"))
    monkeypatch.setenv(remote.SNAPSHOT_URL_ENV, (tmp_path / "bucket").as_uri())
    assert main(["status", "--json"]) == 0
    assert published.snapshot_id in capsys.readouterr().out
