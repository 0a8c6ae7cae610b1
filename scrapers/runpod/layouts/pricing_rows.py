"""``pricing rows`` (the 2025-09 capture): www.runpod.io/pricing rows of (name element,
``.gpu-pricing-row__tags`` with VRAM/RAM/vCPU tags, price wrapper) as siblings, the price
element carrying ``data-secure-cloud-price`` and ``data-community-cloud-price``.

The attributes hold hourly rates (H100 NVL 2.79/2.59 = the API's securePrice/communityPrice
three months before); the "/s" beside them is a per-second view computed in the browser.
Exclusions: ``unknown_gpu <name>`` (a display name not in ``KNOWN_PAGE_NAMES``),
``unknown_spec <label>`` (a tag other than VRAM/RAM/vCPUs, or whose value is no number),
``missing_spec`` (a row lacking one of the three), ``missing_price`` (a price attribute
missing: that price only). Drift: spec rows and prices that do not pair up, a row without its
name or price wrapper.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from selectolax.lexbor import LexborNode

from scrapers.base import Offer, PricingModel, RawResponse, SchemaDriftError, unknown_row
from scrapers.parsing import RowExcluded, decimal, html_body, offers_from_rows, require
from scrapers.runpod.common import (
    COMMUNITY,
    DISPLAY_NAME_IDS,
    KNOWN_PAGE_NAMES,
    MISSING_PRICE,
    PRICING_URL,
    SECURE,
    offer,
    price_or_none,
)
from scrapers.runpod.gpu_types import is_page

_PRICE_ATTRIBUTE = "data-secure-cloud-price"
_ROW_TAGS = {"GB VRAM": "vram", "GB RAM": "ram", "vCPUs": "vcpus"}
_COLUMNS = ((SECURE, "data-secure-cloud-price"), (COMMUNITY, "data-community-cloud-price"))


@dataclass(frozen=True, slots=True)
class Row:
    tags: LexborNode  # the row's ``.gpu-pricing-row__tags``; name and prices are its siblings
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    if not is_page(response):
        return False
    return html_body(response).css_first(f"[{_PRICE_ATTRIBUTE}]") is not None


def rows(response: RawResponse) -> list[Row]:
    tree = html_body(response)
    tags = tree.css(".gpu-pricing-row__tags")
    prices = tree.css(f"[{_PRICE_ATTRIBUTE}]")
    if len(tags) != len(prices):
        raise SchemaDriftError(f"pricing page: {len(tags)} spec rows but {len(prices)} prices")
    return [Row(node, response.fetched_at) for node in tags]


def read_row(row: Row, excluded: Counter[str]) -> list[Offer]:
    tags = row.tags
    name_node = require(_sibling(tags, before=True), "GPU name before a spec row")
    name = require(name_node.text(strip=True), "GPU name")
    wrapper = require(_sibling(tags, before=False), f"{name} price wrapper")
    if "gpu-pricing-row__price-wrapper" not in (wrapper.attributes.get("class") or ""):
        raise SchemaDriftError(f"{name}: no price wrapper after the spec tags")
    price_node = require(wrapper.css_first(f"[{_PRICE_ATTRIBUTE}]"), f"{name} prices")
    if name not in KNOWN_PAGE_NAMES:
        raise RowExcluded(unknown_row("gpu", name))
    specs: dict[str, Decimal] = {}
    unknown_tags = []
    for tag in tags.css(".gpu-pricing-row__tag"):
        value, label = (child.text(strip=True) for child in _children(tag))
        if label not in _ROW_TAGS:
            unknown_tags.append(label)
            continue
        try:
            specs[_ROW_TAGS[label]] = decimal(value)
        except SchemaDriftError:
            unknown_tags.append(f"{label} {value}")
    if unknown_tags:
        raise RowExcluded(unknown_row("spec", unknown_tags[0]))
    if set(specs) != set(_ROW_TAGS.values()):
        raise RowExcluded("missing_spec")

    def read_price(column: tuple[str, str]) -> Offer | None:
        tier, attribute = column
        raw = price_node.attributes.get(attribute)
        if raw is None:
            raise RowExcluded(MISSING_PRICE)
        price = price_or_none(raw, f"{name} {attribute}")
        if price is None:
            return None
        return offer(
            name=name,
            tier=tier,
            pricing=PricingModel.ON_DEMAND,
            term=None,
            price=price,
            vram=specs["vram"],
            vcpus=specs["vcpus"],
            ram_gb=specs["ram"],
            source_url=PRICING_URL,
            observed_at=row.observed_at,
            gpu_name=DISPLAY_NAME_IDS.get(name),
        )

    # one price that cannot be read leaves out that price; the row's other is kept
    return offers_from_rows(_COLUMNS, read_price, excluded)


def _sibling(node: LexborNode, *, before: bool) -> LexborNode | None:
    """The nearest element sibling (text and comment nodes skipped)."""
    current = node.prev if before else node.next
    while current is not None and not _is_element(current):
        current = current.prev if before else current.next
    return current


def _children(node: LexborNode) -> list[LexborNode]:
    return [child for child in node.iter() if _is_element(child)]


def _is_element(node: LexborNode) -> bool:
    return not (node.tag or "-").startswith(("-", "_", "#"))
