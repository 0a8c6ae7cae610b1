"""The offer filters: the one definition of every filter of ``GET /instances`` (and
``gpuprices query``, and the economics endpoints' offer filters): its name, unit, bounds and
normalisation (:data:`FILTER_FIELDS`, :meth:`OfferFilter.build`, values normalised by
``warehouse.queries.values``) and its SQL over ``current_offers`` with bound parameters only
(:meth:`OfferFilter.where`). ``OfferQuery`` adds sort, page and ``cheapest_per_gpu``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from warehouse.places import CONTINENTS
from warehouse.queries.values import (
    MAX_LIMIT,
    MAX_LIST_VALUES,
    PRICING_MODELS,
    FilterError,
    PricingModel,
    check_values,
    gpu_filter,
    gpu_prefix_pattern,
    gpu_terms,
    hyphenated,
    pricing_models,
    split_values,
    unknown_values_error,
)

__all__ = [  # the values' names stay importable from here
    "MAX_LIMIT",
    "MAX_LIST_VALUES",
    "PRICING_MODELS",
    "FilterError",
    "PricingModel",
    "gpu_filter",
    "gpu_terms",
    "hyphenated",
    "unknown_values_error",
]

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
        FilterField(
            "pricing",
            "Pricing model: " + ", ".join(PRICING_MODELS) + ", any case, '-' for '_' "
            "(repeatable or comma-separated: spot,on_demand)",
        ),
        FilterField("serverless", "Only serverless tiers (true) or only instances (false)"),
        FilterField("max_price", "Maximum USD per instance-hour", ge=0),
        FilterField("max_price_per_gpu", "Maximum USD per GPU-hour", ge=0),
        FilterField("min_gpus", "Minimum GPUs per instance", ge=0, le=10_000),
        FilterField(
            "min_vcpus",
            "Minimum vCPUs per instance; offers whose vCPUs the source does not state are left out",
            ge=0,
            le=100_000,
        ),
        FilterField(
            "min_ram_gb",
            "Minimum GB of system RAM per instance (not VRAM); offers whose RAM the source does "
            "not state are left out",
            ge=0,
            le=1_000_000,
        ),
        FilterField("region", "Region code, any case (repeatable or comma-separated)"),
        FilterField(
            "country",
            "ISO 3166-1 alpha-2 country of the offer's region or host, any case (repeatable or"
            " comma-separated); offers whose region names no country are left out",
        ),
        FilterField(
            "continent",
            "Continent of the offer's region or host (repeatable or comma-separated): "
            + ", ".join(CONTINENTS),
        ),
        FilterField(
            "max_age_days",
            "Only prices observed at most this many days before the snapshot (the price's own "
            "age, age_days; days, fractions allowed)",
            ge=0,
            le=100_000,
        ),
        FilterField(
            "include_expired",
            "Also list prices past their shelf life (expired: observed longer ago than the "
            "shelf life of their price_kind, GPUPRICES_SHELF_LIFE_DAYS_*; by default dynamic 2 "
            "days, spot and marketplace 30 days, on-demand, reserved and serverless list prices "
            "180 days); left out by default",
        ),
        FilterField(
            "include_suspect",
            "Also list prices the plausibility screen marks suspect (price_status, "
            "price_status_reasons); left out by default",
        ),
        FilterField(
            "include_unavailable",
            "Also list offers the source says cannot be bought now (available: false: no "
            "location to deploy in, sold out, flagged not offered, past the provider's end of "
            "service); left out by default (available true and unknown are listed)",
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


def gpu_clause(
    w: Where, column: str, terms: Sequence[str], family_column: str | None = None
) -> None:
    """``column`` matches one of the GPU ``terms`` (an id itself; a family also its members).
    With ``family_column`` (rows placed only in a family, ``gpu_family``), a family term also
    matches a row of that family or of a narrower one (``a100`` finds ``a100-80gb``); a
    canonical id never does (an ``a100-80gb`` row may be the PCIe or the SXM card)."""
    ors = []
    for term in terms:
        pattern = gpu_prefix_pattern(term)
        if pattern is None:
            ors.append(f"{column} = ?")
            w.params.append(term)
            continue
        for col in (column, family_column) if family_column else (column,):
            ors.append(f"({col} = ? or {col} like ? escape '\\')")
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
    ``include_suspect``, expired ones (past the shelf life of their kind of price,
    ``warehouse.shelf_life``) unless ``include_expired``, unavailable ones (``available`` false:
    the source says it is not on sale) unless ``include_unavailable``; ``max_age_days`` bounds
    the price's own age. List filters hold sorted,
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
    min_vcpus: float | None = None  # vCPUs per instance; unknown vCPUs never pass
    min_ram_gb: float | None = None  # GB of system RAM per instance; unknown RAM never pass
    region: tuple[str, ...] | None = None  # lowercase
    country: tuple[str, ...] | None = None  # lowercase ISO alpha-2
    continent: tuple[str, ...] | None = None  # of warehouse.places.CONTINENTS
    max_age_days: float | None = None  # days before the snapshot
    include_suspect: bool = False
    include_expired: bool = False  # prices past their shelf life (current_offers.expired)
    include_unavailable: bool = False  # offers not on sale (current_offers.available false)

    @classmethod
    def build(
        cls,
        *,
        gpu: Iterable[str] | None = None,
        provider: Iterable[str] | None = None,
        pricing: Iterable[str] | None = None,
        region: Iterable[str] | None = None,
        country: Iterable[str] | None = None,
        continent: Iterable[str] | None = None,
        include_suspect: bool | None = False,
        include_expired: bool | None = False,
        include_unavailable: bool | None = False,
        **scalars: Any,
    ) -> OfferFilter:
        """A filter from raw values (repeats, comma lists, any case, GPU spellings).

        Numbers must already be within :data:`FILTER_FIELDS`' bounds (the API and the CLI
        parse them); raises ``FilterError`` for an unknown pricing model or continent or a
        list with more than ``MAX_LIST_VALUES`` values, ``TypeError`` for an unknown filter
        name."""
        prices = pricing_models(pricing)
        continents = split_values(continent, "continent", lower=True)
        if continents:
            check_values("continent", continents, CONTINENTS)
        return cls(
            gpu=gpu_terms(gpu),
            provider=split_values(provider, "provider", lower=True),
            pricing=prices,
            region=split_values(region, "region", lower=True),
            country=split_values(country, "country", lower=True),
            continent=continents,
            include_suspect=bool(include_suspect),
            include_expired=bool(include_expired),
            include_unavailable=bool(include_unavailable),
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
            w.add("price_status <> 'suspect'")
        if not self.include_expired:
            w.add("not expired")
        if not self.include_unavailable:
            w.add("available is not false")
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
            gpu_clause(w, "gpu_id", self.gpu, "gpu_family")
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
        if self.min_vcpus is not None:
            w.add("vcpus >= ?", self.min_vcpus)  # null vCPUs: not known to be enough
        if self.min_ram_gb is not None:
            w.add("ram_gb >= ?", self.min_ram_gb)
        if self.region:
            w.add(_in("lower(region)", self.region), *self.region)
        if self.country:
            w.add(_in("lower(country)", self.country), *self.country)
        if self.continent:
            w.add(_in("continent", self.continent), *self.continent)
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
