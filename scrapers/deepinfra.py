"""DeepInfra: dedicated GPU-hour prices for custom LLM deployments, from the public pricing page.

Live: ``GET https://deepinfra.com/pricing``, no auth, no pagination: the server-rendered (MUI)
pricing page. How a deployment is billed: https://www.deepinfra.com/docs/advanced/custom_llms
("you get full access to the GPUs and pay per GPU/hours your model is up"; a deployment names
its GPU type and ``num_gpus``, and scales between ``min_instances`` and ``max_instances``).

Known layout (seen 2026-08-22): the "Custom LLMs" section says "You can deploy your own model on
our hardware and pay for uptime. You get dedicated SXM-connected GPUs (for multi-GPU setups),
automatic scaling ..." and lists "Billed in minute granularity"; below it one table
``GPU | Memory | Price`` ("A100 | 80GB | $0.89 / GPU-hour"). The page's other tables (service
tiers, usage tiers, per-token model prices) are not GPU rentals and are not read.

Rules: one offer per row: serverless (a managed deployment that scales with load and is billed
while up), ``on_demand``, USD per GPU per hour as printed (billing is per minute at that rate),
one GPU (a deployment may use several, each at this rate); ``instance_type`` "<GPU> <Memory>",
``gpu_name`` the same, ``vram_gb_reported`` the memory, ``gpu_form_factor`` SXM where the
section says the GPUs are SXM-connected; region "global".

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <gpu>`` for a GPU not in
``KNOWN_GPUS``; a no-price marker under itself; ``unknown_unit <gpu>`` for a price not
"/ GPU-hour"; ``unparsed_price``, ``unparsed_memory``. ``SchemaDriftError`` when there is no
``GPU | Memory | Price`` table, or no row yields an offer.
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

PROVIDER_SLUG = "deepinfra"
HOMEPAGE = "https://deepinfra.com"
PRICING_URL = "https://deepinfra.com/pricing"
TOKEN_ENV = None
HEADER = ("GPU", "Memory", "Price")
UNIT_TEXT = "/gpu-hour"
SXM_TEXT = "SXM-connected"
# GPUs of the 2026-08-22 capture's Custom LLMs table.
KNOWN_GPUS = frozenset({"A100", "H100", "H200", "B200", "B300"})


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Dedicated custom-LLM GPU prices: serverless, on-demand, USD per GPU per hour.

    Raises ``SchemaDriftError`` when the GPU table is gone or no row is read; a row that cannot
    be read is counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        tree = html_body(response)
        tables = [t for t in tree.css("table") if _header(t) == HEADER]
        if len(tables) != 1:
            raise SchemaDriftError(
                f"{response.url}: expected one 'GPU | Memory | Price' table, found {len(tables)}"
            )
        sxm = tree.body is not None and SXM_TEXT in node_text(tree.body)
        read = partial(_read_row, response, sxm=sxm)
        found = offers_from_rows(tables[0].css("tbody tr"), read, excluded)
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no GPU price read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _header(table: LexborNode) -> tuple[str, ...]:
    return tuple(node_text(th) for th in table.css("thead th"))


def _read_row(response: RawResponse, row: LexborNode, *, sxm: bool) -> Offer:
    cells = [node_text(td) for td in row.css("td")]
    if len(cells) != len(HEADER):
        raise SchemaDriftError(f"{response.url}: a GPU row with {len(cells)} cells: {cells}")
    gpu, memory, price_text = cells
    if gpu not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu))
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if UNIT_TEXT not in price_text.lower().replace(" ", ""):
        raise RowExcluded(unknown_row("unit", gpu))
    try:
        price, currency = money(price_text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    try:
        vram = gb_from_size(memory)
    except SchemaDriftError:
        raise RowExcluded("unparsed_memory") from None
    name = f"{gpu} {memory}"
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        gpu_name=name,
        gpu_count=Decimal(1),
        vram_gb_reported=vram,
        gpu_form_factor="SXM" if sxm else None,
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
    name="DeepInfra",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="serverless",
    notes="HTML pricing page; dedicated custom-LLM GPUs per GPU-hour, billed per minute",
)
