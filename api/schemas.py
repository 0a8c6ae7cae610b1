"""Response schemas (documentation of the wire format; rows are encoded straight from dicts).

Units are in the names: ``*_gb`` = 10^9 bytes, ``*_gbps`` = GB/s, ``*_usd`` = US dollars,
``*_hour`` = per hour. Times are UTC ISO 8601.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

Usd = Annotated[float, msgspec.Meta(description="US dollars")]


class PriceStatusReason(msgspec.Struct):
    code: Annotated[
        str,
        msgspec.Meta(
            description="below_market, above_market, repeated_price, spot_not_below_on_demand, community_above_secure or not_offered"
        ),
    ]
    detail: str


class InstanceItem(msgspec.Struct):
    id: Annotated[
        str,
        msgspec.Meta(
            description="Stable offer id: same provider, instance type, region and pricing model keep it across runs"
        ),
    ]
    provider: str
    instance_type: str
    region: Annotated[str, msgspec.Meta(description="Provider region code, or 'global'")]
    gpu_id: Annotated[
        str | None,
        msgspec.Meta(
            description="Canonical GPU id (see GET /gpus, e.g. h100-sxm); null when the provider's GPU is not in the table"
        ),
    ]
    gpu_name: Annotated[
        str | None, msgspec.Meta(description="Display name of the canonical GPU (GET /gpus name)")
    ]
    gpu_name_provider: Annotated[str, msgspec.Meta(description="The provider's own spelling")]
    gpu_vendor: str | None
    gpu_count: Annotated[
        float, msgspec.Meta(description="GPUs per instance (fractional for shared GPUs)")
    ]
    gpu_candidates: Annotated[
        list[str] | None,
        msgspec.Meta(
            description="A serverless tier that may land on several GPUs: their canonical ids (gpu_id is the weakest, and specs are the guaranteed minimum); null otherwise"
        ),
    ]
    gpu_fraction: Annotated[
        float,
        msgspec.Meta(
            description="Share of one GPU the offer gives (1 = whole GPUs; 0.125 = a 1/8 vGPU share; MIG profile = its memory share)"
        ),
    ]
    vram_gb_per_gpu: Annotated[
        float | None,
        msgspec.Meta(
            description="Datasheet GB of memory of the canonical GPU (GET /gpus); null if the GPU is unknown"
        ),
    ]
    vram_gb_usable: Annotated[
        float | None,
        msgspec.Meta(
            description="GB of GPU memory the user gets per GPU: the datasheet figure, times gpu_fraction for a share of a GPU. min_vram, sort=vram, $/GB and model fit use it"
        ),
    ]
    vram_gb_total: Annotated[
        float | None,
        msgspec.Meta(description="Usable GB of GPU memory per instance (gpu_count x datasheet)"),
    ]
    vram_gb_reported: Annotated[
        float | None,
        msgspec.Meta(
            description="GB per whole GPU as the provider reports it (may be MiB read as GB, or include CPU memory); never used for filters"
        ),
    ]
    vram_report_mismatch: Annotated[
        bool,
        msgspec.Meta(description="vram_gb_reported is more than 10% away from the datasheet"),
    ]
    memory_type: str | None
    memory_bandwidth_gbps: Annotated[float | None, msgspec.Meta(description="GB/s per GPU")]
    fp8: Annotated[
        bool | None, msgspec.Meta(description="Native FP8 support; null when the GPU is unknown")
    ]
    bf16: Annotated[
        bool | None, msgspec.Meta(description="Native BF16 support; null when the GPU is unknown")
    ]
    interconnect: str | None
    vcpus: float | None
    ram_gb: float | None
    storage_gb: float | None
    pricing: Annotated[
        str,
        msgspec.Meta(
            description="on_demand, spot, reserved, or dynamic (a price the provider re-sets daily)"
        ),
    ]
    reserved_term_months: int | None
    price: Annotated[
        float,
        msgspec.Meta(
            description="Price as the provider quotes it, in `currency` per `price_unit` per `price_per`"
        ),
    ]
    currency: str
    price_unit: Annotated[str, msgspec.Meta(description="second, minute, hour or month")]
    price_per: Annotated[str, msgspec.Meta(description="instance or gpu")]
    price_per_hour: Annotated[
        float, msgspec.Meta(description="Instance-hour price in `currency` (months = 730 h)")
    ]
    usd_per_unit: Annotated[
        float, msgspec.Meta(description="Exchange rate used, USD per unit of `currency`")
    ]
    fx_rate_date: Annotated[
        date | None,
        msgspec.Meta(
            description="Date of the ECB reference rate used (the last one on or before the observation date); null for USD prices"
        ),
    ]
    price_per_hour_usd: Annotated[float, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[float, msgspec.Meta(description="USD per GPU-hour")]
    price_per_vram_gb_hour_usd: Annotated[
        float | None, msgspec.Meta(description="USD per GB of VRAM per hour")
    ]
    price_status: Annotated[
        str,
        msgspec.Meta(
            description="ok, or suspect: the plausibility screen judged the price not real (listed only with include_suspect=true)"
        ),
    ]
    price_status_reasons: Annotated[
        list[PriceStatusReason],
        msgspec.Meta(description="Why the price is suspect; empty when ok"),
    ]
    # Billing facts of the provider (seeds/provider_facts.csv; serverless platforms:
    # seeds/serverless_platforms.csv). null = unknown; GET /providers/{slug} cites the sources.
    price_source: Annotated[
        str,
        msgspec.Meta(
            description=(
                "scrape (read off the provider's page or API) or curated (seeds/serverless_tiers.csv, "
                "dated by observed_at)"
            )
        ),
    ]
    billing_granularity: Annotated[
        str | None, msgspec.Meta(description=("Metering step: second, minute, hour or month"))
    ]
    billing_granularity_s: Annotated[
        float | None, msgspec.Meta(description=("Metering step in seconds (a month = 730 h)"))
    ]
    minimum_charge_s: Annotated[
        float | None, msgspec.Meta(description=("Minimum billed duration per start, seconds"))
    ]
    egress_usd_per_gb: Annotated[
        float | None,
        msgspec.Meta(
            description=("Internet egress, first paid tier, USD per GB (10^9 bytes); 0 = free")
        ),
    ]
    block_storage_usd_per_gb_month: Annotated[
        float | None, msgspec.Meta(description=("Network block storage, USD per GB-month"))
    ]
    spot_available: Annotated[
        bool | None, msgspec.Meta(description=("The provider offers a spot / preemptible tier"))
    ]
    offers_in_group: Annotated[
        int | None,
        msgspec.Meta(
            description=(
                "With cheapest_per_gpu=true: matching offers in this (provider, GPU model, pricing) "
                "group; null otherwise"
            )
        ),
    ]
    serverless: bool
    observed_at: Annotated[
        datetime,
        msgspec.Meta(
            description="When the price was observed (a capture's date, not when it was loaded); at observed_precision"
        ),
    ]
    observed_precision: Annotated[
        str,
        msgspec.Meta(
            description="second (live fetch), minute, day or month: a capture dated only to a month is observed at the month's first instant"
        ),
    ]
    age_days: Annotated[
        float, msgspec.Meta(description="Age of the price in days when the snapshot was published")
    ]
    stale: Annotated[
        bool,
        msgspec.Meta(
            description="The price is older than GPUPRICES_STALE_AFTER_DAYS (default 30) days, whatever the last scrape did"
        ),
    ]
    data_origin: Annotated[
        str,
        msgspec.Meta(
            description="live (fetched from the provider), recorded (replayed from a dated capture) or curated (a seed row dated by its source)"
        ),
    ]
    source_url: str


class InstancesPage(msgspec.Struct):
    items: list[InstanceItem]
    total: Annotated[int, msgspec.Meta(description="Matching offers before limit/offset")]
    limit: int
    offset: int
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]


class Gpu(msgspec.Struct):
    gpu_id: str
    name: str
    vendor: str
    architecture: str | None
    vram_gb: float
    memory_type: str | None
    memory_bandwidth_gbps: float | None
    fp16_tflops_dense: float | None
    bf16_tflops_dense: float | None
    fp8_tflops_dense: float | None
    int8_tops_dense: float | None
    fp4_tflops_dense: float | None
    fp8_support: bool
    bf16_support: bool
    form_factor: str | None
    interconnect: str | None
    interconnect_bandwidth_gbps: float | None
    tdp_watts: int | None
    source_url: str


class GpuList(msgspec.Struct):
    items: list[Gpu]
    as_of: datetime


class ProviderStatus(msgspec.Struct):
    provider: str
    last_success_at: datetime | None
    data_observed_at: datetime | None
    last_failure_at: datetime | None
    last_error: str | None
    last_status: str
    last_attempt_at: datetime | None
    current_offer_count: int
    suspect_offer_count: Annotated[
        int, msgspec.Meta(description="Current offers the plausibility screen marks suspect")
    ]
    stale_offer_count: Annotated[
        int, msgspec.Meta(description="Current offers whose price is older than the threshold")
    ]
    vram_mismatch_count: Annotated[
        int,
        msgspec.Meta(description="Current offers whose reported memory is >10% off the datasheet"),
    ]
    newest_price_observed_at: datetime | None
    newest_price_age_days: Annotated[
        float | None, msgspec.Meta(description="Age in days of the provider's newest served price")
    ]
    data_origin: Annotated[
        str | None,
        msgspec.Meta(description="live, recorded (replayed capture) or curated; null: no offers"),
    ]
    excluded_row_count: Annotated[
        int,
        msgspec.Meta(
            description="Rows the newest successful scrape's parser recognised as not offers"
        ),
    ]
    excluded_rows: Annotated[
        dict[str, int],
        msgspec.Meta(
            description="Those rows per reason, e.g. 'contact sales', 'no_gpu'; a row the parser"
            " does not know is 'unknown_<kind> <name>' (e.g. 'unknown_family g9x')"
        ),
    ]
    skipped_part_count: Annotated[
        int,
        msgspec.Meta(
            description="Parts of that scrape's fetch that failed alone (an AWS region, a page of"
            " a paged API); the rest was published"
        ),
    ]
    skipped_parts: Annotated[
        dict[str, str],
        msgspec.Meta(description="Those parts: part (e.g. 'region ap-east-2') -> its error"),
    ]
    stale: Annotated[
        bool,
        msgspec.Meta(
            description=(
                "No successful scrape finished within GPUPRICES_STALE_AFTER_HOURS (default 24) hours "
                "before the snapshot was published"
            )
        ),
    ]


class ProviderList(msgspec.Struct):
    items: list[ProviderStatus]
    as_of: datetime


class OriginCounts(msgspec.Struct):
    offers: int
    providers: int
    newest_age_days: Annotated[
        float | None, msgspec.Meta(description="Age in days of the newest price of this origin")
    ]
    oldest_age_days: Annotated[
        float | None, msgspec.Meta(description="Age in days of the oldest price of this origin")
    ]


class Health(msgspec.Struct):
    status: Annotated[str, msgspec.Meta(description="ok, or no_snapshot")]
    snapshot_id: str | None
    as_of: datetime | None
    offers: int
    providers: int
    by_origin: Annotated[
        dict[str, OriginCounts],
        msgspec.Meta(
            description="Current offers by where they come from: live (fetched), recorded (a"
            " replayed capture or the recorded offers shipped with gpuprices, at their capture"
            " date) or curated (seed tiers); per provider: GET /providers"
        ),
    ] = {}


class ErrorBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[dict] | None = None


class RefreshResult(msgspec.Struct):
    swapped: Annotated[bool, msgspec.Meta(description="A newer snapshot was loaded by this call")]
    snapshot_id: str
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]


# --- price history ----------------------------------------------------------------------------


class OfferInterval(msgspec.Struct):
    valid_from: Annotated[datetime, msgspec.Meta(description="Start of the interval (inclusive)")]
    valid_to: Annotated[
        datetime | None,
        msgspec.Meta(
            description=(
                "End of the interval (exclusive): the first scrape that saw another price or no longer "
                "listed the offer; null = still current"
            )
        ),
    ]
    price: Annotated[float, msgspec.Meta(description="The provider's price in `currency`")]
    currency: str
    price_per_hour_usd: Annotated[float, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[float | None, msgspec.Meta(description="USD per GPU-hour")]
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: float
    source: Annotated[
        str,
        msgspec.Meta(
            description=(
                "'scrape' (this project's scrapers) or 'import:<dataset>' (backfilled history)"
            )
        ),
    ]


class OfferHistory(msgspec.Struct):
    id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    reserved_term_months: int | None
    items: Annotated[list[OfferInterval], msgspec.Meta(description="Oldest first")]
    as_of: datetime


class MarketBucket(msgspec.Struct):
    start: Annotated[
        date, msgspec.Meta(description="First day of the bucket (UTC; weeks start on Monday)")
    ]
    min_usd_per_gpu_hour: Annotated[
        float, msgspec.Meta(description="Cheapest provider's cheapest offer, USD per GPU-hour")
    ]
    median_usd_per_gpu_hour: Annotated[
        float,
        msgspec.Meta(
            description="Median across providers of each provider's cheapest offer, USD per GPU-hour"
        ),
    ]
    max_usd_per_gpu_hour: Annotated[
        float, msgspec.Meta(description="Dearest provider's cheapest offer, USD per GPU-hour")
    ]
    provider_count: Annotated[
        int, msgspec.Meta(description="Providers with a price on any day of the bucket")
    ]
    offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Offers behind the provider prices: for a day, the day's offers; for a "
            "week or month, per provider the most offers it had on one day of the bucket, added "
            "up (the number of distinct offers while a provider's list is stable, else a lower "
            "bound)"
        ),
    ]
    family_level_provider_count: Annotated[
        int,
        msgspec.Meta(
            description="Of provider_count, the providers whose price is a family-level offer: "
            "one whose source named only the GPU family (gpu_id null, gpu_family set, e.g. "
            "'NVIDIA H100', variant unknown). Always 0 for a canonical GPU id"
        ),
    ]
    family_level_offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Of offer_count, the family-level offers (see "
            "family_level_provider_count). Always 0 for a canonical GPU id"
        ),
    ]


GpuLevel = Annotated[
    Literal["model", "family"],
    msgspec.Meta(
        description="model: one canonical GPU (gpu_id); family: a GPU family only, variant "
        "unknown (gpu_id null, gpu_family set, e.g. gpuhunt's 'H100': SXM, PCIe or NVL)"
    ),
]


class MarketHistory(msgspec.Struct):
    gpu: Annotated[str, msgspec.Meta(description="The GPU id or family asked for (normalised)")]
    gpu_level: Annotated[
        Literal["model", "family"],
        msgspec.Meta(
            description="model: `gpu` is a canonical GPU id and the series holds only its own "
            "offers; family: `gpu` is a family and the series holds its members' offers and the "
            "family-level offers it covers (counted per bucket in family_level_*)"
        ),
    ]
    pricing: str
    bucket: Annotated[str, msgspec.Meta(description="day, week or month")]
    from_: Annotated[date, msgspec.Meta(description="First day (inclusive)")] = msgspec.field(
        name="from"
    )
    to: date
    items: list[MarketBucket]
    as_of: datetime


class CatalogDay(msgspec.Struct):
    day: Annotated[date, msgspec.Meta(description="Day of the catalog capture (UTC)")]
    gpu_level: GpuLevel
    gpu_id: Annotated[
        str | None, msgspec.Meta(description="Canonical GPU id (gpu_level model), else null")
    ]
    gpu_family: Annotated[
        str | None, msgspec.Meta(description="GPU family id (gpu_level family), else null")
    ]
    min_usd_per_instance_hour: Annotated[
        float,
        msgspec.Meta(description="Cheapest provider's cheapest catalog row, USD per instance-hour"),
    ]
    median_usd_per_instance_hour: Annotated[
        float,
        msgspec.Meta(
            description="Median across providers of each provider's cheapest catalog row, USD "
            "per instance-hour"
        ),
    ]
    max_usd_per_instance_hour: Annotated[
        float,
        msgspec.Meta(description="Dearest provider's cheapest catalog row, USD per instance-hour"),
    ]
    provider_count: int
    offer_count: Annotated[
        int, msgspec.Meta(description="Catalog rows behind the figures (all of them, per provider)")
    ]
    source: Annotated[str, msgspec.Meta(description="'import:<dataset>'")]


class CatalogHistory(msgspec.Struct):
    gpu: Annotated[str, msgspec.Meta(description="The GPU id or family asked for (normalised)")]
    gpu_level: Annotated[
        Literal["model", "family"],
        msgspec.Meta(
            description="model: `gpu` is a canonical GPU id, only rows of that model; family: "
            "rows of its member models and family-level rows, each item saying which"
        ),
    ]
    from_: Annotated[
        date | None, msgspec.Meta(description="First day (inclusive); null: from the first")
    ] = msgspec.field(name="from")
    to: Annotated[date, msgspec.Meta(description="Last day (inclusive)")]
    items: Annotated[
        list[CatalogDay],
        msgspec.Meta(description="Oldest first; per day, model-level rows before family-level"),
    ]
    as_of: datetime


class PriceChange(msgspec.Struct):
    changed_at: datetime
    id: Annotated[str, msgspec.Meta(description="Offer id (see /instances/{id}/history)")]
    provider: str
    instance_type: str
    region: str
    pricing: str
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: float
    old_price: Annotated[float, msgspec.Meta(description="In `currency`")]
    new_price: float
    currency: str
    old_price_per_hour_usd: float
    new_price_per_hour_usd: float
    pct_change: Annotated[
        float,
        msgspec.Meta(
            description=(
                "Percent change of the provider's own price (of USD per hour if the currency changed)"
            )
        ),
    ]
    source: str


class PriceChangesPage(msgspec.Struct):
    items: Annotated[list[PriceChange], msgspec.Meta(description="Newest first")]
    total: int
    limit: int
    offset: int
    since: datetime
    as_of: datetime
