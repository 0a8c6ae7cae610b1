from __future__ import annotations

from decimal import Decimal

import pytest

from warehouse.units import HOURS_PER_MONTH, UnitError, price_per_hour, to_hourly, to_instance


def test_a_month_is_730_hours():
    assert HOURS_PER_MONTH == 730
    assert to_hourly(Decimal("730"), "month") == Decimal(1)


def test_per_second_price_becomes_hourly():
    # Modal's H100 at $0.001097/s is $3.9492/h
    assert to_hourly(Decimal("0.001097"), "second") == Decimal("3.949200")


def test_per_gpu_price_becomes_per_instance():
    # Lambda 8x H100 SXM at $2.99 per GPU-hour
    assert price_per_hour(Decimal("2.99"), "hour", "gpu", Decimal(8)) == Decimal("23.92")


def test_unknown_units_are_errors_not_guesses():
    with pytest.raises(UnitError):
        to_hourly(Decimal(1), "fortnight")
    with pytest.raises(UnitError):
        to_instance(Decimal(1), "rack", Decimal(1))
