"""FluidStack: GPU prices from the public pricing page (https://www.fluidstack.io/pricing).

Known layouts (one row per GPU model, prices per GPU-hour):

- **Grid** (seen 2023-09): ``div`` grid headed "GPU Model, VRAM (GB), Max vCPUs per GPU
  ($0.01/hr), Max RAM (GB) per GPU ($0.005/hr), GPU On-Demand Cost (/hr), GPU 6 Month Cost
  (/hr)". vCPUs and RAM are priced separately in the heading, so they are not part of the GPU
  price and are not attached to the offer.
- **Table** (seen 2025-01): ``<table>`` under "On demand GPU pricing" headed "Model, VRAM (GB),
  Max vCPUs per GPU, Max RAM (GB) per GPU, On-Demand Price (/hr), 1 Year price (/hr)". No
  separate CPU/RAM price is shown, so the per-GPU vCPU and RAM allowances are attached.
- **Cluster-price cards** (mid-2025 on). No capture of this layout exists (the recorded ones
  are 2023-09 and 2025-01), so it is read only as far as public evidence describes it:

  - henryzhangpku/gpu-price-index, ``src/gpuidx/backfill/parsers/fluidstack.py`` @ af236fcc41
    (the parser of that repository's Wayback archive of this URL, captures up to 2025-10-17):
    "From mid-2025 the page lists cluster prices (``H100 SXM | $2.10 | / GPU / H``) under no
    commitment heading".
  - kaito-yanai/gpu-price-harvester, ``providers/fluidstack_handler.py`` @ aa26d86c67 (a
    scraper of the rendered page): a Framer page whose cards carry the GPU name in an ``<h3>``
    and the price in the ``<p>`` of a ``div[data-framer-name]`` layer (Framer names a layer
    after its text: "$2.10", "/ GPU / H"), or "On Request".

  A card is the smallest element around one ``<h3>`` holding such a price layer (Framer's
  hashed class names are not relied on). Its price is per GPU-hour only when the card says
  "/ GPU / H". **Cluster prices are read but not published**: the page states no commitment
  term for them (the first source above therefore does not attribute them either), so calling
  $2.10 on-demand or reserved would be a guess. Each is counted as ``cluster_price_no_term``; a
  page of cards alone therefore yields no offer and fails as ``SchemaDriftError`` naming the
  prices it read. Nothing else about the layout (other columns, regions, counts) is known.

Rows name GPU models without an instance size, so offers carry ``gpu_count`` 1 and
``price_per`` gpu. Price columns: "on-demand" -> ``on_demand``; "<n> Month" / "<n> Year" ->
``reserved`` with ``reserved_term_months`` n or 12n.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One row the parser
cannot read never fails the provider; the rest of the page is still published:

- ``unknown_gpu <name>``: a row (or card) whose GPU name names none of ``KNOWN_GPU_MODELS``
  (the models seen on the captures and in the evidence above, whole words,
  case-insensitively). The row is left out and its name reported, so it can be added.
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "n/a";
  "On Request" on a card) is counted under that marker; the row's other prices still are.
- ``unparsed_price``: any other price cell without a readable amount ("TBD", "-"). An amount
  that reads as zero or negative ("$0.00", "$-2.45", "-$2.45") is not unreadable: it is emitted
  as printed, so the loader rejects the whole scrape (``prices_positive``).
- ``truncated_row``: a row with its GPU name but no value cells that is the very end of the
  document (the cut edge of an excerpt).
- ``unnamed_row``: a row without a GPU name.
- ``unparsed_row``: a row whose cells do not match the columns, or whose VRAM / vCPU / RAM
  cell is not a whole number; none of its prices are published.
- ``unknown_unit <name>``: a priced card that does not say "/ GPU / H".
- ``cluster_price_no_term``: a priced cluster card (see above).

``SchemaDriftError`` is kept for the page's structure: no grid, table or cluster card at all,
a first heading other than "GPU Model" / "Model", an unknown column or price column, columns
without VRAM or a price, and a page that yields no offer (the message lists the exclusions).

Live fetch: ``GET https://www.fluidstack.io/pricing``, no key. The page is reported to answer
404 since 2026-08 (FluidStack withdrew its public price list); ``http.get`` then raises
``FetchError("GET https://www.fluidstack.io/pricing: HTTP 404")``, one line, no traceback and no
retry (404 is not a retryable status); the pipeline records the scrape as "fetch failed: ..."
and keeps serving the last good data.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
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
# Cluster-price cards (mid-2025 on, from the evidence in the module docstring).
CARD_NAME = "h3"
CARD_PRICE_LAYER = "div[data-framer-name]"
CARD_UNIT = "/ GPU / H"  # per GPU-hour
ON_REQUEST = "on request"  # a card's no-price text
# The GPU models the rows name (every capture, and the cluster card quoted in the docstring).
# A row naming none of them is reported as ``unknown_gpu``; adding one publishes a new GPU.
KNOWN_GPU_MODELS = ("H100", "H200", "A100", "A6000", "L40")

_RESERVED = re.compile(r"\b(?P<n>\d+)\s+(?P<unit>month|year)\b", re.IGNORECASE)
_INTEGER = re.compile(r"^\d+$")
_CARD_PRICE = re.compile(r"^[-\u2212]?\$\s?[-\u2212]?\d[\d,]*(?:\.\d+)?$")  # "$2.10", "$-2.10"
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.
_KNOWN_GPU = known_names_pattern(KNOWN_GPU_MODELS)

# Offer identity (``Offer.product_key``): FluidStack spells its vendor three ways, within one
# page and across pages (../shared/snapshots/fluidstack: 2023-09-30 "NVIDIA HGX H100", "NVIDIA
# H100 PCIe" beside "A100 80GB PCIe" with no vendor; 2025-01-09 "Nvidia H100 PCIe", "Nvidia
# A100 80GB PCIe"), and the case of its model names with it ("NVLINK"). So a row's key is its
# name without a leading vendor word, case-folded (``product_key``). On those two pages this
# joins, with the same VRAM, max vCPUs and max RAM per GPU: H100 PCIe (80 GB, 48, 256 GB),
# A100 80GB PCIe (80 GB, 48, 256 GB) and A100 40GB PCIe (40 GB, 32, 128 GB), on-demand (the
# 2023 grid prices vCPUs and RAM apart from the GPU, the 2025 table states no such price; the
# offer is the GPU-hour either way); every model one page lists keeps its own key
# (tests/scrapers/test_contract.py).
_VENDOR_PREFIX = re.compile(r"^nvidia\s+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Column:
    kind: str  # "vram", "vcpus", "ram" or "price"
    attach: bool = True  # spec columns: is the allowance part of the GPU price?
    pricing: PricingModel | None = None
    term_months: int | None = None


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination).

    Raises ``FetchError`` on any non-2xx answer after retries, e.g. the 404 the page is
    reported to give since 2026-08: "GET https://www.fluidstack.io/pricing: HTTP 404".
    """
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page: USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when no known layout is found, a column heading is unknown, or
    a page yields no offers; rows that cannot be read are left out and counted.

    Returns the offers, and how many cells/rows each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        tree = html_body(response)
        grid_header = [node_text(cell) for cell in tree.css(GRID_HEADER_CELL)]
        table = _find_table(tree)
        cards = _cluster_cards(tree)
        read: list[str] = []  # cluster prices read but not published
        if grid_header:
            found = _parse_grid(response, tree, grid_header, excluded)
        elif table is not None:
            found = _parse_table(response, table, excluded)
        elif cards:
            found = _parse_cards(cards, excluded, read)
        else:
            raise SchemaDriftError(
                f"{response.url}: unknown FluidStack pricing layout: no '{GRID_HEADER_CELL}' "
                f"grid, no table headed {NAME_HEADINGS} and no cluster-price card"
            )
        if not found:
            left_out = f"; excluded: {dict(excluded)}" if excluded else ""
            unpublished = (
                f"; cluster prices with no stated term, not published: {', '.join(read)}"
                if read
                else ""
            )
            raise SchemaDriftError(
                f"{response.url}: no GPU prices found on the pricing page{left_out}{unpublished}"
            )
        offers.extend(found)
    return offers, excluded


def _known_gpu(name: str) -> bool:
    """Whether the row's GPU name names one of ``KNOWN_GPU_MODELS`` (as a whole word)."""
    return _KNOWN_GPU.search(name) is not None


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
    read = partial(_grid_row, response, columns, excluded)
    return offers_from_rows(tree.css(GRID_ROW), read, excluded)


def _grid_row(
    response: RawResponse, columns: list[_Column], excluded: Counter[str], row: LexborNode
) -> list[Offer]:
    name_node = row.css_first(GRID_ROW_NAME)
    cells = [node_text(cell) for cell in row.css(GRID_ROW_CELL)]
    name = node_text(name_node) if name_node is not None else ""
    return _row_offers(response, row, name, columns, cells, excluded)


def _find_table(tree: LexborHTMLParser) -> LexborNode | None:
    """The first ``<table>`` whose first heading is a GPU-name heading, if any."""
    for candidate in tree.css(TABLE_SELECTOR):
        first = candidate.css_first("thead th")
        if first is not None and node_text(first) in NAME_HEADINGS:
            return candidate
    return None


def _parse_table(response: RawResponse, table: LexborNode, excluded: Counter[str]) -> list[Offer]:
    columns = _columns(response, [node_text(th) for th in table.css("thead th")])
    read = partial(_table_row, response, columns, excluded)
    return offers_from_rows(table.css("tbody tr"), read, excluded)


def _table_row(
    response: RawResponse, columns: list[_Column], excluded: Counter[str], row: LexborNode
) -> list[Offer]:
    name_node = row.css_first("th")
    cells = [node_text(cell) for cell in row.css("td")]
    name = node_text(name_node) if name_node is not None else ""
    return _row_offers(response, row, name, columns, cells, excluded)


def _row_offers(
    response: RawResponse,
    row: LexborNode,
    name: str,
    columns: list[_Column],
    cells: list[str],
    excluded: Counter[str],
) -> list[Offer]:
    """The offers of one grid/table row; ``RowExcluded`` for a row it cannot read (a price
    it cannot read is counted here, the row's other prices kept)."""
    if not name:
        raise RowExcluded("unnamed_row")
    if not cells and is_document_tail(row):
        raise RowExcluded("truncated_row")
    if not _known_gpu(name):
        raise RowExcluded(unknown_row("gpu", name))
    specs_ok = all(
        _INTEGER.match(text)
        for column, text in zip(columns, cells, strict=False)
        if column.kind != "price"
    )
    if len(cells) != len(columns) or not specs_ok:
        raise RowExcluded("unparsed_row")
    specs: dict[str, Decimal | None] = {"vram": None, "vcpus": None, "ram": None}
    prices = []
    for column, text in zip(columns, cells, strict=True):
        if column.kind != "price":
            if column.attach:
                specs[column.kind] = decimal(text)
            continue
        marker = no_price_marker(text)
        if marker is not None:
            excluded[marker] += 1
            continue
        try:
            prices.append((column, *money(text)))
        except SchemaDriftError:
            excluded["unparsed_price"] += 1
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


# --- cluster-price cards (mid-2025 on) -----------------------------------------------------------


def _price_text(layer: LexborNode) -> str | None:
    """The text of a Framer layer's ``<p>`` when it is a price ("$2.10") or "On Request"."""
    paragraph = layer.css_first("p")
    text = node_text(paragraph) if paragraph is not None else ""
    return text if _CARD_PRICE.match(text) or text.lower() == ON_REQUEST else None


def _cluster_cards(tree: LexborHTMLParser) -> list[LexborNode]:
    """The smallest element around each ``<h3>`` that also holds a price layer (one per card)."""
    cards = []
    for heading in tree.css(CARD_NAME):
        node = heading.parent
        while node is not None and node.tag not in ("body", "html"):
            if len(node.css(CARD_NAME)) > 1:
                break  # grew past its card: no price of its own
            if any(_price_text(layer) is not None for layer in node.css(CARD_PRICE_LAYER)):
                cards.append(node)
                break
            node = node.parent
    return cards


def _parse_cards(cards: list[LexborNode], excluded: Counter[str], read: list[str]) -> list[Offer]:
    """Read every card (see the module docstring); none is an offer, each is counted."""
    return offers_from_rows(cards, partial(_read_card, read), excluded)


def _read_card(read: list[str], card: LexborNode) -> None:
    heading = card.css_first(CARD_NAME)
    name = node_text(heading) if heading is not None else ""
    prices = [t for t in map(_price_text, card.css(CARD_PRICE_LAYER)) if t is not None]
    if not name:
        raise RowExcluded("unnamed_row")
    if not _known_gpu(name):
        raise RowExcluded(unknown_row("gpu", name))
    if len(prices) != 1:
        raise RowExcluded("unparsed_row")
    if prices[0].lower() == ON_REQUEST:
        raise RowExcluded(ON_REQUEST)
    if CARD_UNIT.replace(" ", "") not in node_text(card).replace(" ", "").upper():
        raise RowExcluded(unknown_row("unit", name))
    read.append(f"{name} {prices[0]} {CARD_UNIT}")  # the card's own words
    raise RowExcluded("cluster_price_no_term")


def product_key(name: str) -> str:
    """The product key of a row's GPU name: ``"Nvidia A100 80GB PCIe"`` and ``"A100 80GB
    PCIe"`` are both ``"a100 80gb pcie"`` (see ``_VENDOR_PREFIX``)."""
    return _VENDOR_PREFIX.sub("", " ".join(name.split())).casefold()


PROVIDER = Provider(
    slug="fluidstack",
    name="Fluidstack",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_key_rule=product_key,
    notes="HTML pricing page; grid (2023) and table (2025-01) layouts; mid-2025 cluster cards "
    "are read but not published (no term stated); the page 404s since 2026-08",
)
