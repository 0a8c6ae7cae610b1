"""The plausibility screen: prices that are listed but are not real offers.

A price can be copied faithfully from a provider's page and still not be a price anyone can
rent at: placeholders in slots the provider does not offer, a spot price above the on-demand
one, a marketplace listing a hundred times below the market. The screen runs in the pipeline
after parsing and before publishing, over the whole market, and marks such offers
``price_status = "suspect"`` with reasons. Suspect offers stay in the warehouse and in history;
the API leaves them out of its default answers (see ``api/``, ``include_suspect``).

Rules (each a ``Reason.code``):

``below_market`` / ``above_market``
    For each canonical GPU, pricing kind and kind of product (instances and serverless tiers
    apart: per-second serverless billing costs more per GPU-hour by design), every *provider*
    contributes the median of its own offers' USD per GPU-hour (so a marketplace with 100
    listings counts once). An offer is compared with the *other* providers' medians, needing at
    least ``MIN_OTHER_PROVIDERS`` (3) of them: below ``LOW_FACTOR`` (1/4) of their lower
    quartile, or above ``HIGH_FACTOR`` (10x) of their median, is suspect. The low side looks
    at the cheap end of the market on purpose: same-GPU prices are bimodal (hyperscalers list
    an A100 at 3-4x a neocloud, a marketplace sits below both), so a quarter of the overall
    median would flag real marketplace bargains, while a quarter of the cheap end only catches
    placeholders and unit errors (cents read as dollars, a month read as an hour). The high
    side is wider because big clouds' list prices are legitimately several times a neocloud's.
``repeated_price``
    One exact quoted price (amount, currency, unit, basis) given in one scrape to at least
    ``REPEAT_MIN_GPUS`` (4) different GPU models whose datasheet memory differs by
    ``REPEAT_VRAM_SPREAD`` (4x) or more: no real price list charges the same for a 16 GB and a
    141 GB card, while a filler value does.
``spot_not_below_on_demand``
    A spot price at or above the on-demand price of the same instance (provider, instance type,
    region): the spot one is suspect.
``spot_near_on_demand``
    A spot price within ``SPOT_NEAR_ON_DEMAND`` (10%) of, or above, the on-demand list price of
    the same SKU (provider, instance type, cloud tier): its own region's where the SKU lists an
    on-demand price there, else the cheapest of any other region (a spot price is a discount
    on a list price, and a provider's list prices across regions are its price list: Azure's
    ND96isr H200 v5 spot in uksouth, where it lists no on-demand price, at the on-demand
    106.00 of japaneast). Regions with their own on-demand price are not compared across:
    their prices differ by design (GCP's H100 spot in europe-west10 is 0.71x the on-demand
    there and 1.09x us-east4's). The
    on-demand reference may be one the provider lists but does not sell now: an offer flagged
    ``offered=False`` (a plan not deployable on demand; a scraper hands such a list price as a
    reference) or one not available now counts, as long as no value rule finds the reference
    itself suspect (a placeholder is no list price). Different cloud tiers (``cloud_tier``:
    secure, community) are different products, never one SKU.
``community_above_secure``
    A ``community`` cloud tier price above the ``secure`` tier price of the same instance and
    pricing kind (community capacity is the cheaper tier by definition).

    These two compare an offer with a sibling; a sibling that is itself suspect on the other
    rules (a placeholder) is no reference, so they run last and skip such siblings.
``not_offered``
    The provider's own flag says the price is not offered (``Offer.offered`` False). When the
    response carries no flag, the newest earlier observation of the same offer that had one
    decides, provided it quoted the same price (a placeholder keeps its value).

Confirmation (``CONFIRMABLE``, ``status``): the value rules ``below_market``,
``above_market`` and ``repeated_price`` judge a price by how it looks next to others; a real
bargain or an odd but real price list trips them too (DataCrunch's B200 spot at 0.80 USD/h,
RunPod's RTX 3090 Secure at 0.50). Such a price is ``confirmed`` (served, not hidden) when the
same offer at the same quoted price was observed by another successful scrape on a different
UTC date, or read off another source document of the provider (``warehouse.plausibility``
finds the confirmation). A price with any other reason stays suspect whatever repeats it: the
provider's own flag (``not_offered``) and a relation to a sibling (spot vs on-demand, community
vs secure) are what a second capture repeats, not refutes; so is a placeholder, which the
provider flags.

``screen`` is pure (this module); ``warehouse.plausibility`` reads the warehouse, runs it and
stores the verdicts in ``price_screens``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from statistics import median, quantiles
from typing import Any

LOW_FACTOR = Decimal("0.25")
HIGH_FACTOR = Decimal(10)
MIN_OTHER_PROVIDERS = 3
REPEAT_MIN_GPUS = 4
REPEAT_VRAM_SPREAD = Decimal(4)

# spot at or above this share of an on-demand list price of the same SKU is suspect
SPOT_NEAR_ON_DEMAND = Decimal("0.9")
OK = "ok"
SUSPECT = "suspect"
CONFIRMED = "confirmed"
# the rules a confirming capture overrides (see the module docstring)
CONFIRMABLE = frozenset({"below_market", "above_market", "repeated_price"})
NOT_OFFERED = "not_offered"


@dataclass(frozen=True, slots=True)
class Reason:
    code: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class MarketOffer:
    """What the screen needs to know of one offer. Money in USD unless named otherwise."""

    offer_id: str
    scrape_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    gpu_id: str | None
    gpu_name_provider: str
    gpu_count: Decimal
    vram_gb_per_gpu: Decimal | None  # datasheet, of the canonical GPU
    price: Decimal  # as quoted
    currency: str
    price_unit: str
    price_per: str
    price_per_hour_usd: Decimal
    price_per_gpu_hour_usd: Decimal  # as stored (warehouse.units), never derived here
    offered: bool | None = None
    earlier_offered: bool | None = None  # newest earlier flag of the same offer, same price
    serverless: bool = False
    observed_at: datetime | None = None  # UTC; None: not known (confirmation needs it)
    source_url: str = ""
    cloud_tier: str | None = None  # the provider's product tier (secure, community), if any

    @property
    def usd_per_gpu_hour(self) -> Decimal:
        return self.price_per_gpu_hour_usd


def screen(offers: Sequence[MarketOffer]) -> dict[str, list[Reason]]:
    """Reasons per offer_id for every suspect offer of ``offers`` (the whole market)."""
    reasons: dict[str, list[Reason]] = defaultdict(list)

    def add(found: Iterable[tuple[str, Reason]]) -> None:
        for offer_id, reason in found:
            if reason.code not in {r.code for r in reasons[offer_id]}:
                reasons[offer_id].append(reason)

    for rule in (_band, _repeated, _flags):
        add(rule(offers))
    references = [o for o in offers if not reasons.get(o.offer_id)]
    # a list price the provider does not sell now is still its list price
    listed = [o for o in offers if all(r.code == NOT_OFFERED for r in reasons.get(o.offer_id, []))]
    add(_spot_vs_on_demand(offers, references))
    # one reason per finding: spot at or above its own region's on-demand is said once
    said = {k for k, v in reasons.items() if any(r.code == "spot_not_below_on_demand" for r in v)}
    add(_spot_near_on_demand([o for o in offers if o.offer_id not in said], listed))
    add(_community_vs_secure(offers, references))
    return {k: v for k, v in reasons.items() if v}


def confirmable(reasons: Sequence[Reason]) -> bool:
    """Whether a confirming capture clears these reasons (all are value rules)."""
    return bool(reasons) and all(r.code in CONFIRMABLE for r in reasons)


def status(reasons: Sequence[Reason], confirmation: Reason | None) -> str:
    """The stored price_status of an offer with these reasons and (maybe) a confirmation."""
    if not reasons:
        return OK
    return CONFIRMED if confirmation is not None and confirmable(reasons) else SUSPECT


def _band(offers: Sequence[MarketOffer]) -> Iterable[tuple[str, Reason]]:
    by_market: dict[tuple[str, str, bool], dict[str, list[Decimal]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for o in offers:
        if o.gpu_id is not None and o.price_per_hour_usd > 0:
            by_market[(o.gpu_id, o.pricing, o.serverless)][o.provider].append(o.usd_per_gpu_hour)
    provider_medians = {
        key: {p: median(v) for p, v in per_provider.items()}
        for key, per_provider in by_market.items()
    }
    for o in offers:
        if o.gpu_id is None or o.price_per_hour_usd <= 0:
            continue
        market = provider_medians[(o.gpu_id, o.pricing, o.serverless)]
        others = [m for p, m in market.items() if p != o.provider]
        if len(others) < MIN_OTHER_PROVIDERS:
            continue
        cheap_end = quantiles(others, n=4, method="inclusive")[0]
        middle = median(others)
        price = o.usd_per_gpu_hour
        market = f"{len(others)} other providers' {o.gpu_id} {o.pricing} prices"
        if price < cheap_end * LOW_FACTOR:
            yield (
                o.offer_id,
                Reason(
                    "below_market",
                    f"{price:.4f} USD/GPU-h is {price / cheap_end:.3g}x the lower quartile "
                    f"{cheap_end:.4f} of {market}",
                ),
            )
        elif price > middle * HIGH_FACTOR:
            yield (
                o.offer_id,
                Reason(
                    "above_market",
                    f"{price:.4f} USD/GPU-h is {price / middle:.3g}x the median "
                    f"{middle:.4f} of {market}",
                ),
            )


def _repeated(offers: Sequence[MarketOffer]) -> Iterable[tuple[str, Reason]]:
    groups: dict[tuple[Any, ...], list[MarketOffer]] = defaultdict(list)
    for o in offers:
        groups[(o.provider, o.scrape_id, o.price, o.currency, o.price_unit, o.price_per)].append(o)
    for (_, _, price, currency, unit, per), members in groups.items():
        models = {o.gpu_id or f"name:{o.gpu_name_provider}" for o in members}
        if len(models) < REPEAT_MIN_GPUS:
            continue
        memory = [o.vram_gb_per_gpu for o in members if o.vram_gb_per_gpu]
        if not memory or max(memory) < min(memory) * REPEAT_VRAM_SPREAD:
            continue
        detail = (
            f"{price.normalize():f} {currency} per {unit} per {per} is quoted for "
            f"{len(models)} GPU models from {min(memory):g} to {max(memory):g} GB in one scrape"
        )
        for o in members:
            yield o.offer_id, Reason("repeated_price", detail)


def _spot_vs_on_demand(
    offers: Sequence[MarketOffer], references: Sequence[MarketOffer]
) -> Iterable[tuple[str, Reason]]:
    on_demand = {
        (o.provider, o.instance_type, o.region, o.cloud_tier): o
        for o in references
        if o.pricing == "on_demand"
    }
    for o in offers:
        base = on_demand.get((o.provider, o.instance_type, o.region, o.cloud_tier))
        if (
            o.pricing == "spot"
            and base is not None
            and o.price_per_hour_usd >= base.price_per_hour_usd
        ):
            yield (
                o.offer_id,
                Reason(
                    "spot_not_below_on_demand",
                    f"spot {o.price_per_hour_usd:.4f} >= on-demand "
                    f"{base.price_per_hour_usd:.4f} USD/h for the same instance",
                ),
            )


def _sku(o: MarketOffer) -> tuple[str, str, bool, str]:
    """One SKU across regions: provider, instance type, kind of product and cloud tier."""
    return (o.provider, o.instance_type, o.serverless, o.cloud_tier or "")


def _spot_near_on_demand(
    offers: Sequence[MarketOffer], listed: Sequence[MarketOffer]
) -> Iterable[tuple[str, Reason]]:
    """Spot within 10% of (or above) its SKU's on-demand list price: the one of its own region
    where the SKU lists one there (regions price apart: GCP's spot in europe-west10 is a 30%
    discount on europe-west10's on-demand, above us-east4's), else the cheapest elsewhere."""
    by_region: dict[tuple[str, str, bool, str], dict[str, MarketOffer]] = defaultdict(dict)
    for o in listed:
        if o.pricing == "on_demand" and o.price_per_hour_usd > 0:
            regions = by_region[_sku(o)]
            if (
                o.region not in regions
                or o.price_per_hour_usd < regions[o.region].price_per_hour_usd
            ):
                regions[o.region] = o
    for o in offers:
        regions = by_region.get(_sku(o)) if o.pricing == "spot" else None
        if not regions:
            continue
        base = regions.get(o.region) or min(
            regions.values(), key=lambda r: (r.price_per_hour_usd, r.region)
        )
        if o.price_per_hour_usd < base.price_per_hour_usd * SPOT_NEAR_ON_DEMAND:
            continue
        where = "the same region" if base.region == o.region else f"region {base.region}"
        listed_only = "" if base.offered is not False else " (listed, not offered)"
        yield (
            o.offer_id,
            Reason(
                "spot_near_on_demand",
                f"spot {o.price_per_hour_usd:.4f} USD/h is "
                f"{o.price_per_hour_usd / base.price_per_hour_usd:.3g}x the on-demand list price"
                f" {base.price_per_hour_usd:.4f} USD/h of the same SKU in {where}{listed_only}",
            ),
        )


def _community_vs_secure(
    offers: Sequence[MarketOffer], references: Sequence[MarketOffer]
) -> Iterable[tuple[str, Reason]]:
    secure = {
        (o.provider, o.instance_type, o.region, o.pricing): o
        for o in references
        if o.cloud_tier == "secure"
    }
    for o in offers:
        base = secure.get((o.provider, o.instance_type, o.region, o.pricing))
        if (
            o.cloud_tier == "community"
            and base is not None
            and o.price_per_hour_usd > base.price_per_hour_usd
        ):
            yield (
                o.offer_id,
                Reason(
                    "community_above_secure",
                    f"community {o.price_per_hour_usd:.4f} > secure "
                    f"{base.price_per_hour_usd:.4f} USD/h",
                ),
            )


def _flags(offers: Sequence[MarketOffer]) -> Iterable[tuple[str, Reason]]:
    for o in offers:
        if o.offered is False:
            yield o.offer_id, Reason("not_offered", "the provider flags this price as not offered")
        elif o.offered is None and o.earlier_offered is False:
            yield (
                o.offer_id,
                Reason(
                    "not_offered",
                    "no flag in this response; the newest earlier observation of the same price "
                    "was flagged as not offered",
                ),
            )
