"""Loading the curated fact seeds: provider facts, serverless platforms and tiers, reference LLMs.

``warehouse.db.load_seeds`` calls :func:`load_fact_seeds` inside its transaction, so these
tables are replaced together with the GPU seed on every run (see ``seeds/FACTS.md`` for what
each column means and where every fact comes from). Empty CSV cells become SQL nulls: an
unknown fact stays unknown, it is never filled with a default here.

Serverless tiers get what they need to be served as offers at load time: a stable
``offer_id`` (``warehouse.load.offer_id`` with the platform as provider, region ``global``,
pricing ``on_demand``), an ``instance_type`` that is unique within the platform (a pooled tier
listed once per GPU gets the GPU id appended) and the whole-tier price per hour in its currency.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Callable
from dataclasses import astuple, fields
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import duckdb

from warehouse.db import bulk_insert
from warehouse.economics import ModelSpec, load_models
from warehouse.load import offer_id
from warehouse.units import price_per_hour, quantize_money

SERVERLESS_REGION = "global"
SERVERLESS_PRICING = "on_demand"

# Table -> seed file. Column order of each insert follows the table definition (0003).
FACT_SEEDS: dict[str, str] = {
    "provider_facts": "provider_facts.csv",
    "serverless_platforms": "serverless_platforms.csv",
    "serverless_tiers": "serverless_tiers.csv",
    "models": "models.csv",
}


class SeedError(ValueError):
    """A curated seed row that cannot be loaded (names the file, line and column)."""


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _text(value: str | None) -> str | None:
    return None if value is None or not value.strip() else value.strip()


def _decimal(value: str | None) -> Decimal | None:
    text = _text(value)
    if text is None:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not a number: {text!r}") from None
    if not number.is_finite() or number < 0:
        raise ValueError(f"not a non-negative number: {text!r}")
    return number


def _bool(value: str | None) -> bool | None:
    text = _text(value)
    if text is None:
        return None
    if text not in ("true", "false"):
        raise ValueError(f"expected true/false or empty, got {text!r}")
    return text == "true"


def _int(value: str | None) -> int | None:
    number = _decimal(value)
    return None if number is None else int(number)


_PROVIDER_COLUMNS: dict[str, Callable[[str | None], Any]] = {
    "provider": _text, "name": _text, "kind": _text, "billing_granularity": _text,
    "billing_granularity_s": _decimal, "minimum_charge_s": _decimal,
    "egress_usd_per_gb": _decimal, "block_storage_usd_per_gb_month": _decimal,
    "spot_available": _bool, "interconnect_notes": _text, "facts_as_of": _text,
    "source_urls": _text, "notes": _text,
}  # fmt: skip
_PLATFORM_COLUMNS: dict[str, Callable[[str | None], Any]] = {
    "platform": _text, "name": _text, "deployment": _text, "billing_granularity_s": _decimal,
    "minimum_charge_s": _decimal, "scale_to_zero": _bool, "idle_charged": _text,
    "min_replicas_supported": _bool, "warm_pool": _text, "cold_start_mitigations": _text,
    "max_request_duration_s": _int, "concurrency_controls": _text,
    "autoscaling_controls": _text, "persistent_volumes": _text, "facts_as_of": _text,
    "source_urls": _text, "notes": _text,
}  # fmt: skip
_TIER_COLUMNS = (
    "offer_id", "platform", "tier", "instance_type", "gpu_id", "gpu_count", "price", "currency",
    "price_unit", "price_per_hour", "price_per_hour_usd", "facts_as_of", "source_url", "notes",
    "always_on",
)  # fmt: skip


def _typed(path: Path, columns: dict[str, Callable[[str | None], Any]]) -> list[list[Any]]:
    out = []
    for line, row in enumerate(_rows(path), start=2):
        values = []
        for column, convert in columns.items():
            try:
                values.append(convert(row.get(column)))
            except ValueError as exc:
                raise SeedError(f"{path.name}:{line}: {column}: {exc}") from None
        out.append(values)
    return out


def tier_rows(path: Path) -> list[dict[str, Any]]:
    """``serverless_tiers.csv`` as offer-ready rows (see the module docstring).

    Raises SeedError for a malformed number, a non-positive price or GPU count, or two rows
    that would get the same offer id.
    """
    raw = _rows(path)
    pooled = Counter((r["platform"].strip(), r["tier"].strip()) for r in raw)
    rows: dict[str, dict[str, Any]] = {}
    for line, r in enumerate(raw, start=2):
        where = f"{path.name}:{line}"
        platform, tier, gpu_id = r["platform"].strip(), r["tier"].strip(), _text(r["gpu_id"])
        try:
            price, gpu_count = _decimal(r["price"]), _decimal(r["gpu_count"])
            usd_hour = _decimal(r["price_per_hour_usd"])
            always_on = _bool(r.get("always_on")) or False
        except ValueError as exc:
            raise SeedError(f"{where}: {exc}") from None
        if not price or not gpu_count or usd_hour is None:
            raise SeedError(f"{where}: price, gpu_count and price_per_hour_usd must be positive")
        # A pooled tier ("Medium (T4, A4000)") is listed once per GPU: the GPU id tells them apart.
        instance_type = tier if pooled[(platform, tier)] == 1 else f"{tier} ({gpu_id or 'gpu?'})"
        oid = offer_id(platform, instance_type, SERVERLESS_REGION, SERVERLESS_PRICING, None)
        if oid in rows:
            raise SeedError(f"{where}: duplicate tier {platform} / {instance_type}")
        hourly = price_per_hour(price, r["price_unit"].strip(), "instance", gpu_count)
        rows[oid] = {
            "offer_id": oid, "platform": platform, "tier": tier, "instance_type": instance_type,
            "gpu_id": gpu_id, "gpu_count": gpu_count, "price": price,
            "currency": r["currency"].strip(), "price_unit": r["price_unit"].strip(),
            "price_per_hour": quantize_money(hourly), "price_per_hour_usd": usd_hour,
            "facts_as_of": _text(r["facts_as_of"]), "source_url": _text(r["source_url"]),
            "notes": _text(r.get("notes")), "always_on": always_on,
        }  # fmt: skip
    return list(rows.values())


def model_rows(path: Path) -> list[ModelSpec]:
    """``models.csv`` validated by ``warehouse.economics.load_models`` (ValueError if malformed)."""
    return list(load_models(path).values())


def model_from_row(row: dict[str, Any]) -> ModelSpec:
    """A ``ModelSpec`` from a ``models`` table row (the inverse of what the loader writes)."""
    return ModelSpec(**{f.name: row[f.name] for f in fields(ModelSpec)})


def _sql(value: Any) -> Any:
    # Decimals travel as text: one bulk insert binds a column as one list, and DuckDB casts the
    # text to the column's decimal type exactly (no float on the way).
    return str(value) if isinstance(value, Decimal) else value


def _replace(
    con: duckdb.DuckDBPyConnection,
    table: str,
    columns: list[str] | tuple[str, ...],
    rows: list[list[Any]] | list[tuple[Any, ...]],
) -> int:
    con.execute(f"delete from {table}")  # table names come from FACT_SEEDS only
    bulk_insert(con, table, list(columns), [[_sql(v) for v in row] for row in rows])
    return len(rows)


def load_fact_seeds(con: duckdb.DuckDBPyConnection, seeds_dir: Path) -> dict[str, int]:
    """Replace the fact tables from ``seeds_dir`` (inside the caller's transaction).

    A seed file that is absent leaves its table empty (a test seeds directory may hold only the
    GPU files). Returns the row count loaded per table; raises SeedError/ValueError on a
    malformed row, so a typo in a hand-edited seed fails the seeding step loudly.
    """
    counts: dict[str, int] = {}
    for table, filename in FACT_SEEDS.items():
        path = seeds_dir / filename
        if not path.is_file():
            counts[table] = _replace(con, table, [], [])
            continue
        if table == "provider_facts":
            counts[table] = _replace(
                con, table, list(_PROVIDER_COLUMNS), _typed(path, _PROVIDER_COLUMNS)
            )
        elif table == "serverless_platforms":
            counts[table] = _replace(
                con, table, list(_PLATFORM_COLUMNS), _typed(path, _PLATFORM_COLUMNS)
            )
        elif table == "serverless_tiers":
            tiers = tier_rows(path)
            counts[table] = _replace(
                con, table, _TIER_COLUMNS, [[t[c] for c in _TIER_COLUMNS] for t in tiers]
            )
        else:
            specs = model_rows(path)
            columns = [f.name for f in fields(ModelSpec)]
            counts[table] = _replace(con, table, columns, [astuple(s) for s in specs])
    return counts
