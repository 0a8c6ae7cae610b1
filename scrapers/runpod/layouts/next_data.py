"""``__NEXT_DATA__`` (the 2023-09 capture): www.runpod.io/gpu-instance/pricing with the
``gpuTypes`` embedded in its Next.js ``<script id="__NEXT_DATA__">`` (``props.pageProps.data``):
the per-cloud prices, spot, savings plans, and a ``lowestPrice`` whose ``stockStatus`` is the
Community stock. Its ``lowestPrice`` carries ``minVcpu``/``minMemory`` too, but names no
location (and was asked without a cloud filter), so its offers keep no vCPU/RAM."""

from __future__ import annotations

import json
from collections import Counter

from scrapers.base import Offer, RawResponse, SchemaDriftError
from scrapers.parsing import html_body
from scrapers.runpod.gpu_types import (
    Item,
    check_price_fields,
    checked_items,
    has_tier_prices,
    is_page,
)
from scrapers.runpod.layouts import graphql, lowest_price_items

LEGACY_PRICING_URL = "https://www.runpod.io/gpu-instance/pricing"
LAYOUT = "__NEXT_DATA__"
_SCRIPT = "script#__NEXT_DATA__"


def detect(response: RawResponse) -> bool:
    if not is_page(response):
        return False
    return html_body(response).css_first(_SCRIPT) is not None


def rows(response: RawResponse) -> list[Item]:
    script = html_body(response).css_first(_SCRIPT)
    if script is None:
        raise SchemaDriftError(f"{response.url}: no {_SCRIPT}")
    try:
        payload = json.loads(script.text())
        items = payload["props"]["pageProps"]["data"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise SchemaDriftError(f"__NEXT_DATA__ without props.pageProps.data ({exc})") from None
    checked = checked_items(items, LAYOUT)
    check_price_fields(checked, LAYOUT)
    return [Item(item, LAYOUT, LEGACY_PRICING_URL, response.fetched_at) for item in checked]


def read_row(row: Item, excluded: Counter[str]) -> list[Offer]:
    """As the live items are read (``layouts.graphql``); items with only ``lowestPrice`` as the
    2026-03 ones are (``layouts.lowest_price_items``)."""
    reader = graphql.read_row if has_tier_prices(row.item) else lowest_price_items.read_row
    return reader(row, excluded)
