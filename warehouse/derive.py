"""Rebuild the derived models (one object per ``warehouse/models/<name>.sql``) in order."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse import plausibility
from warehouse.analysis import view_sql
from warehouse.db import transaction
from warehouse.history import maintain
from warehouse.quality import stale_before
from warehouse.settings import DEFAULT_STALE_AFTER_DAYS, DEFAULT_STALE_AFTER_HOURS
from warehouse.shelf_life import write_shelf_lives

MODELS_DIR = Path(__file__).resolve().parent / "models"

# Build order: a model comes after every model it reads (each file's header names them).
MODEL_ORDER: tuple[str, ...] = ("current_offers", "provider_status")


def model_sql(name: str) -> str:
    if name not in MODEL_ORDER:
        raise KeyError(f"unknown model {name!r}")
    return (MODELS_DIR / f"{name}.sql").read_text(encoding="utf-8")


def rebuild(
    con: duckdb.DuckDBPyConnection,
    names: tuple[str, ...] = MODEL_ORDER,
    *,
    now: datetime | None = None,
    stale_after_hours: float = DEFAULT_STALE_AFTER_HOURS,
    stale_after_days: float = DEFAULT_STALE_AFTER_DAYS,
    shelf_life_days: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """Rebuild ``names`` in one transaction, then ``history.maintain``; returns row counts.

    Freshness is judged at ``now`` (default: the current time): the models read the snapshot
    instant (``as_of``) and the staleness settings (``stale_after_hours`` for a provider's
    ``overdue``, ``stale_after_days`` for an offer's ``stale``: ``GPUPRICES_STALE_AFTER_*``) from
    session variables, and each kind of price's shelf life (``shelf_life_days``, kind -> days
    over the defaults of ``warehouse.shelf_life``: ``GPUPRICES_SHELF_LIFE_DAYS_*``; a provider is
    stale past the longest of its prices') from the ``shelf_lives`` table, written first.
    After ``current_offers`` is built, the plausibility screen runs over the whole current
    market (``warehouse.plausibility``); its verdicts are stored in ``price_screens`` and
    ``current_offers`` is rebuilt once to carry them.
    """
    now = now or datetime.now(UTC)
    counts: dict[str, int] = {}
    con.execute(
        "set variable stale_before = ?::timestamptz", [stale_before(now, stale_after_hours)]
    )
    con.execute("set variable as_of = ?::timestamptz", [now])
    con.execute("set variable stale_after_days = ?::double", [stale_after_days])
    with transaction(con):
        write_shelf_lives(con, shelf_life_days)
        con.execute(view_sql("price_kind"))  # the models classify prices with it
        for name in names:
            con.execute(model_sql(name))
            if name == "current_offers" and plausibility.screen_current(con, now=now):
                con.execute(model_sql(name))  # verdicts changed: carry them
            row = con.execute(f"select count(*) from {name}").fetchone()  # name is allow-listed
            counts[name] = int(row[0]) if row else 0
    # History follows the models: the daily rollup (with the same shelf lives), observation
    # retention, the analysis views.
    counts.update(maintain(con, now=now, shelf_life_days=shelf_life_days))
    return counts


def fitting_token_estimates(con: duckdb.DuckDBPyConnection) -> int:
    """How many rows of ``token_estimates`` fit their model (``fits``): the derived asset's
    check wants at least one."""
    row = con.execute("select count(*) from token_estimates where fits").fetchone()
    return int(row[0]) if row else 0
