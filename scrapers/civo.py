"""Civo: NVIDIA GPU instance prices from the public pricing page (https://www.civo.com/pricing).

Live: ``GET https://www.civo.com/pricing``, no auth, no pagination: one server-rendered HTML page
holding every product's tables (the 2026-08-22 capture is its NVIDIA GPUs section).

Known layout (seen 2026-08-22): ``section#nvidia-gpus`` holds one ``table.pricing-table`` per GPU
model, its ``<caption>`` naming the model ("NVIDIA H100 SXM GPU pricing"). Each body row is one
size: a "Size" cell ("Small" plus a ``div.product-detail`` "1 x NVIDIA L40S - 48GB"), "RAM",
"vCPU", "Storage", "Data Transfer" ("FREE"), an "On-demand price" cell and a "Commitment price"
cell. Each price cell holds an hourly (``data-option="hourly"``, "$1.29 per hour") and a
monthly (``data-option="monthly"``) figure; the commitment cell holds one such pair per term in
a ``div`` whose id is the term ("6_months" ... "36_months"). The toggle above the tables
switches hourly/monthly and the term; the page prints every figure, so all are read.

Rules:

- one ``on_demand`` offer per row from the on-demand hourly figure, and one ``reserved`` offer per
  commitment term (``reserved_term_months`` from the term's id) from its hourly figure; the
  monthly figures are the hourly ones x 730 and are not read;
- prices are USD per instance per hour: a row is one instance of the detail's GPU count
  ("8 x NVIDIA H100 - 80GB" at $23.92 is 8 x $2.99);
- ``instance_type`` is the detail line; ``gpu_name`` the caption's model ("NVIDIA H100 SXM",
  "NVIDIA A100 40GB": the page states SXM only for H100 and H200); ``vram_gb_reported`` the
  detail's GB; region "global" (the page names none);
- a price that is exactly a no-price marker ("N/A": B200 on demand and for 6 months) is
  counted under it (``n/a``), the row's other prices kept.

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <caption>`` for each row of a
table whose model is not in ``KNOWN_GPUS``; ``unparsed_row`` for a row without a detail line
of the form "<n> x <GPU> - <n>GB"; ``unparsed_price`` for a figure that is neither a price nor a
marker. ``SchemaDriftError`` when the section or its tables are gone, a table has no caption, or
no offer is read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
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
    first_number,
    gb_from_size,
    html_body,
    node_text,
    offers_from_rows,
    unknown_row,
    usd_or_excluded,
)

PROVIDER_SLUG = "civo"
HOMEPAGE = "https://www.civo.com"
PRICING_URL = "https://www.civo.com/pricing"
TOKEN_ENV = None
SECTION_SELECTOR = "section#nvidia-gpus"
CAPTION_SUFFIX = " GPU pricing"
# Table captions (without " GPU pricing") of the 2026-08-22 capture.
KNOWN_GPUS = frozenset(
    {
        "NVIDIA L40S 48GB",
        "NVIDIA A100 40GB",
        "NVIDIA A100 80GB",
        "NVIDIA H100 SXM",
        "NVIDIA H200 SXM",
        "NVIDIA B200",
    }
)
_DETAIL = re.compile(r"^(?P<count>\d+)\s*x\s*(?P<gpu>.+?)\s*-\s*(?P<vram>\d+)\s*GB\b", re.I)
HOURLY = "hourly"
_TERM = re.compile(r"^(?P<months>\d+)_months$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand and committed-term offers: USD per instance per hour, region "global".

    Raises ``SchemaDriftError`` when the GPU section or its tables are gone or nothing is read;
    a row or price that cannot be read is counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        found = offers_from_rows(
            _rows(response), partial(_read_row, response, excluded=excluded), excluded
        )
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no GPU price read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _rows(response: RawResponse) -> Iterator[tuple[str, LexborNode]]:
    section = html_body(response).css_first(SECTION_SELECTOR)
    if section is None:
        raise SchemaDriftError(f"{response.url}: no '{SECTION_SELECTOR}' (the GPU section moved)")
    tables = section.css("table")
    if not tables:
        raise SchemaDriftError(f"{response.url}: no table in the GPU section")
    for table in tables:
        caption = table.css_first("caption")
        if caption is None:
            raise SchemaDriftError(f"{response.url}: a GPU table without a caption")
        model = node_text(caption).removesuffix(CAPTION_SUFFIX).strip()
        for row in table.css("tbody tr"):
            yield model, row


def _cell(row: LexborNode, title: str) -> LexborNode | None:
    return row.css_first(f'td[data-title="{title}"]')


def _read_row(
    response: RawResponse, item: tuple[str, LexborNode], *, excluded: Counter[str]
) -> list[Offer]:
    model, row = item
    if model not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", model))
    detail = row.css_first("div.product-detail")
    match = _DETAIL.match(node_text(detail)) if detail is not None else None
    if match is None or detail is None:
        raise RowExcluded("unparsed_row")
    specs = {
        "vcpus": _number(row, "vCPU"),
        "ram_gb": _size(row, "RAM"),
        "storage_gb": _size(row, "Storage"),
    }
    common = {
        "provider": PROVIDER_SLUG,
        "instance_type": node_text(detail),
        "gpu_name": model,
        "gpu_count": Decimal(match["count"]),
        "vram_gb_reported": Decimal(match["vram"]),
        "currency": "USD",
        "price_unit": PriceUnit.HOUR,
        "price_per": PricePer.INSTANCE,
        "source_url": response.url,
        "observed_at": response.fetched_at,
        **specs,
    }
    offers: list[Offer] = []
    on_demand = _cell(row, "On-demand price")
    commitment = _cell(row, "Commitment price")
    if on_demand is None or commitment is None:
        raise RowExcluded("unparsed_row")
    price = _hourly(on_demand, excluded)
    if price is not None:
        offers.append(Offer(**common, pricing=PricingModel.ON_DEMAND, price=price))
    terms = [(m, div) for div in commitment.css("div[id]") if (m := _TERM.match(div.id or ""))]
    if not terms:
        raise RowExcluded("unparsed_row")
    for term, div in terms:
        price = _hourly(div, excluded)
        if price is not None:
            offers.append(
                Offer(
                    **common,
                    pricing=PricingModel.RESERVED,
                    reserved_term_months=int(term["months"]),
                    price=price,
                )
            )
    return offers


def _hourly(node: LexborNode, excluded: Counter[str]) -> Decimal | None:
    """The hourly figure directly under ``node``; None (counted) for a marker or an unreadable
    figure."""
    figures = [
        c for c in node.iter() if c.tag == "div" and c.attributes.get("data-option") == HOURLY
    ]
    figure = figures[0] if len(figures) == 1 else None
    if figure is None:
        excluded["unparsed_price"] += 1
        return None
    text = " ".join((figure.text(deep=False) or "").split())
    return usd_or_excluded(text, excluded)


def _number(row: LexborNode, title: str) -> Decimal | None:
    cell = _cell(row, title)
    try:
        return first_number(node_text(cell)) if cell is not None else None
    except SchemaDriftError:
        return None


def _size(row: LexborNode, title: str) -> Decimal | None:
    cell = _cell(row, title)
    try:
        return gb_from_size(node_text(cell)) if cell is not None else None
    except SchemaDriftError:
        return None


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Civo",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; NVIDIA GPU tables, on-demand and 6-36 month commitment prices",
)
