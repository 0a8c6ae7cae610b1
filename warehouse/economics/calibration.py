"""Calibration regimes and confidence bands: where an estimate sits among the published
measurements (GPU generation, precision, output length) and how far the model was from them
there (``confidence_band``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from warehouse.economics.money import round_usd, to_decimal
from warehouse.gpus import GpuSpec

# Output-length classes of the calibration summary and the confidence bands: a decode shorter
# than 1000 tokens is "short" (MLPerf-style summaries and chat answers), 2000 or more "long"
# (reasoning traces, long generations), in between "medium" (the 1000/1000 standard settings).
SHORT_OUTPUT_BELOW_TOKENS = 1000
LONG_OUTPUT_FROM_TOKENS = 2000


def output_length_class(output_tokens: int) -> str:
    """short (< 1000 generated tokens), medium (1000-1999) or long (>= 2000)."""
    if output_tokens < SHORT_OUTPUT_BELOW_TOKENS:
        return "short"
    return "long" if output_tokens >= LONG_OUTPUT_FROM_TOKENS else "medium"


@dataclass(frozen=True, slots=True)
class Regime:
    """Where an estimate sits among the calibration points: GPU generation, requested precision
    and output-length class."""

    generation: str
    precision: str
    output_length: str

    @property
    def label(self) -> str:
        return f"{self.generation}/{self.precision}/{self.output_length}"


def regime_of(gpu: GpuSpec, precision: str, output_tokens: int) -> Regime:
    """The calibration regime of an estimate (``precision`` as requested: fp8, fp4, bf16 ...)."""
    return Regime(gpu.generation, precision, output_length_class(output_tokens))


# Confidence bands: how far the estimates of a regime's calibration points were from the
# measurements. CALIBRATION_BANDS is generated from docs/estimates_calibration.csv by
# ``benchmarks/estimates_calibration.py --bands`` (tests/warehouse/test_economics.py fails when
# it no longer matches the CSV and the model): key (generation, precision, output length) with
# "*" for any, value (points, low ratio, high ratio, geometric-mean ratio), ratio = estimate /
# measured output tokens/s.
BAND_MIN_POINTS = 3  # a regime needs this many points to set a band of its own
BAND_PERCENTILE_MIN_POINTS = 10  # from here on the band is the 10th-90th percentile, not extremes
BAND_FLOOR = 1.10  # never claim better than +-10%: engines, versions and settings vary that much
HIGH_CONFIDENCE_WITHIN = 1.25  # band within this factor, from the estimate's own regime: high
MEDIUM_CONFIDENCE_WITHIN = 1.5  # within this, from its own GPU generation: medium; else low

CALIBRATION_BANDS: dict[tuple[str, str, str], tuple[int, float, float, float]] = {
    ("*", "*", "*"): (76, 1.05, 1.473, 1.245),
    ("*", "*", "long"): (28, 1.115, 1.496, 1.316),
    ("*", "*", "medium"): (7, 1.207, 1.796, 1.363),
    ("*", "*", "short"): (41, 1.042, 1.348, 1.181),
    ("ada", "*", "*"): (4, 1.027, 1.416, 1.219),
    ("ada", "fp8", "*"): (4, 1.027, 1.416, 1.219),
    ("ada", "fp8", "short"): (4, 1.027, 1.416, 1.219),
    ("blackwell", "*", "*"): (9, 1.046, 1.488, 1.248),
    ("blackwell", "fp4", "*"): (6, 1.046, 1.421, 1.187),
    ("blackwell", "fp4", "short"): (6, 1.046, 1.421, 1.187),
    ("blackwell", "fp8", "*"): (3, 1.19, 1.488, 1.378),
    ("blackwell", "fp8", "long"): (2, 1.478, 1.488, 1.483),
    ("blackwell", "fp8", "short"): (1, 1.19, 1.19, 1.19),
    ("cdna", "*", "*"): (8, 1.097, 1.313, 1.184),
    ("cdna", "fp8", "*"): (8, 1.097, 1.313, 1.184),
    ("cdna", "fp8", "short"): (8, 1.097, 1.313, 1.184),
    ("hopper", "*", "*"): (55, 1.048, 1.481, 1.256),
    ("hopper", "bf16", "*"): (5, 1.185, 1.796, 1.409),
    ("hopper", "bf16", "medium"): (1, 1.796, 1.796, 1.796),
    ("hopper", "bf16", "short"): (4, 1.185, 1.541, 1.326),
    ("hopper", "fp4", "*"): (1, 1.236, 1.236, 1.236),
    ("hopper", "fp4", "medium"): (1, 1.236, 1.236, 1.236),
    ("hopper", "fp8", "*"): (49, 1.04, 1.463, 1.242),
    ("hopper", "fp8", "long"): (26, 1.099, 1.5, 1.304),
    ("hopper", "fp8", "medium"): (5, 1.207, 1.422, 1.315),
    ("hopper", "fp8", "short"): (18, 0.998, 1.345, 1.139),
}


def band_summary(ratios: Sequence[float]) -> tuple[int, float, float, float]:
    """(points, low, high, geometric mean) of estimate/measured ratios, rounded to 3 places.

    Low/high are the 10th/90th percentiles (linear interpolation) from
    BAND_PERCENTILE_MIN_POINTS points on, else the minimum and maximum. Raises ValueError for
    no ratios.
    """
    if not ratios:
        raise ValueError("band_summary needs at least one ratio")
    ordered = sorted(ratios)
    n = len(ordered)

    def percentile(q: float) -> float:
        at = q * (n - 1)
        below = math.floor(at)
        above = min(below + 1, n - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (at - below)

    low, high = (
        (percentile(0.1), percentile(0.9))
        if n >= BAND_PERCENTILE_MIN_POINTS
        else (ordered[0], ordered[-1])
    )
    geomean = math.exp(sum(math.log(r) for r in ordered) / n)
    return n, round(low, 3), round(high, 3), round(geomean, 3)


@dataclass(frozen=True, slots=True)
class ConfidenceBand:
    """How sure an estimate is, from the calibration residuals of its nearest regime.

    ``regime`` is where the estimate falls (``blackwell/fp4/long``); ``basis`` the calibration
    regime the band comes from (the same, or a coarser one such as ``blackwell/fp4/*`` when its
    own has fewer than BAND_MIN_POINTS points; then the residuals of its output length on every
    generation widen it). Measured throughput was between estimate / ``ratio_high`` and
    estimate / ``ratio_low`` for the basis points (10th-90th percentile from ten points).
    ``confidence``: high (own regime, within 1.25x), medium (own generation, within 1.5x) or low.
    """

    regime: str
    basis: str
    points: int
    ratio_low: float
    ratio_high: float
    confidence: str

    def rate_bounds(self, rate: float) -> tuple[float, float]:
        """(low, high) throughput for an estimated ``rate`` (any tokens/s)."""
        return rate / self.ratio_high, rate / self.ratio_low

    def cost_bounds(self, cost: Decimal) -> tuple[Decimal, Decimal]:
        """(low, high) USD per million tokens for an estimated ``cost`` (the inverse of rate)."""
        return round_usd(cost * to_decimal(self.ratio_low)), round_usd(
            cost * to_decimal(self.ratio_high)
        )


def confidence_band(
    gpu: GpuSpec,
    precision: str,
    output_tokens: int,
    bands: Mapping[tuple[str, str, str], tuple[int, float, float, float]] | None = None,
) -> ConfidenceBand:
    """The confidence band of an estimate on ``gpu`` at ``precision`` (as requested) with
    ``output_tokens`` generated per request, from ``bands`` (default CALIBRATION_BANDS).

    The nearest regime with at least BAND_MIN_POINTS points sets the band: (generation,
    precision, output length), then (generation, precision, *), (generation, *, *), (*, *, *).
    When that is not the estimate's own regime, the band is widened to cover what the model
    did at that output length on every generation (a regime without measurements inherits the
    known length effects), and never narrower than BAND_FLOOR either side. Raises ValueError
    when the table has no ``("*", "*", "*")`` entry.
    """
    table = CALIBRATION_BANDS if bands is None else bands
    regime = regime_of(gpu, precision, output_tokens)
    g, p, o = regime.generation, regime.precision, regime.output_length
    own = (g, p, o)
    basis = ("*", "*", "*")
    for key in (own, (g, p, "*"), (g, "*", "*")):
        found = table.get(key)
        if found is not None and found[0] >= BAND_MIN_POINTS:
            basis = key
            break
    if basis not in table:
        raise ValueError("calibration bands need a ('*', '*', '*') entry")
    points, low, high, _ = table[basis]
    if basis != own:
        length = table.get(("*", "*", o))
        if length is not None:
            low, high = min(low, length[1]), max(high, length[2])
    low, high = min(low, 1 / BAND_FLOOR), max(high, BAND_FLOOR)
    worst = max(high, 1 / low)
    if basis == own and worst <= HIGH_CONFIDENCE_WITHIN:
        confidence = "high"
    elif basis[0] == g and worst <= MEDIUM_CONFIDENCE_WITHIN:
        confidence = "medium"
    else:
        confidence = "low"
    return ConfidenceBand(regime.label, "/".join(basis), points, low, high, confidence)
