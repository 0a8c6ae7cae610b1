"""What a token estimate assumes (``assumptions`` of every GET /estimates item and of the hardware
answer): ``warehouse.economics.assumption_fields``, docs/estimates.md section 6."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from api.schemas.base import Number, Schema
from warehouse.vocabulary import KvAdmission


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class EstimateAssumptions(Schema):
    engine_class: Annotated[
        str,
        _d(
            "Serving engine the throughput is estimated for: in-flight (continuous) batching "
            "with chunked prefill and a paged KV cache (TensorRT-LLM, vLLM, SGLang); an engine "
            "without in-flight batching runs well below it"
        ),
    ]
    batch_per_replica: Annotated[
        int,
        _d(
            "Batch reached: sequences decoding together per replica, the most the KV cache (under "
            "kv_admission), the batch cap and the concurrency allow for this model, GPU and "
            "request shape"
        ),
    ]
    batch_cap_per_replica: Annotated[int, _d("The engine's maximum batch per replica")]
    batch_limited_by: Annotated[
        Literal["kv_cache", "batch_cap", "concurrency"],
        _d(
            "What stopped the batch growing: kv_cache (no room for one more sequence under "
            "kv_admission), batch_cap or concurrency"
        ),
    ]
    kv_cache_gb_per_replica: Annotated[
        Number,
        _d(
            "KV-cache budget of one replica, GB: 0.90 of GPU memory less 2 GB workspace per GPU, "
            "less the weights"
        ),
    ]
    kv_precision: Annotated[
        str, _d("KV-cache element format: fp8 on GPUs with FP8 tensor cores, else 16-bit")
    ]
    kv_admission: Annotated[
        KvAdmission,
        _d(
            "How the scheduler admits sequences against the KV cache: max_utilization (a "
            "sequence needs room for what it holds; pages are allocated as it grows, as vLLM, "
            "SGLang and TensorRT-LLM's MAX_UTILIZATION do, so the batch is set by the average "
            "occupancy, input + output/2 tokens) or guaranteed_no_evict (room for input + "
            "output reserved up front, TensorRT-LLM's default: smaller batches on long outputs)"
        ),
    ]
    hbm_bandwidth_fraction: Annotated[
        Number,
        _d(
            "Share of the datasheet memory (HBM, or GDDR) bandwidth one decode step's weight and KV "
            "reads reach, 0..1 (kernels assumed to stream weights at 0.70 of it, KV at 0.85)"
        ),
    ]
    sustained_compute_fraction: Annotated[
        Number,
        _d(
            "Share of the GPU's datasheet tensor peak its board power sustains, 0..1: 1 unless a "
            "higher-power board of the same die shows the board is power limited (H100 NVL 0.677, "
            "H100 PCIe 0.654, MI300X 0.75, L40S 0.701); the compute-bound part of the step scales "
            "with it"
        ),
    ]
    limiting_regime: Annotated[
        Literal["memory_bound_decode", "compute_bound", "kv_capacity_bound"],
        _d(
            "What bounds the tokens/s: compute_bound (the step's math outlasts its memory "
            "traffic), kv_capacity_bound (memory bound, the KV cache is full and at least half "
            "the step is fixed cost a larger batch would share: more memory or an fp8 KV cache "
            "would raise the tokens/s), memory_bound_decode (memory bound and bandwidth limits: "
            "the batch is at the cap or the concurrency, or reading the KV cache is most of the "
            "step, so more memory would add little)"
        ),
    ]
