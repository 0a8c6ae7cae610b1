"""Akash: the Console API GPU price list (saved capture and the live shape), drift, fetch."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from scrapers import akash
from scrapers.base import (
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
    unknown_row,
)
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture
from warehouse.gpus import resolve

H100_2026_09 = SNAPSHOTS / "akash" / "2026-09-28_console-api_gpu-prices_h100-sxm5.json"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(H100_2026_09, url=akash.GPU_PRICES_URL)
    return raw if body is None else dataclasses.replace(raw, body=body)


def _capture() -> dict[str, Any]:
    return json.loads(H100_2026_09.read_bytes())


def _json(document: Any) -> RawResponse:
    return _raw(json.dumps(document).encode())


def _live(models: list[dict[str, Any]]) -> RawResponse:
    """The live response shape: ``{availability, models}`` (no saver wrapper)."""
    return _json({"availability": {"total": 100, "available": 40}, "models": models})


def _model(**changes: Any) -> dict[str, Any]:
    """The capture's H100 model, reduced to the live (non-debug) fields, with ``changes``."""
    model = _capture()["models"][0]
    reduced = {key: model[key] for key in (*akash.MODEL_KEYS, "providerAvailability")}
    return {**reduced, **changes}


def test_capture_h100_sxm5_market_price() -> None:
    offers, excluded = akash.parse_with_exclusions([_raw()])
    assert excluded == {}
    [h100] = offers
    # "vendor": "nvidia", "model": "h100", "ram": "80Gi", "interface": "SXM5";
    # price: min 2.04, max 3.16, avg 2.58, weightedAverage 2.72, med 2.56 (USD)
    assert (h100.instance_type, h100.gpu_name) == ("nvidia-h100-80Gi-SXM5", "nvidia h100 SXM5")
    assert (h100.price, h100.currency, h100.price_unit, h100.price_per) == (
        Decimal("2.72"),
        "USD",
        PriceUnit.HOUR,
        PricePer.GPU,
    )
    assert (h100.pricing, h100.gpu_count, h100.region) == (
        PricingModel.ON_DEMAND,
        Decimal(1),
        "global",
    )
    assert h100.vram_gb_reported == Decimal("85.9")  # 80 GiB
    assert (h100.vcpus, h100.ram_gb, h100.storage_gb, h100.offered) == (None, None, None, None)
    assert h100.source_url == akash.GPU_PRICES_URL
    assert h100.observed_at == datetime(2026, 9, 28, tzinfo=UTC)
    assert resolve(h100.gpu_name, float(h100.vram_gb_reported or 0)) == "h100-sxm"


def test_weighted_average_is_the_providers_best_bids_weighted_by_allocatable_gpus() -> None:
    # The debug part of the capture holds the four providers' best bids (2.56, 2.56, 2.04,
    # 3.16 $/h on 8, 32, 5 and 23 allocatable GPUs): the emitted price is their weighted mean.
    bids = _capture()["models"][0]["providersWithBestBid"]
    weights = [Decimal(b["provider"]["allocatable"]) for b in bids]
    prices = [Decimal(str(b["bestBid"]["hourlyPrice"])) for b in bids]
    weighted = sum((w * p for w, p in zip(weights, prices, strict=True)), Decimal(0)) / sum(
        weights, Decimal(0)
    )
    [h100] = akash.PROVIDER.parse([_raw()])
    assert h100.price == weighted.quantize(Decimal("0.01"))


def test_live_shape_with_several_models_and_one_without_bids() -> None:
    a100 = _model(
        model="a100",
        ram="40Gi",
        interface="PCIe",
        price={"currency": "USD", "min": 0.8, "max": 1.2, "avg": 1, "weightedAverage": 0.95},
    )
    unpriced = _model(model="t4", ram="16Gi", interface="PCIe", price=None)
    offers, excluded = akash.parse_with_exclusions([_live([_model(), a100, unpriced])])
    assert excluded == {"no_recent_bids": 1}
    by_type = {o.instance_type: o for o in offers}
    assert set(by_type) == {"nvidia-h100-80Gi-SXM5", "nvidia-a100-40Gi-PCIe"}
    assert by_type["nvidia-a100-40Gi-PCIe"].price == Decimal("0.95")
    assert by_type["nvidia-a100-40Gi-PCIe"].vram_gb_reported == Decimal("42.9")


def test_new_model_of_a_known_family_is_emitted_with_akash_spelling() -> None:
    unknown = _model(vendor="nvidia", model="rtx9999ti", ram="48Gi", interface="PCIe")
    offers = akash.PROVIDER.parse([_live([_model(), unknown])])
    new = next(o for o in offers if o.instance_type == "nvidia-rtx9999ti-48Gi-PCIe")
    assert new.gpu_name == "nvidia rtx9999ti PCIe"
    assert resolve(new.gpu_name, float(new.vram_gb_reported or 0)) is None


@pytest.mark.parametrize(
    ("changes", "label"),
    [
        ({"model": "z100"}, "nvidia-z100-80Gi-SXM5"),
        ({"vendor": "intel", "model": "max1550"}, "intel-max1550-80Gi-SXM5"),
        ({"model": "titan"}, "nvidia-titan-80Gi-SXM5"),  # no model number
    ],
)
def test_model_of_an_unknown_family_is_reported_not_emitted(
    changes: dict[str, Any], label: str
) -> None:
    offers, excluded = akash.PROVIDER.parse_report([_live([_model(), _model(**changes)])])
    assert excluded == {unknown_row("family", label): 1}
    assert [(o.instance_type, o.price) for o in offers] == [
        ("nvidia-h100-80Gi-SXM5", Decimal("2.72"))
    ]


@pytest.mark.parametrize(
    "model", ["a100", "rtxa6000", "rtx4000sffada", "gtx1080ti", "l40s", "b200", "gh200", "t4"]
)
def test_families_of_akash_gpu_names_are_known(model: str) -> None:
    offers, excluded = akash.parse_with_exclusions([_live([_model(model=model)])])
    assert [o.instance_type for o in offers] == [f"nvidia-{model}-80Gi-SXM5"]
    assert excluded == {}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"fetchedAt": "x", "url": "y", "gpuModels": []}, "not an Akash GPU price list"),
        ({"availability": {}, "models": []}, "non-empty list"),
        ({"availability": {}, "models": {"h100": {}}}, "non-empty list"),
        ([], "not an Akash GPU price list"),
    ],
)
def test_unknown_envelope_is_drift(document: Any, message: str) -> None:
    with pytest.raises(SchemaDriftError, match=message):
        akash.PROVIDER.parse([_json(document)])


def test_model_without_price_field_is_excluded() -> None:
    model = _model(model="a100", ram="40Gi")
    del model["price"]
    offers, excluded = akash.parse_with_exclusions([_live([_model(), model])])
    assert excluded == {"incomplete_model": 1}
    assert [o.price for o in offers] == [Decimal("2.72")]


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"price": {"currency": "USD", "avg": 2.5}}, "unparsed_price"),
        ({"price": {"currency": "uakt", "weightedAverage": 2.5}}, "unparsed_price"),
        ({"price": 2.5}, "unparsed_price"),
        ({"ram": "80"}, "unparsed_memory"),
        ({"model": ""}, "incomplete_model"),
    ],
)
def test_unreadable_model_is_excluded_and_the_others_published(
    changes: dict[str, Any], reason: str
) -> None:
    a100 = _model(**{"model": "a100", "ram": "40Gi", "interface": "PCIe", **changes})
    offers, excluded = akash.PROVIDER.parse_report([_live([_model(), a100])])
    assert excluded == {reason: 1}
    assert [(o.instance_type, o.price) for o in offers] == [
        ("nvidia-h100-80Gi-SXM5", Decimal("2.72"))
    ]


def test_most_models_unreadable_is_drift() -> None:
    broken = [_model(model=m, price=2.5) for m in ("a100", "a40")]
    with pytest.raises(SchemaDriftError, match="unreadable than read: unparsed_price 2"):
        akash.PROVIDER.parse([_live([_model(), *broken])])


def test_no_priced_model_at_all_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match=r"no priced GPU model.*no_recent_bids 1"):
        akash.PROVIDER.parse([_live([_model(price=None)])])


def test_capture_with_renamed_keys_is_drift() -> None:
    body = H100_2026_09.read_bytes().replace(b'"weightedAverage"', b'"weighted_average"')
    with pytest.raises(SchemaDriftError, match=r"no priced GPU model.*excluded: unparsed_price 1"):
        akash.PROVIDER.parse([_raw(body)])


def test_fetch_is_one_unauthenticated_get() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=H100_2026_09.read_bytes())

    with make_client(httpx.MockTransport(handler)) as client:
        responses = akash.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", akash.GPU_PRICES_URL)]
    assert "authorization" not in seen[0].headers
    assert [o.price for o in akash.PROVIDER.parse(responses)] == [Decimal("2.72")]


def test_replay_of_the_capture_parses() -> None:
    [capture] = discover(SNAPSHOTS, ["akash"])["akash"]
    with make_client(ReplayTransport(capture)) as client:
        responses = akash.fetch(client, None)
    [offer] = akash.PROVIDER.parse(responses)
    assert offer.observed_at == capture.captured_at
