"""Offer identity: re-key stored offers to their product key, and merge the series that split.

An offer's id hashes (provider, product key, region, pricing, term, cloud tier)
(``records.offer_id``). The
product key is the scraper's: it knows that RunPod's API and its web page spell one GPU type two
ways, the warehouse does not (and names no provider). When a scraper's keys change (a spelling
learnt, a key rule fixed), offers already stored keep the ids the old keys gave, so one product
would have two series: the ids of the old spelling's history, and the new one's. So would a
change of place: a provider that stored a product tier as the region (issue 22) states it as
``cloud_tier`` now, with another region; the scraper's ``Provider.place`` says where an offer
stored at (region, tier) is now. :func:`merge_offer_identities` re-keys them. The pipeline
runs it for each provider before its scrapes load, with the provider's key function
(``scrapers.base.Provider.product_key``) as ``key_of`` and its ``Provider.place`` as
``place_of``: the first ingest after an upgrade merges what is already stored, later ones find
nothing to do (one scan of the provider's distinct stored identities).

What moves: every ``observations``, ``price_screens`` and ``quarantined_offers`` row of an old
id takes the new id (their keys stay unique: one scrape never lists two spellings of one
product, ``tests/scrapers/test_contract.py``; a target whose old ids do share a scrape is left
split and reported instead). Scraped ``offer_history`` intervals of the old ids and of the new
id become one interval list (:func:`merge_intervals`): where intervals overlap, the one that
started last is in force (it is the newer statement of the price) and an older one that
outlasts it is in force again from where it ends; adjacent pieces with the same values
(price, currency, GPU, GPU count) are one interval; a stretch no interval covers stays a gap.
So no two intervals of one id overlap, at most one is open, and ``(offer_id, valid_from)`` stays
unique. Imported history (``source`` ``import:<dataset>``) keeps its ids: an importer keys its
dataset's own spellings, and re-importing would bring the old ids back. Each move is recorded
in ``offer_id_merges`` (old id -> id), and the daily rollup redoes the days from the first moved
interval on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb

from warehouse.db import transaction
from warehouse.history import mark_dirty
from warehouse.records import SCRAPE_SOURCE, OfferIdMerge, columns, offer_id, values

# the tables keyed by (scrape_id, offer_id) whose rows follow their offer to its new id
SCRAPE_KEYED_TABLES = ("observations", "price_screens", "quarantined_offers")
# the values that make an interval (warehouse.history: a change of any of them is a change)
HISTORY_VALUES = ("price", "currency", "gpu_id", "gpu_count")
# A unit or basis the interval does not know (null: written before migration 0016) is no change,
# as in warehouse.history_sql.
UNIT_VALUES = ("price_unit", "price_per")
MERGES_TABLE = "offer_id_merges"

_IDENTITIES_SQL = """
select distinct offer_id, instance_type, region, cloud_tier, pricing, reserved_term_months
from observations where provider = $provider
union
select distinct offer_id, instance_type, region, cloud_tier, pricing, reserved_term_months
from offer_history where provider = $provider and source = $source
"""
# the tables whose rows carry their offer's place, and which place columns each has
PLACE_COLUMNS = {
    "observations": ("region", "cloud_tier"),
    "offer_history": ("region", "cloud_tier"),
    "quarantined_offers": ("region",),
}
Place = tuple[str, "str | None"]


@dataclass(frozen=True)
class MergeReport:
    """What one provider's merge did: ``moved`` old id -> new id; ``intervals_before`` and
    ``intervals_after`` count the scraped intervals of the new ids; ``conflicts`` lists new ids
    left split because one scrape holds two of their old ids."""

    moved: dict[str, str] = field(default_factory=dict)
    intervals_before: int = 0
    intervals_after: int = 0
    conflicts: list[str] = field(default_factory=list)


def _moves(
    con: duckdb.DuckDBPyConnection,
    provider: str,
    key_of: Callable[[str], str],
    place_of: Callable[[str, str | None], Place],
) -> tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, Place]]:
    """Old id -> new id for every stored identity whose id is not its key's and place's, the
    (instance type, product key) each old id was stored under, and each old id's new place
    (region, cloud tier) where it changed."""
    rows = con.execute(_IDENTITIES_SQL, {"provider": provider, "source": SCRAPE_SOURCE}).fetchall()
    moves: dict[str, str] = {}
    named: dict[str, tuple[str, str]] = {}
    placed: dict[str, Place] = {}
    for stored_id, instance_type, region, tier, pricing, term in rows:
        key = key_of(instance_type)
        new_region, new_tier = place_of(region, tier)
        new_id = offer_id(provider, key, new_region, pricing, term, new_tier)
        if new_id != stored_id:
            moves[stored_id] = new_id
            named[stored_id] = (instance_type, key)
            if (new_region, new_tier) != (region, tier):
                placed[stored_id] = (new_region, new_tier)
    return moves, named, placed


def _same_place(region: str, cloud_tier: str | None) -> Place:
    return region, cloud_tier


def _conflicts(con: duckdb.DuckDBPyConnection, moves: dict[str, str]) -> set[str]:
    """New ids two of whose ids (old, or itself) one scrape lists: merging would lose a row."""
    found: set[str] = set()
    for table in SCRAPE_KEYED_TABLES:
        rows = con.execute(
            f"""
            select m.offer_id
            from {table} as t
            inner join (select unnest($old) as old_offer_id, unnest($new) as offer_id) as m
                on t.offer_id = m.old_offer_id or t.offer_id = m.offer_id
            group by t.scrape_id, m.offer_id
            having count(distinct t.offer_id) > 1
            """,
            {"old": list(moves), "new": list(moves.values())},
        ).fetchall()
        found.update(r[0] for r in rows)
    return found


def merge_intervals(rows: Sequence[dict[str, Any]], new_id: str) -> list[dict[str, Any]]:
    """One consistent interval list for ``new_id`` from the intervals of its old ids (rows of
    ``offer_history`` as dicts, any columns; ``valid_to`` None = open).

    At each instant the interval in force is the covering one that started last; consecutive
    pieces with equal ``HISTORY_VALUES`` (and unit and basis, where both know them) and no gap
    between them coalesce. Every output row is
    a copy of the row in force at its start, with ``offer_id`` = ``new_id`` and its own
    ``valid_from``/``valid_to``.
    """
    points = sorted(
        {r["valid_from"] for r in rows} | {r["valid_to"] for r in rows if r["valid_to"] is not None}
    )
    # the row already under the new id wins a tie (same start): it is the one kept as it was
    ranked = sorted(rows, key=lambda r: (r["valid_from"], r["offer_id"] == new_id))
    pieces: list[tuple[datetime, datetime | None, dict[str, Any]]] = []
    for i, start in enumerate(points):
        end = points[i + 1] if i + 1 < len(points) else None
        covering = [
            r
            for r in ranked
            if r["valid_from"] <= start and (r["valid_to"] is None or r["valid_to"] > start)
        ]
        if not covering:
            continue  # nothing observed here: a gap, never carried forward
        # every valid_to is a point, so the covering rows all last to the next point at least
        pieces.append((start, end, covering[-1]))
    merged: list[dict[str, Any]] = []
    for start, end, row in pieces:
        seen = _seen_within(row, start, end)
        last = merged[-1] if merged else None
        if (
            last is not None
            and last["valid_to"] == start
            and all(last[c] == row[c] for c in HISTORY_VALUES)
            and all(
                last.get(c) is None or row.get(c) is None or last[c] == row[c] for c in UNIT_VALUES
            )
        ):
            last["valid_to"] = end
            if seen is not None:
                last["last_seen_at"] = max(last["last_seen_at"], seen)
            continue
        piece = {**row, "offer_id": new_id, "valid_from": start, "valid_to": end}
        if seen is not None:
            piece["last_seen_at"] = seen
        merged.append(piece)
    return merged


def _seen_within(row: dict[str, Any], start: datetime, end: datetime | None) -> datetime | None:
    """When the piece [start, end) of ``row``'s interval was last seen: the newest of the row's
    known sightings (its opening ``valid_from``, its ``last_seen_at``) inside the piece, else the
    piece's start (an interval resumed after a newer one ended was not seen in it, but an
    interval counts as observed when it opens). None when the rows carry no ``last_seen_at``
    (a warehouse before migration 0016)."""
    seen = row.get("last_seen_at")
    if seen is None:
        return None
    inside = [t for t in (row["valid_from"], seen) if start <= t and (end is None or t <= end)]
    return max(inside) if inside else start


def _move_places(con: duckdb.DuckDBPyConnection, placed: dict[str, Place]) -> None:
    """Give the rows of each old id in ``placed`` its new place (before the ids move)."""
    if not placed:
        return
    params = {
        "old": list(placed),
        "region": [p[0] for p in placed.values()],
        "tier": [p[1] for p in placed.values()],
    }
    for table, place_columns in PLACE_COLUMNS.items():
        sets = ", ".join(
            f"{c} = m.{'new_region' if c == 'region' else 'new_tier'}" for c in place_columns
        )
        con.execute(
            f"update {table} as t set {sets}"
            " from (select unnest($old) as old_offer_id, unnest($region) as new_region,"
            " unnest($tier)::varchar as new_tier) as m"
            " where t.offer_id = m.old_offer_id",
            params,
        )


def _history_rows(
    con: duckdb.DuckDBPyConnection, ids: list[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    cursor = con.execute(
        "select * from offer_history where source = $source and offer_id in (select unnest($ids))"
        " order by offer_id, valid_from",
        {"source": SCRAPE_SOURCE, "ids": ids},
    )
    names = [d[0] for d in cursor.description or ()]
    return names, [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def merge_offer_identities(
    con: duckdb.DuckDBPyConnection,
    provider: str,
    key_of: Callable[[str], str],
    *,
    place_of: Callable[[str, str | None], Place] = _same_place,
    now: datetime | None = None,
) -> MergeReport:
    """Re-key ``provider``'s stored offers to ``key_of(instance_type)`` at ``place_of(region,
    cloud_tier)`` and merge the series of each new id (module docstring). One transaction;
    returns what moved. ``key_of``: the provider's product key of a stated instance type (the
    identity when it knows no other); ``place_of``: where an offer stored at a place is now
    (``scrapers.base.Provider.place``; default: where it was). A moved row takes its new
    place too, so its region and tier agree with its id."""
    moves, named, placed = _moves(con, provider, key_of, place_of)
    if not moves:
        return MergeReport()
    conflicts = _conflicts(con, moves)
    moves = {old: new for old, new in moves.items() if new not in conflicts}
    if not moves:
        return MergeReport(conflicts=sorted(conflicts))
    by_new: dict[str, list[str]] = defaultdict(list)
    for old, new in moves.items():
        by_new[new].append(old)
    params = {"old": list(moves), "new": list(moves.values())}
    with transaction(con):
        _move_places(con, {old: placed[old] for old in moves if old in placed})
        for table in SCRAPE_KEYED_TABLES:
            con.execute(
                f"update {table} as t set offer_id = m.offer_id"
                " from (select unnest($old) as old_offer_id, unnest($new) as offer_id) as m"
                " where t.offer_id = m.old_offer_id",
                params,
            )
        names, rows = _history_rows(con, [*moves, *by_new])
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            stored: str = row["offer_id"]
            grouped[moves.get(stored, stored)].append(row)
        merged = [m for new, group in grouped.items() for m in merge_intervals(group, new)]
        con.execute(
            "delete from offer_history where source = $source"
            " and offer_id in (select unnest($ids))",
            {"source": SCRAPE_SOURCE, "ids": [*moves, *by_new]},
        )
        if merged:
            placeholders = ", ".join("?" for _ in names)
            con.executemany(
                f"insert into offer_history ({', '.join(names)}) values ({placeholders})",
                [[m[n] for n in names] for m in merged],
            )
            mark_dirty(con, min(r["valid_from"] for r in rows))
        stamp = now or datetime.now(UTC)
        merges = [
            OfferIdMerge(
                old_offer_id=old,
                offer_id=new,
                provider=provider,
                instance_type=named[old][0],
                product_key=named[old][1],
                merged_at=stamp,
            )
            for old, new in moves.items()
        ]
        con.executemany(
            f"insert or replace into {MERGES_TABLE} ({', '.join(columns(OfferIdMerge))})"
            f" values ({', '.join('?' for _ in columns(OfferIdMerge))})",
            [list(values(m)) for m in merges],
        )
    return MergeReport(
        moved=moves,
        intervals_before=len(rows),
        intervals_after=len(merged),
        conflicts=sorted(conflicts),
    )
