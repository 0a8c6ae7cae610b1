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
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
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
    [h100] = akash.parse([_raw()])
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


def test_unknown_gpu_model_is_emitted_with_akash_spelling() -> None:
    unknown = _model(vendor="nvidia", model="rtx9999ti", ram="48Gi", interface="PCIe")
    offers = akash.parse([_live([_model(), unknown])])
    new = next(o for o in offers if o.instance_type == "nvidia-rtx9999ti-48Gi-PCIe")
    assert new.gpu_name == "nvidia rtx9999ti PCIe"
    assert resolve(new.gpu_name, float(new.vram_gb_reported or 0)) is None


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
        akash.parse([_json(document)])


def test_model_without_price_field_is_drift() -> None:
    model = _model()
    del model["price"]
    with pytest.raises(SchemaDriftError, match="model without"):
        akash.parse([_live([model])])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"price": {"currency": "USD", "avg": 2.5}}, "no numeric price.weightedAverage"),
        ({"price": {"currency": "uakt", "weightedAverage": 2.5}}, "currency"),
        ({"price": 2.5}, "price is not an object"),
        ({"ram": "80"}, "not like '80Gi'"),
        ({"model": ""}, "expected text"),
    ],
)
def test_unreadable_model_fields_are_drift(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaDriftError, match=message):
        akash.parse([_live([_model(**changes)])])


def test_no_priced_model_at_all_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no priced GPU model"):
        akash.parse([_live([_model(price=None)])])


def test_capture_with_renamed_keys_is_drift() -> None:
    body = H100_2026_09.read_bytes().replace(b'"weightedAverage"', b'"weighted_average"')
    with pytest.raises(SchemaDriftError, match="weightedAverage"):
        akash.parse([_raw(body)])


def test_fetch_is_one_unauthenticated_get() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=H100_2026_09.read_bytes())

    with make_client(httpx.MockTransport(handler)) as client:
        responses = akash.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", akash.GPU_PRICES_URL)]
    assert "authorization" not in seen[0].headers
    assert [o.price for o in akash.parse(responses)] == [Decimal("2.72")]


def test_replay_of_the_capture_parses() -> None:
    [capture] = discover(SNAPSHOTS, ["akash"])["akash"]
    with make_client(ReplayTransport(capture)) as client:
        responses = akash.fetch(client, None)
    [offer] = akash.parse(responses)
    assert offer.observed_at == capture.captured_at
