"""Latitude.sh: GPU bare-metal plans and their per-region prices, from the pricing page.

Live: ``GET https://www.latitude.sh/pricing``, no auth, no pagination. The page is a Next.js
app whose flight data (``self.__next_f.push``) carries the plan catalog it renders
(``plansData.servers``): JSON:API objects ``{"id": "plan_...", "type": "plans", "attributes":
{...}}``, the shape of Latitude's plans API. No reference for that API was found in the stored
material, so the public page is read. The 2026-08-22 capture is an excerpt of the flight data
holding two GPU plans (``latitude/2026-08-22_pricing_flight-data_2-gpu-plans_excerpt.html``).

A plan's ``attributes``: ``slug`` (``g3-h100-small``), ``name`` (``g3.h100.small``), ``specs``
(``gpu``: ``count``, ``type`` "NVIDIA H100 80GB", ``vram_per_gpu``; ``memory.total`` GB;
``drives``: ``count`` x ``size`` "3.8TB"; ``cpu``) and ``regions``, each a country-level region
(``name`` "United States") with its sites (``locations.available``, ``in_stock``), a
``stock_level`` and ``pricing`` per currency: ``USD`` ``hour``, ``month``, ``year`` per server.

Prices are per server (a whole bare-metal node). Read honestly:

- ``hour``: the on-demand rate, USD per server-hour;
- ``month``: billed by the month, half the hourly rate or less (g4.rtx6kpro.large: $48/h on
  demand, $17,520 a month = $24/h over 730 h): a one-month commitment, so ``reserved`` with
  ``reserved_term_months`` 1, USD per server-month;
- ``year``: a yearly commitment's total; the record has no yearly unit, so it is counted
  (``yearly_price``), not emitted;
- the ``BRL`` prices repeat the same plans in reais for Brazil's site; one currency is kept
  (USD), the BRL figures are not offers of their own.

Offers: per plan, region and pricing. ``region`` the region's name, ``country`` its ISO code
(``REGION_COUNTRIES``; an unlisted name gets none), ``available`` False when ``stock_level`` is
``unavailable`` or no site is in stock, True otherwise. ``gpu_name`` the plan's GPU type as
spelled, ``gpu_count`` its count, ``vram_gb_reported`` ``vram_per_gpu``.

Rules (one count per plan, or per region price, ``offers_from_rows``):

- a plan with no GPU -> ``no_gpu`` (CPU plans);
- a GPU type not in ``KNOWN_GPUS`` -> ``unknown_gpu <type>``;
- a region whose USD hour price is null -> ``unpriced_region`` (its month price likewise);
- a yearly price -> ``yearly_price``;
- the last plan of an excerpt, cut off by its edge -> ``truncated_row``.

``SchemaDriftError``: no plan object in the page, a plan without ``attributes``/``specs``/
``regions``, no offer at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.flight import flight_text, objects_at
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
    gb_from_size,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "latitude"
HOMEPAGE = "https://www.latitude.sh"
PRICING_URL = "https://www.latitude.sh/pricing"
TOKEN_ENV = None
CURRENCY = "USD"
PLAN_MARKER = '{"id":"plan_'
# GPU types (``specs.gpu.type``) read off the capture, emitted as spelled
# (warehouse/seeds/gpu_aliases.csv resolves them); a new one is ``unknown_gpu <type>``.
KNOWN_GPUS = frozenset({"NVIDIA RTX PRO 6000", "NVIDIA H100 80GB", "NVIDIA B300"})
# Latitude's country-level region names as the capture spells them, and their ISO codes; a name
# not listed here is still an offer, with no country (add it once read off a capture).
REGION_COUNTRIES: dict[str, str] = {
    "Australia": "AU",
    "Japan": "JP",
    "Netherlands": "NL",
    "United Kingdom": "GB",
    "United States": "US",
}
UNAVAILABLE = "unavailable"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Per GPU plan and region: on-demand USD per server-hour and the one-month commitment
    (reserved, USD per server-month). Raises ``SchemaDriftError`` as the module docstring says."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        plans = list(_plans(response))
        if not plans:
            raise SchemaDriftError(f"{response.url}: no plan object in the flight data")
        read = partial(_read_plan, response=response, excluded=excluded)
        offers.extend(offers_from_rows(plans, read, excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"Latitude.sh: no GPU plan priced (excluded: {reasons})")
    # a page may render one plan more than once: the same offer twice is one offer
    return ensure_unique(list(dict.fromkeys(offers))), excluded


def _plans(response: RawResponse) -> Iterator[Any]:
    for value, _ in objects_at(flight_text(response), PLAN_MARKER):
        yield value


def _read_plan(plan: Any, response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    if plan is None:
        raise RowExcluded("truncated_row")
    attributes = plan.get("attributes") if isinstance(plan, dict) else None
    if not isinstance(attributes, dict):
        raise SchemaDriftError(f"{response.url}: a plan without attributes")
    specs, regions = attributes.get("specs"), attributes.get("regions")
    if not isinstance(specs, dict) or not isinstance(regions, list):
        raise SchemaDriftError(f"{response.url}: a plan without specs/regions")
    gpu = specs.get("gpu")
    if not isinstance(gpu, dict) or not gpu.get("count"):
        raise RowExcluded("no_gpu")
    gpu_type = gpu.get("type")
    if gpu_type not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", str(gpu_type)))
    name = str(attributes.get("name") or attributes.get("slug") or plan["id"])
    found: list[Offer] = []
    for region in regions:
        found.extend(_region_offers(region, name, gpu, specs, response, excluded))
    return found


def _region_offers(
    region: Any,
    name: str,
    gpu: dict[str, Any],
    specs: dict[str, Any],
    response: RawResponse,
    excluded: Counter[str],
) -> Iterator[Offer]:
    if not isinstance(region, dict) or not isinstance(region.get("name"), str):
        raise SchemaDriftError(f"{response.url}: plan {name!r} has a region without a name")
    usd = (region.get("pricing") or {}).get(CURRENCY) or {}
    hour, month = usd.get("hour"), usd.get("month")
    if hour is None:
        excluded["unpriced_region"] += 1
        return
    if usd.get("year") is not None:
        excluded["yearly_price"] += 1
    in_stock = (region.get("locations") or {}).get("in_stock") or []
    available = region.get("stock_level") != UNAVAILABLE and bool(in_stock)
    common: dict[str, Any] = {
        "provider": PROVIDER_SLUG,
        "instance_type": name,
        "region": region["name"],
        "country": REGION_COUNTRIES.get(region["name"]),
        "gpu_name": gpu["type"],
        "gpu_count": decimal(gpu["count"]),
        "vram_gb_reported": _number(gpu.get("vram_per_gpu")),
        "ram_gb": _number((specs.get("memory") or {}).get("total")),
        "storage_gb": _storage_gb(specs.get("drives")),
        "currency": CURRENCY,
        "price_per": PricePer.INSTANCE,
        "available": available,
        "source_url": PRICING_URL,
        "observed_at": response.fetched_at,
    }
    yield Offer(
        **common, pricing=PricingModel.ON_DEMAND, price=decimal(hour), price_unit=PriceUnit.HOUR
    )
    if month is not None:
        yield Offer(
            **common,
            pricing=PricingModel.RESERVED,
            reserved_term_months=1,
            price=decimal(month),
            price_unit=PriceUnit.MONTH,
        )


def _number(value: Any) -> Decimal | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return decimal(value)
    return None


def _storage_gb(drives: Any) -> Decimal | None:
    """The sum of ``count`` x ``size`` ("3.8TB") over the drives, decimal GB; None when a drive
    does not read."""
    if not isinstance(drives, list) or not drives:
        return None
    total = Decimal(0)
    for drive in drives:
        if not isinstance(drive, dict) or not isinstance(drive.get("count"), int):
            return None
        try:
            total += drive["count"] * gb_from_size(str(drive.get("size")))
        except SchemaDriftError:
            return None
    return total


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Latitude.sh",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="Pricing page flight data: GPU bare-metal plans per country-level region; USD per"
    " server-hour on demand and per server-month for a one-month commitment",
)
