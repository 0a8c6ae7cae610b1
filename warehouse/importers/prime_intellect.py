"""Prime Intellect market summaries: ``<GPU type>[_<socket>].jsonl``, one line per snapshot.

Each line aggregates the Prime Intellect GPU availability API at one instant (about every 30
minutes) for one GPU market: ``timestamp``, ``gpu_type`` ("H100_80GB"), ``socket_type``
("SXM5" or null), ``price_stats`` (min, p10, p25, median, p75, p90, max, mean),
``availability`` (total, available, low, medium, high) and ``by_provider`` (per provider:
count, min, avg). Prices are USD per GPU-hour (the ``by_config`` block shows min_total =
min_per_gpu x GPUs) and mix spot and on-demand offers. They are statistics, not offers, so
they go to ``market_summaries`` and ``market_summary_providers``, not to offer_history.
``by_config`` (per GPU count) is not imported. The GPU resolves from "<type> <socket>" with
underscores as spaces ("H100 80GB SXM5" -> h100-sxm); a market naming only a family keeps
``gpu_id`` null and gets ``gpu_family`` (``warehouse.importers.families``). A provider line
without count/min/avg is left out of its (kept) summary and counted in ``excluded_parts``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from warehouse.db import bulk_insert, transaction
from warehouse.gpus import resolve
from warehouse.importers.common import (
    DatasetError,
    ImportResult,
    fingerprint,
    previous,
    record,
    require_files,
)
from warehouse.importers.families import resolve_family
from warehouse.units import quantize_money

DATASET = "prime-intellect-summary"
VERSION = 2  # 2: gpu_family for family-only markets
_STATS = ("min", "p10", "p25", "median", "p75", "p90", "max", "mean")
_AVAILABILITY = ("total", "available", "low", "medium", "high")
_SUMMARY_COLUMNS = [
    "source",
    "market",
    "observed_at",
    "gpu_name_provider",
    "socket",
    "gpu_id",
    "gpu_family",
    *(f"{s}_usd_per_gpu_hour" for s in _STATS),
    "offers_total",
    "offers_available",
    "availability_low",
    "availability_medium",
    "availability_high",
]
_PROVIDER_COLUMNS = [
    "source",
    "market",
    "observed_at",
    "provider",
    "offer_count",
    "min_usd_per_gpu_hour",
    "avg_usd_per_gpu_hour",
]


def _money(value: Any, where: str) -> Decimal | None:
    if value is None:
        return None
    if not isinstance(value, int | float | Decimal) or isinstance(value, bool):
        raise DatasetError(f"{where}: {value!r} is not a price")
    return quantize_money(Decimal(str(value)))


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise DatasetError(f"{where}: {value!r} is not a count")
    return value


def _parse(line: str, where: str) -> dict[str, Any]:
    try:
        snap = json.loads(line, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: not JSON ({exc})") from None
    missing = [
        k
        for k in (
            "timestamp",
            "gpu_type",
            "socket_type",
            "price_stats",
            "availability",
            "by_provider",
        )
        if k not in snap
    ]
    if missing:
        raise DatasetError(f"{where}: missing {', '.join(missing)}")
    return snap


def import_dataset(con: duckdb.DuckDBPyConnection, folder: Path) -> ImportResult:
    """Replace this dataset's rows in the two market tables from ``folder``'s JSONL files.

    Raises DatasetError on a line that is not a summary of the layout above; nothing is written
    then. A repeated (market, timestamp) keeps the first line and is counted as excluded.
    Skips all writing when the files are unchanged since the last import.
    """
    paths = require_files(folder, "*.jsonl")
    fp = fingerprint(paths, VERSION)
    done = previous(con, DATASET, fp)
    if done is not None:
        return done
    result = ImportResult(DATASET, files=len(paths))
    summaries: dict[tuple[str, datetime], list[object]] = {}
    providers: list[list[object]] = []
    gpu_cache: dict[str, tuple[str | None, str | None]] = {}
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            snap = _parse(line, where)
            result.rows_read += 1
            socket = snap["socket_type"]
            market = f"{snap['gpu_type']} {socket}" if socket else str(snap["gpu_type"])
            try:
                observed_at = datetime.fromisoformat(snap["timestamp"]).astimezone(UTC)
            except (TypeError, ValueError):
                raise DatasetError(f"{where}: timestamp {snap['timestamp']!r}") from None
            if (market, observed_at) in summaries:
                result.excluded["repeated (market, timestamp) lines (first kept)"] += 1
                continue
            if market not in gpu_cache:
                spelling = market.replace("_", " ")
                model = resolve(spelling)
                gpu_cache[market] = (model, resolve_family(spelling) if model is None else None)
            gpu_id, family = gpu_cache[market]
            result.count_gpu(market, gpu_id, family, 1)
            stats = snap["price_stats"] or {}
            availability = snap["availability"] or {}
            summaries[(market, observed_at)] = [
                result.source,
                market,
                observed_at,
                snap["gpu_type"],
                socket,
                gpu_id,
                family,
                *(_money(stats.get(s), f"{where} price_stats.{s}") for s in _STATS),
                *(_count(availability.get(a), f"{where} availability.{a}") for a in _AVAILABILITY),
            ]
            for name, line_stats in sorted((snap["by_provider"] or {}).items()):
                low = _money(line_stats.get("min"), f"{where} by_provider.{name}.min")
                avg = _money(line_stats.get("avg"), f"{where} by_provider.{name}.avg")
                count = _count(line_stats.get("count"), f"{where} by_provider.{name}.count")
                if low is None or avg is None or count is None:
                    result.excluded_parts["provider lines without count/min/avg"] += 1
                    continue
                providers.append([result.source, market, observed_at, name, count, low, avg])
            result.first_observed_at = min(filter(None, (result.first_observed_at, observed_at)))
            result.last_observed_at = max(filter(None, (result.last_observed_at, observed_at)))
    with transaction(con):
        for table in ("market_summaries", "market_summary_providers"):
            con.execute(f"delete from {table} where source = ?", [result.source])
        bulk_insert(con, "market_summaries", _SUMMARY_COLUMNS, list(summaries.values()))
        bulk_insert(con, "market_summary_providers", _PROVIDER_COLUMNS, providers)
        result.rows_written = {
            "market_summaries": len(summaries),
            "market_summary_providers": len(providers),
        }
        record(con, result, fp)
    return result
