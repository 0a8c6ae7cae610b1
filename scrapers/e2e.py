"""E2E Networks: NVIDIA GPU prices in USD from the public pricing page.

Live: ``GET https://www.e2enetworks.com/pricing?region=us``, no auth, no pagination: the
server-rendered pricing page in its USD variant (the page without ``region=us`` prices in INR).

Known layout (seen 2026-08-22): ``section#gpu-pricing`` ("NVIDIA GPU") holds a row of GPU-count
buttons ("1x", "2x", "4x", "8x"; the selected one is styled apart from the others) and one table
with the header ``Item | vRAM | vCPUs | RAM, GB | Hourly/On-Demand | Monthly | Annually``; the
section's footnote says "Prices are per GPU-hour and do not include taxes."

Rules:

- one row per GPU model and memory size ("NVIDIA A100" is listed with 80 and 40 GB):
  ``instance_type`` and ``gpu_name`` "<Item> <vRAM>GB"; ``gpu_count`` the selected button's count
  (the vCPU and RAM columns are those of that configuration); region "global" (the page names
  no data centre);
- Hourly/On-Demand -> an ``on_demand`` offer, USD per GPU per hour (the footnote);
- Monthly -> a ``reserved`` offer with a 1-month term, USD per GPU per month: it is below 730 x
  the hourly rate (H100: $2,363.01 against $3.77 x 730 = $2,752.10), so a committed plan, as E2E
  describes its committed plans ("Fixed price for a reserved period (e.g. 30 days)",
  https://docs.e2enetworks.com/docs/tir/Inference/ModelEndpoints/Pricing.md);
- Annually is a 12-month plan priced per year, a unit the records do not carry: counted as
  ``annual_price`` per row, not emitted;
- prices exclude taxes (the footnote) and are emitted as printed.

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <item>`` for a model not in
``KNOWN_GPUS``; a price that is exactly a no-price marker is counted under it;
``unparsed_price`` for a cell that is neither; ``unparsed_row`` for a row without a numeric vRAM.
``SchemaDriftError`` when the section, its table, the expected header, the per-GPU-hour footnote
or the selected GPU count is gone, or no offer is read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial

import httpx
from selectolax.lexbor import LexborNode

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
    html_body,
    node_text,
    offers_from_rows,
    unknown_row,
    usd_or_excluded,
)

PROVIDER_SLUG = "e2e"
HOMEPAGE = "https://www.e2enetworks.com"
PRICING_URL = "https://www.e2enetworks.com/pricing?region=us"
TOKEN_ENV = None
SECTION_SELECTOR = "section#gpu-pricing"
HEADER = ("Item", "vRAM", "vCPUs", "RAM, GB", "Hourly/On-Demand", "Monthly", "Annually")
PER_GPU_NOTE = "per GPU-hour"
# Items of the 2026-08-22 capture (the model column as printed).
KNOWN_GPUS = frozenset(
    {
        "NVIDIA B200",
        "NVIDIA H200",
        "NVIDIA H100",
        "NVIDIA RTX PRO 6000",
        "NVIDIA A100",
        "NVIDIA A40",
        "NVIDIA L40S",
        "NVIDIA A30",
        "NVIDIA L4",
    }
)
MONTHLY_TERM_MONTHS = 1
_COUNT_BUTTON = re.compile(r"^(?P<count>\d+)\s*x$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the USD pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand (per GPU-hour) and 1-month (per GPU-month) offers in USD, region "global".

    Raises ``SchemaDriftError`` when the layout is gone (see the module docstring); a row or
    price that cannot be read is counted.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        section = html_body(response).css_first(SECTION_SELECTOR)
        if section is None:
            raise SchemaDriftError(f"{response.url}: no '{SECTION_SELECTOR}' (the GPU table moved)")
        if PER_GPU_NOTE not in node_text(section):
            raise SchemaDriftError(f"{response.url}: the GPU table no longer says '{PER_GPU_NOTE}'")
        table = section.css_first("table")
        if table is None:
            raise SchemaDriftError(f"{response.url}: no table in the GPU section")
        header = tuple(node_text(th) for th in table.css("thead th"))
        if header != HEADER:
            raise SchemaDriftError(f"{response.url}: GPU table header {header} != {HEADER}")
        read = partial(
            _read_row, response, gpu_count=_selected_count(response, section), excluded=excluded
        )
        found = offers_from_rows(table.css("tbody tr"), read, excluded)
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no GPU price read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _selected_count(response: RawResponse, section: LexborNode) -> int:
    """The count of the GPU-count button styled apart from the others (the one selected)."""
    buttons = [
        (int(m["count"]), b.attributes.get("class") or "")
        for b in section.css("button")
        if (m := _COUNT_BUTTON.match(node_text(b)))
    ]
    classes = Counter(cls for _, cls in buttons)
    selected = [count for count, cls in buttons if classes[cls] == 1]
    if len(buttons) < 2 or len(selected) != 1:
        raise SchemaDriftError(f"{response.url}: cannot tell which GPU count the table shows")
    return selected[0]


def _read_row(
    response: RawResponse, row: LexborNode, *, gpu_count: int, excluded: Counter[str]
) -> list[Offer]:
    cells = [node_text(td) for td in row.css("td")]
    if len(cells) != len(HEADER):
        raise SchemaDriftError(f"{response.url}: a GPU row with {len(cells)} cells: {cells}")
    item, vram, vcpus, ram, hourly, monthly, annually = cells
    if item not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", item))
    try:
        vram_gb = decimal(vram)
    except SchemaDriftError:
        raise RowExcluded("unparsed_row") from None
    name = f"{item} {vram}GB"
    common = {
        "provider": PROVIDER_SLUG,
        "instance_type": name,
        "gpu_name": name,
        "gpu_count": Decimal(gpu_count),
        "vram_gb_reported": vram_gb,
        "vcpus": _number(vcpus),
        "ram_gb": _number(ram),
        "currency": "USD",
        "price_per": PricePer.GPU,
        "source_url": response.url,
        "observed_at": response.fetched_at,
    }
    offers: list[Offer] = []
    price = _price(hourly, excluded)
    if price is not None:
        offers.append(
            Offer(**common, pricing=PricingModel.ON_DEMAND, price=price, price_unit=PriceUnit.HOUR)
        )
    price = _price(monthly, excluded)
    if price is not None:
        offers.append(
            Offer(
                **common,
                pricing=PricingModel.RESERVED,
                reserved_term_months=MONTHLY_TERM_MONTHS,
                price=price,
                price_unit=PriceUnit.MONTH,
            )
        )
    if annually:
        excluded["annual_price"] += 1
    return offers


def _price(text: str, excluded: Counter[str]) -> Decimal | None:
    return usd_or_excluded(text, excluded)


def _number(text: str) -> Decimal | None:
    try:
        return decimal(text)
    except SchemaDriftError:
        return None


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="E2E Networks",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page (USD); NVIDIA GPU table, per GPU-hour and per GPU-month",
)
