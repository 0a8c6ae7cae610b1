"""Crusoe Cloud: GPU prices from the public pricing page (https://www.crusoe.ai/cloud/pricing).

Known layouts:

- **Table** (seen 2025-05): a ``<table>`` headed "GPU Pricing" with one column per pricing
  model -- "On-Demand", "Current Spot", "6-month reserved", "1-year reserved", "3-year
  reserved" -- and one row per GPU (name, VRAM tag, form-factor tag). Cells read "$ 4.29 /hr".
- **List** (seen 2025-12, and on the whole page seen 2026): a "GPU model / On-demand / Current
  spot" heading over a CMS list, one item per GPU (heading, VRAM tag, form-factor tag) with cells
  such as "$3.90/GPU-hr". The 2026 page reuses the heading and item classes for its table of
  contents ("Pricing"), CPU, storage, Kubernetes, inference and self-serve deployment lists, so
  the parse is scoped to the one heading whose first cell is "GPU model" and to the items inside
  that heading's container (``div.pricing-gap``); the other lists are not read. No such heading
  (or two) is ``SchemaDriftError``. An item may leave its form-factor tag empty (Webflow's
  ``w-dyn-bind-empty``: L40S, MI300X in 2026); its label is then name and memory only.

Prices are per GPU-hour in both layouts: rows are GPU models without an instance size, and the
list layout prints the very same figures as the table (H100 $3.90, H200 $4.29) with an explicit
"/GPU-hr". Offers therefore carry ``gpu_count`` 1 and ``price_per`` gpu. Reserved columns map
to ``reserved`` with ``reserved_term_months`` 6, 12 or 36.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One row the parser
cannot read never fails the provider; the rest of the page is still published:

- ``unknown_gpu <name>``: a row whose GPU name (the row heading, e.g. "NVIDIA H200") names none
  of ``KNOWN_GPU_MODELS`` (the models seen on the captures, matched as whole words,
  case-insensitively). The whole row is left out and the name reported, so it can be added.
- ``unknown_unit <label>``: a row with an amount that does not end in its layout's unit ("/hr"
  in the table, "/GPU-hr" in the list), e.g. "$2800/GPU-month": the whole row is left out.
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "Contact
  sales") is counted under that marker; the row's other prices are still offers.
- ``unparsed_price``: a price cell with no readable amount ("-", "TBD"); the row's other
  prices are still offers. An amount that reads as zero or negative ("$0.00/GPU-hr",
  "$-4.29/GPU-hr", "-$4.29/GPU-hr") is not unreadable: it is emitted as printed, so the loader
  rejects the whole scrape (``prices_positive``) instead of publishing the rest.
- ``truncated_row``: a row with its GPU name but no price cells that is the very end of the
  document (the cut edge of an excerpt).
- ``unnamed_row``: a list item without a GPU name.
- ``unparsed_row``: any other row that cannot be read as the columns say (a missing or extra
  price cell, a GPU cell that is not name/VRAM/form factor, a VRAM tag that is not "<n>GB").

``SchemaDriftError`` is kept for the page's structure: neither layout found (or two "GPU model"
list headings), an unknown price column, a table without price columns, a list outside its
container or without items, and a page that yields no offer (the message lists the exclusions).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from functools import partial

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers import http
from scrapers.kit import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    decimal,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import is_document_tail, known_names_pattern

PRICING_URL = "https://www.crusoe.ai/cloud/pricing"
HOMEPAGE = "https://www.crusoe.ai"
TOKEN_ENV = None

TABLE_HEADING = "GPU Pricing"  # first header cell of the table layout
LIST_HEADING = "GPU model"  # first heading cell of the list layout
LIST_HEADER_ROW = ".pricing-table-heading"
LIST_SCOPE = "pricing-gap"  # class of the container holding one heading and its items
LIST_HEADER_CELL = ".pricing-heading"
LIST_ITEM = ".pricing_gpu-item"
LIST_ITEM_NAME = ".pricing-item-heading"
LIST_ITEM_TAG = ".pricing-tag"
LIST_ITEM_CELL = ".pricing-rich"
# What follows the amount in a price cell, per layout (anything else is drift).
TABLE_PRICE_SUFFIX = "/hr"
LIST_PRICE_SUFFIX = "/GPU-hr"
# The GPU models the page's rows name (every capture, priced or "Contact sales"). A row naming
# none of them is reported as ``unknown_gpu``; adding a model here is how a new GPU is published.
KNOWN_GPU_MODELS = (
    "GB200",
    "B200",
    "H200",
    "H100",
    "A100",
    "A40",
    "L40S",
    "MI300X",
    "MI355X",
)
# Offer identity (``Offer.product_key``): the 2025-05 table's spellings -> the GPU list's of
# 2025-12 and 2026-09 (the key: the current spelling), read off ../shared/snapshots/crusoe.
# Each page lists one product of that GPU and memory, no capture lists both spellings:
# - H100 80GB and H200 141GB: "SXM" became "HGX" (NVIDIA's 8-GPU baseboard of SXM modules) at
#   the same on-demand price, $3.90 and $4.29 per GPU-hour on all three pages;
# - L40S 48GB: the L40S is made only as a PCIe card; $1.00 (2025-05) -> $1.50 (2026-09);
# - MI300X 192GB: the MI300X is made only as an OAM module; $3.45 on both.
# "A100 80GB SXM" and "A100 80GB PCIe" keep their form factor on every page (two products).
PRODUCT_KEYS: dict[str, str] = {
    "NVIDIA H100 80GB SXM": "NVIDIA H100 80GB HGX",
    "NVIDIA H200 141GB SXM": "NVIDIA H200 141GB HGX",
    "NVIDIA L40S 48GB PCIe": "NVIDIA L40S 48GB",
    "AMD MI300X 192GB OAM": "AMD MI300X 192GB",
}

_FIXED_COLUMNS = {
    "on-demand": (PricingModel.ON_DEMAND, None),
    "current spot": (PricingModel.SPOT, None),
}
_RESERVED_COLUMN = re.compile(r"^(?P<n>\d+)-(?P<unit>month|year) reserved$")
_VRAM_TAG = re.compile(r"^(?P<gb>\d+)\s*GB$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.
_KNOWN_GPU = known_names_pattern(KNOWN_GPU_MODELS)

Column = tuple[PricingModel, int | None]


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page: USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when neither layout is found, a column heading is unknown, or a
    page yields no offers; rows and cells that cannot be read are left out and counted and counted.

    Returns the offers, and how many cells/rows each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        tree = html_body(response)
        table = _find_table(tree)
        header = _find_list_header(response, tree)
        if table is not None:
            found = _parse_table(response, table, excluded)
        elif header is not None:
            found = _parse_list(response, header, excluded)
        else:
            raise SchemaDriftError(
                f"{response.url}: unknown Crusoe pricing layout: no '{TABLE_HEADING}' table "
                f"and no '{LIST_HEADER_ROW}' list heading starting with {LIST_HEADING!r}"
            )
        if not found:
            left_out = f"; excluded: {dict(excluded)}" if excluded else ""
            raise SchemaDriftError(
                f"{response.url}: no GPU prices found on the pricing page{left_out}"
            )
        offers.extend(found)
    return offers, excluded


def _known_gpu(name: str) -> bool:
    """Whether the row's GPU name names one of ``KNOWN_GPU_MODELS`` (as a whole word)."""
    return _KNOWN_GPU.search(name) is not None


def _find_table(tree: LexborHTMLParser) -> LexborNode | None:
    for table in tree.css("table"):
        first = table.css_first("thead th")
        if first is not None and node_text(first) == TABLE_HEADING:
            return table
    return None


def _list_headings(header: LexborNode) -> list[str]:
    return [node_text(cell) for cell in header.css(LIST_HEADER_CELL)]


def _find_list_header(response: RawResponse, tree: LexborHTMLParser) -> LexborNode | None:
    """The one list heading whose first cell is "GPU model" (None if there is none)."""
    found = [
        header
        for header in tree.css(LIST_HEADER_ROW)
        if _list_headings(header)[:1] == [LIST_HEADING]
    ]
    if len(found) > 1:
        raise SchemaDriftError(
            f"{response.url}: {len(found)} list headings start with {LIST_HEADING!r}, expected one"
        )
    return found[0] if found else None


def _column(response: RawResponse, heading: str) -> Column:
    key = heading.strip().lower()
    if key in _FIXED_COLUMNS:
        return _FIXED_COLUMNS[key]
    reserved = _RESERVED_COLUMN.match(key)
    if reserved:
        months = int(reserved["n"]) * (12 if reserved["unit"] == "year" else 1)
        return PricingModel.RESERVED, months
    raise SchemaDriftError(f"{response.url}: unknown price column {heading!r}")


def _parse_table(response: RawResponse, table: LexborNode, excluded: Counter[str]) -> list[Offer]:
    columns = [_column(response, node_text(th)) for th in table.css("thead th")[1:]]
    if not columns:
        raise SchemaDriftError(f"{response.url}: '{TABLE_HEADING}' table has no price columns")
    read = partial(_read_table_row, response=response, columns=columns, excluded=excluded)
    return offers_from_rows(table.css("tbody tr"), read, excluded)


def _read_table_row(
    row: LexborNode, response: RawResponse, columns: list[Column], excluded: Counter[str]
) -> list[Offer]:
    cells = row.css("td")
    if not cells:
        raise RowExcluded("unparsed_row")
    # The GPU cell holds three leaf texts: name, VRAM tag ("141GB"), form factor ("SXM").
    leaves = [
        node_text(node)
        for node in cells[0].css("*")
        if not any(child.is_element_node for child in node.iter())
    ]
    if len(cells) == 1 and leaves and is_document_tail(row):
        raise RowExcluded("truncated_row")
    if leaves and leaves[0] and not _known_gpu(leaves[0]):
        raise RowExcluded(unknown_row("gpu", leaves[0]))
    if len(leaves) != 3 or len(cells) != len(columns) + 1:
        raise RowExcluded("unparsed_row")
    name, vram, form = leaves
    prices = [node_text(cell) for cell in cells[1:]]
    return list(
        _offers(
            response,
            name,
            vram,
            form,
            zip(columns, prices, strict=True),
            TABLE_PRICE_SUFFIX,
            excluded,
        )
    )


def _parse_list(response: RawResponse, header: LexborNode, excluded: Counter[str]) -> list[Offer]:
    headings = _list_headings(header)
    columns = [_column(response, heading) for heading in headings[1:]]
    scope = header.parent
    if scope is None or LIST_SCOPE not in (scope.attributes.get("class") or "").split():
        raise SchemaDriftError(
            f"{response.url}: {LIST_HEADING!r} heading is not inside a '.{LIST_SCOPE}' container"
        )
    items = scope.css(LIST_ITEM)
    if not items:
        raise SchemaDriftError(f"{response.url}: {LIST_HEADING!r} list has no '{LIST_ITEM}' items")
    read = partial(_read_list_item, response=response, columns=columns, excluded=excluded)
    return offers_from_rows(items, read, excluded)


def _read_list_item(
    item: LexborNode, response: RawResponse, columns: list[Column], excluded: Counter[str]
) -> list[Offer]:
    name_node = item.css_first(LIST_ITEM_NAME)
    if name_node is None or not node_text(name_node):
        raise RowExcluded("unnamed_row")
    name = node_text(name_node)
    cells = [node_text(cell) for cell in item.css(LIST_ITEM_CELL)]
    if not cells and is_document_tail(item):
        raise RowExcluded("truncated_row")
    if not _known_gpu(name):
        raise RowExcluded(unknown_row("gpu", name))
    tags = [node_text(tag) for tag in item.css(LIST_ITEM_TAG)]
    if len(tags) != 2 or len(cells) != len(columns):  # VRAM and form tags, one cell a column
        raise RowExcluded("unparsed_row")
    return list(
        _offers(
            response,
            name,
            tags[0],
            tags[1],
            zip(columns, cells, strict=True),
            LIST_PRICE_SUFFIX,
            excluded,
        )
    )


def _offers(
    response: RawResponse,
    name: str,
    vram: str,
    form: str,
    priced: Iterable[tuple[Column, str]],
    suffix: str,
    excluded: Counter[str],
) -> list[Offer]:
    """The row's offers, or none (counted) for a VRAM tag or a price unit it cannot read."""
    vram_match = _VRAM_TAG.match(vram)
    if vram_match is None:
        excluded["unparsed_row"] += 1
        return []
    # The page's own words for the GPU: name, memory and form factor (A100 comes in three).
    label = " ".join(part for part in (name, f"{vram_match['gb']}GB", form) if part)
    cells = [(column, text, no_price_marker(text)) for column, text in priced]
    if any(
        marker is None and _DIGIT.search(text) and not text.replace(" ", "").endswith(suffix)
        for _, text, marker in cells
    ):
        excluded[unknown_row("unit", label)] += 1
        return []
    offers = []
    for (pricing, term), text, marker in cells:
        if marker is not None:
            excluded[marker] += 1
            continue
        try:
            price, currency = money(text)
        except SchemaDriftError:
            excluded["unparsed_price"] += 1
            continue
        offers.append(
            Offer(
                provider="crusoe",
                instance_type=label,
                gpu_name=label,
                gpu_count=Decimal(1),
                vram_gb_reported=decimal(vram_match["gb"]),
                pricing=pricing,
                reserved_term_months=term,
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
    slug="crusoe",
    name="Crusoe",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
    notes="HTML pricing page; table (2025-05) and GPU list (2025-12, 2026) layouts",
)
