"""Derived LLM-serving economics: weights and KV-cache memory, model fit, throughput, $/token, and
serverless-vs-dedicated break-even.

Pure functions of typed inputs (model rows from ``seeds/models.csv``, ``warehouse.gpus.GpuSpec``
rows from the canonical GPU table, prices). No I/O beyond reading the model seed, no imports
from scrapers, pipelines or api. Units are in every name: ``_gb`` = 10^9 bytes, ``_s`` = seconds,
``_tflops`` = 10^12 FLOP/s, ``_gbps`` = GB/s (bytes, not bits), money in ``Decimal`` USD.

One module per concern, each importable on its own; every public name is re-exported here
(``from warehouse import economics; economics.fit(...)``):

- ``constants``: every constant of the model, with its value and source;
- ``inputs``: ``ModelSpec`` and ``guaranteed_minimum`` (``GpuSpec`` is ``warehouse.gpus``');
- ``seeds``: ``load_models`` and ``gpu_spec_from_row``;
- ``precision``: ``resolve_precision`` (native or fallback) and peak rates;
- ``memory``: weights, KV cache, overhead and ``fit``;
- ``throughput``: ``estimate_throughput``;
- ``calibration``: regimes and ``confidence_band``;
- ``assumptions``: what a served estimate assumes (engine class, batch, KV, bandwidth, regime);
- ``money``: USD per million tokens;
- ``serverless``: billed seconds, monthly costs and ``breakeven``.

The throughput model is a roofline per decode step plus a compute-bound prefill, with tensor
parallelism (TP) costed as explicit all-reduces over the instance's interconnect and the
instance split into TP x DP replicas the way an operator would (the split with the most tokens/s).
``docs/estimates.md`` states the formula, the value and source of every constant, and the
calibration against published measurements (``docs/estimates_calibration.csv``, run by
``benchmarks/estimates_calibration.py``). ``confidence_band`` turns the calibration residuals of
an estimate's nearest regime (GPU generation, precision, output length) into a band around it.
"""

from __future__ import annotations

from warehouse.economics.assumptions import (
    ASSUMPTION_COLUMNS,
    ASSUMPTION_KEYS,
    LIMITING_REGIMES,
    assumption_fields,
    limiting_regime,
    nest_assumptions,
)
from warehouse.economics.calibration import (
    BAND_FLOOR,
    BAND_MIN_POINTS,
    BAND_PERCENTILE_MIN_POINTS,
    CALIBRATION_BANDS,
    HIGH_CONFIDENCE_WITHIN,
    LONG_OUTPUT_FROM_TOKENS,
    MEDIUM_CONFIDENCE_WITHIN,
    SHORT_OUTPUT_BELOW_TOKENS,
    ConfidenceBand,
    Regime,
    band_summary,
    confidence_band,
    output_length_class,
    regime_of,
)
from warehouse.economics.constants import (
    ACTIVATION_BYTES,
    ACTIVATION_WORKSPACE_GB_PER_GPU,
    ALLREDUCE_EFFICIENCY,
    ALLREDUCE_LATENCY_S,
    AMD_COMPUTE_EFFICIENCY_FACTOR,
    DAYS_PER_MONTH,
    DECODE_COMPUTE_EFFICIENCY,
    DECODE_LAYER_OVERHEAD_S,
    DECODE_STEP_OVERHEAD_S,
    DEFAULT_IDLE_TIMEOUT_S,
    DEFAULT_KV_ADMISSION,
    DEFAULT_MAX_BATCH,
    ENGINE_CLASS,
    FP4_COMPUTE_EFFICIENCY_FACTOR,
    GPU_MEMORY_UTILIZATION,
    HBM_BANDWIDTH_EFFICIENCY,
    HOURS_PER_DAY,
    HOURS_PER_MONTH,
    KV_ADMISSION_RESERVED_OUTPUT_FRACTION,
    KV_BYTES_PER_ELEMENT,
    MOE_DECODE_EFFICIENCY,
    MOE_EXPERT_GEMM_EFFICIENCY,
    PREFILL_MFU,
    SECONDS_PER_DAY,
    TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING,
    TP_DEGREES,
    USD_QUANTUM,
    WEIGHT_BYTES_PER_PARAM,
)
from warehouse.economics.inputs import (
    ModelSpec,
    guaranteed_minimum,
)
from warehouse.economics.memory import (
    FitResult,
    MemoryBreakdown,
    fit,
    kv_cache_bytes_per_sequence,
    kv_cache_bytes_per_token,
    kv_share_per_gpu,
    memory_breakdown,
    overhead_gb_per_gpu,
    weights_gb,
)
from warehouse.economics.money import (
    TokenCost,
    cost_per_gb_vram_hour,
    cost_per_million_tokens,
)
from warehouse.economics.power import sustained_compute_fraction
from warehouse.economics.precision import (
    ResolvedPrecision,
    peak_tflops,
    resolve_precision,
    standard_precision,
)
from warehouse.economics.seeds import (
    MODELS_CSV,
    gpu_spec_from_row,
    load_models,
)
from warehouse.economics.serverless import (
    BreakevenResult,
    Load,
    ServerlessTier,
    breakeven,
    breakeven_all,
    dedicated_monthly_usd,
    dedicated_replicas,
    expected_cold_starts_per_day,
    serverless_monthly_usd,
    serverless_seconds_per_day,
)
from warehouse.economics.throughput import (
    ThroughputEstimate,
    estimate_throughput,
    expected_expert_fraction,
)
from warehouse.gpus import GpuSpec
from warehouse.vocabulary import PRECISIONS

__all__ = [
    "ACTIVATION_BYTES",
    "ACTIVATION_WORKSPACE_GB_PER_GPU",
    "ALLREDUCE_EFFICIENCY",
    "ALLREDUCE_LATENCY_S",
    "AMD_COMPUTE_EFFICIENCY_FACTOR",
    "ASSUMPTION_COLUMNS",
    "ASSUMPTION_KEYS",
    "BAND_FLOOR",
    "BAND_MIN_POINTS",
    "BAND_PERCENTILE_MIN_POINTS",
    "CALIBRATION_BANDS",
    "DAYS_PER_MONTH",
    "DECODE_COMPUTE_EFFICIENCY",
    "DECODE_LAYER_OVERHEAD_S",
    "DECODE_STEP_OVERHEAD_S",
    "DEFAULT_IDLE_TIMEOUT_S",
    "DEFAULT_KV_ADMISSION",
    "DEFAULT_MAX_BATCH",
    "ENGINE_CLASS",
    "FP4_COMPUTE_EFFICIENCY_FACTOR",
    "GPU_MEMORY_UTILIZATION",
    "HBM_BANDWIDTH_EFFICIENCY",
    "HIGH_CONFIDENCE_WITHIN",
    "HOURS_PER_DAY",
    "HOURS_PER_MONTH",
    "KV_ADMISSION_RESERVED_OUTPUT_FRACTION",
    "KV_BYTES_PER_ELEMENT",
    "LIMITING_REGIMES",
    "LONG_OUTPUT_FROM_TOKENS",
    "MEDIUM_CONFIDENCE_WITHIN",
    "MODELS_CSV",
    "MOE_DECODE_EFFICIENCY",
    "MOE_EXPERT_GEMM_EFFICIENCY",
    "PRECISIONS",
    "PREFILL_MFU",
    "SECONDS_PER_DAY",
    "SHORT_OUTPUT_BELOW_TOKENS",
    "TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING",
    "TP_DEGREES",
    "USD_QUANTUM",
    "WEIGHT_BYTES_PER_PARAM",
    "BreakevenResult",
    "ConfidenceBand",
    "FitResult",
    "GpuSpec",
    "Load",
    "MemoryBreakdown",
    "ModelSpec",
    "Regime",
    "ResolvedPrecision",
    "ServerlessTier",
    "ThroughputEstimate",
    "TokenCost",
    "assumption_fields",
    "band_summary",
    "breakeven",
    "breakeven_all",
    "confidence_band",
    "cost_per_gb_vram_hour",
    "cost_per_million_tokens",
    "dedicated_monthly_usd",
    "dedicated_replicas",
    "estimate_throughput",
    "expected_cold_starts_per_day",
    "expected_expert_fraction",
    "fit",
    "gpu_spec_from_row",
    "guaranteed_minimum",
    "kv_cache_bytes_per_sequence",
    "kv_cache_bytes_per_token",
    "kv_share_per_gpu",
    "limiting_regime",
    "load_models",
    "memory_breakdown",
    "nest_assumptions",
    "output_length_class",
    "overhead_gb_per_gpu",
    "peak_tflops",
    "regime_of",
    "resolve_precision",
    "serverless_monthly_usd",
    "serverless_seconds_per_day",
    "standard_precision",
    "sustained_compute_fraction",
    "weights_gb",
]
