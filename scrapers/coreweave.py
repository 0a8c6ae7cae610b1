"""CoreWeave: GPU prices from the public pricing page (https://www.coreweave.com/pricing).

Known layouts:

- **GPU component table** (the 2023 ``/gpu-cloud-pricing`` page, now redirected to ``/pricing``):
  one row per GPU model with VRAM (GB), max vCPUs per GPU, max RAM (GB) per GPU and the
  "GPU Component Cost Per Hour". The price is for one GPU; vCPU and RAM were billed as separate
  components, so the per-GPU maxima are not attached to the offer (they are not in the price).
  Region "global" (the page names none).
- **Instance tables** (the current page, seen 2026): one ``div.table-v2`` per region, found by
  its first column heading "GPU Model" and titled by the ``<h5>`` before it ("REGION: NORTH
  AMERICA", "REGION: EUROPE"; region code = that name lowercased and hyphenated:
  ``north-america``, ``europe``). Columns: GPU Model, GPU Count, VRAM (GB) (per GPU), vCPUs,
  System RAM (GB), Local Storage (TB) (decimal TB, stored as ``storage_gb``), "On-Demand Price
  (Per Hour)", "Spot Price (Per Hour)" and, in North America only, "Inference Single GPU Price
  (Per Hour)²". The CPU, storage, networking and Kubernetes tables share the markup (the CPU
  tables even the ``gpu-pricing`` class) but start with another heading, so they are not read.

  - On-Demand and Spot prices are per instance-hour (``price_per`` instance, ``gpu_count`` from
    the GPU Count column): the HGX H100 row is "8 | ... | $49.24", i.e. $6.155 per GPU.
  - GPU Count "4^1" (GB200/GB300 NVL72) is 4 with a footnote marker; the page carries no text
    for footnote 1 or 2, so neither is interpreted further.
  - **Inference Single GPU** is a price for one GPU of that model, not for the instance: on
    every priced row it equals the On-Demand instance price divided by the GPU count (GB200
    $42.00 / 4 = $10.50, HGX B200 $68.80 / 8 = $8.60). It is a derived column of the row, not
    an offer: it is the row's on-demand offer's ``single_gpu_price`` (USD per hour for one
    GPU). A row with a single-GPU price but no on-demand price (none on the captures) is
    counted under ``single_gpu_price_without_on_demand``. (Before issue 22 it was emitted as an
    extra 1-GPU offer "<model> (Inference Single GPU)"; those offers end in history at the
    first scrape that reads the column this way, as any offer a full scrape no longer lists.)
  - Every row is printed twice: desktop cells (``div.table-v2-cell``, direct children of the
    row's ``div.table-grid``) and a mobile card (``table-cell-column-*``) repeating them. Only the
    desktop cells are read, so each row yields its offers once.
  - ``gpu_name`` is the model name without a "(High Memory)" / "(Standard Memory)" suffix: that
    suffix names the instance's system RAM (1,024 vs 512 GB), not the GPU; ``instance_type``
    keeps it.
  - ``gpu_form_factor`` is what CoreWeave documents where the row names no bus
    (``DOCUMENTED_FORM_FACTORS``: the 8 x 80 GB "NVIDIA A100" node is HGX, so SXM).

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One row the parser
cannot read never fails the provider; the rest of the page is still published:

- ``unknown_gpu <model>``: a row whose model names none of ``KNOWN_GPU_MODELS`` (the GPU models
  seen on the captures, matched as whole words, case-insensitively): a new GPU, or something
  that is not a GPU. Its offers are left out and the model is reported, so it can be added.
- ``truncated_row``: a component-table row that has its GPU name but no value cells and is the
  very end of the document (the cut edge of an excerpt).
- ``unnamed_row``: a GPU-table row without a model name.
- ``unparsed_row``: a row whose cells cannot be read as the columns say (a missing or extra
  cell, a GPU count, VRAM, vCPU, RAM or storage figure that is not a number); none of its
  prices are published.
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``: "Contact sales",
  "N/A", "Coming soon", ...) is counted under that marker; that cell is not an offer, the row's
  other prices still are.
- ``unparsed_price``: any other price cell that is not a plain amount ("$35,000 / month" in a
  per-hour column, "TBD", "-"); the row's other prices still are offers. An amount that reads as
  zero or negative ("$0.00", "-$3.64", "$-3.64") is not unreadable: it is emitted as printed, so
  the loader rejects the whole scrape (``prices_positive``) instead of publishing the rest.

``SchemaDriftError`` is kept for the page's structure: no component table and no "GPU Model"
instance table, a GPU table without its region heading, an unknown or missing column, a table
without rows, a duplicated offer, or a page that yields no offer at all (the message then lists
what was excluded).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
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
    ensure_unique,
    gb_from_size,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import is_document_tail, known_names_pattern

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
# Markers of the instance-table layout (row classes seen on the live page).
INSTANCE_TABLE_MARKERS = ("kubernetes-gpu-pricing", "table-row-v2")
INSTANCE_TABLE = "div.table-v2"
INSTANCE_HEADING = "div.table-v2-header div.table-header-text"
INSTANCE_ROW = "div.table-v2-body div.table-row-v2"
INSTANCE_ROW_GRID = "div.table-grid"
INSTANCE_CELL_CLASS = "table-v2-cell"  # desktop cells; the mobile card uses other classes
INSTANCE_FIRST_HEADING = "GPU Model"
REGION_HEADING_TAG = "h5"
REGION_PREFIX = "REGION:"
# The GPU models the page's rows name (every capture, priced or not). A row naming none of them
# is reported as ``unknown_gpu``; adding a model here is how a new GPU gets published.
KNOWN_GPU_MODELS = (
    # 2023 component table
    "H100",
    "A100",
    "A40",
    "RTX A6000",
    "RTX A5000",
    "RTX A4000",
    "Quadro RTX 5000",
    "Quadro RTX 4000",
    "V100",
    # 2026 instance tables
    "GB200",
    "GB300",
    "B200",
    "B300",
    "H200",
    "GH200",
    "RTX PRO 6000",
    "L40",
    "L40S",
)

# What CoreWeave documents about a priced product that its row leaves out, keyed by the row's
# (GPU model, GPU count, VRAM GB per GPU): the 2026 "NVIDIA A100" row (8 x 80 GB, 128 vCPUs,
# 2,048 GB RAM) names no bus, and its product modal is empty. CoreWeave's HPC interconnect
# documentation says its A100 nodes are HGX boards: "The A100 HGX nodes are each equipped with
# 8x NVIDIA A100 80GB GPUs" (https://docs.coreweave.com/networking/hpc-interconnect), i.e. SXM4
# modules. Stated as ``Offer.gpu_form_factor``, also on the row's Inference Single GPU price
# (one GPU of that node). A row of another shape (a PCIe node) is not covered.
DOCUMENTED_FORM_FACTORS = {("NVIDIA A100", 8, 80): "SXM"}

# Normalised column heading -> role (see ``_heading_key``).
_INSTANCE_COLUMNS = {
    "gpu model": "name",
    "gpu count": "count",
    "vram (gb)": "vram",
    "vcpus": "vcpus",
    "system ram (gb)": "ram",
    "local storage (tb)": "storage",
    "on-demand price (per hour)": "on_demand",
    "spot price (per hour)": "spot",
    "inference single gpu price (per hour)": "inference",
}
_REQUIRED_ROLES = ("name", "count", "vram", "vcpus", "ram", "storage", "on_demand")
_INSTANCE_PRICINGS = {"on_demand": PricingModel.ON_DEMAND, "spot": PricingModel.SPOT}
_FOOTNOTE_MARKS = re.compile(r"[\u00b9\u00b2\u00b3\u2070-\u2079]")
_INTEGER = re.compile(r"^\d+$")
_NUMBER = re.compile(r"^\d[\d,]*(?:\.\d+)?$")
_GPU_COUNT = re.compile(r"^(?P<n>\d+)(?:\^\d+)?$")  # "8", or "4^1" (footnote 1)
# A plain amount, with the minus sign of a negative price on either side of the symbol.
_PLAIN_PRICE = re.compile(r"^[-\u2212]?[$\u20ac\u00a3]\s?[-\u2212]?\d[\d,]*(?:\.\d+)?$")
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.
_MEMORY_VARIANT = re.compile(r"\s*\((?:High|Standard) Memory\)$")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_KNOWN_GPU = known_names_pattern(KNOWN_GPU_MODELS)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page, prices in USD per hour.

    2023 component table: per GPU, on-demand, region "global". Current instance tables: per
    instance (On-Demand, Spot; the Inference Single GPU column is the on-demand offer's
    ``single_gpu_price``), one region per table.
    Raises ``SchemaDriftError`` for an unknown layout, an instance-table page without a "GPU
    Model" table or region heading, an unknown column, a duplicated offer, and when a page
    yields no offers; rows and cells that cannot be read are left out and counted and counted.

    Returns the offers, and how many rows/cells each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        found = _parse_page(response, excluded)
        if not found:
            left_out = f"; excluded: {dict(excluded)}" if excluded else ""
            raise SchemaDriftError(
                f"{response.url}: no GPU prices found on the pricing page{left_out}"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _known_gpu(name: str) -> bool:
    """Whether the row's model names one of ``KNOWN_GPU_MODELS`` (as a whole word)."""
    return _KNOWN_GPU.search(name) is not None


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = html_body(response)
    text = " ".join(tree.text(separator=" ").split()) if tree.body is not None else ""
    if COMPONENT_PRICE_HEADING in text:
        return _parse_component_table(response, tree, excluded)
    tables = [t for t in tree.css(INSTANCE_TABLE) if _first_heading(t) == INSTANCE_FIRST_HEADING]
    if tables:
        offers = []
        for table in tables:
            offers.extend(_parse_instance_table(response, table, excluded))
        return offers
    body = response.body.decode("utf-8", errors="replace")
    if any(marker in body for marker in INSTANCE_TABLE_MARKERS):
        raise SchemaDriftError(
            f"{response.url}: CoreWeave instance-table layout without a table headed "
            f"{INSTANCE_FIRST_HEADING!r}"
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
    return offers_from_rows(rows, partial(_read_component_row, response), excluded)


def _read_component_row(response: RawResponse, row: LexborNode) -> Offer:
    name_node = row.css_first(COMPONENT_NAME)
    if name_node is None or not node_text(name_node):
        raise RowExcluded("unnamed_row")
    name = node_text(name_node)
    cells = [node_text(cell) for cell in row.css(COMPONENT_CELL)]
    if not cells and is_document_tail(row):
        raise RowExcluded("truncated_row")
    if not _known_gpu(name):
        raise RowExcluded(unknown_row("gpu", name))
    # VRAM (GB), max vCPUs per GPU, max RAM (GB) per GPU, price
    if len(cells) != COMPONENT_CELLS or not _INTEGER.match(cells[0]):
        raise RowExcluded("unparsed_row")
    vram, _max_vcpus, _max_ram, price_text = cells
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    try:  # the cell is the amount, then maybe a "Reserve Now" link
        price, currency = money(price_text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    return Offer(
        provider="coreweave",
        instance_type=name,
        gpu_name=name,
        gpu_count=Decimal(1),
        vram_gb_reported=decimal(vram),
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


def _heading_key(text: str) -> str:
    """ "Inference Single GPU Price(Per Hour)²" -> "inference single gpu price (per hour)"."""
    text = _FOOTNOTE_MARKS.sub("", text)
    text = re.sub(r"\s*\(\s*", " (", text)
    return " ".join(text.split()).lower()


def _first_heading(table: LexborNode) -> str | None:
    first = table.css_first(INSTANCE_HEADING)
    return node_text(first) if first is not None else None


def _region(response: RawResponse, table: LexborNode) -> str:
    """The region code from the "REGION: <name>" heading just before ``table``."""
    sibling = table.prev
    while sibling is not None:
        if sibling.is_element_node:
            if sibling.tag == REGION_HEADING_TAG and node_text(sibling).startswith(REGION_PREFIX):
                name = node_text(sibling)[len(REGION_PREFIX) :]
                code = _NON_ALNUM.sub("-", name.lower()).strip("-")
                if code:
                    return code
            break
        sibling = sibling.prev
    raise SchemaDriftError(
        f"{response.url}: {INSTANCE_FIRST_HEADING!r} table without a "
        f"'{REGION_PREFIX} <name>' <{REGION_HEADING_TAG}> heading before it"
    )


def _instance_columns(response: RawResponse, headings: list[str]) -> dict[str, int]:
    columns: dict[str, int] = {}
    for index, heading in enumerate(headings):
        role = _INSTANCE_COLUMNS.get(_heading_key(heading))
        if role is None or role in columns:
            raise SchemaDriftError(
                f"{response.url}: unknown or repeated GPU table column {heading!r} in {headings!r}"
            )
        columns[role] = index
    missing = [role for role in _REQUIRED_ROLES if role not in columns]
    if missing or columns["name"] != 0:
        raise SchemaDriftError(f"{response.url}: GPU table without {missing!r}: {headings!r}")
    return columns


def _instance_price(text: str, excluded: Counter[str]) -> tuple[Decimal, str] | None:
    """A price cell as (amount, currency), negative or zero as printed; None (counted) for a
    no-price marker or other text."""
    marker = no_price_marker(text)
    if marker is not None:
        excluded[marker] += 1
        return None
    if not _PLAIN_PRICE.match(text):
        excluded["unparsed_price"] += 1
        return None
    return money(text)


def _row_cells(row: LexborNode) -> list[str]:
    """The desktop cells of one instance-table row (the mobile card repeats them: not read)."""
    grid = row.css_first(INSTANCE_ROW_GRID)
    if grid is None:
        return []
    return [
        node_text(cell)
        for cell in grid.iter()
        if INSTANCE_CELL_CLASS in (cell.attributes.get("class") or "").split()
    ]


def _parse_instance_table(
    response: RawResponse, table: LexborNode, excluded: Counter[str]
) -> list[Offer]:
    region = _region(response, table)
    headings = [node_text(h) for h in table.css(INSTANCE_HEADING)]
    col = _instance_columns(response, headings)
    rows = table.css(INSTANCE_ROW)
    if not rows:
        raise SchemaDriftError(f"{response.url}: {region} GPU table has no rows")
    read = partial(_read_instance_row, response, region, headings, col, excluded)
    return offers_from_rows(rows, read, excluded)


def _read_instance_row(
    response: RawResponse,
    region: str,
    headings: list[str],
    col: dict[str, int],
    excluded: Counter[str],
    row: LexborNode,
) -> list[Offer]:
    cells = _row_cells(row)
    name = cells[0] if cells else ""
    if not name:
        raise RowExcluded("unnamed_row")
    if not _known_gpu(name):
        raise RowExcluded(unknown_row("gpu", name))
    figures = [col["vcpus"], col["ram"], col["storage"]]
    count_match = _GPU_COUNT.match(cells[col["count"]]) if len(cells) == len(headings) else None
    if (
        count_match is None
        or not _INTEGER.match(cells[col["vram"]])
        or not all(_NUMBER.match(cells[index]) for index in figures)
    ):
        raise RowExcluded("unparsed_row")
    vcpus, ram_gb, storage_tb = (decimal(cells[index]) for index in figures)
    gpu_name = _MEMORY_VARIANT.sub("", name)
    vram = decimal(cells[col["vram"]])
    shape = (gpu_name, int(count_match["n"]), int(vram))
    common = {
        "provider": "coreweave",
        "region": region,
        "gpu_name": gpu_name,
        "vram_gb_reported": vram,
        "gpu_form_factor": DOCUMENTED_FORM_FACTORS.get(shape),
        "price_unit": PriceUnit.HOUR,
        "source_url": response.url,
        "observed_at": response.fetched_at,
    }
    found: list[Offer] = []
    # the Inference Single GPU column: a property of the row's on-demand offer
    single = _instance_price(cells[col["inference"]], excluded) if "inference" in col else None
    for role, pricing in _INSTANCE_PRICINGS.items():
        if role not in col:
            continue
        priced = _instance_price(cells[col[role]], excluded)
        if priced is None:
            continue
        derived = single if pricing is PricingModel.ON_DEMAND else None
        if derived is not None and derived[1] != priced[1]:
            raise SchemaDriftError(
                f"{response.url}: {name}: the single-GPU price is in {derived[1]}, the"
                f" instance price in {priced[1]}"
            )
        found.append(
            Offer(
                **common,
                instance_type=name,
                gpu_count=decimal(count_match["n"]),
                vcpus=vcpus,
                ram_gb=ram_gb,
                storage_gb=gb_from_size(f"{storage_tb} TB"),
                pricing=pricing,
                price=priced[0],
                currency=priced[1],
                price_per=PricePer.INSTANCE,
                single_gpu_price=derived[0] if derived is not None else None,
            )
        )
        single = None if derived is not None else single
    if single is not None:
        # a single-GPU price with no on-demand instance price to belong to
        excluded["single_gpu_price_without_on_demand"] += 1
    return found


PROVIDER = Provider(
    slug="coreweave",
    name="CoreWeave",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; 2023 GPU component table and current per-region instance tables",
)
