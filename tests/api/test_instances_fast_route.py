"""The GET /instances fast route reads a query string exactly as Litestar's validation would, or
leaves it to the handler; it answers without the handler when it can (issue 13)."""

from __future__ import annotations

import asyncio

import pytest

from api.instances.controller import instances_fast_route
from api.instances.params import parse_query
from api.instances.service import instances_body
from api.store import SnapshotStore
from tests.support.published import published_copy
from warehouse.queries import OfferFilter, OfferQuery


@pytest.fixture(scope="module")
def store(replayed_published, tmp_path_factory) -> SnapshotStore:  # tests/conftest.py
    target = published_copy(replayed_published, tmp_path_factory.mktemp("fast") / "published")
    return SnapshotStore(target, reload_interval_s=3600)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (b"", OfferQuery()),
        (b"min_vram=80&fp8=true", OfferQuery(OfferFilter.build(min_vram=80.0, fp8=True))),
        (
            b"gpu=H100-SXM,a100&provider=Lambda&provider=runpod&sort=-vram&limit=7&offset=3"
            b"&cheapest_per_gpu=true&format=json",
            OfferQuery(
                OfferFilter.build(gpu=["H100-SXM,a100"], provider=["Lambda", "runpod"]),
                sort="-vram",
                limit=7,
                offset=3,
                cheapest_per_gpu=True,
            ),
        ),
        (
            b"max_price=2.5&region=US-EAST-1%2Ceu-west-1",
            OfferQuery(OfferFilter.build(max_price=2.5, region=["US-EAST-1,eu-west-1"])),
        ),
        (
            b"pricing=spot&pricing=reserved&include_suspect=false",
            OfferQuery(OfferFilter.build(pricing=["spot", "reserved"])),
        ),
        (  # pricing in any case and comma lists, as OfferFilter.build reads them
            b"pricing=spot,ON_DEMAND&min_vcpus=64&min_ram_gb=512.5",
            OfferQuery(
                OfferFilter.build(pricing=["on_demand", "spot"], min_vcpus=64, min_ram_gb=512.5)
            ),
        ),
        (
            b"gpu=b200&include_expired=true&max_age_days=400.5&sort=price_per_gpu",
            OfferQuery(
                OfferFilter.build(gpu=["b200"], include_expired=True, max_age_days=400.5),
                sort="price_per_gpu",
            ),
        ),
    ],
)
def test_plain_queries_parse_as_the_handler_builds_them(query: bytes, expected) -> None:
    assert parse_query(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        b"min_vram=-1",
        b"min_vram=abc",
        b"min_vram=1e3",
        b"min_vram=10001",
        b"min_vram=80&min_vram=90",
        b"min_vram=",
        b"fp8=True",
        b"include_expired=1",
        b"fp8=1",
        b"sort=cheap",
        b"pricing=hourly",
        b"limit=0",
        b"limit=1001",
        b"limit=010",
        b"offset=-1",
        b"offset=1000001",
        b"format=csv",
        b"min_vrm=80",
        b"gpu=" + b",".join(b"g%d" % i for i in range(51)),
        b"&".join(b"gpu=g%d" % i for i in range(51)),
        b"provider=a;b",
        b"gpu=x=y",
        b"provider=%FF",
    ],
)
def test_anything_unusual_is_left_to_the_handler(query: bytes) -> None:
    assert parse_query(query) is None


def _call(app, query: bytes, headers: list[tuple[bytes, bytes]]) -> list[dict]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/instances",
        "query_string": query,
        "headers": headers,
    }
    asyncio.run(app(scope, receive, send))
    return sent


def test_the_fast_route_answers_plain_json_requests_itself(store: SnapshotStore) -> None:
    inner: list[bytes] = []

    async def handler(scope, receive, send) -> None:
        inner.append(scope["query_string"])

    app = instances_fast_route(store)(handler)
    sent = _call(app, b"min_vram=80&fp8=true", [(b"accept", b"*/*")])
    body = instances_body(store.get(), OfferQuery(OfferFilter.build(min_vram=80, fp8=True))).body
    assert sent[0]["status"] == 200 and sent[1]["body"] == body
    names = [name for name, _ in sent[0]["headers"]]
    assert names == [
        b"content-type",
        b"content-length",
        b"etag",
        b"last-modified",
        b"cache-control",
        b"vary",
        b"link",  # rel="next": 100 of more offers
    ]  # the handler's and api.conditional's, in their order (values: test_instances_pinned)
    assert sent[0]["headers"][1] == (b"content-length", str(len(body)).encode())
    assert inner == []
    # gzip, CSV and errors go to Litestar (compression, conversion and the 400s are its own)
    _call(app, b"min_vram=80", [(b"accept-encoding", b"gzip, deflate")])
    _call(app, b"min_vram=80", [(b"accept", b"text/csv")])
    _call(app, b"min_vram=80&format=csv", [])
    _call(app, b"min_vram=-1", [])
    _call(app, b"min_vram=80", [(b"if-none-match", b"*")])  # api.conditional answers 304s
    _call(app, b"min_vram=80", [(b"origin", b"https://example.org")])  # CORS adds headers
    assert inner == [
        b"min_vram=80",
        b"min_vram=80",
        b"min_vram=80&format=csv",
        b"min_vram=-1",
        b"min_vram=80",
        b"min_vram=80",
    ]


def test_a_large_table_is_queried_off_the_event_loop(
    store: SnapshotStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from api.instances import service as instances

    seen: list[str] = []
    original = instances.instances_body

    def spy(snapshot, query):
        seen.append(threading.current_thread().name)
        return original(snapshot, query)

    monkeypatch.setattr(instances, "instances_body", spy)

    async def handler(scope, receive, send) -> None:
        raise AssertionError("the fast route should answer")

    app = instances_fast_route(store)(handler)
    _call(app, b"limit=5", [])
    monkeypatch.setattr(instances, "INLINE_ROWS", 10)  # the replay has 714 offers
    _call(app, b"limit=5", [])
    assert seen[0] == threading.main_thread().name and seen[1] != seen[0]
