"""Paperspace: per-machine hourly prices from https://www.paperspace.com/pricing.

Known layout (2024, Webflow): the "On-Demand Compute" section holds one card per machine type
(``div.instance-container-flex > div.instance-blocks-flex``): its name (``h1.instance-names``,
e.g. "A100-80G"), a price block ``$ <h1.instance-price-2> / hour`` and a spec list (GPU or
"16 GB GPU", "90GB RAM", "12 vCPU"). Elements with the Webflow class ``hide`` are not shown on
the page (an older duplicate card grid and stale price/spec blocks) and are never read.

Footnotes under the cards qualify marked prices:

- ``*$2.24/hour pricing is for a 3-year commitment.`` -> the card's price ends in the same
  asterisks, so it is a reserved price with a 36-month term, not on-demand.
- ``On-demand pricing for H100 is $6.00/hour ($8.96) under our special promo price.`` -> an
  on-demand offer for that card at the first price; the parenthesised amount is not read as a
  price (the sentence does not say what it is).

Documented exclusions: multi-GPU variants ("Multi-GPU types: 2x 4x 8x") are not emitted; the
page prices them only by the rule "multiply the specs and price of each type above by the
number of GPUs", so the single-GPU card carries the whole price information (not counted: they
are not rows of their own).

One card never fails the page; it is left out and counted by ``parse_with_exclusions``, which
reads the cards, then the on-demand footnotes, through ``scrapers.parsing.offers_from_rows`` (the
other cards are published, and ``Provider.parse_report`` fails the scrape only when no known
card is left or more than half of them are unknown):

- ``unknown_sku <name>``: a card whose name is not in ``KNOWN_MACHINE_TYPES``;
- ``unknown_unit <name>``: a card whose price block is not per hour;
- ``unparsed_price``: a card with no visible price block, several, or one without a number
  (a negative price is a broken source, not an odd card: ``SchemaDriftError``);
  ``unnamed_card``: a card without its name;
- ``unexplained_marker``: a card whose price carries a footnote marker ("*") that no
  commitment footnote explains (reserved or on-demand cannot be told);
- ``footnote_mismatch``: a commitment footnote quoting another price than its card's (the
  card is left out), or an on-demand footnote for an unmarked card or in another currency
  (that footnote's price is left out); ``orphan_footnote``: an on-demand footnote naming no
  card. A footnote of a card that was left out goes with its card, uncounted.

``SchemaDriftError`` when the page has no machine cards at all, or no card yields an offer.

Each card is one GPU; prices are per machine-hour (``price_per`` instance, ``gpu_count`` 1),
in the currency the price block's symbol gives. ``gpu_name`` is the card name ("A6000",
"RTX5000"), or the exact part ``CARD_GPU_NAMES`` gives for H100, A100-80G and V100.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

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
    distinct_bodies,
    ensure_unique,
    html_body,
    money,
    node_text,
    offers_from_rows,
    unknown_row,
    unknown_rows,
)

PRICING_URL = "https://www.paperspace.com/pricing"
HOMEPAGE = "https://www.paperspace.com"
TOKEN_ENV = None

CARD = "div.instance-container-flex div.instance-blocks-flex"
CARD_NAME = "h1.instance-names"
PRICE_BLOCK = "div.instance-price-wrap"
PRICE_VALUE = "h1.instance-price-2"
SPEC_LIST = "ul.instance-specs-list-2"
HIDDEN_CLASS = "hide"
FOOTNOTE = "p"

_MARKED_PRICE = re.compile(r"^(?P<num>\d[\d,]*(?:\.\d+)?)(?P<marker>\**)$")
_COMMITMENT_NOTE = re.compile(
    r"^(?P<marker>\*+)\s*(?P<price>\$\s*\d[\d,]*(?:\.\d+)?)\s*/\s*hour pricing is for a\s*"
    r"(?P<years>\d+)-year commitment",
    re.IGNORECASE,
)
_ON_DEMAND_NOTE = re.compile(
    r"On-demand pricing for (?P<name>\S+) is (?P<price>\$\s*\d[\d,]*(?:\.\d+)?)\s*/\s*hour",
    re.IGNORECASE,
)
_RAM = re.compile(r"(\d+(?:\.\d+)?)\s*GB\s+RAM", re.IGNORECASE)
_VCPUS = re.compile(r"(\d+)\s*vCPU", re.IGNORECASE)
_VRAM = re.compile(r"(\d+(?:\.\d+)?)\s*GB\s+GPU", re.IGNORECASE)

# Card names that leave the exact part open, named from Paperspace's machine-type reference
# (https://docs.digitalocean.com/products/paperspace/machines/details/machine-types/): its
# performance table lists the H100 as "Hopper | SXM5" (the card's own spec line reads "NVIDIA HGX
# H100 GPU") and the A100-80G as "Ampere | SXM4", and gives the 16 GB "V100" 14.0 FP32 / 112
# FP16 tensor TFLOPS, the PCIe card's datasheet rates (the SXM2 module's are 15.7 / 125).
CARD_GPU_NAMES: dict[str, str] = {
    "H100": "NVIDIA H100 SXM",
    "A100-80G": "NVIDIA A100 SXM4 80GB",
    "V100": "NVIDIA Tesla V100 PCIe 16GB",
}

# The machine types (card names) this parser has read off the page: the twelve cards of the
# 2024-01 capture. A card of any other name is left out as ``unknown_sku <name>`` and the other
# cards are published; add the name here (and to CARD_GPU_NAMES if it leaves the part open)
# once its card has been checked.
KNOWN_MACHINE_TYPES = frozenset(
    {
        "A100-80G",
        "A4000",
        "A5000",
        "A6000",
        "H100",
        "M4000",
        "P4000",
        "P5000",
        "P6000",
        "RTX4000",
        "RTX5000",
        "V100",
    }
)

UNNAMED_CARD = "unnamed_card"
UNPARSED_PRICE = "unparsed_price"
UNEXPLAINED_MARKER = "unexplained_marker"
FOOTNOTE_MISMATCH = "footnote_mismatch"
ORPHAN_FOOTNOTE = "orphan_footnote"


@dataclass(frozen=True, slots=True)
class _Card:
    name: str
    price: Decimal
    currency: str
    marker: str
    vram_gb: Decimal | None
    vcpus: Decimal | None
    ram_gb: Decimal | None


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: GET the pricing page. Raises ``FetchError`` when it fails."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One offer per machine card (reserved when a footnote says so), plus footnoted on-demand.

    Raises ``SchemaDriftError`` when no card is found or no card yields an offer; a single card
    of an unknown machine type, without a name or a readable "$ <number> / hour" price, or with
    a price marker no footnote explains, is left out and counted.

    Returns the offers, and how many cards or footnote prices each documented rule left out.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        tree = html_body(response)
        nodes = tree.css(CARD)
        if not nodes:
            raise SchemaDriftError(f"{response.url}: no on-demand machine cards")
        notes = [node_text(p) for p in tree.css(FOOTNOTE)]
        page = _Page(response, _commitment_notes(notes))
        offers.extend(offers_from_rows(nodes, page.card_offer, excluded))
        on_demand_notes = [match for note in notes for match in _ON_DEMAND_NOTE.finditer(note)]
        offers.extend(offers_from_rows(on_demand_notes, page.note_offer, excluded))
    if not offers:
        unknown = ", ".join(sorted(unknown_rows(excluded)))
        raise SchemaDriftError(f"no GPU offers found{f' (unknown: {unknown})' if unknown else ''}")
    return ensure_unique(offers), excluded


@dataclass
class _Page:
    """The rows of one page: its cards, then its on-demand footnotes (``offers_from_rows``
    reads each). A footnote needs its card: the cards read, and the names of those left out."""

    response: RawResponse
    commitments: dict[str, tuple[Decimal, int]]  # footnote marker -> (price quoted, months)
    cards: dict[str, _Card] = field(default_factory=dict)  # name -> a card that has an offer
    left_out: set[str] = field(default_factory=set)  # names of cards left out

    def card_offer(self, node: Any) -> Offer:
        """The card's offer; ``RowExcluded`` for a card left out (see the module docstring)."""
        name_node = node.css_first(CARD_NAME)
        name = node_text(name_node) if name_node is not None else ""
        if not name:
            raise RowExcluded(UNNAMED_CARD)
        try:
            card = _read_card(node, name)
            offer = _card_offer(card, self.commitments, self.response)
        except RowExcluded:
            self.left_out.add(name)  # its footnotes go with it, uncounted
            raise
        self.cards[name] = card
        return offer

    def note_offer(self, match: re.Match[str]) -> Offer | None:
        """The on-demand price a footnote gives a marked card; None for a footnote of a card
        that was left out (its card's reason stands for the row)."""
        if match["name"] in self.left_out:
            return None
        card = self.cards.get(match["name"])
        if card is None:
            raise RowExcluded(ORPHAN_FOOTNOTE)
        price, currency = money(match["price"])
        if not card.marker or currency != card.currency:
            # An on-demand card with a second on-demand price, or another currency.
            raise RowExcluded(FOOTNOTE_MISMATCH)
        return _offer(card, PricingModel.ON_DEMAND, price, None, self.response)


def _visible(nodes: list[Any]) -> list[Any]:
    return [n for n in nodes if HIDDEN_CLASS not in (n.attributes.get("class") or "").split()]


def _read_card(node: Any, name: str) -> _Card:
    """The card named ``name``; ``RowExcluded`` for one of an unknown machine type, unit or
    unreadable price."""
    if name not in KNOWN_MACHINE_TYPES:
        raise RowExcluded(unknown_row("sku", name))
    blocks = _visible(node.css(PRICE_BLOCK))
    if len(blocks) != 1:  # no visible price, or several: which one is the card's?
        raise RowExcluded(UNPARSED_PRICE)
    block_text = node_text(blocks[0])
    if "hour" not in block_text.lower():
        raise RowExcluded(unknown_row("unit", name))
    value_node = blocks[0].css_first(PRICE_VALUE)
    value_text = node_text(value_node) if value_node is not None else ""
    if value_text.startswith("-"):
        # Not an odd card: an impossible price fails the scrape (last good data stays served).
        raise SchemaDriftError(f"card {name!r}: negative price {value_text!r}")
    match = _MARKED_PRICE.match(value_text)
    try:
        if match is None:
            raise SchemaDriftError(f"card {name!r}: expected a price, found {block_text!r}")
        _, currency = money(block_text)
    except SchemaDriftError:
        raise RowExcluded(UNPARSED_PRICE) from None
    specs = " | ".join(node_text(li) for ul in _visible(node.css(SPEC_LIST)) for li in ul.css("li"))
    return _Card(
        name=name,
        price=decimal(match["num"]),
        currency=currency,
        marker=match["marker"],
        vram_gb=_spec(_VRAM, specs),
        vcpus=_spec(_VCPUS, specs),
        ram_gb=_spec(_RAM, specs),
    )


def _spec(pattern: re.Pattern[str], specs: str) -> Decimal | None:
    match = pattern.search(specs)
    return decimal(match.group(1)) if match else None


def _commitment_notes(notes: list[str]) -> dict[str, tuple[Decimal, int]]:
    """Footnote marker ("*", "**") -> (price it quotes, commitment term in months)."""
    found = {}
    for note in notes:
        match = _COMMITMENT_NOTE.match(note)
        if match:
            found[match["marker"]] = (money(match["price"])[0], int(match["years"]) * 12)
    return found


def _card_offer(
    card: _Card, commitments: dict[str, tuple[Decimal, int]], response: RawResponse
) -> Offer:
    """The card's offer: reserved for the term its marker's footnote gives; ``RowExcluded``
    for a marker no footnote explains or a footnote quoting another price."""
    term: int | None = None
    if card.marker:
        if card.marker not in commitments:
            raise RowExcluded(UNEXPLAINED_MARKER)
        quoted, term = commitments[card.marker]
        if quoted != card.price:
            raise RowExcluded(FOOTNOTE_MISMATCH)
    return _offer(
        card,
        PricingModel.RESERVED if term else PricingModel.ON_DEMAND,
        card.price,
        term,
        response,
    )


def _offer(
    card: _Card, pricing: PricingModel, price: Decimal, term: int | None, response: RawResponse
) -> Offer:
    return Offer(
        provider="paperspace",
        instance_type=card.name,
        gpu_name=CARD_GPU_NAMES.get(card.name, card.name),
        gpu_count=Decimal(1),
        vram_gb_reported=card.vram_gb,
        vcpus=card.vcpus,
        ram_gb=card.ram_gb,
        pricing=pricing,
        reserved_term_months=term,
        price=price,
        currency=card.currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug="paperspace",
    name="Paperspace",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
)
