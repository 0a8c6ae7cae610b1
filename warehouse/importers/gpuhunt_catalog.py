"""gpuhunt catalog query results: ``<YYYY-MM-DD>_<commit>.json``, one file per day.

Each file is a JSON array of ``{"gpuModel", "price", "provider"}`` objects: the result of
``gpuhunt.query(gpu_name=["MI300X", "H100", "H200"])`` over gpuhunt's published catalogs that
day, with the price as text in US dollars per instance-hour ("$2.49"). Rows carry no instance
type, region, GPU count or spot flag, so they have no stable identity (two rows of one provider
and price are indistinguishable) and no per-GPU price. They are therefore kept as statistics,
not offers: per (day, provider, GPU name) the number of rows and the min/median/max
instance-hour price, in ``imported_daily_prices``. "H100" and "A100" name a family (SXM, PCIe,
NVL; 40/80 GB), not a model: those rows keep ``gpu_id`` null and carry ``gpu_family`` ('h100',
'a100'; ``warehouse.importers.families``), so a query for H100 history finds them, labelled as
family-level. Provider names are gpuhunt's own ("lambdalabs", "oci", "vastai").
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

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

DATASET = "gpuhunt-h100-h200-mi300x"
VERSION = 2  # 2: gpu_family for family-only names
_FILE = re.compile(r"^(?P<day>\d{4}-\d{2}-\d{2})_[0-9a-f]+\.json$")
_PRICE = re.compile(r"^\$(?P<amount>\d[\d,]*(?:\.\d+)?)$")
_FIELDS = ("gpuModel", "price", "provider")
_COLUMNS = [
    "source",
    "day",
    "captured_at",
    "provider",
    "gpu_name_provider",
    "gpu_id",
    "gpu_family",
    "offer_count",
    "min_price_per_hour_usd",
    "median_price_per_hour_usd",
    "max_price_per_hour_usd",
]


def _price(text: str, where: str) -> Decimal:
    match = _PRICE.match(text.strip())
    if match is None:
        raise DatasetError(f"{where}: price {text!r} is not like '$2.49'")
    try:
        return Decimal(match["amount"].replace(",", ""))
    except InvalidOperation:
        raise DatasetError(f"{where}: price {text!r} is not a number") from None


def _read(path: Path, result: ImportResult) -> dict[tuple[str, str], list[Decimal]]:
    try:
        rows = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path.name}: not JSON ({exc})") from None
    if not isinstance(rows, list) or not rows:
        raise DatasetError(f"{path.name}: expected a non-empty JSON array of offers")
    groups: dict[tuple[str, str], list[Decimal]] = defaultdict(list)
    for i, row in enumerate(rows):
        where = f"{path.name}[{i}]"
        if not isinstance(row, dict) or any(k not in row for k in _FIELDS):
            raise DatasetError(f"{where}: expected keys {', '.join(_FIELDS)}")
        result.rows_read += 1
        price = _price(str(row["price"]), where)
        if price <= 0:
            result.excluded["price <= 0"] += 1
            continue
        groups[(str(row["provider"]), str(row["gpuModel"]))].append(price)
    return groups


def import_dataset(con: duckdb.DuckDBPyConnection, folder: Path) -> ImportResult:
    """Replace this dataset's rows in ``imported_daily_prices`` from ``folder``'s files.

    Raises DatasetError on a file name or row that does not fit the layout above; nothing is
    written then. Skips all writing when the files are unchanged since the last import.
    """
    paths = require_files(folder, "*.json")
    fp = fingerprint(paths, VERSION)
    done = previous(con, DATASET, fp)
    if done is not None:
        return done
    result = ImportResult(DATASET, files=len(paths))
    out: list[list[object]] = []
    for path in paths:
        match = _FILE.match(path.name)
        if match is None:
            raise DatasetError(f"{path.name}: file name is not <YYYY-MM-DD>_<commit>.json")
        day = date.fromisoformat(match["day"])
        # the file name carries the date only; the capture ran shortly after midnight UTC
        captured_at = datetime(day.year, day.month, day.day, tzinfo=UTC)
        for (provider, gpu_name), prices in sorted(_read(path, result).items()):
            gpu_id = resolve(gpu_name)
            family = resolve_family(gpu_name) if gpu_id is None else None
            result.count_gpu(gpu_name, gpu_id, family, len(prices))
            out.append(
                [
                    result.source,
                    day,
                    captured_at,
                    provider,
                    gpu_name,
                    gpu_id,
                    family,
                    len(prices),
                    min(prices),
                    quantize_money(statistics.median(prices)),
                    max(prices),
                ]
            )
        result.first_observed_at = min(filter(None, (result.first_observed_at, captured_at)))
        result.last_observed_at = max(filter(None, (result.last_observed_at, captured_at)))
    with transaction(con):
        con.execute("delete from imported_daily_prices where source = ?", [result.source])
        bulk_insert(con, "imported_daily_prices", _COLUMNS, out)
        result.rows_written = {"imported_daily_prices": len(out)}
        record(con, result, fp)
    return result
