"""``lowestPrice items`` (the 2026-03/04 captures): ``gpuTypes`` items, bare or in the GraphQL
envelope, with ``lowestPrice {minimumBidPrice uninterruptablePrice}``, ``secureSpotPrice`` and
the two cloud flags, but no ``securePrice``/``communityPrice``.

``lowestPrice`` asked without a cloud filter is the Community price (in the 2023 capture every
non-null ``uninterruptablePrice`` equals ``communityPrice`` and every ``minimumBidPrice``
equals ``communitySpotPrice``), so here it stands for community on-demand / spot; null means no
stock. ``secureSpotPrice`` is Secure Cloud spot. Items without the flags are drift.
"""

from __future__ import annotations

from collections import Counter

from scrapers.base import Offer, PricingModel, RawResponse
from scrapers.parsing import RowExcluded, json_body
from scrapers.runpod.common import COMMUNITY, FLAG_FIELDS, MALFORMED_ITEM, SECURE, flag
from scrapers.runpod.fetch import GRAPHQL_URL
from scrapers.runpod.gpu_types import (
    Candidate,
    Item,
    check_price_fields,
    checked_items,
    envelope_items,
    has_tier_prices,
    is_json,
    item_header,
    item_offers,
    peek_items,
)

_LOWEST_PRICE_FIELDS = (
    ("uninterruptablePrice", COMMUNITY, PricingModel.ON_DEMAND),
    ("minimumBidPrice", COMMUNITY, PricingModel.SPOT),
)


def detect(response: RawResponse) -> bool:
    items = peek_items(response)
    first = items[0] if items else None
    return isinstance(first, dict) and "lowestPrice" in first and not has_tier_prices(first)


def rows(response: RawResponse) -> list[Item]:
    if is_json(response, b"["):
        layout, items = "gpuTypes array", json_body(response)
    else:
        layout, items = "data.gpuTypes", envelope_items(json_body(response))
    checked = checked_items(items, layout)
    check_price_fields(checked, layout)
    return [Item(item, layout, GRAPHQL_URL, response.fetched_at) for item in checked]


def read_row(row: Item, excluded: Counter[str]) -> list[Offer]:
    """Community on-demand and spot from ``lowestPrice``, Secure spot from ``secureSpotPrice``;
    ``RowExcluded`` (malformed_item) for a ``lowestPrice`` that is not an object or lacks one
    of its two prices."""
    item = row.item
    item_header(item)
    offered = {tier: flag(item, key) for tier, key in FLAG_FIELDS.items()}
    lowest = item["lowestPrice"]
    if lowest is not None and not isinstance(lowest, dict):
        raise RowExcluded(MALFORMED_ITEM)
    candidates: list[Candidate] = []
    for field, tier, pricing in _LOWEST_PRICE_FIELDS:
        if lowest is not None and field not in lowest:
            raise RowExcluded(MALFORMED_ITEM)
        value = None if lowest is None else lowest[field]
        candidates.append((f"lowestPrice.{field}", tier, pricing, None, value, offered[tier]))
    if "secureSpotPrice" in item:
        candidates.append(
            (
                "secureSpotPrice",
                SECURE,
                PricingModel.SPOT,
                None,
                item["secureSpotPrice"],
                offered[SECURE],
            )
        )
    return item_offers(row, candidates, excluded)
