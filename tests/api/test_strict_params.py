"""Issue 12 point 4, the parameters: unknown names are a 400 that names them and lists the valid
ones on every endpoint; provider and GPU values in any case and as comma lists; GPU spellings of
gpuhunt and SkyPilot; enum errors that list the valid values; descending sorts."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.params import gpu_filter
from tests.support.published import published_copy
from warehouse.gpus import load_gpus
from warehouse.queries import OfferFilter
from warehouse.vocabulary import INSTANCE_SORTS

# the file takes about 16 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=16)

_METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def published(replayed_published, tmp_path_factory) -> Path:  # tests/conftest.py
    return published_copy(replayed_published, tmp_path_factory.mktemp("strict") / "published")


@pytest.fixture(scope="module")
def app(published):
    return create_app(published, reload_interval_s=3600)


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app) as test_client:
        yield test_client


def _operations(app) -> list[tuple[str, str, list[str]]]:
    """(METHOD, concrete path, its documented query parameters) of every operation."""
    found = []
    for path, item in app.openapi_schema.to_schema()["paths"].items():
        for method in _METHODS:
            if method in item:
                query = sorted(
                    p["name"] for p in item[method].get("parameters", []) if p["in"] == "query"
                )
                found.append((method.upper(), re.sub(r"\{[^}]+\}", "x", path), query))
    return found


def _items(client, **params) -> list[dict]:
    response = client.get("/instances", params={"limit": 1000, **params})
    assert response.status_code == 200, response.text
    return response.json()["items"]


def _ids(items: list[dict]) -> list[str]:
    return [i["id"] for i in items]


# --- unknown parameters -----------------------------------------------------------------------


def test_min_vrm_typo_is_a_400_naming_it_not_every_offer(client) -> None:
    response = client.get("/instances", params={"min_vrm": 80})
    assert response.status_code == 400
    body = response.json()
    assert "'min_vrm'" in body["detail"] and "did you mean 'min_vram'?" in body["detail"]
    assert body["extra"][0]["key"] == "min_vrm"
    assert {"min_vram", "gpu", "provider", "sort", "format"} <= set(body["extra"][0]["valid"])


def test_every_operation_rejects_unknown_parameters_listing_its_own(app, client) -> None:
    operations = _operations(app)
    assert len(operations) >= 15
    for method, path, documented in operations:
        response = client.request(method, path, params={"min_vrm": "80", "colour": "red"})
        assert response.status_code == 400, (method, path, response.text)
        body = response.json()
        assert "'min_vrm'" in body["detail"] and "'colour'" in body["detail"], body
        # the valid list is what the handler declares, which is what OpenAPI documents
        assert body["extra"][0]["valid"] == documented, (method, path)


def test_known_parameters_and_the_page_query_string_still_pass(client) -> None:
    assert client.get("/instances", params={"min_vram": 80, "limit": 1}).status_code == 200
    assert client.get("/health").status_code == 200
    # the comparison page keeps its form state in its own query string
    assert client.get("/", params={"gpu": "h100", "min_gpus": 8}).status_code == 200


def test_a_cached_answer_never_skips_the_unknown_parameter_check(app, client) -> None:
    query = "/providers"
    assert client.get(query).status_code == 200
    responses = app.state["store"].get().responses
    hits = responses.hits
    assert client.get(query).status_code == 200 and responses.hits == hits + 1
    for _ in range(2):
        assert client.get(query + "?min_vrm=1").status_code == 400
    assert responses.hits == hits + 1  # the 400s were neither served from nor put in the cache
    assert ("providers",) in responses.held_keys()


# --- forgiving values -------------------------------------------------------------------------


def test_provider_is_case_insensitive(client) -> None:
    every = {"include_expired": "true"}  # Lambda's prices are from 2026-01: expired by default
    lower = _ids(_items(client, provider="lambda", **every))
    assert lower
    assert _ids(_items(client, provider="Lambda", **every)) == _ids(
        _items(client, provider="LAMBDA", **every)
    )
    assert _ids(_items(client, provider="Lambda", **every)) == lower
    detail = client.get("/providers/Lambda").json()
    assert detail["provider"] == "lambda" and detail["status"] is not None


def test_provider_comma_list_equals_repeated_parameters(client) -> None:
    every = {"include_expired": "true"}  # Lambda's prices are from 2026-01: expired by default
    repeated = _items(client, provider=["lambda", "runpod"], **every)
    comma = _items(client, provider="lambda,runpod", **every)
    assert _ids(comma) == _ids(repeated)
    assert {i["provider"] for i in comma} == {"lambda", "runpod"}
    assert len(comma) == len(_items(client, provider="lambda", **every)) + len(
        _items(client, provider="runpod", **every)
    )
    mixed = _items(client, provider=["Lambda, RunPod", "lambda"], **every)  # both forms at once
    assert _ids(mixed) == _ids(repeated)


def test_gpu_comma_list_and_case(client) -> None:
    comma = _items(client, gpu="H100,a100", include_suspect="true")
    repeated = _items(client, gpu=["h100", "a100"], include_suspect="true")
    assert comma and _ids(comma) == _ids(repeated)
    assert {(i["gpu_id"] or i["gpu_family"]).split("-")[0] for i in comma} == {"h100", "a100"}


def test_comma_lists_are_bounded_like_repeats(client) -> None:
    many = ",".join(f"p{i}" for i in range(51))
    response = client.get("/instances", params={"provider": many})
    assert response.status_code == 400 and "at most 50" in response.json()["detail"]


def test_region_is_case_insensitive(client) -> None:
    lower = _ids(_items(client, provider="aws", region="us-east-1"))
    assert lower
    assert _ids(_items(client, provider="aws", region="US-EAST-1")) == lower


# Spellings gpuhunt's and SkyPilot's catalogs use (their constraints and catalog files; our
# exports map to them in pipelines/interop_names.csv) -> every canonical GPU they name.
TOOL_SPELLINGS = {
    "RTX4090": {"rtx-4090"},
    "rtx4090": {"rtx-4090"},
    "RTX 4090": {"rtx-4090"},
    "A100-80GB": {"a100-80gb-sxm", "a100-80gb-pcie"},
    "A100-80GB-SXM": {"a100-80gb-sxm"},
    "A100": {"a100-40gb-sxm", "a100-80gb-sxm", "a100-40gb-pcie", "a100-80gb-pcie"},
    "H100": {"h100-sxm", "h100-pcie"},
    "H100-SXM": {"h100-sxm"},
    "H100NVL": {"h100-nvl"},
    "H100-NVL": {"h100-nvl"},
    "H100-MEGA": {"h100-sxm"},
    "H200-SXM": {"h200"},
    "L40S": {"l40s"},
    "l40s": {"l40s"},
    "A10G": {"a10g"},
    "A6000": {"rtx-a6000"},
    "RTXA6000": {"rtx-a6000"},
    "RTX6000Ada": {"rtx-6000-ada"},
    "RTX6000-Ada": {"rtx-6000-ada"},
    "RTX4000-Ada-SFF": {"rtx-4000-sff-ada"},
    "RTXPRO6000": {"rtx-pro-6000"},
    "RTXPRO6000S": {"rtx-pro-6000"},
    "RTXPRO6000WS": {"rtx-pro-6000-ws"},
    "RTXPRO6000-WK": {"rtx-pro-6000-ws"},
    "RTX4080SUPER": {"rtx-4080-super"},
    "RTX4070TiSUPER": {"rtx-4070-ti-super"},
    "GTX1660S": {"gtx-1660-super"},
    "V100": {"v100-16gb", "v100-32gb", "v100-16gb-pcie"},
    "V100-32GB": {"v100-32gb"},
    "V100-16GB-SXM2": {"v100-16gb"},
    "V100-32GB-SXM2": {"v100-32gb"},
    "V100-16GB-PCIe": {"v100-16gb-pcie"},
    "M4000": {"quadro-m4000"},
    "MI300X": {"mi300x"},
    "Gaudi3": {"gaudi3"},
    "GH200": {"gh200"},
    "NVIDIA GeForce RTX 4090": {"rtx-4090"},
    "h100_sxm": {"h100-sxm"},
}


def _matched(term: str) -> set[str]:
    ids = set(load_gpus())
    where = OfferFilter(gpu=(term,), include_suspect=True).where()
    exact = len(where.params) == 1  # a canonical id binds itself only, a family a pattern too
    return {term} & ids if exact else {g for g in ids if g == term or g.startswith(term + "-")}


@pytest.mark.parametrize(("spelling", "expected"), sorted(TOOL_SPELLINGS.items()))
def test_gpuhunt_and_skypilot_spellings_resolve(spelling: str, expected: set[str]) -> None:
    matched = _matched(gpu_filter(spelling))
    assert expected <= matched, (spelling, gpu_filter(spelling), matched)
    if len(expected) == 1:  # a model names that model, not its family
        assert matched == expected, (spelling, matched)


def test_a_canonical_id_matches_that_gpu_only(client) -> None:
    # rtx-3090 is not rtx-3090-ti and h200 is not h200-nvl; a family (h100) is all its models
    models = {i["gpu_id"] for i in _items(client, gpu="rtx-3090", include_suspect="true")}
    assert models == {"rtx-3090"}
    models = {i["gpu_id"] for i in _items(client, gpu="H200", include_suspect="true")}
    assert models == {"h200"}
    family = {i["gpu_id"] for i in _items(client, gpu="h100", include_suspect="true")}
    assert {"h100-sxm", "h100-pcie"} <= family


def test_rtx4090_answers_like_the_canonical_id(client) -> None:
    canonical = _ids(_items(client, gpu="rtx-4090"))
    assert canonical
    for spelling in ("rtx4090", "RTX4090", "RTX 4090", "NVIDIA GeForce RTX 4090"):
        assert _ids(_items(client, gpu=spelling)) == canonical, spelling


def test_history_and_changes_resolve_spellings_too(client) -> None:
    by_id = client.get("/history", params={"gpu": "h100-sxm", "bucket": "month"}).json()
    by_tool = client.get("/history", params={"gpu": "H100-SXM", "bucket": "month"}).json()
    assert by_tool["gpu"] == "h100-sxm" and by_tool["items"] == by_id["items"]
    one_series = client.get("/history", params={"gpu": "h100,a100"})
    assert one_series.status_code == 400 and "one GPU" in one_series.json()["detail"]
    changes = client.get("/changes", params={"gpu": "H100,a100", "provider": "Lambda,RunPod"})
    assert changes.status_code == 200


# --- enum errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "params", "name", "valid"),
    [
        ("/instances", {"sort": "cheapest"}, "sort", ["price", "-price", "vram", "-vram"]),
        ("/instances", {"pricing": "hourly"}, "pricing", ["on_demand", "spot", "dynamic"]),
        ("/instances", {"format": "xml"}, "format", ["json", "csv"]),
        ("/history", {"gpu": "h100", "bucket": "year"}, "bucket", ["day", "week", "month"]),
        ("/estimates", {"model": "llama-3.1-8b", "precision": "fp3"}, "precision", ["fp8"]),
        (
            "/breakeven",
            {"model": "llama-3.1-8b", "requests_per_day": 10, "dedicated_pricing": "x"},
            "dedicated_pricing",
            ["on_demand", "any"],
        ),
    ],
)
def test_enum_errors_list_the_valid_values(client, path, params, name, valid) -> None:
    response = client.get(path, params=params)
    assert response.status_code == 400
    body = response.json()
    (error,) = [e for e in body["extra"] if e["key"] == name]
    assert set(valid) <= set(error["valid"])
    assert f"{name}:" in body["detail"] and "valid values: " in body["detail"]
    for value in valid:
        assert value in body["detail"]


# --- sorting ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sort", sorted(INSTANCE_SORTS))
def test_descending_sort_for_every_key_with_a_stable_tie_break(client, sort: str) -> None:
    column = {
        "price": "price_per_hour_usd",
        "price_per_gpu": "price_per_gpu_hour_usd",
        "price_per_vram_gb": "price_per_vram_gb_hour_usd",
        "vram": "vram_gb_usable",
    }[sort]
    up = _items(client, sort=sort)
    down = _items(client, sort=f"-{sort}")
    assert len(up) == len(down) > 100
    valued = [i for i in down if i[column] is not None]
    assert [i[column] for i in valued] == sorted((i[column] for i in valued), reverse=True)
    assert all(i[column] is None for i in down[len(valued) :])  # no value: last, either way
    for a, b in itertools.pairwise(valued):
        if a[column] == b[column]:
            assert a["id"] < b["id"]  # ties by offer id, ascending in both directions
    assert _ids(_items(client, sort=f"-{sort}")) == _ids(down)  # the same order every time
    # paging a descending sort walks the same order
    first = client.get("/instances", params={"sort": f"-{sort}", "limit": 7}).json()["items"]
    second = client.get("/instances", params={"sort": f"-{sort}", "limit": 7, "offset": 7}).json()[
        "items"
    ]
    assert _ids(first + second) == _ids(down[:14])


def test_ascending_price_stays_the_default(client) -> None:
    assert _ids(_items(client)) == _ids(_items(client, sort="price"))


def test_descending_sort_with_cheapest_per_gpu(client) -> None:
    items = _items(client, cheapest_per_gpu="true", sort="-price_per_gpu")
    prices = [i["price_per_gpu_hour_usd"] for i in items]
    assert prices == sorted(prices, reverse=True) and len(items) > 10
