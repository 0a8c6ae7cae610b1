"""OVHcloud: monthly prices of GPU dedicated servers from the public order catalog API.

``GET https://api.us.ovhcloud.com/v1/order/catalog/public/baremetalServers?ovhSubsidiary=US``
(no auth) returns ``{catalogId, locale, plans, addons, products, planFamilies, ...}``. The
recorded capture holds only the ``plans`` array (re-serialised as a bare JSON array); both
shapes are accepted.

Reading a plan:

- **GPU plans** are those with an addon family named ``gpu`` (its default addon, e.g.
  ``gpu-2xnvidia-l4-23scalegpu01-v1-eu``, is the GPU option of the default configuration).
  Every other plan is a CPU/storage server and is not an offer (``non_gpu``). The
  plan objects carry no ``blobs.technical`` section, so the GPU count and model come from the
  default addon's code: ``gpu-<count>x<model>-<suffix>``, where ``<suffix>`` is the tail the
  code shares with the plan's default memory addon (``ram-192g-ecc-4800-23scalegpu01-v1-eu``)
  -- the plan-specific part, not the GPU. A ``-<n>g`` ending of the model is its VRAM in GB.
  The model must be one of ``GPU_MODELS`` (the models this scraper has seen); RAM (GB) comes
  from the default memory addon (``ram-<n>g-...``).
- **Prices** are in ``pricings``. Only entries with capacity ``renew`` (the recurring rental
  price) are read; ``installation`` entries are one-off setup fees. ``price`` is an integer in
  1e-8 of the catalog currency: e.g. 30100000000 is shown as ``formattedPrice`` "$301.00 USD".
  Every price is checked against its ``formattedPrice`` (which also gives the currency), so a
  change of unit is never published: the plan is excluded, and when it is every plan the
  provider fails (no known offer left). A price of zero or below (``"$-3505.00 USD"``) is emitted
  as read: the loader rejects the whole scrape for it.
- ``commitment`` 0 with a 1-month interval -> on-demand, per month. ``commitment`` 12/24
  (``mode`` upfront12/upfront24: one payment for ``interval`` months) -> reserved with that
  term; as the record has no "per 12 months" unit, the upfront amount is divided by the
  interval to give its price per month (exact here: $3431.40 / 12 = $285.95).
- **Regions**: one offer per datacenter in the plan's ``dedicated_datacenter`` configuration
  (``vin``, ``hil``, ``gra``, ``bhs``), since the US subsidiary also sells EU/CA plans.
- The price is that of the plan's default configuration; options such as the 4-GPU addon are
  priced in the catalog's ``addons`` section (absent from the capture) and are not emitted.
- Promotions on a recurring price are not applied (list price).

Exclusions (counted by ``parse_with_exclusions``, one count per plan unless stated):

- ``non_gpu``: a plan without a ``gpu`` addon family;
- ``unknown_gpu <model>``: a GPU plan whose model (``nvidia-h200-141g``) is not in
  ``GPU_MODELS`` (add it once its name has been checked);
- ``unknown_unit <unit>``: recurring pricings whose ``intervalUnit`` is not ``month`` (counted
  once per plan and unit), and ``multi_month_no_term``: one recurring pricing of several months
  without a commitment; these pricings are left out, the plan's other prices are still read;
- a plan that cannot be classified: ``no_plan_code``, ``no_addon_families``;
- a GPU plan that cannot be read: ``no_default_gpu_addon`` / ``no_default_memory_addon``,
  ``unparsed_gpu_addon`` / ``unparsed_memory_addon`` (an addon code of another shape),
  ``no_datacenter``,
  ``unparsed_price`` (a pricing field missing or not a number), ``price_mismatch`` (a price that
  is not its formatted price in 1e-8 units), ``no_on_demand_price``.

``SchemaDriftError`` is kept for a structure that is gone: a body that is no plan list, no plan
with a ``planCode`` or ``addonFamilies`` at all, no plan with a ``gpu`` family, no offer left
(the message lists the exclusions), or the same offer twice.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
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
    money,
    offers_from_rows,
    unknown_row,
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
# GPU models as the addon codes spell them (the part between "gpu-<n>x" and the plan suffix),
# each seen in the catalog: 24hgrai02 (L40S 48 GB), 23scalegpu01-03 (L4), 21hgrai012 (V100S).
GPU_MODELS = frozenset({"nvidia-l40s-48g", "nvidia-l4", "nvidia-tesla-v100s"})

_GPU_ADDON = re.compile(r"^gpu-(?P<count>\d+)x(?P<rest>.+)$")
_RAM_ADDON = re.compile(r"^ram-(?P<gb>\d+)g-")
_VRAM_SUFFIX = re.compile(r"-(?P<gb>\d+)g$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: GET the US public bare-metal catalog (no auth). Raises ``FetchError``."""
    return [http.get(client, CATALOG_URL, params=CATALOG_PARAMS)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Monthly offers (on-demand and 12/24-month reserved) for every GPU plan and datacenter.

    Raises ``SchemaDriftError`` when the body is no plan list, no plan has a ``planCode`` or
    ``addonFamilies``, no plan has a ``gpu`` addon family, or no GPU offer is left; a GPU plan
    that cannot be read is excluded (and counted).

    Returns the offers, and the plans (and single pricings) left out, counted per reason.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        gpu_plans = _gpu_plans(_plans(json_body(response), response), response, excluded)
        offers.extend(
            offers_from_rows(
                gpu_plans, partial(_plan_offers, response=response, excluded=excluded), excluded
            )
        )
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()) if r != "non_gpu")
        raise SchemaDriftError(f"no GPU offers found (excluded: {reasons or 'none'})")
    return ensure_unique(offers), excluded


def _plans(document: Any, response: RawResponse) -> list[Any]:
    plans = document.get("plans") if isinstance(document, dict) else document
    if not isinstance(plans, list) or not plans:
        raise SchemaDriftError(f"{response.url}: expected a catalog with 'plans' or a plan list")
    return plans


def _gpu_plans(
    plans: list[Any], response: RawResponse, excluded: Counter[str]
) -> list[dict[str, Any]]:
    """The plans with a ``gpu`` addon family; the others are counted (``non_gpu`` and the
    unreadable ones). A field every plan has, missing from all of them, is drift."""
    named = [p for p in plans if isinstance(p, dict) and _is_name(p.get("planCode"))]
    if not named:
        raise SchemaDriftError(f"{response.url}: no plan with a planCode: {plans[0]!r:.80}")
    readable = [p for p in named if isinstance(p.get("addonFamilies"), list)]
    if not readable:
        raise SchemaDriftError(f"{response.url}: every plan is without addonFamilies")
    gpu_plans = [p for p in readable if _family(p, GPU_FAMILY) is not None]
    if not gpu_plans:
        raise SchemaDriftError(f"{response.url}: no plan with a 'gpu' addon family")
    for reason, count in (
        ("no_plan_code", len(plans) - len(named)),
        ("no_addon_families", len(named) - len(readable)),
        ("non_gpu", len(readable) - len(gpu_plans)),
    ):
        if count:
            excluded[reason] += count
    return gpu_plans


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _family(plan: dict[str, Any], name: str) -> dict[str, Any] | None:
    families = plan["addonFamilies"]
    return next((f for f in families if isinstance(f, dict) and f.get("name") == name), None)


def _default_addon(plan: dict[str, Any], name: str) -> str:
    family = _family(plan, name)
    default = family.get("default") if family else None
    if not isinstance(default, str) or not default:
        raise RowExcluded(f"no_default_{name}_addon")
    return default


def _gpu_spec(plan: dict[str, Any]) -> tuple[str, Decimal, Decimal | None, Decimal]:
    """(gpu model as OVH spells it, GPU count, VRAM GB per GPU or None, RAM GB)."""
    gpu_addon = _default_addon(plan, GPU_FAMILY)
    ram_addon = _default_addon(plan, MEMORY_FAMILY)
    gpu_match, ram_match = _GPU_ADDON.match(gpu_addon), _RAM_ADDON.match(ram_addon)
    if gpu_match is None:
        raise RowExcluded("unparsed_gpu_addon")
    if ram_match is None:
        raise RowExcluded("unparsed_memory_addon")
    suffix = _common_suffix(gpu_addon.split("-"), ram_addon.split("-"))
    model_parts = gpu_match["rest"].split("-")
    if not suffix or len(model_parts) <= len(suffix):
        raise RowExcluded("unparsed_gpu_addon")
    model = "-".join(model_parts[: len(model_parts) - len(suffix)])
    if model not in GPU_MODELS:
        raise RowExcluded(unknown_row("gpu", model))
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
    raise RowExcluded("no_datacenter")


def _monthly_prices(
    plan: dict[str, Any], excluded: Counter[str]
) -> list[tuple[PricingModel, int | None, Decimal, str]]:
    """(pricing, term months, price per month, currency) for every recurring pricing.

    A single pricing of another unit or without a term is counted in ``excluded`` and left
    out; a plan whose prices cannot be trusted raises ``RowExcluded``.
    """
    found = []
    skipped: Counter[str] = Counter()
    for pricing in plan.get("pricings") or []:
        if not isinstance(pricing, dict):
            raise RowExcluded("unparsed_price")
        if RECURRING_CAPACITY not in (pricing.get("capacities") or []):
            continue
        try:
            raw, commitment = pricing["price"], pricing["commitment"]
            interval, unit = pricing["interval"], pricing["intervalUnit"]
            formatted = pricing["formattedPrice"]
            total = decimal(raw) / PRICE_SCALE
            # signed as printed ("$-3505.00 USD"): emitted, so that the loader rejects it
            shown, currency = money(formatted)
        except (KeyError, TypeError, SchemaDriftError):
            raise RowExcluded("unparsed_price") from None
        if unit != MONTH:
            skipped[unknown_row("unit", str(unit))] = 1  # once per plan: the plan is the row
            continue
        if not isinstance(interval, int) or interval < 1:
            raise RowExcluded("unparsed_price")
        if shown != total:
            raise RowExcluded("price_mismatch")  # e.g. a new price unit: never publish it
        monthly = total / interval
        if monthly != monthly.quantize(PRICE_QUANTUM):
            monthly = monthly.quantize(PRICE_QUANTUM)  # an upfront total that does not split
        if commitment:
            found.append((PricingModel.RESERVED, int(commitment), monthly, currency))
        elif interval == 1:
            found.append((PricingModel.ON_DEMAND, None, monthly, currency))
        else:
            skipped["multi_month_no_term"] += 1
    if not any(p is PricingModel.ON_DEMAND for p, *_ in found):
        raise RowExcluded("no_on_demand_price")
    excluded.update(skipped)  # only once the plan itself is kept
    return found


def _plan_offers(
    plan: dict[str, Any], response: RawResponse, excluded: Counter[str]
) -> list[Offer]:
    model, count, vram, ram = _gpu_spec(plan)
    datacenters = _datacenters(plan)
    prices = _monthly_prices(plan, excluded)
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
        for datacenter in datacenters
        for pricing, term, price, currency in prices
    ]


PROVIDER = Provider(
    slug="ovh",
    name="OVHcloud",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
)
