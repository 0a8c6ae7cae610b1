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

from warehouse.queries.excluded import Exclusions, shelf_lives, tally, unruled
from warehouse.queries.filters import (
    INSTANCE_SORT_KEYS,
    INSTANCE_SORTS,
    OfferFilter,
    OfferQuery,
    gpu_prefix_pattern,
)
from warehouse.queries.sql import INSTANCE_COLUMNS, rows

# The columns filters and sorts read, by their warehouse names (not the items' field names).
_FILTER_SQL = """
    select offer_id, price_status, expired, available, price_kind, fp8, bf16, serverless, gpu_id,
        gpu_family, provider, pricing,
        lower(region) as region, lower(country) as country, continent, gpu_name_provider,
        age_days, vram_gb_usable, vram_gb_total,
        price_per_hour_usd, price_per_gpu_hour_usd, price_per_vram_gb_hour_usd, gpu_count,
        vcpus, ram_gb
    from current_offers order by offer_id
"""
_RANGES = (
    "age_days",
    "vram_gb_usable",
    "vram_gb_total",
    "price_per_hour_usd",
    "price_per_gpu_hour_usd",
    "gpu_count",
    "vcpus",
    "ram_gb",
)


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
        self.ok = np.array([s != "suspect" for s in columns["price_status"]], dtype=bool)
        self.in_force = np.array([not e for e in columns["expired"]], dtype=bool)
        # on sale or unknown (available true or null); false: the source says not on sale
        self.on_sale = np.array([a is not False for a in columns["available"]], dtype=bool)
        self.kinds = _Codes(columns["price_kind"])
        self.flags = {name: _flags(columns[name]) for name in ("fp8", "bf16", "serverless")}
        self.categories = {
            name: _Codes(columns[name])
            for name in (
                "gpu_id",
                "gpu_family",
                "provider",
                "pricing",
                "region",
                "country",
                "continent",
            )
        }
        self.ranges = {name: _floats(columns[name]) for name in _RANGES}
        self.orders: dict[str, np.ndarray] = {}
        self.ranks: dict[str, np.ndarray] = {}
        for key in INSTANCE_SORT_KEYS:
            column = INSTANCE_SORTS[key.removeprefix("-")]
            order = _order(_floats(columns[column]), key.startswith("-"))
            rank = np.empty(n, dtype=np.intp)  # intp everywhere: indexing converts nothing
            rank[order] = np.arange(n, dtype=np.intp)
            self.orders[key], self.ranks[key] = order, rank
        # cheapest_per_gpu: (provider, GPU id or the provider's spelling, pricing) per row;
        # the group's offer is its first by (USD per GPU-hour asc nulls last, offer id)
        groups = _Codes(
            [
                (
                    p,
                    g if g is not None else (None if name is None else "name:" + name),
                    m,
                )
                for p, g, name, m in zip(
                    columns["provider"],
                    columns["gpu_id"],
                    columns["gpu_name_provider"],
                    columns["pricing"],
                    strict=True,
                )
            ]
        )
        self.group = groups.codes
        self.group_count = len(groups.code)
        self.by_gpu_price = self.orders["price_per_gpu"]
        self.gpu_price_rank = self.ranks["price_per_gpu"]
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
        data = result.fetchall()
        columns = {name: [r[k] for r in data] for k, name in enumerate(names)}
        return cls(items, columns, shelf_lives(con))

    def __len__(self) -> int:
        return self.size

    def _gpu_mask(self, term: str) -> np.ndarray:
        """Rows whose GPU is ``term`` or, for a family term, whose GPU or family-level row's
        ``gpu_family`` is ``term`` or starts with ``term-`` (``filters.gpu_clause``)."""
        found = self._gpu_masks.get(term)
        if found is None:
            prefix = term + "-" if gpu_prefix_pattern(term) is not None else None
            found = np.zeros(self.size, dtype=bool)
            for column in ("gpu_id", "gpu_family") if prefix else ("gpu_id",):
                codes = self.categories[column]
                found |= codes.any_of(
                    [v for v in codes.code if v == term or (prefix and v.startswith(prefix))]
                )
            if len(self._gpu_masks) < 4096:  # terms come from requests: bounded
                self._gpu_masks[term] = found
        return found

    def mask(self, f: OfferFilter) -> np.ndarray:
        """The rows matching ``f``: the rule of :meth:`OfferFilter.where`."""
        m = np.ones(self.size, dtype=bool) if f.include_suspect else self.ok.copy()
        if not f.include_expired:
            m &= self.in_force
        if not f.include_unavailable:
            m &= self.on_sale
        for column, bound, minimum in (
            ("age_days", f.max_age_days, False),
            ("vram_gb_usable", f.min_vram, True),
            ("vram_gb_total", f.min_total_vram, True),
            ("price_per_hour_usd", f.max_price, False),
            ("price_per_gpu_hour_usd", f.max_price_per_gpu, False),
            ("gpu_count", f.min_gpus, True),
            ("vcpus", f.min_vcpus, True),  # NaN (not stated) never passes, as SQL's null
            ("ram_gb", f.min_ram_gb, True),
        ):
            if bound is not None:
                values = self.ranges[column]
                m &= values >= float(bound) if minimum else values <= float(bound)
        for column, flag in (("fp8", f.fp8), ("bf16", f.bf16), ("serverless", f.serverless)):
            if flag is not None:
                m &= self.flags[column] == int(flag)
        if f.gpu:
            any_gpu = self._gpu_mask(f.gpu[0])
            for term in f.gpu[1:]:
                any_gpu = any_gpu | self._gpu_mask(term)
            m &= any_gpu
        for column, values in (
            ("provider", f.provider),
            ("pricing", f.pricing),
            ("region", f.region),
            ("country", f.country),
            ("continent", f.continent),
        ):
            if values:
                m &= self.categories[column].any_of(values)
        return m

    def exclusions(self, f: OfferFilter) -> Exclusions:
        """What ``f``'s rules leave out of its matches: ``warehouse.queries.exclusions_sql``.
        One bincount over the matching rows of (kind, not on sale, expired, too old, ok) as one
        code."""
        base = self.mask(unruled(f))
        old = np.zeros(self.size, dtype=np.intp)
        if f.max_age_days is not None:
            old = (~(self.ranges["age_days"] <= float(f.max_age_days))).astype(np.intp)
        expired = (~self.in_force).astype(np.intp)
        off_sale = (~self.on_sale).astype(np.intp)
        code = (
            self.kinds.codes * 16 + off_sale * 8 + expired * 4 + old * 2 + self.ok.astype(np.intp)
        )
        counts = np.bincount(code[base & (code >= 0)], minlength=16 * len(self.kinds.code))
        groups = [
            (
                kind,
                bool(bits & 4),
                bool(bits & 2),
                bool(bits & 1),
                bool(bits & 8),
                int(counts[k * 16 + bits]),
            )
            for kind, k in self.kinds.code.items()
            for bits in range(16)
            if counts[k * 16 + bits]
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
