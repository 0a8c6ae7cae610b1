"""The offer filter object: :class:`OfferFilter`, one field per filter of
``warehouse.queries.surface.FILTERS`` (names, units, bounds, columns: declared there), its
normalisation (:meth:`OfferFilter.build`, values normalised by ``warehouse.queries.values``)
and its SQL over ``current_offers`` with bound parameters only (:meth:`OfferFilter.where`).
``OfferQuery`` adds sort, page and ``cheapest_per_gpu``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from warehouse.queries.surface import FILTERS, WHERE_ORDER
from warehouse.queries.values import (
    FilterError,
    gpu_filter,
    gpu_prefix_pattern,
    gpu_terms,
    hyphenated,
    split_values,
    unknown_values_error,
)
from warehouse.vocabulary import DEFAULT_LIMIT, DEFAULT_SORT, INSTANCE_SORT_KEYS, MAX_LIMIT

__all__ = [  # the values' names stay importable from here
    "FilterError",
    "gpu_filter",
    "gpu_terms",
    "hyphenated",
    "split_values",
    "unknown_values_error",
]

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

_FIELD_TYPES = {
    "number": "float | None",
    "flag": "bool | None",
    "list": "tuple[str, ...] | None",
    "rule": "bool",
}
T = TypeVar("T")


def _with_filter_fields(cls: type[T]) -> type[T]:
    """``cls`` as a frozen dataclass with one field per filter of :data:`FILTERS`."""
    for spec in FILTERS.values():
        cls.__annotations__[spec.name] = _FIELD_TYPES[spec.kind]
        setattr(cls, spec.name, spec.default)
    return dataclass(frozen=True, slots=True)(cls)


@_with_filter_fields
class OfferFilter:
    """Every offer filter, normalised: one field per filter of
    ``warehouse.queries.surface.FILTERS`` (names, units, bounds, columns).

    Memory filters use the memory the user gets (``vram_gb_usable``: a 1/8 share of a 96 GB
    GPU is 12 GB). Suspect prices (``warehouse.plausibility``) are left out unless
    ``include_suspect``, expired ones (past the shelf life of their kind of price,
    ``warehouse.shelf_life``) unless ``include_expired``, unavailable ones (``available`` false:
    the source says it is not on sale) unless ``include_unavailable``; ``max_age_days`` bounds
    the price's own age. List filters hold sorted, deduplicated values: provider and region
    lowercase, GPU values as filter terms. Build one with :meth:`build` (which normalises);
    equal filters are equal objects (a cache key)."""

    if TYPE_CHECKING:  # the fields come from FILTERS (_with_filter_fields)
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __init__(self, **values: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

    @classmethod
    def build(cls, **raw: Any) -> OfferFilter:
        """A filter from raw values (repeats, comma lists, any case, GPU spellings).

        Numbers must already be within :data:`FILTERS`' bounds (the API and the CLI parse
        them); raises ``FilterError`` for an unknown pricing model or continent or a list with
        more than ``MAX_LIST_VALUES`` values, ``TypeError`` for an unknown filter name."""
        if unknown := sorted(set(raw) - set(FILTERS)):
            raise TypeError(f"OfferFilter.build: unknown filter {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in raw.items():
            spec = FILTERS[name]
            if spec.values is not None:
                values[name] = spec.values(value, name)
            elif spec.kind == "rule":
                values[name] = bool(value)
            else:
                values[name] = value
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """The set filters only ({name: value}), e.g. for a log line or a cache key."""
        out = {}
        for name in FILTERS:
            value = getattr(self, name)
            if value is not None and value is not False:
                out[name] = value
        return out

    def where(self) -> Where:
        """This filter as a bound where clause over ``current_offers``."""
        w = Where()
        for spec in WHERE_ORDER:
            value = getattr(self, spec.name)
            if spec.comparison == "unless":
                if not value:
                    w.add(spec.column)
            elif value is None or value == ():
                continue
            elif spec.comparison == "family":
                gpu_clause(w, spec.column, value, spec.family_column)
            elif spec.comparison == "in":
                w.add(_in(spec.column, value), *value)
            else:
                w.add(f"{spec.column} {spec.comparison} ?", value)
        return w


@dataclass(frozen=True, slots=True)
class OfferQuery:
    """A page of offers: filter, sort (a key of INSTANCE_SORT_KEYS), page, grouping."""

    filter: OfferFilter = field(default_factory=OfferFilter)
    sort: str = DEFAULT_SORT
    limit: int = DEFAULT_LIMIT
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
