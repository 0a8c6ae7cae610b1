"""The one place where prices change unit: native unit -> per hour, per GPU <-> per instance,
currency -> USD. Each conversion has exactly one helper; nothing else converts.

Both hourly USD figures an observation stores come from here, once: the whole instance
(:func:`price_per_hour`, then :func:`to_usd`) and one GPU (:func:`price_per_gpu_hour_usd`). A
per-GPU quote's per-GPU price is the converted quote itself (no multiply-then-divide round
trip); a per-instance quote's is the stored per-instance figure divided by the GPU count,
rounded once (the figure the SQL models derived before migration 0012, so old and new rows
read the same).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

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


def share_per_gpu_usd(price_per_hour_usd: Decimal, gpu_count: Decimal) -> Decimal | None:
    """USD per instance-hour (as stored, 6 decimals) -> USD per GPU-hour, rounded once to 6
    decimals; None when ``gpu_count`` is 0. A share of a GPU (``gpu_count`` < 1) gives its
    whole-GPU equivalent.

    The figure is the one SQL derived before migration 0012, bit for bit, so that no served
    number moves: ``round(price_per_hour_usd / gpu_count, 6)`` in DuckDB divides as DOUBLE and
    rounds the quotient's exact binary value half away from zero. (An exact decimal division would
    round a tie, 4.561301 / 2 = 2.2806505, differently from the DOUBLE one in about one row in
    25 of the recorded captures.)"""
    if not gpu_count:
        return None
    quotient = float(price_per_hour_usd) / float(gpu_count)
    # the DOUBLE quotient's exact binary value, rounded half away from zero
    return Decimal(quotient).quantize(_MONEY_QUANTUM, rounding=ROUND_HALF_UP)


def price_per_gpu_hour_usd(
    price: Decimal,
    price_unit: str,
    price_per: str,
    gpu_count: Decimal,
    *,
    usd_per_unit: Decimal,
    price_per_hour_usd: Decimal,
) -> Decimal | None:
    """A native price -> USD per GPU-hour, rounded to 6 decimals (computed once, here).

    A per-GPU quote: the quote itself per hour in USD, ``quantize_money(to_usd(to_hourly(...)))``
    (``gpu_count`` plays no part: no multiply-then-divide round trip). A per-instance quote:
    ``price_per_hour_usd`` (the stored, rounded per-instance figure) per GPU
    (:func:`share_per_gpu_usd`); None when ``gpu_count`` is 0."""
    if price_per == "gpu":
        return quantize_money(to_usd(to_hourly(price, price_unit), usd_per_unit))
    if price_per == "instance":
        return share_per_gpu_usd(price_per_hour_usd, gpu_count)
    raise UnitError(f"unknown price basis {price_per!r}")
