"""GET /gpus, /providers, /health, POST /admin/refresh, and the error body."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from api.schemas.base import Number, Schema
from api.schemas.fields import AsOf, GpuId, ProviderSlug, Verified


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


class OriginCounts(Schema):
    offers: Annotated[
        int, msgspec.Meta(description="Current offers of this origin, expired ones included")
    ]
    providers: Annotated[
        int, msgspec.Meta(description="Providers with a current offer of this origin")
    ]
    newest_age_days: Annotated[
        Number | None, msgspec.Meta(description="Age in days of the newest price of this origin")
    ]
    oldest_age_days: Annotated[
        Number | None, msgspec.Meta(description="Age in days of the oldest price of this origin")
    ]


class Health(Schema):
    status: Annotated[
        str,
        msgspec.Meta(
            description="ok; degraded: serving the last good snapshot while a newer one or the "
            "snapshot pointer cannot be read (see problem); or no_snapshot"
        ),
    ]
    snapshot_id: Annotated[
        str | None, msgspec.Meta(description="Id of the served snapshot; null: none is served yet")
    ]
    as_of: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When the served snapshot was published (UTC); null: none is served yet"
        ),
    ]
    offers: Annotated[
        int,
        msgspec.Meta(description="Current offers in the served snapshot, expired ones included"),
    ]
    providers: Annotated[
        int, msgspec.Meta(description="Providers with a current offer in the served snapshot")
    ]
    expired_offers: Annotated[
        int,
        msgspec.Meta(
            description="Of those, offers whose price is past the shelf life of its kind: left "
            "out of answers unless include_expired=true"
        ),
    ] = 0
    data_origin: Annotated[
        str | None,
        msgspec.Meta(
            description="Where the scraped prices come from: live (every one fetched from the "
            "provider), recorded (none: all replayed from dated captures or the recorded offers "
            "shipped with gpuprices), mixed, or curated (seed tiers only); null: no offers"
        ),
    ] = None
    notice: Annotated[
        str | None,
        msgspec.Meta(description="A plain sentence when the prices are not all live; else null"),
    ] = None
    by_origin: Annotated[
        dict[str, OriginCounts],
        msgspec.Meta(
            description="Current offers by where they come from: live (fetched), recorded (a"
            " replayed capture or the recorded offers shipped with gpuprices, at their capture"
            " date) or curated (seed tiers); per provider: GET /providers"
        ),
    ] = msgspec.field(default_factory=dict)
    scraped_providers: Annotated[
        int, msgspec.Meta(description="Providers that have been scraped (GET /providers)")
    ] = 0
    live_providers: Annotated[
        int,
        msgspec.Meta(
            description="Of those, providers whose prices come from a live scrape and are "
            "within their shelf life (GET /providers: live)"
        ),
    ] = 0
    banner: Annotated[
        str | None,
        msgspec.Meta(
            description="A plain sentence when no provider is live, saying what is served "
            "instead (e.g. 'no provider is live: serving recorded data observed 2024-01-23 to "
            "2026-10-01 ...'); null when one is"
        ),
    ] = None
    problem: Annotated[
        str | None,
        msgspec.Meta(description="Why the status is not ok (no server paths); null when ok"),
    ] = None


class ErrorBody(Schema, omit_defaults=True):  # extra only when there is any
    """An RFC 9457 problem (``application/problem+json``), every error answer's body."""

    type: Annotated[
        str,
        msgspec.Meta(description="about:blank: the HTTP status says what kind of problem it is"),
    ]
    title: Annotated[str, msgspec.Meta(description="The HTTP status phrase, e.g. Bad Request")]
    status: Annotated[int, msgspec.Meta(description="The HTTP status code")]
    detail: Annotated[str, msgspec.Meta(description="What was wrong with this request")]
    status_code: Annotated[
        int, msgspec.Meta(description="Deprecated: the same as status (kept for one release)")
    ]
    instance: Annotated[
        str | None,
        msgspec.Meta(description="The request target (path and query) this problem is about"),
    ] = None
    extra: Annotated[
        list[dict] | None,
        msgspec.Meta(
            description="Parameter errors: one entry per parameter (key, source, message, "
            "valid values, did_you_mean)"
        ),
    ] = None


class RefreshResult(Schema):
    swapped: Annotated[bool, msgspec.Meta(description="A newer snapshot was loaded by this call")]
    snapshot_id: Annotated[
        str, msgspec.Meta(description="Id of the snapshot served after this call")
    ]
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]
