"""fal: serverless GPU list prices from the public pricing page (https://fal.ai/pricing).

Live: ``GET https://fal.ai/pricing``, no auth, no pagination: the server-rendered (Next.js) page.
How fal Serverless bills (runners billed per second while alive, multi-GPU runners
gpu_count x duration): fal's Serverless pricing docs, read as their Mintlify mirror
https://fal-d8505a2e.mintlify.app/documentation/serverless/pricing (canonical docs.fal.ai), and
the machine types at https://docs.fal.ai/documentation/deployment/machine-types; those billing
facts live in ``warehouse/seeds/serverless_platforms.csv`` (platform ``fal``).

Known layout (seen 2026-08-22): the "Serverless & Compute Pricing" section ("Deploy your own app
on our competitively priced GPU fleet, as low as $1.89/hr for H100") holds one table
``GPU | VRAM | List Price | As low as`` ("H100 | 80GB | $4.50/h | $1.89/h"); the Model APIs
tables after it price model outputs (per second of video, per image), not GPUs, and are not
read; an RSC flight copy of the GPU rows later in the page is not read either.

Rules: one serverless ``on_demand`` offer per row at its List Price, USD per GPU per hour as
printed ("/h"; billed per second); one GPU; ``instance_type`` and ``gpu_name`` "<GPU> <VRAM>",
``vram_gb_reported`` the VRAM; region "global". The "As low as" figure is a floor for custom
deployments arranged with fal ("Contact support@fal.ai to get started"), not a rate anyone can
rent at: counted per row as ``as_low_as_floor``, not emitted.

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <gpu>`` for a GPU not in
``KNOWN_GPUS``; a no-price marker under itself; ``unknown_unit <gpu>`` for a list price not per
hour; ``unparsed_price``, ``unparsed_memory``. ``SchemaDriftError`` when there is no such table
or no row yields an offer.
"""

from __future__ import annotations

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
    ensure_unique,
    gb_from_size,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "fal"
HOMEPAGE = "https://fal.ai"
PRICING_URL = "https://fal.ai/pricing"
TOKEN_ENV = None
HEADER = ("GPU", "VRAM", "List Price", "As low as")
HOURLY_SUFFIXES = ("/h", "/hr", "/hour")
# GPUs of the 2026-08-22 capture's table.
KNOWN_GPUS = frozenset({"B300", "B200", "H200", "H100", "RTX PRO 6000"})


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Serverless GPU list prices: on-demand, USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when the GPU table is gone or no row is read; a row that cannot
    be read is counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        tables = [t for t in html_body(response).css("table") if _header(t) == HEADER]
        if len(tables) != 1:
            raise SchemaDriftError(
                f"{response.url}: expected one 'GPU | VRAM | List Price | As low as' table,"
                f" found {len(tables)}"
            )
        rows = [tr for tr in tables[0].css("tr") if tr.css_first("td") is not None]
        found = offers_from_rows(rows, partial(_read_row, response, excluded=excluded), excluded)
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no GPU price read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _header(table: LexborNode) -> tuple[str, ...]:
    return tuple(node_text(th) for th in table.css("th"))


def _read_row(response: RawResponse, row: LexborNode, *, excluded: Counter[str]) -> Offer:
    cells = [node_text(td) for td in row.css("td")]
    if len(cells) != len(HEADER):
        raise SchemaDriftError(f"{response.url}: a GPU row with {len(cells)} cells: {cells}")
    gpu, memory, list_price, floor = cells
    if gpu not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu))
    marker = no_price_marker(list_price)
    if marker is not None:
        raise RowExcluded(marker)
    if not list_price.replace(" ", "").lower().endswith(HOURLY_SUFFIXES):
        raise RowExcluded(unknown_row("unit", gpu))
    try:
        price, currency = money(list_price)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    try:
        vram = gb_from_size(memory)
    except SchemaDriftError:
        raise RowExcluded("unparsed_memory") from None
    if floor:
        excluded["as_low_as_floor"] += 1
    name = f"{gpu} {memory}"
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        gpu_name=name,
        gpu_count=Decimal(1),
        vram_gb_reported=vram,
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        serverless=True,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="fal",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="serverless",
    notes="HTML pricing page; serverless GPU list prices per GPU-hour (billed per second)",
)
