"""``lambda.ai tabs`` (lambda.ai/pricing, the 2026-01 capture and live): one tab panel per GPU
count (8x/4x/2x/1x), each a table with columns VRAM/GPU, vCPUs, RAM, STORAGE, PRICE/GPU/HR, one
row per plan (``th[data-label="Plan"]``, the GPU). Every panel present is read; a panel the page
does not ship (the 2026-01 capture holds only 8x) yields no offers. Prices are USD per GPU-hour
(``price_per`` gpu), region ``global``.

Exclusions: ``unknown_gpu <plan>`` (a plan not in ``KNOWN_GPUS``), ``unknown_tab <label>`` (a
tab panel whose tab is not a GPU count like "8x": one per row of the panel, at least one), a
no-price marker (``parsing.NO_PRICE_MARKERS``, e.g. "CONTACT SALES") counted under that marker,
``unpriced_cell`` (a price cell that is empty or only a dash: the live 4x/2x/1x panels list some
plans without a price), ``unparsed_price``, ``unparsed_spec``. Drift: a panel without its tab
label or table, changed headers, a row whose cells are not the header's columns.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from selectolax.lexbor import LexborNode

from scrapers.kit import (
    Offer,
    PricePer,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    html_body,
    no_price_marker,
    require,
    unknown_row,
)
from scrapers.lambda_cloud.common import (
    KNOWN_GPUS,
    PRICE_BARE,
    PRICING_URL,
    headers,
    norm,
    plan_offer,
    priced_specs,
)

HEADERS = ("", "VRAM/GPU", "VCPUS", "RAM", "STORAGE", "PRICE/GPU/HR")
# Price cells that mean "no price listed" (the unpriced_cell rule).
_UNPRICED_CELLS = frozenset({"", "-", "\u2013", "\u2014"})
_COUNT_LABEL = re.compile(r"(?P<count>\d+)x")


@dataclass(frozen=True, slots=True)
class Row:
    label: str  # the panel's tab, e.g. "8x"
    gpu_count: int | None  # None: the tab is not a GPU count
    node: LexborNode | None  # the plan's ``<tr>`` (None for a row of an unknown tab)
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    return html_body(response).css_first('[role="tabpanel"]') is not None


def rows(response: RawResponse) -> list[Row]:
    tree = html_body(response)
    tab_labels = {
        tab.attributes.get("id"): tab.text(strip=True) for tab in tree.css('[role="tab"]')
    }
    found: list[Row] = []
    for panel in tree.css('[role="tabpanel"]'):
        label = require(
            tab_labels.get(panel.attributes.get("aria-labelledby")),
            f"tab label of panel {panel.attributes.get('id')!r}",
        )
        count_match = _COUNT_LABEL.fullmatch(label)
        if count_match is None:
            # A tab that is not a GPU count ("Clusters"?): its rows are of a kind not known here.
            unknown = max(1, len(panel.css("tbody tr")))
            found.extend(Row(label, None, None, response.fetched_at) for _ in range(unknown))
            continue
        gpu_count = int(count_match["count"])
        table = require(panel.css_first("table"), f"pricing table in the {label} panel")
        if headers(table) != HEADERS:
            raise SchemaDriftError(f"{label} panel headers changed: {headers(table)}")
        plans = require(table.css("tbody tr"), f"rows in the {label} panel")
        found.extend(Row(label, gpu_count, node, response.fetched_at) for node in plans)
    return found


def read_row(row: Row, excluded: Counter[str]) -> Offer | None:
    """One GPU plan row of a GPU-count tab; None for a price ``common.price`` counted itself."""
    if row.gpu_count is None or row.node is None:
        raise RowExcluded(unknown_row("tab", row.label))
    plan = require(row.node.css_first('th[data-label="Plan"]'), "Plan cell").text(strip=True)
    cells = {
        norm(td.attributes.get("data-label") or ""): td.text(strip=True)
        for td in row.node.css("td")
    }
    if tuple(cells) != HEADERS[1:]:
        raise SchemaDriftError(f"{plan!r} row cells changed: {list(cells)}")
    if plan not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", plan))
    price_text = cells["PRICE/GPU/HR"]
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if " ".join(price_text.split()) in _UNPRICED_CELLS:
        raise RowExcluded("unpriced_cell")
    spec_cells = (cells["VRAM/GPU"], cells["VCPUS"], cells["RAM"], cells["STORAGE"])
    priced = priced_specs(PRICE_BARE, price_text, spec_cells, plan, excluded, unit_in_cell=False)
    if priced is None:
        return None
    amount, row_specs = priced
    return plan_offer(
        gpu=plan,
        gpu_count=row.gpu_count,
        row_specs=row_specs,
        price=amount,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=row.observed_at,
    )
