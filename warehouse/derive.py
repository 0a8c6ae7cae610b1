"""The warehouse build: every derived object (``warehouse/{models,views,rollups}/*.sql``) in
the order of the graph their headers declare (``warehouse.graph``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime

import duckdb

from warehouse import plausibility
from warehouse.db import transaction
from warehouse.graph import VIEW_KINDS, GraphError, SqlObject, graph
from warehouse.history import prune_observations, refresh_rollup
from warehouse.quality import stale_before
from warehouse.settings import DEFAULT_STALE_AFTER_DAYS, DEFAULT_STALE_AFTER_HOURS
from warehouse.shelf_life import write_shelf_lives

# Python run right after a model is built; True = it changed what the model reads, so the model
# is built once more. The plausibility screen judges the whole current market and stores its
# verdicts in price_screens, which current_offers carries and the rollups read (rollups are
# built after models: warehouse.graph.BUILD_RANK).
AFTER_BUILD: dict[str, Callable[[duckdb.DuckDBPyConnection, datetime], bool]] = {
    "current_offers": lambda con, now: plausibility.screen_current(con, now=now),
}


def rebuild(
    con: duckdb.DuckDBPyConnection,
    *,
    now: datetime | None = None,
    stale_after_hours: float = DEFAULT_STALE_AFTER_HOURS,
    stale_after_days: float = DEFAULT_STALE_AFTER_DAYS,
    shelf_life_days: Mapping[str, float] | None = None,
    select: Iterable[str] | None = None,
) -> dict[str, int]:
    """Build every derived object in one transaction, in graph order; returns row counts.

    ``select`` (object names) builds only those objects and everything they read, as dbt's
    ``+name`` does, and prunes nothing: a partial build for a caller that reads one model (the
    fault matrix reads ``current_offers`` 442 times); the published build is always whole.

    Views and macros are created, models rebuilt (``create or replace table``), rollups
    refreshed incrementally (``warehouse.history.refresh_rollup``); then observations past
    their retention are pruned. Counts: rows per model, ``rollup_rows_refreshed``,
    ``observations_pruned``, ``analysis_views``.

    Freshness is judged at ``now`` (default: the current time): the models read the snapshot
    instant (``as_of``) and the staleness settings (``stale_after_hours`` for a provider's
    ``overdue``, ``stale_after_days`` for an offer's ``stale``: ``GPUPRICES_STALE_AFTER_*``) from
    session variables, and each kind of price's shelf life (``shelf_life_days``, kind -> days
    over the defaults of ``warehouse.shelf_life``: ``GPUPRICES_SHELF_LIFE_DAYS_*``; a provider is
    stale past the longest of its prices') from the ``shelf_lives`` table, written first.
    After ``current_offers`` is built, the plausibility screen runs over the whole current
    market (``AFTER_BUILD``). Raises ``warehouse.graph.GraphError`` for a bad header.
    """
    now = now or datetime.now(UTC)
    objects = graph().built() if select is None else _selected(tuple(select))
    counts: dict[str, int] = {}
    rollup_rows = views = 0
    con.execute(
        "set variable stale_before = ?::timestamptz", [stale_before(now, stale_after_hours)]
    )
    con.execute("set variable as_of = ?::timestamptz", [now])
    con.execute("set variable stale_after_days = ?::double", [stale_after_days])
    with transaction(con):
        write_shelf_lives(con, shelf_life_days)
        for obj in objects:
            if obj.kind in VIEW_KINDS:
                con.execute(obj.sql)
                views += 1
            elif obj.kind == "rollup":
                refresh = refresh_rollup(
                    con, now=now, shelf_life_days=shelf_life_days, rollups=(obj.name,)
                )
                rollup_rows += refresh.rows
            else:  # a model
                con.execute(obj.sql)
                after = AFTER_BUILD.get(obj.name)
                if after is not None and after(con, now):
                    con.execute(obj.sql)  # what it reads changed: carry it
                row = con.execute(f"select count(*) from {obj.name}").fetchone()  # a file name
                counts[obj.name] = int(row[0]) if row else 0
        pruned = prune_observations(con) if select is None else 0
    counts["rollup_rows_refreshed"] = rollup_rows
    counts["observations_pruned"] = pruned
    counts["analysis_views"] = views
    return counts


def _selected(names: tuple[str, ...]) -> tuple[SqlObject, ...]:
    """The built objects ``names`` need (themselves and all they read), in build order.

    Raises ``GraphError`` for a name no ``.sql`` file declares."""
    built = graph()
    wanted: set[str] = set()
    for name in names:
        if name not in built.objects:
            raise GraphError(f"no .sql file declares {name!r}")
        wanted |= {name, *(o.name for o in built.upstream(name))}
    return tuple(o for o in built.built() if o.name in wanted)


def fitting_token_estimates(con: duckdb.DuckDBPyConnection) -> int:
    """How many rows of ``token_estimates`` fit their model (``fits``): the derived asset's
    check wants at least one."""
    row = con.execute("select count(*) from token_estimates where fits").fetchone()
    return int(row[0]) if row else 0
