"""Derived LLM-serving economics: weights and KV-cache memory, model fit, throughput, $/token, and
serverless-vs-dedicated break-even.

Pure functions of typed inputs (model rows from ``seeds/models.csv``, ``GpuSpec`` rows from the
canonical GPU table, prices). No I/O beyond reading the model seed, no imports from scrapers,
pipelines or api. Units are in every name: ``_gb`` = 10^9 bytes, ``_s`` = seconds,
``_tflops`` = 10^12 FLOP/s, ``_gbps`` = GB/s (bytes, not bits), money in ``Decimal`` USD.

The throughput model is a roofline per decode step plus a compute-bound prefill, with tensor
parallelism (TP) costed as explicit all-reduces over the instance's interconnect and the
instance split into TP x DP replicas the way an operator would (the split with the most tokens/s).
``docs/estimates.md`` states the formula, the value and source of every constant, and the
calibration against published measurements (``docs/estimates_calibration.csv``, run by
``benchmarks/estimates_calibration.py``). ``confidence_band`` turns the calibration residuals of
an estimate's nearest regime (GPU generation, precision, output length) into a band around it.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

MODELS_CSV = Path(__file__).resolve().parent / "seeds" / "models.csv"

# --------------------------------------------------------------------------------------------
# Precisions. Bytes per stored weight. int4/fp4 carry their block scales: int4 is W4A16 with one
# fp16 scale per 128-weight group (AWQ/GPTQ default, 2/128 B), fp4 is MXFP4 with one 8-bit scale
# per 32 weights (OCP MX spec, 1/32 B) -- the format gpt-oss ships in.
PRECISIONS = ("fp16", "bf16", "fp8", "int8", "int4", "fp4")
WEIGHT_BYTES_PER_PARAM = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5 + 2 / 128,
    "fp4": 0.5 + 1 / 32,
}
KV_BYTES_PER_ELEMENT = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0}

# --------------------------------------------------------------------------------------------
# Memory. vLLM's default gpu_memory_utilization is 0.90: the engine never touches the last 10%
# (CUDA context, NCCL buffers, allocator fragmentation). On top of the weights the engine keeps
# an activation workspace for the largest prefill chunk plus CUDA-graph pools and sampler
# buffers; vLLM's memory profiler typically reports 1-4 GB per GPU for 8k-token chunks, we take
# 2 GB. Whatever is left is KV cache.
GPU_MEMORY_UTILIZATION = 0.90
ACTIVATION_WORKSPACE_GB_PER_GPU = 2.0

# Serving engines cap the running batch (vLLM V1 max_num_seqs defaults to 1024 on 80 GB-class
# GPUs; MLPerf Llama-2-70B submissions run batch 1024 per engine). Beyond ~1k sequences decode is
# compute bound on every GPU in the table, so the cap mostly guards memory-rich, compute-poor
# cases from absurd batches.
DEFAULT_MAX_BATCH = 1024

# Tensor-parallel degrees considered: powers of two up to one 8-GPU node (NVLink / xGMI domain).
TP_DEGREES = (1, 2, 4, 8)

# --------------------------------------------------------------------------------------------
# Efficiencies (fraction of datasheet peak actually achieved). Calibrated against the published
# measurements in docs/estimates_calibration.csv; rationale per constant in docs/estimates.md.
#
# Decode reads every touched weight and the whole KV cache once per step. Good decode kernels
# (TRT-LLM/FlashInfer GEMV + paged attention) reach 75-85% of HBM bandwidth in microbenchmarks;
# the step's kernels together reach 0.70. The same on Blackwell's HBM3e: Azure measured 92% of
# GB200's 8 TB/s in a STREAM-like test, the share HBM3 reaches on H100; what lowers Blackwell's
# end-to-end share is DECODE_LAYER_OVERHEAD_S, which does not shrink with bandwidth.
HBM_BANDWIDTH_EFFICIENCY = 0.70
# Large-batch decode GEMMs (M = batch of 256-1024 tokens) on Hopper reach ~60-70% of dense peak
# in cuBLAS/CUTLASS; the step also runs norms, rotary, sampling at low utilisation: 0.60.
DECODE_COMPUTE_EFFICIENCY = 0.60
# Prefill is one big GEMM per layer (thousands of tokens); published MFU for prefill on H100 is
# 50-65% (FlashAttention-3 + FP8 GEMM); 0.55 leaves room for attention and chunking overhead.
PREFILL_MFU = 0.55
# Fused-MoE decode kernels move weights less efficiently than a dense GEMV: many small expert
# GEMMs (a few tokens each), token permutation and routing. Fitted on the MLPerf Mixtral point
# and the DeepSeek-R1 / gpt-oss SGLang points: 0.60 of the dense bandwidth efficiency.
MOE_DECODE_EFFICIENCY = 0.60
# ROCm GEMMs reach a smaller share of MI300-series peak than CUDA on Hopper (public microbench
# reports ~45-55% of MI300X dense BF16/FP8 peak vs ~65-75% on H100), so compute efficiencies are
# scaled by this factor on AMD parts. Fitted on the MLPerf v4.1 MI300X Llama-2-70B result.
AMD_COMPUTE_EFFICIENCY_FACTOR = 0.70
# Per decode step fixed cost not hidden by CUDA graphs: scheduler, sampling, detokenisation
# hand-off. vLLM V1 / SGLang report ~0.1-0.5 ms per step with async scheduling; 0.3 ms.
DECODE_STEP_OVERHEAD_S = 0.0003
# Per layer and decode step: every kernel boundary (about ten per layer: norms, the QKV/O/MLP
# GEMMs, rotary, attention, all-reduces) drains and refills the GPU even inside a CUDA graph,
# ~2 us each. Fitted on the calibration set (the value that best separates step time from
# bandwidth on the TP1 MLPerf rows and the TP8 TensorRT-LLM sweep): 20 us, i.e. 1.6 ms per step
# for an 80-layer 70B, 2.5 ms for 405B, 0.6 ms for 8B. It does not shrink with bandwidth, which
# is why the end-to-end share of HBM bandwidth a decode step achieves is lower on Blackwell.
DECODE_LAYER_OVERHEAD_S = 20e-6
# NVFP4/MXFP4 GEMMs do not reach twice the FP8 rate their datasheet peak promises: block scales
# are applied in the epilogue, activations are quantised to FP4 on the fly, and decode-sized
# GEMMs stay bound by scale and epilogue traffic. Compute efficiencies are scaled by this factor
# when the compute precision is fp4. Fitted on the MLPerf v5.0/v5.1 Blackwell NVFP4 rows
# (B200 x1/x8 and GB200 x4 Llama 2 70B, B200 x8 Llama 3.1 8B, B200 x8 / GB200 x72 Llama 3.1
# 405B) against Krai's FP8 Llama 3.1 70B on the same B200 x8 (MLPerf v5.1 Open): per GPU the
# FP4 runs deliver ~1.6x the FP8 run on the same task, not 2x.
FP4_COMPUTE_EFFICIENCY_FACTOR = 0.80
# Tensor parallelism shards every decode GEMM's N (column-parallel) or K (row-parallel) by TP;
# at decode batch sizes the per-GPU GEMMs get so small that they no longer fill the SMs (Llama
# 70B at TP8: the QKV GEMM is 1,280 wide, 80 tiles of 128x128 at M = 1024 for 132 SMs). Decode
# GEMM compute efficiency is multiplied by this factor per doubling of TP (TP8: 0.51). Fitted
# on the TensorRT-LLM 0.16 trtllm-bench sweep of Llama 3.1 70B FP8 at TP8 on 8 x H100 and the
# TP2/TP4 MLPerf and blog rows; prefill GEMMs (thousands of rows) are not affected.
TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING = 0.80
# The scheduler admits a sequence against the KV cache it will hold, not what it holds now:
# TensorRT-LLM's default GUARANTEED_NO_EVICT policy (stated in every trtllm-bench log of the
# calibration sweep, and used by MLPerf's TRT-LLM harness) reserves the prompt plus the whole
# output, so a long decode runs at most KV budget / KV(input + output) sequences. 1.0 = reserve
# all of it; vLLM/SGLang allocate on demand and preempt, and can run larger batches on long
# outputs (this keeps their estimates conservative).
KV_RESERVED_OUTPUT_FRACTION = 1.0

# Tensor-parallel all-reduce cost: two all-reduces of (tokens x hidden) bf16 activations per layer
# (after attention and after the MLP). Ring all-reduce moves 2(n-1)/n of the buffer per GPU.
# ``interconnect_bandwidth_gbps`` is read as the vendor's aggregate bidirectional figure
# (H100 NVLink 900 GB/s), so one direction is half of it. Efficiency = achieved NCCL bus
# bandwidth / link bandwidth; latency = per-collective fixed cost at small messages.
#   nvlink: nccl-tests reach ~370-480 GB/s busbw on 8x H100 (450 GB/s/direction) -> 0.80, and
#           custom all-reduce kernels finish a small message in ~6-10 us -> 8 us.
#   nvlink5: Blackwell NVSwitch baseboards (HGX B200/B300) and NVL72 racks, 900 GB/s per
#           direction: nccl-tests all_reduce on 8 GB200s across two NVL72 trays reach 811 GB/s
#           busbw -> 0.90; same small-message latency.
#   infinity_fabric (MI300X xGMI, fully connected 7 links): RCCL busbw ~300-350 of 448 GB/s ->
#           0.70; ~12 us latency.
#   pcie: peer-to-peer over the root complex (or through host memory on consumer cards) achieves
#         ~50-60% of the Gen4/Gen5 x16 link; ~25 us latency per collective.
#   roce: cross-node 400 Gb/s per GPU, ~40 us latency; only used if a caller forces TP across
#         nodes.
ALLREDUCE_EFFICIENCY = {
    "nvlink": 0.80,
    "nvlink5": 0.90,
    "nvlink_c2c": 0.80,
    "infinity_fabric": 0.70,
    "pcie": 0.55,
    "roce": 0.60,
}
ALLREDUCE_LATENCY_S = {
    "nvlink": 8e-6,
    "nvlink5": 8e-6,
    "nvlink_c2c": 8e-6,
    "infinity_fabric": 12e-6,
    "pcie": 25e-6,
    "roce": 40e-6,
}
ACTIVATION_BYTES = 2.0  # all-reduced activations are bf16/fp16 even for fp8/fp4 weights

# --------------------------------------------------------------------------------------------
# Time and money.
SECONDS_PER_DAY = 86_400
DAYS_PER_MONTH = 365.25 / 12  # 30.4375: the average month, so monthly = yearly / 12
HOURS_PER_MONTH = 24 * DAYS_PER_MONTH  # 730.5
USD_QUANTUM = Decimal("0.000001")
# Serverless workers stay warm this long after their last request before scaling to zero unless
# the caller says otherwise (RunPod's default idle timeout is 5 s, Modal's scaledown window 60 s;
# 60 s is the conservative end).
DEFAULT_IDLE_TIMEOUT_S = 60.0


# ============================================================================================
# Inputs


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One reference model (a row of ``seeds/models.csv``). Parameters in billions."""

    model_id: str
    name: str
    hf_repo: str
    architecture: str  # "dense" | "moe"
    params_total_b: float
    params_active_b: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    kv_latent_dim: int | None  # MLA: compressed KV + decoupled rope key per token per layer
    max_context_tokens: int
    sliding_window_tokens: int | None
    sliding_window_layers: int
    num_experts: int | None
    experts_per_token: int | None
    checkpoint_precision: str  # precision the weights are published in (bf16, fp8, fp4)
    source_url: str

    @property
    def is_moe(self) -> bool:
        return self.architecture == "moe"

    @property
    def expert_params_b(self) -> float:
        """Parameters (billions) in routed experts, summed over all experts and layers.

        Derived from total/active counts: total = shared + E*e, active = shared + k*e, so
        e = (total - active) / (E - k). Zero for dense models.
        """
        if not self.is_moe or not self.num_experts or not self.experts_per_token:
            return 0.0
        per_expert = (self.params_total_b - self.params_active_b) / (
            self.num_experts - self.experts_per_token
        )
        return per_expert * self.num_experts

    @property
    def shared_params_b(self) -> float:
        """Parameters every token uses: attention, embeddings, dense layers, shared experts."""
        return self.params_total_b - self.expert_params_b


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One GPU model from the canonical GPU table (datasheet values, dense = without sparsity).

    ``memory_bandwidth_gbps`` and ``interconnect_bandwidth_gbps`` are GB/s (bytes); TFLOPS are
    dense tensor-core throughput. A missing or zero throughput means the GPU has no such tensor
    unit. ``vendor`` is optional; AMD parts are also recognised by an ``infinity_fabric`` link.
    """

    gpu_id: str
    vram_gb: float
    memory_bandwidth_gbps: float
    bf16_tflops_dense: float | None
    fp16_tflops_dense: float | None
    fp8_tflops_dense: float | None
    int8_tops_dense: float | None
    fp4_tflops_dense: float | None
    fp8_support: bool
    bf16_support: bool
    interconnect: str  # nvlink | pcie | infinity_fabric | nvlink_c2c | roce
    interconnect_bandwidth_gbps: float | None
    vendor: str = ""
    architecture: str = ""  # the seed's vendor architecture name: Hopper, Blackwell, CDNA 3 ...
    memory_type: str = ""  # HBM3e, HBM3, GDDR7 ...

    @property
    def is_amd(self) -> bool:
        return self.vendor.lower() == "amd" or self.interconnect == "infinity_fabric"

    @property
    def generation(self) -> str:
        """GPU generation the calibration is grouped by: blackwell, blackwell-gddr, hopper, ada,
        ampere, cdna, gaudi or other. From ``architecture`` (Blackwell Ultra counts as
        blackwell; the GDDR7 PCIe cards, RTX PRO and GeForce 50, are blackwell-gddr: the HBM3e
        B200/GB200 calibration says little about them). A spec without an architecture is
        classified by what it has (an FP4 rate: blackwell; FP8 with >= 3 TB/s: hopper; FP8:
        ada; BF16: ampere)."""
        arch = self.architecture.lower()
        for prefix, name in _GENERATION_PREFIXES:
            if arch.startswith(prefix):
                gddr = name == "blackwell" and self.memory_type.upper().startswith("GDDR")
                return "blackwell-gddr" if gddr else name
        if arch:
            return "other"
        if self.is_amd:
            return "cdna"
        if self.fp4_tflops_dense:
            return "blackwell"
        if self.fp8_tflops_dense:
            return "hopper" if self.memory_bandwidth_gbps >= 3000 else "ada"
        return "ampere" if self.bf16_tflops_dense else "other"


_GENERATION_PREFIXES = (
    ("blackwell", "blackwell"), ("hopper", "hopper"), ("ada", "ada"), ("ampere", "ampere"),
    ("cdna", "cdna"), ("gaudi", "gaudi"),
)  # fmt: skip


def _least(values: Iterable[float | None]) -> float | None:
    # A rate one candidate lacks (None or 0: no such tensor unit) is not guaranteed.
    found = list(values)
    return None if any(not v for v in found) else min(v for v in found if v)


def guaranteed_minimum(specs: Iterable[GpuSpec], vram_gb: float | None = None) -> GpuSpec:
    """What a tier that may land on any of ``specs`` guarantees, as one ``GpuSpec``.

    Every figure is its minimum over the candidates; a throughput or precision one candidate
    lacks is absent; memory is further capped at ``vram_gb`` (GB per GPU, the tier's promise)
    when given. Interconnect kind and vendor are the first spec's (pass the tier's ``gpu_id``
    first). ``gpu_id`` names the candidates and the cap, ``min(a40, rtx-a6000; 48 GB)``, so
    estimates that cannot run say which guarantee they were judged on. Raises ValueError for no
    specs.
    """
    found = list(specs)
    if not found:
        raise ValueError("guaranteed_minimum needs at least one GPU spec")
    memory = min(s.vram_gb for s in found)
    if vram_gb is not None:
        memory = min(memory, vram_gb)
    ids = ", ".join(sorted({s.gpu_id for s in found}))
    return replace(
        found[0],
        gpu_id=f"min({ids}; {memory:g} GB)",
        vram_gb=memory,
        memory_bandwidth_gbps=min(s.memory_bandwidth_gbps for s in found),
        bf16_tflops_dense=_least(s.bf16_tflops_dense for s in found),
        fp16_tflops_dense=_least(s.fp16_tflops_dense for s in found),
        fp8_tflops_dense=_least(s.fp8_tflops_dense for s in found),
        int8_tops_dense=_least(s.int8_tops_dense for s in found),
        fp4_tflops_dense=_least(s.fp4_tflops_dense for s in found),
        fp8_support=all(s.fp8_support for s in found),
        bf16_support=all(s.bf16_support for s in found),
        interconnect_bandwidth_gbps=_least(s.interconnect_bandwidth_gbps for s in found),
    )


@dataclass(frozen=True, slots=True)
class ResolvedPrecision:
    """What actually runs when ``requested`` is asked for on a GPU.

    ``weight_precision`` sets bytes per weight, ``compute_precision`` the tensor-core rate,
    ``kv_precision`` the KV-cache element size. ``native`` is False when the GPU lacks the
    requested format and a fallback was chosen; ``fallback_reason`` then says which and why.
    """

    requested: str
    weight_precision: str
    compute_precision: str
    kv_precision: str
    native: bool
    fallback_reason: str | None


# ============================================================================================
# Seed loading


def _opt_int(value: str | None) -> int | None:
    return int(value) if value not in (None, "") else None


def load_models(path: Path = MODELS_CSV) -> dict[str, ModelSpec]:
    """The reference models keyed by ``model_id``.

    Raises ValueError on a row with a missing required column, an unknown architecture, or a
    MoE row without expert counts (a malformed seed must not silently produce estimates).
    """
    models: dict[str, ModelSpec] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            try:
                spec = ModelSpec(
                    model_id=row["model_id"],
                    name=row["name"],
                    hf_repo=row["hf_repo"],
                    architecture=row["architecture"],
                    params_total_b=float(row["params_total_b"]),
                    params_active_b=float(row["params_active_b"]),
                    layers=int(row["layers"]),
                    hidden_size=int(row["hidden_size"]),
                    attention_heads=int(row["attention_heads"]),
                    kv_heads=int(row["kv_heads"]),
                    head_dim=int(row["head_dim"]),
                    kv_latent_dim=_opt_int(row["kv_latent_dim"]),
                    max_context_tokens=int(row["max_context_tokens"]),
                    sliding_window_tokens=_opt_int(row["sliding_window_tokens"]),
                    sliding_window_layers=int(row["sliding_window_layers"] or 0),
                    num_experts=_opt_int(row["num_experts"]),
                    experts_per_token=_opt_int(row["experts_per_token"]),
                    checkpoint_precision=row["checkpoint_precision"],
                    source_url=row["source_url"],
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"models.csv row {row.get('model_id')!r}: {exc}") from exc
            if spec.architecture not in ("dense", "moe"):
                raise ValueError(f"models.csv {spec.model_id}: architecture {spec.architecture!r}")
            if spec.is_moe and not (spec.num_experts and spec.experts_per_token):
                raise ValueError(f"models.csv {spec.model_id}: MoE row without expert counts")
            if spec.checkpoint_precision not in PRECISIONS:
                precision = spec.checkpoint_precision
                raise ValueError(f"models.csv {spec.model_id}: checkpoint_precision {precision!r}")
            if spec.model_id in models:
                raise ValueError(f"models.csv: duplicate model_id {spec.model_id}")
            models[spec.model_id] = spec
    return models


def _opt_float(value: str | None) -> float | None:
    return float(value) if value not in (None, "") else None


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "yes", "1", "y", "t")


def gpu_spec_from_row(row: Mapping[str, str]) -> GpuSpec:
    """A ``GpuSpec`` from one ``gpus.csv`` row (strings as csv.DictReader yields them)."""
    return GpuSpec(
        gpu_id=row["gpu_id"],
        vram_gb=float(row["vram_gb"]),
        memory_bandwidth_gbps=float(row["memory_bandwidth_gbps"]),
        bf16_tflops_dense=_opt_float(row.get("bf16_tflops_dense")),
        fp16_tflops_dense=_opt_float(row.get("fp16_tflops_dense")),
        fp8_tflops_dense=_opt_float(row.get("fp8_tflops_dense")),
        int8_tops_dense=_opt_float(row.get("int8_tops_dense")),
        fp4_tflops_dense=_opt_float(row.get("fp4_tflops_dense")),
        fp8_support=_flag(row.get("fp8_support")),
        bf16_support=_flag(row.get("bf16_support")),
        interconnect=(row.get("interconnect") or "pcie").strip(),
        interconnect_bandwidth_gbps=_opt_float(row.get("interconnect_bandwidth_gbps")),
        vendor=(row.get("vendor") or "").strip(),
        architecture=(row.get("architecture") or "").strip(),
        memory_type=(row.get("memory_type") or "").strip(),
    )


# ============================================================================================
# Precision resolution


def _has(rate: float | None) -> bool:
    return rate is not None and rate > 0


def _sixteen_bit(gpu: GpuSpec) -> str:
    return "bf16" if gpu.bf16_support and _has(gpu.bf16_tflops_dense) else "fp16"


def resolve_precision(
    precision: str, gpu: GpuSpec, kv_precision: str | None = None
) -> ResolvedPrecision:
    """How ``precision`` runs on ``gpu``.

    - fp16/bf16: native; bf16 on a GPU without bf16 (V100, T4) falls back to fp16.
    - fp8: native where the GPU has FP8 tensor cores; otherwise 8-bit weight-only (W8A16, what
      vLLM's Marlin kernels do with FP8 checkpoints on Ampere): 1 byte/weight, 16-bit compute.
    - int8: W8A8 where the GPU has INT8 tensor cores, else 8-bit weight-only.
    - int4: W4A16 weight-only (AWQ/GPTQ) by definition; compute at 16 bit. Counts as native.
    - fp4: native on GPUs with FP4 tensor cores (Blackwell); else 4-bit weight-only with 16-bit
      compute (how gpt-oss's MXFP4 experts run on Hopper).
    The KV cache is fp8 when compute is fp8/fp4 on an FP8-capable GPU (TRT-LLM and MLPerf
    practice), otherwise 16-bit; ``kv_precision`` overrides.

    Raises ValueError for an unknown precision.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISIONS}")
    half = _sixteen_bit(gpu)
    weight, compute, native, reason = precision, precision, True, None
    if precision == "bf16" and half != "bf16":
        weight = compute = "fp16"
        native = False
        reason = f"{gpu.gpu_id} has no bf16 tensor cores; runs fp16"
    elif precision == "fp16" and not _has(gpu.fp16_tflops_dense) and _has(gpu.bf16_tflops_dense):
        weight = compute = "bf16"
        native = False
        reason = f"{gpu.gpu_id} lists no fp16 rate; runs bf16"
    elif precision == "fp8" and not (gpu.fp8_support and _has(gpu.fp8_tflops_dense)):
        weight, compute, native = "fp8", half, False
        reason = (
            f"{gpu.gpu_id} has no FP8 tensor cores; served as 8-bit weight-only (W8A16) "
            f"with {half} compute"
        )
    elif precision == "int8" and not _has(gpu.int8_tops_dense):
        weight, compute, native = "int8", half, False
        reason = f"{gpu.gpu_id} has no INT8 tensor cores; served as W8A16 with {half} compute"
    elif precision == "int4":
        weight, compute = "int4", half
    elif precision == "fp4" and not _has(gpu.fp4_tflops_dense):
        weight, compute, native = "fp4", half, False
        reason = (
            f"{gpu.gpu_id} has no FP4 tensor cores; served as 4-bit weight-only with {half} compute"
        )
    if kv_precision is None:
        fp8_gpu = gpu.fp8_support and _has(gpu.fp8_tflops_dense)
        kv = "fp8" if compute in ("fp8", "fp4") and fp8_gpu else half
    elif kv_precision in KV_BYTES_PER_ELEMENT:
        kv = kv_precision
    else:
        raise ValueError(f"unknown kv precision {kv_precision!r}")
    return ResolvedPrecision(precision, weight, compute, kv, native, reason)


def standard_precision(model: ModelSpec, gpu: GpuSpec) -> str:
    """The precision the derived tables use: fp8 where the GPU has FP8 tensor cores, else the
    GPU's 16-bit format; a model published in 4 bits (gpt-oss, MXFP4) stays at fp4, which is
    how every engine serves it."""
    if model.checkpoint_precision == "fp4":
        return "fp4"
    if gpu.fp8_support and _has(gpu.fp8_tflops_dense):
        return "fp8"
    return _sixteen_bit(gpu)


def peak_tflops(gpu: GpuSpec, compute_precision: str) -> float:
    """Dense tensor-core peak (TFLOPS or TOPS) for a compute precision; ValueError if absent."""
    rate = {
        "fp16": gpu.fp16_tflops_dense or gpu.bf16_tflops_dense,
        "bf16": gpu.bf16_tflops_dense or gpu.fp16_tflops_dense,
        "fp8": gpu.fp8_tflops_dense,
        "int8": gpu.int8_tops_dense,
        "fp4": gpu.fp4_tflops_dense,
    }.get(compute_precision)
    if not _has(rate):
        raise ValueError(f"{gpu.gpu_id} has no {compute_precision} throughput in its spec")
    assert rate is not None
    return rate


# ============================================================================================
# Memory math


def weights_gb(model: ModelSpec, precision: str) -> float:
    """Weight memory in GB (10^9 bytes) for all parameters stored at ``precision``.

    70B parameters at fp16 = 140 GB. Embeddings and norms are assumed stored at the same
    precision (a simplification worth ~1-2% for fp8 models whose lm_head stays bf16).
    """
    if precision not in WEIGHT_BYTES_PER_PARAM:
        raise ValueError(f"unknown precision {precision!r}")
    return model.params_total_b * WEIGHT_BYTES_PER_PARAM[precision]


def kv_cache_bytes_per_token(model: ModelSpec, kv_precision: str = "bf16") -> int:
    """KV-cache bytes one token occupies across all layers, as if every layer were global.

    GQA/MHA: 2 (K and V) x layers x kv_heads x head_dim x bytes. MLA (DeepSeek): the compressed
    latent plus the decoupled rope key, layers x kv_latent_dim x bytes. Sliding-window layers
    are accounted for in ``kv_cache_bytes_per_sequence``.
    """
    if kv_precision not in KV_BYTES_PER_ELEMENT:
        raise ValueError(f"unknown kv precision {kv_precision!r}")
    element = KV_BYTES_PER_ELEMENT[kv_precision]
    if model.kv_latent_dim:
        return int(model.layers * model.kv_latent_dim * element)
    return int(2 * model.layers * model.kv_heads * model.head_dim * element)


def kv_cache_bytes_per_sequence(
    model: ModelSpec, context_tokens: int, kv_precision: str = "bf16"
) -> float:
    """KV-cache bytes for one sequence holding ``context_tokens`` tokens.

    Sliding-window layers (Gemma 2/3, gpt-oss) keep at most ``sliding_window_tokens`` tokens;
    the others keep the whole context. This matches engines with a hybrid KV allocator (vLLM
    >= 0.10, SGLang, TRT-LLM); older engines that allocate full context on every layer use more.
    """
    per_layer = kv_cache_bytes_per_token(model, kv_precision) / model.layers
    window_layers = model.sliding_window_layers if model.sliding_window_tokens else 0
    full_layers = model.layers - window_layers
    windowed = min(context_tokens, model.sliding_window_tokens or context_tokens)
    return per_layer * (full_layers * context_tokens + window_layers * windowed)


def kv_share_per_gpu(model: ModelSpec, tensor_parallel: int) -> float:
    """Fraction of one sequence's KV cache each GPU of a TP group stores and reads.

    GQA shards KV heads across GPUs; once TP exceeds the number of KV heads they are replicated
    (each GPU keeps one head's worth). MLA's latent is shared by all heads, so every GPU in
    plain TP keeps the full latent (SGLang/vLLM without data-parallel attention).
    """
    if model.kv_latent_dim:
        return 1.0
    return max(1.0 / tensor_parallel, 1.0 / model.kv_heads)


def overhead_gb_per_gpu(gpu: GpuSpec) -> float:
    """Runtime memory per GPU that is neither weights nor KV cache (GB)."""
    return gpu.vram_gb * (1 - GPU_MEMORY_UTILIZATION) + ACTIVATION_WORKSPACE_GB_PER_GPU


def _tp_allowed(model: ModelSpec, tp: int) -> bool:
    # Engines shard attention heads evenly; KV heads must divide or be divisible by TP.
    heads_ok = model.attention_heads % tp == 0
    kv_ok = model.kv_latent_dim is not None or model.kv_heads % tp == 0 or tp % model.kv_heads == 0
    return heads_ok and kv_ok


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Memory for one TP group of ``gpus`` GPUs, in GB summed over the group."""

    gpus: int
    weights_gb: float
    kv_cache_gb: float
    overhead_gb: float
    required_gb: float
    capacity_gb: float

    @property
    def fits(self) -> bool:
        return self.required_gb <= self.capacity_gb


@dataclass(frozen=True, slots=True)
class FitResult:
    """Smallest TP group of ``gpu_id`` that holds the model plus KV for the requested load.

    ``min_gpus`` is None when no allowed group up to ``max_gpus`` fits; ``breakdown`` is then
    for the largest group tried.
    """

    model_id: str
    gpu_id: str
    precision: ResolvedPrecision
    context_tokens: int
    concurrency: int
    min_gpus: int | None
    breakdown: MemoryBreakdown

    @property
    def fits(self) -> bool:
        return self.min_gpus is not None


def memory_breakdown(
    model: ModelSpec,
    resolved: ResolvedPrecision,
    context_tokens: int,
    concurrency: int,
    gpu: GpuSpec,
    gpus: int,
) -> MemoryBreakdown:
    """Weights + KV (``concurrency`` sequences of ``context_tokens``) + overhead on ``gpus``."""
    weights = weights_gb(model, resolved.weight_precision)
    per_seq = kv_cache_bytes_per_sequence(model, context_tokens, resolved.kv_precision)
    kv = per_seq * concurrency * kv_share_per_gpu(model, gpus) * gpus / 1e9
    overhead = overhead_gb_per_gpu(gpu) * gpus
    return MemoryBreakdown(
        gpus=gpus,
        weights_gb=weights,
        kv_cache_gb=kv,
        overhead_gb=overhead,
        required_gb=weights + kv + overhead,
        capacity_gb=gpu.vram_gb * gpus,
    )


def _group_sizes(max_gpus: int) -> list[int]:
    sizes = [tp for tp in TP_DEGREES if tp <= max_gpus]
    if max_gpus not in sizes:
        sizes.append(max_gpus)
    return sizes


def fit(
    model: ModelSpec,
    precision: str,
    context_tokens: int,
    concurrency: int,
    gpu: GpuSpec,
    max_gpus: int = 8,
    kv_precision: str | None = None,
) -> FitResult:
    """Minimum number of ``gpu`` (TP group: 1, 2, 4, 8 or ``max_gpus``) that serves ``model``.

    ``context_tokens`` is the tokens per sequence (prompt + generated), ``concurrency`` the
    sequences resident at once. An offer with N GPUs can serve the model if ``min_gpus <= N``
    (pass ``max_gpus=N`` to also try a non-power-of-two N). Raises ValueError for
    non-positive inputs or a context longer than the model supports.
    """
    if context_tokens <= 0 or concurrency <= 0 or max_gpus <= 0:
        raise ValueError("context_tokens, concurrency and max_gpus must be positive")
    if context_tokens > model.max_context_tokens:
        raise ValueError(
            f"{model.model_id} supports {model.max_context_tokens} tokens, not {context_tokens}"
        )
    resolved = resolve_precision(precision, gpu, kv_precision)
    breakdown: MemoryBreakdown | None = None
    for gpus in _group_sizes(max_gpus):
        if not _tp_allowed(model, gpus):
            continue
        breakdown = memory_breakdown(model, resolved, context_tokens, concurrency, gpu, gpus)
        if breakdown.fits:
            return FitResult(
                model.model_id, gpu.gpu_id, resolved, context_tokens, concurrency, gpus, breakdown
            )
    if breakdown is None:  # no allowed TP degree at all (heads indivisible): report 1 GPU
        breakdown = memory_breakdown(model, resolved, context_tokens, concurrency, gpu, 1)
    return FitResult(
        model.model_id, gpu.gpu_id, resolved, context_tokens, concurrency, None, breakdown
    )


# ============================================================================================
# Throughput


def expected_expert_fraction(model: ModelSpec, tokens: int) -> float:
    """Expected fraction of routed experts a step of ``tokens`` tokens touches, per layer.

    With k of E experts chosen per token and routing treated as uniform and independent (the
    load-balancing loss pushes towards uniform), an expert is missed by one token with
    probability 1 - k/E, so P(touched) = 1 - (1 - k/E)^tokens. Dense models: 1.
    """
    if not model.is_moe or not model.num_experts or not model.experts_per_token:
        return 1.0
    miss = 1 - model.experts_per_token / model.num_experts
    return 1 - miss ** max(tokens, 0)


def _attention_flops_per_token(model: ModelSpec, context_tokens: float) -> float:
    """FLOPs of QK^T and AV for one new token attending to ``context_tokens`` (all layers)."""
    width = model.kv_latent_dim or model.head_dim  # MLA with absorbed projections works in latent
    window_layers = model.sliding_window_layers if model.sliding_window_tokens else 0
    windowed = min(context_tokens, model.sliding_window_tokens or context_tokens)
    layer_contexts = (model.layers - window_layers) * context_tokens + window_layers * windowed
    return 4 * model.attention_heads * width * layer_contexts


def _link_kind(gpu: GpuSpec) -> str:
    """The all-reduce constants' key: the interconnect, with NVLink 5 (Blackwell NVSwitch
    baseboards and NVL72 racks) apart from NVLink 4; unknown fabrics cost as PCIe."""
    if gpu.interconnect == "nvlink" and gpu.generation == "blackwell":
        return "nvlink5"
    return gpu.interconnect if gpu.interconnect in ALLREDUCE_EFFICIENCY else "pcie"


def _allreduce_s(gpu: GpuSpec, tp: int, tokens: float, model: ModelSpec) -> float:
    """Seconds for the 2 per-layer all-reduces of ``tokens`` activations over a TP group."""
    if tp <= 1:
        return 0.0
    link = _link_kind(gpu)
    one_way_gbps = (gpu.interconnect_bandwidth_gbps or 64.0) / 2  # PCIe Gen4 x16 if unknown
    buffer_bytes = tokens * model.hidden_size * ACTIVATION_BYTES
    moved = 2 * (tp - 1) / tp * buffer_bytes
    one = moved / (one_way_gbps * 1e9 * ALLREDUCE_EFFICIENCY[link]) + ALLREDUCE_LATENCY_S[link]
    return 2 * model.layers * one


def _compute_efficiency(gpu: GpuSpec, resolved: ResolvedPrecision, base: float) -> float:
    """Achieved fraction of the compute precision's dense peak (``base`` x vendor x format)."""
    factor = AMD_COMPUTE_EFFICIENCY_FACTOR if gpu.is_amd else 1.0
    if resolved.compute_precision == "fp4":
        factor *= FP4_COMPUTE_EFFICIENCY_FACTOR
    return base * factor


def _attention_peak_tflops(gpu: GpuSpec, resolved: ResolvedPrecision) -> float:
    """Dense peak the attention math runs at: QK^T and PV take the KV cache's format (fp8 KV
    on an FP8 GPU, else 16-bit), never the 4-bit weight format, and never faster than the
    compute precision (an fp8 request on A100 runs attention at bf16)."""
    fmt = "fp8" if resolved.kv_precision == "fp8" and gpu.fp8_support else _sixteen_bit(gpu)
    try:
        rate = peak_tflops(gpu, fmt)
    except ValueError:
        rate = peak_tflops(gpu, resolved.compute_precision)
    return min(rate, peak_tflops(gpu, resolved.compute_precision))


@dataclass(frozen=True, slots=True)
class ThroughputEstimate:
    """Steady-state serving estimate for one instance of ``gpu_count`` x ``gpu_id``.

    The instance runs ``data_parallel`` replicas of ``tensor_parallel`` GPUs each. Per replica:
    ``batch`` sequences decode together (``batch_limited_by`` says why not more); one decode
    step takes ``decode_step_s``; a request's prefill costs ``prefill_s_per_request`` of replica
    time. Rates are tokens per second for the whole instance unless named ``per_seq``.
    ``fits`` is False (and rates 0) when the model does not fit any replica layout.
    """

    model_id: str
    gpu_id: str
    gpu_count: int
    precision: ResolvedPrecision
    input_tokens: int
    output_tokens: int
    fits: bool
    tensor_parallel: int
    data_parallel: int
    batch: int
    batch_limited_by: str  # memory | cap | concurrency | none
    kv_budget_gb_per_replica: float
    decode_step_s: float
    decode_bound: str  # memory | compute | none
    tp_efficiency: float
    prefill_s_per_request: float
    decode_tokens_per_s_per_seq: float
    decode_tokens_per_s: float
    output_tokens_per_s: float
    total_tokens_per_s: float


def _replica_estimate(
    model: ModelSpec,
    resolved: ResolvedPrecision,
    gpu: GpuSpec,
    tp: int,
    input_tokens: int,
    output_tokens: int,
    max_batch: int,
    concurrency: int | None,
) -> dict[str, float | int | str] | None:
    weights_per_gpu_gb = weights_gb(model, resolved.weight_precision) / tp
    usable_gb = gpu.vram_gb * GPU_MEMORY_UTILIZATION - ACTIVATION_WORKSPACE_GB_PER_GPU
    kv_budget_per_gpu = (usable_gb - weights_per_gpu_gb) * 1e9
    if kv_budget_per_gpu <= 0:
        return None
    # Attention reads what a running sequence holds on average: its prompt plus half of its
    # output. The scheduler admits sequences against what they will hold: the prompt plus
    # KV_RESERVED_OUTPUT_FRACTION of the output (TensorRT-LLM's GUARANTEED_NO_EVICT reserves
    # all of it), so a long decode runs a smaller batch than the average occupancy allows.
    mean_context = input_tokens + output_tokens / 2
    reserved_context = input_tokens + KV_RESERVED_OUTPUT_FRACTION * output_tokens
    share = kv_share_per_gpu(model, tp)

    def seq_bytes(context: float) -> float:  # one sequence's KV on one GPU of the group
        return kv_cache_bytes_per_sequence(model, round(context), resolved.kv_precision) * share

    full_seq_bytes = seq_bytes(input_tokens + output_tokens)
    if full_seq_bytes > kv_budget_per_gpu:
        return None  # not even one full-length sequence fits
    by_memory = int(kv_budget_per_gpu // seq_bytes(max(mean_context, reserved_context)))
    limits = {"memory": by_memory, "cap": max_batch}
    if concurrency is not None:
        limits["concurrency"] = concurrency
    limited_by = min(limits, key=lambda name: limits[name])
    batch = max(1, limits[limited_by])

    # Decode step: the weight GEMMs and the attention kernels run one after the other, so each
    # gets its own roofline and the step is their sum (plus TP all-reduces and a fixed cost).
    bytes_per_weight = WEIGHT_BYTES_PER_PARAM[resolved.weight_precision]
    touched_params = model.shared_params_b + model.expert_params_b * expected_expert_fraction(
        model, batch
    )
    weight_bytes = touched_params * 1e9 * bytes_per_weight / tp
    kv_bytes = batch * seq_bytes(mean_context)
    hbm = gpu.memory_bandwidth_gbps * 1e9 * HBM_BANDWIDTH_EFFICIENCY
    weight_bandwidth = hbm * (MOE_DECODE_EFFICIENCY if model.is_moe else 1.0)
    peak = peak_tflops(gpu, resolved.compute_precision) * 1e12
    decode_peak = peak * _compute_efficiency(gpu, resolved, DECODE_COMPUTE_EFFICIENCY)
    decode_peak *= TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING ** math.log2(tp)
    attn_peak = _attention_peak_tflops(gpu, resolved) * 1e12
    attn_decode_peak = attn_peak * _compute_efficiency(gpu, resolved, DECODE_COMPUTE_EFFICIENCY)
    gemm_memory_s = weight_bytes / weight_bandwidth
    gemm_compute_s = batch * 2 * model.params_active_b * 1e9 / tp / decode_peak
    attn_memory_s = kv_bytes / hbm
    attn_flops = _attention_flops_per_token(model, mean_context)
    attn_compute_s = batch * attn_flops / tp / attn_decode_peak
    memory_s = gemm_memory_s + attn_memory_s
    compute_s = gemm_compute_s + attn_compute_s
    kernels_s = max(gemm_memory_s, gemm_compute_s) + max(attn_memory_s, attn_compute_s)
    comm_s = _allreduce_s(gpu, tp, batch, model)
    overhead_s = DECODE_STEP_OVERHEAD_S + DECODE_LAYER_OVERHEAD_S * model.layers
    step_s = kernels_s + comm_s + overhead_s
    no_comm_step = kernels_s + overhead_s

    # Prefill: compute bound; the weight GEMMs at the compute precision, causal attention over
    # the prompt (mean context input/2) at the attention precision.
    prefill_gemm_s = (
        input_tokens
        * 2
        * model.params_active_b
        * 1e9
        / tp
        / (peak * _compute_efficiency(gpu, resolved, PREFILL_MFU))
    )
    prefill_attn_s = (
        input_tokens
        * _attention_flops_per_token(model, input_tokens / 2)
        / tp
        / (attn_peak * _compute_efficiency(gpu, resolved, PREFILL_MFU))
    )
    prefill_s = prefill_gemm_s + prefill_attn_s + _allreduce_s(gpu, tp, input_tokens, model)

    # One "generation" of the batch: every request is prefilled once and decoded output_tokens
    # steps; prefill is not overlapped with decode (the calibration does not support counting
    # chunked prefill as free: fitting an overlap share gave 0).
    cycle_s = batch * prefill_s + output_tokens * step_s
    output_rate = batch * output_tokens / cycle_s
    return {
        "batch": batch,
        "limited_by": limited_by,
        "kv_budget_gb": kv_budget_per_gpu * tp / 1e9,
        "step_s": step_s,
        "bound": "memory" if memory_s >= compute_s else "compute",
        "tp_efficiency": no_comm_step / step_s,
        "prefill_s": prefill_s,
        "decode_rate": batch / step_s,
        "output_rate": output_rate,
    }


def estimate_throughput(
    model: ModelSpec,
    precision: str,
    gpu: GpuSpec,
    gpu_count: int,
    input_tokens: int,
    output_tokens: int,
    *,
    concurrency: int | None = None,
    max_batch: int = DEFAULT_MAX_BATCH,
    tensor_parallel: int | None = None,
    kv_precision: str | None = None,
) -> ThroughputEstimate:
    """Steady-state output tokens/s of ``gpu_count`` x ``gpu`` serving ``model``.

    Requests have ``input_tokens`` prompt and ``output_tokens`` generated tokens. The instance
    is split into TP groups (``tensor_parallel``, or the fastest allowed power of two that
    divides ``gpu_count``) running as independent data-parallel replicas. ``concurrency`` caps
    the sequences in flight over the whole instance (None = as many as memory and
    ``max_batch`` per replica allow: an offline, max-throughput load). See docs/estimates.md
    for the formula. Raises ValueError on non-positive token counts or GPU count, or a
    sequence longer than the model's context.
    """
    if input_tokens <= 0 or output_tokens <= 0 or gpu_count <= 0 or max_batch <= 0:
        raise ValueError("input_tokens, output_tokens, gpu_count and max_batch must be positive")
    if concurrency is not None and concurrency <= 0:
        raise ValueError("concurrency must be positive")
    if input_tokens + output_tokens > model.max_context_tokens:
        raise ValueError(
            f"{model.model_id} supports {model.max_context_tokens} tokens, "
            f"not {input_tokens}+{output_tokens}"
        )
    resolved = resolve_precision(precision, gpu, kv_precision)
    if tensor_parallel is not None:
        if gpu_count % tensor_parallel or not _tp_allowed(model, tensor_parallel):
            raise ValueError(f"tensor_parallel={tensor_parallel} does not fit {gpu_count} GPUs")
        candidates = [tensor_parallel]
    else:
        candidates = [
            tp for tp in _group_sizes(gpu_count) if gpu_count % tp == 0 and _tp_allowed(model, tp)
        ]
    best: tuple[int, float, dict[str, float | int | str]] | None = None
    for tp in candidates:
        dp = gpu_count // tp
        per_replica = None if concurrency is None else max(1, math.ceil(concurrency / dp))
        result = _replica_estimate(
            model, resolved, gpu, tp, input_tokens, output_tokens, max_batch, per_replica
        )
        if result is None:
            continue
        # With a concurrency limit only as many replicas are busy as the sequences fill.
        busy = dp if concurrency is None else min(dp, concurrency / int(result["batch"]))
        if (
            best is None
            or float(result["output_rate"]) * busy > float(best[2]["output_rate"]) * best[1]
        ):
            best = (tp, busy, result)
    if best is None:
        return ThroughputEstimate(
            model.model_id, gpu.gpu_id, gpu_count, resolved, input_tokens, output_tokens,
            fits=False, tensor_parallel=0, data_parallel=0, batch=0, batch_limited_by="none",
            kv_budget_gb_per_replica=0.0, decode_step_s=0.0, decode_bound="none",
            tp_efficiency=0.0, prefill_s_per_request=0.0, decode_tokens_per_s_per_seq=0.0,
            decode_tokens_per_s=0.0, output_tokens_per_s=0.0, total_tokens_per_s=0.0,
        )  # fmt: skip
    tp, busy, r = best
    dp = gpu_count // tp
    output_rate = float(r["output_rate"]) * busy
    return ThroughputEstimate(
        model_id=model.model_id,
        gpu_id=gpu.gpu_id,
        gpu_count=gpu_count,
        precision=resolved,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        fits=True,
        tensor_parallel=tp,
        data_parallel=dp,
        batch=int(r["batch"]),
        batch_limited_by=str(r["limited_by"]),
        kv_budget_gb_per_replica=float(r["kv_budget_gb"]),
        decode_step_s=float(r["step_s"]),
        decode_bound=str(r["bound"]),
        tp_efficiency=float(r["tp_efficiency"]),
        prefill_s_per_request=float(r["prefill_s"]),
        decode_tokens_per_s_per_seq=1.0 / float(r["step_s"]),
        decode_tokens_per_s=float(r["decode_rate"]) * busy,
        output_tokens_per_s=output_rate,
        total_tokens_per_s=output_rate * (input_tokens + output_tokens) / output_tokens,
    )


# ============================================================================================
# Calibration regimes and confidence bands

# Output-length classes of the calibration summary and the confidence bands: a decode shorter
# than 1000 tokens is "short" (MLPerf-style summaries and chat answers), 2000 or more "long"
# (reasoning traces, long generations), in between "medium" (the 1000/1000 standard settings).
SHORT_OUTPUT_BELOW_TOKENS = 1000
LONG_OUTPUT_FROM_TOKENS = 2000


def output_length_class(output_tokens: int) -> str:
    """short (< 1000 generated tokens), medium (1000-1999) or long (>= 2000)."""
    if output_tokens < SHORT_OUTPUT_BELOW_TOKENS:
        return "short"
    return "long" if output_tokens >= LONG_OUTPUT_FROM_TOKENS else "medium"


@dataclass(frozen=True, slots=True)
class Regime:
    """Where an estimate sits among the calibration points: GPU generation, requested precision
    and output-length class."""

    generation: str
    precision: str
    output_length: str

    @property
    def label(self) -> str:
        return f"{self.generation}/{self.precision}/{self.output_length}"


def regime_of(gpu: GpuSpec, precision: str, output_tokens: int) -> Regime:
    """The calibration regime of an estimate (``precision`` as requested: fp8, fp4, bf16 ...)."""
    return Regime(gpu.generation, precision, output_length_class(output_tokens))


# Confidence bands: how far the estimates of a regime's calibration points were from the
# measurements. CALIBRATION_BANDS is generated from docs/estimates_calibration.csv by
# ``benchmarks/estimates_calibration.py --bands`` (tests/warehouse/test_economics.py fails when
# it no longer matches the CSV and the model): key (generation, precision, output length) with
# "*" for any, value (points, low ratio, high ratio, geometric-mean ratio), ratio = estimate /
# measured output tokens/s.
BAND_MIN_POINTS = 3  # a regime needs this many points to set a band of its own
BAND_PERCENTILE_MIN_POINTS = 10  # from here on the band is the 10th-90th percentile, not extremes
BAND_FLOOR = 1.10  # never claim better than +-10%: engines, versions and settings vary that much
HIGH_CONFIDENCE_WITHIN = 1.25  # band within this factor, from the estimate's own regime: high
MEDIUM_CONFIDENCE_WITHIN = 1.5  # within this, from its own GPU generation: medium; else low

CALIBRATION_BANDS: dict[tuple[str, str, str], tuple[int, float, float, float]] = {
    ("*", "*", "*"): (41, 0.919, 1.295, 1.078),
    ("*", "*", "long"): (12, 1.031, 1.516, 1.231),
    ("*", "*", "medium"): (3, 1.035, 1.262, 1.124),
    ("*", "*", "short"): (26, 0.867, 1.156, 1.009),
    ("ada", "*", "*"): (1, 1.093, 1.093, 1.093),
    ("ada", "fp8", "*"): (1, 1.093, 1.093, 1.093),
    ("ada", "fp8", "short"): (1, 1.093, 1.093, 1.093),
    ("blackwell", "*", "*"): (7, 0.95, 1.11, 0.999),
    ("blackwell", "fp4", "*"): (6, 0.95, 1.11, 1.006),
    ("blackwell", "fp4", "short"): (6, 0.95, 1.11, 1.006),
    ("blackwell", "fp8", "*"): (1, 0.96, 0.96, 0.96),
    ("blackwell", "fp8", "short"): (1, 0.96, 0.96, 0.96),
    ("cdna", "*", "*"): (2, 1.134, 1.181, 1.157),
    ("cdna", "fp8", "*"): (2, 1.134, 1.181, 1.157),
    ("cdna", "fp8", "short"): (2, 1.134, 1.181, 1.157),
    ("hopper", "*", "*"): (31, 0.893, 1.314, 1.091),
    ("hopper", "fp4", "*"): (1, 1.262, 1.262, 1.262),
    ("hopper", "fp4", "medium"): (1, 1.262, 1.262, 1.262),
    ("hopper", "fp8", "*"): (30, 0.887, 1.331, 1.086),
    ("hopper", "fp8", "long"): (12, 1.031, 1.516, 1.231),
    ("hopper", "fp8", "medium"): (2, 1.035, 1.087, 1.06),
    ("hopper", "fp8", "short"): (16, 0.826, 1.156, 0.991),
}


def band_summary(ratios: Sequence[float]) -> tuple[int, float, float, float]:
    """(points, low, high, geometric mean) of estimate/measured ratios, rounded to 3 places.

    Low/high are the 10th/90th percentiles (linear interpolation) from
    BAND_PERCENTILE_MIN_POINTS points on, else the minimum and maximum. Raises ValueError for
    no ratios.
    """
    if not ratios:
        raise ValueError("band_summary needs at least one ratio")
    ordered = sorted(ratios)
    n = len(ordered)

    def percentile(q: float) -> float:
        at = q * (n - 1)
        below = math.floor(at)
        above = min(below + 1, n - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (at - below)

    low, high = (
        (percentile(0.1), percentile(0.9))
        if n >= BAND_PERCENTILE_MIN_POINTS
        else (ordered[0], ordered[-1])
    )
    geomean = math.exp(sum(math.log(r) for r in ordered) / n)
    return n, round(low, 3), round(high, 3), round(geomean, 3)


@dataclass(frozen=True, slots=True)
class ConfidenceBand:
    """How sure an estimate is, from the calibration residuals of its nearest regime.

    ``regime`` is where the estimate falls (``blackwell/fp4/long``); ``basis`` the calibration
    regime the band comes from (the same, or a coarser one such as ``blackwell/fp4/*`` when its
    own has fewer than BAND_MIN_POINTS points; then the residuals of its output length on every
    generation widen it). Measured throughput was between estimate / ``ratio_high`` and
    estimate / ``ratio_low`` for the basis points (10th-90th percentile from ten points).
    ``confidence``: high (own regime, within 1.25x), medium (own generation, within 1.5x) or low.
    """

    regime: str
    basis: str
    points: int
    ratio_low: float
    ratio_high: float
    confidence: str

    def rate_bounds(self, rate: float) -> tuple[float, float]:
        """(low, high) throughput for an estimated ``rate`` (any tokens/s)."""
        return rate / self.ratio_high, rate / self.ratio_low

    def cost_bounds(self, cost: Decimal) -> tuple[Decimal, Decimal]:
        """(low, high) USD per million tokens for an estimated ``cost`` (the inverse of rate)."""
        return _usd(cost * _dec(self.ratio_low)), _usd(cost * _dec(self.ratio_high))


def confidence_band(
    gpu: GpuSpec,
    precision: str,
    output_tokens: int,
    bands: Mapping[tuple[str, str, str], tuple[int, float, float, float]] | None = None,
) -> ConfidenceBand:
    """The confidence band of an estimate on ``gpu`` at ``precision`` (as requested) with
    ``output_tokens`` generated per request, from ``bands`` (default CALIBRATION_BANDS).

    The nearest regime with at least BAND_MIN_POINTS points sets the band: (generation,
    precision, output length), then (generation, precision, *), (generation, *, *), (*, *, *).
    When that is not the estimate's own regime, the band is widened to cover what the model
    did at that output length on every generation (a regime without measurements inherits the
    known length effects), and never narrower than BAND_FLOOR either side. Raises ValueError
    when the table has no ``("*", "*", "*")`` entry.
    """
    table = CALIBRATION_BANDS if bands is None else bands
    regime = regime_of(gpu, precision, output_tokens)
    g, p, o = regime.generation, regime.precision, regime.output_length
    own = (g, p, o)
    basis = ("*", "*", "*")
    for key in (own, (g, p, "*"), (g, "*", "*")):
        found = table.get(key)
        if found is not None and found[0] >= BAND_MIN_POINTS:
            basis = key
            break
    if basis not in table:
        raise ValueError("calibration bands need a ('*', '*', '*') entry")
    points, low, high, _ = table[basis]
    if basis != own:
        length = table.get(("*", "*", o))
        if length is not None:
            low, high = min(low, length[1]), max(high, length[2])
    low, high = min(low, 1 / BAND_FLOOR), max(high, BAND_FLOOR)
    worst = max(high, 1 / low)
    if basis == own and worst <= HIGH_CONFIDENCE_WITHIN:
        confidence = "high"
    elif basis[0] == g and worst <= MEDIUM_CONFIDENCE_WITHIN:
        confidence = "medium"
    else:
        confidence = "low"
    return ConfidenceBand(regime.label, "/".join(basis), points, low, high, confidence)


# ============================================================================================
# Money


def _usd(value: Decimal) -> Decimal:
    return value.quantize(USD_QUANTUM, rounding=ROUND_HALF_UP)


def _dec(value: float) -> Decimal:
    # Floats come from the physics model; go through repr so 0.1 stays 0.1.
    return Decimal(repr(float(value)))


@dataclass(frozen=True, slots=True)
class TokenCost:
    """USD per million tokens at a given instance price and throughput."""

    usd_per_million_output_tokens: Decimal
    usd_per_million_total_tokens: Decimal


def cost_per_million_tokens(
    price_per_hour_usd: Decimal,
    output_tokens_per_s: float,
    total_tokens_per_s: float | None = None,
) -> TokenCost:
    """$ per 1M output tokens and per 1M total (input + output) tokens.

    ``price_per_hour_usd`` is the whole instance's hourly price; the rates are that instance's
    steady-state tokens/s (``ThroughputEstimate.output_tokens_per_s`` / ``total_tokens_per_s``;
    total defaults to output). Raises ValueError for a non-positive rate or negative price.
    """
    if output_tokens_per_s <= 0:
        raise ValueError("output_tokens_per_s must be positive")
    total = output_tokens_per_s if total_tokens_per_s is None else total_tokens_per_s
    if total <= 0:
        raise ValueError("total_tokens_per_s must be positive")
    price = Decimal(price_per_hour_usd)
    if price < 0:
        raise ValueError("price must not be negative")
    million = Decimal(1_000_000)
    per_output = price / (_dec(output_tokens_per_s) * 3600) * million
    per_total = price / (_dec(total) * 3600) * million
    return TokenCost(_usd(per_output), _usd(per_total))


def cost_per_gb_vram_hour(price_per_hour_usd: Decimal, vram_gb_total: float) -> Decimal:
    """$ per GB of GPU memory per hour for an instance (price over its total VRAM)."""
    if vram_gb_total <= 0:
        raise ValueError("vram_gb_total must be positive")
    return _usd(Decimal(price_per_hour_usd) / _dec(vram_gb_total))


# ============================================================================================
# Serverless vs dedicated


@dataclass(frozen=True, slots=True)
class ServerlessTier:
    """One serverless GPU price point (from the serverless seed).

    Billing rounds each billed interval up to ``billing_granularity_s`` and to at least
    ``min_charge_s``. ``charges_idle``: warm-but-idle workers are billed until they scale
    down. ``scale_to_zero`` False means one worker is always billed.
    """

    provider: str
    gpu_id: str
    price_per_second_usd: Decimal
    billing_granularity_s: float = 1.0
    min_charge_s: float = 0.0
    charges_idle: bool = True
    scale_to_zero: bool = True


@dataclass(frozen=True, slots=True)
class Load:
    """A request load. GPU-seconds are busy time on one serving replica per request.

    Use ``Load.from_tokens`` to derive GPU-seconds from tokens per request and a replica's
    throughput. ``cold_starts_per_day`` None = modelled from Poisson arrivals and the idle
    timeout (see ``expected_cold_starts_per_day``).
    """

    requests_per_day: float
    gpu_seconds_per_request: float
    cold_start_s: float = 0.0
    cold_starts_per_day: float | None = None
    min_warm_replicas: int = 0
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S

    @classmethod
    def from_tokens(
        cls,
        requests_per_day: float,
        output_tokens_per_request: float,
        output_tokens_per_s: float,
        **kwargs: float,
    ) -> Load:
        """GPU-seconds per request = output tokens / the replica's output tokens/s."""
        if output_tokens_per_s <= 0:
            raise ValueError("output_tokens_per_s must be positive")
        seconds = output_tokens_per_request / output_tokens_per_s
        return cls(requests_per_day, seconds, **kwargs)  # type: ignore[arg-type]


def expected_cold_starts_per_day(load: Load) -> float:
    """Cold starts per day for a scale-to-zero pool with Poisson arrivals.

    A request is cold when the previous one ended more than ``idle_timeout_s`` ago:
    P = exp(-rate x timeout), so cold starts/day = requests x exp(-rate x timeout). Zero with
    warm replicas.
    """
    if load.min_warm_replicas > 0 or load.requests_per_day <= 0:
        return 0.0
    rate = load.requests_per_day / SECONDS_PER_DAY
    return load.requests_per_day * math.exp(-rate * load.idle_timeout_s)


def _billed_s(seconds: float, tier: ServerlessTier) -> float:
    granularity = tier.billing_granularity_s if tier.billing_granularity_s > 0 else 1e-9
    rounded = math.ceil(seconds / granularity - 1e-9) * granularity
    return max(rounded, tier.min_charge_s)


def serverless_seconds_per_day(load: Load, tier: ServerlessTier) -> float:
    """Billed worker-seconds per day on ``tier`` for ``load``.

    Each request is billed separately (rounded up to the granularity, at least the minimum
    charge). Cold starts add their duration. Idle charging adds the warm tail after each request
    (mean min(gap, timeout) for Poisson gaps). Warm replicas (``min_warm_replicas``, or 1 when
    the tier cannot scale to zero) are billed all day and absorb busy time up to their capacity.
    """
    busy = load.requests_per_day * _billed_s(load.gpu_seconds_per_request, tier)
    warm = max(load.min_warm_replicas, 0 if tier.scale_to_zero else 1)
    if warm > 0:
        return warm * SECONDS_PER_DAY + max(0.0, busy - warm * SECONDS_PER_DAY)
    colds = (
        load.cold_starts_per_day
        if load.cold_starts_per_day is not None
        else expected_cold_starts_per_day(load)
    )
    billed = busy + colds * load.cold_start_s
    if tier.charges_idle and load.requests_per_day > 0:
        rate = load.requests_per_day / SECONDS_PER_DAY
        idle_tail = (1 - math.exp(-rate * load.idle_timeout_s)) / rate
        billed += load.requests_per_day * idle_tail
    return billed


def dedicated_replicas(load: Load) -> int:
    """Dedicated replicas needed: enough busy-seconds capacity, at least the warm minimum, >= 1."""
    busy = load.requests_per_day * load.gpu_seconds_per_request
    return max(1, load.min_warm_replicas, math.ceil(busy / SECONDS_PER_DAY - 1e-9))


@dataclass(frozen=True, slots=True)
class BreakevenResult:
    """Monthly cost of a load on a serverless tier vs a dedicated replica, and the cross-over.

    ``utilization`` is busy GPU-seconds / (dedicated replicas x seconds per day) at this load.
    ``breakeven_utilization`` is the single-replica utilisation above which dedicated is
    cheaper (None when serverless stays cheaper even at 100% busy), and
    ``breakeven_requests_per_day`` the matching request rate.
    """

    provider: str
    gpu_id: str
    serverless_monthly_usd: Decimal
    dedicated_monthly_usd: Decimal
    dedicated_replicas: int
    cheaper: str  # serverless | dedicated
    utilization: float
    breakeven_utilization: float | None
    breakeven_requests_per_day: float | None


def _serverless_monthly(load: Load, tier: ServerlessTier) -> Decimal:
    seconds = serverless_seconds_per_day(load, tier)
    return _usd(_dec(seconds) * Decimal(tier.price_per_second_usd) * _dec(DAYS_PER_MONTH))


def breakeven(
    load: Load, tier: ServerlessTier, dedicated_price_per_hour_usd: Decimal
) -> BreakevenResult:
    """Serverless ``tier`` vs a dedicated replica at ``dedicated_price_per_hour_usd`` for ``load``.

    The dedicated side bills ``dedicated_replicas(load)`` replicas for every hour of the month.
    The break-even is found by bisection on requests/day with the other load parameters fixed
    (serverless cost is non-decreasing in requests), up to one fully busy replica.
    Raises ValueError for negative requests or GPU-seconds.
    """
    if load.requests_per_day < 0 or load.gpu_seconds_per_request <= 0:
        raise ValueError("requests_per_day must be >= 0 and gpu_seconds_per_request > 0")
    price_hour = Decimal(dedicated_price_per_hour_usd)
    replicas = dedicated_replicas(load)
    dedicated = _usd(price_hour * replicas * _dec(HOURS_PER_MONTH))
    serverless = _serverless_monthly(load, tier)
    busy = load.requests_per_day * load.gpu_seconds_per_request
    utilization = busy / (replicas * SECONDS_PER_DAY)

    one_replica = _usd(price_hour * max(1, load.min_warm_replicas) * _dec(HOURS_PER_MONTH))
    full_requests = SECONDS_PER_DAY / load.gpu_seconds_per_request

    def cost_at(requests: float) -> Decimal:
        return _serverless_monthly(replace(load, requests_per_day=requests), tier)

    breakeven_requests: float | None = None
    if cost_at(full_requests) >= one_replica:
        low, high = 0.0, full_requests
        if cost_at(low) >= one_replica:
            high = 0.0
        for _ in range(100):
            if high - low <= 1e-9 * max(1.0, full_requests):
                break
            mid = (low + high) / 2
            if cost_at(mid) >= one_replica:
                high = mid
            else:
                low = mid
        breakeven_requests = high
    breakeven_util = (
        None
        if breakeven_requests is None
        else breakeven_requests * load.gpu_seconds_per_request / SECONDS_PER_DAY
    )
    return BreakevenResult(
        provider=tier.provider,
        gpu_id=tier.gpu_id,
        serverless_monthly_usd=serverless,
        dedicated_monthly_usd=dedicated,
        dedicated_replicas=replicas,
        cheaper="serverless" if serverless < dedicated else "dedicated",
        utilization=utilization,
        breakeven_utilization=breakeven_util,
        breakeven_requests_per_day=breakeven_requests,
    )


def breakeven_all(
    load: Load, tiers: Iterable[ServerlessTier], dedicated_price_per_hour_usd: Decimal
) -> list[BreakevenResult]:
    """``breakeven`` for every tier, cheapest serverless first."""
    results = [breakeven(load, tier, dedicated_price_per_hour_usd) for tier in tiers]
    return sorted(results, key=lambda r: r.serverless_monthly_usd)
