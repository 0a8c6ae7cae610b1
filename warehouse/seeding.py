"""Loading the seed tables (GPUs, aliases, FX rates, curated facts) from ``warehouse/seeds/``.

Apart from ``warehouse.db`` (which opens and migrates the file and knows no table's content):
seeding reads the GPU, FX and fact modules, which all write through ``db``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from warehouse.db import PACKAGE_DIR, bulk_insert
from warehouse.facts import load_fact_seeds
from warehouse.fx import load_ecb_history
from warehouse.gpus import alias_table
from warehouse.places import load_places

SEEDS_DIR = PACKAGE_DIR / "seeds"


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _nullable(value: str | None) -> str | None:
    return None if value is None or value.strip() == "" else value.strip()


def load_seeds(con: duckdb.DuckDBPyConnection, seeds_dir: Path = SEEDS_DIR) -> dict[str, int]:
    """Replace the seed tables from the CSV files (inside the caller's transaction)."""
    counts: dict[str, int] = {}
    gpu_columns = [
        row[0]
        for row in con.execute(
            "select column_name from information_schema.columns"
            " where table_name = 'gpus' order by ordinal_position"
        ).fetchall()
    ]
    gpu_rows = _csv_rows(seeds_dir / "gpus.csv")
    con.execute("delete from gpus")
    bulk_insert(
        con,
        "gpus",
        gpu_columns,
        [[_nullable(row.get(col)) for col in gpu_columns] for row in gpu_rows],
    )
    counts["gpus"] = len(gpu_rows)

    con.execute("delete from gpu_aliases")
    aliases = alias_table(seeds_dir)
    bulk_insert(
        con,
        "gpu_aliases",
        ["alias_key", "gpu_id"],
        [[key, gpu_id] for key, gpu_id in aliases.items()],
    )
    counts["gpu_aliases"] = len(aliases)

    fx_path = seeds_dir / "fx_rates.csv"
    con.execute("delete from fx_rates where source like 'seed:%'")
    fx_rows = _csv_rows(fx_path) if fx_path.is_file() else []
    con.execute(
        "delete from fx_rates where (rate_date, currency) in (select unnest($1)::date, unnest($2))",
        [[r["rate_date"] for r in fx_rows], [r["currency"] for r in fx_rows]],
    )
    bulk_insert(
        con,
        "fx_rates",
        ["rate_date", "currency", "usd_per_unit", "source"],
        [
            [r["rate_date"], r["currency"], r["usd_per_unit"], f"seed:{r.get('source_url', '')}"]
            for r in fx_rows
        ],
    )
    con.execute(
        "insert or replace into fx_rates values (date '1970-01-01', 'USD', 1, 'seed:identity')"
    )
    counts["fx_rates"] = len(fx_rows) + 1
    # The ECB's own rates for every working day (skipped when this file is already stored).
    counts["fx_rates_ecb_history"] = load_ecb_history(con).stored

    counts.update(load_fact_seeds(con, seeds_dir))
    counts.update(load_places(con, seeds_dir))
    return counts
