"""Voltage Park: H100 prices from the public pricing page (https://www.voltagepark.com/pricing).

Known layout (seen 2025-07): plan cards, each an eyebrow heading ("On-Demand, Ethernet",
"On-demand, 3200 Gbps Infiniband", "Long-Term Reserve"), a price heading ("$1.99/hr"), a
divider and a feature list, one feature of which states the GPU range ("1-1016 HGX H100 GPUs
for your bursts and experimentation.").

Cards are read in document order (eyebrow to next eyebrow) rather than by their wrapper
element, because an excerpt can start inside the first card's wrapper.

One flat "$/hr" price for anything from 1 (or 8) to 1016 GPUs can only be a price per GPU-hour,
so offers carry ``price_per`` gpu and ``gpu_count`` = the smallest rentable count of the plan.
``instance_type`` is the card heading; ``gpu_name`` the GPU as the feature line spells it.

Rules (counted by ``parse_with_exclusions``, keyed by rule; one card never fails the page):

- an on-demand card ("On-demand" heading, any case) of a ``KNOWN_GPUS`` GPU -> one
  ``on_demand`` offer;
- a card whose price is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``, or one of
  this page's own ``CARD_NO_PRICE_MARKERS`` such as "Contact for pricing") is counted under
  that marker, whatever the card's kind;
- ``reserve_card``: a priced card whose heading says "Reserve" (e.g. "Long-Term Reserve") is
  counted, not emitted: the page states no term in months, which a reserved offer needs;
- ``unknown_plan <heading>``: any other priced card (a plan kind this scraper does not know);
- ``unknown_gpu <gpu>``: an on-demand card whose GPU line names a GPU not in ``KNOWN_GPUS``;
- ``unknown_unit <heading>``: an on-demand card whose price is not per hour ("/hr");
- ``unparsed_price``: a card with no price heading, several, or one that holds no amount (a
  negative price is a broken source, not an odd card: ``SchemaDriftError``);
  ``no_gpu_line``: an on-demand card without exactly one "<n>-<m> <GPU> GPUs" feature line;
- ``truncated_card``: an eyebrow with no card content after it at the very end of the document
  (the cut edge of an excerpt) is counted, not parsed.

``SchemaDriftError`` when the page has no plan cards at all (the card classes changed) or no
card yields an offer; ``Provider.parse_report`` also fails the scrape when more than half of
the cards are of an unknown kind or GPU.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
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
    html_body,
    money_at,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
    unknown_rows,
)
from scrapers.parsing import is_document_tail

PRICING_URL = "https://www.voltagepark.com/pricing"
HOMEPAGE = "https://www.voltagepark.com"
TOKEN_ENV = None

CARD_HEADING_CLASS = "text-eyebrow"
CARD_PRICE_CLASS = "heading-style-h3"
CARD_BODY_CLASSES = ("pricing11_divider", "pricing11_feature-list")  # mark a real plan card
CARD_FEATURE_CLASS = "pricing11_feature"
PRICE_SUFFIX = "/hr"
ON_DEMAND_PREFIX = "on-demand"
# Price headings this page uses for "no public price", beside parsing.NO_PRICE_MARKERS.
# Matched whole, case- and space-insensitive, like those.
CARD_NO_PRICE_MARKERS = frozenset({"contact for pricing"})
RESERVE_WORD = "reserve"
# The GPUs (as the cards' feature lines spell them) this parser has read off the page: the
# 2025-07 capture's two on-demand cards. A card of another GPU is left out as
# ``unknown_gpu <gpu>``, the other cards published; add its name once the card was checked.
KNOWN_GPUS = frozenset({"HGX H100"})
UNPARSED_PRICE = "unparsed_price"
NO_GPU_LINE = "no_gpu_line"

_NEGATIVE_PRICE = re.compile(r"-\s*[$€£]|[$€£]\s*-")
_GPU_RANGE = re.compile(r"\b(?P<low>\d+)\s*-\s*(?P<high>\d+)\s+(?P<gpu>.+?)\s+GPUs\b")


@dataclass
class _Card:
    heading: LexborNode
    prices: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    has_body: bool = False


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand offers: USD per GPU per hour, region "global".

    Raises ``SchemaDriftError`` when the page has no plan cards or no card yields an offer; a
    single card that cannot be read, or is of an unknown kind or GPU, is left out and counted.

    Returns the offers, and how many cards each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        found = offers_from_rows(_cards(response), partial(_card_offer, response), excluded)
        if not found:
            unknown = ", ".join(sorted(unknown_rows(excluded)))
            detail = f" (unknown cards: {unknown})" if unknown else ""
            raise SchemaDriftError(
                f"{response.url}: no on-demand plan card with a price found{detail}"
            )
        offers.extend(found)
    return offers, excluded


def _classes(node: LexborNode) -> set[str]:
    return set((node.attributes.get("class") or "").split())


def _cards(response: RawResponse) -> list[_Card]:
    tree = html_body(response)
    if tree.body is None:
        raise SchemaDriftError(f"{response.url}: empty page")
    cards: list[_Card] = []
    for node in tree.body.traverse():
        classes = _classes(node)
        if CARD_HEADING_CLASS in classes:
            cards.append(_Card(node))
        elif cards:
            card = cards[-1]
            if CARD_PRICE_CLASS in classes:
                card.prices.append(node_text(node))
            elif CARD_FEATURE_CLASS in classes:
                card.features.append(node_text(node))
            if classes.intersection(CARD_BODY_CLASSES):
                card.has_body = True
    if not any(card.has_body for card in cards):
        raise SchemaDriftError(
            f"{response.url}: unknown Voltage Park layout: no plan cards "
            f"('{CARD_HEADING_CLASS}' heading followed by a '{CARD_BODY_CLASSES[0]}')"
        )
    return cards


def _no_price_marker(text: str) -> str | None:
    normalised = " ".join(text.split()).lower()
    return no_price_marker(text) or (normalised if normalised in CARD_NO_PRICE_MARKERS else None)


def _card_offer(response: RawResponse, card: _Card) -> Offer | None:
    heading = node_text(card.heading)
    if not card.has_body:
        if not card.prices and is_document_tail(card.heading):
            raise RowExcluded("truncated_card")
        # Otherwise an eyebrow of another page section, not a plan card.
        return None
    if len(card.prices) != 1:
        raise RowExcluded(UNPARSED_PRICE)  # no price heading, or several: which one is the price?
    text = card.prices[0]
    marker = _no_price_marker(text)
    if marker is not None:
        raise RowExcluded(marker)
    if RESERVE_WORD in heading.lower():
        raise RowExcluded("reserve_card")
    if not heading.lower().startswith(ON_DEMAND_PREFIX):
        raise RowExcluded(unknown_row("plan", heading))
    ranges = [m for feature in card.features if (m := _GPU_RANGE.search(feature))]
    if len(ranges) != 1:
        raise RowExcluded(NO_GPU_LINE)
    gpu = ranges[0]["gpu"]
    if gpu not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu))
    if not text.replace(" ", "").endswith(PRICE_SUFFIX):
        raise RowExcluded(unknown_row("unit", heading))
    if _NEGATIVE_PRICE.search(text):
        # Not an odd card: an impossible price fails the scrape (last good data stays served).
        raise SchemaDriftError(f"{response.url}: {heading!r} has a negative price {text!r}")
    try:
        price, currency = money_at(text, f"{response.url}: {heading!r} price")
    except SchemaDriftError:
        raise RowExcluded(UNPARSED_PRICE) from None
    return Offer(
        provider="voltagepark",
        instance_type=heading,
        gpu_name=gpu,
        gpu_count=Decimal(ranges[0]["low"]),
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug="voltagepark",
    name="Voltage Park",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; on-demand H100 plan cards",
)
