"""Issue 25: filter values a client gets wrong, and pages a client walks.

An unknown GPU, provider, region or country used to answer 200 with an empty list, which reads as
"no offers"; it is a 400 naming the closest known value, on the documented handler and the fast
route alike. Pricing takes any case and comma lists; vCPU and RAM minimums filter; paged answers
say where the next page starts (``next_offset``, ``Link``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.instances.controller import instances_fast_route
from api.store import SnapshotStore
from tests.support.published import published_copy

GZIP = {"accept-encoding": "gzip"}  # the fast route leaves gzip to Litestar: the handler answers


@pytest.fixture(scope="module")
def published(replayed_published, tmp_path_factory) -> Path:  # tests/conftest.py
    return published_copy(replayed_published, tmp_path_factory.mktemp("values") / "published")


@pytest.fixture(scope="module")
def client(published):
    with TestClient(create_app(published, reload_interval_s=3600)) as test_client:
        yield test_client


def _problem(client, path: str, **params) -> dict:
    response = client.get(path, params=params)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return response.json()


@pytest.mark.parametrize(
    ("params", "key", "value", "suggestion"),
    [
        ({"gpu": "h100-sxn"}, "gpu", "h100-sxn", "h100-sxm"),
        ({"gpu": "H100 SXN"}, "gpu", "h100-sxn", "h100-sxm"),
        ({"gpu": "rtx-4900"}, "gpu", "rtx-4900", "rtx-4090"),
        ({"provider": "lamda"}, "provider", "lamda", "lambda"),
        ({"provider": "RunPd,aws"}, "provider", "runpd", "runpod"),
        ({"region": "us-east-l", "provider": "aws"}, "region", "us-east-l", None),
        ({"country": "germany"}, "country", "germany", "de"),
        ({"country": "USA"}, "country", "usa", None),
    ],
)
def test_unknown_gpu_is_400_with_suggestion(client, params, key, value, suggestion) -> None:
    body = _problem(client, "/instances", **params)
    (entry,) = body["extra"]
    assert (entry["key"], entry["value"]) == (key, value)
    assert repr(value) in body["detail"] and body["detail"].startswith(f"{key}: unknown")
    if suggestion is not None:
        assert entry["did_you_mean"] == suggestion
        assert f"did you mean {suggestion!r}?" in body["detail"]
    assert entry["valid"] and value not in entry["valid"]
    # the same 400 whichever route answers (the fast route hands unknown values to Litestar)
    assert client.get("/instances", params=params, headers=GZIP).json() == body


def test_unknown_values_of_several_filters_are_named_at_once(client) -> None:
    body = _problem(client, "/instances", gpu="h100,b201", provider="lamda")
    assert [(e["key"], e["value"], e.get("did_you_mean")) for e in body["extra"]] == [
        ("gpu", "b201", "b200"),
        ("provider", "lamda", "lambda"),
    ]


def test_known_values_are_never_refused(client) -> None:
    """Ids, families and tool spellings, any provider the snapshot names (offers or not), a
    region any provider has, a country of the ISO list with no offer there: 200."""
    for params in (
        {"gpu": "RTX4090,A100-80GB,H100-SXM,NVIDIA L40S,h100,a100-80gb,MI300X,Gaudi3"},
        {"provider": "Lambda,runpod,koyeb,voltagepark"},
        {"region": "US-EAST-1,europe,global"},
        {"country": "DE,br,AQ"},
        {"continent": "Europe"},
    ):
        response = client.get("/instances", params=params)
        assert response.status_code == 200, (params, response.text)
    assert client.get("/instances", params={"country": "AQ"}).json()["total"] == 0


def test_unknown_values_are_400_on_changes_and_economics(client) -> None:
    changes = _problem(client, "/changes", provider="lamda")
    assert changes["extra"][0]["did_you_mean"] == "lambda"
    fit = _problem(client, "/fit", model="llama-3.1-8b", gpu="h100-sxn")
    assert fit["extra"][0]["did_you_mean"] == "h100-sxm"


def test_pricing_is_case_insensitive_and_takes_lists(client) -> None:
    def ids(**params) -> list[str]:
        response = client.get("/instances", params={"limit": 1000, **params})
        assert response.status_code == 200, response.text
        return [i["id"] for i in response.json()["items"]]

    both = ids(pricing=["on_demand", "spot"])
    assert both and ids(pricing="spot,on_demand") == both == ids(pricing="ON_DEMAND,Spot")
    assert ids(pricing="on-demand") == ids(pricing="on_demand")
    body = _problem(client, "/instances", pricing="ondemand")
    assert body["extra"][0]["did_you_mean"] == "on_demand"
    assert (
        client.get("/fit", params={"model": "llama-3.1-8b", "pricing": "SPOT"}).status_code == 200
    )


def test_min_vcpus_and_min_ram_filters(client) -> None:
    """GCP's g4-standard-384 is the one machine with over 300 vCPUs (384, 1546.2 GB of RAM)."""
    fast = client.get("/instances", params={"min_vcpus": 300, "limit": 1000})
    items = fast.json()["items"]
    assert {(i["instance_type"], i["vcpus"], i["ram_gb"]) for i in items} == {
        ("g4-standard-384", 384, 1546.2)
    }
    slow = client.get("/instances", params={"min_vcpus": 300, "limit": 1000}, headers=GZIP)
    assert slow.content == fast.content
    assert (
        client.get("/instances", params={"min_vcpus": 300, "min_ram_gb": 2000}).json()["total"] == 0
    )
    assert client.get("/instances", params={"min_ram_gb": -1}).status_code == 400


def _walk(client, url: str, headers: dict[str, str]) -> tuple[list[str], list[str]]:
    """Follow rel="next" from ``url``: (every item id, every Link header seen)."""
    ids: list[str] = []
    links: list[str] = []
    while url:
        response = client.get(url, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        ids += [i["id"] for i in body["items"]]
        link = response.headers.get("link")
        following = response.links.get("next", {}).get("url")
        if body["next_offset"] is None:
            assert following is None
        else:
            assert following is not None and link is not None
            query = dict(parse_qsl(urlsplit(following).query))
            assert int(query["offset"]) == body["next_offset"] == body["offset"] + body["limit"]
        if link is not None:
            links.append(link)
        url = following or ""
    return ids, links


def test_pages_carry_link_next(client) -> None:
    """Walking rel="next" from the first page lists every matching offer once, each page's Link
    the same whichever route answered; the last page has no next."""
    start = "/instances?gpu=h100&sort=price_per_gpu&limit=7"
    everything = client.get("/instances", params={"gpu": "h100", "sort": "price_per_gpu"}).json()
    fast_ids, fast_links = _walk(client, start, {})
    slow_ids, slow_links = _walk(client, start, GZIP)
    assert fast_ids == slow_ids == [i["id"] for i in everything["items"]]
    assert fast_links == slow_links and len(fast_ids) == everything["total"] > 7
    assert fast_links[0] == (
        '</instances?gpu=h100&sort=price_per_gpu&limit=7&offset=7>; rel="next"'
    )
    second = client.get(start + "&offset=7")
    assert second.links["first"]["url"].endswith("limit=7&offset=0")
    assert second.links["prev"]["url"].endswith("limit=7&offset=0")
    last = client.get("/instances", params={"gpu": "h100", "limit": 1000})
    assert last.json()["next_offset"] is None and "link" not in last.headers
    csv = client.get(start + "&format=csv")
    assert csv.headers["link"] == fast_links[0].replace("&limit", "&format=csv&limit")


def test_changes_pages_carry_link_next(client) -> None:
    since = "2024-01-01"
    whole = client.get("/changes", params={"since": since, "limit": 1000}).json()
    assert whole["total"] > 3
    ids, links = _walk(client, f"/changes?since={since}&limit=3", {})
    assert len(ids) == whole["total"] and len(links) >= 1


def _call(app, query: bytes) -> list[dict]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/instances", "query_string": query,
             "headers": []}  # fmt: skip
    asyncio.run(app(scope, receive, send))
    return sent


def test_the_fast_route_leaves_unknown_values_to_the_handler(published: Path) -> None:
    handed: list[bytes] = []

    async def handler(scope, receive, send) -> None:
        handed.append(scope["query_string"])

    app = instances_fast_route(SnapshotStore(published, reload_interval_s=3600))(handler)
    for query in (b"gpu=h100-sxn", b"provider=lamda", b"region=nowhere-9", b"country=zz"):
        assert _call(app, query) == []
    assert handed == [b"gpu=h100-sxn", b"provider=lamda", b"region=nowhere-9", b"country=zz"]
    sent = _call(app, b"gpu=H100-SXM&pricing=SPOT,on_demand&min_vcpus=8&limit=1")
    assert sent[0]["status"] == 200 and dict(sent[0]["headers"])[b"link"] == (
        b'</instances?gpu=H100-SXM&pricing=SPOT,on_demand&min_vcpus=8&limit=1&offset=1>; rel="next"'
    )


@pytest.mark.parametrize("path", ["/history", "/history/catalog"])
def test_history_of_an_unknown_gpu_is_400_with_suggestion(client, path) -> None:
    """Issue 25: one GPU per series; a typo answered 200 with an empty series."""
    response = client.get(path, params={"gpu": "h100-sxn"})
    assert response.status_code == 400, response.text
    body = response.json()
    assert "did you mean 'h100-sxm'" in body["detail"]
    assert body["extra"][0]["key"] == "gpu"
    assert client.get(path, params={"gpu": "h100-sxm"}).status_code == 200
    assert client.get(path, params={"gpu": "h100"}).status_code == 200  # a family


def test_runpod_changes_name_their_cloud_tier(client):
    """RunPod's B200 changed in both tiers at its 2026-09-01 capture (5.89 -> 6.79 and 5.89 ->
    5.98): without the tier the two read as one offer changing twice."""
    items = client.get(
        "/changes", params={"provider": "runpod", "since": "2026-01-01", "limit": 500}
    ).json()["items"]
    b200 = {
        (i["cloud_tier"], i["old_price"], i["new_price"])
        for i in items
        if i["instance_type"] == "1x NVIDIA B200" and i["pricing"] == "on_demand"
    }
    assert len({tier for tier, _, _ in b200}) == len(b200) >= 2
    assert {tier for tier, _, _ in b200} <= {"secure", "community"}
    assert {(old, new) for _, old, new in b200} >= {(5.89, 6.79), (5.89, 5.98)}
