"""OVHcloud: monthly prices of GPU dedicated servers from the public order catalog API.

``GET https://api.us.ovhcloud.com/v1/order/catalog/public/baremetalServers?ovhSubsidiary=US``
(no auth) returns ``{catalogId, locale, plans, addons, products, planFamilies, ...}``. The
recorded capture holds only the ``plans`` array (re-serialised as a bare JSON array); both
shapes are accepted.

Reading a plan:

- **GPU plans** are those with an addon family named ``gpu`` (its default addon, e.g.
  ``gpu-2xnvidia-l4-23scalegpu01-v1-eu``, is the GPU option of the default configuration).
  Every other plan is a CPU/storage server and is not an offer (documented exclusion). The
  plan objects carry no ``blobs.technical`` section, so the GPU count and model come from the
  default addon's code: ``gpu-<count>x<model>-<suffix>``, where ``<suffix>`` is the tail the
  code shares with the plan's default memory addon (``ram-192g-ecc-4800-23scalegpu01-v1-eu``)
  -- the plan-specific part, not the GPU. A ``-<n>g`` ending of the model is its VRAM in GB.
  RAM (GB) comes from the default memory addon (``ram-<n>g-...``).
- **Prices** are in ``pricings``. Only entries with capacity ``renew`` (the recurring rental
  price) are read; ``installation`` entries are one-off setup fees. ``price`` is an integer in
  1e-8 of the catalog currency: e.g. 30100000000 is shown as ``formattedPrice`` "$301.00 USD".
  Every price is checked against its ``formattedPrice`` (which also gives the currency), so a
  change of unit is caught as drift rather than published.
- ``commitment`` 0 with a 1-month interval -> on-demand, per month. ``commitment`` 12/24
  (``mode`` upfront12/upfront24: one payment for ``interval`` months) -> reserved with that
  term; as the record has no "per 12 months" unit, the upfront amount is divided by the
  interval to give its price per month (exact here: $3431.40 / 12 = $285.95).
- **Regions**: one offer per datacenter in the plan's ``dedicated_datacenter`` configuration
  (``vin``, ``hil``, ``gra``, ``bhs``), since the US subsidiary also sells EU/CA plans.
- The price is that of the plan's default configuration; options such as the 4-GPU addon are
  priced in the catalog's ``addons`` section (absent from the capture) and are not emitted.
- Promotions on a recurring price are not applied (list price).
"""

from __future__ import annotations

import re
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
    json_body,
    money,
)

CATALOG_URL = "https://api.us.ovhcloud.com/v1/order/catalog/public/baremetalServers"
CATALOG_PARAMS = {"ovhSubsidiary": "US"}
HOMEPAGE = "https://us.ovhcloud.com/bare-metal/"
TOKEN_ENV = None

PRICE_SCALE = Decimal(10) ** 8  # catalog prices are integers in 1e-8 currency units
GPU_FAMILY = "gpu"
MEMORY_FAMILY = "memory"
DATACENTER_CONFIG = "dedicated_datacenter"
RECURRING_CAPACITY = "renew"
MONTH = "month"
PRICE_QUANTUM = Decimal("0.000001")  # the warehouse keeps 6 decimals

_GPU_ADDON = re.compile(r"^gpu-(?P<count>\d+)x(?P<rest>.+)$")
_RAM_ADDON = re.compile(r"^ram-(?P<gb>\d+)g-")
_VRAM_SUFFIX = re.compile(r"-(?P<gb>\d+)g$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: GET the US public bare-metal catalog (no auth). Raises ``FetchError``."""
    return [http.get(client, CATALOG_URL, params=CATALOG_PARAMS)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Monthly offers (on-demand and 12/24-month reserved) for every GPU plan and datacenter.

    Raises ``SchemaDriftError`` when the body has no plans, a GPU plan lacks its default GPU or
    memory addon, datacenters or a monthly recurring price, a price disagrees with its
    formatted price, or no GPU plan is found.
    """
    offers: list[Offer] = []
    for response in distinct_bodies(responses):
        plans = _plans(json_body(response), response)
        gpu_plans = [p for p in plans if _family(p, GPU_FAMILY) is not None]
        if not gpu_plans:
            raise SchemaDriftError(f"{response.url}: no plan with a 'gpu' addon family")
        for plan in gpu_plans:
            offers.extend(_plan_offers(plan, response))
    if not offers:
        raise SchemaDriftError("no GPU offers found")
    return ensure_unique(offers)


def _plans(document: Any, response: RawResponse) -> list[dict[str, Any]]:
    plans = document.get("plans") if isinstance(document, dict) else document
    if not isinstance(plans, list) or not plans:
        raise SchemaDriftError(f"{response.url}: expected a catalog with 'plans' or a plan list")
    for plan in plans:
        if not isinstance(plan, dict) or "planCode" not in plan:
            raise SchemaDriftError(f"{response.url}: plan without a planCode: {plan!r:.80}")
    return plans


def _family(plan: dict[str, Any], name: str) -> dict[str, Any] | None:
    families = plan.get("addonFamilies")
    if not isinstance(families, list):
        raise SchemaDriftError(f"plan {plan['planCode']!r} without addonFamilies")
    return next((f for f in families if isinstance(f, dict) and f.get("name") == name), None)


def _default_addon(plan: dict[str, Any], name: str) -> str:
    family = _family(plan, name)
    default = family.get("default") if family else None
    if not isinstance(default, str) or not default:
        raise SchemaDriftError(f"plan {plan['planCode']!r}: no default {name!r} addon")
    return default


def _gpu_spec(plan: dict[str, Any]) -> tuple[str, Decimal, Decimal | None, Decimal]:
    """(gpu model as OVH spells it, GPU count, VRAM GB per GPU or None, RAM GB)."""
    gpu_addon = _default_addon(plan, GPU_FAMILY)
    ram_addon = _default_addon(plan, MEMORY_FAMILY)
    gpu_match, ram_match = _GPU_ADDON.match(gpu_addon), _RAM_ADDON.match(ram_addon)
    if gpu_match is None or ram_match is None:
        raise SchemaDriftError(f"plan {plan['planCode']!r}: unreadable {gpu_addon!r}/{ram_addon!r}")
    suffix = _common_suffix(gpu_addon.split("-"), ram_addon.split("-"))
    model_parts = gpu_match["rest"].split("-")
    if not suffix or len(model_parts) <= len(suffix):
        raise SchemaDriftError(f"plan {plan['planCode']!r}: no model in {gpu_addon!r}")
    model = "-".join(model_parts[: len(model_parts) - len(suffix)])
    vram = _VRAM_SUFFIX.search(model)
    return (
        model,
        Decimal(gpu_match["count"]),
        Decimal(vram["gb"]) if vram else None,
        Decimal(ram_match["gb"]),
    )


def _common_suffix(a: list[str], b: list[str]) -> list[str]:
    suffix: list[str] = []
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        suffix.insert(0, x)
    return suffix


def _datacenters(plan: dict[str, Any]) -> list[str]:
    for config in plan.get("configurations") or []:
        if isinstance(config, dict) and config.get("name") == DATACENTER_CONFIG:
            values = config.get("values")
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                return values
    raise SchemaDriftError(f"plan {plan['planCode']!r}: no {DATACENTER_CONFIG!r} values")


def _monthly_prices(
    plan: dict[str, Any],
) -> list[tuple[PricingModel, int | None, Decimal, str]]:
    """(pricing, term months, price per month, currency) for every recurring pricing."""
    found = []
    for pricing in plan.get("pricings") or []:
        if RECURRING_CAPACITY not in (pricing.get("capacities") or []):
            continue
        try:
            raw, commitment = pricing["price"], pricing["commitment"]
            interval, unit = pricing["interval"], pricing["intervalUnit"]
            formatted = pricing["formattedPrice"]
        except (KeyError, TypeError):
            raise SchemaDriftError(f"plan {plan['planCode']!r}: pricing missing a field") from None
        if unit != MONTH or not isinstance(interval, int) or interval < 1:
            raise SchemaDriftError(f"plan {plan['planCode']!r}: interval {interval} {unit!r}")
        total = decimal(raw) / PRICE_SCALE
        shown, currency = money(formatted)
        if shown != total:
            raise SchemaDriftError(
                f"plan {plan['planCode']!r}: price {raw} is not {formatted!r} in 1e-8 units"
            )
        monthly = total / interval
        if monthly != monthly.quantize(PRICE_QUANTUM):
            monthly = monthly.quantize(PRICE_QUANTUM)  # an upfront total that does not split
        if commitment:
            found.append((PricingModel.RESERVED, int(commitment), monthly, currency))
        elif interval == 1:
            found.append((PricingModel.ON_DEMAND, None, monthly, currency))
        else:
            raise SchemaDriftError(f"plan {plan['planCode']!r}: {interval}-month price, no term")
    if not any(p is PricingModel.ON_DEMAND for p, *_ in found):
        raise SchemaDriftError(f"plan {plan['planCode']!r}: no monthly no-commitment price")
    return found


def _plan_offers(plan: dict[str, Any], response: RawResponse) -> list[Offer]:
    model, count, vram, ram = _gpu_spec(plan)
    prices = _monthly_prices(plan)
    return [
        Offer(
            provider="ovh",
            instance_type=plan["planCode"],
            region=datacenter,
            gpu_name=model,
            gpu_count=count,
            vram_gb_reported=vram,
            ram_gb=ram,
            pricing=pricing,
            reserved_term_months=term,
            price=price,
            currency=currency,
            price_unit=PriceUnit.MONTH,
            price_per=PricePer.INSTANCE,
            source_url=response.url,
            observed_at=response.fetched_at,
        )
        for datacenter in _datacenters(plan)
        for pricing, term, price, currency in prices
    ]


PROVIDER = Provider(
    slug="ovh",
    name="OVHcloud",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    token_env=TOKEN_ENV,
    kind="cloud",
)
