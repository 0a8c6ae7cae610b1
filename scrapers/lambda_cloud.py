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
``parse_with_exclusions``, keyed by rule):
- a price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "CONTACT
  SALES") is counted under that marker, in the tab panels and the 2024 flat table;
- ``unpriced_cell``: a tab-panel price cell that is empty or only a dash ("-", "–", "—"): the
  live 4x/2x/1x panels list some plans without a price. One such row never fails the page;
  any other non-price text still raises ``SchemaDriftError``;
- ``no_gpu``: an API instance type with ``specs.gpus == 0`` is not a GPU SKU.

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
)
from scrapers.parsing import (
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    gb_from_size,
    html_body,
    html_tables,
    json_body,
    no_price_marker,
    require,
)

PRICING_URL = "https://lambda.ai/pricing"
LEGACY_PRICING_URL = "https://lambdalabs.com/service/gpu-cloud"  # source_url of pre-2025 layouts
API_URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
TOKEN_ENV = "LAMBDA_API_KEY"
SLUG = "lambda"
CURRENCY = "USD"
GLOBAL_REGION = "global"

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


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Fetch the pricing page and, when ``token`` (a Lambda Cloud API key) is set, the API's
    instance types. No pagination on either. Raises ``FetchError`` (via ``scrapers.http``) when
    a source fails after retries; a rejected API key is an HTTP 401 ``FetchError``."""
    responses = [http.get(client, PRICING_URL)]
    if token:
        responses.append(http.get(client, API_URL, headers={"Authorization": _basic_auth(token)}))
    return responses


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from recorded pricing-page and API responses; each layout is detected from content.

    Prices are USD per hour, per GPU or per instance as the layout prints them. Raises
    ``SchemaDriftError`` for an unknown layout, a row that does not parse, a duplicate offer, or
    a response that yields no offers. Byte-identical bodies are parsed once: replay answers every
    request of one scrape with the same capture.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many rows/cells each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        parsed = _parse_response(response, excluded)
        if not parsed:
            raise SchemaDriftError(f"{response.url}: no offers found")
        offers.extend(parsed)
    return ensure_unique(offers), excluded


def _parse_response(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    if response.body.lstrip()[:1] == b"{":
        return _parse_api(json_body(response), response.fetched_at, excluded)
    tree = html_body(response)
    if tree.css_first('[role="tabpanel"]') is not None:
        return _parse_tabs(tree, response.fetched_at, excluded)
    if any(_headers(table) == _2023_ON_DEMAND_HEADERS for table in tree.css("table")):
        return _parse_2023(tree, response.fetched_at)
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
            raise SchemaDriftError(f"tab label {label!r} is not a GPU count like '8x'")
        gpu_count = int(count_match["count"])
        table = require(panel.css_first("table"), f"pricing table in the {label} panel")
        if _headers(table) != _TAB_HEADERS:
            raise SchemaDriftError(f"{label} panel headers changed: {_headers(table)}")
        rows = require(table.css("tbody tr"), f"rows in the {label} panel")
        for row in rows:
            plan = require(row.css_first('th[data-label="Plan"]'), "Plan cell").text(strip=True)
            cells = {
                _norm(td.attributes.get("data-label") or ""): td.text(strip=True)
                for td in row.css("td")
            }
            if tuple(cells) != _TAB_HEADERS[1:]:
                raise SchemaDriftError(f"{plan!r} row cells changed: {list(cells)}")
            price_text = cells["PRICE/GPU/HR"]
            marker = no_price_marker(price_text)
            if marker is not None:
                excluded[marker] += 1
                continue
            if " ".join(price_text.split()) in _UNPRICED_CELLS:
                excluded["unpriced_cell"] += 1
                continue
            vram = gb_from_size(cells["VRAM/GPU"])
            offers.append(
                _offer(
                    instance_type=_instance_name(gpu_count, plan, vram),
                    gpu_name=plan,
                    gpu_count=gpu_count,
                    vram=vram,
                    vcpus=_integer(cells["VCPUS"], f"{plan} vCPUs"),
                    ram_gb=gb_from_size(cells["RAM"]),
                    storage_gb=gb_from_size(cells["STORAGE"]),
                    price=_fullmatch(_PRICE_BARE, price_text, f"{label} {plan} price"),
                    price_per=PricePer.GPU,
                    source_url=PRICING_URL,
                    observed_at=observed_at,
                )
            )
    return offers


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
                raise SchemaDriftError(f"gpu-cloud row {name!r} is not 'On-demand|Reserved Nx GPU'")
            marker = no_price_marker(price_text)
            if marker is not None:
                excluded[marker] += 1
                continue
            if name_match["kind"] != "On-demand":
                raise SchemaDriftError(f"{name!r} has a price but no known term")
            gpu_count = int(name_match["count"])
            vram = gb_from_size(vram_text)
            offers.append(
                _offer(
                    instance_type=_instance_name(gpu_count, name_match["gpu"], vram),
                    gpu_name=name_match["gpu"],
                    gpu_count=gpu_count,
                    vram=vram,
                    vcpus=_integer(vcpus_text, f"{name} vCPUs"),
                    ram_gb=gb_from_size(ram_text),
                    storage_gb=gb_from_size(storage_text),
                    price=_fullmatch(_PRICE_PER_GPU_HR, price_text, f"{name} price"),
                    price_per=PricePer.GPU,
                    source_url=LEGACY_PRICING_URL,
                    observed_at=response.fetched_at,
                )
            )
    return offers


# --- lambdalabs.com/service/gpu-cloud, on-demand + reserved tables (2023) -----------------------


def _parse_2023(tree: LexborHTMLParser, observed_at: datetime) -> list[Offer]:
    offers: list[Offer] = []
    for table in tree.css("table"):
        headers = _headers(table)
        if headers == _2023_ON_DEMAND_HEADERS:
            offers.extend(_parse_2023_on_demand(table, observed_at))
        elif headers == _2023_RESERVED_HEADERS:
            offers.extend(_parse_2023_reserved(table, observed_at))
        else:
            raise SchemaDriftError(f"gpu-cloud 2023 page has an unknown table: {headers}")
    return offers


def _parse_2023_on_demand(table: LexborNode, observed_at: datetime) -> Iterator[Offer]:
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
            raise SchemaDriftError(f"on-demand row name {name!r} is not 'Nx GPU'")
        gpu_count = int(name_match["count"])
        vram = gb_from_size(vram_text)
        yield _offer(
            instance_type=_instance_name(gpu_count, name_match["gpu"], vram),
            gpu_name=_2023_gpu_name(name_match["gpu"], gpu_count, vram),
            gpu_count=gpu_count,
            vram=vram,
            vcpus=_integer(vcpus_text, f"{name} vCPUs"),
            ram_gb=gb_from_size(ram_text),
            storage_gb=gb_from_size(storage_text),
            price=_fullmatch(_PRICE_PER_HR, price_text, f"{name} price"),
            price_per=PricePer.INSTANCE,
            source_url=LEGACY_PRICING_URL,
            observed_at=observed_at,
        )


def _2023_gpu_name(gpu: str, gpu_count: int, vram: Decimal) -> str:
    """The row's GPU, or the exact part ``_2023_GPU_NAMES`` gives for "NVIDIA A100".

    Raises ``SchemaDriftError`` for an "NVIDIA A100" configuration the table does not list.
    """
    if gpu not in _2023_OPEN_NAMES:
        return gpu
    exact = _2023_GPU_NAMES.get((gpu, gpu_count, vram))
    if exact is None:
        raise SchemaDriftError(
            f"{gpu_count}x {gpu} ({vram} GB): PCIe or SXM? add it to _2023_GPU_NAMES"
        )
    return exact


def _parse_2023_reserved(table: LexborNode, observed_at: datetime) -> Iterator[Offer]:
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
            raise SchemaDriftError(f"reserved row {plan!r} {node!r} is not 'Plan' + 'Nx GPU'")
        if _GPU_RANGE.fullmatch(gpus) is None:
            raise SchemaDriftError(f"reserved row {plan!r}: GPU count {gpus!r} is not a number")
        gpu_count = int(node_match["count"])
        vram = gb_from_size(vram_text)
        yield _offer(
            instance_type=f"{plan} {_instance_name(gpu_count, node_match['gpu'], vram)}",
            gpu_name=require(gpu, f"{plan} GPU"),
            gpu_count=gpu_count,
            vram=vram,
            vcpus=_integer(vcpus_text, f"{plan} vCPUs"),
            ram_gb=None,
            storage_gb=gb_from_size(storage_text),
            price=_fullmatch(_PRICE_PER_NAMED_GPU_HOUR, price_text, f"{plan} price"),
            price_per=PricePer.GPU,
            source_url=LEGACY_PRICING_URL,
            observed_at=observed_at,
            pricing=PricingModel.RESERVED,
            term_months=_term_months(term),
        )


# --- Cloud API: GET /api/v1/instance-types -------------------------------------------------------


def _parse_api(payload: Any, observed_at: datetime, excluded: Counter[str]) -> list[Offer]:
    """One offer per region with capacity; a type with capacity nowhere keeps its list price
    as one ``global`` offer (the price is the same in every region)."""
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
) -> Offer:
    return Offer(
        provider=SLUG,
        instance_type=instance_type,
        region=region,
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


def _integer(text: str, what: str) -> Decimal:
    if _INTEGER.fullmatch(text) is None:
        raise SchemaDriftError(f"{what}: expected a whole number, found {text!r}")
    return Decimal(text)


def _fullmatch(pattern: re.Pattern[str], text: str, what: str) -> Decimal:
    match = pattern.fullmatch(text)
    if match is None:
        raise SchemaDriftError(f"{what}: {text!r} does not match {pattern.pattern!r}")
    return decimal(match["num"])


def _term_months(text: str) -> int:
    match = _TERM.fullmatch(text)
    if match is None:
        raise SchemaDriftError(f"reserved term {text!r} is not 'N-years' or 'N-months'")
    return int(match["n"]) * (12 if match["unit"].lower() == "year" else 1)


def _basic_auth(token: str) -> str:
    """HTTP Basic credentials with the API key as user name and an empty password."""
    return "Basic " + base64.b64encode(f"{token}:".encode()).decode("ascii")


PROVIDER = Provider(
    slug=SLUG,
    name="Lambda",
    homepage="https://lambda.ai",
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="Pricing page always; Cloud API instance types too when LAMBDA_API_KEY is set.",
)
