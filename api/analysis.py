"""Economics answers computed from a snapshot's rows: on-demand token estimates, model fit per
GPU model, and serverless vs dedicated break-even.

Pure functions over rows the controllers fetched (``api.queries``) and the snapshot's model and
GPU tables; the formulas are ``warehouse.economics`` (see ``docs/estimates.md``), the per-offer
estimate is ``warehouse.estimates.estimate_rows``, the function that also builds the
``token_estimates`` table, so the API and the table cannot disagree.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from warehouse import economics
from warehouse.estimates import Estimator, estimate_rows, gpu_from_row, precision_for, whole_gpus
from warehouse.facts import model_from_row

# Keys of one /estimates item, in order (token_estimates columns, gpu_id served as gpu_model).
ESTIMATE_ITEM_KEYS: tuple[str, ...] = (
    "offer_id", "provider", "instance_type", "region", "pricing", "serverless", "gpu_model",
    "gpu_count", "model_id", "input_tokens", "output_tokens", "precision_requested",
    "weight_precision", "compute_precision", "kv_precision", "precision_native",
    "fallback_reason", "gpus_used", "tensor_parallel", "data_parallel", "batch_per_replica",
    "output_tokens_per_s", "total_tokens_per_s", "price_per_hour_usd",
    "usd_per_million_output_tokens", "usd_per_million_total_tokens", "observed_at", "source_url",
)  # fmt: skip

_ESTIMATORS: OrderedDict[str, Estimator] = OrderedDict()
_ESTIMATORS_LOCK = threading.Lock()


def estimator(
    snapshot_id: str, model_rows: Iterable[Mapping[str, Any]], gpu_rows: Iterable[Mapping[str, Any]]
) -> Estimator:
    """One memoised Estimator per snapshot (the newest two are kept)."""
    with _ESTIMATORS_LOCK:
        found = _ESTIMATORS.get(snapshot_id)
        if found is not None:
            return found
    built = Estimator(
        {r["model_id"]: model_from_row(dict(r)) for r in model_rows},
        {r["gpu_id"]: gpu_from_row(r) for r in gpu_rows},
    )
    with _ESTIMATORS_LOCK:
        _ESTIMATORS[snapshot_id] = built
        while len(_ESTIMATORS) > 2:
            _ESTIMATORS.popitem(last=False)
    return built


# ---------------------------------------------------------------------------------------------
# GET /estimates


def ranked_estimates(
    offers: Sequence[Mapping[str, Any]],
    est: Estimator,
    model_id: str,
    precision: str,
    input_tokens: int,
    output_tokens: int,
) -> list[dict[str, Any]]:
    """Fitting offers for ``model_id``, cheapest USD per million total tokens first (ties by
    offer id), as /estimates items. Same numbers as token_estimates at the same settings."""
    source = {o["offer_id"]: o["source_url"] for o in offers}
    rows = estimate_rows(
        offers,
        est,
        [model_id],
        precision=precision,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
    )
    fitting = [r for r in rows if r["fits"]]
    fitting.sort(key=lambda r: (r["usd_per_million_total_tokens"], r["offer_id"]))
    return [
        {
            k: (
                r["gpu_id"]
                if k == "gpu_model"
                else source[r["offer_id"]]
                if k == "source_url"
                else r[k]
            )
            for k in ESTIMATE_ITEM_KEYS
        }
        for r in fitting
    ]


def hardware_estimate(
    est: Estimator,
    model_id: str,
    gpu_id: str,
    gpus: int,
    precision: str,
    input_tokens: int,
    output_tokens: int,
) -> dict[str, Any]:
    """Throughput of ``gpus`` x ``gpu_id`` serving ``model_id`` (no offer, no price)."""
    model, gpu = est.models[model_id], est.gpus[gpu_id]
    resolved = economics.resolve_precision(precision_for(precision, model, gpu), gpu)
    result = est.throughput(model_id, gpu_id, gpus, precision, input_tokens, output_tokens)
    body: dict[str, Any] = {
        "model_id": model_id, "gpu_model": gpu_id, "gpus": gpus, "input_tokens": input_tokens,
        "output_tokens": output_tokens, "precision_requested": resolved.requested,
        "weight_precision": resolved.weight_precision,
        "compute_precision": resolved.compute_precision, "kv_precision": resolved.kv_precision,
        "precision_native": resolved.native, "fallback_reason": resolved.fallback_reason,
        "fits": False, "not_estimated_reason": None, "tensor_parallel": 0, "data_parallel": 0,
        "batch_per_replica": 0, "output_tokens_per_s": 0.0, "total_tokens_per_s": 0.0,
        "decode_tokens_per_s_per_sequence": 0.0, "prefill_s_per_request": 0.0,
    }  # fmt: skip
    if isinstance(result, str):
        body["not_estimated_reason"] = result
    elif not result.fits:
        body["not_estimated_reason"] = (
            f"{model_id} does not fit {gpus} x {gpu_id} at {resolved.weight_precision} with one "
            f"{input_tokens + output_tokens}-token sequence"
        )
    else:
        body.update(
            fits=True, tensor_parallel=result.tensor_parallel,
            data_parallel=result.data_parallel, batch_per_replica=result.batch,
            output_tokens_per_s=round(result.output_tokens_per_s, 3),
            total_tokens_per_s=round(result.total_tokens_per_s, 3),
            decode_tokens_per_s_per_sequence=round(result.decode_tokens_per_s_per_seq, 3),
            prefill_s_per_request=round(result.prefill_s_per_request, 6),
        )  # fmt: skip
    return body


# ---------------------------------------------------------------------------------------------
# GET /fit


def fit_answer(
    offers: Sequence[Mapping[str, Any]],
    est: Estimator,
    model_id: str,
    precision: str,
    context_tokens: int,
    concurrency: int,
) -> dict[str, Any]:
    """Per GPU model with current offers: the smallest TP group that holds the model plus
    ``concurrency`` sequences of ``context_tokens``, and every offer with at least that many
    GPUs (cheapest USD per instance-hour first). An offer of a share of one GPU (MIG profile,
    vGPU share: ``gpu_count`` < 1) serves when the model fits in the memory the share gives
    (``gpu_count`` x the datasheet memory, the offer's ``vram_gb_usable``) on its own."""
    model = est.models[model_id]
    by_gpu: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for offer in offers:
        if offer["gpu_id"] in est.gpus:
            by_gpu[offer["gpu_id"]].append(offer)
    gpus_out: list[dict[str, Any]] = []
    serving: list[dict[str, Any]] = []
    for gpu_id in sorted(by_gpu):
        gpu, group = est.gpus[gpu_id], by_gpu[gpu_id]
        counts = [whole_gpus(o["gpu_count"]) for o in group]
        largest = max([8, *(c for c in counts if c)])
        result = economics.fit(
            model,
            precision_for(precision, model, gpu),
            context_tokens,
            concurrency,
            gpu,
            max_gpus=largest,
        )
        able = [
            o
            for o, n in zip(group, counts, strict=True)
            if n is not None and result.min_gpus is not None and n >= result.min_gpus
        ]
        able += [
            o
            for o, n in zip(group, counts, strict=True)
            if n is None and _share_fits(model, precision, context_tokens, concurrency, gpu, o)
        ]
        cheapest = min(able, key=lambda o: (o["price_per_hour_usd"], o["offer_id"]), default=None)
        b, p = result.breakdown, result.precision
        gpus_out.append({
            "gpu_model": gpu_id, "fits": result.fits, "min_gpus": result.min_gpus,
            "precision_requested": p.requested, "weight_precision": p.weight_precision,
            "compute_precision": p.compute_precision, "kv_precision": p.kv_precision,
            "precision_native": p.native, "fallback_reason": p.fallback_reason,
            "gpus_in_breakdown": b.gpus, "weights_gb": round(b.weights_gb, 3),
            "kv_cache_gb": round(b.kv_cache_gb, 3), "overhead_gb": round(b.overhead_gb, 3),
            "required_gb": round(b.required_gb, 3), "capacity_gb": round(b.capacity_gb, 3),
            "offers": len(group), "offers_that_fit": len(able),
            "cheapest_offer_id": cheapest["offer_id"] if cheapest else None,
            "cheapest_price_per_hour_usd": cheapest["price_per_hour_usd"] if cheapest else None,
        })  # fmt: skip
        serving.extend(
            {
                "offer_id": o["offer_id"],
                "provider": o["provider"],
                "instance_type": o["instance_type"],
                "region": o["region"],
                "pricing": o["pricing"],
                "serverless": o["serverless"],
                "gpu_model": gpu_id,
                "gpu_count": o["gpu_count"],
                "min_gpus": result.min_gpus,
                "price_per_hour_usd": o["price_per_hour_usd"],
                "source_url": o["source_url"],
            }
            for o in able
        )
    gpus_out.sort(key=lambda g: (g["min_gpus"] is None, g["min_gpus"] or 0, g["gpu_model"]))
    serving.sort(key=lambda o: (o["price_per_hour_usd"], o["offer_id"]))
    return {"gpus": gpus_out, "offers": serving}


def _share_fits(
    model: economics.ModelSpec,
    precision: str,
    context_tokens: int,
    concurrency: int,
    gpu: economics.GpuSpec,
    offer: Mapping[str, Any],
) -> bool:
    """Does the model fit in one share of ``gpu`` (memory = share x datasheet memory)?"""
    share = float(offer["gpu_count"])
    if not 0 < share < 1:
        return False
    sliced = dataclasses.replace(gpu, vram_gb=gpu.vram_gb * share)
    result = economics.fit(
        model, precision_for(precision, model, gpu), context_tokens, concurrency, sliced, 1
    )
    return result.fits


# ---------------------------------------------------------------------------------------------
# GET /breakeven

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


def _dedicated_monthly(load: economics.Load, price_per_hour_usd: Decimal) -> tuple[int, Decimal]:
    replicas = economics.dedicated_replicas(load)
    monthly = Decimal(price_per_hour_usd) * replicas * economics.HOURS_PER_MONTH
    return replicas, monthly.quantize(economics.USD_QUANTUM)


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
        replicas, monthly = _dedicated_monthly(load(seconds), offer["price_per_hour_usd"])
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
            "tier": offer["instance_type"], "gpu_model": offer["gpu_id"],
            "gpu_count": offer["gpu_count"], "price_per_hour_usd": offer["price_per_hour_usd"],
            "billing_granularity_s": tier.billing_granularity_s,
            "minimum_charge_s": tier.min_charge_s, "idle_charged": tier.charges_idle,
            "scale_to_zero": tier.scale_to_zero, "assumptions": assumptions,
            "gpu_seconds_per_request": round(seconds, 6),
            "billed_seconds_per_day": round(billed_s, 3),
        }  # fmt: skip
        if match is None:
            # breakeven() prices the serverless side independently of the dedicated price.
            result = economics.breakeven(load(seconds), tier, Decimal(0))
            item.update(
                serverless_monthly_usd=result.serverless_monthly_usd,
                dedicated_offer_id=None,
                dedicated_provider=None,
                dedicated_instance_type=None,
                dedicated_gpu_model=None,
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
            dedicated_gpu_model=d_offer["gpu_id"], dedicated_gpu_count=d_offer["gpu_count"],
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
            "instance_type": o["instance_type"], "gpu_model": o["gpu_id"],
            "gpu_count": o["gpu_count"], "pricing": o["pricing"],
            "price_per_hour_usd": o["price_per_hour_usd"],
            "gpu_seconds_per_request": round(cheapest_overall["seconds"], 6),
            "replicas": cheapest_overall["replicas"],
            "monthly_usd": cheapest_overall["monthly"], "source_url": o["source_url"],
        }  # fmt: skip
    return {"items": items, "cheapest_dedicated": cheapest, "not_fitting": not_fitting}
