"""Throughput estimates against published measurements (``benchmarks/estimates_calibration.py``
prints them; ``tests/warehouse/test_economics.py`` checks them).

Every point of ``docs/estimates_calibration.csv`` (a published max-throughput measurement with its
source URL and settings) is estimated with ``warehouse.economics.estimate_throughput`` on the
canonical GPU seed (``warehouse/seeds/gpus.csv``); ratio = estimate / measured output tokens/s.
``summary`` gives, for the whole set and split by GPU generation, precision and output length,
the share of points within 1.25x / 1.5x / 2x of the measurement (either side) and the median
and geometric-mean ratio; ``bands`` the per-regime residual table that
``warehouse.economics.CALIBRATION_BANDS`` must equal.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from warehouse import economics

REPO = Path(__file__).resolve().parents[2]

CALIBRATION_CSV = REPO / "docs" / "estimates_calibration.csv"
GPUS_CSV = REPO / "warehouse" / "seeds" / "gpus.csv"
WITHIN = (1.25, 1.5, 2.0)


@dataclass(frozen=True)
class CalibrationPoint:
    """One published measurement (a row of docs/estimates_calibration.csv)."""

    point_id: str
    model_id: str
    gpu_id: str  # canonical id from warehouse/seeds/gpus.csv
    gpu_count: int
    precision: str
    input_tokens: int
    output_tokens: int
    concurrency: int | None
    tensor_parallel: int | None
    kv_precision: str | None  # the KV cache format the run used when it differs from the default
    # the scheduler's KV admission policy when the run's source states one the model does not
    # assume (economics.KV_ADMISSION_RESERVED_OUTPUT_FRACTION); None: the model's default
    kv_admission: str | None
    requests: int | None  # requests in the run when it was a finite batch of identical ones
    measured: float  # output tokens/s of the whole instance
    engine: str
    source_url: str
    notes: str
    # mlperf (a submission's result log) | vendor (a vendor's own post) | independent
    source_kind: str


def _opt_int(value: str) -> int | None:
    return int(value) if value else None


def load_points(path: Path = CALIBRATION_CSV) -> list[CalibrationPoint]:
    """All calibration points, in file order. Raises KeyError/ValueError on a malformed row."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            CalibrationPoint(
                point_id=row["point_id"],
                model_id=row["model_id"],
                gpu_id=row["gpu_id"],
                gpu_count=int(row["gpu_count"]),
                precision=row["precision"],
                input_tokens=int(row["input_tokens"]),
                output_tokens=int(row["output_tokens"]),
                concurrency=_opt_int(row["concurrency"]),
                tensor_parallel=_opt_int(row["tensor_parallel"]),
                kv_precision=row["kv_precision"] or None,
                kv_admission=row["kv_admission"] or None,
                requests=_opt_int(row["requests"]),
                measured=float(row["measured_output_tokens_per_s"]),
                engine=row["engine"],
                source_url=row["source_url"],
                notes=row["notes"],
                source_kind=row["source_kind"],
            )
            for row in csv.DictReader(handle)
        ]


@cache
def gpu_specs() -> dict[str, economics.GpuSpec]:
    """The canonical GPU table as ``economics.GpuSpec`` by gpu_id."""
    with GPUS_CSV.open(newline="", encoding="utf-8") as handle:
        return {row["gpu_id"]: economics.gpu_spec_from_row(row) for row in csv.DictReader(handle)}


@cache
def models() -> dict[str, economics.ModelSpec]:
    return economics.load_models()


def estimate(
    point: CalibrationPoint, concurrency: int | None = None
) -> economics.ThroughputEstimate:
    """The model's steady-state estimate for the point's hardware, model, precision, lengths,
    concurrency limit (``concurrency`` overrides the point's), and the tensor parallelism, KV
    cache format and KV admission policy the run used where its source states them."""
    return economics.estimate_throughput(
        models()[point.model_id],
        point.precision,
        gpu_specs()[point.gpu_id],
        point.gpu_count,
        point.input_tokens,
        point.output_tokens,
        concurrency=point.concurrency if concurrency is None else concurrency,
        tensor_parallel=point.tensor_parallel,
        kv_precision=point.kv_precision,
        kv_admission=point.kv_admission or economics.DEFAULT_KV_ADMISSION,
    )


def estimated_rate(point: CalibrationPoint) -> float:
    """Output tokens/s the model predicts for the measurement as it was run.

    Most points are steady-state rates (MLPerf Offline runs tens of thousands of samples). A
    point with ``requests`` ran that many identical requests issued at once: they go through
    in waves of the full running batch, and the last wave runs with the remainder only, so the
    run's rate is total tokens over (full waves at the full batch + one wave of the remainder).
    """
    steady = estimate(point)
    if point.requests is None or not steady.fits:
        return steady.output_tokens_per_s
    full = steady.batch * steady.data_parallel
    waves, rest = divmod(point.requests, full)
    if waves == 0:
        return estimate(point, concurrency=point.requests).output_tokens_per_s
    seconds = waves * full * point.output_tokens / steady.output_tokens_per_s
    if rest:
        partial = estimate(point, concurrency=rest).output_tokens_per_s
        seconds += rest * point.output_tokens / partial
    return point.requests * point.output_tokens / seconds


@dataclass(frozen=True)
class Result:
    point: CalibrationPoint
    estimate: float
    regime: economics.Regime

    @property
    def ratio(self) -> float:
        return self.estimate / self.point.measured


def results(points: Iterable[CalibrationPoint] | None = None) -> list[Result]:
    """Estimate and regime of every point (all of the CSV by default)."""
    found = load_points() if points is None else list(points)
    return [
        Result(
            p,
            estimated_rate(p),
            economics.regime_of(gpu_specs()[p.gpu_id], p.precision, p.output_tokens),
        )
        for p in found
    ]


def _within(ratio: float, factor: float) -> bool:
    return max(ratio, 1 / ratio) <= factor + 1e-9


def summary_row(label: str, ratios: Sequence[float]) -> str:
    """``label | n | share within 1.25x | 1.5x | 2x | median | p25 | p75 | geomean | min | max``."""
    n = len(ratios)
    quartiles = statistics.quantiles(ratios, n=4) if n > 1 else [ratios[0]] * 3
    shares = [sum(_within(r, f) for r in ratios) / n for f in WITHIN]
    geomean = math.exp(sum(math.log(r) for r in ratios) / n)
    cells = [
        label,
        str(n),
        *(f"{s:.0%}" for s in shares),
        f"{statistics.median(ratios):.2f}",
        f"{quartiles[0]:.2f}",
        f"{quartiles[2]:.2f}",
        f"{geomean:.2f}",
        f"{min(ratios):.2f}",
        f"{max(ratios):.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


SUMMARY_HEADER = (
    "| regime | n | within 1.25x | within 1.5x | within 2x | median | p25 | p75 | geomean "
    "| min | max |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def model_size_class(result: Result) -> str:
    """small (< 20B active parameters), large (> 200B) or medium, from the model seed."""
    active = models()[result.point.model_id].params_active_b
    return "small" if active < 20 else "large" if active > 200 else "medium"


def shape_of(result: Result) -> str:
    """Input/output shape: prompt short (< 1000 tokens) or long, then the output class."""
    prompt = "long-prompt" if result.point.input_tokens >= 1000 else "short-prompt"
    return f"{prompt}/{result.regime.output_length}-output"


def per_gpu_medians(found: Sequence[Result]) -> dict[str, float]:
    """Median estimate/measured ratio per canonical GPU."""
    groups: dict[str, list[float]] = {}
    for r in found:
        groups.setdefault(r.point.gpu_id, []).append(r.ratio)
    return {gpu: statistics.median(ratios) for gpu, ratios in sorted(groups.items())}


def mlperf_gpu(result: Result) -> str | None:
    """The GPU of an MLPerf point (None for the others): per-GPU medians on one kind of source."""
    return result.point.gpu_id if result.point.source_kind == "mlperf" else None


SPLITS: tuple[tuple[str, Callable[[Result], str | None]], ...] = (
    ("source", lambda r: r.point.source_kind),
    ("gpu", lambda r: r.point.gpu_id),
    ("mlperf gpu", mlperf_gpu),
    ("generation", lambda r: r.regime.generation),
    ("model size", model_size_class),
    ("shape", shape_of),
    ("precision", lambda r: r.regime.precision),
    ("output", lambda r: r.regime.output_length),
    ("regime", lambda r: r.regime.label),
)


def summary(found: Sequence[Result]) -> list[str]:
    """Summary lines: the whole set, then one block per split (source, GPU, GPU on MLPerf
    points, generation, model size, shape, precision, output length, full regime), groups in
    sorted order; a split that leaves a point out (``None``) skips it."""
    lines = [SUMMARY_HEADER, summary_row("all", [r.ratio for r in found])]
    for name, key in SPLITS:
        groups: dict[str, list[float]] = {}
        for r in found:
            group = key(r)
            if group is not None:
                groups.setdefault(group, []).append(r.ratio)
        lines += [summary_row(f"{name}={g}", groups[g]) for g in sorted(groups)]
    return lines


def report(found: Sequence[Result]) -> str:
    """The calibration report ``benchmarks/estimates_calibration.py`` prints and
    ``docs/estimates_calibration.md`` holds below its preamble (the test checks they match): a
    row per point, a blank line, then the summary."""
    lines = [
        "| point | regime | model | GPU x n | in/out | measured tok/s | estimate tok/s | ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in found:
        p = r.point
        lines.append(
            f"| {p.point_id} | {r.regime.label} | {p.model_id} | {p.gpu_id} x{p.gpu_count} | "
            f"{p.input_tokens}/{p.output_tokens} | {p.measured:,.0f} | {r.estimate:,.0f} | "
            f"{r.ratio:.2f} |"
        )
    return "\n".join([*lines, "", *summary(found)]) + "\n"


def markdown_row(result: Result) -> str:
    """The row docs/estimates.md shows for one point (the test checks they match)."""
    p = result.point
    return (
        f"| {p.point_id} | {p.model_id} | {p.gpu_id} x{p.gpu_count} | {p.precision} | "
        f"{p.input_tokens}/{p.output_tokens} | {p.concurrency or 'offline'} | "
        f"{p.measured:,.0f} | {result.estimate:,.0f} | {result.ratio:.2f} | {p.engine} |"
    )


MARKDOWN_HEADER = (
    "| point | model | GPU x n | precision | in/out | concurrency | measured tok/s "
    "| estimate tok/s | ratio | engine |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def bands(found: Sequence[Result]) -> dict[tuple[str, str, str], tuple[int, float, float, float]]:
    """Residuals per calibration regime as ``economics.CALIBRATION_BANDS`` holds them:
    (points, low ratio, high ratio, geometric-mean ratio), ratio = estimate / measured.

    Keys are (generation, precision, output length) with ``*`` for "any":
    (g, p, o), (g, p, *), (g, *, *), (*, *, o) and (*, *, *), so an estimate whose own regime has
    few points falls back to the nearest coarser one (``economics.confidence_band``). Low/high
    are the 10th/90th percentiles of the ratios when a key has at least
    ``economics.BAND_PERCENTILE_MIN_POINTS`` points (one stray old-engine point does not set the
    band of thirty), else the extremes.
    """
    groups: dict[tuple[str, str, str], list[float]] = {}
    for r in found:
        g, p, o = r.regime.generation, r.regime.precision, r.regime.output_length
        for key in ((g, p, o), (g, p, "*"), (g, "*", "*"), ("*", "*", o), ("*", "*", "*")):
            groups.setdefault(key, []).append(r.ratio)
    return {key: economics.band_summary(ratios) for key, ratios in sorted(groups.items())}
