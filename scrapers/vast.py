"""Vast.ai: marketplace offers from the public offer search, ``GET /api/v0/bundles/``.

Live: ``GET https://console.vast.ai/api/v0/bundles/?q=<json>`` with ``QUERY`` (rentable,
verified, not rented, not external, on-demand, cheapest first, ``LIMIT`` offers), as in
https://vast.ai/developers/api and https://docs.vast.ai/api-reference/search/search-offers.
``Authorization: Bearer`` is sent only when ``VAST_API_KEY`` is set. One request: the search
returns up to ``limit`` offers and has no cursor.

Known layouts:

- **Full offers** ``{"offers": [{id, machine_id, gpu_name, num_gpus, gpu_ram (MiB),
  cpu_cores_effective, cpu_ram (MiB), disk_space (GB), dph_total, min_bid, geolocation, ...}]}``:
  ``instance_type`` = ``offer-<id>`` (Vast's own offer id), region = ``geolocation`` ("Texas,
  US"; ``unknown`` when absent), country = its trailing ISO code ("US"; ``host_country``).
  ``dph_total`` -> on-demand, ``min_bid`` (the lowest accepted bid for an interruptible
  rental) -> spot. Both are USD per hour for the whole offer.
  A ``min_bid`` of 0 is a valid field value (the offer states no bid floor), not a price of
  zero: the on-demand offer is kept and the spot offer is counted under ``zero_min_bid``.
- **Reduced offers** (the recorded capture): a bare array of ``{gpu_name, gpu_ram, num_gpus,
  dph_total}`` with no id and no location. Identical rows are different machines at the same
  price that nothing in the row tells apart: they are one offer listed N times (``listings``
  N, ``parsing.collapse_listings``), not N offers. ``instance_type`` is ``reduced-<first 12
  hex of sha256 of the four fields>``: the same content always gets the same name, whatever
  the row order. (Before issue 22 each identical row was an offer of its own, ``reduced-<hex>-
  <k>``; ``product_key`` keys those stored names as the collapsed offer, so a row that was
  alone keeps its history series.) Region is ``unknown`` and country None (the rows say
  nowhere where the host is); only the on-demand price exists.

Offers are per instance (``price_per`` instance) for ``num_gpus`` GPUs; VRAM is per GPU.
Availability: a full offer is available when its own ``rentable`` flag is true and it is not
``rented`` (the live query asks for exactly those); without the flag (and in the reduced
capture) unknown.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One offer never fails
the provider: it is left out and counted, the other offers are published
(``Provider.parse_report`` still fails the scrape when no known offer is left, or more than
half of the offers name an unknown GPU):

- ``unknown_gpu <gpu_name>``: an offer whose ``gpu_name`` is not in ``KNOWN_GPUS``;
- ``missing_<field>``: an offer without a field its shape requires (``id`` in full offers,
  ``gpu_name``, ``num_gpus``, ``gpu_ram``, ``dph_total``); ``unparsed_<field>``: a numeric
  field that is not a number;
- ``zero_min_bid``: a full offer whose ``min_bid`` is 0 yields no spot offer (see above).

Still ``SchemaDriftError``: a body that is neither shape, a list element that is not an offer
object (or, in the bare array, carries an ``id``), a ``dph_total`` or ``num_gpus`` of 0 or
less or a negative ``min_bid`` (an impossible value is a broken answer, not one odd offer:
the scrape fails and the last good data stays served), no offer left at all (a field renamed
in every offer ends here, with the reasons in the message), one full offer id listed twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
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
    json_body,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import collapse_listings, gb_from_mib

BUNDLES_URL = "https://console.vast.ai/api/v0/bundles/"
LIMIT = 1000
QUERY: dict[str, Any] = {
    "verified": {"eq": True},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "external": {"eq": False},
    "type": "on-demand",
    "order": [["dph_total", "asc"]],
    "limit": LIMIT,
}
HOMEPAGE = "https://vast.ai"
TOKEN_ENV = "VAST_API_KEY"  # optional: the offer search answers without a key
UNKNOWN_REGION = "unknown"
REDUCED_FIELDS = ("gpu_name", "gpu_ram", "num_gpus", "dph_total")
REDUCED_PREFIX = "reduced-"
# the name a reduced row had before identical rows were one offer: "reduced-<12 hex>-<k>"
_NUMBERED_REDUCED = re.compile(r"^(?P<name>reduced-[0-9a-f]{12})-\d+$")
# Vast.ai's own GPU names (its ``gpu_name`` values), all 88 models on the market on 2025-12-07
# as the vastai exporter's /gpu-stats listed them (../shared/snapshots/vast/2025-12-07_vastai-
# exporter_gpu-stats.json, "models"[].name; the reduced offer capture's 8 names are among them).
# An offer of any other GPU is left out as ``unknown_gpu <gpu_name>``, the rest published; add a
# name here once its offers have been checked.
KNOWN_GPUS = frozenset(
    {
        "A10",
        "A100 PCIE",
        "A100 SXM4",
        "A100X",
        "A40",
        "A800 PCIE",
        "B200",
        "GTX 1050",
        "GTX 1050 Ti",
        "GTX 1060",
        "GTX 1070",
        "GTX 1070 Ti",
        "GTX 1080",
        "GTX 1080 Ti",
        "GTX 1650",
        "GTX 1660",
        "GTX 1660 S",
        "GTX 1660 Ti",
        "GTX TITAN X",
        "H100 NVL",
        "H100 PCIE",
        "H100 SXM",
        "H200",
        "H200 NVL",
        "InstinctMI50",
        "L4",
        "L40",
        "L40S",
        "Q RTX 4000",
        "Q RTX 6000",
        "Q RTX 8000",
        "Quadro K2200",
        "Quadro P4000",
        "RTX 2060",
        "RTX 2060S",
        "RTX 2070",
        "RTX 2070S",
        "RTX 2080",
        "RTX 2080 Ti",
        "RTX 2080S",
        "RTX 3050",
        "RTX 3060",
        "RTX 3060 Ti",
        "RTX 3060 laptop",
        "RTX 3070",
        "RTX 3070 Ti",
        "RTX 3070 laptop",
        "RTX 3080",
        "RTX 3080 Ti",
        "RTX 3090",
        "RTX 3090 Ti",
        "RTX 4000Ada",
        "RTX 4060",
        "RTX 4060 Ti",
        "RTX 4070",
        "RTX 4070 Ti",
        "RTX 4070S",
        "RTX 4070S Ti",
        "RTX 4080",
        "RTX 4080S",
        "RTX 4090",
        "RTX 4090D",
        "RTX 4500Ada",
        "RTX 5000Ada",
        "RTX 5060",
        "RTX 5060 Ti",
        "RTX 5070",
        "RTX 5070 Ti",
        "RTX 5080",
        "RTX 5090",
        "RTX 5880Ada",
        "RTX 6000Ada",
        "RTX A2000",
        "RTX A4000",
        "RTX A4500",
        "RTX A5000",
        "RTX A6000",
        "RTX PRO 4000",
        "RTX PRO 4500",
        "RTX PRO 6000 S",
        "RTX PRO 6000 WS",
        "Tesla P100",
        "Tesla P4",
        "Tesla P40",
        "Tesla T4",
        "Tesla V100",
        "Titan V",
        "Titan Xp",
    }
)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: one GET of the offer search with ``q`` = ``QUERY`` as JSON.
    Raises ``FetchError`` when the request fails."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    params = {"q": json.dumps(QUERY, separators=(",", ":"))}
    return [http.get(client, BUNDLES_URL, params=params, headers=headers)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the full ``{"offers": [...]}`` shape or the reduced bare array.

    Raises ``SchemaDriftError`` when the body is neither shape, an element of the list is not an
    offer object, an offer states a price or GPU count of 0 or less (or a negative min_bid), or
    no offer is left; single offers that lack a field, hold a non-number, or name an unknown GPU
    are left out and counted.

    Returns the offers, and how many offers or prices each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        document = json_body(response)
        if isinstance(document, dict) and isinstance(document.get("offers"), list):
            offers.extend(_parse_full(document["offers"], response, excluded))
        elif isinstance(document, list):
            offers.extend(_parse_reduced(document, response, excluded))
        else:
            raise SchemaDriftError(f"{response.url}: neither an 'offers' list nor an offer array")
    if not offers:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in excluded.most_common(5))
        raise SchemaDriftError(f"no offers found{f' (left out: {reasons})' if reasons else ''}")
    return ensure_unique(offers), excluded


def _field(offer: dict[str, Any], name: str) -> Any:
    value = offer.get(name)
    if value is None or value == "":
        raise RowExcluded(f"missing_{name}")
    return value


def _number(offer: dict[str, Any], name: str) -> Decimal:
    value = _field(offer, name)
    if isinstance(value, bool):
        raise RowExcluded(f"unparsed_{name}")
    try:
        return decimal(value)
    except SchemaDriftError:
        raise RowExcluded(f"unparsed_{name}") from None


def _positive(offer: dict[str, Any], name: str) -> Decimal:
    """The field as a positive number. A zero or negative price or GPU count is not an odd
    offer but a broken answer: ``SchemaDriftError`` fails the scrape (last good data kept)."""
    value = _number(offer, name)
    if value <= 0:
        raise SchemaDriftError(f"offer {offer.get('id', '?')}: {name} is {value}")
    return value


def _optional(offer: dict[str, Any], name: str) -> Decimal | None:
    return _number(offer, name) if offer.get(name) is not None else None


def _gpu_name(offer: dict[str, Any]) -> str:
    name = str(_field(offer, "gpu_name"))
    if name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", name))
    return name


def host_country(geolocation: Any) -> str | None:
    """The ISO 3166-1 alpha-2 country of a host's ``geolocation``: its last comma-separated part
    when that is a two-letter code ("Texas, US" -> "US", "SE" -> "SE"); None when the host
    states none or the text ends otherwise ("Earth": no country is guessed)."""
    if not isinstance(geolocation, str):
        return None
    last = geolocation.rsplit(",", 1)[-1].strip()
    return last if _COUNTRY_CODE.fullmatch(last) else None


_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


def _parse_full(rows: list[Any], response: RawResponse, excluded: Counter[str]) -> list[Offer]:

    def read_row(row: Any) -> list[Offer]:
        if not isinstance(row, dict):
            raise SchemaDriftError(f"{response.url}: offer is not an object: {row!r:.80}")
        common: dict[str, Any] = {
            "provider": "vast",
            "gpu_name": _gpu_name(row),
            "instance_type": f"offer-{_field(row, 'id')}",
            "region": (row.get("geolocation") or "").strip() or UNKNOWN_REGION,
            "country": host_country(row.get("geolocation")),
            "gpu_count": _positive(row, "num_gpus"),
            "vram_gb_reported": gb_from_mib(_number(row, "gpu_ram")),
            "vcpus": _optional(row, "cpu_cores_effective"),
            "ram_gb": None if (ram := _optional(row, "cpu_ram")) is None else gb_from_mib(ram),
            "storage_gb": _optional(row, "disk_space"),
            "currency": "USD",
            "price_unit": PriceUnit.HOUR,
            "price_per": PricePer.INSTANCE,
            "source_url": response.url,
            "observed_at": response.fetched_at,
            "available": _rentable(row),
        }
        on_demand = _positive(row, "dph_total")
        min_bid = _optional(row, "min_bid")
        offers = [Offer(**common, pricing=PricingModel.ON_DEMAND, price=on_demand)]
        if min_bid is None:
            return offers
        if min_bid == 0:
            excluded["zero_min_bid"] += 1
        elif min_bid < 0:
            raise SchemaDriftError(f"offer {row.get('id', '?')}: min_bid is {min_bid}")
        else:
            offers.append(Offer(**common, pricing=PricingModel.SPOT, price=min_bid))
        return offers

    return offers_from_rows(rows, read_row, excluded)


def _rentable(row: dict[str, Any]) -> bool | None:
    """An offer's own ``rentable`` and ``rented`` flags: available when it can be rented and is
    not rented now; None when the offer carries no ``rentable`` flag."""
    rentable, rented = row.get("rentable"), row.get("rented")
    if not isinstance(rentable, bool):
        return None
    return rentable and rented is not True


def _parse_reduced(rows: list[Any], response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    def read_row(row: Any) -> Offer:
        if not isinstance(row, dict) or "id" in row:
            raise SchemaDriftError(f"{response.url}: not a reduced offer row: {row!r:.80}")
        gpu_name = _gpu_name(row)
        content = {name: _field(row, name) for name in REDUCED_FIELDS}
        gpu_count = _positive(row, "num_gpus")
        vram = gb_from_mib(_number(row, "gpu_ram"))
        price = _positive(row, "dph_total")
        digest = hashlib.sha256(
            json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()[:12]
        return Offer(
            provider="vast",
            instance_type=f"{REDUCED_PREFIX}{digest}",
            region=UNKNOWN_REGION,
            gpu_name=gpu_name,
            gpu_count=gpu_count,
            vram_gb_reported=vram,
            pricing=PricingModel.ON_DEMAND,
            price=price,
            currency="USD",
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.INSTANCE,
            source_url=response.url,
            observed_at=response.fetched_at,
        )

    return collapse_listings(offers_from_rows(rows, read_row, excluded))


def product_key(instance_type: str) -> str:
    """The reduced offer's name for a name stored before listings (``reduced-<hex>-<k>``, one
    per identical row); every other name is its own key."""
    match = _NUMBERED_REDUCED.match(instance_type)
    return match["name"] if match else instance_type


PROVIDER = Provider(
    slug="vast",
    name="Vast.ai",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="marketplace",
    product_key_rule=product_key,
    notes="VAST_API_KEY is optional. Offers are the cheapest LIMIT verified on-demand offers.",
)
