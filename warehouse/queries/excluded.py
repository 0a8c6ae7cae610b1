"""What an answer left out, and why: the offers that match a query's filters but that its
default rules keep out of the answer.

Four rules leave a matching offer out, and each offer left out is counted once, under the
first rule that applies, in this order:

1. ``expired``: its price is past the shelf life of its kind of price
   (``current_offers.expired``, ``warehouse.shelf_life``), unless ``include_expired``;
   counted per ``price_kind``;
2. ``max_age_days``: its price is older than the ``max_age_days`` the query gave;
3. ``suspect``: the plausibility screen marks its price suspect, unless ``include_suspect``;
4. ``unavailable``: the source says it cannot be bought now (``current_offers.available``
   false: no location, sold out, flagged not offered, past its end of service), unless
   ``include_unavailable``.

So the offers matching the query's other filters = the answer's ``total`` (before grouping) +
``count``. :func:`exclusions_sql` counts by SQL over any connection holding
``current_offers``; ``OfferTable.exclusions`` counts the same in memory
(``tests/warehouse/test_queries.py`` compares them). Every answer that lists or ranks offers
(GET /instances, /estimates, /fit, /breakeven, ``gpuprices query``, the exports) reports these
counts: the API as ``excluded`` (:meth:`Exclusions.as_dict`; CSV answers as ``X-Excluded-*``
headers), the CLI as text (:meth:`Exclusions.lines`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb

from warehouse.queries.filters import OfferFilter
from warehouse.queries.surface import FILTERS, FilterSpec

# Exclusions' counters, in the order an offer left out is counted (under the first that
# applies); each is what one filter of FILTERS leaves out (its `counts`).
COUNTED = ("expired", "too_old", "suspect", "unavailable")
RULES: tuple[FilterSpec, ...] = tuple(
    sorted((s for s in FILTERS.values() if s.counts), key=lambda s: COUNTED.index(s.counts or ""))
)
_BY_COUNTER = {s.counts: s for s in RULES}

# The age and shelf life of one offer's price, as every item of an answer that lists or ranks
# offers carries it (current_offers columns; warehouse/models/current_offers.sql): the age is
# what max_age_days compares, the shelf life what decides expired.
PRICE_TIME_COLUMNS: tuple[str, ...] = (
    "age_days", "price_kind", "shelf_life_days", "expires_at", "expired"
)  # fmt: skip
SHELF_LIVES_SQL = "select price_kind, shelf_life_days from shelf_lives order by price_kind"


@dataclass(frozen=True)
class Exclusions:
    """Offers a query's rules left out (see the module doc): expired ones per kind of price,
    those older than the query's age bound ``age_bound_days`` (``too_old`` None when it gave
    none), suspect ones and unavailable ones, with the shelf life in days of each kind the
    snapshot was built with."""

    expired_by_kind: dict[str, int] = field(default_factory=dict)
    too_old: int | None = None
    age_bound_days: float | None = None
    suspect: int = 0
    shelf_life_days: dict[str, float] = field(default_factory=dict)
    unavailable: int = 0

    @property
    def expired(self) -> int:
        return sum(self.expired_by_kind.values())

    @property
    def count(self) -> int:
        return self.expired + (self.too_old or 0) + self.suspect + self.unavailable

    def as_dict(self) -> dict[str, Any]:
        """The ``excluded`` object of an API answer (``api.schemas.Excluded``); the too-old
        count is under the name of the filter that bounds the age, with its value."""
        bound = _BY_COUNTER["too_old"].name
        return {
            "count": self.count,
            "expired": {
                "count": self.expired,
                "by_kind": dict(sorted(self.expired_by_kind.items())),
                "shelf_life_days": dict(sorted(self.shelf_life_days.items())),
            },
            bound: None
            if self.age_bound_days is None
            else {"count": self.too_old or 0, bound: self.age_bound_days},
            "suspect": {"count": self.suspect},
            "unavailable": {"count": self.unavailable},
        }

    def lines(self) -> list[str]:
        """One line per rule that left offers out, for a terminal (empty when none did)."""
        out = []
        if self.expired:
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.expired_by_kind.items()))
            lives = ", ".join(
                f"{k} {days:g} d"
                for k, days in sorted(self.shelf_life_days.items())
                if k in self.expired_by_kind
            )
            out.append(
                f"left out {self.expired} expired offer{_s(self.expired)} ({kinds}): price "
                f"older than its shelf life ({lives}); --include-expired lists them"
            )
        if self.too_old:
            out.append(
                f"left out {self.too_old} offer{_s(self.too_old)} whose price is older than "
                f"{self.age_bound_days:g} days (max age)"
            )
        if self.suspect:
            out.append(
                f"left out {self.suspect} suspect offer{_s(self.suspect)} (plausibility "
                "screen); --include-suspect lists them"
            )
        if self.unavailable:
            out.append(
                f"left out {self.unavailable} unavailable offer{_s(self.unavailable)} (the "
                "source says not on sale now); --include-unavailable lists them"
            )
        return out


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def unruled(f: OfferFilter) -> OfferFilter:
    """``f`` without the rules :class:`Exclusions` counts (its other filters only)."""
    return replace(f, **{s.name: s.lifted for s in RULES})


def _applies(f: OfferFilter, spec: FilterSpec) -> bool:
    """Whether rule ``spec`` leaves offers out of ``f``'s answer (a rule not lifted, a bound
    given)."""
    value = getattr(f, spec.name)
    return not value if spec.kind == "rule" else value is not None


def tally(
    f: OfferFilter,
    groups: Iterable[tuple[str, Sequence[bool], int]],
    shelf_life_days: Mapping[str, float],
) -> Exclusions:
    """:class:`Exclusions` of ``f`` from the offers matching ``unruled(f)``, counted by
    (price_kind, for each of RULES whether the offer fails it): ``(kind, fails, n)``."""
    counted: dict[str, int] = dict.fromkeys(COUNTED, 0)
    by_kind: dict[str, int] = {}
    applies = [_applies(f, spec) for spec in RULES]
    for kind, fails, n in groups:
        for spec, failed, applied in zip(RULES, fails, applies, strict=True):
            if failed and applied:
                counted[spec.counts or ""] += n
                if spec.counts == "expired":
                    by_kind[kind] = by_kind.get(kind, 0) + n
                break
    bound = getattr(f, _BY_COUNTER["too_old"].name)
    return Exclusions(
        expired_by_kind=by_kind,
        too_old=None if bound is None else counted["too_old"],
        age_bound_days=bound,
        suspect=counted["suspect"],
        shelf_life_days=dict(shelf_life_days),
        unavailable=counted["unavailable"],
    )


def shelf_lives(con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    """{price_kind: shelf life in days} of the snapshot (its ``shelf_lives`` table)."""
    return {kind: float(days) for kind, days in con.execute(SHELF_LIVES_SQL).fetchall()}


def exclusions_sql(
    con: duckdb.DuckDBPyConnection,
    f: OfferFilter,
    shelf_life_days: Mapping[str, float] | None = None,
) -> Exclusions:
    """:class:`Exclusions` of ``f`` by SQL over ``con``'s current_offers (``shelf_life_days``:
    the snapshot's shelf lives when already read, else read from ``con``)."""
    where = unruled(f).where()
    # whether an offer fails each rule, as OfferFilter.where decides (null: not met)
    fails, params = [], []
    for spec in RULES:
        if spec.kind == "rule":
            fails.append(f"not coalesce({spec.column}, false)")
        elif (bound := getattr(f, spec.name)) is not None:
            fails.append(f"not coalesce({spec.column} {spec.comparison} ?, false)")
            params.append(bound)
        else:
            fails.append("false")
    found = con.execute(
        f"select price_kind, [{', '.join(fails)}], count(*)"
        f" from current_offers {where.sql()} group by all",
        [*params, *where.params],
    ).fetchall()
    lives = shelf_lives(con) if shelf_life_days is None else shelf_life_days
    return tally(f, found, lives)
