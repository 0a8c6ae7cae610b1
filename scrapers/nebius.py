"""Nebius: GPU prices from the public pricing page https://nebius.com/prices.

Known layouts (tables are found by their column headings, not by their titles, because a
capture's excerpt can start after the title):

- **Configuration table** (2024, ``div.pc-table`` with ``pc-table__row``/``pc-table__cell``):
  columns GPU ("8 × H200 SXM"), vRAM GB, RAM GB and vCPUs for the whole instance, then "On
  demand" and "Reserve" prices per instance-hour. vRAM per GPU = instance vRAM / GPU count.
- **GPU instances table** (2026, ``pc-highlight-table-block``): columns Item, vCPUs, RAM GB,
  "Preemptible, GPU-hour" and "On-demand, GPU-hour": one row per GPU type, prices per GPU-hour
  (preemptible -> spot), with the vCPUs/RAM that come with one GPU.

Documented rules:

- **Reserve / commitment prices are not emitted.** The page prints a "Reserve" column and "as
  low as" commitment cards, but states only that commitments range "from 3 months to 3 years":
  no price is tied to a term, so there is no honest ``reserved_term_months``.
- A price cell that says "Contact us" (``parsing.NO_PRICE_MARKERS``) or holds only dashes
  ("––") has no public price: that row/pricing pair is not an offer (e.g. GB200 NVL72).
- "from $1.82" with a vCPU/RAM range ("16-192", "96-1152"): the price is that of the smallest
  configuration, so the lower bounds of the ranges are attached to it.

Prices are USD per hour (the page's cards and column titles say "/ hour", "GPU-hour").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx

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
    distinct_bodies,
    ensure_unique,
    first_number,
    html_body,
    money,
    no_price_marker,
    node_text,
)

PRICING_URL = "https://nebius.com/prices"
HOMEPAGE = "https://nebius.com"
TOKEN_ENV = None

# 2024 configuration table.
CONFIG_TABLE = "div.pc-table"
CONFIG_ROW = "div.pc-table__row"
CONFIG_CELL = "div.pc-table__cell"
# 2026 GPU instances table.
HIGHLIGHT_TABLE = "div.pc-highlight-table-block__table"
HIGHLIGHT_HEAD_ROW = "div.pc-highlight-table-block__head div.pc-highlight-table-block__row"
HIGHLIGHT_BODY_ROW = "div.pc-highlight-table-block__body div.pc-highlight-table-block__row"
HIGHLIGHT_CELL = "div.pc-highlight-table-block__cell"

_INSTANCE = re.compile(r"^(?P<count>\d+)\s*[×x]\s*(?P<gpu>\S.*)$")
_RANGE = re.compile(r"^\s*(?P<low>\d[\d,]*(?:\.\d+)?)\s*[-–]\s*\d[\d,]*(?:\.\d+)?\s*$")
_DASHES = re.compile(r"^[-–—\s]+$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: GET the pricing page. Raises ``FetchError`` when it fails."""
    return [http.get(client, PRICING_URL)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from either known table layout; USD per hour.

    Raises ``SchemaDriftError`` when no GPU table is found, a GPU table has an unknown column,
    a cell is neither a number, a price nor a no-price marker, or no offer results.
    """
    offers: list[Offer] = []
    for response in distinct_bodies(responses):
        tree = html_body(response)
        found = _config_tables(tree) + _highlight_tables(tree)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU price table (2024 or 2026 layout)")
        for headings, rows, reader in found:
            offers.extend(reader(headings, rows, response))
    if not offers:
        raise SchemaDriftError("no GPU offers found")
    return ensure_unique(offers)


def _config_tables(tree: Any) -> list[tuple[list[str], list[list[str]], Any]]:
    tables = []
    for table in tree.css(CONFIG_TABLE):
        rows = [[node_text(c) for c in row.css(CONFIG_CELL)] for row in table.css(CONFIG_ROW)]
        if rows and rows[0] and rows[0][0] == "GPU":
            tables.append((rows[0], rows[1:], _parse_config_rows))
    return tables


def _highlight_tables(tree: Any) -> list[tuple[list[str], list[list[str]], Any]]:
    tables = []
    for table in tree.css(HIGHLIGHT_TABLE):
        head = table.css_first(HIGHLIGHT_HEAD_ROW)
        if head is None:
            continue
        headings = [node_text(c) for c in head.css(HIGHLIGHT_CELL)]
        if not any("GPU-hour" in h for h in headings):
            continue  # CPU-only, storage and network tables share the layout
        rows = [
            [node_text(c) for c in r.css(HIGHLIGHT_CELL)] for r in table.css(HIGHLIGHT_BODY_ROW)
        ]
        tables.append((headings, rows, _parse_highlight_rows))
    return tables


def _columns(headings: list[str], known: dict[str, str]) -> dict[str, int]:
    """Heading -> role for every column; an unknown heading is drift."""
    columns: dict[str, int] = {}
    for index, heading in enumerate(headings):
        role = known.get(heading)
        if role is None:
            raise SchemaDriftError(f"unknown GPU table column {heading!r} in {headings!r}")
        columns[role] = index
    return columns


def _cells(row: list[str], headings: list[str]) -> list[str]:
    if len(row) != len(headings):
        raise SchemaDriftError(f"row {row!r} does not match columns {headings!r}")
    return row


def _price(text: str) -> tuple[Decimal, str] | None:
    """(price, currency), or None for a cell that says there is no public price."""
    if no_price_marker(text) or _DASHES.match(text):
        return None
    return money(text)


def _lower_bound(text: str) -> Decimal:
    match = _RANGE.match(text)
    return first_number(match["low"]) if match else first_number(text)


_CONFIG_COLUMNS = {
    "GPU": "gpu",
    "vRAM, GB": "vram",
    "RAM, GB": "ram",
    "vCPUS": "vcpus",
    "vCPUs": "vcpus",
    "On demand": "on_demand",
    "Reserve": "reserve",
}


def _parse_config_rows(
    headings: list[str], rows: list[list[str]], response: RawResponse
) -> list[Offer]:
    col = _columns(headings, _CONFIG_COLUMNS)
    for role in ("gpu", "vram", "ram", "vcpus", "on_demand"):
        if role not in col:
            raise SchemaDriftError(f"GPU table without a {role!r} column: {headings!r}")
    offers = []
    for row in rows:
        cells = _cells(row, headings)
        match = _INSTANCE.match(cells[col["gpu"]])
        if match is None:
            raise SchemaDriftError(f"expected 'N × GPU', found {cells[col['gpu']]!r}")
        priced = _price(cells[col["on_demand"]])
        if priced is None:
            continue
        count = Decimal(match["count"])
        offers.append(
            Offer(
                provider="nebius",
                instance_type=f"{match['count']}x {match['gpu']}",
                gpu_name=match["gpu"],
                gpu_count=count,
                vram_gb_per_gpu=first_number(cells[col["vram"]]) / count,
                vcpus=first_number(cells[col["vcpus"]]),
                ram_gb=first_number(cells[col["ram"]]),
                pricing=PricingModel.ON_DEMAND,
                price=priced[0],
                currency=priced[1],
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.INSTANCE,
                source_url=PRICING_URL,
                observed_at=response.fetched_at,
            )
        )
    return offers


_HIGHLIGHT_COLUMNS = {
    "Item": "gpu",
    "vCPUs": "vcpus",
    "RAM, GB": "ram",
    "Preemptible, GPU-hour": "spot",
    "On-demand, GPU-hour": "on_demand",
}
_HIGHLIGHT_PRICINGS = {"on_demand": PricingModel.ON_DEMAND, "spot": PricingModel.SPOT}


def _parse_highlight_rows(
    headings: list[str], rows: list[list[str]], response: RawResponse
) -> list[Offer]:
    col = _columns(headings, _HIGHLIGHT_COLUMNS)
    for role in ("gpu", "vcpus", "ram", "on_demand"):
        if role not in col:
            raise SchemaDriftError(f"GPU table without a {role!r} column: {headings!r}")
    offers = []
    for row in rows:
        cells = _cells(row, headings)
        gpu = cells[col["gpu"]]
        if not gpu:
            raise SchemaDriftError(f"GPU row without a name: {cells!r}")
        for role, pricing in _HIGHLIGHT_PRICINGS.items():
            priced = _price(cells[col[role]]) if role in col else None
            if priced is None:
                continue
            offers.append(
                Offer(
                    provider="nebius",
                    instance_type=gpu,
                    gpu_name=gpu,
                    gpu_count=Decimal(1),
                    vcpus=_lower_bound(cells[col["vcpus"]]),
                    ram_gb=_lower_bound(cells[col["ram"]]),
                    pricing=pricing,
                    price=priced[0],
                    currency=priced[1],
                    price_unit=PriceUnit.HOUR,
                    price_per=PricePer.GPU,
                    source_url=PRICING_URL,
                    observed_at=response.fetched_at,
                )
            )
    return offers


PROVIDER = Provider(
    slug="nebius",
    name="Nebius",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    token_env=TOKEN_ENV,
    kind="cloud",
)
