"""The offer-query surface, declared once: every filter of ``GET /instances`` (and of
``gpuprices query``, and the economics endpoints' offer filters) and every sort, as a table.

Each :class:`FilterSpec` names a filter, its kind (a number bound, a yes/no flag, a list of
values, or a rule that leaves offers out unless lifted), its bounds, the ``current_offers``
column it compares and how, and its documentation with its unit. Everything else is derived
from :data:`FILTERS`, never written again:

- ``warehouse.queries.OfferFilter``'s fields, normalisation (``build``) and bound SQL
  (``where``), and ``warehouse.queries.OfferTable``'s columns and mask;
- the Litestar parameters of GET /instances (``api.params.filter_parameters``) and the query
  string read by its fast route (``api.instances.params.parse_query``);
- the options of ``gpuprices query`` (``pipelines.cli_query``);
- README's list of the filters (:func:`filters_table`; ``tests/warehouse/test_surface.py``
  keeps README equal to it, and checks that each filter name is declared here only).

``sort``'s values, columns and documentation are ``warehouse.vocabulary.SORTS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from warehouse.places import CONTINENTS
from warehouse.queries.values import (
    check_values,
    gpu_terms,
    pricing_models,
    split_values,
)
from warehouse.vocabulary import PRICING_KINDS, SORT_DOC, SORTS

Kind = Literal["number", "flag", "list", "rule"]
# number: column >= / <= the value; flag: column = the value; list: column in the values
# ("family": a canonical id, or a family and its members, gpu_clause); rule: the offer must
# meet `column` (an SQL predicate) unless the filter is true
Comparison = Literal[">=", "<=", "=", "in", "family", "unless"]
Values = Callable[[Iterable[str] | None, str], tuple[str, ...] | None]


def lowercase(values: Iterable[str] | None, name: str) -> tuple[str, ...] | None:
    """Comma lists and repeats, stripped, any case (``Lambda`` -> ``lambda``)."""
    return split_values(values, name, lower=True)


def continents(values: Iterable[str] | None, name: str) -> tuple[str, ...] | None:
    """Like :func:`lowercase`; ``FilterError`` for a value that is not one of CONTINENTS."""
    found = split_values(values, name, lower=True)
    if found:
        check_values(name, found, CONTINENTS)
    return found


@dataclass(frozen=True)
class FilterSpec:
    """One offer filter: its query name, kind, bounds, column, comparison and documentation.

    ``column`` is an SQL expression over ``current_offers`` (from this table only: never user
    text); a rule's is the predicate an offer must meet unless the filter is true.
    ``family_column``: a GPU family term also matches rows placed only in that family.
    ``known``: the ``FilterVocabulary`` set a value must be in (a 400 with the closest one
    otherwise). ``counts``: the ``Exclusions`` counter of the offers this filter leaves out
    (``excluded`` of an answer: ``warehouse.queries.excluded.COUNTED``). ``metavar``: the
    value's name in ``gpuprices query --help``."""

    name: str
    kind: Kind
    column: str
    comparison: Comparison
    doc: str
    ge: float | None = None
    le: float | None = None
    values: Values | None = None
    family_column: str | None = None
    known: str | None = None
    counts: str | None = None
    metavar: str | None = None

    @property
    def default(self) -> Any:
        """The value that filters nothing: no bound, no flag, no list, the rule kept."""
        return False if self.kind == "rule" else None

    @property
    def lifted(self) -> Any:
        """The value that turns a counted filter off (``Exclusions`` counts from it)."""
        return True if self.kind == "rule" else None

    @property
    def flag(self) -> str:
        """The option of ``gpuprices query``: ``--min-vram``."""
        return "--" + self.name.replace("_", "-")


GPU_DOC = (
    "Canonical GPU id or family, e.g. h100-sxm, h100 or a100-80gb, in any case and punctuation, "
    "or another spelling of it (RTX4090, A100-80GB, H100-SXM, NVIDIA L40S); an id matches that "
    "GPU only, a family every GPU whose id starts with it. Repeatable or comma-separated"
)
PROVIDER_DOC = "Provider slug, any case (repeatable or comma-separated: lambda,runpod)"
SERVERLESS_DOC = "Only serverless tiers (true) or only instances (false)"

# In OfferFilter's, the API's, the CLI's and README's order.
FILTERS: dict[str, FilterSpec] = {
    f.name: f
    for f in (
        FilterSpec(
            "min_vram",
            "number",
            "vram_gb_usable",
            ">=",
            "Minimum GB of usable VRAM per GPU (vram_gb_usable: a share of a GPU counts with "
            "the memory it gets)",
            ge=0,
            le=10_000,
            metavar="GB",
        ),
        FilterSpec(
            "min_total_vram",
            "number",
            "vram_gb_total",
            ">=",
            "Minimum GB of usable VRAM per instance (all GPUs)",
            ge=0,
            le=100_000,
            metavar="GB",
        ),
        FilterSpec("fp8", "flag", "fp8", "=", "Only GPUs with (true) / without (false) native FP8"),
        FilterSpec(
            "bf16", "flag", "bf16", "=", "Only GPUs with (true) / without (false) native BF16"
        ),
        FilterSpec(
            "gpu",
            "list",
            "gpu_id",
            "family",
            GPU_DOC,
            values=gpu_terms,
            family_column="gpu_family",
            known="gpu_terms",
            metavar="ID",
        ),
        FilterSpec(
            "provider",
            "list",
            "provider",
            "in",
            PROVIDER_DOC,
            values=lowercase,
            known="providers",
            metavar="SLUG",
        ),
        FilterSpec(
            "pricing",
            "list",
            "pricing",
            "in",
            "Pricing model: " + ", ".join(PRICING_KINDS) + ", any case, '-' for '_' "
            "(repeatable or comma-separated: spot,on_demand)",
            values=pricing_models,
            metavar="MODEL",
        ),
        FilterSpec("serverless", "flag", "serverless", "=", SERVERLESS_DOC),
        FilterSpec(
            "max_price",
            "number",
            "price_per_hour_usd",
            "<=",
            "Maximum USD per instance-hour",
            ge=0,
            metavar="USD",
        ),
        FilterSpec(
            "max_price_per_gpu",
            "number",
            "price_per_gpu_hour_usd",
            "<=",
            "Maximum USD per GPU-hour",
            ge=0,
            metavar="USD",
        ),
        FilterSpec(
            "min_gpus",
            "number",
            "gpu_count",
            ">=",
            "Minimum GPUs per instance",
            ge=0,
            le=10_000,
            metavar="N",
        ),
        FilterSpec(
            "min_vcpus",
            "number",
            "vcpus",  # null vCPUs: not known to be enough, never passes
            ">=",
            "Minimum vCPUs per instance; offers whose vCPUs the source does not state are left out",
            ge=0,
            le=100_000,
            metavar="N",
        ),
        FilterSpec(
            "min_ram_gb",
            "number",
            "ram_gb",
            ">=",
            "Minimum GB of system RAM per instance (not VRAM); offers whose RAM the source does "
            "not state are left out",
            ge=0,
            le=1_000_000,
            metavar="GB",
        ),
        FilterSpec(
            "region",
            "list",
            "lower(region)",
            "in",
            "Region code, any case (repeatable or comma-separated)",
            values=lowercase,
            known="regions",
            metavar="CODE",
        ),
        FilterSpec(
            "country",
            "list",
            "lower(country)",
            "in",
            "ISO 3166-1 alpha-2 country of the offer's region or host, any case (repeatable or"
            " comma-separated); offers whose region names no country are left out",
            values=lowercase,
            known="countries",
            metavar="CC",
        ),
        FilterSpec(
            "continent",
            "list",
            "continent",
            "in",
            "Continent of the offer's region or host (repeatable or comma-separated): "
            + ", ".join(CONTINENTS),
            values=continents,
            metavar="NAME",
        ),
        FilterSpec(
            "max_age_days",
            "number",
            "age_days",
            "<=",
            "Only prices observed at most this many days before the snapshot (the price's own "
            "age, age_days; days, fractions allowed)",
            ge=0,
            le=100_000,
            counts="too_old",
            metavar="DAYS",
        ),
        FilterSpec(
            "include_suspect",
            "rule",
            "price_status <> 'suspect'",
            "unless",
            "Also list prices the plausibility screen marks suspect (price_status, "
            "price_status_reasons); left out by default",
            counts="suspect",
        ),
        FilterSpec(
            "include_expired",
            "rule",
            "not expired",
            "unless",
            "Also list prices past their shelf life (expired: observed longer ago than the "
            "shelf life of their price_kind, GPUPRICES_SHELF_LIFE_DAYS_*; by default dynamic 2 "
            "days, spot and marketplace 30 days, on-demand, reserved and serverless list prices "
            "180 days); left out by default",
            counts="expired",
        ),
        FilterSpec(
            "include_unavailable",
            "rule",
            "available is not false",
            "unless",
            "Also list offers the source says cannot be bought now (available: false: no "
            "location to deploy in, sold out, flagged not offered, past the provider's end of "
            "service); left out by default (available true and unknown are listed)",
            counts="unavailable",
        ),
    )
}

# The order of OfferFilter.where's clauses: the rules, then the other filters Exclusions
# counts, then the rest (each group in FILTERS' order).
WHERE_ORDER: tuple[FilterSpec, ...] = tuple(
    sorted(FILTERS.values(), key=lambda f: (f.kind != "rule", f.counts is None))
)


# --- README -----------------------------------------------------------------------------------

_KIND_TYPE = {
    "number": "number",
    "flag": "`true`/`false`",
    "list": "list",
    "rule": "`true`/`false`, default `false`",
}
_COMPARISON = {
    ">=": "≥ the value",
    "<=": "≤ the value",
    "=": "= the value",
    "in": "is one of the values",
    "family": "is one of the GPUs or a member of the families given",
}


def _number(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def _bounds(f: FilterSpec) -> str:
    if f.ge is None and f.le is None:
        return ""
    if f.le is None:
        return f"≥ {_number(f.ge or 0)}"
    return f"{_number(f.ge or 0)} to {_number(f.le)}"


def _compares(f: FilterSpec) -> str:
    if f.comparison == "unless":
        return f"`{f.column}`, unless true"
    return f"`{f.column}` {_COMPARISON[f.comparison]}"


def filters_table() -> str:
    """README's table of the offer filters and sort (between its ``generated`` markers)."""
    lines = [
        "| parameter | type | bounds | keeps offers whose | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in FILTERS.values():
        cells = [f"`{f.name}`", _KIND_TYPE[f.kind], _bounds(f), _compares(f), f.doc]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    keys = ", ".join(f"`{key}`" for key in SORTS)
    lines.append(f"| `sort` | {keys}, `-` before one: descending | | | {SORT_DOC} |")
    return "\n".join(lines)
