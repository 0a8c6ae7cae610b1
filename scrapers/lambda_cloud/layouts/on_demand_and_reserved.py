"""``gpu-cloud 2023`` (lambdalabs.com/service/gpu-cloud, the 2023-09 capture): an on-demand
table (GPUS, VRAM PER GPU, VCPUS, RAM, STORAGE, PRICE "$1.99 / hr": USD per instance-hour,
``price_per`` instance) and a reserved-cluster table (INSTANCE TYPE, GPU, GPU MEMORY, VCPUS,
STORAGE, NETWORK BANDWIDTH, PER HOUR PRICE "$1.89/H100/hour": USD per GPU-hour, TERM, # OF
GPUS), each row one offer, region ``global``.

The on-demand table says only "NVIDIA A100" for two parts: ``_GPU_NAMES`` names each
configuration's part. Reserved clusters: the node is the instance type ("8x NVIDIA H100"), the
cluster size range ("64 - 60,000") is not an offer dimension and is only validated.

Exclusions: ``unknown_plan <name>`` (an on-demand row not "Nx GPU", a reserved row without plan
or node), ``unknown_gpu <gpu>``, ``unknown_sku <instance>`` (an "NVIDIA A100" configuration
missing from ``_GPU_NAMES``: PCIe or SXM cannot be told), ``unknown_term <term>`` (a term that
is not "N-years" / "N-months"), ``unknown_unit <name>`` (a price in another unit than the
table's), ``unparsed_price``, ``unparsed_spec`` (a VRAM, vCPU, RAM, storage or cluster-size cell
that does not parse). Drift: a table of other headers, a table without rows, a row whose cells
are not the header's columns.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from selectolax.lexbor import LexborNode

from scrapers.kit import (
    Offer,
    PricePer,
    PricingModel,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    html_body,
    require,
    unknown_row,
)
from scrapers.lambda_cloud.common import (
    COUNT_AND_GPU,
    KNOWN_GPUS,
    LEGACY_PRICING_URL,
    UNPARSED_SPEC,
    headers,
    instance_name,
    integer,
    offer,
    plan_offer,
    price,
    priced_specs,
    size,
)

ON_DEMAND_HEADERS = ("GPUS", "VRAM PER GPU", "VCPUS", "RAM", "STORAGE", "PRICE")
RESERVED_HEADERS = (
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
_PRICE_PER_HR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*hr", re.IGNORECASE)
_PRICE_PER_NAMED_GPU_HOUR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*\w+\s*/\s*hour")
_TERM = re.compile(r"(?P<n>\d+)[-\s](?P<unit>year|month)s?", re.IGNORECASE)
_GPU_RANGE = re.compile(r"[\d,]+(?:\s*-\s*[\d,]+)?")

# The on-demand table says only "NVIDIA A100" for two different parts. Lambda's own page at the
# same URL a year later (https://web.archive.org/web/20241103180910/https://lambdalabs.com/
# service/gpu-cloud, in ../shared as lambda/2024-11-03_*) lists the same configurations, with the
# same vCPUs and storage, as "NVIDIA A100 PCIe" (1x/2x/4x 40 GB: 30/60/120 vCPUs, 512 GiB/1 TiB/
# 1 TiB) and "NVIDIA A100 SXM" (8x 40 GB: 124 vCPUs, 1800 GiB RAM; 8x 80 GB: 240 vCPUs), which
# are also the API's names for them (gpu_1x_a100 "A100 (40 GB PCIe)", gpu_8x_a100 "A100 (40 GB
# SXM4)", gpu_8x_a100_80gb_sxm4). Keyed by (row GPU, GPU count, VRAM GB); the VRAM column then
# picks the memory variant. A configuration not listed here is drift, not a guess.
_GPU_NAMES: dict[tuple[str, int, Decimal], str] = {
    ("NVIDIA A100", 1, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 2, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 4, Decimal(40)): "NVIDIA A100 PCIe",
    ("NVIDIA A100", 8, Decimal(40)): "NVIDIA A100 SXM",
    ("NVIDIA A100", 8, Decimal(80)): "NVIDIA A100 SXM",
}
_OPEN_NAMES = frozenset(gpu for gpu, _, _ in _GPU_NAMES)


@dataclass(frozen=True, slots=True)
class Row:
    reserved: bool  # a row of the reserved-cluster table, else of the on-demand table
    node: LexborNode  # the row's ``<tr>``
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    return any(headers(table) == ON_DEMAND_HEADERS for table in html_body(response).css("table"))


def rows(response: RawResponse) -> list[Row]:
    found: list[Row] = []
    for table in html_body(response).css("table"):
        table_headers = headers(table)
        if table_headers not in (ON_DEMAND_HEADERS, RESERVED_HEADERS):
            raise SchemaDriftError(f"gpu-cloud 2023 page has an unknown table: {table_headers}")
        reserved = table_headers == RESERVED_HEADERS
        kind = "reserved" if reserved else "on-demand"
        nodes = require(table.css("tbody tr"), f"rows of the {kind} table")
        found.extend(Row(reserved, node, response.fetched_at) for node in nodes)
    return found


def read_row(row: Row, excluded: Counter[str]) -> Offer | None:
    """One row of either table; None for a price ``common.price`` counted itself."""
    if row.reserved:
        return _read_reserved(row, excluded)
    return _read_on_demand(row, excluded)


def _read_on_demand(row: Row, excluded: Counter[str]) -> Offer | None:
    cells = row.node.css("td")
    if len(cells) != len(ON_DEMAND_HEADERS):
        raise SchemaDriftError(f"on-demand row has {len(cells)} cells: {row.node.text()[:80]!r}")
    for tag in cells[0].css(".tag"):
        tag.decompose()  # "New" badges are not part of the GPU name
    name, vram_text, vcpus_text, ram_text, storage_text, price_text = (
        cell.text(strip=True) for cell in cells
    )
    name_match = COUNT_AND_GPU.fullmatch(name)
    if name_match is None:
        raise RowExcluded(unknown_row("plan", name))
    gpu = name_match["gpu"]
    if gpu not in KNOWN_GPUS and gpu not in _OPEN_NAMES:
        raise RowExcluded(unknown_row("gpu", gpu))
    spec_cells = (vram_text, vcpus_text, ram_text, storage_text)
    priced = priced_specs(_PRICE_PER_HR, price_text, spec_cells, name, excluded, unit_in_cell=True)
    if priced is None:
        return None
    amount, row_specs = priced
    gpu_count = int(name_match["count"])
    gpu_name = _gpu_name(gpu, gpu_count, row_specs[0])
    if gpu_name is None:
        raise RowExcluded(unknown_row("sku", instance_name(gpu_count, gpu, row_specs[0])))
    return plan_offer(
        gpu=gpu,
        gpu_name=gpu_name,
        gpu_count=gpu_count,
        row_specs=row_specs,
        price=amount,
        price_per=PricePer.INSTANCE,
        source_url=LEGACY_PRICING_URL,
        observed_at=row.observed_at,
    )


def _gpu_name(gpu: str, gpu_count: int, vram: Decimal) -> str | None:
    """The row's GPU, or the exact part ``_GPU_NAMES`` gives for "NVIDIA A100"; None for an
    "NVIDIA A100" configuration the table does not list (PCIe or SXM is then unknown)."""
    if gpu not in _OPEN_NAMES:
        return gpu
    return _GPU_NAMES.get((gpu, gpu_count, vram))


def _read_reserved(row: Row, excluded: Counter[str]) -> Offer | None:
    """A reserved cluster: priced per GPU-hour ("$1.89/H100/hour") for a term."""
    cells = [cell.text(strip=True) for cell in row.node.css("td")]
    if len(cells) != len(RESERVED_HEADERS):
        raise SchemaDriftError(f"reserved row has {len(cells)} cells: {cells}")
    plan, node, gpu, vram_text, vcpus_text, storage_text, _, price_text, term, gpus = cells
    node_match = COUNT_AND_GPU.fullmatch(node)
    if not plan or node_match is None:
        raise RowExcluded(unknown_row("plan", f"{plan} {node}".strip()))
    if gpu not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu))
    term_months = _term_months(term)
    if term_months is None:
        raise RowExcluded(unknown_row("term", term))
    amount = price(_PRICE_PER_NAMED_GPU_HOUR, price_text, plan, excluded, unit_in_cell=True)
    vram = size(vram_text)
    vcpus = integer(vcpus_text)
    storage_gb = size(storage_text)
    if amount is None:
        return None
    if vram is None or vcpus is None or storage_gb is None or not _GPU_RANGE.fullmatch(gpus):
        raise RowExcluded(UNPARSED_SPEC)
    gpu_count = int(node_match["count"])
    return offer(
        instance_type=f"{plan} {instance_name(gpu_count, node_match['gpu'], vram)}",
        gpu_name=gpu,
        gpu_count=gpu_count,
        vram=vram,
        vcpus=vcpus,
        ram_gb=None,
        storage_gb=storage_gb,
        price=amount,
        price_per=PricePer.GPU,
        source_url=LEGACY_PRICING_URL,
        observed_at=row.observed_at,
        pricing=PricingModel.RESERVED,
        term_months=term_months,
    )


def _term_months(text: str) -> int | None:
    match = _TERM.fullmatch(text)
    if match is None:
        return None
    return int(match["n"]) * (12 if match["unit"].lower() == "year" else 1)
