"""Money: USD per million tokens and per GB of VRAM per hour, in ``Decimal`` rounded to
``USD_QUANTUM`` (half up)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from warehouse.economics.constants import USD_QUANTUM


def round_usd(value: Decimal) -> Decimal:
    return value.quantize(USD_QUANTUM, rounding=ROUND_HALF_UP)


def to_decimal(value: float) -> Decimal:
    # Floats come from the physics model; go through repr so 0.1 stays 0.1.
    return Decimal(repr(float(value)))


@dataclass(frozen=True, slots=True)
class TokenCost:
    """USD per million tokens at a given instance price and throughput."""

    usd_per_million_output_tokens: Decimal
    usd_per_million_total_tokens: Decimal


def cost_per_million_tokens(
    price_per_hour_usd: Decimal,
    output_tokens_per_s: float,
    total_tokens_per_s: float | None = None,
) -> TokenCost:
    """$ per 1M output tokens and per 1M total (input + output) tokens.

    ``price_per_hour_usd`` is the whole instance's hourly price; the rates are that instance's
    steady-state tokens/s (``ThroughputEstimate.output_tokens_per_s`` / ``total_tokens_per_s``;
    total defaults to output). Raises ValueError for a non-positive rate or negative price.
    """
    if output_tokens_per_s <= 0:
        raise ValueError("output_tokens_per_s must be positive")
    total = output_tokens_per_s if total_tokens_per_s is None else total_tokens_per_s
    if total <= 0:
        raise ValueError("total_tokens_per_s must be positive")
    price = Decimal(price_per_hour_usd)
    if price < 0:
        raise ValueError("price must not be negative")
    million = Decimal(1_000_000)
    per_output = price / (to_decimal(output_tokens_per_s) * 3600) * million
    per_total = price / (to_decimal(total) * 3600) * million
    return TokenCost(round_usd(per_output), round_usd(per_total))


def cost_per_gb_vram_hour(price_per_hour_usd: Decimal, vram_gb_total: float) -> Decimal:
    """$ per GB of GPU memory per hour for an instance (price over its total VRAM)."""
    if vram_gb_total <= 0:
        raise ValueError("vram_gb_total must be positive")
    return round_usd(Decimal(price_per_hour_usd) / to_decimal(vram_gb_total))
