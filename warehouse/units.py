"""The one place where prices change unit: native unit -> per hour, per GPU -> per instance,
currency -> USD. Each conversion has exactly one helper; nothing else converts.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

# A month is 730 hours: 365 days * 24 h / 12 months, the month AWS, GCP, Azure and Vultr bill by.
# The one month of the project: monthly -> hourly here, and every monthly cost warehouse.economics
# reports (docs/estimates.md, "The month").
HOURS_PER_MONTH = Decimal(730)
SECONDS_PER_HOUR = Decimal(3600)
MINUTES_PER_HOUR = Decimal(60)
_MONEY_QUANTUM = Decimal("0.000001")  # decimal(18, 6) in the warehouse

_PER_HOUR_FACTOR = {
    "second": SECONDS_PER_HOUR,
    "minute": MINUTES_PER_HOUR,
    "hour": Decimal(1),
    "month": Decimal(1) / HOURS_PER_MONTH,
}


class UnitError(ValueError):
    pass


def quantize_money(amount: Decimal) -> Decimal:
    return amount.quantize(_MONEY_QUANTUM, rounding=ROUND_HALF_EVEN)


def to_hourly(price: Decimal, price_unit: str) -> Decimal:
    """A price per ``price_unit`` (second/minute/hour/month) as a price per hour."""
    try:
        factor = _PER_HOUR_FACTOR[price_unit]
    except KeyError:
        raise UnitError(f"unknown price unit {price_unit!r}") from None
    return price * factor


def to_instance(price: Decimal, price_per: str, gpu_count: Decimal) -> Decimal:
    """A price quoted per GPU or per instance as the price of the whole instance."""
    if price_per == "instance":
        return price
    if price_per == "gpu":
        return price * gpu_count
    raise UnitError(f"unknown price basis {price_per!r}")


def to_usd(amount: Decimal, usd_per_unit: Decimal) -> Decimal:
    """An amount in some currency, at a rate of ``usd_per_unit`` USD per unit, in USD."""
    return amount * usd_per_unit


def price_per_hour(price: Decimal, price_unit: str, price_per: str, gpu_count: Decimal) -> Decimal:
    """Native price -> price per instance-hour, in the native currency (unrounded)."""
    return to_instance(to_hourly(price, price_unit), price_per, gpu_count)
