"""The one response cache (``api.cache``): per snapshot, bounded in bytes keys included, never a
4xx; and GET /instances, which needs no cache, answering as the SQL does (issue 13, issue 15)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from litestar.exceptions import ClientException
from litestar.testing import TestClient

from api.app import CORS_ENV, create_app
from api.cache import ENTRY_OVERHEAD, ResponseCache, entry_bytes
from tests.support.published import published_copy
from warehouse.db import Warehouse
from warehouse.publish import publish

QUERY = "/instances?min_vram=80&fp8=true"


@pytest.fixture()
def published(replayed_published: Path, tmp_path: Path) -> Path:  # tests/conftest.py
    return published_copy(replayed_published, tmp_path / "published")


def test_5000_distinct_large_keys_stay_within_the_byte_bound() -> None:
    # issue 15: 5,000 distinct limit=1000 URLs took the server from 143 MB to 3.3 GB (entries
    # were counted, not bytes)
    cache = ResponseCache(max_bytes=2_000_000)
    body = b"x" * 100_000
    for n in range(5000):
        key = ("estimates", "m" * 1000, n, 1000)
        assert cache.get_or_build(key, lambda: body) == body
        assert cache.bytes <= cache.max_bytes
    assert len(cache) == 2_000_000 // entry_bytes(("estimates", "m" * 1000, 4999, 1000), body)
    assert cache.bytes == sum(entry_bytes(k, body) for k in cache.held_keys())


def test_a_1mb_key_counts_against_the_bound_and_does_not_live_forever() -> None:
    # issue 15: 600 requests with a 1 MB header added 600 MB (bodies counted, keys not)
    huge = "h" * 1_000_000
    cache = ResponseCache(max_bytes=1_500_000)
    cache.get_or_build(("a", huge), lambda: b"1")
    assert cache.bytes == len(repr(("a", huge))) + 1 + ENTRY_OVERHEAD > 1_000_000
    cache.get_or_build(("b", huge), lambda: b"2")  # two do not fit: the older goes
    assert cache.held_keys() == [("b", huge)]
    small = ResponseCache(max_bytes=500_000)
    small.get_or_build(("a", huge), lambda: b"1")  # larger than the whole bound: never kept
    assert len(small) == 0 and small.bytes == 0


def test_the_cache_keeps_no_empty_answer_and_nothing_when_build_raises() -> None:
    cache = ResponseCache(max_bytes=10_000)
    built: list[bytes] = []

    def build(body: bytes):
        return lambda: built.append(body) or body

    assert cache.get_or_build("a", build(b"x" * 60)) == b"x" * 60
    assert cache.get_or_build("a", build(b"x" * 60)) == b"x" * 60  # a hit: not built again
    cache.get_or_build("d", build(b""))  # empty ("not found"): never kept
    cache.get_or_build("d", build(b""))

    def refuse() -> bytes:
        raise ClientException("bad value")

    for _ in range(2):
        with pytest.raises(ClientException):
            cache.get_or_build("e", refuse)
    assert cache.held_keys() == ["a"] and len(built) == 3 and cache.hits == 1


def test_no_4xx_is_cached(published: Path) -> None:
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        snapshot = app.state["store"].get()
        for _ in range(3):
            assert client.get("/providers/no-such-cloud").status_code == 404
            assert client.get("/providers?min_vrm=1").status_code == 400
            assert client.get("/instances?min_vram=-1").status_code == 400
        assert client.get("/providers").status_code == 200
        assert client.get("/providers").status_code == 200
    assert snapshot.responses.held_keys() == [("providers",)] and snapshot.responses.hits == 1


def test_a_snapshot_swap_drops_the_cache(replayed_home, published: Path) -> None:
    paths, _ = replayed_home
    app = create_app(published, reload_interval_s=0)
    with TestClient(app) as client:
        before = client.get("/gpus").json()
        old = app.state["store"].get()
        assert client.get("/gpus").json() == before and old.responses.hits == 1
        with Warehouse(paths.warehouse).connect() as con:
            newer = publish(con, published)
        for _ in range(200):  # the new snapshot is loaded in the background, then swapped in
            after = client.get("/gpus").json()
            if after["as_of"] != before["as_of"]:
                break
            time.sleep(0.05)
        new = app.state["store"].get()
    assert new is not old and new.responses.hits == 0 and new.responses.held_keys() == [("gpus",)]
    assert after["as_of"] != before["as_of"]
    assert after["as_of"].startswith(newer.as_of.strftime("%Y-%m-%dT%H:%M:%S"))


def test_the_byte_bound_comes_from_the_environment(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUPRICES_RESPONSE_CACHE_BYTES", "100")
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        assert client.get("/gpus").status_code == 200
        snapshot = app.state["store"].get()
    assert snapshot.responses.max_bytes == 100 and len(snapshot.responses) == 0  # too big


def test_distinct_instances_queries_hold_no_memory_per_query(published: Path) -> None:
    # GET /instances answers from the snapshot's in-memory offers: no entry per query string
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        for offset in range(40):
            assert client.get(f"/instances?limit=1000&offset={offset}").status_code == 200
        snapshot = app.state["store"].get()
    assert len(snapshot.responses) == 0 and snapshot.responses.bytes == 0


def test_cors_headers_are_added_to_instances_answers(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CORS_ENV, "https://example.org")
    app = create_app(published, reload_interval_s=3600)
    with TestClient(app) as client:
        plain = client.get(QUERY)
        allowed = client.get(QUERY, headers={"Origin": "https://example.org"})
        other = client.get(QUERY, headers={"Origin": "https://evil.example"})
    assert allowed.headers["access-control-allow-origin"] == "https://example.org"
    assert "access-control-allow-origin" not in other.headers
    assert plain.content == allowed.content == other.content


def test_instances_answer_from_memory_exactly_as_by_sql(published: Path) -> None:
    from api.encoding import page_body
    from api.instances.service import instances_body
    from warehouse.queries import OfferFilter, OfferQuery, exclusions_sql, query_offers_sql

    app = create_app(published, reload_interval_s=3600)
    snapshot = app.state["store"].get()
    for query in (
        OfferQuery(OfferFilter.build(min_vram=80, fp8=True)),
        OfferQuery(OfferFilter.build(provider=["vast"]), cheapest_per_gpu=True, sort="-price"),
        OfferQuery(OfferFilter.build(gpu=["b200"], include_expired=True, max_age_days=400)),
    ):
        items, total = query_offers_sql(snapshot.cursor(), query)
        expected = page_body(
            items,
            total=total,
            excluded=exclusions_sql(snapshot.cursor(), query.filter).as_dict(),
            limit=query.limit,
            offset=query.offset,
            as_of=snapshot.as_of,
        )
        assert instances_body(snapshot, query).body == expected
