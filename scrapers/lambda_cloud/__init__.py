"""Lambda (lambda.ai, formerly lambdalabs.com): GPU instance prices from the public pricing page,
plus the Cloud API's instance types when an API key is set.

Live sources
- ``GET https://lambda.ai/pricing`` (HTML, no auth): always fetched.
- ``GET https://cloud.lambdalabs.com/api/v1/instance-types`` (JSON, HTTP Basic auth with the API
  key as user name, per https://docs-api.lambda.ai/api/cloud#listInstanceTypes): fetched only
  when ``LAMBDA_API_KEY`` is set. Its offers are a second source beside the page's; they carry
  Lambda's API names (``gpu_8x_h100_sxm5``), so they never collide with the page's offers.

Known layouts, each recognised explicitly from the response content (anything else raises
``SchemaDriftError``):
- ``lambda.ai tabs`` (lambda.ai/pricing, 2026): one tab panel per GPU count (8x/4x/2x/1x), each a
  table with columns VRAM/GPU, vCPUs, RAM, STORAGE, PRICE/GPU/HR. Every panel present is parsed;
  a panel the page does not ship (the 2026-01 capture holds only 8x) yields no offers.
- ``gpu-cloud flat table`` (lambdalabs.com/service/gpu-cloud, 2024): one table whose rows are
  named "On-demand 8x NVIDIA H100 SXM" / "Reserved ..."; price "$2.99 / GPU / hr".
- ``gpu-cloud 2023`` (same URL, 2023): an on-demand table (GPUs, VRAM per GPU, vCPUs, RAM,
  Storage, Price "$1.99 / hr" per instance) and a reserved-cluster table with a Term column.
- ``cloud API instance-types``: ``{"data": {<name>: {"instance_type": {...},
  "regions_with_capacity_available": [...]}}}``.

Documented exclusion rules (the only rows that produce no offer; counted by
``parse_with_exclusions``, keyed by rule). One row never fails the page: the rows of unknown
kinds below are reported by name (``scrapers.base.unknown_row``) and the known rows published;
``Provider.parse_report`` fails the scrape only when no known row is left or more than half of
the rows are unknown.
- ``unknown_gpu <plan>``: a page row whose GPU is not in ``KNOWN_GPUS`` (all page layouts);
- ``unknown_tab <label>``: a tab panel whose tab is not a GPU count like "8x" (one per row);
- ``unknown_plan <name>``: a 2024/2023 row whose name is not "On-demand|Reserved Nx GPU" /
  "Nx GPU", or a reserved row without plan or node;
- ``unknown_sku <instance>``: a 2023 "NVIDIA A100" configuration missing from
  ``_2023_GPU_NAMES`` (PCIe or SXM cannot be told);
- ``unknown_unit <name>``: a price "$n / <unit>" in another unit than the layout's (2024: per
  GPU-hour, 2023: per instance-hour or per named GPU-hour);
- ``unknown_term <term>``: a 2023 reserved term that is not "N-years" / "N-months";
- ``unparsed_price``: a price cell of a known row that holds no price at all (e.g. "from $2";
  a negative price is not an odd cell but a broken source: ``SchemaDriftError``);
  ``unparsed_spec``: a VRAM, vCPU, RAM, storage (or 2023 cluster-size) cell that does not parse;
- ``reserved_without_term``: a priced 2024 "Reserved ..." row (a reserved offer needs a term);
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "CONTACT
  SALES") is counted under that marker, in the tab panels and the 2024 flat table;
- ``unpriced_cell``: a tab-panel price cell that is empty or only a dash ("-", "–", "—"): the
  live 4x/2x/1x panels list some plans without a price;
- ``no_gpu``: an API instance type with ``specs.gpus == 0`` is not a GPU SKU.

Still ``SchemaDriftError`` (the layout itself changed): no known layout, a table whose headers
changed, a row whose cells are not the header's columns, a panel without its table, an API
response without ``data`` or an instance type missing a documented key or with non-integer
price/gpus/vcpus (the API is typed: that is a schema change, not one odd row), a response with
no offer, a duplicate offer. The API's instance types are not checked against ``KNOWN_GPUS``:
its ``gpu_description`` spells GPUs differently ("H100 (80 GB SXM5)") and no real API response
is recorded to list them from.

Units: RAM and storage are printed in GiB/TiB (and once in TB) and stored as decimal GB; VRAM is
stored as printed (GB). Prices stay as printed: per GPU-hour or per instance-hour, USD. The API's
``price_cents_per_hour`` is divided by 100 (cents are not a currency code).
"""

from __future__ import annotations

import base64
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers import http
from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
    unknown_row,
    unknown_rows,
)
from scrapers.parsing import (
    RowExcluded,
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    gb_from_size,
    html_body,
    html_tables,
    json_body,
    no_price_marker,
    offers_from_rows,
    require,
)

PRICING_URL = "https://lambda.ai/pricing"
LEGACY_PRICING_URL = "https://lambdalabs.com/service/gpu-cloud"  # source_url of pre-2025 layouts
API_URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
TOKEN_ENV = "LAMBDA_API_KEY"
SLUG = "lambda"
CURRENCY = "USD"
GLOBAL_REGION = "global"

# The GPUs (plan names, as printed) of Lambda's pricing pages this parser has read: the three
# page captures in ../shared/snapshots/lambda (2023-09, 2024-11, 2026-01) and the plan names of
# the whole lambda.ai/pricing page a month later (2026-02-11_parsed_pricing_page.json, another
# tool's parse: A10, A6000, GH200, H100 PCIe, Quadro RTX 6000 in the 1x-4x tabs). A row of any
# other GPU is left out as ``unknown_gpu <plan>`` and the known rows are still published; add
# its name here once the row has been checked. "H100 SXM" is the 2023 reserved table's GPU.
KNOWN_GPUS = frozenset(
    {
        "NVIDIA A10",
        "NVIDIA A100 PCIe",
        "NVIDIA A100 SXM",
        "NVIDIA A6000",
        "NVIDIA B200 SXM6",
        "NVIDIA GH200",
        "NVIDIA H100 PCIe",
        "NVIDIA H100 SXM",
        "NVIDIA Quadro RTX 6000",
        "NVIDIA RTX A6000",
        "NVIDIA Tesla V100",
        "H100 SXM",
    }
)

# Exclusion reasons for one row of a known GPU whose cells do not parse.
UNPARSED_PRICE = "unparsed_price"
UNPARSED_SPEC = "unparsed_spec"
RESERVED_WITHOUT_TERM = "reserved_without_term"

# Tab-panel price cells that mean "no price listed" (the unpriced_cell rule).
_UNPRICED_CELLS = frozenset({"", "-", "\u2013", "\u2014"})

_TAB_HEADERS = ("", "VRAM/GPU", "VCPUS", "RAM", "STORAGE", "PRICE/GPU/HR")
_2023_ON_DEMAND_HEADERS = ("GPUS", "VRAM PER GPU", "VCPUS", "RAM", "STORAGE", "PRICE")
_2023_RESERVED_HEADERS = (
    "",
    "INSTANCE TYPE",
    "GPU",
    "GPU MEMORY",
    "VCPUS",
    "STORAGE",
    "NETWORK BANDWIDTH (GBPS)",
    "PER HOUR PRICE",
    "TERM",
    "# OF GPUS",
)
_COUNT_LABEL = re.compile(r"(?P<count>\d+)x")
_COUNT_AND_GPU = re.compile(r"(?P<count>\d+)x\s+(?P<gpu>\S.*)")
_FLAT_ROW_NAME = re.compile(r"(?P<kind>On-demand|Reserved)\s+(?P<count>\d+)x\s+(?P<gpu>\S.*)")
_INTEGER = re.compile(r"\d+")
_NEGATIVE_PRICE = re.compile(r"-\s*\$|\$\s*-")
_PRICE_BARE = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)")
_PRICE_PER_GPU_HR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*GPU\s*/\s*hr", re.IGNORECASE)
_PRICE_PER_HR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*hr", re.IGNORECASE)
_PRICE_PER_NAMED_GPU_HOUR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*\w+\s*/\s*hour")
_TERM = re.compile(r"(?P<n>\d+)[-\s](?P<unit>year|month)s?", re.IGNORECASE)
_GPU_RANGE = re.compile(r"[\d,]+(?:\s*-\s*[\d,]+)?")
_VRAM_IN_DESCRIPTION = re.compile(r"\((?P<gb>\d+(?:\.\d+)?)\s*GB\b")

# The 2023 on-demand table says only "NVIDIA A100" for two different parts. Lambda's own page at
# the same URL a year later (https://web.archive.org/web/20241103180910/https://lambdalabs.com/
# service/gpu-cloud, in ../shared as lambda/2024-11-03_*) lists the same configurations, with the
# same vCPUs and storage, as "NVIDIA A100 PCIe" (1x/2x/4x 40 GB: 30/60/120 vCPUs, 512 GiB/1 TiB/
# 1 TiB) and "NVIDIA A100 SXM" (8x 40 GB: 124 vCPUs, 1800 GiB RAM; 8x 80 GB: 240 vCPUs), which
# are also the API's names for them (gpu_1x_a100 "A100 (40 GB PCIe)", gpu_8x_a100 "A100 (40 GB
# SXM4)", gpu_8x_a100_80gb_sxm4). Keyed by (row GPU, GPU count, VRAM GB); the VRAM column then
# picks the memory variant. A configuration not listed here is drift, not a guess.
_2023_GPU_NAMES: dict[tuple[str, int, Decimal], str] = {
    ("NVIDIA A100", 1, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 2, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 4, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 8, Decimal(40)): "NVIDIA A100 SXM",
    ("NVIDIA A100", 8, Decimal(80)): "NVIDIA A100 SXM",
}
_2023_OPEN_NAMES = frozenset(gpu for gpu, _, _ in _2023_GPU_NAMES)

# Offer identity (``Offer.product_key``): the instance types one product was listed under
# before Lambda renamed it -> its current instance type (the key), so its history is one series
# and the price change at the rename is a change. Each read off the captures in
# ../shared/snapshots/lambda: the 2023-09-09 page (on-demand, per instance-hour) against the
# 2024-11-03 page (per GPU-hour), which lists each renamed product and no other of its GPU,
# count and VRAM. Lambda restated specs page-wide in 2024 without renaming: 8x V100 storage
# 5.9 -> 5.8 TiB, 1x H100 PCIe RAM 200 -> 225 GiB, 1x A10 RAM 200 -> 226 GiB.
PRODUCT_KEYS: dict[str, str] = {
    # 124 vCPUs, 1800 GiB RAM, 6 TiB (2024: 5.8 TiB) on both; $8.80/h -> $1.29/GPU-h
    "8x NVIDIA A100 (40 GB)": "8x NVIDIA A100 SXM (40 GB)",
    # 240 vCPUs, 1800 GiB RAM, 20 TiB (2024: 19.5 TiB) on both; $12.00/h -> $1.79/GPU-h
    "8x NVIDIA A100 (80 GB)": "8x NVIDIA A100 SXM (80 GB)",
    # 60 vCPUs, 1 TiB; RAM 400 -> 450 GiB (the 1x PCIe rows' 200 -> 225 GiB per GPU); the 2024
    # page's only 2x A100 40 GB; $2.20/h -> $1.29/GPU-h
    "2x NVIDIA A100 (40 GB)": "2x NVIDIA A100 PCIe (40 GB)",
    # 120 vCPUs, 1 TiB; RAM 800 -> 900 GiB (as the 2x); the only 4x A100 40 GB; $4.40/h ->
    # $1.29/GPU-h
    "4x NVIDIA A100 (40 GB)": "4x NVIDIA A100 PCIe (40 GB)",
    # "1x NVIDIA A100 (40 GB)" (30 vCPUs, 200 GiB, 512 GiB) is not keyed: the 2024 page lists
    # two 1x A100 40 GB products with those vCPUs and storage, "SXM" (220 GiB) and "PCIe"
    # (225 GiB), and nothing on either page says which one the 2023 row was.
    # The RTX A6000 is the only A6000 (48 GB); vCPUs and RAM equal at each count (1x: 14 vCPUs,
    # 100 GiB, storage 200 -> 512 GiB; 2x: 28, 200 GiB, 1 TiB; 4x: 56, 400 GiB, 1 TiB);
    # $0.80/GPU-h before and after.
    "1x NVIDIA RTX A6000 (48 GB)": "1x NVIDIA A6000 (48 GB)",
    "2x NVIDIA RTX A6000 (48 GB)": "2x NVIDIA A6000 (48 GB)",
    "4x NVIDIA RTX A6000 (48 GB)": "4x NVIDIA A6000 (48 GB)",
}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Fetch the pricing page and, when ``token`` (a Lambda Cloud API key) is set, the API's
    instance types. No pagination on either. Raises ``FetchError`` (via ``scrapers.http``) when
    a source fails after retries; a rejected API key is an HTTP 401 ``FetchError``."""
    responses = [http.get(client, PRICING_URL)]
    if token:
        responses.append(http.get(client, API_URL, headers={"Authorization": _basic_auth(token)}))
    return responses


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from recorded pricing-page and API responses; each layout is detected from content.

    Prices are USD per hour, per GPU or per instance as the layout prints them. Raises
    ``SchemaDriftError`` for an unknown layout, changed table headers or row cells, an API
    instance type missing a documented key, a duplicate offer, or a response that yields no
    offers; rows of an unknown GPU, plan, unit or term are left out and counted instead (see
    the module docstring). Byte-identical bodies are parsed
    once: replay answers every request of one scrape with the same capture.

    Returns the offers, and how many rows/cells each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        parsed = _parse_response(response, excluded)
        if not parsed:
            unknown = ", ".join(sorted(unknown_rows(excluded)))
            detail = f" (unknown rows: {unknown})" if unknown else ""
            raise SchemaDriftError(f"{response.url}: no offers found{detail}")
        offers.extend(parsed)
    return ensure_unique(offers), excluded


def _parse_response(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    if response.body.lstrip()[:1] == b"{":
        return _parse_api(json_body(response), response.fetched_at, excluded)
    tree = html_body(response)
    if tree.css_first('[role="tabpanel"]') is not None:
        return _parse_tabs(tree, response.fetched_at, excluded)
    if any(_headers(table) == _2023_ON_DEMAND_HEADERS for table in tree.css("table")):
        return _parse_2023(tree, response.fetched_at, excluded)
    if "PRICE/GPU/HR" in (tree.body.text() if tree.body else "").upper():
        return _parse_flat_table(response, excluded)
    raise SchemaDriftError(
        f"{response.url}: unknown layout (no pricing tab panels, no 2023 on-demand table, "
        "no PRICE/GPU/HR table)"
    )


# --- lambda.ai/pricing, tab panels (2026) -------------------------------------------------------


def _parse_tabs(
    tree: LexborHTMLParser, observed_at: datetime, excluded: Counter[str]
) -> list[Offer]:
    tab_labels = {
        tab.attributes.get("id"): tab.text(strip=True) for tab in tree.css('[role="tab"]')
    }
    offers: list[Offer] = []
    for panel in tree.css('[role="tabpanel"]'):
        label = require(
            tab_labels.get(panel.attributes.get("aria-labelledby")),
            f"tab label of panel {panel.attributes.get('id')!r}",
        )
        count_match = _COUNT_LABEL.fullmatch(label)
        if count_match is None:
            # A tab that is not a GPU count ("Clusters"?): its rows are of a kind not known here.
            excluded[unknown_row("tab", label)] += max(1, len(panel.css("tbody tr")))
            continue
        gpu_count = int(count_match["count"])
        table = require(panel.css_first("table"), f"pricing table in the {label} panel")
        if _headers(table) != _TAB_HEADERS:
            raise SchemaDriftError(f"{label} panel headers changed: {_headers(table)}")
        rows = require(table.css("tbody tr"), f"rows in the {label} panel")
        read = partial(
            _read_tab_row, gpu_count=gpu_count, observed_at=observed_at, excluded=excluded
        )
        offers.extend(offers_from_rows(rows, read, excluded))
    return offers


def _read_tab_row(
    row: LexborNode, gpu_count: int, observed_at: datetime, excluded: Counter[str]
) -> Offer | None:
    """One GPU plan row of a GPU-count tab; None for a price ``_price`` counted itself."""
    plan = require(row.css_first('th[data-label="Plan"]'), "Plan cell").text(strip=True)
    cells = {
        _norm(td.attributes.get("data-label") or ""): td.text(strip=True) for td in row.css("td")
    }
    if tuple(cells) != _TAB_HEADERS[1:]:
        raise SchemaDriftError(f"{plan!r} row cells changed: {list(cells)}")
    if plan not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", plan))
    price_text = cells["PRICE/GPU/HR"]
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if " ".join(price_text.split()) in _UNPRICED_CELLS:
        raise RowExcluded("unpriced_cell")
    price = _price(_PRICE_BARE, price_text, plan, excluded, unit_in_cell=False)
    specs = _specs(cells["VRAM/GPU"], cells["VCPUS"], cells["RAM"], cells["STORAGE"])
    if price is None:
        return None
    if specs is None:
        raise RowExcluded(UNPARSED_SPEC)
    vram, vcpus, ram_gb, storage_gb = specs
    return _offer(
        instance_type=_instance_name(gpu_count, plan, vram),
        gpu_name=plan,
        gpu_count=gpu_count,
        vram=vram,
        vcpus=vcpus,
        ram_gb=ram_gb,
        storage_gb=storage_gb,
        price=price,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=observed_at,
    )


# --- lambdalabs.com/service/gpu-cloud, one flat table (2024) ------------------------------------


def _parse_flat_table(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    """Rows read with ``html_tables``: the 2024 capture starts inside the table, and a tree
    builder would drop its ``<tr>``/``<td>``. Column order (the header row is cut from the
    capture): name, VRAM/GPU, vCPUs, RAM, STORAGE, PRICE/GPU/HR; each cell's format is checked."""
    offers: list[Offer] = []
    for table in html_tables(response):
        for row in table:
            cells = [cell.text for cell in row]
            if any("PRICE/GPU/HR" in cell.upper() for cell in cells):
                continue  # the header row
            if len(cells) != 6:
                raise SchemaDriftError(f"gpu-cloud row has {len(cells)} cells, expected 6: {cells}")
            name, vram_text, vcpus_text, ram_text, storage_text, price_text = cells
            name_match = _FLAT_ROW_NAME.fullmatch(name)
            if name_match is None:
                excluded[unknown_row("plan", name)] += 1
                continue
            gpu = name_match["gpu"]
            if gpu not in KNOWN_GPUS:
                excluded[unknown_row("gpu", gpu)] += 1
                continue
            marker = no_price_marker(price_text)
            if marker is not None:
                excluded[marker] += 1
                continue
            if name_match["kind"] != "On-demand":
                # A reserved price needs a term in months; this table states none.
                excluded[RESERVED_WITHOUT_TERM] += 1
                continue
            price = _price(_PRICE_PER_GPU_HR, price_text, name, excluded, unit_in_cell=True)
            specs = _specs(vram_text, vcpus_text, ram_text, storage_text)
            if price is None:
                continue
            if specs is None:
                excluded[UNPARSED_SPEC] += 1
                continue
            gpu_count = int(name_match["count"])
            vram, vcpus, ram_gb, storage_gb = specs
            offers.append(
                _offer(
                    instance_type=_instance_name(gpu_count, gpu, vram),
                    gpu_name=gpu,
                    gpu_count=gpu_count,
                    vram=vram,
                    vcpus=vcpus,
                    ram_gb=ram_gb,
                    storage_gb=storage_gb,
                    price=price,
                    price_per=PricePer.GPU,
                    source_url=LEGACY_PRICING_URL,
                    observed_at=response.fetched_at,
                )
            )
    return offers


# --- lambdalabs.com/service/gpu-cloud, on-demand + reserved tables (2023) -----------------------


def _parse_2023(
    tree: LexborHTMLParser, observed_at: datetime, excluded: Counter[str]
) -> list[Offer]:
    offers: list[Offer] = []
    for table in tree.css("table"):
        headers = _headers(table)
        if headers == _2023_ON_DEMAND_HEADERS:
            offers.extend(_parse_2023_on_demand(table, observed_at, excluded))
        elif headers == _2023_RESERVED_HEADERS:
            offers.extend(_parse_2023_reserved(table, observed_at, excluded))
        else:
            raise SchemaDriftError(f"gpu-cloud 2023 page has an unknown table: {headers}")
    return offers


def _parse_2023_on_demand(
    table: LexborNode, observed_at: datetime, excluded: Counter[str]
) -> Iterator[Offer]:
    for row in require(table.css("tbody tr"), "rows of the on-demand table"):
        cells = row.css("td")
        if len(cells) != len(_2023_ON_DEMAND_HEADERS):
            raise SchemaDriftError(f"on-demand row has {len(cells)} cells: {row.text()[:80]!r}")
        for tag in cells[0].css(".tag"):
            tag.decompose()  # "New" badges are not part of the GPU name
        name, vram_text, vcpus_text, ram_text, storage_text, price_text = (
            cell.text(strip=True) for cell in cells
        )
        name_match = _COUNT_AND_GPU.fullmatch(name)
        if name_match is None:
            excluded[unknown_row("plan", name)] += 1
            continue
        gpu = name_match["gpu"]
        if gpu not in KNOWN_GPUS and gpu not in _2023_OPEN_NAMES:
            excluded[unknown_row("gpu", gpu)] += 1
            continue
        price = _price(_PRICE_PER_HR, price_text, name, excluded, unit_in_cell=True)
        specs = _specs(vram_text, vcpus_text, ram_text, storage_text)
        if price is None:
            continue
        if specs is None:
            excluded[UNPARSED_SPEC] += 1
            continue
        gpu_count = int(name_match["count"])
        vram, vcpus, ram_gb, storage_gb = specs
        instance_type = _instance_name(gpu_count, gpu, vram)
        gpu_name = _2023_gpu_name(gpu, gpu_count, vram)
        if gpu_name is None:
            excluded[unknown_row("sku", instance_type)] += 1
            continue
        yield _offer(
            instance_type=instance_type,
            gpu_name=gpu_name,
            gpu_count=gpu_count,
            vram=vram,
            vcpus=vcpus,
            ram_gb=ram_gb,
            storage_gb=storage_gb,
            price=price,
            price_per=PricePer.INSTANCE,
            source_url=LEGACY_PRICING_URL,
            observed_at=observed_at,
        )


def _2023_gpu_name(gpu: str, gpu_count: int, vram: Decimal) -> str | None:
    """The row's GPU, or the exact part ``_2023_GPU_NAMES`` gives for "NVIDIA A100"; None for
    an "NVIDIA A100" configuration the table does not list (PCIe or SXM is then unknown)."""
    if gpu not in _2023_OPEN_NAMES:
        return gpu
    return _2023_GPU_NAMES.get((gpu, gpu_count, vram))


def _parse_2023_reserved(
    table: LexborNode, observed_at: datetime, excluded: Counter[str]
) -> Iterator[Offer]:
    """Reserved clusters: priced per GPU-hour ("$1.89/H100/hour") for a term; the node is the
    instance type ("8x NVIDIA H100"), the cluster size range ("64 - 60,000") is not an offer
    dimension and is only validated."""
    for row in require(table.css("tbody tr"), "rows of the reserved table"):
        cells = [cell.text(strip=True) for cell in row.css("td")]
        if len(cells) != len(_2023_RESERVED_HEADERS):
            raise SchemaDriftError(f"reserved row has {len(cells)} cells: {cells}")
        plan, node, gpu, vram_text, vcpus_text, storage_text, _, price_text, term, gpus = cells
        node_match = _COUNT_AND_GPU.fullmatch(node)
        if not plan or node_match is None:
            excluded[unknown_row("plan", f"{plan} {node}".strip())] += 1
            continue
        if gpu not in KNOWN_GPUS:
            excluded[unknown_row("gpu", gpu)] += 1
            continue
        term_months = _term_months(term)
        if term_months is None:
            excluded[unknown_row("term", term)] += 1
            continue
        price = _price(_PRICE_PER_NAMED_GPU_HOUR, price_text, plan, excluded, unit_in_cell=True)
        vram = _size(vram_text)
        vcpus = _integer(vcpus_text)
        storage_gb = _size(storage_text)
        if price is None:
            continue
        if vram is None or vcpus is None or storage_gb is None or not _GPU_RANGE.fullmatch(gpus):
            excluded[UNPARSED_SPEC] += 1
            continue
        gpu_count = int(node_match["count"])
        yield _offer(
            instance_type=f"{plan} {_instance_name(gpu_count, node_match['gpu'], vram)}",
            gpu_name=gpu,
            gpu_count=gpu_count,
            vram=vram,
            vcpus=vcpus,
            ram_gb=None,
            storage_gb=storage_gb,
            price=price,
            price_per=PricePer.GPU,
            source_url=LEGACY_PRICING_URL,
            observed_at=observed_at,
            pricing=PricingModel.RESERVED,
            term_months=term_months,
        )


# --- Cloud API: GET /api/v1/instance-types -------------------------------------------------------


def _parse_api(payload: Any, observed_at: datetime, excluded: Counter[str]) -> list[Offer]:
    """One offer per region with capacity (available); a type with capacity nowhere keeps its
    list price as one ``global`` offer, not available (the price is the same in every region)."""
    data = require(payload.get("data") if isinstance(payload, dict) else None, "API 'data'")
    if not isinstance(data, dict):
        raise SchemaDriftError("API 'data' is not an object keyed by instance type")
    offers: list[Offer] = []
    for key, entry in data.items():
        try:
            spec = entry["instance_type"]
            name = require(spec["name"], f"{key} name")
            gpu_description = require(spec["gpu_description"], f"{key} gpu_description")
            cents = spec["price_cents_per_hour"]
            specs = spec["specs"]
            gpus, vcpus = specs["gpus"], specs["vcpus"]
            memory_gib, storage_gib = specs["memory_gib"], specs["storage_gib"]
            regions = entry["regions_with_capacity_available"]
        except (KeyError, TypeError) as exc:
            raise SchemaDriftError(f"API instance type {key!r}: missing {exc}") from None
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (cents, gpus, vcpus)):
            raise SchemaDriftError(f"API instance type {key!r}: price/gpus/vcpus not integers")
        if gpus == 0:
            excluded["no_gpu"] += 1
            continue
        if not isinstance(regions, list):
            raise SchemaDriftError(f"API instance type {key!r}: regions is not a list")
        region_names = [require(r.get("name"), f"{key} region name") for r in regions] or [
            GLOBAL_REGION
        ]
        vram = _VRAM_IN_DESCRIPTION.search(gpu_description)
        for region in region_names:
            offers.append(
                _offer(
                    instance_type=name,
                    gpu_name=gpu_description,
                    gpu_count=gpus,
                    vram=decimal(vram["gb"]) if vram else None,
                    vcpus=decimal(vcpus),
                    ram_gb=gb_from_gib(memory_gib),
                    storage_gb=gb_from_gib(storage_gib),
                    price=decimal(cents) / 100,
                    price_per=PricePer.INSTANCE,
                    source_url=API_URL,
                    observed_at=observed_at,
                    region=region,
                    available=bool(regions),  # the regions listed are those with capacity
                )
            )
    return offers


# --- helpers -------------------------------------------------------------------------------------


def _offer(
    *,
    instance_type: str,
    gpu_name: str,
    gpu_count: int,
    vram: Decimal | None,
    vcpus: Decimal,
    ram_gb: Decimal | None,
    storage_gb: Decimal | None,
    price: Decimal,
    price_per: PricePer,
    source_url: str,
    observed_at: datetime,
    pricing: PricingModel = PricingModel.ON_DEMAND,
    term_months: int | None = None,
    region: str = GLOBAL_REGION,
    available: bool | None = None,
) -> Offer:
    return Offer(
        provider=SLUG,
        instance_type=instance_type,
        region=region,
        available=available,
        gpu_name=gpu_name,
        gpu_count=Decimal(gpu_count),
        vram_gb_reported=vram,
        vcpus=vcpus,
        ram_gb=ram_gb,
        storage_gb=storage_gb,
        pricing=pricing,
        reserved_term_months=term_months,
        price=price,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=price_per,
        source_url=source_url,
        observed_at=observed_at,
    )


def _instance_name(gpu_count: int, gpu: str, vram_gb: Decimal) -> str:
    """Names like ``8x NVIDIA A100 SXM (80 GB)``: one GPU name comes in two VRAM sizes."""
    return f"{gpu_count}x {gpu} ({vram_gb.normalize():f} GB)"


def _headers(table: LexborNode) -> tuple[str, ...]:
    return tuple(_norm(th.text()) for th in table.css("thead th"))


def _norm(text: str) -> str:
    return " ".join(text.replace("*", "").split()).upper()


def _integer(text: str) -> Decimal | None:
    return Decimal(text) if _INTEGER.fullmatch(text) else None


def _size(text: str) -> Decimal | None:
    """``gb_from_size``, or None when the cell holds no size."""
    try:
        return gb_from_size(text)
    except SchemaDriftError:
        return None


def _specs(
    vram: str, vcpus: str, ram: str, storage: str
) -> tuple[Decimal, Decimal, Decimal, Decimal] | None:
    """(VRAM GB, vCPUs, RAM GB, storage GB) of a row, or None when a cell does not parse."""
    values = (_size(vram), _integer(vcpus), _size(ram), _size(storage))
    if any(value is None for value in values):
        return None
    vram_gb, vcpu_count, ram_gb, storage_gb = values
    assert vram_gb is not None and vcpu_count is not None
    assert ram_gb is not None and storage_gb is not None
    return vram_gb, vcpu_count, ram_gb, storage_gb


def _price(
    pattern: re.Pattern[str], text: str, row: str, excluded: Counter[str], *, unit_in_cell: bool
) -> Decimal | None:
    """The price ``pattern`` reads from a cell, or None after counting why not: a "$n" cell in
    another unit than the layout's (``unit_in_cell`` layouts) is ``unknown_unit <row>``, any
    other text ``unparsed_price``. A negative price ("$-2.99") raises ``SchemaDriftError``."""
    match = pattern.fullmatch(text)
    if match is not None:
        return decimal(match["num"])
    if _NEGATIVE_PRICE.search(text):
        # Not an odd row: an impossible price fails the scrape (last good data stays served).
        raise SchemaDriftError(f"{row}: negative price {text!r}")
    other_unit = unit_in_cell and _PRICE_BARE.match(text) is not None
    excluded[unknown_row("unit", row) if other_unit else UNPARSED_PRICE] += 1
    return None


def _term_months(text: str) -> int | None:
    match = _TERM.fullmatch(text)
    if match is None:
        return None
    return int(match["n"]) * (12 if match["unit"].lower() == "year" else 1)


def _basic_auth(token: str) -> str:
    """HTTP Basic credentials with the API key as user name and an empty password."""
    return "Basic " + base64.b64encode(f"{token}:".encode()).decode("ascii")


PROVIDER = Provider(
    slug=SLUG,
    name="Lambda",
    homepage="https://lambda.ai",
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
    notes="Pricing page always; Cloud API instance types too when LAMBDA_API_KEY is set.",
)
