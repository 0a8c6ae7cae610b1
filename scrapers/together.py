"""Together AI: GPU Cluster prices, on demand and reserved, from the public pricing page.

Live: ``GET https://www.together.ai/pricing``, no auth, no pagination. (Together's cluster API,
``https://manager.cloud.together.ai/api/v1/gpu_clusters``, lists an account's clusters and
takes a bearer key; it publishes no prices: https://docs.together.ai/api-reference/gpuclusterservice/list-all-gpu-clusters.)
The 2026-08-22 capture is the page's span from the Dedicated Inference section through the GPU
Clusters section.

Tables (``<table>``, read with selectolax):

- ``id="dedicated-inference"``: Dedicated Inference, a managed single-model endpoint product
  (its per-GPU-hour prices are curated as the ``together-dedicated`` serverless platform from
  Together's docs, ``warehouse/seeds/serverless_tiers.csv``), not a GPU rental: each row is
  counted as ``dedicated_inference``;
- a table inside an element of class ``hide`` (a hidden on-demand-only copy of the cluster
  table): each row counted as ``hidden_table_row``;
- the visible GPU Clusters table, "On-demand hourly rates and reserved capacity", "All prices
  are per GPU per hour": header rows "Hardware | ON-Demand | Reserved" and "Pay as you go |
  7-30 days | 31-90 days | 91-180 days | 181+ days", then one row per GPU ("NVIDIA HGX H100",
  "$3.99", "$3.69", ...).

Offers, per GPU row of the cluster table: the on-demand price, and each reserved band as a
``reserved`` offer whose ``reserved_term_months`` is the band's shortest commitment in whole
30-day months (31-90 days -> 1, 91-180 -> 3, 181+ -> 6). USD per GPU-hour (``price_per`` gpu);
``gpu_count`` 8, one HGX node (the cluster API's own example creates ``num_gpus=8``,
https://docs.together.ai/reference/clusters-create); region ``global`` (the page names none).

Rules (``offers_from_rows`` per row; prices within a row counted directly):

- a GPU name not in ``KNOWN_GPUS`` -> ``unknown_gpu <name>``;
- a price cell that is a no-price marker ("Contact us") or a dash ("—") -> counted under the
  marker / ``no_price``;
- a reserved band shorter than a month (7-30 days) -> ``reserved_under_a_month``;
- a price cell that holds no dollar amount -> ``unparsed_price``.

``SchemaDriftError``: no visible table with the cluster header, a header band that is not
"<n>-<m> days" / "<n>+ days", no offer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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
    ensure_unique,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "together"
HOMEPAGE = "https://www.together.ai"
PRICING_URL = "https://www.together.ai/pricing"
TOKEN_ENV = None
DEDICATED_INFERENCE_ID = "dedicated-inference"
HIDDEN_CLASS = "hide"
ON_DEMAND_HEADER = "on-demand"
GPUS_PER_NODE = Decimal(8)  # an HGX node
DAYS_PER_MONTH = 30
DASHES = frozenset({"—", "–", "-"})
# GPU names as the cluster table spells them (warehouse/seeds/gpu_aliases.csv resolves them); a
# new one is ``unknown_gpu <name>``.
KNOWN_GPUS = frozenset(
    {
        "NVIDIA GB200 NVL72",
        "NVIDIA GB300 NVL72",
        "NVIDIA HGX B200",
        "NVIDIA HGX B300",
        "NVIDIA HGX H100",
        "NVIDIA HGX H200",
    }
)
_BAND = re.compile(r"^(?P<low>\d+)\s*(?:-\s*(?P<high>\d+)|\+)\s*days$", re.IGNORECASE)


@dataclass(frozen=True)
class _Row:
    cells: list[str]
    bands: list[int]  # the shortest commitment of each reserved column, days


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """GPU Cluster offers: on demand and reserved, USD per GPU-hour. Raises
    ``SchemaDriftError`` as the module docstring says."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        rows = list(_cluster_rows(response, excluded))
        read = partial(_read_row, response=response, excluded=excluded)
        offers.extend(offers_from_rows(rows, read, excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"Together: no GPU Cluster price (excluded: {reasons})")
    return ensure_unique(offers), excluded


def _hidden(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if HIDDEN_CLASS in (parent.attributes.get("class") or "").split():
            return True
        parent = parent.parent
    return False


def _cluster_rows(response: RawResponse, excluded: Counter[str]) -> Iterator[_Row]:
    found = False
    for table in html_body(response).css("table"):
        body_rows = [r for r in table.css("tr") if r.css_first("td") is not None]
        if table.attributes.get("id") == DEDICATED_INFERENCE_ID:
            excluded["dedicated_inference"] += len(body_rows)
            continue
        if _hidden(table):
            excluded["hidden_table_row"] += len(body_rows)
            continue
        headers = [
            [node_text(c) for c in r.css("th")] for r in table.css("tr") if r.css_first("th")
        ]
        if len(headers) != 2 or ON_DEMAND_HEADER not in " ".join(headers[0]).lower():
            continue
        bands = [_band_days(text, response) for text in headers[1][1:]]
        found = True
        for row in body_rows:
            yield _Row([node_text(c) for c in row.css("td")], bands)
    if not found:
        raise SchemaDriftError(f"{response.url}: no visible GPU Clusters table (on-demand + bands)")


def _band_days(text: str, response: RawResponse) -> int:
    match = _BAND.match(text)
    if match is None:
        raise SchemaDriftError(f"{response.url}: reserved column {text!r} is not a day band")
    return int(match["low"])


def _read_row(row: _Row, response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    name, prices = row.cells[0], row.cells[1:]
    if name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", name))
    offers: list[Offer] = []
    terms: list[int | None] = [None, *row.bands]
    for index, text in enumerate(prices):
        term_days = terms[index] if index < len(terms) else None
        if (price := _price(text, excluded)) is None:
            continue
        if term_days is not None and term_days // DAYS_PER_MONTH == 0:
            excluded["reserved_under_a_month"] += 1
            continue
        offers.append(_offer(name, price, term_days, response))
    return offers


def _price(text: str, excluded: Counter[str]) -> Decimal | None:
    marker = no_price_marker(text)
    if marker is not None:
        excluded[marker] += 1
        return None
    if text.strip() in DASHES:
        excluded["no_price"] += 1
        return None
    try:
        amount, currency = money(text)
    except SchemaDriftError:
        excluded["unparsed_price"] += 1
        return None
    if currency != "USD":
        excluded["unparsed_price"] += 1
        return None
    return amount


def _offer(name: str, price: Decimal, term_days: int | None, response: RawResponse) -> Offer:
    reserved = term_days is not None
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        gpu_name=name,
        gpu_count=GPUS_PER_NODE,
        pricing=PricingModel.RESERVED if reserved else PricingModel.ON_DEMAND,
        reserved_term_months=term_days // DAYS_PER_MONTH if term_days is not None else None,
        price=price,
        currency="USD",
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Together AI",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page: GPU Clusters, on demand and reserved by commitment band; USD per"
    " GPU-hour (Dedicated Inference is curated as a serverless platform, not read)",
)
