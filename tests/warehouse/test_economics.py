"""Known answers, monotonicity and calibration for warehouse.economics.

The calibration points (published measurements, URLs in the CSV) live in
docs/estimates_calibration.csv; every estimate must land within [0.5, 2] x measured, and the
table in docs/estimates.md must show the numbers the code produces today. Regenerate that table
with ``.venv/bin/python -m tests.warehouse.test_economics``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

import pytest

from warehouse.economics import (
    DEFAULT_MAX_BATCH,
    GpuSpec,
    Load,
    ModelSpec,
    ServerlessTier,
    breakeven,
    cost_per_gb_vram_hour,
    cost_per_million_tokens,
    estimate_throughput,
    expected_cold_starts_per_day,
    expected_expert_fraction,
    fit,
    gpu_spec_from_row,
    kv_cache_bytes_per_sequence,
    kv_cache_bytes_per_token,
    load_models,
    resolve_precision,
    standard_precision,
    weights_gb,
)

REPO = Path(__file__).resolve().parents[2]
CALIBRATION_CSV = REPO / "docs" / "estimates_calibration.csv"
ESTIMATES_MD = REPO / "docs" / "estimates.md"

# Datasheet values (dense tensor throughput, no sparsity), as the canonical GPU table holds them.
# H100 SXM: https://www.nvidia.com/en-us/data-center/h100/ (3.35 TB/s, 989 BF16, 1979 FP8, NVLink
# 900 GB/s). H200 SXM: https://www.nvidia.com/en-us/data-center/h200/ (141 GB, 4.8 TB/s).
# A100 SXM 80GB: https://www.nvidia.com/en-us/data-center/a100/ (2.039 TB/s, 312 BF16, 624 INT8,
# NVLink 600 GB/s, no FP8). MI300X: https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html
# (192 GB, 5.3 TB/s, 1307.4 BF16, 2614.9 FP8, 896 GB/s Infinity Fabric). L40S:
# https://www.nvidia.com/en-us/data-center/l40s/ (48 GB, 864 GB/s, 362 BF16, 733 FP8, PCIe Gen4
# x16 = 64 GB/s both directions).
GPUS = {
    "h100-sxm-80gb": GpuSpec(
        "h100-sxm-80gb", 80, 3350, 989, 989, 1979, 1979, None, True, True, "nvlink", 900, "nvidia"
    ),
    "h200-sxm-141gb": GpuSpec(
        "h200-sxm-141gb", 141, 4800, 989, 989, 1979, 1979, None, True, True, "nvlink", 900, "nvidia"
    ),
    "a100-sxm-80gb": GpuSpec(
        "a100-sxm-80gb", 80, 2039, 312, 312, None, 624, None, False, True, "nvlink", 600, "nvidia"
    ),
    "mi300x": GpuSpec(
        "mi300x",
        192,
        5300,
        1307.4,
        1307.4,
        2614.9,
        2614.9,
        None,
        True,
        True,
        "infinity_fabric",
        896,
        "amd",
    ),
    "l40s": GpuSpec(
        "l40s", 48, 864, 362.05, 362.05, 733, 733, None, True, True, "pcie", 64, "nvidia"
    ),
}
H100, A100 = GPUS["h100-sxm-80gb"], GPUS["a100-sxm-80gb"]
MODELS = load_models()


# ---------------------------------------------------------------------------------------------
# Seed


def test_models_seed_has_the_reference_models_with_sources() -> None:
    required = {
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b", "mistral-7b",
        "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b", "qwen3-32b", "qwen3-30b-a3b",
        "qwen3-235b-a22b", "deepseek-v3", "gpt-oss-20b", "gpt-oss-120b", "gemma-2-27b",
        "gemma-3-27b",
    }  # fmt: skip
    assert required <= MODELS.keys()
    assert len(MODELS) >= 14
    for model in MODELS.values():
        assert model.source_url.startswith("https://huggingface.co/"), model.model_id
        assert model.params_active_b <= model.params_total_b
        if model.is_moe:
            assert model.num_experts and model.experts_per_token
            assert 0 < model.shared_params_b < model.params_active_b
        else:
            assert model.params_active_b == model.params_total_b
    assert MODELS["deepseek-v3"].kv_latent_dim == 512 + 64
    assert MODELS["gemma-3-27b"].sliding_window_tokens == 1024
    assert MODELS["gpt-oss-120b"].sliding_window_layers == MODELS["gpt-oss-120b"].layers // 2


def test_gpu_spec_from_row_reads_csv_strings() -> None:
    row = {
        "gpu_id": "a100-sxm4-80gb", "vram_gb": "80", "memory_bandwidth_gbps": "2039",
        "fp16_tflops_dense": "312", "bf16_tflops_dense": "312", "fp8_tflops_dense": "",
        "int8_tops_dense": "624", "fp4_tflops_dense": "", "fp8_support": "false",
        "bf16_support": "true", "interconnect": "nvlink", "interconnect_bandwidth_gbps": "600",
        "vendor": "NVIDIA",
    }  # fmt: skip
    spec = gpu_spec_from_row(row)
    assert spec.fp8_tflops_dense is None and not spec.fp8_support and spec.bf16_support
    assert spec.vram_gb == 80 and spec.interconnect == "nvlink" and not spec.is_amd


# ---------------------------------------------------------------------------------------------
# Memory known answers


def _dense(params_b: float) -> ModelSpec:
    return replace(MODELS["llama-3.1-70b"], params_total_b=params_b, params_active_b=params_b)


def test_70b_parameters_at_fp16_is_140_gb() -> None:
    assert weights_gb(_dense(70.0), "fp16") == pytest.approx(140.0)
    assert weights_gb(_dense(70.0), "fp8") == pytest.approx(70.0)
    # 4-bit formats carry their block scales: more than half a byte per weight.
    assert 35.0 < weights_gb(_dense(70.0), "int4") < 37.0


def test_llama_31_70b_kv_cache_per_token_at_bf16() -> None:
    assert kv_cache_bytes_per_token(MODELS["llama-3.1-70b"], "bf16") == 2 * 80 * 8 * 128 * 2
    assert kv_cache_bytes_per_token(MODELS["llama-3.1-70b"], "bf16") == 327_680
    assert kv_cache_bytes_per_token(MODELS["llama-3.1-70b"], "fp8") == 163_840


def test_deepseek_v3_mla_kv_cache_per_token() -> None:
    # 61 layers x (512 latent + 64 rope key) x 2 bytes.
    assert kv_cache_bytes_per_token(MODELS["deepseek-v3"], "bf16") == 61 * 576 * 2 == 70_272
    # Far below what 128 full KV heads of width 128 would need.
    assert 70_272 * 50 < 2 * 61 * 128 * 128 * 2


def test_sliding_window_layers_cap_their_kv() -> None:
    gemma = MODELS["gemma-3-27b"]
    full = kv_cache_bytes_per_token(gemma, "bf16") * 32_768
    windowed = kv_cache_bytes_per_sequence(gemma, 32_768, "bf16")
    # 10 of 62 layers keep 32k tokens, 52 keep 1k.
    per_layer = kv_cache_bytes_per_token(gemma, "bf16") / 62
    assert windowed == pytest.approx(per_layer * (10 * 32_768 + 52 * 1024))
    assert windowed < full / 4
    # Below the window sliding layers change nothing.
    assert kv_cache_bytes_per_sequence(gemma, 512, "bf16") == pytest.approx(
        kv_cache_bytes_per_token(gemma, "bf16") * 512
    )


def test_expected_expert_fraction_grows_with_batch_towards_one() -> None:
    mixtral = MODELS["mixtral-8x7b"]
    assert expected_expert_fraction(mixtral, 1) == pytest.approx(2 / 8)
    fractions = [expected_expert_fraction(mixtral, b) for b in (1, 2, 4, 16, 64)]
    assert fractions == sorted(fractions) and fractions[-1] > 0.999
    assert expected_expert_fraction(MODELS["llama-3.1-8b"], 1) == 1.0


# ---------------------------------------------------------------------------------------------
# Precision resolution and fit


def test_fp8_on_a100_falls_back_with_a_reason() -> None:
    resolved = resolve_precision("fp8", A100)
    assert not resolved.native
    assert resolved.fallback_reason is not None and "FP8" in resolved.fallback_reason
    assert resolved.compute_precision == "bf16" and resolved.weight_precision == "fp8"
    assert resolved.kv_precision == "bf16"
    native = resolve_precision("fp8", H100)
    assert native.native and native.fallback_reason is None and native.kv_precision == "fp8"
    result = fit(MODELS["llama-3.1-70b"], "fp8", 4096, 1, A100)
    assert result.precision.fallback_reason == resolved.fallback_reason


def test_bf16_on_a_gpu_without_bf16_runs_fp16() -> None:
    v100 = replace(A100, gpu_id="v100", bf16_support=False, bf16_tflops_dense=None)
    resolved = resolve_precision("bf16", v100)
    assert resolved.compute_precision == "fp16" and not resolved.native


def test_standard_precision_is_fp8_where_native_and_keeps_4bit_checkpoints() -> None:
    assert standard_precision(MODELS["llama-3.1-70b"], H100) == "fp8"
    assert standard_precision(MODELS["llama-3.1-70b"], A100) == "bf16"
    assert standard_precision(MODELS["gpt-oss-120b"], A100) == "fp4"


def test_unknown_precision_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown precision"):
        resolve_precision("fp6", H100)


def test_llama_405b_fp8_needs_8_h100_not_4() -> None:
    result = fit(MODELS["llama-3.1-405b"], "fp8", 8192, 1, H100)
    assert result.min_gpus == 8
    assert result.breakdown.weights_gb == pytest.approx(405.9)
    assert result.breakdown.fits
    four = fit(MODELS["llama-3.1-405b"], "fp8", 8192, 1, H100, max_gpus=4)
    assert four.min_gpus is None and not four.breakdown.fits


def test_fit_grows_with_concurrency_and_context() -> None:
    model = MODELS["llama-3.1-70b"]
    small = fit(model, "fp8", 4096, 1, H100)
    large = fit(model, "fp8", 32_768, 64, H100)
    # 70.6 GB of fp8 weights plus the 10% reserve and workspace overflow one 80 GB GPU.
    assert small.min_gpus == 2
    assert fit(MODELS["llama-3.1-8b"], "fp8", 4096, 1, H100).min_gpus == 1
    assert large.min_gpus is not None and large.min_gpus > small.min_gpus
    assert large.breakdown.kv_cache_gb > small.breakdown.kv_cache_gb


def test_fit_rejects_context_beyond_the_model() -> None:
    with pytest.raises(ValueError, match="supports"):
        fit(MODELS["llama-2-70b"], "fp16", 8192, 1, H100)


# ---------------------------------------------------------------------------------------------
# Throughput monotonicity


@pytest.mark.parametrize(
    "model_id", ["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "gpt-oss-120b"]
)
def test_more_bandwidth_is_never_slower_when_memory_bound(model_id: str) -> None:
    model = MODELS[model_id]
    rates = []
    for bandwidth in (1000, 2000, 3350, 4800, 8000):
        gpu = replace(H100, memory_bandwidth_gbps=bandwidth)
        est = estimate_throughput(model, "fp8", gpu, 8, 1000, 1000, concurrency=8)
        assert est.fits and est.decode_bound == "memory"
        rates.append(est.output_tokens_per_s)
    assert rates == sorted(rates)
    assert rates[-1] > rates[0]


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "llama-3.1-70b", "qwen3-235b-a22b"])
def test_more_nvlink_gpus_never_fewer_tokens(model_id: str) -> None:
    model = MODELS[model_id]
    previous = 0.0
    for count in (1, 2, 4, 8):
        est = estimate_throughput(model, "fp8", H100, count, 1000, 1000)
        assert est.output_tokens_per_s >= previous
        previous = est.output_tokens_per_s
    assert previous > 0


def test_longer_context_never_more_batch() -> None:
    model = MODELS["llama-3.1-70b"]
    batches = [
        estimate_throughput(model, "fp8", H100, 4, prompt, 1000, tensor_parallel=4).batch
        for prompt in (128, 1000, 4000, 16_000, 64_000)
    ]
    assert batches == sorted(batches, reverse=True)
    assert batches[0] == DEFAULT_MAX_BATCH and batches[-1] < batches[0]


def test_model_that_does_not_fit_reports_zero() -> None:
    est = estimate_throughput(MODELS["llama-3.1-405b"], "fp8", H100, 4, 1000, 1000)
    assert not est.fits and est.output_tokens_per_s == 0


def test_total_tokens_count_input_and_output() -> None:
    est = estimate_throughput(MODELS["llama-3.1-8b"], "fp8", H100, 1, 1000, 1000)
    assert est.total_tokens_per_s == pytest.approx(2 * est.output_tokens_per_s)
    assert est.decode_tokens_per_s >= est.output_tokens_per_s


def test_fp8_request_on_a100_is_estimated_with_the_fallback() -> None:
    est = estimate_throughput(MODELS["llama-3.1-70b"], "fp8", A100, 8, 1000, 1000)
    assert est.fits and not est.precision.native and est.precision.compute_precision == "bf16"


# ---------------------------------------------------------------------------------------------
# Money


def test_cost_per_million_tokens_known_answer() -> None:
    cost = cost_per_million_tokens(Decimal("3.60"), 1000.0, 2000.0)
    assert cost.usd_per_million_output_tokens == Decimal("1.000000")
    assert cost.usd_per_million_total_tokens == Decimal("0.500000")
    with pytest.raises(ValueError):
        cost_per_million_tokens(Decimal("1"), 0.0)


def test_cost_per_gb_vram_hour() -> None:
    assert cost_per_gb_vram_hour(Decimal("2.40"), 80.0) == Decimal("0.030000")


TIER = ServerlessTier(
    provider="example",
    gpu_id="h100-sxm-80gb",
    price_per_second_usd=Decimal("0.0012"),  # $4.32/h, typical serverless H100 premium
    billing_granularity_s=1.0,
    min_charge_s=0.0,
    charges_idle=True,
    scale_to_zero=True,
)
DEDICATED_PER_HOUR = Decimal("2.50")


def test_no_requests_serverless_is_cheaper() -> None:
    result = breakeven(Load(0, 10.0), TIER, DEDICATED_PER_HOUR)
    assert result.serverless_monthly_usd == 0
    assert result.cheaper == "serverless"
    assert result.dedicated_monthly_usd == Decimal("2.50") * Decimal("730.5")


def test_saturated_load_dedicated_is_cheaper() -> None:
    load = Load(requests_per_day=8640, gpu_seconds_per_request=10.0)  # 100% busy
    result = breakeven(load, TIER, DEDICATED_PER_HOUR)
    assert result.utilization == pytest.approx(1.0)
    assert result.cheaper == "dedicated"


def test_breakeven_utilization_between_zero_and_one() -> None:
    load = Load(requests_per_day=1000, gpu_seconds_per_request=10.0, cold_start_s=30.0)
    result = breakeven(load, TIER, DEDICATED_PER_HOUR)
    assert result.breakeven_utilization is not None
    assert 0 < result.breakeven_utilization < 1
    # Without idle charges or cold starts the cross-over is just the price ratio.
    plain = replace(TIER, charges_idle=False)
    bare = breakeven(Load(1000, 10.0), plain, DEDICATED_PER_HOUR)
    assert bare.breakeven_utilization == pytest.approx(2.50 / 3600 / 0.0012, rel=1e-3)
    assert bare.breakeven_requests_per_day is not None
    at_breakeven = breakeven(
        Load(bare.breakeven_requests_per_day * 1.01, 10.0), plain, DEDICATED_PER_HOUR
    )
    assert at_breakeven.cheaper == "dedicated"


def test_serverless_never_cheaper_than_itself_with_warm_replicas() -> None:
    cold = breakeven(Load(100, 5.0), TIER, DEDICATED_PER_HOUR)
    warm = breakeven(Load(100, 5.0, min_warm_replicas=1), TIER, DEDICATED_PER_HOUR)
    assert warm.serverless_monthly_usd > cold.serverless_monthly_usd
    pinned = breakeven(Load(100, 5.0), replace(TIER, scale_to_zero=False), DEDICATED_PER_HOUR)
    assert pinned.serverless_monthly_usd == warm.serverless_monthly_usd


def test_billing_granularity_and_minimum_charge_round_up() -> None:
    coarse = replace(TIER, billing_granularity_s=60.0, charges_idle=False)
    fine = replace(TIER, charges_idle=False)
    load = Load(100, 5.0)
    assert breakeven(load, coarse, DEDICATED_PER_HOUR).serverless_monthly_usd == pytest.approx(
        breakeven(load, fine, DEDICATED_PER_HOUR).serverless_monthly_usd * 12
    )


def test_cold_starts_fall_as_traffic_rises() -> None:
    sparse = expected_cold_starts_per_day(Load(10, 1.0, idle_timeout_s=60))
    busy = expected_cold_starts_per_day(Load(100_000, 1.0, idle_timeout_s=60))
    assert sparse == pytest.approx(10, rel=0.01)
    assert busy < 1
    assert expected_cold_starts_per_day(Load(10, 1.0, min_warm_replicas=1)) == 0


def test_load_from_tokens() -> None:
    load = Load.from_tokens(1000, 500, 50.0)
    assert load.gpu_seconds_per_request == pytest.approx(10.0)


# ---------------------------------------------------------------------------------------------
# Calibration against published measurements


@dataclass(frozen=True)
class CalibrationPoint:
    point_id: str
    model_id: str
    gpu_id: str
    gpu_count: int
    precision: str
    input_tokens: int
    output_tokens: int
    concurrency: int | None
    tensor_parallel: int | None
    measured: float
    engine: str
    source_url: str


def calibration_points() -> list[CalibrationPoint]:
    with CALIBRATION_CSV.open(newline="", encoding="utf-8") as handle:
        return [
            CalibrationPoint(
                point_id=row["point_id"],
                model_id=row["model_id"],
                gpu_id=row["gpu_id"],
                gpu_count=int(row["gpu_count"]),
                precision=row["precision"],
                input_tokens=int(row["input_tokens"]),
                output_tokens=int(row["output_tokens"]),
                concurrency=int(row["concurrency"]) if row["concurrency"] else None,
                tensor_parallel=int(row["tensor_parallel"]) if row["tensor_parallel"] else None,
                measured=float(row["measured_output_tokens_per_s"]),
                engine=row["engine"],
                source_url=row["source_url"],
            )
            for row in csv.DictReader(handle)
        ]


def estimate_point(point: CalibrationPoint) -> float:
    return estimate_throughput(
        MODELS[point.model_id],
        point.precision,
        GPUS[point.gpu_id],
        point.gpu_count,
        point.input_tokens,
        point.output_tokens,
        concurrency=point.concurrency,
        tensor_parallel=point.tensor_parallel,
    ).output_tokens_per_s


def markdown_row(point: CalibrationPoint) -> str:
    estimate = estimate_point(point)
    return (
        f"| {point.point_id} | {point.model_id} | {point.gpu_id} x{point.gpu_count} | "
        f"{point.precision} | {point.input_tokens}/{point.output_tokens} | "
        f"{point.concurrency or 'offline'} | {point.measured:,.0f} | {estimate:,.0f} | "
        f"{estimate / point.measured:.2f} | {point.engine} |"
    )


POINTS = calibration_points()


def test_calibration_points_cover_several_models_gpus_and_engines() -> None:
    assert len(POINTS) >= 12
    assert len({p.model_id for p in POINTS}) >= 5
    assert len({p.gpu_id for p in POINTS}) >= 4
    assert all(p.source_url.startswith("https://") for p in POINTS)


@pytest.mark.parametrize("point", POINTS, ids=[p.point_id for p in POINTS])
def test_estimate_within_2x_of_published_measurement(point: CalibrationPoint) -> None:
    ratio = estimate_point(point) / point.measured
    assert 0.5 <= ratio <= 2.0, f"{point.point_id}: estimate/measured = {ratio:.2f}"


def test_estimates_md_table_matches_the_code() -> None:
    text = ESTIMATES_MD.read_text(encoding="utf-8")
    for point in POINTS:
        assert markdown_row(point) in text, f"docs/estimates.md out of date for {point.point_id}"


if __name__ == "__main__":  # regenerate the calibration table rows for docs/estimates.md
    for calibration_point in POINTS:
        print(markdown_row(calibration_point))
