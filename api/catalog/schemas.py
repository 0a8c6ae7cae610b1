"""Response schemas of the catalog: GET /gpus, /providers, /providers/{slug}, /serverless.

Units are in the names: ``_usd`` US dollars, ``_s`` seconds, ``_gb`` 10^9 bytes. Times are UTC
ISO 8601.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import msgspec

from api.schemas.base import Number, Schema
from api.schemas.fields import (
    AsOf,
    Currency,
    GpuCount,
    GpuId,
    PlatformSlug,
    ProviderSlug,
    SourceUrl,
    Verified,
)
from api.schemas.provenance import CaptureFiles, ObservedBasis, SourceKind
from api.schemas.shelf_life import ExpiresAt, PriceKind, ShelfLifeDays


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class Gpu(Schema):
    gpu_id: GpuId
    name: Annotated[str, msgspec.Meta(description="Display name, e.g. NVIDIA H100 SXM5 80GB")]
    vendor: Annotated[str, msgspec.Meta(description="Maker of the GPU: NVIDIA, AMD or Intel")]
    architecture: Annotated[
        str | None,
        msgspec.Meta(description="Micro-architecture, e.g. Hopper or CDNA 3; null: not stated"),
    ]
    vram_gb: Annotated[Number, msgspec.Meta(description="Datasheet memory per GPU, GB")]
    memory_type: Annotated[
        str | None,
        msgspec.Meta(description="Memory technology, e.g. HBM3 or GDDR6; null: not stated"),
    ]
    memory_bandwidth_gbps: Annotated[
        Number | None,
        msgspec.Meta(description="Datasheet memory bandwidth per GPU, GB/s; null: not stated"),
    ]
    fp16_tflops_dense: Annotated[
        Number | None,
        msgspec.Meta(
            description="Dense FP16 tensor throughput (no sparsity), TFLOPS; null: not published"
        ),
    ]
    bf16_tflops_dense: Annotated[
        Number | None,
        msgspec.Meta(
            description="Dense BF16 tensor throughput (no sparsity), TFLOPS; null: not published"
        ),
    ]
    fp8_tflops_dense: Annotated[
        Number | None,
        msgspec.Meta(
            description="Dense FP8 tensor throughput (no sparsity), TFLOPS; null: not published or no FP8"
        ),
    ]
    int8_tops_dense: Annotated[
        Number | None,
        msgspec.Meta(
            description="Dense INT8 tensor throughput (no sparsity), TOPS; null: not published"
        ),
    ]
    fp4_tflops_dense: Annotated[
        Number | None,
        msgspec.Meta(
            description="Dense FP4 tensor throughput (no sparsity), TFLOPS; null: not published or no FP4"
        ),
    ]
    fp8_support: Annotated[bool, msgspec.Meta(description="Native FP8 tensor cores")]
    bf16_support: Annotated[bool, msgspec.Meta(description="Native BF16 support")]
    form_factor: Annotated[
        str | None, msgspec.Meta(description="SXM, PCIe, OAM or superchip; null: not stated")
    ]
    interconnect: Annotated[
        str | None,
        msgspec.Meta(
            description="GPU-to-GPU link of a multi-GPU system: nvlink, nvlink_bridge, nvlink_c2c, pcie, infinity_fabric or roce; null: not stated"
        ),
    ]
    interconnect_bandwidth_gbps: Annotated[
        Number | None,
        msgspec.Meta(
            description="GPU-to-GPU bandwidth per GPU over that link, GB/s; null: not stated"
        ),
    ]
    tdp_watts: Annotated[
        int | None, msgspec.Meta(description="Thermal design power, watts; null: not stated")
    ]
    source_url: Annotated[str, msgspec.Meta(description="The datasheet the figures are read from")]


class GpuList(Schema):
    items: Annotated[
        list[Gpu],
        msgspec.Meta(description="Every GPU of the canonical table (warehouse/seeds/gpus.csv)"),
    ]
    as_of: AsOf


class ProviderStatus(Schema):
    provider: ProviderSlug
    last_success_at: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When a live scrape of the provider last succeeded; loading recorded "
            "data never counts (last_recorded_load_at); null: never scraped live"
        ),
    ]
    last_recorded_load_at: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When recorded data was last loaded for it: a replayed capture, or the "
            "recorded offers shipped with gpuprices after a live fetch failed; null: never"
        ),
    ]
    data_observed_at: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When the data of its newest successful scrape or load was observed (a replayed capture's date, not when it was loaded); null: never"
        ),
    ]
    last_failure_at: Annotated[
        datetime | None,
        msgspec.Meta(description="When an attempt last failed, UTC; null: none failed"),
    ]
    last_error: Annotated[
        str | None,
        msgspec.Meta(
            description="The error of the last failed attempt, one line; null: none failed"
        ),
    ]
    last_status: Annotated[
        str,
        msgspec.Meta(
            description="The last attempt's outcome: success, partial (a success whose fetch"
            " skipped parts: skipped_parts), failed, skipped"
        ),
    ]
    last_attempt_at: Annotated[
        datetime | None,
        msgspec.Meta(description="When a scrape or load was last started, UTC; null: never"),
    ]
    current_offer_count: Annotated[
        int, msgspec.Meta(description="Its offers in the served snapshot, expired ones included")
    ]
    suspect_offer_count: Annotated[
        int, msgspec.Meta(description="Current offers the plausibility screen marks suspect")
    ]
    stale_offer_count: Annotated[
        int, msgspec.Meta(description="Current offers whose price is older than the threshold")
    ]
    expired_offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Current offers whose price is past the shelf life of its kind "
            "(expired): left out of every answer unless include_expired=true"
        ),
    ]
    vram_mismatch_count: Annotated[
        int,
        msgspec.Meta(description="Current offers whose reported memory is >10% off the datasheet"),
    ]
    newest_price_observed_at: Annotated[
        datetime | None,
        msgspec.Meta(description="observed_at of its newest current price; null: no current offer"),
    ]
    newest_price_age_days: Annotated[
        Number | None, msgspec.Meta(description="Age in days of the provider's newest served price")
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
    benign_row_count: Annotated[
        int,
        msgspec.Meta(
            description="Of those, rows of a known kind that is not an offer (Windows prices, "
            "CPU-only servers, 'contact sales')"
        ),
    ]
    benign_rows: Annotated[
        dict[str, int],
        msgspec.Meta(description="Those benign rows per reason, e.g. {'windows': 30}"),
    ]
    unknown_row_count: Annotated[
        int,
        msgspec.Meta(
            description="Of those, rows the parser does not know (a new SKU, GPU or family) or "
            "whose cell did not read: a person should look at them"
        ),
    ]
    unknown_rows: Annotated[
        dict[str, int],
        msgspec.Meta(
            description="Those rows per reason, naming each: 'unknown_<kind> <name>' (e.g. "
            "'unknown_sku Standard_ND96isr_Z100_v9'), 'unparsed_<cell> ...'"
        ),
    ]
    expired_by_kind: Annotated[
        dict[str, int],
        msgspec.Meta(description="Those expired offers per price_kind, e.g. {'spot': 16}"),
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
    kept_offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Current offers the served scrape did not list because it skipped parts:"
            " each is served from the last scrape that listed it (its observed_at says when)"
        ),
    ]
    shelf_life_days: Annotated[
        Number | None,
        msgspec.Meta(
            description="The provider's shelf life: the longest shelf life among the kinds of "
            "its current prices (GPUPRICES_SHELF_LIFE_DAYS_*); null: no current offer"
        ),
    ]
    fresh_until: Annotated[
        datetime | None,
        msgspec.Meta(
            description="The last instant one of its current prices is in force (its newest "
            "price's observed_at plus the shelf life); stale from then"
        ),
    ]
    stale: Annotated[
        bool,
        msgspec.Meta(
            description="Its newest price is older than its shelf life (no current price is "
            "in force at the snapshot's as_of), however recently it was scraped or replayed; "
            "true with no current offer"
        ),
    ]
    live: Annotated[
        bool,
        msgspec.Meta(
            description="Its prices come from a live scrape and are within their shelf life "
            "(not stale); false for replayed or recorded data"
        ),
    ]
    overdue: Annotated[
        bool,
        msgspec.Meta(
            description="No live scrape succeeded within GPUPRICES_STALE_AFTER_HOURS (default "
            "24) hours before the snapshot was published: the pipeline is not refreshing it"
        ),
    ]
    verified: Verified


class ProviderList(Schema):
    items: Annotated[
        list[ProviderStatus],
        msgspec.Meta(
            description="One status per provider that has ever been scraped or loaded, by slug"
        ),
    ]
    as_of: AsOf


# --- GET /providers/{slug}, GET /serverless ---------------------------------------------------


class ProviderFacts(Schema):
    provider: ProviderSlug
    name: Annotated[str, _d("The provider's display name")]
    kind: Annotated[str, _d("cloud, marketplace or serverless")]
    verified: Verified
    billing_granularity: Annotated[str | None, _d("second, minute, hour or month; null = unknown")]
    billing_granularity_s: Annotated[Number | None, _d("Metering step, seconds")]
    minimum_charge_s: Annotated[Number | None, _d("Minimum billed duration per start, seconds")]
    egress_usd_per_gb: Annotated[Number | None, _d("Internet egress, first paid tier, USD per GB")]
    block_storage_usd_per_gb_month: Annotated[Number | None, _d("Block storage, USD per GB-month")]
    spot_available: Annotated[bool | None, _d("Sells a spot / preemptible tier; null: unknown")]
    interconnect_notes: Annotated[str | None, _d("Fabric facts per instance family")]
    facts_as_of: Annotated[date | None, _d("Date of the facts (observed_basis); null: undated")]
    source_urls: Annotated[str, _d("Space-separated source URLs, one per fact where possible")]
    notes: Annotated[str | None, _d("Billing details beyond the fields above; null: none")]
    source_kind: SourceKind
    observed_basis: ObservedBasis
    capture_files: CaptureFiles


class ServerlessTier(Schema):
    id: Annotated[str, _d("Offer id (also served by GET /instances?serverless=true)")]
    platform: PlatformSlug
    tier: Annotated[str, _d("The platform's name of the tier, e.g. flex H200 PRO 141 GB")]
    gpu_id: Annotated[str | None, _d("Canonical GPU id; null when the source does not pin it")]
    gpu_count: GpuCount
    price: Annotated[Number, _d("As quoted, in `currency` per `price_unit`, for the whole tier")]
    currency: Currency
    price_unit: Annotated[str, _d("second or hour (the platform's own unit)")]
    price_per_hour_usd: Annotated[Number, _d("USD per hour for the whole tier")]
    always_on: Annotated[bool, _d("Workers run and bill 24/7 (no scale to zero)")]
    price_source: Annotated[str, _d("curated (seed) or scrape")]
    observed_at: Annotated[datetime | None, _d("When the price was observed; null: undated")]
    source_url: SourceUrl
    source_kind: SourceKind
    observed_basis: ObservedBasis
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Annotated[
        bool,
        _d(
            "The price was past expires_at when the snapshot was published: this catalogue "
            "lists it, GET /instances only with include_expired=true"
        ),
    ]


class ServerlessPlatform(Schema):
    platform: PlatformSlug
    name: Annotated[str, _d("The platform's display name")]
    deployment: Annotated[str, _d("container, managed_endpoint or function")]
    billing_granularity_s: Annotated[Number | None, _d("Metering step, seconds")]
    minimum_charge_s: Annotated[Number | None, _d("Minimum billed duration, seconds")]
    scale_to_zero: Annotated[bool | None, _d("Idle workers stop and cost nothing; null: unknown")]
    idle_charged: Annotated[str | None, _d("true, false or partial (a bounded keep-warm window)")]
    min_replicas_supported: Annotated[
        bool | None, _d("Minimum warm workers can be set; null: unknown")
    ]
    warm_pool: Annotated[str | None, _d("How workers are kept warm; null: unknown")]
    cold_start_mitigations: Annotated[str | None, _d("What shortens cold starts; null: unknown")]
    max_request_duration_s: Annotated[int | None, _d("Longest allowed execution, seconds")]
    concurrency_controls: Annotated[str | None, _d("Limits on concurrent work; null: unknown")]
    autoscaling_controls: Annotated[str | None, _d("Settings that drive scaling; null: unknown")]
    persistent_volumes: Annotated[str | None, _d("Storage that outlives a worker; null: unknown")]
    facts_as_of: Annotated[date | None, _d("Date of the facts (observed_basis); null: undated")]
    source_urls: Annotated[str, _d("Space-separated source URLs of the facts")]
    notes: Annotated[str | None, _d("Billing details the fields above do not hold; null: none")]
    source_kind: SourceKind
    observed_basis: ObservedBasis
    capture_files: CaptureFiles
    tiers: Annotated[list[ServerlessTier], _d("The platform's GPU tiers with their prices")]


class ServerlessList(Schema):
    items: Annotated[list[ServerlessPlatform], _d("Every serverless platform, with its tiers")]
    as_of: AsOf


class ProviderDetail(Schema):
    provider: ProviderSlug
    status: Annotated[ProviderStatus | None, _d("Scrape freshness; null for a curated-only slug")]
    facts: Annotated[ProviderFacts | None, _d("Curated billing facts; null when none are seeded")]
    serverless_platform: Annotated[
        ServerlessPlatform | None, _d("Set when the slug is a serverless platform, with its tiers")
    ]
    as_of: AsOf
