"""The read side of current offers: the one definition of every offer filter, and the queries.

``OfferFilter`` is every filter of ``GET /instances`` (and ``gpuprices query``, and the
economics endpoints' offer filters): its name, unit, bounds and normalisation
(:data:`FILTER_FIELDS`, :meth:`OfferFilter.build`), its SQL over ``current_offers`` with bound
parameters only (:meth:`OfferFilter.where`) and the same rule over rows in memory
(:meth:`OfferFilter.matches`). ``OfferQuery`` adds sort, page and ``cheapest_per_gpu``.

Two ways to answer an ``OfferQuery``, one answer (``tests/warehouse/test_queries.py`` pins it):

- SQL (:func:`instances_sql`, :func:`cheapest_per_gpu_sql`) over any connection holding
  ``current_offers`` (a snapshot file, the warehouse);
- :class:`OfferTable`: ``current_offers`` read once per snapshot into columns with every sort
  order precomputed, so a query is a scan of Python lists (no SQL planning per request).

Derived prices (USD per GPU-hour, per GB-of-VRAM-hour) are columns of
``warehouse/models/current_offers.sql``; everything here selects them.
Imports nothing from ``api`` (the CLI and the API both use this module).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from typing import Any

import duckdb

from warehouse.gpus import alias_table, load_gpus, resolve, strip_vendor_words

MAX_LIST_VALUES = 50
MAX_LIMIT = 1000
PRICING_MODELS = ("on_demand", "spot", "reserved", "dynamic")


class FilterError(ValueError):
    """A filter value that cannot be used (the API answers 400 with the message)."""


# --- the filters: names, units, bounds --------------------------------------------------------


@dataclass(frozen=True)
class FilterField:
    """One offer filter as clients see it: query name, meaning with its unit, bounds."""

    name: str
    description: str
    ge: float | None = None
    le: float | None = None


GPU_DOC = (
    "Canonical GPU id or family, e.g. h100-sxm, h100 or a100-80gb, in any case and punctuation, "
    "or another spelling of it (RTX4090, A100-80GB, H100-SXM, NVIDIA L40S); an id matches that "
    "GPU only, a family every GPU whose id starts with it. Repeatable or comma-separated"
)
PROVIDER_DOC = "Provider slug, any case (repeatable or comma-separated: lambda,runpod)"

FILTER_FIELDS: dict[str, FilterField] = {
    f.name: f
    for f in (
        FilterField(
            "min_vram",
            "Minimum GB of usable VRAM per GPU (vram_gb_usable: a share of a GPU counts with "
            "the memory it gets)",
            ge=0,
            le=10_000,
        ),
        FilterField(
            "min_total_vram", "Minimum GB of usable VRAM per instance (all GPUs)", 0, 100_000
        ),
        FilterField("fp8", "Only GPUs with (true) / without (false) native FP8"),
        FilterField("bf16", "Only GPUs with (true) / without (false) native BF16"),
        FilterField("gpu", GPU_DOC),
        FilterField("provider", PROVIDER_DOC),
        FilterField("pricing", "Pricing model (repeatable)"),
        FilterField("serverless", "Only serverless tiers (true) or only instances (false)"),
        FilterField("max_price", "Maximum USD per instance-hour", ge=0),
        FilterField("max_price_per_gpu", "Maximum USD per GPU-hour", ge=0),
        FilterField("min_gpus", "Minimum GPUs per instance", ge=0, le=10_000),
        FilterField("region", "Region code, any case (repeatable or comma-separated)"),
        FilterField(
            "max_age_days",
            "Only prices observed at most this many days before the snapshot",
            ge=0,
            le=100_000,
        ),
        FilterField(
            "include_suspect",
            "Also list prices the plausibility screen marks suspect (price_status, "
            "price_status_reasons); left out by default",
        ),
    )
}

# sort parameter -> column (allow-list; never interpolate user text into SQL). Each key sorts
# ascending; "-<key>" sorts the same column descending. Ties: offer id, ascending.
INSTANCE_SORTS: dict[str, str] = {
    "price": "price_per_hour_usd",
    "price_per_gpu": "price_per_gpu_hour_usd",
    "price_per_vram_gb": "price_per_vram_gb_hour_usd",
    "vram": "vram_gb_usable",
}
INSTANCE_SORT_KEYS: tuple[str, ...] = tuple(
    key for name in INSTANCE_SORTS for key in (name, f"-{name}")
)

# The items' columns: the API's InstanceItem fields (api/schemas/instances.py; bodies follow the
# schema's order), all selected from current_offers. offers_in_group is last (the
# cheapest_per_gpu count; null otherwise).
INSTANCE_COLUMNS = """
    offer_id as id, provider, instance_type, region, gpu_id, gpu_name,
    gpu_name_provider, gpu_vendor, gpu_candidates, gpu_count, gpu_fraction,
    vram_gb_per_gpu,
    vram_gb_usable, vram_gb_total, vram_gb_reported, vram_report_mismatch,
    memory_type, memory_bandwidth_gbps, fp8, bf16, interconnect, vcpus, ram_gb, storage_gb,
    pricing, reserved_term_months, price, currency, price_unit, price_per, price_per_hour,
    usd_per_unit, fx_rate_date, price_per_hour_usd, price_per_gpu_hour_usd,
    price_per_vram_gb_hour_usd, price_status,
    from_json(price_status_reasons, '[{"code": "VARCHAR", "detail": "VARCHAR"}]')
        as price_status_reasons,
    serverless, observed_at, observed_precision, age_days, stale, data_origin, source_url,
    price_source, billing_granularity, billing_granularity_s, minimum_charge_s,
    egress_usd_per_gb, block_storage_usd_per_gb_month, spot_available
"""


# --- value normalisation ----------------------------------------------------------------------


def split_values(
    values: Iterable[str] | None, name: str, *, lower: bool = False
) -> tuple[str, ...] | None:
    """Repeated and comma-separated values of one list filter, stripped, deduplicated and
    sorted; ``None`` when none is given. ``lower`` folds case.

    Raises ``FilterError`` for more than ``MAX_LIST_VALUES`` values."""
    if not values:
        return None
    found = {
        part.strip().lower() if lower else part.strip() for v in values for part in v.split(",")
    }
    found.discard("")
    if len(found) > MAX_LIST_VALUES:
        raise FilterError(f"{name}: at most {MAX_LIST_VALUES} values, got {len(found)}")
    return tuple(sorted(found)) or None


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def hyphenated(value: str) -> str:
    """``"H100 SXM"`` / ``"h100_sxm"`` / ``"H100--SXM"`` -> ``"h100-sxm"``."""
    return "-".join(_NON_ALNUM.sub(" ", value.lower()).split())


def _unambiguous(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """{key: value} without the keys that pair with two different values."""
    found: dict[str, str | None] = {}
    for key, value in pairs:
        found[key] = value if found.get(key, value) == value else None
    return {k: v for k, v in found.items() if v is not None}


@cache
def _gpu_vocabulary() -> tuple[frozenset[str], frozenset[str], dict[str, str], dict[str, str]]:
    """(canonical ids, family terms, {compact term: term}, {compact alias: gpu_id}).

    A family term is a run of an id's leading segments (``a100``, ``a100-80gb`` of
    ``a100-80gb-sxm``): the filter matches the id itself and every id starting with it plus '-'.
    Compact = without separators, the way gpuhunt and SkyPilot write names (``rtx4090``)."""
    ids = frozenset(load_gpus())
    terms = frozenset(
        "-".join(parts[:n])
        for gpu_id in ids
        for parts in [gpu_id.split("-")]
        for n in range(1, len(parts) + 1)
    )
    compact_terms = _unambiguous((t.replace("-", ""), t) for t in terms)
    compact_aliases = _unambiguous(
        (spelling.replace(" ", ""), gpu_id)
        for key, gpu_id in alias_table().items()
        for spelling in {key, strip_vendor_words(key)}
    )
    return ids, terms, compact_terms, compact_aliases


@cache
def gpu_filter(value: str) -> str:
    """A GPU value as a filter term: a canonical id (``rtx-4090``) or a family (``h100``,
    ``a100-80gb``), matched as that id or any id starting with it plus '-'.

    Tried in order: the value as an id, then as a family, in any case and punctuation
    (``H100_SXM`` -> ``h100-sxm``, ``A100-80GB`` -> ``a100-80gb``); any spelling of the alias
    table (``NVIDIA GeForce RTX 4090``, ``H200-SXM``); an id or family written without
    separators (``RTX4090``, ``RTX6000Ada``, ``H100NVL``); an alias written without separators
    (``RTXPRO6000S``, ``GTX1660S``). A value that is none of these is returned hyphenated and
    matches no offer. Never raises."""
    ids, terms, compact_terms, compact_aliases = _gpu_vocabulary()
    term = hyphenated(value)
    if term in ids or term in terms:
        return term
    if (gpu_id := resolve(value)) is not None:
        return gpu_id
    compact = term.replace("-", "")
    for table in (compact_terms, compact_aliases):
        if compact in table:
            return table[compact]
    return term


def gpu_terms(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """GPU values (comma lists and repeats) as sorted filter terms (:func:`gpu_filter`)."""
    found = split_values(values, "gpu")
    return tuple(sorted({gpu_filter(v) for v in found})) if found else None


def gpu_prefix_pattern(term: str) -> str | None:
    """The LIKE pattern of a family term's members (``h100`` -> ``h100-%``), or None for a
    canonical id, which matches itself only (``rtx-3090`` is not ``rtx-3090-ti``)."""
    if term in load_gpus():
        return None
    return term.replace("_", "\\_").replace("%", "\\%") + "-%"


# --- bound where clauses ----------------------------------------------------------------------


@dataclass
class Where:
    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def sql(self) -> str:
        return ("where " + " and ".join(self.clauses)) if self.clauses else ""


def gpu_clause(w: Where, column: str, terms: Sequence[str]) -> None:
    """``column`` matches one of the GPU ``terms`` (an id itself; a family also its members)."""
    ors = []
    for term in terms:
        pattern = gpu_prefix_pattern(term)
        if pattern is None:
            ors.append(f"{column} = ?")
            w.params.append(term)
        else:
            ors.append(f"({column} = ? or {column} like ? escape '\\')")
            w.params.extend([term, pattern])
    w.clauses.append("(" + " or ".join(ors) + ")")


def _in(column: str, values: Sequence[Any]) -> str:
    return f"{column} in ({', '.join('?' for _ in values)})"


# --- the filter object ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OfferFilter:
    """Every offer filter, normalised (see :data:`FILTER_FIELDS` for names and units).

    Memory filters use the memory the user gets (``vram_gb_usable``: a 1/8 share of a 96 GB
    GPU is 12 GB). Suspect prices (``warehouse.plausibility``) are left out unless
    ``include_suspect``; ``max_age_days`` bounds the price's own age. List filters hold sorted,
    deduplicated values: provider and region lowercase, GPU values as filter terms. Build one
    with :meth:`build` (which normalises); equal filters are equal objects (a cache key)."""

    min_vram: float | None = None  # GB per GPU, usable
    min_total_vram: float | None = None  # GB per instance, usable
    fp8: bool | None = None
    bf16: bool | None = None
    gpu: tuple[str, ...] | None = None  # filter terms (gpu_filter)
    provider: tuple[str, ...] | None = None  # slugs, lowercase
    pricing: tuple[str, ...] | None = None
    serverless: bool | None = None
    max_price: float | None = None  # USD per instance-hour
    max_price_per_gpu: float | None = None  # USD per GPU-hour
    min_gpus: float | None = None
    region: tuple[str, ...] | None = None  # lowercase
    max_age_days: float | None = None  # days before the snapshot
    include_suspect: bool = False

    @classmethod
    def build(
        cls,
        *,
        gpu: Iterable[str] | None = None,
        provider: Iterable[str] | None = None,
        pricing: Iterable[str] | None = None,
        region: Iterable[str] | None = None,
        include_suspect: bool | None = False,
        **scalars: Any,
    ) -> OfferFilter:
        """A filter from raw values (repeats, comma lists, any case, GPU spellings).

        Numbers must already be within :data:`FILTER_FIELDS`' bounds (the API and the CLI
        parse them); raises ``FilterError`` for an unknown pricing model or a list with more
        than ``MAX_LIST_VALUES`` values, ``TypeError`` for an unknown filter name."""
        prices = split_values(pricing, "pricing")
        if prices and (bad := sorted(set(prices) - set(PRICING_MODELS))):
            raise FilterError(
                f"pricing: unknown value {bad[0]!r}; valid values: {', '.join(PRICING_MODELS)}"
            )
        return cls(
            gpu=gpu_terms(gpu),
            provider=split_values(provider, "provider", lower=True),
            pricing=prices,
            region=split_values(region, "region", lower=True),
            include_suspect=bool(include_suspect),
            **scalars,
        )

    def as_dict(self) -> dict[str, Any]:
        """The set filters only ({name: value}), e.g. for a log line or a cache key."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and value is not False:
                out[f.name] = value
        return out

    def where(self) -> Where:
        """This filter as a bound where clause over ``current_offers``."""
        w = Where()
        if not self.include_suspect:
            w.add("price_status = 'ok'")
        if self.max_age_days is not None:
            w.add("age_days <= ?", self.max_age_days)
        if self.min_vram is not None:
            w.add("vram_gb_usable >= ?", self.min_vram)
        if self.min_total_vram is not None:
            w.add("vram_gb_total >= ?", self.min_total_vram)
        if self.fp8 is not None:
            w.add("fp8 = ?", self.fp8)
        if self.bf16 is not None:
            w.add("bf16 = ?", self.bf16)
        if self.gpu:
            gpu_clause(w, "gpu_id", self.gpu)
        if self.provider:
            w.add(_in("provider", self.provider), *self.provider)
        if self.pricing:
            w.add(_in("pricing", self.pricing), *self.pricing)
        if self.serverless is not None:
            w.add("serverless = ?", self.serverless)
        if self.max_price is not None:
            w.add("price_per_hour_usd <= ?", self.max_price)
        if self.max_price_per_gpu is not None:
            w.add("price_per_gpu_hour_usd <= ?", self.max_price_per_gpu)
        if self.min_gpus is not None:
            w.add("gpu_count >= ?", self.min_gpus)
        if self.region:
            w.add(_in("lower(region)", self.region), *self.region)
        return w


@dataclass(frozen=True, slots=True)
class OfferQuery:
    """A page of offers: filter, sort (a key of INSTANCE_SORT_KEYS), page, grouping."""

    filter: OfferFilter = OfferFilter()
    sort: str = "price"
    limit: int = 100
    offset: int = 0
    cheapest_per_gpu: bool = False

    def __post_init__(self) -> None:
        if self.sort not in INSTANCE_SORT_KEYS:
            raise FilterError(
                f"sort: unknown value {self.sort!r}; valid values: {', '.join(INSTANCE_SORT_KEYS)}"
            )
        if not 1 <= self.limit <= MAX_LIMIT or self.offset < 0:
            raise FilterError(f"limit must be 1..{MAX_LIMIT} and offset >= 0")

    def with_filter(self, **changes: Any) -> OfferQuery:
        return replace(self, filter=replace(self.filter, **changes))


# --- SQL --------------------------------------------------------------------------------------


def _order_by(sort: str) -> str:
    """``price`` -> ``price_per_hour_usd asc nulls last``; ``-price`` -> ``... desc nulls last``.
    ``sort`` must be one of INSTANCE_SORT_KEYS (KeyError otherwise)."""
    column = INSTANCE_SORTS[sort.removeprefix("-")]
    return f"{column} {'desc' if sort.startswith('-') else 'asc'} nulls last"


def instances_sql(where: Where, sort: str) -> tuple[str, str]:
    """(page query, count query). ``sort`` must be one of INSTANCE_SORT_KEYS (``-`` prefix:
    descending); rows without the value come last either way, ties go by offer id. The page
    query takes ``where.params`` then limit and offset."""
    page = (
        f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
        f" {where.sql()} order by {_order_by(sort)}, offer_id limit ? offset ?"
    )
    count = f"select count(*) as n from current_offers {where.sql()}"
    return page, count


def cheapest_per_gpu_sql(where: Where, sort: str) -> tuple[str, str]:
    """Like ``instances_sql``, but one row per (provider, GPU model, pricing): the offer with the
    lowest USD per GPU-hour, with ``offers_in_group`` = matching offers in its group. Offers with
    an unresolved GPU are grouped by the provider's spelling, never merged with other GPUs."""
    ranked = f"""
        with matching as (select * from current_offers {where.sql()}),
        ranked as (
            select *,
                count(*) over (
                    partition by provider, coalesce(gpu_id, 'name:' || gpu_name_provider), pricing
                ) as offers_in_group,
                row_number() over (
                    partition by provider, coalesce(gpu_id, 'name:' || gpu_name_provider), pricing
                    order by price_per_gpu_hour_usd asc, offer_id
                ) as group_rank
            from matching
        )
    """
    page = (
        f"{ranked} select {INSTANCE_COLUMNS}, offers_in_group from ranked where group_rank = 1"
        f" order by {_order_by(sort)}, offer_id limit ? offset ?"
    )
    count = f"{ranked} select count(*) as n from ranked where group_rank = 1"
    return page, count


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    result = con.execute(sql, params)
    columns = [d[0] for d in result.description or []]
    return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def query_offers_sql(
    con: duckdb.DuckDBPyConnection, query: OfferQuery
) -> tuple[list[dict[str, Any]], int]:
    """(page of items, total matching) of ``query``, by SQL over ``con``'s current_offers."""
    where = query.filter.where()
    build = cheapest_per_gpu_sql if query.cheapest_per_gpu else instances_sql
    page_sql, count_sql = build(where, query.sort)
    items = _rows(con, page_sql, [*where.params, query.limit, query.offset])
    total = _rows(con, count_sql, where.params)[0]["n"]
    return items, total


def item_columns(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The items' field names, in order (those of every page query)."""
    sql = f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
    return [d[0] for d in con.execute(sql + " limit 0").description or []]


# --- providers (GET /providers, `gpuprices status`) -------------------------------------------

# excluded_rows and skipped_parts are stored as JSON text; served as objects
_PROVIDER_STATUS = (
    "select * replace ("
    "from_json(excluded_rows, '\"MAP(VARCHAR, INTEGER)\"') as excluded_rows,"
    " from_json(skipped_parts, '\"MAP(VARCHAR, VARCHAR)\"') as skipped_parts)"
    " from provider_status"
)
PROVIDERS_SQL = f"{_PROVIDER_STATUS} order by provider"
PROVIDER_STATUS_SQL = f"{_PROVIDER_STATUS} where provider = ?"


# --- in memory ---------------------------------------------------------------------------------

_BLOCK = 64  # rows per stored prefix mask of a numeric column


def _sort_key(values: Sequence[Any], ids: Sequence[str], descending: bool) -> Any:
    if descending:
        return lambda i: (values[i] is None, -values[i] if values[i] is not None else 0, ids[i])
    return lambda i: (values[i] is None, values[i] if values[i] is not None else 0, ids[i])


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, ascending."""
    text = format(mask, "b")[::-1]
    out, at = [], text.find("1")
    while at >= 0:
        out.append(at)
        at = text.find("1", at + 1)
    return out


class _Range:
    """Rows of one numeric column by value (floats, as DuckDB compares a DECIMAL column with a
    DOUBLE parameter; nulls never match), answering ``<= x`` and ``>= x`` as row masks."""

    def __init__(self, values: Sequence[Any]) -> None:
        present = sorted((float(v), i) for i, v in enumerate(values) if v is not None)
        self.values = [v for v, _ in present]
        self.rows = [i for _, i in present]
        self.present = 0
        self.prefix = [0]  # prefix[j]: mask of the first j * _BLOCK rows by value
        for n, i in enumerate(self.rows, 1):
            self.present |= 1 << i
            if n % _BLOCK == 0:
                self.prefix.append(self.present)

    def _first(self, count: int) -> int:
        block = count // _BLOCK
        mask = self.prefix[block]
        for i in self.rows[block * _BLOCK : count]:
            mask |= 1 << i
        return mask

    def at_most(self, x: float) -> int:
        return self._first(bisect_right(self.values, x))

    def at_least(self, x: float) -> int:
        return self.present & ~self._first(bisect_left(self.values, x))


@dataclass(frozen=True)
class Page:
    """Rows of an OfferTable answering one query: their indices in page order, the
    offers_in_group of each (None unless cheapest_per_gpu) and the total that matched."""

    rows: list[int]
    groups: list[int | None]
    total: int


class OfferTable:
    """``current_offers`` of one snapshot in memory, for answering OfferQuery without SQL.

    ``items[i]`` is row i as :func:`instances_sql` selects it (``offers_in_group`` None). At
    build: a bit mask of rows per value of each exact-match column, each numeric filter
    column sorted (with prefix masks), every sort order and the cheapest_per_gpu groups. A
    query ANDs masks, then reads the page off the sort order. :meth:`page` answers exactly as
    the SQL does (same rows, order, total, group counts: ``tests/warehouse/test_queries.py``).
    Immutable once built; safe to share between threads."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        n = len(items)
        self.all = (1 << n) - 1
        ids = [r["id"] for r in items]
        self.values: dict[str, dict[Any, int]] = {}
        for column, get in (
            ("price_status", lambda r: r["price_status"]),
            ("fp8", lambda r: r["fp8"]),
            ("bf16", lambda r: r["bf16"]),
            ("serverless", lambda r: r["serverless"]),
            ("gpu_id", lambda r: r["gpu_id"]),
            ("provider", lambda r: r["provider"]),
            ("pricing", lambda r: r["pricing"]),
            ("region", lambda r: None if r["region"] is None else r["region"].lower()),
        ):
            masks: dict[Any, int] = {}
            for i, r in enumerate(items):
                value = get(r)
                masks[value] = masks.get(value, 0) | (1 << i)
            masks.pop(None, None)  # a null never matches
            self.values[column] = masks
        self.ranges = {
            column: _Range([r[column] for r in items])
            for column in (
                "age_days",
                "vram_gb_usable",
                "vram_gb_total",
                "price_per_hour_usd",
                "price_per_gpu_hour_usd",
                "gpu_count",
            )
        }
        # sorting uses the exact values (DECIMAL order), as SQL does
        self.orders: dict[str, list[int]] = {}
        self.ranks: dict[str, list[int]] = {}
        for key in INSTANCE_SORT_KEYS:
            column = INSTANCE_SORTS[key.removeprefix("-")]
            values = [r[column] for r in items]
            order = sorted(range(n), key=_sort_key(values, ids, key.startswith("-")))
            rank = [0] * n
            for position, i in enumerate(order):
                rank[i] = position
            self.orders[key], self.ranks[key] = order, rank
        # cheapest_per_gpu: group of each row; rank by (USD per GPU-hour asc nulls last, id)
        self.group_of = [
            (
                r["provider"],
                r["gpu_id"]
                if r["gpu_id"] is not None
                else (None if r["gpu_name_provider"] is None else "name:" + r["gpu_name_provider"]),
                r["pricing"],
            )
            for r in items
        ]
        per_gpu = [r["price_per_gpu_hour_usd"] for r in items]
        by_gpu_price = sorted(range(n), key=_sort_key(per_gpu, ids, False))
        self.gpu_price_rank = [0] * n
        for position, i in enumerate(by_gpu_price):
            self.gpu_price_rank[i] = position

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> OfferTable:
        """Every row of ``con``'s current_offers (ordered by id, for a stable row number)."""
        sql = (
            f"select {INSTANCE_COLUMNS}, null::integer as offers_in_group from current_offers"
            " order by offer_id"
        )
        return cls(_rows(con, sql, []))

    def _any_of(self, column: str, values: Iterable[Any]) -> int:
        masks = self.values[column]
        out = 0
        for value in values:
            out |= masks.get(value, 0)
        return out

    def mask(self, f: OfferFilter) -> int:
        """The rows matching ``f`` (bit i = row i): the rule of :meth:`OfferFilter.where`."""
        m = self.all
        if not f.include_suspect:
            m &= self.values["price_status"].get("ok", 0)
        for column, bound, minimum in (
            ("age_days", f.max_age_days, False),
            ("vram_gb_usable", f.min_vram, True),
            ("vram_gb_total", f.min_total_vram, True),
            ("price_per_hour_usd", f.max_price, False),
            ("price_per_gpu_hour_usd", f.max_price_per_gpu, False),
            ("gpu_count", f.min_gpus, True),
        ):
            if bound is not None:
                found = self.ranges[column]
                m &= found.at_least(float(bound)) if minimum else found.at_most(float(bound))
        for column, flag in (("fp8", f.fp8), ("bf16", f.bf16), ("serverless", f.serverless)):
            if flag is not None:
                m &= self.values[column].get(flag, 0)
        if f.gpu:
            exact = frozenset(f.gpu)
            prefixes = tuple(t + "-" for t in f.gpu if gpu_prefix_pattern(t) is not None)
            m &= self._any_of(
                "gpu_id", (v for v in self.values["gpu_id"] if v in exact or v.startswith(prefixes))
            )
        for column, values in (
            ("provider", f.provider),
            ("pricing", f.pricing),
            ("region", f.region),
        ):
            if values:
                m &= self._any_of(column, values)
        return m

    def page(self, query: OfferQuery) -> Page:
        m = self.mask(query.filter)
        end = query.offset + query.limit
        if not query.cheapest_per_gpu:
            total = m.bit_count()
            if m == self.all or total > len(self.items) // 8:
                # dense: walk the sort order until the page is full
                text = format(m, "b")[::-1]
                width = len(text)
                rows = []
                for i in self.orders[query.sort]:
                    if i < width and text[i] == "1":
                        rows.append(i)
                        if len(rows) == end:
                            break
            else:
                rank = self.ranks[query.sort]
                rows = sorted(_bits(m), key=rank.__getitem__)
            rows = rows[query.offset : end]
            return Page(rows, [None] * len(rows), total)
        counts: dict[tuple, int] = {}
        best: dict[tuple, int] = {}
        price_rank = self.gpu_price_rank
        for i in _bits(m):
            group = self.group_of[i]
            if group in counts:
                counts[group] += 1
                if price_rank[i] < price_rank[best[group]]:
                    best[group] = i
            else:
                counts[group] = 1
                best[group] = i
        rank = self.ranks[query.sort]
        ranked = sorted(best.values(), key=rank.__getitem__)
        rows = ranked[query.offset : end]
        return Page(rows, [counts[self.group_of[i]] for i in rows], len(ranked))

    def query(self, query: OfferQuery) -> tuple[list[dict[str, Any]], int]:
        """(page of items, total) of ``query``: the same as :func:`query_offers_sql`."""
        found = self.page(query)
        items = [
            self.items[i] if group is None else {**self.items[i], "offers_in_group": group}
            for i, group in zip(found.rows, found.groups, strict=True)
        ]
        return items, found.total
