"""Response schemas of GET /breakeven: serverless tiers against the cheapest dedicated offer
for one load (``api.economics.breakeven``). Units as in ``api.economics.schemas``: ``_usd`` US
dollars, ``_s`` seconds, ``_monthly_usd`` USD per month of 730 hours, ``utilization`` a
fraction 0..1 of one replica's day."""

from __future__ import annotations

from typing import Annotated

import msgspec

from api.schemas import Excluded, Number, Schema
from api.schemas.fields import (
    AsOf,
    GpuCount,
    GpuId,
    InputTokens,
    InstanceType,
    OfferId,
    OutputTokens,
    PlatformSlug,
    Pricing,
    ProviderSlug,
    RequestedPrecision,
    SourceUrl,
)
from api.schemas.shelf_life import (
    EXCLUDED_DOC,
    AgeDays,
    Expired,
    ExpiresAt,
    PriceKind,
    ShelfLifeDays,
)


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


# --- GET /breakeven ---------------------------------------------------------------------------


class BreakevenItem(Schema):
    offer_id: OfferId
    platform: PlatformSlug
    tier: Annotated[str, _d("The platform's name of the tier")]
    gpu_id: GpuId
    gpu_count: GpuCount
    price_per_hour_usd: Annotated[Number, _d("Serverless tier, USD per hour of runtime")]
    billing_granularity_s: Annotated[Number, _d("Metering step of the tier, seconds")]
    minimum_charge_s: Annotated[Number, _d("Minimum billed duration per start, seconds")]
    idle_charged: Annotated[bool, _d("The idle time before a worker stops is billed")]
    scale_to_zero: Annotated[bool, _d("Workers stop when idle (no charge then)")]
    assumptions: Annotated[list[str], _d("Defaults used for facts the seeds leave unknown")]
    gpu_seconds_per_request: Annotated[Number, _d("Tier runtime seconds per request")]
    billed_seconds_per_day: Annotated[Number, _d("Incl. rounding, cold starts, idle tail, warm")]
    serverless_monthly_usd: Annotated[Number, _d("The load on this tier, USD per month (730 h)")]
    dedicated_offer_id: Annotated[str | None, _d("The dedicated offer compared; null: none fits")]
    dedicated_provider: Annotated[str | None, _d("That offer's provider slug; null: none")]
    dedicated_instance_type: Annotated[str | None, _d("That offer's instance type; null: none")]
    dedicated_gpu_id: Annotated[str | None, _d("That offer's canonical GPU id; null: none")]
    dedicated_gpu_count: Annotated[Number | None, _d("That offer's GPUs per instance; null: none")]
    dedicated_price_per_hour_usd: Annotated[
        Number | None, _d("That offer's price, USD per instance-hour; null: none")
    ]
    dedicated_gpu_seconds_per_request: Annotated[
        Number | None, _d("Seconds per request on it; null: none")
    ]
    dedicated_replicas: Annotated[
        int | None,
        _d(
            "Dedicated replicas the load needs (at least min_warm_replicas, at least 1); null: none"
        ),
    ]
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
    age_days: AgeDays
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class CheapestDedicated(Schema):
    offer_id: OfferId
    provider: ProviderSlug
    instance_type: InstanceType
    gpu_id: GpuId
    gpu_count: GpuCount
    pricing: Pricing
    price_per_hour_usd: Annotated[Number, _d("USD per instance-hour")]
    gpu_seconds_per_request: Annotated[Number, _d("Runtime seconds per request on this offer")]
    replicas: Annotated[int, _d("Replicas the load needs (at least min_warm_replicas, at least 1)")]
    monthly_usd: Annotated[Number, _d("replicas x USD/hour x 730 h, USD per month")]
    source_url: SourceUrl
    age_days: AgeDays
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class NotFitting(Schema):
    offer_id: OfferId
    reason: Annotated[
        str, _d("Why the model cannot run on the tier, e.g. 'llama-3.1-8b does not fit 1 x t4'")
    ]


class BreakevenAnswer(Schema):
    requests_per_day: Annotated[Number, _d("Requests per day, as asked")]
    model_id: Annotated[str | None, _d("The model asked for; null: gpu_seconds_per_request given")]
    gpu_seconds_per_request: Annotated[
        Number | None,
        _d(
            "Runtime seconds per request, as asked; null when model was given (then estimated per"
            " offer: gpu_seconds_per_request of each item)"
        ),
    ]
    input_tokens: InputTokens
    output_tokens: OutputTokens
    precision: RequestedPrecision
    concurrency: Annotated[int, _d("Requests one replica serves at once, as asked")]
    cold_start_s: Annotated[Number, _d("Seconds billed per cold start, as asked")]
    min_warm_replicas: Annotated[int, _d("Replicas kept warm all day, as asked")]
    idle_timeout_s: Annotated[Number, _d("Seconds a worker stays up after a request, as asked")]
    dedicated_pricing: Annotated[str, _d("Dedicated side: on_demand, spot, reserved or any")]
    hours_per_month: Annotated[Number, _d("Hours in the month used for monthly costs")]
    cheapest_dedicated: Annotated[
        CheapestDedicated | None,
        _d("The dedicated offer with the lowest monthly cost for the load; null: none fits"),
    ]
    items: Annotated[list[BreakevenItem], _d("Serverless tiers that fit, cheapest per month first")]
    total: Annotated[int, _d("Tiers that fit, before limit")]
    excluded: Annotated[
        Excluded, _d(EXCLUDED_DOC + " (serverless tiers and dedicated offers, before the fit)")
    ]
    not_fitting: Annotated[list[NotFitting], _d("Serverless tiers the model cannot run on")]
    as_of: AsOf
