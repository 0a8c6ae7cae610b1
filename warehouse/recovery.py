"""Recovering from an ingest process that died mid-run (kill -9, OOM, power loss), and from a
poisoned scrape stored before the bounds that now refuse it existed.

What a crash can leave behind, and why each is harmless until cleaned here:

- DuckDB's write-ahead log: replayed by DuckDB itself when the file is next opened; an
  uncommitted transaction (a half-loaded scrape) is discarded with it.
- A scrape row left ``running`` (the process died between ``start_scrape`` and its commit):
  no derived model reads non-successful scrapes, so it is never served; it is marked failed
  here so that ``provider_status`` and operators see what happened.
- Temporary files of the raw archive (``*.tmp<pid>``): written, then renamed into place, so a
  leftover one is never read; removed here.
- The warehouse file lock: an OS lock (``flock``), released by the kernel when its holder dies.

A poisoned scrape is a successful one that the checks of ``warehouse.quality`` would now refuse
for its size: more offers than ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` (one such scrape drove every
later run's derived models out of memory). It is quarantined: its status becomes ``failed`` with
``QUARANTINED_TOO_MANY_OFFERS`` and an error saying why, its observations, screens and exclusions
are deleted, and the history it wrote is undone (the intervals it opened are deleted, those it
closed are reopened up to the offer's next interval), so the provider's previous good scrape is
current again.

The clock is never grounds for deleting or hiding a stored scrape (issue 27): a scrape dated after
"now" is far more often a clock set back than a forged date (18 months back quarantined 32 of 42
scrapes; 2.4 days back deleted a live scrape for good). Future dates are refused on input
(``warehouse.quality.future_observation``, at the moment the scrape is loaded, by the clock of
that moment); what was stored stays, whatever the clock says later. Retention measures its
windows from the data, never from a clock later than it (``warehouse.retention``,
``warehouse.history.prune_observations``).

Call ``recover`` while holding the warehouse lock (inside ``Warehouse.connect``): every scrape
is loaded inside one locked connection, so under the lock nothing else is mid-flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse.db import transaction
from warehouse.history import SCRAPE_SOURCE, mark_dirty
from warehouse.problems import Problem, ProblemCode
from warehouse.quality import MAX_OFFERS_ENV
from warehouse.retention import archive_files
from warehouse.settings import DEFAULT_MAX_OFFERS_PER_SCRAPE

INTERRUPTED = "interrupted: the ingest process stopped before this scrape was committed"


@dataclass(frozen=True)
class Recovered:
    interrupted_scrapes: int
    temp_files_removed: int
    # scrape id -> why it was quarantined (see the module docstring)
    quarantined_scrapes: dict[str, Problem] = field(default_factory=dict)


def recover(
    con: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    *,
    now: datetime | None = None,
    max_offers: int = DEFAULT_MAX_OFFERS_PER_SCRAPE,
) -> Recovered:
    """Mark scrapes left ``running`` as failed, delete orphaned raw-archive temp files, and
    quarantine stored scrapes that are too large (``quarantine_poisoned``). ``now`` (default the
    wall clock) only dates what is marked; no stored scrape is judged by it."""
    now = now or datetime.now(UTC)
    row = con.execute(
        "update scrapes set status = 'failed', error = ?, finished_at = ?, problem_codes = ?"
        " where status = 'running'",
        [INTERRUPTED, now, [str(ProblemCode.INTERRUPTED)]],
    ).fetchone()
    removed = 0
    for tmp in archive_files(raw_dir, "*.tmp*"):  # never through a link out of the home
        tmp.unlink(missing_ok=True)
        removed += 1
    quarantined = quarantine_poisoned(con, now=now, max_offers=max_offers)
    return Recovered(int(row[0]) if row else 0, removed, quarantined)


def quarantine_poisoned(
    con: duckdb.DuckDBPyConnection,
    *,
    now: datetime | None = None,
    max_offers: int = DEFAULT_MAX_OFFERS_PER_SCRAPE,
) -> dict[str, Problem]:
    """Quarantine every successful scrape with more than ``max_offers`` offers
    (``GPUPRICES_MAX_OFFERS_PER_SCRAPE``). Returns scrape id -> problem. Each scrape is undone
    in its own transaction. Its date is not a reason (see the module docstring)."""
    now = now or datetime.now(UTC)
    limit = max_offers
    poisoned = con.execute(
        "select scrape_id, provider, observed_at, offer_count from scrapes"
        " where status = 'success' and offer_count > ? order by observed_at desc",
        [limit],
    ).fetchall()
    done: dict[str, Problem] = {}
    for scrape_id, provider, observed_at, offer_count in poisoned:
        reason = Problem(
            ProblemCode.QUARANTINED_TOO_MANY_OFFERS,
            f"quarantined: {offer_count} offers in one scrape, more than"
            f" {MAX_OFFERS_ENV}={limit}; its offers and history were removed",
        )
        _undo(con, scrape_id, provider, observed_at, reason, now)
        done[scrape_id] = reason
    return done


def _undo(
    con: duckdb.DuckDBPyConnection,
    scrape_id: str,
    provider: str,
    observed_at: datetime,
    reason: Problem,
    now: datetime,
) -> None:
    with transaction(con):
        con.execute(
            "delete from offer_history where source = ? and scrape_id = ?",
            [SCRAPE_SOURCE, scrape_id],
        )
        # what it closed (offers it changed or did not list) runs on to the offer's next
        # interval, or stays open
        con.execute(
            """
            update offer_history as h
            set valid_to = n.next_from
            from (
                select c.offer_id, c.valid_from,
                       (select min(x.valid_from) from offer_history as x
                        where x.offer_id = c.offer_id and x.source = $source
                          and x.valid_from > c.valid_from) as next_from
                from offer_history as c
                where c.source = $source and c.provider = $provider and c.valid_to = $t
            ) as n
            where h.offer_id = n.offer_id and h.valid_from = n.valid_from
              and h.source = $source
            """,
            {"source": SCRAPE_SOURCE, "provider": provider, "t": observed_at},
        )
        for table in ("observations", "price_screens", "scrape_exclusions"):
            con.execute(f"delete from {table} where scrape_id = ?", [scrape_id])  # fixed names
        con.execute(
            "update scrapes set status = 'failed', error = ?, finished_at = ?, problem_codes = ?"
            " where scrape_id = ?",
            [reason.detail, now, [str(reason.code)], scrape_id],
        )
        mark_dirty(con, min(observed_at, now))
