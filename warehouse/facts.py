"""Loading the curated fact seeds: provider facts, serverless platforms and tiers, reference LLMs.

``warehouse.seeding.load_seeds`` calls :func:`load_fact_seeds` inside its transaction, so these
tables are replaced together with the GPU seed on every run (see ``seeds/FACTS.md`` for what
each column means and where every fact comes from). Empty CSV cells become SQL nulls: an
unknown fact stays unknown, it is never filled with a default here.

Serverless tiers get what they need to be served as offers at load time: a stable
``offer_id`` (``warehouse.records.offer_id`` with the platform as provider, the tier name as
instance type, region ``global``, pricing ``on_demand``) and the whole-tier price per hour in its
currency. A tier is one row whatever number of GPU models it may land on: ``gpu_candidates``
lists them and ``gpu_id`` is the guaranteed minimum among them (:func:`minimum_candidate`), so
joins on ``gpu_id`` see one GPU per tier.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from dataclasses import astuple, fields
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import duckdb

from warehouse.db import bulk_insert
from warehouse.economics import ModelSpec, load_models
from warehouse.gpus import GpuSpec, family_from_facts, load_gpus
from warehouse.provenance import check_provenance
from warehouse.records import SERVERLESS_TIER_COLUMNS, offer_id
from warehouse.units import price_per_hour, quantize_money, share_per_gpu_usd

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


def _date(value: str | None) -> date | None:
    text = _text(value)
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not an ISO date: {text!r}") from None


def _verified(value: str | None) -> str | None:
    """'capture' or 'docs' (a scraped provider's verification basis), empty for none."""
    text = _text(value)
    if text not in (None, "capture", "docs"):
        raise ValueError(f"expected capture, docs or empty, got {text!r}")
    return text


_PROVIDER_COLUMNS: dict[str, Callable[[str | None], Any]] = {
    "provider": _text, "name": _text, "kind": _text, "verified": _verified,
    "billing_granularity": _text,
    "billing_granularity_s": _decimal, "minimum_charge_s": _decimal,
    "egress_usd_per_gb": _decimal, "block_storage_usd_per_gb_month": _decimal,
    "spot_available": _bool, "interconnect_notes": _text, "facts_as_of": _date,
    "source_urls": _text, "notes": _text,
    "source_kind": _text, "observed_basis": _text, "capture_files": _text,
}  # fmt: skip
_PLATFORM_COLUMNS: dict[str, Callable[[str | None], Any]] = {
    "platform": _text, "name": _text, "deployment": _text, "billing_granularity_s": _decimal,
    "minimum_charge_s": _decimal, "scale_to_zero": _bool, "idle_charged": _text,
    "min_replicas_supported": _bool, "warm_pool": _text, "cold_start_mitigations": _text,
    "max_request_duration_s": _int, "concurrency_controls": _text,
    "autoscaling_controls": _text, "persistent_volumes": _text, "facts_as_of": _date,
    "source_urls": _text, "notes": _text,
    "source_kind": _text, "observed_basis": _text, "capture_files": _text,
}  # fmt: skip
_TIER_COLUMNS = SERVERLESS_TIER_COLUMNS  # records.ServerlessTier
# How a tier's source_date is known (seeds/FACTS.md, "Source dates"); empty when undated.
SOURCE_DATE_BASES = frozenset({"commit", "page", "capture", "lower_bound", "retrieved"})
# observed_basis (warehouse.provenance) -> the source_date_basis values it may go with
_BASES_OF = {
    "published": frozenset({"commit", "page", "capture", "lower_bound"}),
    "captured": frozenset({"capture"}),
    "retrieved": frozenset({"retrieved"}),
    "undated": frozenset({""}),
}


def _typed(path: Path, columns: dict[str, Callable[[str | None], Any]]) -> list[list[Any]]:
    """A fact seed's rows, converted column by column; each row's provenance (source_kind,
    observed_basis, facts_as_of, capture_files) checked by ``warehouse.provenance``."""
    out = []
    for line, row in enumerate(_rows(path), start=2):
        values = []
        for column, convert in columns.items():
            try:
                values.append(convert(row.get(column)))
            except ValueError as exc:
                raise SeedError(f"{path.name}:{line}: {column}: {exc}") from None
        try:
            check_provenance(
                row.get("source_kind"),
                row.get("observed_basis"),
                _text(row.get("facts_as_of")) is not None,
                row.get("capture_files"),
            )
        except ValueError as exc:
            raise SeedError(f"{path.name}:{line}: {exc}") from None
        out.append(values)
    return out


def minimum_candidate(candidates: list[str], gpus: Mapping[str, GpuSpec]) -> str:
    """The candidate a tier is guaranteed at least: lowest memory bandwidth, then lowest dense
    BF16 rate, then id (a tie between equal cards must not depend on the seed's order).

    Raises KeyError for an id that ``gpus`` does not define.
    """
    return min(
        candidates,
        key=lambda g: (gpus[g].memory_bandwidth_gbps, gpus[g].bf16_tflops_dense or 0.0, g),
    )


def tier_rows(path: Path, gpus: Mapping[str, GpuSpec] | None = None) -> list[dict[str, Any]]:
    """``serverless_tiers.csv`` as offer-ready rows (see the module docstring).

    ``gpus`` is the canonical GPU table (default: ``gpus.csv`` beside ``path``). Raises SeedError
    for a malformed number or date, a non-positive price or GPU count, a candidate GPU id that
    the GPU table lacks, a guaranteed memory above the smallest candidate's, a basis outside
    :data:`SOURCE_DATE_BASES`, a provenance that breaks ``warehouse.provenance``'s rules (or a
    source_date_basis that does not go with it), or two rows that would get the same offer id.
    """
    known = load_gpus(path.parent) if gpus is None else gpus
    rows: dict[str, dict[str, Any]] = {}
    for line, r in enumerate(_rows(path), start=2):
        where = f"{path.name}:{line}"
        platform, tier = r["platform"].strip(), r["tier"].strip()
        candidates = (r.get("gpu_ids") or "").split()
        try:
            price, gpu_count = _decimal(r["price"]), _decimal(r["gpu_count"])
            usd_hour = _decimal(r["price_per_hour_usd"])
            vram = _decimal(r.get("vram_gb_guaranteed"))
            source_date, ends_on = _date(r.get("source_date")), _date(r.get("ends_on"))
            always_on = _bool(r.get("always_on")) or False
        except ValueError as exc:
            raise SeedError(f"{where}: {exc}") from None
        if not price or not gpu_count or usd_hour is None:
            raise SeedError(f"{where}: price, gpu_count and price_per_hour_usd must be positive")
        try:
            origin = check_provenance(
                r.get("source_kind"), r.get("observed_basis"), source_date is not None,
                r.get("capture_file"),
            )  # fmt: skip
        except ValueError as exc:
            raise SeedError(f"{where}: {exc}") from None
        basis = (r.get("source_date_basis") or "").strip()
        if basis and basis not in SOURCE_DATE_BASES:
            raise SeedError(
                f"{where}: source_date_basis {basis!r} not in {sorted(SOURCE_DATE_BASES)}"
            )
        allowed = _BASES_OF[origin.observed_basis]
        if basis not in allowed or len(origin.captures) > 1:
            raise SeedError(
                f"{where}: source_date_basis {basis!r} does not go with observed_basis "
                f"{origin.observed_basis} (expected one of {sorted(allowed)},"
                " and at most one capture_file)"
            )
        unknown = [g for g in candidates if g not in known]
        if unknown or len(set(candidates)) != len(candidates):
            raise SeedError(f"{where}: gpu_ids {candidates} (unknown or repeated: {unknown})")
        if (
            vram is not None
            and candidates
            and vram > min(Decimal(str(known[g].vram_gb)) for g in candidates)
        ):
            raise SeedError(f"{where}: vram_gb_guaranteed {vram} exceeds a candidate's memory")
        oid = offer_id(platform, tier, SERVERLESS_REGION, SERVERLESS_PRICING, None)
        if oid in rows:
            raise SeedError(f"{where}: duplicate tier {platform} / {tier}")
        hourly = price_per_hour(price, r["price_unit"].strip(), "instance", gpu_count)
        rows[oid] = {
            "offer_id": oid, "platform": platform, "tier": tier, "instance_type": tier,
            "gpu_id": minimum_candidate(candidates, known) if candidates else None,
            "gpu_candidates": candidates or None, "vram_gb_guaranteed": vram,
            "gpu_count": gpu_count, "price": price, "currency": r["currency"].strip(),
            "price_unit": r["price_unit"].strip(), "price_per_hour": quantize_money(hourly),
            "price_per_hour_usd": usd_hour, "source_date": source_date,
            "source_date_basis": basis or None, "ends_on": ends_on,
            "source_url": _text(r["source_url"]), "source_kind": origin.source_kind,
            "observed_basis": origin.observed_basis,
            "capture_file": origin.captures[0] if origin.captures else None,
            "notes": _text(r.get("notes")), "always_on": always_on,
            "price_per_gpu_hour_usd": share_per_gpu_usd(usd_hour, gpu_count),
            # no candidate GPU: the family the tier's name and memory allow ("A100" -> a100)
            "gpu_family": None
            if candidates
            else family_from_facts(tier, float(vram) if vram is not None else None),
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
