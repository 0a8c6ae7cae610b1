"""GET /instances: one offer (InstanceItem) and a page of them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Annotated, Any

import msgspec

from api.schemas.base import Number, Schema
from api.schemas.fields import (
    CloudTier,
    Currency,
    InstanceType,
    Limit,
    NextOffset,
    Offset,
    ProviderSlug,
    SourceUrl,
)
from api.schemas.provenance import ObservedBasis, SourceKind
from api.schemas.shelf_life import (
    EXCLUDED_DOC,
    AgeDays,
    Available,
    AvailableUntil,
    Excluded,
    Expired,
    ExpiresAt,
    PriceKind,
    ShelfLifeDays,
)


class PriceStatusReason(Schema):
    code: Annotated[
        str,
        msgspec.Meta(
            description="below_market, above_market, repeated_price, spot_not_below_on_demand, community_above_secure or not_offered"
        ),
    ]
    detail: Annotated[
        str,
        msgspec.Meta(
            description="What the screen found, in a sentence (e.g. the market median it compared with)"
        ),
    ]


class InstanceItem(Schema):
    id: Annotated[
        str,
        msgspec.Meta(
            description="Stable offer id: same provider, instance type, region, cloud tier and pricing model keep it across runs"
        ),
    ]
    provider: ProviderSlug
    instance_type: InstanceType
    region: Annotated[
        str,
        msgspec.Meta(
            description="The provider's own region id (a data centre, zone, country code or"
            " host location as the provider spells it); 'global' when the price names no"
            " place, 'unknown' when the source withholds it. Never a product tier"
            " (cloud_tier)"
        ),
    ]
    cloud_tier: CloudTier
    country: Annotated[
        str | None,
        msgspec.Meta(
            description="ISO 3166-1 alpha-2 country of the region (warehouse/seeds/regions.csv)"
            " or of the host, as the source states it; null: the region names no country"
            " (global, unknown, or an area of several countries)"
        ),
    ]
    continent: Annotated[
        str | None,
        msgspec.Meta(
            description="north-america, south-america, europe, asia, middle-east, africa,"
            " oceania or antarctica; null: the region names no place, or spans continents"
        ),
    ]
    gpu_id: Annotated[
        str | None,
        msgspec.Meta(
            description="Canonical GPU id (see GET /gpus, e.g. h100-sxm); null when the provider's GPU is not in the table or the row fits several models (then gpu_family)"
        ),
    ]
    gpu_family: Annotated[
        str | None,
        msgspec.Meta(
            description="The GPU family of a row no canonical GPU fits alone (gpu_id null): the id segments every model agreeing with the row's name, VRAM and stated form factor shares, e.g. a100-80gb (80 GB SXM or PCIe A100) or h100; gpu=a100 matches it. Null when gpu_id is set or the GPU is unknown"
        ),
    ]
    gpu_name: Annotated[
        str | None, msgspec.Meta(description="Display name of the canonical GPU (GET /gpus name)")
    ]
    gpu_name_provider: Annotated[str, msgspec.Meta(description="The provider's own spelling")]
    gpu_vendor: Annotated[
        str | None,
        msgspec.Meta(
            description="Maker of the canonical GPU (NVIDIA, AMD or Intel); null if the GPU is unknown"
        ),
    ]
    gpu_count: Annotated[
        Number, msgspec.Meta(description="GPUs per instance (fractional for shared GPUs)")
    ]
    gpu_candidates: Annotated[
        list[str] | None,
        msgspec.Meta(
            description="A serverless tier that may land on several GPUs: their canonical ids (gpu_id is the weakest, and specs are the guaranteed minimum); null otherwise"
        ),
    ]
    gpu_fraction: Annotated[
        Number,
        msgspec.Meta(
            description="Share of one GPU the offer gives (1 = whole GPUs; 0.125 = a 1/8 vGPU share; MIG profile = its memory share)"
        ),
    ]
    vram_gb_per_gpu: Annotated[
        Number | None,
        msgspec.Meta(
            description="Datasheet GB of memory of the canonical GPU (GET /gpus); null if the GPU is unknown"
        ),
    ]
    vram_gb_usable: Annotated[
        Number | None,
        msgspec.Meta(
            description="GB of GPU memory the user gets per GPU: the datasheet figure, times gpu_fraction for a share of a GPU. min_vram, sort=vram, $/GB and model fit use it"
        ),
    ]
    vram_gb_total: Annotated[
        Number | None,
        msgspec.Meta(description="Usable GB of GPU memory per instance (gpu_count x datasheet)"),
    ]
    vram_gb_reported: Annotated[
        Number | None,
        msgspec.Meta(
            description="GB per whole GPU as the provider reports it (may be MiB read as GB, or include CPU memory); never used for filters"
        ),
    ]
    vram_report_mismatch: Annotated[
        bool,
        msgspec.Meta(description="vram_gb_reported is more than 10% away from the datasheet"),
    ]
    memory_type: Annotated[
        str | None,
        msgspec.Meta(
            description="Memory technology of the canonical GPU, e.g. HBM3; null if unknown"
        ),
    ]
    memory_bandwidth_gbps: Annotated[Number | None, msgspec.Meta(description="GB/s per GPU")]
    fp8: Annotated[
        bool | None, msgspec.Meta(description="Native FP8 support; null when the GPU is unknown")
    ]
    bf16: Annotated[
        bool | None, msgspec.Meta(description="Native BF16 support; null when the GPU is unknown")
    ]
    interconnect: Annotated[
        str | None,
        msgspec.Meta(
            description="The instance's GPU interconnect: none for one GPU (or a share of one); for several GPUs the GPU model's (nvlink, nvlink_bridge, nvlink_c2c, pcie, infinity_fabric, roce); null when the GPU is unknown"
        ),
    ]
    vcpus: Annotated[
        Number | None,
        msgspec.Meta(
            description="Virtual CPUs per instance, as the provider states them; null: not stated"
        ),
    ]
    ram_gb: Annotated[
        Number | None, msgspec.Meta(description="System memory per instance, GB; null: not stated")
    ]
    storage_gb: Annotated[
        Number | None, msgspec.Meta(description="Local disk per instance, GB; null: not stated")
    ]
    pricing: Annotated[
        str,
        msgspec.Meta(
            description="on_demand, spot, reserved, or dynamic (a price the provider re-sets daily)"
        ),
    ]
    reserved_term_months: Annotated[
        int | None,
        msgspec.Meta(
            description="Commitment of a reserved price, months; null for other pricing models"
        ),
    ]
    price: Annotated[
        Number,
        msgspec.Meta(
            description="Price as the provider quotes it, in `currency` per `price_unit` per `price_per`"
        ),
    ]
    currency: Currency
    price_unit: Annotated[str, msgspec.Meta(description="second, minute, hour or month")]
    price_per: Annotated[str, msgspec.Meta(description="instance or gpu")]
    price_per_hour: Annotated[
        Number, msgspec.Meta(description="Instance-hour price in `currency` (months = 730 h)")
    ]
    usd_per_unit: Annotated[
        Number, msgspec.Meta(description="Exchange rate used, USD per unit of `currency`")
    ]
    fx_rate_date: Annotated[
        date | None,
        msgspec.Meta(
            description="Date of the ECB reference rate used (the last one on or before the observation date); null for USD prices"
        ),
    ]
    price_per_hour_usd: Annotated[Number, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[Number, msgspec.Meta(description="USD per GPU-hour")]
    price_per_vram_gb_hour_usd: Annotated[
        Number | None, msgspec.Meta(description="USD per GB of VRAM per hour")
    ]
    # Announced prices (docs/history.md): a price the provider announced for a date
    announced: Annotated[
        bool,
        msgspec.Meta(
            description="The price is one the provider announced from announced_from, now in force (the snapshot is dated on or after it; no scrape has shown it as current yet): every price figure above is the announced one, previous_price* the one it replaced"
        ),
    ]
    announced_from: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When the announced price takes (or took, with announced=true) effect, UTC; null: nothing announced"
        ),
    ]
    announced_price: Annotated[
        Number | None,
        msgspec.Meta(
            description="A price announced from announced_from, not yet in force at the snapshot, in `currency` per `price_unit` per `price_per`; null otherwise"
        ),
    ]
    announced_price_per_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(
            description="announced_price in USD per instance-hour (the observation's exchange rate); null otherwise"
        ),
    ]
    announced_price_per_gpu_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="announced_price in USD per GPU-hour; null otherwise"),
    ]
    previous_price: Annotated[
        Number | None,
        msgspec.Meta(
            description="With announced=true: the price the scrape showed in force before announced_from, in `currency` per `price_unit` per `price_per`; null otherwise"
        ),
    ]
    previous_price_per_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="previous_price in USD per instance-hour; null otherwise"),
    ]
    previous_price_per_gpu_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="previous_price in USD per GPU-hour; null otherwise"),
    ]
    listings: Annotated[
        int,
        msgspec.Meta(
            description="How many identical rows of the source this offer stands for: a marketplace host row repeated exactly (same GPU, count, price, region, specs) is one offer listed N times; 1 otherwise"
        ),
    ]
    single_gpu_price: Annotated[
        Number | None,
        msgspec.Meta(
            description="A price for one GPU of this instance's model that the source prints beside the instance price (e.g. CoreWeave's Inference Single GPU column), in `currency` per `price_unit`; a property of this offer, not an offer; null when the source prints none"
        ),
    ]
    single_gpu_price_per_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="single_gpu_price in USD per GPU-hour; null otherwise"),
    ]
    price_status: Annotated[
        str,
        msgspec.Meta(
            description="ok; suspect: the plausibility screen judged the price not real (listed only with include_suspect=true); or confirmed: the screen questioned the price next to the market, but another capture (another day, or another source document of the provider) shows the same offer at the same price, so it is listed like an ok one"
        ),
    ]
    price_status_reasons: Annotated[
        list[PriceStatusReason],
        msgspec.Meta(
            description="Why the price is suspect or was questioned (for confirmed: what the"
            " screen found, then the confirmation, code confirmed); empty when ok"
        ),
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
        Number | None, msgspec.Meta(description=("Metering step in seconds (a month = 730 h)"))
    ]
    minimum_charge_s: Annotated[
        Number | None, msgspec.Meta(description=("Minimum billed duration per start, seconds"))
    ]
    egress_usd_per_gb: Annotated[
        Number | None,
        msgspec.Meta(
            description=("Internet egress, first paid tier, USD per GB (10^9 bytes); 0 = free")
        ),
    ]
    block_storage_usd_per_gb_month: Annotated[
        Number | None, msgspec.Meta(description=("Network block storage, USD per GB-month"))
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
    serverless: Annotated[
        bool,
        msgspec.Meta(
            description="A serverless tier (billed per use, scales to zero), not an instance"
        ),
    ]
    observed_at: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When the price was observed (a capture's date, not when it was loaded); at observed_precision; null: the source prints no date (observed_basis undated)"
        ),
    ]
    observed_precision: Annotated[
        str,
        msgspec.Meta(
            description="second (live fetch), minute, day or month: a capture dated only to a month is observed at the month's first instant"
        ),
    ]
    age_days: AgeDays
    stale: Annotated[
        bool,
        msgspec.Meta(
            description="The price is older than GPUPRICES_STALE_AFTER_DAYS (default 30) days, whatever the last scrape did, or has no date"
        ),
    ]
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired
    available: Available
    available_until: AvailableUntil
    data_origin: Annotated[
        str,
        msgspec.Meta(
            description="live (fetched from the provider), recorded (replayed from a dated capture) or curated (a seed row dated by its source)"
        ),
    ]
    source_url: SourceUrl
    source_kind: SourceKind
    observed_basis: ObservedBasis


class InstancesPage(Schema):
    items: Annotated[
        list[InstanceItem],
        msgspec.Meta(description="The matching offers of this page, in the requested sort order"),
    ]
    total: Annotated[int, msgspec.Meta(description="Matching offers before limit/offset")]
    excluded: Annotated[Excluded, msgspec.Meta(description=EXCLUDED_DOC)]
    limit: Limit
    offset: Offset
    next_offset: NextOffset
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]


def instance_item(row: Mapping[str, Any]) -> InstanceItem:
    """One offer row (``warehouse.queries.INSTANCE_COLUMNS`` plus ``offers_in_group``) as its
    response schema. Raises ``msgspec.ValidationError`` if the row does not fit it."""
    return msgspec.convert(row, InstanceItem)
