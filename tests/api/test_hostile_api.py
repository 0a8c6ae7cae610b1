"""The API under hostile input, in-process (issue 15): snapshot swaps off the request path,
``as_of`` pinning for consistent pages, a bad ``published/CURRENT``, error bodies without
internals, request ids on unhandled errors, and date and number parameters that never give 500.
The server-level limits (header size, idle sockets, connections) are in test_hostile_server.py.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.store import Snapshot
from tests.support.published import published_copy
from warehouse.db import Warehouse
from warehouse.publish import POINTER, publish

# the file takes about 22 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=22)


@pytest.fixture()
def published(replayed_published, tmp_path) -> Path:  # replayed_published: tests/conftest.py
    """A private published directory holding one snapshot of the replayed warehouse."""
    return published_copy(replayed_published, tmp_path / "published")


def _publish(replayed_home, directory: Path) -> Path:
    paths, _ = replayed_home
    with Warehouse(paths.warehouse).connect() as con:
        publish(con, directory)
    return directory


def _wait_for(client: TestClient, as_of: str) -> str:
    """Poll /health until the served snapshot is no longer ``as_of`` (a background load)."""
    for _ in range(400):
        now = client.get("/health").json()["as_of"]
        if now != as_of:
            return now
        time.sleep(0.05)
    raise AssertionError(f"still serving {as_of}")


def test_loading_a_new_snapshot_does_not_stall_requests(replayed_home, published) -> None:
    # the finding: every request waited 65-349 ms while a new snapshot loaded
    app = create_app(published, reload_interval_s=0)
    store = app.state["store"]
    with TestClient(app) as client:
        first = client.get("/health").json()["as_of"]
        _publish(replayed_home, published)
        started = time.perf_counter()
        during = store.get()  # starts the background load and answers from the held one
        waited = time.perf_counter() - started
        assert during.as_of.isoformat().replace("+00:00", "Z") == first
        assert waited < 0.05, waited
        assert _wait_for(client, first) != first


def test_offset_pages_stay_consistent_across_a_snapshot_swap(replayed_home, published) -> None:
    # the finding: paging with offset across a swap returned duplicated or missing rows
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        page1 = client.get("/instances", params={"limit": 50}).json()
        expected2 = client.get("/instances", params={"limit": 50, "offset": 50}).json()
        as_of = page1["as_of"]
        _publish(replayed_home, published)
        newer = _wait_for(client, as_of)
        page2 = client.get("/instances", params={"limit": 50, "offset": 50, "as_of": as_of})
        assert page2.status_code == 200
        assert page2.json() == expected2  # the first snapshot's page 2, byte for byte in JSON
        unpinned = client.get("/instances", params={"limit": 50, "offset": 50}).json()
        assert unpinned["as_of"] == newer
        changes = client.get("/changes", params={"as_of": as_of})
        assert changes.status_code == 200 and changes.json()["as_of"] == as_of
        # two more swaps: the first snapshot is no longer held (2 are)
        for _ in range(2):
            _publish(replayed_home, published)
            newer = _wait_for(client, newer)
        gone = client.get("/instances", params={"limit": 50, "offset": 50, "as_of": as_of})
    assert gone.status_code == 410
    body = gone.json()
    assert body["current_as_of"] == newer
    assert as_of in body["detail"] and newer in body["detail"]
    assert "start again from the first page" in body["detail"]


def test_an_as_of_never_served_is_410(published) -> None:
    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        response = client.get("/gpus", params={"as_of": "2001-01-01T00:00:00Z"})
        bad = client.get("/gpus", params={"as_of": "yesterday"})
    assert response.status_code == 410 and "2001-01-01T00:00:00" in response.json()["detail"]
    assert bad.status_code == 400


@pytest.mark.parametrize(
    "pointer",
    [
        "{not json",
        "[]",
        '{"snapshot_id": "x"}',
        '{"snapshot_id": "x", "as_of": "never", "file": "snapshot-x.duckdb"}',
    ],
)
def test_malformed_current_keeps_the_last_good_snapshot(published, pointer: str) -> None:
    # the finding: a malformed CURRENT gave a 500 per reload while /health said ok
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        good = client.get("/instances", params={"limit": 5}).json()
        (published / POINTER).write_text(pointer)
        client.app.state["store"].refresh()
        after = client.get("/instances", params={"limit": 5})
        health = client.get("/health")
    assert after.status_code == 200 and after.json() == good
    assert health.status_code == 200
    assert health.json()["status"] == "degraded"
    problem = health.json()["problem"]
    assert "malformed snapshot pointer CURRENT" in problem
    assert str(published) not in problem


def test_current_naming_a_file_outside_published_is_refused(published, tmp_path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    name = json.loads((published / POINTER).read_text())["file"]
    shutil.copy(published / name, outside / name)
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        good = client.get("/gpus").json()
        for file in (f"../elsewhere/{name}", str(outside / name)):
            pointer = {"snapshot_id": "other", "as_of": "2026-01-01T00:00:00+00:00", "file": file}
            (published / POINTER).write_text(json.dumps(pointer))
            client.app.state["store"].refresh()
            assert client.get("/gpus").json() == good
            problem = client.get("/health").json()["problem"]
            assert "not a snapshot-*.duckdb file beside it" in problem
    # a fresh server with only that pointer serves nothing, and says why without a path
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        response = client.get("/gpus")
    assert response.status_code == 503
    assert str(tmp_path) not in response.text and "not a snapshot-*.duckdb" in response.text


def test_503_body_names_no_server_path(tmp_path) -> None:
    # the finding: 503 bodies showed server paths and DuckDB errors
    published = tmp_path / "published"
    published.mkdir()
    (published / POINTER).write_text(
        json.dumps(
            {"snapshot_id": "x", "as_of": "2026-01-01T00:00:00+00:00", "file": "snapshot-x.duckdb"}
        )
    )
    (published / "snapshot-x.duckdb").write_bytes(b"not a duckdb file")
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        response = client.get("/instances")
    assert response.status_code == 503
    assert str(tmp_path) not in response.text
    assert "duckdb" not in response.text.lower().replace("snapshot-*.duckdb", "")
    assert response.json()["detail"] == (
        "no snapshot published yet: run `gpuprices ingest` (could not load snapshot x)"
    )


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_unhandled_error_is_logged_with_a_request_id(published, monkeypatch) -> None:
    # the finding: unhandled 500s were not logged at all
    def broken(self, sql, params=None):
        raise RuntimeError("boom at /srv/secret/warehouse.duckdb")

    monkeypatch.setattr(Snapshot, "query", broken)
    # on the logger itself: Litestar's logging setup replaces the root handlers (caplog's)
    seen = _Records()
    logger = logging.getLogger("gpuprices.api")
    logger.addHandler(seen)
    try:
        with TestClient(create_app(published, reload_interval_s=3600)) as client:
            response = client.get("/history", params={"gpu": "h100"})
            headers = {"X-Request-ID": "abc-1"}
            mine = client.get("/history", params={"gpu": "h200"}, headers=headers)
    finally:
        logger.removeHandler(seen)
    assert response.status_code == 500
    rid = response.headers["x-request-id"]
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Internal Server Error",
        "status": 500,
        "detail": f"internal error; quote request id {rid} when reporting it",
        "instance": "/history?gpu=h100",
        "status_code": 500,
        "request_id": rid,
    }
    assert "secret" not in response.text
    record = next(r for r in seen.records if rid in r.getMessage())
    assert "GET /history" in record.getMessage()
    assert record.exc_info is not None and "boom" in str(record.exc_info[1])
    assert mine.headers["x-request-id"] == "abc-1" and mine.json()["request_id"] == "abc-1"


def test_every_answer_carries_a_request_id(published) -> None:
    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        ids = {
            client.get(path).headers["x-request-id"]
            for path in ("/health", "/gpus", "/nope", "/instances?limit=0")
        }
        odd = client.get("/gpus", headers={"X-Request-ID": "x" * 65})
    assert len(ids) == 4
    assert len(odd.headers["x-request-id"]) == 32  # an unusable client id is replaced


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"gpu": "h100", "to": "9999-12-31"}, 200),
        ({"gpu": "h100", "to": "0001-01-05"}, 200),
        ({"gpu": "h100", "from": "0001-01-01", "to": "0001-01-05"}, 200),
        ({"gpu": "h100", "from": "9999-12-30", "bucket": "month"}, 400),  # after `to`
    ],
)
def test_history_boundary_dates_are_answered_not_a_500(published, params, status) -> None:
    # the finding: /history answered 500 on to=9999-12-31 and to=0001-01-05
    catalog_params = {k: v for k, v in params.items() if k != "bucket"}
    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        history = client.get("/history", params=params)
        catalog = client.get("/history/catalog", params=catalog_params)
    for response in (history, catalog):
        assert response.status_code == status, response.text
        if status == 200:
            assert response.json()["items"] == []  # no price that long ago or that far ahead


def test_changes_since_at_the_ends_of_time_is_a_400(published) -> None:
    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        for since in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-14:00"):
            response = client.get("/changes", params={"since": since})
            assert response.status_code == 400, response.text
