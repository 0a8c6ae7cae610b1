"""Rebuild the derived models (one object per ``warehouse/models/<name>.sql``) in order."""

from __future__ import annotations

from pathlib import Path

import duckdb

MODELS_DIR = Path(__file__).resolve().parent / "models"

# Build order: a model comes after every model it reads (each file's header names them).
MODEL_ORDER: tuple[str, ...] = ("current_offers", "provider_status")


def model_sql(name: str) -> str:
    if name not in MODEL_ORDER:
        raise KeyError(f"unknown model {name!r}")
    return (MODELS_DIR / f"{name}.sql").read_text(encoding="utf-8")


def rebuild(con: duckdb.DuckDBPyConnection, names: tuple[str, ...] = MODEL_ORDER) -> dict[str, int]:
    """Rebuild ``names`` in one transaction; returns the row count of each."""
    counts: dict[str, int] = {}
    con.execute("begin transaction")
    try:
        for name in names:
            con.execute(model_sql(name))
            row = con.execute(f"select count(*) from {name}").fetchone()  # name is allow-listed
            counts[name] = int(row[0]) if row else 0
        con.execute("commit")
    except Exception:
        con.execute("rollback")
        raise
    return counts
