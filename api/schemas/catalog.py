"""GET /gpus, /providers, /health, POST /admin/refresh, and the error body."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from api.schemas.base import Number, Schema


class Gpu(Schema):
    gpu_id: str
    name: str
    vendor: str
    architecture: str | None
    vram_gb: Number
    memory_type: str | None
    memory_bandwidth_gbps: Number | None
    fp16_tflops_dense: Number | None
    bf16_tflops_dense: Number | None
    fp8_tflops_dense: Number | None
    int8_tops_dense: Number | None
    fp4_tflops_dense: Number | None
    fp8_support: bool
    bf16_support: bool
    form_factor: str | None
    interconnect: str | None
    interconnect_bandwidth_gbps: Number | None
    tdp_watts: int | None
    source_url: str


class GpuList(Schema):
    items: list[Gpu]
    as_of: datetime


class ProviderStatus(Schema):
    provider: str
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
    data_observed_at: datetime | None
    last_failure_at: datetime | None
    last_error: str | None
    last_status: Annotated[
        str,
        msgspec.Meta(
            description="The last attempt's outcome: success, partial (a success whose fetch"
            " skipped parts: skipped_parts), failed, skipped"
        ),
    ]
    last_attempt_at: datetime | None
    current_offer_count: int
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
    newest_price_observed_at: datetime | None
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


class ProviderList(Schema):
    items: list[ProviderStatus]
    as_of: datetime


class OriginCounts(Schema):
    offers: int
    providers: int
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
    snapshot_id: str | None
    as_of: datetime | None
    offers: int
    providers: int
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
    snapshot_id: str
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]
