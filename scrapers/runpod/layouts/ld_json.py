"""``ld+json`` (the 2026-08 capture): www.runpod.io/pricing schema.org ``Product`` entries
(``@id`` ``.../pricing/#gpu-...``) whose ``AggregateOffer`` lists "Community Cloud" and "Secure
Cloud" per-hour on-demand prices. Other Products (none in the 2026-08 capture) would be non-GPU
SKUs and are not read.

Exclusions: ``unknown_product <name>`` (a GPU product not named "<GPU> GPU on Runpod"),
``unknown_gpu <name>``, ``missing_price`` (a product without an offers list, or an entry
without a price), ``unknown_region <offer name>`` (not "Secure Cloud"/"Community Cloud"),
``unknown_unit <GPU> <offer name>`` (not a per-hour on-demand rate), ``unknown_currency
<code>``. Drift: ld+json that is not JSON or has no ``@graph``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from scrapers.base import Offer, PricingModel, RawResponse, SchemaDriftError, unknown_row
from scrapers.parsing import RowExcluded, html_body, offers_from_rows
from scrapers.runpod.common import (
    COMMUNITY,
    CURRENCY,
    DISPLAY_NAME_IDS,
    KNOWN_PAGE_NAMES,
    MISSING_PRICE,
    PRICING_URL,
    SECURE,
    offer,
    price_or_none,
)
from scrapers.runpod.gpu_types import is_page

_SCRIPTS = 'script[type="application/ld+json"]'
_OFFER_TIERS = {"Secure Cloud": SECURE, "Community Cloud": COMMUNITY}
_PRODUCT_SUFFIX = " GPU on Runpod"


@dataclass(frozen=True, slots=True)
class Row:
    product: dict[str, Any]  # one GPU ``Product`` node of the ``@graph``
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    if not is_page(response):
        return False
    return bool(html_body(response).css(_SCRIPTS))


def rows(response: RawResponse) -> list[Row]:
    found: list[Row] = []
    for script in html_body(response).css(_SCRIPTS):
        try:
            document = json.loads(script.text())
        except json.JSONDecodeError as exc:
            raise SchemaDriftError(f"ld+json is not JSON ({exc.msg})") from None
        graph = document.get("@graph") if isinstance(document, dict) else document
        if not isinstance(graph, list):
            raise SchemaDriftError("ld+json has no @graph list")
        found.extend(
            Row(node, response.fetched_at)
            for node in graph
            if isinstance(node, dict)
            and node.get("@type") == "Product"
            and "#gpu-" in str(node.get("@id", ""))
        )
    return found


def read_row(row: Row, excluded: Counter[str]) -> list[Offer]:
    """The product's Secure and Community on-demand offers; one entry that cannot be read is
    left out alone, the product's other kept."""
    title = str(row.product.get("name", ""))
    if not title.endswith(_PRODUCT_SUFFIX):
        raise RowExcluded(unknown_row("product", title))
    name = title.removesuffix(_PRODUCT_SUFFIX)
    if name not in KNOWN_PAGE_NAMES:
        raise RowExcluded(unknown_row("gpu", name))
    aggregate = row.product.get("offers")
    entries = aggregate.get("offers") if isinstance(aggregate, dict) else None
    if not isinstance(entries, list) or not entries:
        raise RowExcluded(MISSING_PRICE)

    def read_entry(entry: Any) -> Offer | None:
        entry_name = entry.get("name") if isinstance(entry, dict) else None
        tier = _OFFER_TIERS.get(entry_name) if isinstance(entry_name, str) else None
        if tier is None:
            raise RowExcluded(unknown_row("region", str(entry_name)))
        if "per-hour on-demand" not in str(entry.get("description", "")):
            raise RowExcluded(unknown_row("unit", f"{name} {entry_name}"))
        currency = entry.get("priceCurrency")
        if currency != CURRENCY:
            raise RowExcluded(unknown_row("currency", str(currency)))
        if entry.get("price") in (None, ""):
            raise RowExcluded(MISSING_PRICE)
        price = price_or_none(entry["price"], f"ld+json {name} price")
        if price is None:
            return None
        return offer(
            name=name,
            tier=tier,
            pricing=PricingModel.ON_DEMAND,
            term=None,
            price=price,
            vram=None,
            source_url=PRICING_URL,
            observed_at=row.observed_at,
            gpu_name=DISPLAY_NAME_IDS.get(name),
        )

    return offers_from_rows(entries, read_entry, excluded)
