"""Token estimates and model fit computed from a snapshot's rows (GET /estimates, /fit).

Pure functions over rows the service fetched (``warehouse.queries.economics``) and the
snapshot's model and GPU tables; the formulas are ``warehouse.economics`` (see
``docs/estimates.md``), the per-offer estimate is ``warehouse.estimates.estimate_rows``, the
function that also builds the ``token_estimates`` table, so the API and the table cannot
disagree; an item's keys are ``warehouse.queries.economics.ESTIMATE_ITEM_KEYS``, the columns
the table's page query selects.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from warehouse import economics
from warehouse.estimates import (
    Estimator,
    does_not_fit,
    estimate_rows,
    precision_for,
    whole_gpus,
)
from warehouse.facts import model_from_row
from warehouse.queries import PRICE_TIME_COLUMNS
from warehouse.queries.economics import ESTIMATE_ITEM_KEYS, ESTIMATE_OFFER_KEYS

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
        {r["gpu_id"]: economics.gpu_spec_from_row(r) for r in gpu_rows},
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
    kv_admission: str = economics.DEFAULT_KV_ADMISSION,
) -> list[dict[str, Any]]:
    """Fitting offers for ``model_id``, cheapest USD per million total tokens first (ties by
    offer id), as /estimates items. Same numbers as token_estimates at the same settings."""
    by_id = {o["offer_id"]: o for o in offers}
    rows = estimate_rows(
        offers,
        est,
        [model_id],
        precision=precision,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        kv_admission=kv_admission,
    )
    fitting = [r for r in rows if r["fits"]]
    fitting.sort(key=lambda r: (r["usd_per_million_total_tokens"], r["offer_id"]))
    return [
        {
            k: by_id[r["offer_id"]][k] if k in ESTIMATE_OFFER_KEYS else r[k]
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
    kv_admission: str = economics.DEFAULT_KV_ADMISSION,
) -> dict[str, Any]:
    """Throughput of ``gpus`` x ``gpu_id`` serving ``model_id`` (no offer, no price)."""
    model, gpu = est.models[model_id], est.gpus[gpu_id]
    resolved = economics.resolve_precision(precision_for(precision, model, gpu), gpu)
    result = est.throughput(
        model_id, gpu_id, gpus, precision, input_tokens, output_tokens, kv_admission=kv_admission
    )
    body: dict[str, Any] = {
        "model_id": model_id, "gpu_id": gpu_id, "gpus": gpus, "input_tokens": input_tokens,
        "output_tokens": output_tokens, "precision_requested": resolved.requested,
        "weight_precision": resolved.weight_precision,
        "compute_precision": resolved.compute_precision, "kv_precision": resolved.kv_precision,
        "precision_native": resolved.native, "fallback_reason": resolved.fallback_reason,
        "fits": False, "not_estimated_reason": None, "tensor_parallel": 0, "data_parallel": 0,
        "batch_per_replica": 0, "output_tokens_per_s": 0.0, "total_tokens_per_s": 0.0,
        "decode_tokens_per_s_per_sequence": 0.0, "prefill_s_per_request": 0.0,
        "assumptions": None,
    }  # fmt: skip
    if isinstance(result, str):
        body["not_estimated_reason"] = result
    elif not result.fits:
        body["not_estimated_reason"] = does_not_fit(
            model_id, gpus, gpu_id, resolved.weight_precision, input_tokens + output_tokens
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
        body = economics.nest_assumptions({**body, **economics.assumption_fields(result)})
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
            "gpu_id": gpu_id, "fits": result.fits, "min_gpus": result.min_gpus,
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
                "gpu_id": gpu_id,
                "gpu_count": o["gpu_count"],
                "min_gpus": result.min_gpus,
                "price_per_hour_usd": o["price_per_hour_usd"],
                "source_url": o["source_url"],
                **{k: o[k] for k in PRICE_TIME_COLUMNS},
            }
            for o in able
        )
    gpus_out.sort(key=lambda g: (g["min_gpus"] is None, g["min_gpus"] or 0, g["gpu_id"]))
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
