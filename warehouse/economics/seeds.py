"""Reading the seeds the model needs: ``seeds/models.csv`` (reference models) and a lenient
reader of ``gpus.csv`` rows as csv.DictReader yields them."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from warehouse.economics.inputs import ModelSpec
from warehouse.gpus import GpuSpec, true_false
from warehouse.vocabulary import PRECISIONS

MODELS_CSV = Path(__file__).resolve().parents[1] / "seeds" / "models.csv"


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
                    vocab_size=int(row["vocab_size"]),
                    tied_embeddings=true_false(row["tied_embeddings"], "tied_embeddings"),
                    checkpoint_precision=row["checkpoint_precision"],
                    source_url=row["source_url"],
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"models.csv row {row.get('model_id')!r}: {exc}") from exc
            if spec.architecture not in ("dense", "moe"):
                raise ValueError(f"models.csv {spec.model_id}: architecture {spec.architecture!r}")
            if spec.is_moe and not (spec.num_experts and spec.experts_per_token):
                raise ValueError(f"models.csv {spec.model_id}: MoE row without expert counts")
            if not 0 < spec.vocab_matrices_params_b < spec.params_active_b:
                raise ValueError(
                    f"models.csv {spec.model_id}: vocab_size x hidden_size does not fit inside "
                    f"params_active_b ({spec.vocab_matrices_params_b:.2f} B)"
                )
            if spec.checkpoint_precision not in PRECISIONS:
                precision = spec.checkpoint_precision
                raise ValueError(f"models.csv {spec.model_id}: checkpoint_precision {precision!r}")
            if spec.model_id in models:
                raise ValueError(f"models.csv: duplicate model_id {spec.model_id}")
            models[spec.model_id] = spec
    return models


def _opt_float(value: Any) -> float | None:
    """None for an empty cell (``None`` or a blank string), else the number."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return float(value)


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value or "").strip().lower() in ("true", "yes", "1", "y", "t")


def _text(value: Any, default: str = "") -> str:
    return str(value or "").strip() or default


def gpu_spec_from_row(row: Mapping[str, Any]) -> GpuSpec:
    """A ``GpuSpec`` from one row of ``gpus``: the seed CSV's strings (csv.DictReader) or the
    warehouse table's values (Decimal, bool, None), one rule for both: ``vram_gb`` and
    ``memory_bandwidth_gbps`` required, other figures None when empty, a flag true only when
    set, interconnect ``pcie`` unless stated. The one reader the estimates, the API and the
    calibration use (``warehouse.gpus`` validates the hand-edited seed before it is loaded)."""
    return GpuSpec(
        gpu_id=_text(row["gpu_id"]),
        vram_gb=float(row["vram_gb"]),
        memory_bandwidth_gbps=float(row["memory_bandwidth_gbps"]),
        bf16_tflops_dense=_opt_float(row.get("bf16_tflops_dense")),
        fp16_tflops_dense=_opt_float(row.get("fp16_tflops_dense")),
        fp8_tflops_dense=_opt_float(row.get("fp8_tflops_dense")),
        int8_tops_dense=_opt_float(row.get("int8_tops_dense")),
        fp4_tflops_dense=_opt_float(row.get("fp4_tflops_dense")),
        fp8_support=_flag(row.get("fp8_support")),
        bf16_support=_flag(row.get("bf16_support")),
        interconnect=_text(row.get("interconnect"), "pcie"),
        interconnect_bandwidth_gbps=_opt_float(row.get("interconnect_bandwidth_gbps")),
        vendor=_text(row.get("vendor")),
        architecture=_text(row.get("architecture")),
        memory_type=_text(row.get("memory_type")),
    )
