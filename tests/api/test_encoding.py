"""Bodies are encoded from their response schemas (api.encoding.encode_as): what a schema does
not document cannot be served, and numbers keep the digits the warehouse gave them."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import msgspec
import pytest

from api.encoding import encode_as
from api.schemas import GpuList, RefreshResult

AS_OF = datetime(2026, 4, 1, 12, tzinfo=UTC)


def test_a_field_the_schema_does_not_document_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        encode_as(RefreshResult, {"swapped": True, "snapshot_id": "s", "as_of": AS_OF, "x": 1})


def test_a_missing_or_mistyped_field_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="snapshot_id"):
        encode_as(RefreshResult, {"swapped": True, "as_of": AS_OF})
    with pytest.raises(msgspec.ValidationError, match="swapped"):
        encode_as(RefreshResult, {"swapped": "yes", "snapshot_id": "s", "as_of": AS_OF})


def test_decimals_keep_their_digits_and_floats_stay_floats() -> None:
    gpu = {
        "gpu_id": "h100-sxm", "name": "NVIDIA H100 SXM5 80GB", "vendor": "NVIDIA",
        "architecture": "Hopper", "vram_gb": Decimal("80.00"), "memory_type": "HBM3",
        "memory_bandwidth_gbps": 3350.0, "fp16_tflops_dense": None, "bf16_tflops_dense": None,
        "fp8_tflops_dense": None, "int8_tops_dense": None, "fp4_tflops_dense": None,
        "fp8_support": True, "bf16_support": True, "form_factor": "SXM", "interconnect": None,
        "interconnect_bandwidth_gbps": None, "tdp_watts": 700, "source_url": "https://x.invalid",
    }  # fmt: skip
    body = encode_as(GpuList, {"items": [gpu], "as_of": AS_OF})
    assert b'"vram_gb":80.00,' in body and b'"memory_bandwidth_gbps":3350.0,' in body
