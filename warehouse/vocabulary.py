"""The words of the read surface, written once: pricing kinds, history buckets, precisions, sorts
and page limits. The API's parameters, the read queries (``warehouse.queries``), the CLI and the
economics endpoints all import them from here; the migrations' SQL check constraints keep their
own literal lists (SQL cannot import), and ``tests/warehouse/test_vocabulary.py`` keeps those
equal to these.

(``warehouse.queries.vocabulary`` is something else: the GPUs, providers, regions and countries
one *snapshot* knows, for refusing an unknown filter value.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

# --- pricing kinds ----------------------------------------------------------------------------

# The kinds with a fixed list price. History series, market charts and the dedicated side of a
# break-even are kept for these; "dynamic" is a price the provider re-sets daily.
FixedPricing = Literal["on_demand", "spot", "reserved"]
# Every value of current_offers.pricing (the check of warehouse/migrations/0005_*.sql).
PricingKind = Literal[FixedPricing, "dynamic"]
# The dedicated side of GET /economics/breakeven: one fixed kind, or any of them.
DedicatedPricing = Literal[FixedPricing, "any"]

FIXED_PRICING: tuple[str, ...] = get_args(FixedPricing)
PRICING_KINDS: tuple[str, ...] = get_args(PricingKind)

# --- history buckets --------------------------------------------------------------------------

HistoryBucket = Literal["day", "week", "month"]
HISTORY_BUCKETS: tuple[str, ...] = get_args(HistoryBucket)
# Longest range per bucket size, in days: bounds the work of one request (GET /history and the
# market chart alike).
MAX_RANGE_DAYS: dict[str, int] = {"day": 731, "week": 1827, "month": 3653}

# --- precisions -------------------------------------------------------------------------------

# The precisions a model's weights, compute and KV cache can run in (warehouse.economics: bytes
# per weight, tensor rates per precision); "standard" asks for the one the GPU runs natively.
Precision = Literal["fp16", "bf16", "fp8", "int8", "int4", "fp4"]
PRECISIONS: tuple[str, ...] = get_args(Precision)
STANDARD_PRECISION = "standard"
RequestedPrecision = Literal["standard", Precision]
# How an engine's scheduler admits sequences against the KV cache (warehouse.economics,
# KV_ADMISSION_RESERVED_OUTPUT_FRACTION); estimates assume the first.
KvAdmission = Literal["max_utilization", "guaranteed_no_evict"]

# --- page limits ------------------------------------------------------------------------------

MAX_LIMIT = 1000  # rows in one page of any list answer
DEFAULT_LIMIT = 100  # rows when a request names no limit
DEFAULT_ESTIMATES_LIMIT = 50  # GET /economics/estimates ranks fewer by default
MAX_OFFSET = 1_000_000  # rows a page may skip
MAX_LIST_VALUES = 50  # values of one list filter (provider=a,b,...)

# --- sorts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SortSpec:
    """One value of ``sort``: the column it orders by (ascending; ``-<key>`` descending) and
    what that column is, with its unit."""

    key: str
    column: str
    doc: str


SORTS: dict[str, SortSpec] = {
    s.key: s
    for s in (
        SortSpec("price", "price_per_hour_usd", "USD/instance-hour"),
        SortSpec("price_per_gpu", "price_per_gpu_hour_usd", "USD/GPU-hour"),
        SortSpec("price_per_vram_gb", "price_per_vram_gb_hour_usd", "USD/GB-hour (usable)"),
        SortSpec("vram", "vram_gb_usable", "usable GB per GPU"),
    )
}
DEFAULT_SORT = "price"
# sort parameter -> column (allow-list; never interpolate user text into SQL). Each key sorts
# ascending; "-<key>" sorts the same column descending. Ties: offer id, ascending.
INSTANCE_SORTS: dict[str, str] = {s.key: s.column for s in SORTS.values()}
INSTANCE_SORT_KEYS: tuple[str, ...] = tuple(key for name in SORTS for key in (name, f"-{name}"))
SORT_DOC = (
    ", ".join(f"{s.key} = {s.doc}" for s in SORTS.values())
    + "; ascending, or descending with a leading '-' (-"
    + DEFAULT_SORT
    + "); rows without the value last, ties by id"
)
