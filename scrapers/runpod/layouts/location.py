"""``location`` (live, query 3 of ``fetch``; told by the request URL's fragment, not the
content): ``data.gpuTypes`` items with the prices and ``lowestPrice {minVcpu minMemory
stockStatus ...}`` of a one-GPU Pod in one data centre (Secure Cloud) or country (Community
Cloud).

Read as gpuhunt reads them: on-demand (securePrice) and spot (secureSpotPrice) in each data
centre, region = its id (``EU-RO-1``), and on-demand (communityPrice) and spot
(communitySpotPrice) in each country, region = the country code (``CA``), with ``vcpus`` =
``lowestPrice.minVcpu`` and ``ram_gb`` = ``lowestPrice.minMemory`` (GB; None when RunPod returns
null), ``offered`` = the tier's flag from the ``locations`` response (None without it), and
``available`` True. Only where ``lowestPrice.stockStatus`` is not null (gpuhunt's rule): no
stock there means no offer there, not counted, like a null price. The prices are the per-tier
ones (a gpu type's prices take no location argument); savings plans stay per tier.
Exclusions: ``malformed_item`` (also a ``minVcpu``/``minMemory`` that is not a non-negative
number). Drift: items lacking ``lowestPrice`` or the tier's two prices, a ``lowestPrice``
lacking minVcpu, minMemory or stockStatus.
"""

from __future__ import annotations

from collections import Counter

from scrapers.base import Offer, PricingModel, RawResponse, SchemaDriftError
from scrapers.parsing import RowExcluded, json_body
from scrapers.runpod.common import MALFORMED_ITEM, PRICE_FIELDS, REQUIRED_FIELDS, spec
from scrapers.runpod.fetch import GRAPHQL_URL, location_of
from scrapers.runpod.gpu_types import (
    Candidate,
    Item,
    checked_items,
    envelope_items,
    item_header,
    item_offers,
)
from scrapers.runpod.layouts.locations import Flags

_STOCK_FIELDS = ("minVcpu", "minMemory", "stockStatus")


def detect(response: RawResponse) -> bool:
    return location_of(response.url) is not None


def price_fields(tier: str) -> list[tuple[str, PricingModel]]:
    """The price fields gpuhunt reads for a location of ``tier``: on-demand, then spot."""
    return [
        (field, pricing)
        for field, place, pricing, term in PRICE_FIELDS
        if place == tier and term is None
    ]


def rows(response: RawResponse, flags: Flags) -> list[Item]:
    """The items of one location's answer, each with that location and the ``locations``
    response's ``flags``."""
    location = location_of(response.url)
    if location is None:
        raise SchemaDriftError(f"{response.url}: not a location query")
    tier, where = location
    layout = f"location {where} ({tier})"
    required = (*REQUIRED_FIELDS, "lowestPrice", *(f for f, _ in price_fields(tier)))
    items = checked_items(envelope_items(json_body(response), layout), layout, required)
    for item in items:
        lowest = item["lowestPrice"]
        if isinstance(lowest, dict) and any(k not in lowest for k in _STOCK_FIELDS):
            raise SchemaDriftError(
                f"{layout}: lowestPrice of {item.get('id')!r} lacks"
                f" {[k for k in _STOCK_FIELDS if k not in lowest]}"
            )
    return [
        Item(item, layout, GRAPHQL_URL, response.fetched_at, location=location, flags=flags)
        for item in items
    ]


def read_row(row: Item, excluded: Counter[str]) -> list[Offer]:
    assert row.location is not None  # every row of ``rows`` has its location
    tier, where = row.location
    item = row.item
    gpu_id, _ = item_header(item)
    lowest = item["lowestPrice"]
    if lowest is not None and not isinstance(lowest, dict):
        raise RowExcluded(MALFORMED_ITEM)
    if lowest is None or lowest["stockStatus"] is None:
        return []  # no stock there: not offered there (gpuhunt's rule)
    vcpus, ram_gb = spec(lowest["minVcpu"]), spec(lowest["minMemory"])
    offered = row.flags.get(gpu_id, {}).get(tier)
    candidates: list[Candidate] = [
        (field, where, pricing, None, item[field], offered) for field, pricing in price_fields(tier)
    ]
    # a stockStatus ("High", "Low", ...): there is stock there
    return item_offers(row, candidates, excluded, vcpus=vcpus, ram_gb=ram_gb, stock={where: True})
