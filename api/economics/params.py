"""Query parameters of GET /estimates, /fit and /breakeven, each endpoint's set as one frozen
dataclass that Litestar builds as a dependency (``Provide(EstimatesParams)``): every field is
a documented, bounded ``Parameter``, so the OpenAPI schema, the 400s of bad values and the
unknown-parameter check (``api.params``) come from the declaration alone.

Every numeric parameter has both bounds, chosen so that no value inside them makes the
arithmetic overflow or divide by zero (a request costing 5e-324 GPU-seconds used to answer 500:
``test_breakeven_denormal_gpu_seconds_per_request_is_a_400_not_a_500``). The offer filters go
through the one ``warehouse.queries.OfferFilter`` that GET /instances uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from litestar.exceptions import ClientException
from litestar.params import Parameter

from api.params import filter_parameter, slugs
from warehouse import economics
from warehouse.estimates import STANDARD_INPUT_TOKENS, STANDARD_OUTPUT_TOKENS
from warehouse.queries import FilterError, OfferFilter
from warehouse.vocabulary import (
    DEFAULT_ESTIMATES_LIMIT,
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_LIST_VALUES,
    DedicatedPricing,
    KvAdmission,
    RequestedPrecision,
)

MAX_TOKENS = 1_000_000
# The shortest request /breakeven prices: one microsecond of GPU time. Below it the request
# rate that fills one replica (86,400 s / seconds per request) leaves the range of a float.
MIN_GPU_SECONDS_PER_REQUEST = 1e-6

PRECISION_DOC = (
    "Weight/compute format: standard = fp8 where the GPU has FP8 tensor cores, else its 16-bit "
    "format (4-bit checkpoints such as gpt-oss stay fp4); an explicit format the GPU lacks runs "
    "as the documented fallback (weight-only quantisation), reported with fallback_reason"
)

ModelParam = Annotated[
    str, Parameter(description="Reference model id (see GET /models)", max_length=100)
]
PrecisionParam = Annotated[RequestedPrecision, Parameter(description=PRECISION_DOC)]
InputTokens = Annotated[
    int, Parameter(ge=1, le=MAX_TOKENS, description="Prompt tokens per request")
]
OutputTokens = Annotated[
    int, Parameter(ge=1, le=MAX_TOKENS, description="Generated tokens per request")
]
KvAdmissionParam = Annotated[
    KvAdmission,
    Parameter(
        description=(
            "How the engine admits sequences against the KV cache: max_utilization (default: "
            "KV pages allocated as sequences grow, as vLLM, SGLang and TensorRT-LLM's "
            "MAX_UTILIZATION do) or guaranteed_no_evict (prompt + whole output reserved up "
            "front, TensorRT-LLM's default policy: smaller batches on long outputs)"
        )
    ),
]
# the offer filters these endpoints take: GET /instances' declarations (warehouse.queries.FILTERS)
GpuFilter = Annotated[list[str] | None, filter_parameter("gpu", max_items=MAX_LIST_VALUES)]
ProviderFilter = Annotated[
    list[str] | None, filter_parameter("provider", max_items=MAX_LIST_VALUES)
]
PricingFilter = Annotated[list[str] | None, filter_parameter("pricing", max_items=MAX_LIST_VALUES)]
ServerlessFilter = Annotated[bool | None, filter_parameter("serverless")]
MaxAgeDays = Annotated[float | None, filter_parameter("max_age_days")]
IncludeExpired = Annotated[bool, filter_parameter("include_expired")]
IncludeUnavailable = Annotated[bool, filter_parameter("include_unavailable")]


def offer_filter(
    gpu: Sequence[str] | None = None,
    provider: Sequence[str] | None = None,
    pricing: Sequence[str] | None = None,
    serverless: bool | None = None,
    *,
    max_age_days: float | None = None,
    include_expired: bool = False,
    include_unavailable: bool = False,
) -> OfferFilter:
    """The offers an economics answer considers, as the one ``OfferFilter`` (normalised: equal
    filters are equal objects, a cache key). Raises ``ClientException`` (400) for a list with
    more than ``MAX_LIST_VALUES`` values."""
    try:
        return OfferFilter.build(
            gpu=gpu,
            provider=provider,
            pricing=pricing,
            serverless=serverless,
            max_age_days=max_age_days,
            include_expired=include_expired,
            include_unavailable=include_unavailable,
        )
    except FilterError as exc:
        raise ClientException(str(exc)) from None


@dataclass(frozen=True, kw_only=True)
class EstimatesParams:
    """GET /estimates."""

    model: ModelParam
    precision: PrecisionParam = "standard"
    input_tokens: InputTokens = STANDARD_INPUT_TOKENS
    output_tokens: OutputTokens = STANDARD_OUTPUT_TOKENS
    kv_admission: KvAdmissionParam = economics.DEFAULT_KV_ADMISSION
    gpu: GpuFilter = None
    gpus: Annotated[
        int | None,
        Parameter(
            ge=1,
            le=1024,
            description=(
                "GPUs of the one `gpu` given: answer for that hardware (tokens/s), not for offers"
            ),
        ),
    ] = None
    provider: ProviderFilter = None
    pricing: PricingFilter = None
    serverless: ServerlessFilter = None
    max_age_days: MaxAgeDays = None
    include_expired: IncludeExpired = False
    include_unavailable: IncludeUnavailable = False
    limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Offers returned")] = (
        DEFAULT_ESTIMATES_LIMIT
    )

    def offers(self) -> OfferFilter:
        return offer_filter(
            self.gpu, self.provider, self.pricing, self.serverless,
            max_age_days=self.max_age_days, include_expired=self.include_expired,
            include_unavailable=self.include_unavailable,
        )  # fmt: skip

    def key(self) -> tuple[Any, ...]:
        """A cache key: the filter normalised, every other value as given."""
        return (
            "estimates", self.model, self.precision, self.input_tokens, self.output_tokens,
            self.kv_admission, self.offers(), self.limit,
        )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class FitParams:
    """GET /fit."""

    model: ModelParam
    precision: PrecisionParam = "standard"
    context: Annotated[
        int,
        Parameter(ge=1, le=MAX_TOKENS, description="Tokens per sequence (prompt + generated)"),
    ] = STANDARD_INPUT_TOKENS + STANDARD_OUTPUT_TOKENS
    concurrency: Annotated[
        int,
        Parameter(
            ge=1,
            le=100_000,
            description="Sequences resident at once (each holds `context` tokens of KV cache)",
        ),
    ] = 1
    gpu: GpuFilter = None
    provider: ProviderFilter = None
    pricing: PricingFilter = None
    serverless: ServerlessFilter = None
    max_age_days: MaxAgeDays = None
    include_expired: IncludeExpired = False
    include_unavailable: IncludeUnavailable = False
    limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Offers returned")] = (
        DEFAULT_LIMIT
    )

    def offers(self) -> OfferFilter:
        return offer_filter(
            self.gpu, self.provider, self.pricing, self.serverless,
            max_age_days=self.max_age_days, include_expired=self.include_expired,
            include_unavailable=self.include_unavailable,
        )  # fmt: skip

    def key(self) -> tuple[Any, ...]:
        return (
            "fit", self.model, self.precision, self.context, self.concurrency, self.offers(),
            self.limit,
        )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class BreakevenParams:
    """GET /breakeven: a load (requests/day, and how long each takes) and the billing terms."""

    requests_per_day: Annotated[float, Parameter(ge=0, le=1e9, description="Requests per day")]
    model: Annotated[
        str | None,
        Parameter(
            description="Reference model id; or give gpu_seconds_per_request", max_length=100
        ),
    ] = None
    gpu_seconds_per_request: Annotated[
        float | None,
        Parameter(
            ge=MIN_GPU_SECONDS_PER_REQUEST,
            le=86_400,
            description=(
                "Seconds of the tier's runtime per request (instead of model; "
                "1 microsecond to 1 day)"
            ),
        ),
    ] = None
    input_tokens: InputTokens = STANDARD_INPUT_TOKENS
    output_tokens: OutputTokens = STANDARD_OUTPUT_TOKENS
    precision: PrecisionParam = "standard"
    concurrency: Annotated[
        int,
        Parameter(
            ge=1,
            le=100_000,
            description=(
                "Requests one replica serves at once (1 = each request runs alone and is "
                "billed for its own latency)"
            ),
        ),
    ] = 1
    cold_start_s: Annotated[
        float, Parameter(ge=0, le=86_400, description="Seconds billed per cold start")
    ] = 0.0
    min_warm_replicas: Annotated[
        int,
        Parameter(
            ge=0,
            le=10_000,
            description=(
                "Replicas kept warm (billed all day) on serverless; dedicated runs at least "
                "this many"
            ),
        ),
    ] = 0
    idle_timeout_s: Annotated[
        float,
        Parameter(
            ge=0,
            le=86_400,
            description="Seconds a serverless worker stays up after its last request",
        ),
    ] = economics.DEFAULT_IDLE_TIMEOUT_S
    dedicated_pricing: Annotated[
        DedicatedPricing,
        Parameter(
            description="Pricing model of the dedicated side (any = on_demand, spot or reserved)"
        ),
    ] = "on_demand"
    gpu: GpuFilter = None
    platform: Annotated[
        list[str] | None,
        Parameter(
            description="Serverless platform slug, any case (repeatable or comma-separated)",
            max_items=MAX_LIST_VALUES,
        ),
    ] = None
    max_age_days: MaxAgeDays = None
    include_expired: IncludeExpired = False
    include_unavailable: IncludeUnavailable = False
    limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Tiers returned")] = (
        DEFAULT_LIMIT
    )

    def offers(self) -> OfferFilter:
        """Both sides' offers (serverless tiers and dedicated offers): the same rules."""
        return offer_filter(
            self.gpu,
            max_age_days=self.max_age_days,
            include_expired=self.include_expired,
            include_unavailable=self.include_unavailable,
        )

    def platforms(self) -> list[str] | None:
        """The platform slugs, lowercase (400 for too many)."""
        return slugs(self.platform, "platform")

    def key(self) -> tuple[Any, ...]:
        load = (
            self.requests_per_day, self.model, self.gpu_seconds_per_request, self.input_tokens,
            self.output_tokens, self.precision, self.concurrency, self.cold_start_s,
            self.min_warm_replicas, self.idle_timeout_s, self.dedicated_pricing,
        )  # fmt: skip
        return ("breakeven", load, self.offers(), tuple(self.platforms() or ()), self.limit)


__all__ = [
    "MAX_TOKENS",
    "BreakevenParams",
    "EstimatesParams",
    "FitParams",
    "offer_filter",
]
