"""FluidStack: GPU prices from the public pricing page (https://www.fluidstack.io/pricing).

Known layouts (both: one row per GPU model, prices per GPU-hour):

- **Grid** (seen 2023-09): ``div`` grid headed "GPU Model, VRAM (GB), Max vCPUs per GPU
  ($0.01/hr), Max RAM (GB) per GPU ($0.005/hr), GPU On-Demand Cost (/hr), GPU 6 Month Cost
  (/hr)". vCPUs and RAM are priced separately in the heading, so they are not part of the GPU
  price and are not attached to the offer.
- **Table** (seen 2025-01): ``<table>`` under "On demand GPU pricing" headed "Model, VRAM (GB),
  Max vCPUs per GPU, Max RAM (GB) per GPU, On-Demand Price (/hr), 1 Year price (/hr)". No
  separate CPU/RAM price is shown, so the per-GPU vCPU and RAM allowances are attached.

Rows name GPU models without an instance size, so offers carry ``gpu_count`` 1 and
``price_per`` gpu. Price columns: "on-demand" -> ``on_demand``; "<n> Month" / "<n> Year" ->
``reserved`` with ``reserved_term_months`` n or 12n.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "n/a")
  is counted under that marker; any other non-price text raises ``SchemaDriftError``.
- ``truncated_row``: a row with its GPU name but no value cells that is the very end of the
  document (the cut edge of an excerpt). Any other short row raises ``SchemaDriftError``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
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

PRICING_URL = "https://www.fluidstack.io/pricing"
HOMEPAGE = "https://www.fluidstack.io"
TOKEN_ENV = None

GRID_HEADER_CELL = ".pricing__top-headline"
GRID_ROW = ".pricing-row"
GRID_ROW_NAME = ".pricing__headline"
GRID_ROW_CELL = ".pricing__text"
TABLE_SELECTOR = "table"
NAME_HEADINGS = ("GPU Model", "Model")
HOURLY = "(/hr)"  # every price heading states the unit

_RESERVED = re.compile(r"\b(?P<n>\d+)\s+(?P<unit>month|year)\b", re.IGNORECASE)
_INTEGER = re.compile(r"^\d+$")


@dataclass(frozen=True, slots=True)
class _Column:
    kind: str  # "vram", "vcpus", "ram" or "price"
    attach: bool = True  # spec columns: is the allowance part of the GPU price?
    pricing: PricingModel | None = None
    term_months: int | None = None


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from the pricing page: USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when neither layout is found, a column heading is unknown, a
    row or price cell cannot be read, or a page yields no offers.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many cells/rows each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        tree = html_body(response)
        grid_header = [node_text(cell) for cell in tree.css(GRID_HEADER_CELL)]
        if grid_header:
            found = _parse_grid(response, tree, grid_header, excluded)
        else:
            found = _parse_table(response, tree, excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU prices found on the pricing page")
        offers.extend(found)
    return offers, excluded


def _columns(response: RawResponse, header: list[str]) -> list[_Column]:
    if not header or header[0] not in NAME_HEADINGS:
        raise SchemaDriftError(
            f"{response.url}: pricing heading {header[:1]} is not one of {NAME_HEADINGS}"
        )
    columns = []
    for heading in header[1:]:
        lower = heading.lower()
        if lower == "vram (gb)":
            columns.append(_Column("vram"))
        elif lower.startswith(("max vcpus per gpu", "max ram (gb) per gpu")):
            # A "$" in the heading means the allowance is billed on top of the GPU price.
            kind = "vcpus" if "vcpus" in lower else "ram"
            columns.append(_Column(kind, attach="$" not in heading))
        elif HOURLY in heading:
            reserved = _RESERVED.search(heading)
            if "on-demand" in lower:
                columns.append(_Column("price", pricing=PricingModel.ON_DEMAND))
            elif reserved:
                months = int(reserved["n"]) * (12 if reserved["unit"].lower() == "year" else 1)
                columns.append(_Column("price", pricing=PricingModel.RESERVED, term_months=months))
            else:
                raise SchemaDriftError(f"{response.url}: unknown price column {heading!r}")
        else:
            raise SchemaDriftError(f"{response.url}: unknown column {heading!r}")
    if not any(c.kind == "price" for c in columns) or [c.kind for c in columns][:1] != ["vram"]:
        raise SchemaDriftError(f"{response.url}: columns {header!r} lack VRAM or a price")
    return columns


def _parse_grid(
    response: RawResponse, tree: LexborHTMLParser, header: list[str], excluded: Counter[str]
) -> list[Offer]:
    columns = _columns(response, header)
    offers = []
    for row in tree.css(GRID_ROW):
        name_node = row.css_first(GRID_ROW_NAME)
        if name_node is None or not node_text(name_node):
            raise SchemaDriftError(f"{response.url}: pricing row without a GPU name")
        cells = [node_text(cell) for cell in row.css(GRID_ROW_CELL)]
        if not cells and is_document_tail(row):
            excluded["truncated_row"] += 1
            continue
        offers.extend(_row_offers(response, node_text(name_node), columns, cells, excluded))
    return offers


def _parse_table(
    response: RawResponse, tree: LexborHTMLParser, excluded: Counter[str]
) -> list[Offer]:
    table = None
    for candidate in tree.css(TABLE_SELECTOR):
        first = candidate.css_first("thead th")
        if first is not None and node_text(first) in NAME_HEADINGS:
            table = candidate
            break
    if table is None:
        raise SchemaDriftError(
            f"{response.url}: unknown FluidStack pricing layout: no '{GRID_HEADER_CELL}' grid "
            f"and no table headed {NAME_HEADINGS}"
        )
    columns = _columns(response, [node_text(th) for th in table.css("thead th")])
    offers = []
    for row in table.css("tbody tr"):
        name_node = row.css_first("th")
        if name_node is None or not node_text(name_node):
            raise SchemaDriftError(f"{response.url}: pricing table row without a GPU name")
        cells = [node_text(cell) for cell in row.css("td")]
        if not cells and is_document_tail(row):
            excluded["truncated_row"] += 1
            continue
        offers.extend(_row_offers(response, node_text(name_node), columns, cells, excluded))
    return offers


def _row_offers(
    response: RawResponse,
    name: str,
    columns: list[_Column],
    cells: list[str],
    excluded: Counter[str],
) -> list[Offer]:
    if len(cells) != len(columns):
        raise SchemaDriftError(
            f"{response.url}: row {name!r} has {len(cells)} cells, expected {len(columns)}"
        )
    specs: dict[str, Decimal | None] = {"vram": None, "vcpus": None, "ram": None}
    prices = []
    for column, text in zip(columns, cells, strict=True):
        if column.kind != "price":
            if not _INTEGER.match(text):
                raise SchemaDriftError(f"{response.url}: {name!r} {column.kind} {text!r}")
            if column.attach:
                specs[column.kind] = decimal(text)
            continue
        marker = no_price_marker(text)
        if marker is not None:
            excluded[marker] += 1
            continue
        prices.append((column, *money_at(text, f"{response.url}: row {name!r} price")))
    return [
        Offer(
            provider="fluidstack",
            instance_type=name,
            gpu_name=name,
            gpu_count=Decimal(1),
            vram_gb_reported=specs["vram"],
            vcpus=specs["vcpus"],
            ram_gb=specs["ram"],
            pricing=column.pricing,
            reserved_term_months=column.term_months,
            price=price,
            currency=currency,
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.GPU,
            source_url=response.url,
            observed_at=response.fetched_at,
        )
        for column, price, currency in prices
    ]


PROVIDER = Provider(
    slug="fluidstack",
    name="FluidStack",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; grid (2023) and table (2025) layouts",
)
