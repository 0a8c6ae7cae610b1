"""The response cache in front of the read endpoints: same bytes as the handler, one snapshot
at a time, never a cached error, CORS still per request."""

from __future__ import annotations

from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.app import CORS_ENV, create_app
from warehouse.db import Warehouse
from warehouse.publish import publish

QUERY = "/instances?min_vram=80&fp8=true"


@pytest.fixture()
def published(replayed_home, tmp_path: Path) -> Path:  # replayed_home: tests/conftest.py
    paths, _ = replayed_home
    with Warehouse(paths.warehouse).connect() as con:
        publish(con, tmp_path / "published")
    return tmp_path / "published"


def test_repeats_are_served_from_the_cache_byte_for_byte(published: Path) -> None:
    app = create_app(published, reload_interval_s=3600)
    cache = app.state["response_cache"]
    with TestClient(app) as client:
        first = client.get(QUERY)
        again = client.get(QUERY)
        reordered = client.get("/instances?fp8=true&min_vram=80")
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and again.headers == first.headers
    assert reordered.json() == first.json()  # another key, built by the handler, same answer
    assert cache.hits == 1


def test_a_new_snapshot_is_never_answered_from_the_old_ones_cache(
    replayed_home, published: Path
) -> None:
    paths, _ = replayed_home
    app = create_app(published, reload_interval_s=0)
    with TestClient(app) as client:
        before = client.get(QUERY).json()
        assert client.get(QUERY).json()["as_of"] == before["as_of"]
        with Warehouse(paths.warehouse).connect() as con:
            newer = publish(con, published)
        after = client.get(QUERY).json()
    assert after["as_of"] != before["as_of"]
    assert after["as_of"].startswith(newer.as_of.strftime("%Y-%m-%dT%H:%M:%S"))


def test_errors_are_not_cached(published: Path) -> None:
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        codes = [client.get("/instances?min_vram=-1").status_code for _ in range(3)]
    assert codes == [400, 400, 400] and app.state["response_cache"].hits == 0


def test_cors_headers_are_added_to_cached_responses(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CORS_ENV, "https://example.org")
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        client.get(QUERY)
        cached = client.get(QUERY, headers={"Origin": "https://example.org"})
        other = client.get(QUERY, headers={"Origin": "https://evil.example"})
    assert app.state["response_cache"].hits == 2
    assert cached.headers["access-control-allow-origin"] == "https://example.org"
    assert "access-control-allow-origin" not in other.headers


def test_the_handler_cache_is_bounded_in_bytes_and_keeps_no_empty_answer(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUPRICES_RESPONSE_CACHE_BYTES", "100")
    app = create_app(published, reload_interval_s=3600)
    snapshot = app.state["store"].get()
    built: list[str] = []

    def build(body: bytes):
        return lambda: built.append(body.decode()) or body

    assert snapshot.cached("a", build(b"x" * 60)) == b"x" * 60
    assert snapshot.cached("a", build(b"x" * 60)) == b"x" * 60  # a hit: not built again
    snapshot.cached("b", build(b"y" * 60))  # over 100 bytes: "a" goes
    snapshot.cached("c", build(b"z" * 101))  # larger than the bound: never kept
    snapshot.cached("d", build(b""))  # empty ("not found"): never kept
    snapshot.cached("d", build(b""))
    assert snapshot.cached_bytes == 60 and list(snapshot._cache) == ["b"]
    assert len(built) == 5


def test_instances_answer_from_memory_exactly_as_by_sql(published: Path) -> None:
    from api.controllers.instances import instances_body
    from api.encoding import page_body
    from warehouse.queries import OfferFilter, OfferQuery, query_offers_sql

    app = create_app(published, reload_interval_s=3600)
    snapshot = app.state["store"].get()
    for query in (
        OfferQuery(OfferFilter.build(min_vram=80, fp8=True)),
        OfferQuery(OfferFilter.build(provider=["vast"]), cheapest_per_gpu=True, sort="-price"),
    ):
        items, total = query_offers_sql(snapshot.cursor(), query)
        expected = page_body(
            items, total=total, limit=query.limit, offset=query.offset, as_of=snapshot.as_of
        )
        assert instances_body(snapshot, query) == expected
