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
  US"; ``unknown`` when absent). ``dph_total`` -> on-demand, ``min_bid`` (the lowest accepted
  bid for an interruptible rental) -> spot. Both are USD per hour for the whole offer.
  A ``min_bid`` of 0 is a valid field value (the offer states no bid floor), not a price of
  zero: the on-demand offer is kept and the spot offer is counted under ``zero_min_bid``.
- **Reduced offers** (the recorded capture): a bare array of ``{gpu_name, gpu_ram, num_gpus,
  dph_total}`` with no id and no location. Identical rows are distinct offers (different
  machines at the same price) and cannot be told apart, so ``instance_type`` is
  ``reduced-<first 12 hex of sha256 of the four fields>-<k>``, k numbering identical rows
  1, 2, ...: the same content always gets the same name, whatever the row order, and every row
  is kept. Region is ``unknown``; only the on-demand price exists.

Offers are per instance (``price_per`` instance) for ``num_gpus`` GPUs; VRAM is per GPU.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- ``zero_min_bid``: a full offer whose ``min_bid`` is 0 yields no spot offer (see above).
  A negative ``min_bid``, and a ``dph_total`` that is absent or not positive, still raise
  ``SchemaDriftError``: an on-demand offer without a price is not an offer.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx

from scrapers import http
from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
)
from scrapers.parsing import (
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_mib,
    json_body,
)

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


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: one GET of the offer search with ``q`` = ``QUERY`` as JSON.
    Raises ``FetchError`` when the request fails."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    params = {"q": json.dumps(QUERY, separators=(",", ":"))}
    return [http.get(client, BUNDLES_URL, params=params, headers=headers)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from the full ``{"offers": [...]}`` shape or the reduced bare array.

    Raises ``SchemaDriftError`` when the body is neither shape, an offer lacks a field the
    shape requires or has a non-positive on-demand price (or a negative ``min_bid``), or there
    are no offers at all.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many prices each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        document = json_body(response)
        if isinstance(document, dict) and isinstance(document.get("offers"), list):
            offers.extend(_parse_full(document["offers"], response, excluded))
        elif isinstance(document, list):
            offers.extend(_parse_reduced(document, response))
        else:
            raise SchemaDriftError(f"{response.url}: neither an 'offers' list nor an offer array")
    if not offers:
        raise SchemaDriftError("no offers found")
    return ensure_unique(offers), excluded


def _field(offer: dict[str, Any], name: str) -> Any:
    value = offer.get(name)
    if value is None or value == "":
        raise SchemaDriftError(f"offer {offer.get('id', '?')}: missing {name!r}")
    return value


def _positive(offer: dict[str, Any], name: str) -> Decimal:
    value = decimal(_field(offer, name))
    if value <= 0:
        raise SchemaDriftError(f"offer {offer.get('id', '?')}: {name} is {value}")
    return value


def _optional(offer: dict[str, Any], name: str) -> Decimal | None:
    value = offer.get(name)
    return decimal(value) if value is not None else None


def _parse_full(rows: list[Any], response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    offers = []
    for row in rows:
        if not isinstance(row, dict):
            raise SchemaDriftError(f"{response.url}: offer is not an object: {row!r:.80}")
        common: dict[str, Any] = {
            "provider": "vast",
            "instance_type": f"offer-{_field(row, 'id')}",
            "region": (row.get("geolocation") or "").strip() or UNKNOWN_REGION,
            "gpu_name": str(_field(row, "gpu_name")),
            "gpu_count": _positive(row, "num_gpus"),
            "vram_gb_reported": gb_from_mib(_field(row, "gpu_ram")),
            "vcpus": _optional(row, "cpu_cores_effective"),
            "ram_gb": gb_from_mib(row["cpu_ram"]) if row.get("cpu_ram") is not None else None,
            "storage_gb": _optional(row, "disk_space"),
            "currency": "USD",
            "price_unit": PriceUnit.HOUR,
            "price_per": PricePer.INSTANCE,
            "source_url": response.url,
            "observed_at": response.fetched_at,
        }
        offers.append(
            Offer(**common, pricing=PricingModel.ON_DEMAND, price=_positive(row, "dph_total"))
        )
        if row.get("min_bid") is None:
            continue
        min_bid = decimal(row["min_bid"])
        if min_bid == 0:
            excluded["zero_min_bid"] += 1
        elif min_bid < 0:
            raise SchemaDriftError(f"offer {row.get('id', '?')}: min_bid is {min_bid}")
        else:
            offers.append(Offer(**common, pricing=PricingModel.SPOT, price=min_bid))
    return offers


def _parse_reduced(rows: list[Any], response: RawResponse) -> list[Offer]:
    seen: Counter[str] = Counter()
    offers = []
    for row in rows:
        if not isinstance(row, dict) or "id" in row:
            raise SchemaDriftError(f"{response.url}: not a reduced offer row: {row!r:.80}")
        content = {name: _field(row, name) for name in REDUCED_FIELDS}
        digest = hashlib.sha256(
            json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()[:12]
        seen[digest] += 1
        offers.append(
            Offer(
                provider="vast",
                instance_type=f"reduced-{digest}-{seen[digest]}",
                region=UNKNOWN_REGION,
                gpu_name=str(content["gpu_name"]),
                gpu_count=_positive(row, "num_gpus"),
                vram_gb_reported=gb_from_mib(content["gpu_ram"]),
                pricing=PricingModel.ON_DEMAND,
                price=_positive(row, "dph_total"),
                currency="USD",
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.INSTANCE,
                source_url=response.url,
                observed_at=response.fetched_at,
            )
        )
    return offers


PROVIDER = Provider(
    slug="vast",
    name="Vast.ai",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="marketplace",
    notes="VAST_API_KEY is optional. Offers are the cheapest LIMIT verified on-demand offers.",
)
