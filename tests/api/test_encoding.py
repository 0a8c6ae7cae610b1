"""Bodies are encoded from their response schemas (api.encoding.encode_as): what a schema does
not document cannot be served, and numbers are plain JSON numbers: the warehouse's digits,
less trailing zeros and exponents (issue 25)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import msgspec
import pytest

from api.catalog.schemas import GpuList
from api.encoding import encode, encode_as, plain_decimal, plain_numbers
from api.ops.schemas import RefreshResult

AS_OF = datetime(2026, 4, 1, 12, tzinfo=UTC)


def test_a_field_the_schema_does_not_document_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        encode_as(RefreshResult, {"swapped": True, "snapshot_id": "s", "as_of": AS_OF, "x": 1})


def test_a_missing_or_mistyped_field_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="snapshot_id"):
        encode_as(RefreshResult, {"swapped": True, "as_of": AS_OF})
    with pytest.raises(msgspec.ValidationError, match="swapped"):
        encode_as(RefreshResult, {"swapped": "yes", "snapshot_id": "s", "as_of": AS_OF})


def test_numbers_are_written_in_their_shortest_exact_form() -> None:
    gpu = {
        "gpu_id": "h100-sxm", "name": "NVIDIA H100 SXM5 80GB", "vendor": "NVIDIA",
        "architecture": "Hopper", "vram_gb": Decimal("80.00"), "memory_type": "HBM3",
        "memory_bandwidth_gbps": 3350.0, "fp16_tflops_dense": None, "bf16_tflops_dense": None,
        "fp8_tflops_dense": None, "int8_tops_dense": None, "fp4_tflops_dense": 0.5,
        "fp8_support": True, "bf16_support": True, "form_factor": "SXM", "interconnect": None,
        "interconnect_bandwidth_gbps": None, "tdp_watts": 700, "source_url": "https://x.invalid",
    }  # fmt: skip
    body = encode_as(GpuList, {"items": [gpu], "as_of": AS_OF})
    assert b'"vram_gb":80,' in body and b'"memory_bandwidth_gbps":3350,' in body
    assert b'"fp4_tflops_dense":0.5,' in body


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (Decimal(0), "0"),
        (Decimal("0E-6"), "0"),
        (Decimal("-0.000"), "0"),
        (Decimal("1.0000"), "1"),
        (Decimal("0.047000000"), "0.047"),
        (Decimal("2.490000"), "2.49"),
        (Decimal("1E+2"), "100"),
        (Decimal("1E+1"), "10"),
        (Decimal("10.000"), "10"),
        (Decimal("0.000001"), "0.000001"),
        (Decimal("1E-7"), "0.0000001"),
        (Decimal("-12.500"), "-12.5"),
        (Decimal("999999999999.999999"), "999999999999.999999"),
        (Decimal("123456789012345678901234567890.123400"), "123456789012345678901234567890.1234"),
        (Decimal("4E+30"), "4" + "0" * 30),
    ],
)
def test_plain_decimal_edge_cases(value: Decimal, written: str) -> None:
    assert plain_decimal(value) == written
    assert encode(value) == written.encode()
    assert Decimal(written) == value  # exact: the same number, only spelt shorter


@pytest.mark.parametrize(
    ("value", "written"),
    [(2.0, b"2"), (0.1, b"0.1"), (1e-6, b"0.000001"), (1e16, b"10000000000000000"), (80, b"80")],
)
def test_floats_and_integers_are_plain_too(value: float, written: bytes) -> None:
    assert encode(value) == written


def test_a_price_is_never_a_float_that_loses_precision() -> None:
    # Decimal("0.047") as a float is 0.04700000000000000122...: never written
    assert encode({"price": Decimal("0.047000000")}) == b'{"price":0.047}'
    assert encode(Decimal("0.1") + Decimal("0.2")) == b"0.3"


def test_only_numbers_change_strings_and_order_do_not() -> None:
    value = {"z": "1.0000 GPUs, 1E+1", "a": [Decimal("1.50"), '\u00e9\\"\n'], "n": None}
    assert encode(value) == b'{"z":"1.0000 GPUs, 1E+1","a":[1.5,"\xc3\xa9\\\\\\"\\n"],"n":null}'
    assert plain_numbers(b'{"a":[1.0,-0.50,1E+1,2e-3,7],"b":"1.0"}') == (
        b'{"a":[1,-0.5,10,0.002,7],"b":"1.0"}'
    )


def test_nan_is_refused() -> None:
    with pytest.raises(ValueError, match="not a JSON number"):
        plain_decimal(Decimal("NaN"))
