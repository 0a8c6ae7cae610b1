"""``graphql`` (live, and the c2026-09 capture): ``POST https://api.runpod.io/graphql``
answering ``{"data": {"gpuTypes": [...]}}``, items with the per-cloud prices.

Offers per item: on-demand (``securePrice``, ``communityPrice``), spot (``secureSpotPrice``,
``communitySpotPrice``) and savings plans (``oneMonthPrice``, ``threeMonthPrice``,
``sixMonthPrice`` -> 1, 3, 6 months, Secure Cloud: their rates sit below the Secure but above
the Community on-demand rate, H100 SXM 2025-06: 2.99 > 2.811 > 2.69), each RunPod-wide (region
``global``) in its tier. The c2026-09 capture asked only for id/displayName/memoryInGb/
securePrice/communityPrice; the live query asks every field above and the flags.

Rules:
- null or 0 means "not offered";
- a false ``secureCloud``/``communityCloud`` flag means that cloud does not offer the GPU:
  RunPod fills such slots with placeholder prices (often 0.50, e.g. the MI300X community price).
  They are emitted with ``offered=False`` (the secure flag covers secure on-demand, secure spot
  and savings plans; the community flag community on-demand and spot) so the warehouse keeps
  them and the plausibility screen marks them suspect; items without flags get ``offered=None``;
- ``oneWeekPrice`` (a 1-week savings plan) is not emitted: ``reserved_term_months`` is a whole
  number of months and a week would be misreported as a month;
- ``lowestPrice`` beside the per-cloud prices (the 2023 ``__NEXT_DATA__`` items) is the
  Community one: its ``stockStatus`` says whether Community Cloud has stock (null: not
  available);
- ``clusterPrice`` (Instant Clusters) and ``maxGpuCount`` are not offers of one Pod GPU.
A ``{"errors": [...]}`` envelope is drift: GraphQL reports a renamed or removed field that way.
"""

from __future__ import annotations

from collections import Counter

from scrapers.base import Offer, RawResponse
from scrapers.parsing import json_body
from scrapers.runpod.common import COMMUNITY, FLAG_FIELDS, PRICE_FIELDS, flag
from scrapers.runpod.fetch import GRAPHQL_URL
from scrapers.runpod.gpu_types import (
    Candidate,
    Item,
    check_price_fields,
    checked_items,
    envelope_items,
    is_json,
    item_header,
    item_offers,
)

LAYOUT = "data.gpuTypes"


def detect(response: RawResponse) -> bool:
    return is_json(response, b"{")


def rows(response: RawResponse) -> list[Item]:
    items = checked_items(envelope_items(json_body(response)), LAYOUT)
    check_price_fields(items, LAYOUT)
    return [Item(item, LAYOUT, GRAPHQL_URL, response.fetched_at) for item in items]


def read_row(row: Item, excluded: Counter[str]) -> list[Offer]:
    """The offers of one item carrying the per-cloud prices (``securePrice``/
    ``communityPrice``); ``RowExcluded`` for an item left out whole."""
    item = row.item
    item_header(item)
    offered = {tier: flag(item, key) for tier, key in FLAG_FIELDS.items()}
    stock: dict[str, bool] = {}
    lowest = item.get("lowestPrice")
    if isinstance(lowest, dict) and "stockStatus" in lowest:
        # lowestPrice without a cloud filter is the Community price, so its stockStatus is the
        # Community stock: null is none (gpuhunt's rule)
        stock[COMMUNITY] = lowest["stockStatus"] is not None
    candidates: list[Candidate] = [
        (field, tier, pricing, term, item[field], offered[tier])
        for field, tier, pricing, term in PRICE_FIELDS
        if field in item
    ]
    return item_offers(row, candidates, excluded, stock=stock)
