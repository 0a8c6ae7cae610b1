"""Hot Aisle: AMD Instinct GPU plan prices from the public pricing page (https://hotaisle.xyz/pricing).

Live: ``GET https://hotaisle.xyz/pricing``, no auth, no pagination: a server-rendered (Astro) page.

Known layout (seen 2026-08-22): a pricing hero (two summary boxes, "Virtual machines $2.99/GPU/hr
... billed by the minute" and "8x bare metal $3.39/GPU/hr ... One-month minimum", and a sentence
that existing customers stay "grandfathered at $1.99/GPU/hr"), then three plan cards. A card is
a ``div`` holding a kind line (``<p>`` "VM" / "Bare metal"), an ``<h2>`` size ("Small",
"Medium", "Large"), a count line (``<span>`` "1x" / "2x & 4x" / "8x" beside ``<span>``
"MI300x"), a price ``<p>`` ("$2.99/GPU/hr", the Large card adding "bare metal, one-month
minimum") and a feature list ("192GB HBM3 Memory", "448GB or 896GB RAM", "12TB NVMe Storage").

Rules:

- only the plan cards are read: the hero boxes repeat their prices, and the grandfathered
  $1.99 rate is not sold to new customers;
- one offer per GPU count a card names ("2x & 4x" -> 2 and 4), USD per GPU per hour
  ("/GPU/hr"), region "global" (the page names none);
- a "VM" card is ``on_demand`` (the hero: "billed by the minute"); a "Bare metal" card whose
  price line says "one-month minimum" is ``reserved`` with a 1-month term (a month is the least
  one can commit to), priced per GPU-hour as printed;
- ``instance_type`` "<size> <n>x <GPU>" ("Medium 4x MI300x"); RAM, storage and GPU memory per
  count from the features ("448GB or 896GB RAM": the n-th figure goes with the n-th count);
  one figure for several counts is theirs alike ("12TB NVMe Storage"); ``vram_gb_reported``
  is the card's GPU memory (one figure per count) over its count where that is a whole number
  of GB ("1.5 TB" for 8 GPUs is a rounded total: left empty); "CPU Cores" are cores, not vCPUs,
  and are not read.

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <gpu>`` for a card whose GPU is
not in ``KNOWN_GPUS``; ``unknown_plan <kind>`` for a card kind other than ``KINDS``;
``unknown_unit <size>`` for a price not per GPU-hour; ``unparsed_price``, ``unparsed_count``.
``SchemaDriftError`` when no plan card is found or none yields an offer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
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
    gb_from_size,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "hotaisle"
HOMEPAGE = "https://hotaisle.xyz"
PRICING_URL = "https://hotaisle.xyz/pricing"
TOKEN_ENV = None
PRICE_UNIT_TEXT = "/gpu/hr"
MINIMUM_MONTH_TEXT = "one-month minimum"
KINDS = frozenset({"vm", "bare metal"})
# GPU spans of the 2026-08-22 capture's cards (compared case-insensitively).
KNOWN_GPUS = frozenset({"mi300x"})
_COUNTS = re.compile(r"^\s*\d+x(?:\s*(?:&|,|and)\s*\d+x)*\s*$", re.I)
_COUNT = re.compile(r"(\d+)x", re.I)
_SIZE_FIGURE = re.compile(r"\d[\d,.]*\s*[MGT]i?B", re.I)


@dataclass(frozen=True)
class _Card:
    kind: str
    size: str
    counts_text: str
    gpu: str
    price_text: str
    features: tuple[str, ...]


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Plan-card offers: USD per GPU per hour, on demand (VM) or 1-month minimum (bare metal).

    Raises ``SchemaDriftError`` when the page has no plan card or no card yields an offer; a card
    that cannot be read is counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        cards = _cards(response)
        if not cards:
            raise SchemaDriftError(f"{response.url}: no plan card (an <h2> size with a count line)")
        found = offers_from_rows(cards, partial(_read_card, response), excluded)
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no plan card read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _cards(response: RawResponse) -> list[_Card]:
    """Every ``<h2>`` whose block also holds a kind line, a count line of two spans and a price."""
    cards: list[_Card] = []
    for heading in html_body(response).css("h2"):
        block = heading.parent
        card = block.parent if block is not None else None
        if block is None or card is None:
            continue
        spans = [s for s in block.css("div > span") if s.parent is not None]
        kind = block.css_first("p")
        price = next((p for p in block.css("p") if "$" in node_text(p) or _priced(p)), None)
        if kind is None or len(spans) < 2 or not _COUNTS.match(node_text(spans[0])):
            continue
        cards.append(
            _Card(
                kind=node_text(kind),
                size=node_text(heading),
                counts_text=node_text(spans[0]),
                gpu=node_text(spans[1]),
                price_text=node_text(price) if price is not None else "",
                features=tuple(node_text(li) for li in card.css("li")),
            )
        )
    return cards


def _priced(node: LexborNode) -> bool:
    return PRICE_UNIT_TEXT in node_text(node).lower().replace(" ", "")


def _read_card(response: RawResponse, card: _Card) -> list[Offer]:
    if card.gpu.lower() not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", card.gpu))
    kind = card.kind.lower()
    if kind not in KINDS:
        raise RowExcluded(unknown_row("plan", card.kind))
    marker = no_price_marker(card.price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if not card.price_text:
        raise RowExcluded("unparsed_price")
    if PRICE_UNIT_TEXT not in card.price_text.lower().replace(" ", ""):
        raise RowExcluded(unknown_row("unit", card.size))
    try:
        price, currency = money(card.price_text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    counts = [int(c) for c in _COUNT.findall(card.counts_text)]
    if not counts or any(c <= 0 for c in counts):
        raise RowExcluded("unparsed_count")
    if kind == "bare metal":
        if MINIMUM_MONTH_TEXT not in card.price_text.lower():
            raise RowExcluded(unknown_row("plan", f"{card.kind} without a one-month minimum"))
        pricing, term = PricingModel.RESERVED, 1
    else:
        pricing, term = PricingModel.ON_DEMAND, None
    memory = _figures(card.features, "hbm")
    ram = _figures(card.features, "ram")
    storage = _figures(card.features, "nvme")
    offers = []
    for index, count in enumerate(counts):
        gpu_memory = memory[index] if len(memory) == len(counts) else None
        per_gpu = gpu_memory / count if gpu_memory is not None else None
        offers.append(
            Offer(
                provider=PROVIDER_SLUG,
                instance_type=f"{card.size} {count}x {card.gpu}",
                gpu_name=card.gpu,
                gpu_count=Decimal(count),
                vram_gb_reported=per_gpu if per_gpu is not None and per_gpu % 1 == 0 else None,
                ram_gb=_nth(ram, index, len(counts)),
                storage_gb=_nth(storage, index, len(counts)),
                pricing=pricing,
                reserved_term_months=term,
                price=price,
                currency=currency,
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.GPU,
                source_url=response.url,
                observed_at=response.fetched_at,
            )
        )
    return offers


def _figures(features: tuple[str, ...], word: str) -> list[Decimal]:
    """The sizes (GB) of the feature line about ``word`` ("448GB or 896GB RAM" -> [448, 896]); for
    a line holding several kinds ("2TB RAM + 122TB NVMe") the size right before ``word``."""
    for line in features:
        lower = line.lower()
        if word not in lower:
            continue
        parts = [p for p in re.split(r"\+", line) if word in p.lower()]
        return [gb_from_size(m) for m in _SIZE_FIGURE.findall(parts[0] if parts else line)]
    return []


def _nth(figures: list[Decimal], index: int, counts: int) -> Decimal | None:
    """The figure for the ``index``-th GPU count: one per count, or one for all ("12TB NVMe
    Storage" on a "2x & 4x" card); None when the card states none or a different number."""
    if len(figures) == counts:
        return figures[index]
    if len(figures) == 1:
        return figures[0]
    return None


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Hot Aisle",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page; AMD MI300X plan cards, per GPU-hour",
)
