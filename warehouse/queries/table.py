"""``current_offers`` of one snapshot as immutable numpy columns, answering an OfferQuery with a
few vectorised operations: no SQL planning, no Python loop over rows.

Built once per snapshot (:meth:`OfferTable.load`): rows in offer-id order; each filter column
as an array (numbers as float64 with NaN for null: a comparison with NaN is false, as SQL's
with null; categories as integer codes, -1 for null); every sort order and its ranks, and the
cheapest_per_gpu groups, precomputed. A query ANDs boolean masks, then reads its page off the
precomputed order. :meth:`OfferTable.page` answers exactly as the SQL of
``warehouse.queries.sql`` does (same rows, order, total, group counts;
``tests/warehouse/test_queries.py`` compares them on hundreds of random queries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np

from warehouse.queries.excluded import RULES, Exclusions, shelf_lives, tally, unruled
from warehouse.queries.filters import OfferFilter, OfferQuery, gpu_prefix_pattern
from warehouse.queries.sql import (
    CHEAPEST_GROUP,
    CHEAPEST_SORT,
    INSTANCE_COLUMNS,
    fetch_all,
    rows,
)
from warehouse.queries.surface import FILTERS, FilterSpec
from warehouse.vocabulary import INSTANCE_SORT_KEYS, SORTS

# The columns filters and sorts read, one per filter (named after it; a rule: whether the offer
# meets it, as SQL decides), its GPU family column, one per sort, and the cheapest_per_gpu group.
_FAMILY, _SORT = "family__", "sort__"
_GROUP = ("group__0", "group__1", "group__2")


def _filter_column(spec: FilterSpec) -> str:
    if spec.kind == "rule":  # null: not met, as in a where clause
        return f"coalesce({spec.column}, false) as {spec.name}"
    return f"{spec.column} as {spec.name}"


_FILTER_SQL = (
    "select offer_id, price_kind, "
    + ", ".join(
        [_filter_column(spec) for spec in FILTERS.values()]
        + [f"{s.family_column} as {_FAMILY}{s.name}" for s in FILTERS.values() if s.family_column]
        + [f"{s.column} as {_SORT}{s.key}" for s in SORTS.values()]
        + [f"{part} as {name}" for part, name in zip(CHEAPEST_GROUP, _GROUP, strict=True)]
    )
    + " from current_offers order by offer_id"
)


def _bits(code: int, n: int) -> list[bool]:
    return [bool(code >> bit & 1) for bit in range(n)]


def _compare(values: np.ndarray, comparison: str, bound: float) -> np.ndarray:
    """``values >= bound`` or ``values <= bound``; NaN (null) never passes, as SQL's null."""
    return values >= bound if comparison == ">=" else values <= bound


@dataclass(frozen=True)
class Page:
    """Rows of an OfferTable answering one query: their indices in page order, the
    offers_in_group of each (None unless cheapest_per_gpu) and the total that matched."""

    rows: list[int]
    groups: list[int | None]
    total: int


def _floats(values: Sequence[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _flags(values: Sequence[bool | None]) -> np.ndarray:
    return np.array([-1 if v is None else int(v) for v in values], dtype=np.int8)


class _Codes:
    """A category column as integer codes (null: -1) and each value's code."""

    def __init__(self, values: Sequence[Any]) -> None:
        self.code: dict[Any, int] = {}
        for v in values:
            if v is not None and v not in self.code:
                self.code[v] = len(self.code)
        self.codes = np.array([-1 if v is None else self.code[v] for v in values], dtype=np.intp)

    def any_of(self, values: Sequence[Any]) -> np.ndarray:
        wanted = [self.code[v] for v in values if v in self.code]
        if len(wanted) > 8:
            return np.isin(self.codes, np.array(wanted, dtype=np.intp))
        found = np.zeros(len(self.codes), dtype=bool)
        for code in wanted:  # a few comparisons beat isin's sorting
            found |= self.codes == code
        return found


def _order(values: np.ndarray, descending: bool) -> np.ndarray:
    """Row indices by value (nulls last either way), ties by row = by offer id (stable)."""
    return np.argsort(-values if descending else values, kind="stable")


class OfferTable:
    """``current_offers`` of one snapshot in memory, for answering OfferQuery without SQL.

    ``items[i]`` is row i as :func:`warehouse.queries.sql.instances_sql` selects it
    (``offers_in_group`` None). Immutable once built; safe to share between threads."""

    def __init__(
        self,
        items: list[dict[str, Any]],
        columns: dict[str, list[Any]],
        shelf_life_days: dict[str, float] | None = None,
    ) -> None:
        self.items = items
        self.shelf_life_days = dict(shelf_life_days or {})
        n = self.size = len(items)
        if columns["offer_id"] != [i["id"] for i in items]:
            raise ValueError("filter columns and items are not the same rows")
        self.kinds = _Codes(columns["price_kind"])
        self.keep: dict[str, np.ndarray] = {}  # rules: the offer meets it
        self.flags: dict[str, np.ndarray] = {}
        self.categories: dict[str, _Codes] = {}
        self.ranges: dict[str, np.ndarray] = {}
        for spec in FILTERS.values():
            values = columns[spec.name]
            if spec.kind == "rule":
                self.keep[spec.name] = np.array(values, dtype=bool)
            elif spec.kind == "flag":
                self.flags[spec.name] = _flags(values)
            elif spec.kind == "list":
                self.categories[spec.name] = _Codes(values)
                if spec.family_column:
                    self.categories[_FAMILY + spec.name] = _Codes(columns[_FAMILY + spec.name])
            else:
                self.ranges[spec.name] = _floats(values)
        self.orders: dict[str, np.ndarray] = {}
        self.ranks: dict[str, np.ndarray] = {}
        for key in INSTANCE_SORT_KEYS:
            order = _order(_floats(columns[_SORT + key.removeprefix("-")]), key.startswith("-"))
            rank = np.empty(n, dtype=np.intp)  # intp everywhere: indexing converts nothing
            rank[order] = np.arange(n, dtype=np.intp)
            self.orders[key], self.ranks[key] = order, rank
        # cheapest_per_gpu: the group of each row (sql.CHEAPEST_GROUP); the group's offer is
        # its first by (USD per GPU-hour asc nulls last, offer id)
        groups = _Codes(list(zip(*(columns[name] for name in _GROUP), strict=True)))
        self.group = groups.codes
        self.group_count = len(groups.code)
        self.by_gpu_price = self.orders[CHEAPEST_SORT]
        self.gpu_price_rank = self.ranks[CHEAPEST_SORT]
        self._gpu_masks: dict[str, np.ndarray] = {}

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> OfferTable:
        """Every row of ``con``'s current_offers (ordered by id, for a stable row number)."""
        items = rows(
            con,
            f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
            " order by offer_id",
            [],
        )
        result = con.execute(_FILTER_SQL)
        names = [d[0] for d in result.description or []]
        data = fetch_all(result)
        columns = {name: [r[k] for r in data] for k, name in enumerate(names)}
        return cls(items, columns, shelf_lives(con))

    def __len__(self) -> int:
        return self.size

    def _gpu_mask(self, spec: FilterSpec, term: str) -> np.ndarray:
        """Rows whose GPU is ``term`` or, for a family term, whose GPU or family-level row's
        family is ``term`` or starts with ``term-`` (``filters.gpu_clause``)."""
        found = self._gpu_masks.get(term)
        if found is None:
            prefix = term + "-" if gpu_prefix_pattern(term) is not None else None
            found = np.zeros(self.size, dtype=bool)
            names = (spec.name, _FAMILY + spec.name) if prefix and spec.family_column else ()
            for column in names or (spec.name,):
                codes = self.categories[column]
                found |= codes.any_of(
                    [v for v in codes.code if v == term or (prefix and v.startswith(prefix))]
                )
            if len(self._gpu_masks) < 4096:  # terms come from requests: bounded
                self._gpu_masks[term] = found
        return found

    def mask(self, f: OfferFilter) -> np.ndarray:
        """The rows matching ``f``: the rule of :meth:`OfferFilter.where`, filter by filter."""
        m = np.ones(self.size, dtype=bool)
        for spec in FILTERS.values():
            value = getattr(f, spec.name)
            if spec.kind == "rule":
                if not value:
                    m &= self.keep[spec.name]
            elif value is None or value == ():
                continue
            elif spec.kind == "number":
                m &= _compare(self.ranges[spec.name], spec.comparison, float(value))
            elif spec.kind == "flag":
                m &= self.flags[spec.name] == int(value)
            elif spec.comparison == "family":
                found = self._gpu_mask(spec, value[0])
                for term in value[1:]:
                    found = found | self._gpu_mask(spec, term)
                m &= found
            else:
                m &= self.categories[spec.name].any_of(value)
        return m

    def _fails(self, f: OfferFilter, spec: FilterSpec) -> np.ndarray:
        """The rows ``spec`` (a rule Exclusions counts) leaves out when it applies."""
        if spec.kind == "rule":
            return ~self.keep[spec.name]
        bound = getattr(f, spec.name)
        if bound is None:
            return np.zeros(self.size, dtype=bool)
        return ~_compare(self.ranges[spec.name], spec.comparison, float(bound))

    def exclusions(self, f: OfferFilter) -> Exclusions:
        """What ``f``'s rules leave out of its matches: ``warehouse.queries.exclusions_sql``.
        One bincount over the matching rows of (kind, which of the rules each fails) as one
        code."""
        base = self.mask(unruled(f))
        width = 1 << len(RULES)
        code = self.kinds.codes * width
        for bit, spec in enumerate(RULES):
            code = code + (self._fails(f, spec).astype(np.intp) << bit)
        counts = np.bincount(code[base & (code >= 0)], minlength=width * len(self.kinds.code))
        groups = [
            (
                kind,
                [bool(bits >> bit & 1) for bit in range(len(RULES))],
                int(counts[k * width + bits]),
            )
            for kind, k in self.kinds.code.items()
            for bits in range(width)
            if counts[k * width + bits]
        ]
        return tally(f, groups, self.shelf_life_days)

    def page(self, query: OfferQuery) -> Page:
        m = self.mask(query.filter)
        end = query.offset + query.limit
        if not query.cheapest_per_gpu:
            order = self.orders[query.sort]
            found = order[m[order]]
            page = found[query.offset : end].tolist()
            return Page(page, [None] * len(page), len(found))
        # each group's offer: its matching row of lowest rank by USD per GPU-hour
        groups, price_rank = self.group[m], self.gpu_price_rank[m]
        lowest = np.full(self.group_count, self.size, dtype=np.intp)  # every group has a key
        np.minimum.at(lowest, groups, price_rank)
        best = self.by_gpu_price[lowest[lowest < self.size]]
        ranked = best[np.argsort(self.ranks[query.sort][best], kind="stable")]
        chosen = ranked[query.offset : end]
        counts = np.bincount(groups, minlength=self.group_count)
        return Page(chosen.tolist(), counts[self.group[chosen]].tolist(), len(ranked))

    def query(self, query: OfferQuery) -> tuple[list[dict[str, Any]], int]:
        """(page of items, total) of ``query``: the same as ``query_offers_sql``."""
        found = self.page(query)
        items = [
            self.items[i] if group is None else {**self.items[i], "offers_in_group": group}
            for i, group in zip(found.rows, found.groups, strict=True)
        ]
        return items, found.total
