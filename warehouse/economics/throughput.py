"""Throughput: a roofline per decode step plus a compute-bound prefill, tensor parallelism
costed as explicit all-reduces, the instance split into the TP x DP replicas with the most
tokens/s (``estimate_throughput``). Formula and constants: docs/estimates.md."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from warehouse.economics.constants import (
    ACTIVATION_BYTES,
    ACTIVATION_WORKSPACE_GB_PER_GPU,
    ALLREDUCE_EFFICIENCY,
    ALLREDUCE_LATENCY_S,
    AMD_COMPUTE_EFFICIENCY_FACTOR,
    ATTENTION_HBM_EFFICIENCY,
    DECODE_COMPUTE_EFFICIENCY,
    DECODE_LAYER_OVERHEAD_S,
    DECODE_STEP_OVERHEAD_S,
    DEFAULT_KV_ADMISSION,
    DEFAULT_MAX_BATCH,
    FP4_COMPUTE_EFFICIENCY_FACTOR,
    GPU_MEMORY_UTILIZATION,
    HBM_BANDWIDTH_EFFICIENCY,
    KV_ADMISSION_RESERVED_OUTPUT_FRACTION,
    MOE_DECODE_EFFICIENCY,
    MOE_EXPERT_GEMM_EFFICIENCY,
    PREFILL_MFU,
    TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING,
    VOCAB_WEIGHT_BYTES_PER_PARAM,
    WEIGHT_BYTES_PER_PARAM,
)
from warehouse.economics.inputs import ModelSpec
from warehouse.economics.memory import (
    group_sizes,
    kv_cache_bytes_per_sequence,
    kv_share_per_gpu,
    memory_capacity_gb,
    tp_allowed,
    weights_gb,
)
from warehouse.economics.power import sustained_compute_fraction
from warehouse.economics.precision import (
    ResolvedPrecision,
    peak_tflops,
    resolve_precision,
    sixteen_bit,
)
from warehouse.gpus import GpuSpec


def expected_expert_fraction(model: ModelSpec, tokens: float) -> float:
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
    """Achieved fraction of the compute precision's dense peak (``base`` x vendor x format x the
    share of the peak the board's power sustains, ``power.sustained_compute_fraction``)."""
    factor = AMD_COMPUTE_EFFICIENCY_FACTOR if gpu.is_amd else 1.0
    factor *= sustained_compute_fraction(gpu)
    if resolved.compute_precision == "fp4":
        factor *= FP4_COMPUTE_EFFICIENCY_FACTOR
    return base * factor


def _attention_peak_tflops(gpu: GpuSpec, resolved: ResolvedPrecision) -> float:
    """Dense peak the attention math runs at: QK^T and PV take the KV cache's format (fp8 KV
    on an FP8 GPU, else 16-bit), never the 4-bit weight format, and never faster than the
    compute precision (an fp8 request on A100 runs attention at bf16)."""
    fmt = "fp8" if resolved.kv_precision == "fp8" and gpu.fp8_support else sixteen_bit(gpu)
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
    max_batch: int  # the engine's cap on the batch per replica
    kv_budget_gb_per_replica: float
    decode_step_s: float
    decode_bound: str  # memory | compute | none
    tp_efficiency: float
    hbm_bandwidth_fraction: float  # weights + KV moved per step / (step x datasheet bandwidth)
    # Share of the step that does not grow with the batch (the weight stream while it outlasts
    # the GEMM math, collective latencies, per-step and per-layer overheads): d ln(rate) / d ln
    # (batch), what a larger KV cache (a larger batch) would add to the rate in proportion.
    fixed_step_fraction: float
    sustained_compute_fraction: float  # share of the datasheet tensor peak board power sustains
    kv_admission: str  # the scheduler's KV admission policy (KV_ADMISSION_RESERVED_OUTPUT_FRACTION)
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
    reserved_output_fraction: float,
) -> dict[str, float | int | str] | None:
    weights_per_gpu_gb = weights_gb(model, resolved.weight_precision) / tp
    usable_gb = memory_capacity_gb(gpu) * GPU_MEMORY_UTILIZATION - ACTIVATION_WORKSPACE_GB_PER_GPU
    kv_budget_per_gpu = (usable_gb - weights_per_gpu_gb) * 1e9
    if kv_budget_per_gpu <= 0:
        return None
    # Attention reads what a running sequence holds on average: its prompt plus half of its
    # output. The scheduler admits sequences against the prompt plus ``reserved_output_fraction``
    # of the output (KV_ADMISSION_RESERVED_OUTPUT_FRACTION: 0.5, the average occupancy, when
    # pages are allocated as sequences grow; 1.0 under TensorRT-LLM's GUARANTEED_NO_EVICT, so
    # a long decode then runs a smaller batch than the average occupancy allows).
    mean_context = input_tokens + output_tokens / 2
    reserved_context = input_tokens + reserved_output_fraction * output_tokens
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

    # One engine step (in-flight batching): every running sequence decodes one token and the
    # prompts of the sequences that replace finished ones are prefilled in chunks in the same
    # forward pass, batch x input/output prompt tokens per step on average. The weight GEMMs
    # stream the weights once for all of them, so prompt tokens cost compute but no extra
    # weight reads; the attention kernels run after the GEMMs with their own roofline.
    prompt_tokens = batch * input_tokens / output_tokens
    # The weight stream: the blocks' touched parameters at the weight format plus the whole
    # 16-bit lm_head; of the embedding table a step gathers only the batch's rows (negligible).
    bytes_per_weight = WEIGHT_BYTES_PER_PARAM[resolved.weight_precision]
    touched_block_params = (
        model.shared_params_b
        - model.vocab_matrices_params_b
        + model.expert_params_b * expected_expert_fraction(model, batch + prompt_tokens)
    )
    head_bytes = model.vocab_params_b * VOCAB_WEIGHT_BYTES_PER_PARAM
    weight_bytes = (touched_block_params * bytes_per_weight + head_bytes) * 1e9 / tp
    kv_bytes = batch * seq_bytes(mean_context)
    bandwidth = gpu.memory_bandwidth_gbps * 1e9
    weight_bandwidth = bandwidth * HBM_BANDWIDTH_EFFICIENCY
    weight_bandwidth *= MOE_DECODE_EFFICIENCY if model.is_moe else 1.0
    peak = peak_tflops(gpu, resolved.compute_precision) * 1e12
    decode_peak = peak * _compute_efficiency(gpu, resolved, DECODE_COMPUTE_EFFICIENCY)
    decode_peak *= TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING ** math.log2(tp)
    prefill_peak = peak * _compute_efficiency(gpu, resolved, PREFILL_MFU)
    attn_peak = _attention_peak_tflops(gpu, resolved) * 1e12
    attn_decode_peak = attn_peak * _compute_efficiency(gpu, resolved, DECODE_COMPUTE_EFFICIENCY)
    attn_prefill_peak = attn_peak * _compute_efficiency(gpu, resolved, PREFILL_MFU)
    # GEMM FLOPs: the blocks' for every token; the lm_head's (at 16 bit) only for the tokens that
    # are sampled, one per decoding sequence (a prompt's logits are not computed); the embedding
    # is a lookup. Llama 3.1 8B: 13.96 GFLOP per prompt token, 15.01 per generated token. The
    # routed experts' FLOPs count 1 / MOE_EXPERT_GEMM_EFFICIENCY each (the fused-MoE kernel's
    # routing, permutation and padding), so one peak serves the whole block.
    expert_active_b = model.routed_params_active_b
    dense_active_b = model.params_active_b - model.vocab_matrices_params_b - expert_active_b
    flops_per_token = 2 * (dense_active_b + expert_active_b / MOE_EXPERT_GEMM_EFFICIENCY) * 1e9
    flops_per_token /= tp
    head_flops_per_token = 2 * model.vocab_params_b * 1e9 / tp
    # the head is never quantized (VOCAB_WEIGHT_BYTES_PER_PARAM): the 16-bit rate, never above
    # the compute precision's
    head_format = replace(resolved, compute_precision=sixteen_bit(gpu))
    head_decode_peak = min(peak_tflops(gpu, head_format.compute_precision) * 1e12, peak)
    head_decode_peak *= _compute_efficiency(gpu, head_format, DECODE_COMPUTE_EFFICIENCY)
    head_decode_peak *= TP_DECODE_GEMM_EFFICIENCY_PER_DOUBLING ** math.log2(tp)
    gemm_memory_s = weight_bytes / weight_bandwidth
    gemm_compute_s = flops_per_token * (batch / decode_peak + prompt_tokens / prefill_peak)
    gemm_compute_s += head_flops_per_token * batch / head_decode_peak
    attn_memory_s = kv_bytes / (bandwidth * ATTENTION_HBM_EFFICIENCY)
    attn_compute_s = batch * _attention_flops_per_token(model, mean_context) / tp / attn_decode_peak
    prompt_attn_s = (
        prompt_tokens * _attention_flops_per_token(model, input_tokens / 2) / tp / attn_prefill_peak
    )
    memory_s = gemm_memory_s + attn_memory_s
    compute_s = gemm_compute_s + attn_compute_s + prompt_attn_s
    kernels_s = (
        max(gemm_memory_s, gemm_compute_s) + max(attn_memory_s, attn_compute_s) + prompt_attn_s
    )
    comm_s = _allreduce_s(gpu, tp, batch + prompt_tokens, model)
    overhead_s = DECODE_STEP_OVERHEAD_S + DECODE_LAYER_OVERHEAD_S * model.layers
    step_s = kernels_s + comm_s + overhead_s
    # what a larger batch would not add to: the weight stream while it outlasts the GEMM math,
    # the collectives' fixed latency and the overheads (attention and prompt work scale with it)
    fixed_s = overhead_s + _allreduce_s(gpu, tp, 0.0, model)
    fixed_s += gemm_memory_s if gemm_memory_s >= gemm_compute_s else 0.0
    no_comm_step = kernels_s + overhead_s

    # A request's prefill on its own (what its first token waits for on an idle replica):
    # compute bound, the weight GEMMs and causal attention over the prompt.
    prefill_s = (
        input_tokens * flops_per_token / prefill_peak
        + input_tokens
        * _attention_flops_per_token(model, input_tokens / 2)
        / tp
        / attn_prefill_peak
        + _allreduce_s(gpu, tp, input_tokens, model)
    )
    output_rate = batch / step_s
    return {
        "batch": batch,
        "limited_by": limited_by,
        "kv_budget_gb": kv_budget_per_gpu * tp / 1e9,
        "step_s": step_s,
        "bound": "memory" if memory_s >= compute_s else "compute",
        "tp_efficiency": no_comm_step / step_s,
        "bandwidth_fraction": (weight_bytes + kv_bytes) / (step_s * bandwidth),
        "fixed_fraction": fixed_s / step_s,
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
    kv_admission: str = DEFAULT_KV_ADMISSION,
) -> ThroughputEstimate:
    """Steady-state output tokens/s of ``gpu_count`` x ``gpu`` serving ``model``.

    Requests have ``input_tokens`` prompt and ``output_tokens`` generated tokens. The instance
    is split into TP groups (``tensor_parallel``, or the fastest allowed power of two that
    divides ``gpu_count``) running as independent data-parallel replicas. ``concurrency`` caps
    the sequences in flight over the whole instance (None = as many as memory and
    ``max_batch`` per replica allow: an offline, max-throughput load). See docs/estimates.md
    for the formula. ``kv_admission`` is the scheduler's KV admission policy
    (KV_ADMISSION_RESERVED_OUTPUT_FRACTION: ``max_utilization``, the tuned default, or
    ``guaranteed_no_evict``). Raises ValueError on non-positive token counts or GPU count, an
    unknown admission policy, or a sequence longer than the model's context.
    """
    if input_tokens <= 0 or output_tokens <= 0 or gpu_count <= 0 or max_batch <= 0:
        raise ValueError("input_tokens, output_tokens, gpu_count and max_batch must be positive")
    if concurrency is not None and concurrency <= 0:
        raise ValueError("concurrency must be positive")
    if kv_admission not in KV_ADMISSION_RESERVED_OUTPUT_FRACTION:
        known = ", ".join(KV_ADMISSION_RESERVED_OUTPUT_FRACTION)
        raise ValueError(f"kv_admission must be one of {known}, not {kv_admission!r}")
    if input_tokens + output_tokens > model.max_context_tokens:
        raise ValueError(
            f"{model.model_id} supports {model.max_context_tokens} tokens, "
            f"not {input_tokens}+{output_tokens}"
        )
    resolved = resolve_precision(precision, gpu, kv_precision)
    if tensor_parallel is not None:
        if gpu_count % tensor_parallel or not tp_allowed(model, tensor_parallel):
            raise ValueError(f"tensor_parallel={tensor_parallel} does not fit {gpu_count} GPUs")
        candidates = [tensor_parallel]
    else:
        candidates = [
            tp for tp in group_sizes(gpu_count) if gpu_count % tp == 0 and tp_allowed(model, tp)
        ]
    best: tuple[int, float, dict[str, float | int | str]] | None = None
    for tp in candidates:
        dp = gpu_count // tp
        per_replica = None if concurrency is None else max(1, math.ceil(concurrency / dp))
        result = _replica_estimate(
            model,
            resolved,
            gpu,
            tp,
            input_tokens,
            output_tokens,
            max_batch,
            per_replica,
            KV_ADMISSION_RESERVED_OUTPUT_FRACTION[kv_admission],
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
            max_batch=max_batch,
            kv_budget_gb_per_replica=0.0, decode_step_s=0.0, decode_bound="none",
            tp_efficiency=0.0, hbm_bandwidth_fraction=0.0, fixed_step_fraction=0.0,
            sustained_compute_fraction=sustained_compute_fraction(gpu), kv_admission=kv_admission,
            prefill_s_per_request=0.0,
            decode_tokens_per_s_per_seq=0.0, decode_tokens_per_s=0.0, output_tokens_per_s=0.0,
            total_tokens_per_s=0.0,
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
        max_batch=max_batch,
        kv_budget_gb_per_replica=float(r["kv_budget_gb"]),
        decode_step_s=float(r["step_s"]),
        decode_bound=str(r["bound"]),
        tp_efficiency=float(r["tp_efficiency"]),
        hbm_bandwidth_fraction=float(r["bandwidth_fraction"]),
        fixed_step_fraction=float(r["fixed_fraction"]),
        sustained_compute_fraction=sustained_compute_fraction(gpu),
        kv_admission=kv_admission,
        prefill_s_per_request=float(r["prefill_s"]),
        decode_tokens_per_s_per_seq=1.0 / float(r["step_s"]),
        decode_tokens_per_s=float(r["decode_rate"]) * busy,
        output_tokens_per_s=output_rate,
        total_tokens_per_s=output_rate * (input_tokens + output_tokens) / output_tokens,
    )
