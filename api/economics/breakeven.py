"""Serverless tiers vs dedicated offers computed from a snapshot's rows (GET /breakeven).

Pure functions over the offers the service fetched; every cost is ``warehouse.economics``
(``serverless_seconds_per_day``, ``dedicated_replicas``, ``dedicated_monthly_usd``,
``breakeven``), formulas in ``docs/estimates.md`` section 3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from warehouse import economics
from warehouse.estimates import Estimator, whole_gpus
from warehouse.queries import PRICE_TIME_COLUMNS

SECONDS_PER_HOUR = Decimal(3600)


def _tier(offer: Mapping[str, Any]) -> tuple[economics.ServerlessTier, list[str]]:
    """A serverless offer as an ``economics.ServerlessTier``, with the assumptions made for
    facts the seeds leave unknown (each one named)."""
    assumptions = []
    granularity = offer["billing_granularity_s"]
    if granularity is None:
        assumptions.append("billing step unknown: 1 s assumed")
    minimum = offer["minimum_charge_s"]
    idle = offer["idle_charged"]
    if idle is None:
        assumptions.append("idle billing unknown: idle warm time assumed billed")
    scale = offer["scale_to_zero"]
    if offer["always_on"]:
        scale = False  # an always-on tier bills one worker around the clock
    elif scale is None:
        assumptions.append("scale-to-zero unknown: assumed available")
    tier = economics.ServerlessTier(
        provider=offer["provider"], gpu_id=offer["gpu_id"],
        price_per_second_usd=Decimal(offer["price_per_hour_usd"]) / SECONDS_PER_HOUR,
        billing_granularity_s=float(granularity) if granularity is not None else 1.0,
        min_charge_s=float(minimum) if minimum is not None else 0.0,
        # 'partial' (only a bounded keep-warm window is billed) is what the idle-tail model does.
        charges_idle=idle != "false", scale_to_zero=scale is not False,
    )  # fmt: skip
    return tier, assumptions


def _gpu_seconds(
    est: Estimator,
    offer: Mapping[str, Any],
    model_id: str | None,
    precision: str,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    given: float | None,
) -> float | str:
    """Seconds of the whole offer's time per request, or why the model cannot run on it."""
    if model_id is None:
        assert given is not None
        return given
    count = whole_gpus(offer["gpu_count"])
    if count is None:
        return f"fractional GPU share ({offer['gpu_count']} GPUs) is not modelled"
    result = est.throughput(
        model_id,
        offer["gpu_id"],
        count,
        precision,
        input_tokens,
        output_tokens,
        concurrency=concurrency,
    )
    if isinstance(result, str):
        return result
    if not result.fits:
        return f"{model_id} does not fit {count} x {offer['gpu_id']}"
    return output_tokens / result.output_tokens_per_s


def breakeven_answer(
    offers: Sequence[Mapping[str, Any]],
    est: Estimator,
    *,
    requests_per_day: float,
    model_id: str | None,
    gpu_seconds_per_request: float | None,
    precision: str,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    cold_start_s: float,
    min_warm_replicas: int,
    idle_timeout_s: float,
    dedicated_pricing: str,
) -> dict[str, Any]:
    """Every serverless tier that fits vs the cheapest dedicated offer that fits.

    With ``model_id`` the GPU-seconds per request come from the throughput model on each
    offer's own hardware (output tokens / output tokens/s at ``concurrency`` requests in flight
    per replica), and the dedicated side is the offer with the lowest monthly cost over all
    GPU models. With ``gpu_seconds_per_request`` (measured on the tier's hardware) a tier is
    compared with the cheapest dedicated offer of the same GPU model and count. Dedicated =
    replicas x USD/hour x 730 h; break-even = the request rate at which the tier costs as
    much as one dedicated replica (``economics.breakeven``), and that rate's busy share of one
    dedicated replica's day.
    """

    def load(seconds: float) -> economics.Load:
        return economics.Load(
            requests_per_day,
            seconds,
            cold_start_s=cold_start_s,
            min_warm_replicas=min_warm_replicas,
            idle_timeout_s=idle_timeout_s,
        )

    def seconds_for(offer: Mapping[str, Any]) -> float | str:
        return _gpu_seconds(
            est,
            offer,
            model_id,
            precision,
            input_tokens,
            output_tokens,
            concurrency,
            gpu_seconds_per_request,
        )

    dedicated: list[dict[str, Any]] = []
    for offer in offers:
        if offer["serverless"] or offer["gpu_id"] not in est.gpus:
            continue
        if dedicated_pricing != "any" and offer["pricing"] != dedicated_pricing:
            continue
        seconds = seconds_for(offer)
        if isinstance(seconds, str):
            continue
        replicas = economics.dedicated_replicas(load(seconds))
        monthly = economics.dedicated_monthly_usd(offer["price_per_hour_usd"], replicas)
        dedicated.append(
            {"offer": offer, "seconds": seconds, "replicas": replicas, "monthly": monthly}
        )
    dedicated.sort(key=lambda d: (d["monthly"], d["offer"]["offer_id"]))
    cheapest_overall = dedicated[0] if dedicated else None

    items: list[dict[str, Any]] = []
    not_fitting: list[dict[str, str]] = []
    for offer in offers:
        if not offer["serverless"] or offer["gpu_id"] not in est.gpus:
            continue
        seconds = seconds_for(offer)
        if isinstance(seconds, str):
            not_fitting.append({"offer_id": offer["offer_id"], "reason": seconds})
            continue
        tier, assumptions = _tier(offer)
        billed_s = economics.serverless_seconds_per_day(load(seconds), tier)
        if model_id is not None:
            match = cheapest_overall
        else:
            match = next(
                (
                    d
                    for d in dedicated
                    if d["offer"]["gpu_id"] == offer["gpu_id"]
                    and d["offer"]["gpu_count"] == offer["gpu_count"]
                ),
                None,
            )
        item: dict[str, Any] = {
            "offer_id": offer["offer_id"], "platform": offer["provider"],
            "tier": offer["instance_type"], "gpu_id": offer["gpu_id"],
            "gpu_count": offer["gpu_count"], "price_per_hour_usd": offer["price_per_hour_usd"],
            "billing_granularity_s": tier.billing_granularity_s,
            "minimum_charge_s": tier.min_charge_s, "idle_charged": tier.charges_idle,
            "scale_to_zero": tier.scale_to_zero, "assumptions": assumptions,
            "gpu_seconds_per_request": round(seconds, 6),
            "billed_seconds_per_day": round(billed_s, 3),
            **{k: offer[k] for k in PRICE_TIME_COLUMNS},
        }  # fmt: skip
        if match is None:
            item.update(
                serverless_monthly_usd=economics.serverless_monthly_usd(load(seconds), tier),
                dedicated_offer_id=None,
                dedicated_provider=None,
                dedicated_instance_type=None,
                dedicated_gpu_id=None,
                dedicated_gpu_count=None,
                dedicated_price_per_hour_usd=None,
                dedicated_gpu_seconds_per_request=None,
                dedicated_replicas=None,
                dedicated_monthly_usd=None,
                dedicated_utilization=None,
                cheaper=None,
                breakeven_requests_per_day=None,
                breakeven_dedicated_utilization=None,
            )
            items.append(item)
            continue
        d_offer = match["offer"]
        result = economics.breakeven(load(seconds), tier, Decimal(d_offer["price_per_hour_usd"]))
        be_util = None
        if result.breakeven_requests_per_day is not None:
            share = result.breakeven_requests_per_day * match["seconds"] / economics.SECONDS_PER_DAY
            be_util = round(share, 6) if share <= 1 else None
        busy = requests_per_day * match["seconds"]
        item.update(
            serverless_monthly_usd=result.serverless_monthly_usd,
            dedicated_offer_id=d_offer["offer_id"], dedicated_provider=d_offer["provider"],
            dedicated_instance_type=d_offer["instance_type"],
            dedicated_gpu_id=d_offer["gpu_id"], dedicated_gpu_count=d_offer["gpu_count"],
            dedicated_price_per_hour_usd=d_offer["price_per_hour_usd"],
            dedicated_gpu_seconds_per_request=round(match["seconds"], 6),
            dedicated_replicas=match["replicas"], dedicated_monthly_usd=match["monthly"],
            dedicated_utilization=round(busy / (match["replicas"] * economics.SECONDS_PER_DAY), 6),
            cheaper="serverless" if result.serverless_monthly_usd < match["monthly"]
            else "dedicated",
            breakeven_requests_per_day=None if result.breakeven_requests_per_day is None
            else round(result.breakeven_requests_per_day, 3),
            breakeven_dedicated_utilization=be_util,
        )  # fmt: skip
        items.append(item)
    items.sort(key=lambda i: (i["serverless_monthly_usd"], i["offer_id"]))
    cheapest = None
    if cheapest_overall is not None:
        o = cheapest_overall["offer"]
        cheapest = {
            "offer_id": o["offer_id"], "provider": o["provider"],
            "instance_type": o["instance_type"], "gpu_id": o["gpu_id"],
            "gpu_count": o["gpu_count"], "pricing": o["pricing"],
            "price_per_hour_usd": o["price_per_hour_usd"],
            "gpu_seconds_per_request": round(cheapest_overall["seconds"], 6),
            "replicas": cheapest_overall["replicas"],
            "monthly_usd": cheapest_overall["monthly"], "source_url": o["source_url"],
            **{k: o[k] for k in PRICE_TIME_COLUMNS},
        }  # fmt: skip
    return {"items": items, "cheapest_dedicated": cheapest, "not_fitting": not_fitting}
