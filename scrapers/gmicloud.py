"""GMI Cloud: NVIDIA GPU starting prices from the public pricing page.

Live: ``GET https://www.gmicloud.ai/en/pricing``, no auth, no pagination: a server-rendered
(Next.js) page; its canonical link is that URL.

Known layout (seen 2026-08-22): under "Production-Ready GPUs Today" one card per GPU, each a
``div`` holding a badge ``div`` ("AVAILABLE NOW", "Limited Availability"), an ``<h3>`` naming the
GPU ("NVIDIA H100 GPU") and a price line of two ``<span>``: the amount ("from $2.00", or
"Pre order") and the unit ("/GPU-hour").

What the prices are: per GPU per hour (the unit span; the FAQ: "GPU pricing on GMI Cloud is
calculated per GPU-hour"). They are the on-demand, pay-as-you-go rates: the FAQ says "On-demand
pricing provides maximum flexibility with pay-as-you-go billing, while committed usage plans
offer significant discounts ... Contact our sales team", so committed prices are not on the page,
and the page's description pairs "H100 from $2.00/GPU/hr" with "pay only for what you use".
"from" marks the lowest such rate (prices are "region-aware"): the offer is that starting rate,
region "global", one GPU.

Rules: one ``on_demand`` offer per card, USD per GPU per hour; ``instance_type`` the card heading;
``gpu_name`` the heading without a trailing "GPU" word; ``available`` True for an "AVAILABLE NOW"
badge, unknown otherwise ("Limited Availability").

Exclusions (counted by ``parse_with_exclusions``): ``pre_order`` for a card priced "Pre order"
(GB300), a no-price marker under itself, ``unknown_gpu <heading>`` for a GPU not in
``KNOWN_GPUS``, ``unknown_unit <heading>`` for a unit other than "/GPU-hour",
``unparsed_price``. ``SchemaDriftError`` when no GPU card is found or none yields an offer.
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
    ensure_unique,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "gmicloud"
HOMEPAGE = "https://www.gmicloud.ai"
PRICING_URL = "https://www.gmicloud.ai/en/pricing"
TOKEN_ENV = None
UNIT_TEXT = "/GPU-hour"
AVAILABLE_BADGE = "available now"
PRE_ORDER = "pre order"
# Card headings of the 2026-08-22 capture.
KNOWN_GPUS = frozenset(
    {"NVIDIA GB200", "NVIDIA GB300", "NVIDIA H100 GPU", "NVIDIA H200", "NVIDIA B200 GPU"}
)
_TRAILING_GPU = re.compile(r"\s+GPU$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand starting rates: USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when no GPU card is found or none yields an offer; a card that
    cannot be read is counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        cards = _cards(response)
        if not cards:
            raise SchemaDriftError(
                f"{response.url}: no GPU card (an <h3> with a '{UNIT_TEXT}' line)"
            )
        found = offers_from_rows(cards, partial(_read_card, response), excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU card read (excluded: {dict(excluded)})")
        offers.extend(found)
    return ensure_unique(offers), excluded


def _cards(response: RawResponse) -> list[tuple[LexborNode, list[str], str]]:
    """(heading, price line spans, badge) of every ``<h3>`` followed by a two-span price line."""
    cards = []
    for heading in html_body(response).css("h3"):
        line = heading.next
        while line is not None and line.tag != "div":
            line = line.next
        spans = [node_text(s) for s in line.css("span")] if line is not None else []
        if len(spans) != 2 or "/" not in spans[1]:
            continue
        card = heading.parent
        # the badge is the card's first child div (the price line comes after the heading)
        badges = [c for c in card.iter() if c.tag == "div"] if card is not None else []
        cards.append((heading, spans, node_text(badges[0]) if badges else ""))
    return cards


def _read_card(response: RawResponse, card: tuple[LexborNode, list[str], str]) -> Offer:
    heading, (amount, unit), badge = card
    name = node_text(heading)
    if name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", name))
    text = " ".join(amount.split()).lower()
    if text == PRE_ORDER:
        raise RowExcluded("pre_order")
    marker = no_price_marker(amount)
    if marker is not None:
        raise RowExcluded(marker)
    if unit.replace(" ", "") != UNIT_TEXT:
        raise RowExcluded(unknown_row("unit", name))
    try:
        price, currency = money(amount)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        gpu_name=_TRAILING_GPU.sub("", name),
        gpu_count=Decimal(1),
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        available=True if badge.lower() == AVAILABLE_BADGE else None,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="GMI Cloud",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; on-demand starting rates ('from $X /GPU-hour') per GPU",
)
