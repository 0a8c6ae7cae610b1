"""A published directory in a bad state never leaves the API without an answer it could give,
and a failing publish leaves nothing behind (issue 27, low findings)."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

import warehouse.publish
from api.store import SnapshotStore
from warehouse.db import Warehouse
from warehouse.publish import current, publish, published_snapshots

FIRST = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def three(replayed_home, tmp_path_factory) -> Path:
    """A published directory of three snapshots, a day apart (read-only: copy to change)."""
    paths, _ = replayed_home
    out = tmp_path_factory.mktemp("recovery") / "published"
    with Warehouse(paths.warehouse).connect() as con:
        for day in range(3):
            publish(con, out, now=FIRST + timedelta(days=day))
    return out


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "published"
    target.mkdir()
    for item in source.iterdir():
        (target / item.name).write_bytes(item.read_bytes())
    return target


def test_a_corrupt_current_snapshot_serves_the_newest_intact_older_one(three, tmp_path) -> None:
    # the finding: a corrupt current snapshot gave 503 although three intact older ones existed
    published = _copy(three, tmp_path)
    info = current(published)
    assert info is not None
    info.path.write_bytes(b"not a database" * 1000)
    store = SnapshotStore(published, reload_interval_s=3600)
    served = store.get()
    assert served.as_of == FIRST + timedelta(days=1)
    assert store.last_error is not None
    assert f"could not load snapshot {info.snapshot_id}" in store.last_error
    assert served.info.snapshot_id in store.last_error
    assert served.query("select count(*) as n from current_offers")[0]["n"] > 0


def test_a_snapshot_that_blocks_on_open_is_refused_not_waited_for(three, tmp_path) -> None:
    # the finding: a snapshot file that blocks on open (a FIFO) froze every later reload
    published = _copy(three, tmp_path)
    info = current(published)
    assert info is not None
    info.path.unlink()
    os.mkfifo(info.path)
    store = SnapshotStore(published, reload_interval_s=3600)
    done = threading.Event()
    result: list[datetime] = []

    def load() -> None:
        result.append(store.get().as_of)
        done.set()

    threading.Thread(target=load, daemon=True).start()
    assert done.wait(60), "the load waited on the FIFO"
    assert result == [FIRST + timedelta(days=1)]
    assert store.refresh() is False  # later reloads still run, and refuse it again at once


def test_a_publish_that_fails_midway_leaves_no_partial_file(
    three, replayed_home, tmp_path, monkeypatch
) -> None:
    # the finding: each publish that failed on a full disk left its temporary file, until
    # published/ was full of them
    published = _copy(three, tmp_path)
    before = sorted(p.name for p in published.iterdir())

    def full_disk(con: duckdb.DuckDBPyConnection, **_: object) -> None:
        raise duckdb.IOException("IO Error: No space left on device")

    monkeypatch.setattr(warehouse.publish, "create_views", full_disk)
    paths, _ = replayed_home
    with Warehouse(paths.warehouse).connect() as con:
        for _ in range(3):
            with pytest.raises(duckdb.IOException):
                publish(con, published, now=datetime.now(UTC))
    assert sorted(p.name for p in published.iterdir()) == before
    assert [s.as_of for s in published_snapshots(published)] == [
        FIRST + timedelta(days=d) for d in (2, 1, 0)
    ]
