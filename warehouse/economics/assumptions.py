"""What a served throughput estimate assumes, stated beside it (issue 24): the engine class, the
batch it reached and what stopped it growing, the KV cache it had and how the scheduler admits
sequences against it, the share of HBM bandwidth its decode step used, the share of the
datasheet tensor peak the board's power sustains, and the regime that limits it.
docs/estimates.md section 6.
"""

from __future__ import annotations

from typing import Any

from warehouse.economics.constants import ENGINE_CLASS
from warehouse.economics.throughput import ThroughputEstimate

# The flat columns of an estimate row (token_estimates) holding the assumptions; the served
# ``assumptions`` object adds the row's batch_per_replica and kv_precision (ASSUMPTION_KEYS).
ASSUMPTION_COLUMNS: tuple[str, ...] = (
    "engine_class",
    "batch_cap_per_replica",
    "batch_limited_by",
    "kv_cache_gb_per_replica",
    "hbm_bandwidth_fraction",
    "sustained_compute_fraction",
    "limiting_regime",
    "kv_admission",
)
ASSUMPTION_KEYS: tuple[str, ...] = (
    "engine_class",
    "batch_per_replica",
    "batch_cap_per_replica",
    "batch_limited_by",
    "kv_cache_gb_per_replica",
    "kv_precision",
    "kv_admission",
    "hbm_bandwidth_fraction",
    "sustained_compute_fraction",
    "limiting_regime",
)
LIMITING_REGIMES: tuple[str, ...] = ("memory_bound_decode", "compute_bound", "kv_capacity_bound")
# ThroughputEstimate.batch_limited_by -> the served name
_BATCH_LIMITS = {"memory": "kv_cache", "cap": "batch_cap", "concurrency": "concurrency"}


# A full KV cache limits the rate when at least this share of the step does not grow with the
# batch (ThroughputEstimate.fixed_step_fraction): twice the KV cache would then raise the rate
# by a third or more. Below it the step mostly streams the KV cache (or computes) in proportion
# to the batch, and HBM bandwidth, not capacity, sets the rate.
KV_CAPACITY_BOUND_FIXED_FRACTION = 0.5


def limiting_regime(estimate: ThroughputEstimate) -> str | None:
    """What bounds the estimate's tokens/s (None when the model does not fit).

    ``compute_bound``: the engine step's math takes longer than its HBM traffic, so a larger
    batch adds step time in proportion. ``kv_capacity_bound``: the step streams weights and KV
    (memory bound), the batch stopped where the KV cache was full, and at least half the step
    is fixed cost a larger batch would share (mostly the weight stream), so more HBM capacity
    (or an fp8 KV cache) would raise the tokens/s. ``memory_bound_decode``: memory bound, and
    bandwidth is the limit: the batch is at the engine's cap or the concurrency asked for, or
    reading the KV cache is most of the step, so a larger cache would add little.
    """
    if not estimate.fits:
        return None
    if estimate.decode_bound == "compute":
        return "compute_bound"
    if (
        estimate.batch_limited_by == "memory"
        and estimate.fixed_step_fraction >= KV_CAPACITY_BOUND_FIXED_FRACTION
    ):
        return "kv_capacity_bound"
    return "memory_bound_decode"


def assumption_fields(estimate: ThroughputEstimate) -> dict[str, Any]:
    """``ASSUMPTION_COLUMNS`` of a fitting estimate (all None when it does not fit). GB are
    10^9 bytes; the bandwidth fraction is of the datasheet bandwidth and the compute fraction of
    the datasheet tensor peak, 0..1, 3 decimals."""
    if not estimate.fits:
        return dict.fromkeys(ASSUMPTION_COLUMNS)
    return {
        "engine_class": ENGINE_CLASS,
        "batch_cap_per_replica": estimate.max_batch,
        "batch_limited_by": _BATCH_LIMITS[estimate.batch_limited_by],
        "kv_cache_gb_per_replica": round(estimate.kv_budget_gb_per_replica, 3),
        "hbm_bandwidth_fraction": round(estimate.hbm_bandwidth_fraction, 3),
        "sustained_compute_fraction": round(estimate.sustained_compute_fraction, 3),
        "limiting_regime": limiting_regime(estimate),
        "kv_admission": estimate.kv_admission,
    }


def nest_assumptions(row: dict[str, Any]) -> dict[str, Any]:
    """An estimate row (``ASSUMPTION_COLUMNS`` flat, plus batch_per_replica and kv_precision)
    as served: the flat columns moved into one ``assumptions`` object, null when the row has
    no estimate (``engine_class`` null)."""
    out = {k: v for k, v in row.items() if k not in ASSUMPTION_COLUMNS}
    fitted = row.get("engine_class") is not None
    out["assumptions"] = {k: row[k] for k in ASSUMPTION_KEYS} if fitted else None
    return out
