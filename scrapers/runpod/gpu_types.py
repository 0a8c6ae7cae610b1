"""The ``gpuTypes`` items every API-shaped RunPod layout carries (GraphQL live and captured, the
2025-06 arrays, the 2026-03 lowestPrice items, the 2023 ``__NEXT_DATA__`` page, the live
per-location answers): the list checks, and one item's prices -> offers.

An item is a row (``Item``): one that cannot be read is left out and counted by the layout's
``offers_from_rows``; a list whose items lack a required field, or whose keys differ from the
first item's, is ``SchemaDriftError``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from scrapers.base import Offer, PricePer, PricingModel, RawResponse, SchemaDriftError, unknown_row
from scrapers.parsing import RowExcluded, decimal, offers_from_rows
from scrapers.runpod.common import (
    COMMUNITY,
    FLAG_FIELDS,
    GLOBAL_REGION,
    KNOWN_GPU_TYPE_IDS,
    MALFORMED_ITEM,
    REQUIRED_FIELDS,
    is_number,
    mig_slice,
    offer,
    price_or_none,
)

# (field, place, pricing, reserved term in months, raw price, offered flag): one price of an item;
# the place is its tier for a per-tier price, its data centre or country for a location's.
Candidate = tuple[str, str, PricingModel, int | None, Any, bool | None]


@dataclass(frozen=True, slots=True)
class Item:
    """One gpuTypes item, with what its response says about all of them."""

    item: dict[str, Any]
    layout: str  # names the response in drift messages ("data.gpuTypes", "gpuTypes array")
    source_url: str
    observed_at: datetime
    # live per-location answers only: (tier, data centre id or country code), and the
    # ``locations`` response's flags (gpu type id -> tier -> secureCloud/communityCloud)
    location: tuple[str, str] | None = None
    flags: dict[str, dict[str, bool | None]] = field(default_factory=dict)


def is_json(response: RawResponse, first: bytes) -> bool:
    """Whether the body starts (after whitespace) with ``first`` (``b"{"`` or ``b"["``)."""
    return response.body.lstrip()[:1] == first


def is_page(response: RawResponse) -> bool:
    """Whether the body is a page, not a JSON object or list (what the page layouts read)."""
    return not (is_json(response, b"{") or is_json(response, b"["))


def peek_items(response: RawResponse) -> list[Any] | None:
    """The gpuTypes list of a JSON body, bare or in its ``data`` envelope, without raising (for
    ``detect``); None when the body holds no such list."""
    try:
        payload = json.loads(response.body)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(payload, dict):
        data = payload.get("data")
        payload = data.get("gpuTypes") if isinstance(data, dict) else None
    return payload if isinstance(payload, list) else None


def envelope_items(payload: Any, where: str | None = None) -> Any:
    """``data.gpuTypes`` of a GraphQL answer; ``SchemaDriftError`` for a body that is not an
    object or an ``errors`` envelope (GraphQL reports a renamed or removed field that way)."""
    prefix = f"{where}: " if where else ""
    if not isinstance(payload, dict):
        raise SchemaDriftError(f"{prefix}GraphQL response is not an object")
    if payload.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in payload["errors"])
        raise SchemaDriftError(f"{prefix}GraphQL errors: {messages[:300]}")
    data = payload.get("data")
    return data.get("gpuTypes") if isinstance(data, dict) else None


def checked_items(
    items: Any, layout: str, required: tuple[str, ...] = REQUIRED_FIELDS
) -> list[dict[str, Any]]:
    """``items`` when it is a non-empty list of objects that all have the first item's keys,
    ``required`` among them; ``SchemaDriftError`` otherwise."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise SchemaDriftError(f"{layout}: expected a non-empty list of gpuTypes objects")
    keys = set(items[0])
    missing = [k for k in required if k not in keys]
    if missing:
        raise SchemaDriftError(f"{layout}: gpuTypes items lack {missing}")
    for item in items:
        if set(item) != keys:
            raise SchemaDriftError(
                f"{layout}: item {item.get('id')!r} has keys {sorted(set(item) ^ keys)} "
                "that differ from the first item's"
            )
    return items


def has_tier_prices(keys: set[str] | dict[str, Any]) -> bool:
    """Whether items carry the per-cloud prices (securePrice and communityPrice)."""
    return "securePrice" in keys and "communityPrice" in keys


def check_price_fields(items: list[dict[str, Any]], layout: str) -> None:
    """``SchemaDriftError`` when the items carry neither the per-cloud prices nor
    ``lowestPrice``, or ``lowestPrice`` without the two cloud flags that say what it is."""
    keys = set(items[0])
    if has_tier_prices(keys):
        return
    if "lowestPrice" not in keys:
        raise SchemaDriftError(
            f"{layout}: no price fields (securePrice+communityPrice or lowestPrice): {sorted(keys)}"
        )
    if not all(flag in keys for flag in FLAG_FIELDS.values()):
        raise SchemaDriftError(f"{layout}: lowestPrice items need secureCloud and communityCloud")


def item_header(item: dict[str, Any]) -> tuple[str, int | float]:
    """The item's gpu type id and ``memoryInGb``; ``RowExcluded`` (malformed_item) when either
    is not of its type."""
    gpu_id = item["id"]
    if not isinstance(gpu_id, str) or not gpu_id:
        raise RowExcluded(MALFORMED_ITEM)
    memory = item["memoryInGb"]
    if not is_number(memory) or memory < 0:
        raise RowExcluded(MALFORMED_ITEM)
    return gpu_id, memory


def item_offers(
    row: Item,
    candidates: list[Candidate],
    excluded: Counter[str],
    *,
    vcpus: Decimal | None = None,
    ram_gb: Decimal | None = None,
    stock: dict[str, bool] | None = None,
) -> list[Offer]:
    """The offers of one item's priced ``candidates``; ``stock``: place -> whether RunPod reports
    stock there (absent: unknown).

    Nothing for an item whose prices are all null or 0 (not offered anywhere, e.g. the
    "unknown" placeholder type); ``RowExcluded`` for a priced item of an unknown gpu type id or
    a MIG slice that does not add up; one price that is not a number is left out alone
    (``unparsed_price``), the item's others kept.
    """
    gpu_id, memory = item_header(row.item)
    if not any(raw is not None and raw != 0 for *_, raw, _ in candidates):
        return []
    vram = decimal(memory) if memory > 0 else None
    mig = mig_slice(gpu_id, vram)
    if mig is None and gpu_id not in KNOWN_GPU_TYPE_IDS:
        raise RowExcluded(unknown_row("gpu", gpu_id))
    location = row.location
    places = stock or {}

    def read_price(candidate: Candidate) -> Offer | None:
        field_name, place, pricing, term, raw, offered_flag = candidate
        price = price_or_none(raw, f"{row.layout}: {gpu_id} {field_name}")
        if price is None:
            return None
        # a per-tier price is RunPod-wide (region global); a location's is that data centre's
        # or country's, in the tier the location was asked for
        tier, region = (place, GLOBAL_REGION) if location is None else (location[0], place)
        country = region if location is not None and location[0] == COMMUNITY else None
        common: dict[str, Any] = {
            "name": gpu_id,
            "tier": tier,
            "region": region,
            "country": country,
            "pricing": pricing,
            "term": term,
            "price": price,
            "source_url": row.source_url,
            "observed_at": row.observed_at,
            "vcpus": vcpus,
            "ram_gb": ram_gb,
            "offered": offered_flag,
            "available": places.get(place),
        }
        if mig is None:
            return offer(vram=vram, **common)
        full_gpu, share, full_vram = mig
        return offer(
            vram=full_vram,
            gpu_name=full_gpu,
            gpu_count=share,
            price_per=PricePer.INSTANCE,  # the price of the slice, not of a whole GPU
            **common,
        )

    return offers_from_rows(candidates, read_price, excluded)
