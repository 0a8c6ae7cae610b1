"""Serverless vs dedicated: billed worker-seconds of a load on a serverless tier, dedicated
replicas, monthly costs and the break-even request rate (``breakeven``)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from warehouse.economics.constants import (
    DEFAULT_IDLE_TIMEOUT_S,
    HOURS_PER_DAY,
    HOURS_PER_MONTH,
    SECONDS_PER_DAY,
)
from warehouse.economics.money import round_usd, to_decimal


@dataclass(frozen=True, slots=True)
class ServerlessTier:
    """One serverless GPU price point (from the serverless seed).

    Billing rounds each billed interval up to ``billing_granularity_s`` and to at least
    ``min_charge_s``. ``charges_idle``: warm-but-idle workers are billed until they scale
    down. ``scale_to_zero`` False means one worker is always billed.
    """

    provider: str
    gpu_id: str
    price_per_second_usd: Decimal
    billing_granularity_s: float = 1.0
    min_charge_s: float = 0.0
    charges_idle: bool = True
    scale_to_zero: bool = True


@dataclass(frozen=True, slots=True)
class Load:
    """A request load. GPU-seconds are busy time on one serving replica per request.

    Use ``Load.from_tokens`` to derive GPU-seconds from tokens per request and a replica's
    throughput. ``cold_starts_per_day`` None = modelled from Poisson arrivals and the idle
    timeout (see ``expected_cold_starts_per_day``).
    """

    requests_per_day: float
    gpu_seconds_per_request: float
    cold_start_s: float = 0.0
    cold_starts_per_day: float | None = None
    min_warm_replicas: int = 0
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S

    @classmethod
    def from_tokens(
        cls,
        requests_per_day: float,
        output_tokens_per_request: float,
        output_tokens_per_s: float,
        **kwargs: float,
    ) -> Load:
        """GPU-seconds per request = output tokens / the replica's output tokens/s."""
        if output_tokens_per_s <= 0:
            raise ValueError("output_tokens_per_s must be positive")
        seconds = output_tokens_per_request / output_tokens_per_s
        return cls(requests_per_day, seconds, **kwargs)  # type: ignore[arg-type]


def expected_cold_starts_per_day(load: Load) -> float:
    """Cold starts per day for a scale-to-zero pool with Poisson arrivals.

    A request is cold when the previous one ended more than ``idle_timeout_s`` ago:
    P = exp(-rate x timeout), so cold starts/day = requests x exp(-rate x timeout). Zero with
    warm replicas.
    """
    if load.min_warm_replicas > 0 or load.requests_per_day <= 0:
        return 0.0
    rate = load.requests_per_day / SECONDS_PER_DAY
    return load.requests_per_day * math.exp(-rate * load.idle_timeout_s)


def _billed_s(seconds: float, tier: ServerlessTier) -> float:
    granularity = tier.billing_granularity_s if tier.billing_granularity_s > 0 else 1e-9
    rounded = math.ceil(seconds / granularity - 1e-9) * granularity
    return max(rounded, tier.min_charge_s)


def serverless_seconds_per_day(load: Load, tier: ServerlessTier) -> float:
    """Billed worker-seconds per day on ``tier`` for ``load``.

    Each request is billed separately (rounded up to the granularity, at least the minimum
    charge). Cold starts add their duration. Idle charging adds the warm tail after each request
    (mean min(gap, timeout) for Poisson gaps). Warm replicas (``min_warm_replicas``, or 1 when
    the tier cannot scale to zero) are billed all day and absorb busy time up to their capacity.
    """
    busy = load.requests_per_day * _billed_s(load.gpu_seconds_per_request, tier)
    warm = max(load.min_warm_replicas, 0 if tier.scale_to_zero else 1)
    if warm > 0:
        return warm * SECONDS_PER_DAY + max(0.0, busy - warm * SECONDS_PER_DAY)
    colds = (
        load.cold_starts_per_day
        if load.cold_starts_per_day is not None
        else expected_cold_starts_per_day(load)
    )
    billed = busy + colds * load.cold_start_s
    if tier.charges_idle and load.requests_per_day > 0:
        rate = load.requests_per_day / SECONDS_PER_DAY
        # A rate that underflows to 0 (a denormal request count) has the limit of the tail:
        # every request is followed by the whole timeout.
        idle_tail = (
            (1 - math.exp(-rate * load.idle_timeout_s)) / rate if rate > 0 else load.idle_timeout_s
        )
        billed += load.requests_per_day * idle_tail
    return billed


def dedicated_replicas(load: Load) -> int:
    """Dedicated replicas needed: enough busy-seconds capacity, at least the warm minimum, >= 1."""
    busy = load.requests_per_day * load.gpu_seconds_per_request
    return max(1, load.min_warm_replicas, math.ceil(busy / SECONDS_PER_DAY - 1e-9))


@dataclass(frozen=True, slots=True)
class BreakevenResult:
    """Monthly cost of a load on a serverless tier vs a dedicated replica, and the cross-over.

    ``utilization`` is busy GPU-seconds / (dedicated replicas x seconds per day) at this load.
    ``breakeven_utilization`` is the single-replica utilisation above which dedicated is
    cheaper (None when serverless stays cheaper even at 100% busy), and
    ``breakeven_requests_per_day`` the matching request rate.
    """

    provider: str
    gpu_id: str
    serverless_monthly_usd: Decimal
    dedicated_monthly_usd: Decimal
    dedicated_replicas: int
    cheaper: str  # serverless | dedicated
    utilization: float
    breakeven_utilization: float | None
    breakeven_requests_per_day: float | None


def dedicated_monthly_usd(price_per_hour_usd: Decimal, replicas: int) -> Decimal:
    """USD per month of ``replicas`` dedicated replicas at ``price_per_hour_usd`` each, billed
    for every hour of the month (``HOURS_PER_MONTH``)."""
    return round_usd(Decimal(price_per_hour_usd) * replicas * HOURS_PER_MONTH)


def serverless_monthly_usd(load: Load, tier: ServerlessTier) -> Decimal:
    """USD per month of ``load`` on ``tier``: billed seconds per day x price per second x the
    days of the month (``HOURS_PER_MONTH`` / 24)."""
    seconds = serverless_seconds_per_day(load, tier)
    return round_usd(
        to_decimal(seconds) * Decimal(tier.price_per_second_usd) * HOURS_PER_MONTH / HOURS_PER_DAY
    )


def breakeven(
    load: Load, tier: ServerlessTier, dedicated_price_per_hour_usd: Decimal
) -> BreakevenResult:
    """Serverless ``tier`` vs a dedicated replica at ``dedicated_price_per_hour_usd`` for ``load``.

    The dedicated side bills ``dedicated_replicas(load)`` replicas for every hour of the month.
    The break-even is found by bisection on requests/day with the other load parameters fixed
    (serverless cost is non-decreasing in requests), up to one fully busy replica.
    Raises ValueError for negative requests or GPU-seconds.
    """
    if load.requests_per_day < 0 or load.gpu_seconds_per_request <= 0:
        raise ValueError("requests_per_day must be >= 0 and gpu_seconds_per_request > 0")
    price_hour = Decimal(dedicated_price_per_hour_usd)
    replicas = dedicated_replicas(load)
    dedicated = dedicated_monthly_usd(price_hour, replicas)
    serverless = serverless_monthly_usd(load, tier)
    busy = load.requests_per_day * load.gpu_seconds_per_request
    utilization = busy / (replicas * SECONDS_PER_DAY)

    one_replica = dedicated_monthly_usd(price_hour, max(1, load.min_warm_replicas))
    full_requests = SECONDS_PER_DAY / load.gpu_seconds_per_request

    def cost_at(requests: float) -> Decimal:
        return serverless_monthly_usd(replace(load, requests_per_day=requests), tier)

    breakeven_requests: float | None = None
    if cost_at(full_requests) >= one_replica:
        low, high = 0.0, full_requests
        if cost_at(low) >= one_replica:
            high = 0.0
        for _ in range(100):
            if high - low <= 1e-9 * max(1.0, full_requests):
                break
            mid = (low + high) / 2
            if cost_at(mid) >= one_replica:
                high = mid
            else:
                low = mid
        breakeven_requests = high
    breakeven_util = (
        None
        if breakeven_requests is None
        else breakeven_requests * load.gpu_seconds_per_request / SECONDS_PER_DAY
    )
    return BreakevenResult(
        provider=tier.provider,
        gpu_id=tier.gpu_id,
        serverless_monthly_usd=serverless,
        dedicated_monthly_usd=dedicated,
        dedicated_replicas=replicas,
        cheaper="serverless" if serverless < dedicated else "dedicated",
        utilization=utilization,
        breakeven_utilization=breakeven_util,
        breakeven_requests_per_day=breakeven_requests,
    )


def breakeven_all(
    load: Load, tiers: Iterable[ServerlessTier], dedicated_price_per_hour_usd: Decimal
) -> list[BreakevenResult]:
    """``breakeven`` for every tier, cheapest serverless first."""
    results = [breakeven(load, tier, dedicated_price_per_hour_usd) for tier in tiers]
    return sorted(results, key=lambda r: r.serverless_monthly_usd)
