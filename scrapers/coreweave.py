"""CoreWeave: GPU prices from the public pricing page (https://www.coreweave.com/pricing).

Known layouts:

- **GPU component table** (the 2023 ``/gpu-cloud-pricing`` page, now redirected to ``/pricing``):
  one row per GPU model with VRAM (GB), max vCPUs per GPU, max RAM (GB) per GPU and the
  "GPU Component Cost Per Hour". The price is for one GPU; vCPU and RAM were billed as separate
  components, so the per-GPU maxima are not attached to the offer (they are not in the price).
- **Instance table** (the current page: one row per instance with GPU count, VRAM, vCPUs, RAM,
  local storage and a price per instance-hour) is recognised but NOT parsed: there is no real
  capture of it to build and test a parser against, so it raises ``SchemaDriftError`` naming
  the layout instead of guessing.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- ``truncated_row``: a row that has its GPU name but no value cells and is the very end of the
  document (the cut edge of an excerpt). Any other incomplete row raises ``SchemaDriftError``.
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``: "Contact sales",
  "Coming soon", "n/a", ...) is counted under that marker. Any other non-price text raises.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal

import httpx
from selectolax.lexbor import LexborHTMLParser

from scrapers import http
from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
)
from scrapers.parsing import (
    decimal,
    html_body,
    is_document_tail,
    money_at,
    no_price_marker,
    node_text,
)

PRICING_URL = "https://www.coreweave.com/pricing"
HOMEPAGE = "https://www.coreweave.com"
TOKEN_ENV = None

# The component table's price column heading (the other column headings are cut from the only
# capture, so they are not relied on; the value cells are checked instead).
COMPONENT_PRICE_HEADING = "GPU Component Cost Per Hour"
COMPONENT_ROW = ".table-body-row"
COMPONENT_NAME = "a[data-product]"
COMPONENT_CELL = ".w-col-2"
COMPONENT_CELLS = 4  # VRAM (GB), max vCPUs per GPU, max RAM (GB) per GPU, price
# Markers of the current instance-table layout (row classes seen on the live page).
INSTANCE_TABLE_MARKERS = ("kubernetes-gpu-pricing", "table-row-v2")
_INTEGER = re.compile(r"^\d+$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from the pricing page: USD per GPU per hour, on-demand, region "global".

    Raises ``SchemaDriftError`` for an unknown layout, for the current instance-table layout
    (not supported yet), for a row that cannot be read, and when a page yields no offers.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many rows each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        found = _parse_page(response, excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU prices found on the pricing page")
        offers.extend(found)
    return offers, excluded


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = html_body(response)
    text = " ".join(tree.text(separator=" ").split()) if tree.body is not None else ""
    if COMPONENT_PRICE_HEADING in text:
        return _parse_component_table(response, tree, excluded)
    body = response.body.decode("utf-8", errors="replace")
    if any(marker in body for marker in INSTANCE_TABLE_MARKERS):
        raise SchemaDriftError(
            f"{response.url}: current CoreWeave instance-table layout (per-instance prices) is "
            "recognised but not supported: no real capture of it exists to build a parser against"
        )
    raise SchemaDriftError(
        f"{response.url}: unknown CoreWeave pricing layout: no '{COMPONENT_PRICE_HEADING}' "
        "table and no instance table"
    )


def _parse_component_table(
    response: RawResponse, tree: LexborHTMLParser, excluded: Counter[str]
) -> list[Offer]:
    rows = tree.css(COMPONENT_ROW)
    if not rows:
        raise SchemaDriftError(f"{response.url}: GPU component table has no '{COMPONENT_ROW}' rows")
    offers = []
    for row in rows:
        name_node = row.css_first(COMPONENT_NAME)
        if name_node is None or not node_text(name_node):
            raise SchemaDriftError(f"{response.url}: component table row without a GPU name")
        name = node_text(name_node)
        cells = [node_text(cell) for cell in row.css(COMPONENT_CELL)]
        if not cells and is_document_tail(row):
            excluded["truncated_row"] += 1
            continue
        if len(cells) != COMPONENT_CELLS:
            raise SchemaDriftError(
                f"{response.url}: row {name!r} has {len(cells)} value cells, "
                f"expected {COMPONENT_CELLS} (VRAM, vCPUs, RAM, price)"
            )
        vram, _max_vcpus, _max_ram, price_text = cells
        if not _INTEGER.match(vram):
            raise SchemaDriftError(f"{response.url}: row {name!r}: VRAM {vram!r} is not GB")
        marker = no_price_marker(price_text)
        if marker is not None:
            excluded[marker] += 1
            continue
        price, currency = money_at(price_text, f"{response.url}: row {name!r} price")
        offers.append(
            Offer(
                provider="coreweave",
                instance_type=name,
                gpu_name=name,
                gpu_count=Decimal(1),
                vram_gb_per_gpu=decimal(vram),
                pricing=PricingModel.ON_DEMAND,
                price=price,
                currency=currency,
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.GPU,
                source_url=response.url,
                observed_at=response.fetched_at,
            )
        )
    return offers


PROVIDER = Provider(
    slug="coreweave",
    name="CoreWeave",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; only the 2023 GPU component table layout is parsed",
)
