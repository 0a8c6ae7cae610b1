from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest

from warehouse.units import (
    HOURS_PER_MONTH,
    UnitError,
    price_per_gpu_hour_usd,
    price_per_hour,
    quantize_money,
    share_per_gpu_usd,
    to_hourly,
    to_instance,
)


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


def test_a_per_gpu_quote_is_its_own_per_gpu_price_with_no_division():
    # Voltage Park's HGX H100, 8 GPUs at $2.49 per GPU-hour
    per_instance = price_per_hour(Decimal("2.49"), "hour", "gpu", Decimal(8))
    assert quantize_money(per_instance) == Decimal("19.920000")
    for gpus in (Decimal(8), Decimal(0)):  # the GPU count plays no part: nothing is divided
        per_gpu = price_per_gpu_hour_usd(
            Decimal("2.49"),
            "hour",
            "gpu",
            gpus,
            usd_per_unit=Decimal(1),
            price_per_hour_usd=Decimal("19.920000"),
        )
        assert per_gpu == Decimal("2.490000")
        assert str(per_gpu) == "2.490000"


def test_a_per_gpu_quote_takes_no_per_instance_round_trip():
    # $0.000656116 per GPU-second is $2.3620176 per GPU-hour: 2.362018 at 6 decimals. Through
    # 2 GPUs and back (4.7240352 -> 4.724035, / 2 = 2.3620175) it would lose its last digit.
    direct = price_per_gpu_hour_usd(
        Decimal("0.000656116"),
        "second",
        "gpu",
        Decimal(2),
        usd_per_unit=Decimal(1),
        price_per_hour_usd=Decimal("4.724035"),
    )
    assert direct == Decimal("2.362018")
    assert share_per_gpu_usd(Decimal("4.724035"), Decimal(2)) == Decimal("2.362017")


def test_a_per_instance_quote_is_divided_once_as_sql_divided_it():
    # the figures DuckDB's round(price_per_hour_usd / gpu_count, 6) gave before migration 0012,
    # ties included (4.561301 / 2 = 2.2806505 up, 12.601310 / 4 = 3.1503275 down: DOUBLE)
    con = duckdb.connect()
    for usd, gpus in [("4.561301", 2), ("12.601310", 4), ("35.556900", 8), ("0.470000", "0.25")]:
        sql = con.execute(
            "select round(?::decimal(18, 6) / ?::decimal(10, 4), 6)", [usd, str(gpus)]
        ).fetchall()[0][0]
        per_gpu = price_per_gpu_hour_usd(
            Decimal(usd),
            "hour",
            "instance",
            Decimal(gpus),
            usd_per_unit=Decimal(1),
            price_per_hour_usd=Decimal(usd),
        )
        assert per_gpu is not None and float(per_gpu) == sql, (usd, gpus)
    assert share_per_gpu_usd(Decimal("4.561301"), Decimal(2)) == Decimal("2.280651")
    assert share_per_gpu_usd(Decimal("12.601310"), Decimal(4)) == Decimal("3.150327")
    assert share_per_gpu_usd(Decimal("1.000000"), Decimal(0)) is None
    with pytest.raises(UnitError):
        price_per_gpu_hour_usd(
            Decimal(1),
            "hour",
            "rack",
            Decimal(1),
            usd_per_unit=Decimal(1),
            price_per_hour_usd=Decimal(1),
        )
