"""TensorPool: on-demand GPU prices from the public pricing page (https://tensorpool.dev/pricing).

Live: ``GET https://tensorpool.dev/pricing``, no auth, no pagination; the page is
server-rendered (the 2026-08-22 capture is the whole page). Its "Compare Plans" section prints
TensorPool's own "GPU COSTS / HR" card beside cards of other clouds ("Lambda Labs",
"Traditional Clouds (GCP, AWS, etc.)"): those are TensorPool's comparison figures, not those
providers' prices, and are not read. The desktop grid repeats the three columns; the mobile card
headed "TensorPool" (an ``h3``) is read: one line per item, "B200 SXM - $4.99".

Each line is the price of one GPU per hour ("GPU COSTS / HR", on demand: "On-demand access to
up to 128 GPUs"; reservations are "Contact us"), so offers carry ``price_per`` gpu and
``gpu_count`` 1, region ``global`` (the page names none). ``gpu_name`` is the line's name as
spelled ("H100 SXM"), which must be in ``KNOWN_GPUS``.

Rules (one count per line, ``offers_from_rows``):

- the "CPU" line -> ``cpu`` (a CPU-hour price, not a GPU rental);
- a no-price marker ("N/A", "Contact us") -> counted under the marker;
- a name not in ``KNOWN_GPUS`` -> ``unknown_gpu <name>``;
- a line that is not "<name> - <price>" or whose price is not a dollar amount ->
  ``unparsed_price``.

``SchemaDriftError``: no "TensorPool" card with a "GPU COSTS / HR" list, no offer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial

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
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "tensorpool"
HOMEPAGE = "https://tensorpool.dev"
PRICING_URL = "https://tensorpool.dev/pricing"
TOKEN_ENV = None
OWN_CARD = "TensorPool"  # the card heading of TensorPool's own prices
COSTS_HEADING = "GPU COSTS / HR"
CPU_LINE = "CPU"
# GPU names as the card spells them (warehouse/seeds/gpu_aliases.csv resolves them); a new one
# is ``unknown_gpu <name>``.
KNOWN_GPUS = frozenset({"B200 SXM", "B300 SXM", "H100 SXM", "H200 SXM", "L40S"})
_LINE = re.compile(r"^(?P<name>.+?)\s+-\s+(?P<price>\S.*)$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand USD per GPU-hour, one offer per GPU line of TensorPool's own card. Raises
    ``SchemaDriftError`` as the module docstring says."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        lines = _own_lines(response)
        offers.extend(offers_from_rows(lines, partial(_read, response=response), excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"TensorPool: no GPU price on the card (excluded: {reasons})")
    return offers, excluded


def _own_lines(response: RawResponse) -> list[str]:
    """The lines of the "GPU COSTS / HR" list in the card headed "TensorPool"."""
    tree = html_body(response)
    for heading in tree.css("h3"):
        # the heading sits in the card's title row: the card is the row's parent
        card = heading.parent.parent if heading.parent is not None else None
        if node_text(heading) != OWN_CARD or card is None:
            continue
        costs = next((h for h in card.css("h4") if node_text(h) == COSTS_HEADING), None)
        listing = costs.next if costs is not None else None
        while listing is not None and listing.tag != "div":
            listing = listing.next
        if listing is not None:
            return [node_text(line) for line in listing.iter() if line.tag == "div"]
    raise SchemaDriftError(f"{response.url}: no '{OWN_CARD}' card with a '{COSTS_HEADING}' list")


def _read(line: str, response: RawResponse) -> Offer:
    match = _LINE.match(line)
    if match is None:
        raise RowExcluded("unparsed_price")
    name, price_text = match["name"], match["price"]
    if name == CPU_LINE:
        raise RowExcluded("cpu")
    marker = no_price_marker(price_text)
    if marker is not None:
        raise RowExcluded(marker)
    if name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", name))
    try:
        price, currency = money(price_text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        gpu_name=name,
        gpu_count=Decimal(1),
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="TensorPool",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HTML pricing page: TensorPool's own 'GPU COSTS / HR' card, USD per GPU-hour on demand",
)
