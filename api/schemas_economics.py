"""Response schemas of the facts and economics endpoints (documentation of the wire format).

Units are in the names: ``_usd`` US dollars, ``_s`` seconds, ``_gb`` 10^9 bytes, ``_per_s`` per
second, ``_monthly_usd`` USD per month of 730 hours (8760 / 12, the month providers bill by and
the project's one month, ``warehouse.units.HOURS_PER_MONTH``), ``utilization`` a fraction 0..1
of one replica's day. Times are UTC ISO 8601.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, ClassVar

import msgspec

from api.schemas import Excluded, Number, ProviderStatus, Schema
from api.schemas.assumptions import EstimateAssumptions
from api.schemas.provenance import CaptureFiles, ObservedBasis, SourceKind
from api.schemas.shelf_life import EXCLUDED_DOC, Expired, ExpiresAt, PriceKind, ShelfLifeDays


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


# --- GET /providers/{slug}, GET /serverless ---------------------------------------------------


class ProviderFacts(Schema):
    provider: str
    name: str
    kind: Annotated[str, _d("cloud, marketplace or serverless")]
    billing_granularity: Annotated[str | None, _d("second, minute, hour or month; null = unknown")]
    billing_granularity_s: Annotated[Number | None, _d("Metering step, seconds")]
    minimum_charge_s: Annotated[Number | None, _d("Minimum billed duration per start, seconds")]
    egress_usd_per_gb: Annotated[Number | None, _d("Internet egress, first paid tier, USD per GB")]
    block_storage_usd_per_gb_month: Annotated[Number | None, _d("Block storage, USD per GB-month")]
    spot_available: bool | None
    interconnect_notes: Annotated[str | None, _d("Fabric facts per instance family")]
    facts_as_of: Annotated[date | None, _d("Date of the facts (observed_basis); null: undated")]
    source_urls: Annotated[str, _d("Space-separated source URLs, one per fact where possible")]
    notes: str | None
    source_kind: SourceKind
    observed_basis: ObservedBasis
    capture_files: CaptureFiles


class ServerlessTier(Schema):
    id: Annotated[str, _d("Offer id (also served by GET /instances?serverless=true)")]
    platform: str
    tier: str
    gpu_id: Annotated[str | None, _d("Canonical GPU id; null when the source does not pin it")]
    gpu_count: Number
    price: Annotated[Number, _d("As quoted, in `currency` per `price_unit`, for the whole tier")]
    currency: str
    price_unit: Annotated[str, _d("second or hour (the platform's own unit)")]
    price_per_hour_usd: Annotated[Number, _d("USD per hour for the whole tier")]
    always_on: Annotated[bool, _d("Workers run and bill 24/7 (no scale to zero)")]
    price_source: Annotated[str, _d("curated (seed) or scrape")]
    observed_at: Annotated[datetime | None, _d("When the price was observed; null: undated")]
    source_url: str
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
    platform: str
    name: str
    deployment: Annotated[str, _d("container, managed_endpoint or function")]
    billing_granularity_s: Annotated[Number | None, _d("Metering step, seconds")]
    minimum_charge_s: Annotated[Number | None, _d("Minimum billed duration, seconds")]
    scale_to_zero: bool | None
    idle_charged: Annotated[str | None, _d("true, false or partial (a bounded keep-warm window)")]
    min_replicas_supported: bool | None
    warm_pool: str | None
    cold_start_mitigations: str | None
    max_request_duration_s: Annotated[int | None, _d("Longest allowed execution, seconds")]
    concurrency_controls: str | None
    autoscaling_controls: str | None
    persistent_volumes: str | None
    facts_as_of: Annotated[date | None, _d("Date of the facts (observed_basis); null: undated")]
    source_urls: str
    notes: str | None
    source_kind: SourceKind
    observed_basis: ObservedBasis
    capture_files: CaptureFiles
    tiers: list[ServerlessTier]


class ServerlessList(Schema):
    items: list[ServerlessPlatform]
    as_of: datetime


class ProviderDetail(Schema):
    provider: str
    status: Annotated[ProviderStatus | None, _d("Scrape freshness; null for a curated-only slug")]
    facts: Annotated[ProviderFacts | None, _d("Curated billing facts; null when none are seeded")]
    serverless_platform: Annotated[
        ServerlessPlatform | None, _d("Set when the slug is a serverless platform, with its tiers")
    ]
    as_of: datetime


# --- GET /models ------------------------------------------------------------------------------


class Model(Schema):
    model_id: Annotated[str, _d("Id to pass as `model` to /estimates, /fit and /breakeven")]
    name: str
    hf_repo: str
    architecture: Annotated[str, _d("dense or moe")]
    params_total_b: Annotated[Number, _d("Total parameters, billions")]
    params_active_b: Annotated[Number, _d("Parameters active per token, billions")]
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    kv_latent_dim: Annotated[int | None, _d("MLA latent width per token per layer")]
    max_context_tokens: int
    sliding_window_tokens: int | None
    sliding_window_layers: int
    num_experts: int | None
    experts_per_token: int | None
    checkpoint_precision: Annotated[str, _d("Precision the weights are published in")]
    source_url: str


class ModelList(Schema):
    items: list[Model]
    as_of: datetime


# --- GET /estimates ---------------------------------------------------------------------------


class _Precision(Schema):
    precision_requested: Annotated[str, _d("What was asked (standard resolves per GPU)")]
    weight_precision: Annotated[str, _d("Bytes per weight follow this format")]
    compute_precision: Annotated[str, _d("Tensor-core format doing the math")]
    kv_precision: Annotated[str, _d("KV-cache element format")]
    precision_native: Annotated[bool, _d("False when the GPU lacks the format (fallback)")]
    fallback_reason: Annotated[str | None, _d("Which fallback runs and why")]


class _Estimated(_Precision):
    confidence: Annotated[
        str,
        _d(
            "high, medium or low: how close the model came to published measurements in the "
            "nearest calibration regime (docs/estimates.md, confidence bands)"
        ),
    ]
    confidence_basis: Annotated[
        str,
        _d(
            "Calibration regime the band comes from: generation/precision/output length, "
            "* = any (blackwell/fp4/* when blackwell/fp4/long has too few points)"
        ),
    ]
    confidence_points: Annotated[int, _d("Published measurements in that regime")]
    output_tokens_per_s_low: Annotated[
        Number,
        _d(
            "Low end of the band, tokens/s: the estimate over the regime's high (90th "
            "percentile) estimate/measured ratio on published max-throughput runs "
            "(docs/estimates_calibration.csv), widened for a borrowed regime, at least 1.10x"
        ),
    ]
    output_tokens_per_s_high: Annotated[
        Number, _d("High end of the band, tokens/s: the estimate over the low (10th) ratio")
    ]


class EstimateItem(_Estimated):
    offer_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    serverless: bool
    gpu_id: Annotated[str, _d("Canonical GPU id")]
    gpu_count: Number
    model_id: str
    input_tokens: Annotated[int, _d("Prompt tokens per request")]
    output_tokens: Annotated[int, _d("Generated tokens per request")]
    gpus_used: Annotated[int, _d("GPUs of the instance the layout uses (TP x DP)")]
    tensor_parallel: int
    data_parallel: Annotated[int, _d("Independent replicas in the instance")]
    batch_per_replica: Annotated[int, _d("Sequences decoded together per replica")]
    assumptions: Annotated[EstimateAssumptions, _d("What the estimate assumes")]
    output_tokens_per_s: Annotated[Number, _d("Generated tokens per second, whole instance")]
    total_tokens_per_s: Annotated[Number, _d("Prompt + generated tokens per second")]
    price_per_hour_usd: Annotated[Number, _d("USD per instance-hour")]
    usd_per_million_output_tokens: Annotated[Number, _d("USD per 10^6 generated tokens")]
    usd_per_million_total_tokens: Annotated[Number, _d("USD per 10^6 prompt + generated tokens")]
    usd_per_million_total_tokens_low: Annotated[
        Number, _d("Cost at the high end of the throughput band, USD per 10^6 tokens")
    ]
    usd_per_million_total_tokens_high: Annotated[
        Number, _d("Cost at the low end of the throughput band, USD per 10^6 tokens")
    ]
    observed_at: datetime
    source_url: str
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class EstimatesPage(Schema):
    items: list[EstimateItem]
    total: Annotated[int, _d("Fitting offers before limit")]
    excluded: Annotated[Excluded, _d(EXCLUDED_DOC + " (before the fit)")]
    limit: int
    model_id: str
    precision: str
    input_tokens: int
    output_tokens: int
    source: Annotated[str, _d("token_estimates (standard settings, precomputed) or computed")]
    as_of: datetime


class HardwareEstimate(_Estimated):
    model_id: str
    gpu_id: str
    gpus: Annotated[int, _d("GPUs of `gpu_id` asked about")]
    input_tokens: int
    output_tokens: int
    fits: bool
    not_estimated_reason: str | None
    tensor_parallel: int
    data_parallel: int
    batch_per_replica: int
    output_tokens_per_s: Annotated[Number, _d("Generated tokens per second, all GPUs")]
    total_tokens_per_s: Number
    decode_tokens_per_s_per_sequence: Annotated[Number, _d("Decode speed one request sees")]
    prefill_s_per_request: Annotated[Number, _d("Replica seconds spent on one prompt")]
    assumptions: Annotated[
        EstimateAssumptions | None, _d("What the estimate assumes; null when it does not fit")
    ]
    as_of: datetime


# --- GET /fit ---------------------------------------------------------------------------------


class FitGpu(_Precision):
    gpu_id: str
    fits: bool
    min_gpus: Annotated[int | None, _d("Smallest TP group that holds the model; null = none")]
    gpus_in_breakdown: Annotated[int, _d("Group size the memory figures are for")]
    weights_gb: Number
    kv_cache_gb: Annotated[Number, _d("All `concurrency` sequences of `context` tokens")]
    overhead_gb: Annotated[Number, _d("Reserved 10% + 2 GB workspace per GPU")]
    required_gb: Number
    capacity_gb: Number
    offers: Annotated[int, _d("Current offers with this GPU")]
    offers_that_fit: Annotated[int, _d("Of those, with at least min_gpus GPUs")]
    cheapest_offer_id: str | None
    cheapest_price_per_hour_usd: Number | None


class FitOffer(Schema):
    offer_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    serverless: bool
    gpu_id: str
    gpu_count: Number
    min_gpus: int
    price_per_hour_usd: Number
    source_url: str
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class FitAnswer(Schema):
    CSV_LIST: ClassVar[str] = "offers"  # format=csv writes the offers (api.encoding)

    model_id: str
    precision: str
    context_tokens: Annotated[int, _d("Tokens per sequence (prompt + generated)")]
    concurrency: Annotated[int, _d("Sequences resident at once")]
    gpus: list[FitGpu]
    offers: Annotated[list[FitOffer], _d("Offers that can serve it, cheapest per hour first")]
    offers_total: int
    excluded: Annotated[Excluded, _d(EXCLUDED_DOC + " (before the fit)")]
    as_of: datetime


# --- GET /breakeven ---------------------------------------------------------------------------


class BreakevenItem(Schema):
    offer_id: str
    platform: str
    tier: str
    gpu_id: str
    gpu_count: Number
    price_per_hour_usd: Annotated[Number, _d("Serverless tier, USD per hour of runtime")]
    billing_granularity_s: Number
    minimum_charge_s: Number
    idle_charged: bool
    scale_to_zero: bool
    assumptions: Annotated[list[str], _d("Defaults used for facts the seeds leave unknown")]
    gpu_seconds_per_request: Annotated[Number, _d("Tier runtime seconds per request")]
    billed_seconds_per_day: Annotated[Number, _d("Incl. rounding, cold starts, idle tail, warm")]
    serverless_monthly_usd: Number
    dedicated_offer_id: str | None
    dedicated_provider: str | None
    dedicated_instance_type: str | None
    dedicated_gpu_id: str | None
    dedicated_gpu_count: Number | None
    dedicated_price_per_hour_usd: Number | None
    dedicated_gpu_seconds_per_request: Number | None
    dedicated_replicas: int | None
    dedicated_monthly_usd: Annotated[Number | None, _d("Replicas x USD/hour x 730 h")]
    dedicated_utilization: Annotated[Number | None, _d("Busy share of the dedicated replicas")]
    cheaper: Annotated[str | None, _d("serverless or dedicated; null without a dedicated offer")]
    breakeven_requests_per_day: Annotated[
        Number | None, _d("Load at which this tier costs as much as one dedicated replica")
    ]
    breakeven_dedicated_utilization: Annotated[
        Number | None,
        _d(
            "That load as a busy share of one dedicated replica: above it, "
            "dedicated wins; null = serverless stays cheaper"
        ),
    ]
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class CheapestDedicated(Schema):
    offer_id: str
    provider: str
    instance_type: str
    gpu_id: str
    gpu_count: Number
    pricing: str
    price_per_hour_usd: Number
    gpu_seconds_per_request: Number
    replicas: int
    monthly_usd: Number
    source_url: str
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class NotFitting(Schema):
    offer_id: str
    reason: str


class BreakevenAnswer(Schema):
    requests_per_day: Number
    model_id: str | None
    gpu_seconds_per_request: Number | None
    input_tokens: int
    output_tokens: int
    precision: str
    concurrency: int
    cold_start_s: Number
    min_warm_replicas: int
    idle_timeout_s: Number
    dedicated_pricing: str
    hours_per_month: Annotated[Number, _d("Hours in the month used for monthly costs")]
    cheapest_dedicated: CheapestDedicated | None
    items: list[BreakevenItem]
    total: int
    excluded: Annotated[
        Excluded, _d(EXCLUDED_DOC + " (serverless tiers and dedicated offers, before the fit)")
    ]
    not_fitting: list[NotFitting]
    as_of: datetime
