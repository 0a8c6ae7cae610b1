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
    region, cloud tier): the spot one is suspect.
``community_above_secure``
    A ``community`` cloud tier price above the ``secure`` tier price of the same instance and
    pricing kind (community capacity is the cheaper tier by definition).

    These two compare an offer with a sibling; a sibling that is itself suspect on the other
    rules (a placeholder) is no reference, so they run last and skip such siblings.
``not_offered``
    The provider's own flag says the price is not offered (``Offer.offered`` False). When the
    response carries no flag, the newest earlier observation of the same offer that had one
    decides, provided it quoted the same price (a placeholder keeps its value).

``screen`` is pure (this module); ``warehouse.plausibility`` reads the warehouse, runs it and
stores the verdicts in ``price_screens``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from statistics import median, quantiles
from typing import Any

LOW_FACTOR = Decimal("0.25")
HIGH_FACTOR = Decimal(10)
MIN_OTHER_PROVIDERS = 3
REPEAT_MIN_GPUS = 4
REPEAT_VRAM_SPREAD = Decimal(4)

OK = "ok"
SUSPECT = "suspect"


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
    add(_spot_vs_on_demand(offers, references))
    add(_community_vs_secure(offers, references))
    return {k: v for k, v in reasons.items() if v}


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
