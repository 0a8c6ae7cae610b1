"""``gpu-cloud flat table`` (lambdalabs.com/service/gpu-cloud, the 2024-11 capture): one table
whose rows are named "On-demand 8x NVIDIA H100 SXM" / "Reserved ..."; columns (the header row
is cut from the capture) name, VRAM/GPU, vCPUs, RAM, STORAGE, PRICE/GPU/HR, the price reading
"$2.99 / GPU / hr" (USD per GPU-hour, ``price_per`` gpu), region ``global``.

Rows are read with ``html_tables``: the capture starts inside the table, and a tree builder
would drop its ``<tr>``/``<td>``; each cell's format is checked.

Exclusions: ``unknown_plan <name>`` (a name not "On-demand|Reserved Nx GPU"), ``unknown_gpu
<gpu>``, a no-price marker counted under that marker (the capture's "CONTACT SALES" row),
``reserved_without_term`` (a priced "Reserved ..." row: a reserved offer needs a term in months
and this table states none), ``unknown_unit <name>`` (a price not per GPU-hour),
``unparsed_price``, ``unparsed_spec``. Drift: a row that is not six cells.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from scrapers.kit import (
    Offer,
    PricePer,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    html_body,
    html_tables,
    no_price_marker,
    unknown_row,
)
from scrapers.lambda_cloud.common import (
    KNOWN_GPUS,
    LEGACY_PRICING_URL,
    RESERVED_WITHOUT_TERM,
    plan_offer,
    priced_specs,
)

PRICE_HEADER = "PRICE/GPU/HR"
_ROW_NAME = re.compile(r"(?P<kind>On-demand|Reserved)\s+(?P<count>\d+)x\s+(?P<gpu>\S.*)")
_PRICE_PER_GPU_HR = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)\s*/\s*GPU\s*/\s*hr", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Row:
    cells: list[str]
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    tree = html_body(response)
    return PRICE_HEADER in (tree.body.text() if tree.body else "").upper()


def rows(response: RawResponse) -> list[Row]:
    return [
        Row(cells, response.fetched_at)
        for table in html_tables(response)
        for cells in ([cell.text for cell in row] for row in table)
        if not any(PRICE_HEADER in cell.upper() for cell in cells)  # the header row
    ]


def read_row(row: Row, excluded: Counter[str]) -> Offer | None:
    """One plan row; None for a price ``common.price`` counted itself."""
    cells = row.cells
    if len(cells) != 6:
        raise SchemaDriftError(f"gpu-cloud row has {len(cells)} cells, expected 6: {cells}")
    name, vram_text, vcpus_text, ram_text, storage_text, price_text = cells
    name_match = _ROW_NAME.fullmatch(name)
    if name_match is None:
        raise RowExcluded(unknown_row("plan", name))
    gpu = name_match["gpu"]
    if gpu not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu))
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if name_match["kind"] != "On-demand":
        raise RowExcluded(RESERVED_WITHOUT_TERM)
    spec_cells = (vram_text, vcpus_text, ram_text, storage_text)
    priced = priced_specs(
        _PRICE_PER_GPU_HR, price_text, spec_cells, name, excluded, unit_in_cell=True
    )
    if priced is None:
        return None
    amount, row_specs = priced
    return plan_offer(
        gpu=gpu,
        gpu_count=int(name_match["count"]),
        row_specs=row_specs,
        price=amount,
        price_per=PricePer.GPU,
        source_url=LEGACY_PRICING_URL,
        observed_at=row.observed_at,
    )
