"""Precision resolution: what runs when a format is asked for on a GPU (native, or the
documented weight-only fallback), and the dense peak a compute format gets."""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.economics.constants import KV_BYTES_PER_ELEMENT
from warehouse.economics.inputs import ModelSpec
from warehouse.gpus import GpuSpec
from warehouse.vocabulary import PRECISIONS


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


def has_rate(rate: float | None) -> bool:
    return rate is not None and rate > 0


def sixteen_bit(gpu: GpuSpec) -> str:
    return "bf16" if gpu.bf16_support and has_rate(gpu.bf16_tflops_dense) else "fp16"


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
    half = sixteen_bit(gpu)
    weight, compute, native, reason = precision, precision, True, None
    if precision == "bf16" and half != "bf16":
        weight = compute = "fp16"
        native = False
        reason = f"{gpu.gpu_id} has no bf16 tensor cores; runs fp16"
    elif (
        precision == "fp16"
        and not has_rate(gpu.fp16_tflops_dense)
        and has_rate(gpu.bf16_tflops_dense)
    ):
        weight = compute = "bf16"
        native = False
        reason = f"{gpu.gpu_id} lists no fp16 rate; runs bf16"
    elif precision == "fp8" and not (gpu.fp8_support and has_rate(gpu.fp8_tflops_dense)):
        weight, compute, native = "fp8", half, False
        reason = (
            f"{gpu.gpu_id} has no FP8 tensor cores; served as 8-bit weight-only (W8A16) "
            f"with {half} compute"
        )
    elif precision == "int8" and not has_rate(gpu.int8_tops_dense):
        weight, compute, native = "int8", half, False
        reason = f"{gpu.gpu_id} has no INT8 tensor cores; served as W8A16 with {half} compute"
    elif precision == "int4":
        weight, compute = "int4", half
    elif precision == "fp4" and not has_rate(gpu.fp4_tflops_dense):
        weight, compute, native = "fp4", half, False
        reason = (
            f"{gpu.gpu_id} has no FP4 tensor cores; served as 4-bit weight-only with {half} compute"
        )
    if kv_precision is None:
        fp8_gpu = gpu.fp8_support and has_rate(gpu.fp8_tflops_dense)
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
    if gpu.fp8_support and has_rate(gpu.fp8_tflops_dense):
        return "fp8"
    return sixteen_bit(gpu)


def peak_tflops(gpu: GpuSpec, compute_precision: str) -> float:
    """Dense tensor-core peak (TFLOPS or TOPS) for a compute precision; ValueError if absent."""
    rate = {
        "fp16": gpu.fp16_tflops_dense or gpu.bf16_tflops_dense,
        "bf16": gpu.bf16_tflops_dense or gpu.fp16_tflops_dense,
        "fp8": gpu.fp8_tflops_dense,
        "int8": gpu.int8_tops_dense,
        "fp4": gpu.fp4_tflops_dense,
    }.get(compute_precision)
    if not has_rate(rate):
        raise ValueError(f"{gpu.gpu_id} has no {compute_precision} throughput in its spec")
    assert rate is not None
    return rate
