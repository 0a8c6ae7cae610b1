"""Memory math: weights and KV-cache bytes, runtime overhead, and the smallest tensor-parallel
group a model fits (``fit``). GB = 10^9 bytes."""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.economics.constants import (
    ACTIVATION_WORKSPACE_GB_PER_GPU,
    BYTES_PER_LISTED_GB_HBM,
    BYTES_PER_LISTED_GB_OTHER,
    GPU_MEMORY_UTILIZATION,
    KV_BYTES_PER_ELEMENT,
    TP_DEGREES,
    VOCAB_WEIGHT_BYTES_PER_PARAM,
    WEIGHT_BYTES_PER_PARAM,
)
from warehouse.economics.inputs import ModelSpec
from warehouse.economics.precision import ResolvedPrecision, resolve_precision
from warehouse.gpus import GpuSpec


def weights_gb(model: ModelSpec, precision: str) -> float:
    """Weight memory in GB (10^9 bytes) with the transformer blocks stored at ``precision``.

    The embedding table and lm_head stay 16-bit (``VOCAB_WEIGHT_BYTES_PER_PARAM``): Llama 3.1 8B
    at fp8 is 6.98 B block parameters x 1 byte + 2 x 0.525 B x 2 bytes = 9.08 GB, at bf16 16.06
    GB. Norms and biases are counted with the blocks.
    """
    if precision not in WEIGHT_BYTES_PER_PARAM:
        raise ValueError(f"unknown precision {precision!r}")
    blocks = model.block_params_total_b * WEIGHT_BYTES_PER_PARAM[precision]
    return blocks + model.vocab_matrices_params_b * VOCAB_WEIGHT_BYTES_PER_PARAM


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


def memory_capacity_gb(gpu: GpuSpec) -> float:
    """Memory one GPU really has, in GB (10^9 bytes): the listed figure is GiB on HBM parts
    (an "80 GB" H100 holds 85.9 x 10^9 bytes), decimal otherwise (see constants)."""
    hbm = gpu.memory_type.upper().startswith("HBM")
    per_listed_gb = BYTES_PER_LISTED_GB_HBM if hbm else BYTES_PER_LISTED_GB_OTHER
    return gpu.vram_gb * per_listed_gb / 1e9


def overhead_gb_per_gpu(gpu: GpuSpec) -> float:
    """Runtime memory per GPU that is neither weights nor KV cache (GB)."""
    return memory_capacity_gb(gpu) * (1 - GPU_MEMORY_UTILIZATION) + ACTIVATION_WORKSPACE_GB_PER_GPU


def tp_allowed(model: ModelSpec, tp: int) -> bool:
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
        capacity_gb=memory_capacity_gb(gpu) * gpus,
    )


def group_sizes(max_gpus: int) -> list[int]:
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
    for gpus in group_sizes(max_gpus):
        if not tp_allowed(model, gpus):
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
