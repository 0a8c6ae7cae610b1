"""GET /models, /estimates, /fit, /breakeven: LLM-serving economics over the current offers.

The formulas live in ``warehouse.economics`` (documented in ``docs/estimates.md``); at the
standard settings /estimates reads the ``token_estimates`` table of the snapshot, otherwise it
computes with the same function that builds that table (``warehouse.estimates``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from litestar import Controller, Response, get
from litestar.exceptions import ClientException, ServiceUnavailableException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from api.analysis import (
    breakeven_answer,
    estimator,
    fit_answer,
    hardware_estimate,
    ranked_estimates,
)
from api.controllers.instances import GPU_DOC, PROVIDER_DOC, PricingModel
from api.encoding import encode, json_response
from api.params import MAX_LIST_VALUES, ListFormat, gpu_filter, gpu_filters, slugs
from api.queries import (
    ECONOMICS_GPUS_SQL,
    MODELS_SQL,
    economics_offers_sql,
    instances_where,
    token_estimates_sql,
)
from api.schemas import ErrorBody
from api.schemas_economics import (
    BreakevenAnswer,
    EstimatesPage,
    FitAnswer,
    HardwareEstimate,
    ModelList,
)
from api.store import Snapshot, Store
from warehouse import economics
from warehouse.estimates import (
    STANDARD_INPUT_TOKENS,
    STANDARD_OUTPUT_TOKENS,
    STANDARD_PRECISION,
    Estimator,
    confidence_fields,
)

MAX_LIMIT = 1000
MAX_TOKENS = 1_000_000
Precision = Literal["standard", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]
DedicatedPricing = Literal["on_demand", "spot", "reserved", "any"]
_ECONOMICS_TABLES = frozenset({"models", "gpus", "current_offers"})

PRECISION_DOC = (
    "Weight/compute format: standard = fp8 where the GPU has FP8 tensor cores, else its 16-bit "
    "format (4-bit checkpoints such as gpt-oss stay fp4); an explicit format the GPU lacks runs "
    "as the documented fallback (weight-only quantisation), reported with fallback_reason"
)
ERRORS = {400: ResponseSpec(data_container=ErrorBody, description="Invalid parameters")}

ModelParam = Annotated[
    str, Parameter(description="Reference model id (see GET /models)", max_length=100)
]
PrecisionParam = Annotated[Precision, Parameter(description=PRECISION_DOC)]
InputTokens = Annotated[
    int, Parameter(ge=1, le=MAX_TOKENS, description="Prompt tokens per request")
]
OutputTokens = Annotated[
    int, Parameter(ge=1, le=MAX_TOKENS, description="Generated tokens per request")
]
GpuFilter = Annotated[list[str] | None, Parameter(description=GPU_DOC, max_items=MAX_LIST_VALUES)]
ProviderFilter = Annotated[
    list[str] | None, Parameter(description=PROVIDER_DOC, max_items=MAX_LIST_VALUES)
]
PricingFilter = Annotated[
    list[PricingModel] | None, Parameter(description="Pricing model (repeatable)")
]
ServerlessFilter = Annotated[
    bool | None, Parameter(description="Only serverless tiers (true) or only instances (false)")
]


def _snapshot(store: Store) -> tuple[Snapshot, Estimator]:
    snapshot = store.get()
    if not snapshot.tables >= _ECONOMICS_TABLES:
        raise ServiceUnavailableException(
            "the served snapshot has no reference models yet: run `gpuprices ingest`"
        )
    est = estimator(
        snapshot.info.snapshot_id, snapshot.query(MODELS_SQL), snapshot.query(ECONOMICS_GPUS_SQL)
    )
    return snapshot, est


def _check_model(est: Estimator, model: str, tokens: int | None = None) -> economics.ModelSpec:
    spec = est.models.get(model)
    if spec is None:
        raise ClientException(
            f"unknown model {model!r}; known model ids: {', '.join(sorted(est.models))}"
        )
    if tokens is not None and tokens > spec.max_context_tokens:
        raise ClientException(
            f"{model} supports {spec.max_context_tokens} tokens per sequence, not {tokens}"
        )
    return spec


def _with_confidence(est: Estimator, item: dict[str, Any], cost_key: str | None) -> dict[str, Any]:
    """``item`` plus its confidence band (``warehouse.estimates.confidence_fields``) for its GPU,
    requested precision and output length; ``cost_key`` names the item's USD per million total
    tokens (None for a hardware answer, which has no price and so no cost band)."""
    band = confidence_fields(
        est.gpus[item["gpu_model"]],
        item["precision_requested"],
        item["output_tokens"],
        item["output_tokens_per_s"],
        None if cost_key is None else item[cost_key],
    )
    if cost_key is None:
        band.pop("usd_per_million_total_tokens_low")
        band.pop("usd_per_million_total_tokens_high")
    return {**item, **band}


def _filters(
    provider: Sequence[str] | None,
    gpu: Sequence[str] | None,
    pricing: Sequence[str] | None,
    serverless: bool | None,
) -> dict[str, Any]:
    return {
        "provider": slugs(provider),
        "gpu": gpu_filters(gpu),
        "pricing": sorted(set(pricing)) if pricing else None,
        "serverless": serverless,
    }


def _key(filters: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in filters.items() if v is not None))


class EconomicsController(Controller):
    path = "/"
    tags = ("economics",)

    @get(
        "/models",
        summary="Reference LLMs",
        sync_to_thread=False,
        description="The models /estimates, /fit and /breakeven know, with their ids and the "
        "architecture numbers the estimates use (parameters in billions, layers, heads, KV "
        "layout, context in tokens), each citing its config.json.",
        responses={200: ResponseSpec(data_container=ModelList, description="All models")},
    )
    def list_models(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        snapshot, _ = _snapshot(store)
        return json_response(
            snapshot.cached(
                ("models",),
                lambda: encode({"items": snapshot.query(MODELS_SQL), "as_of": snapshot.as_of}),
            ),
            list_format=format_,
        )

    @get(
        "/estimates",
        summary="USD per million tokens per offer, or tokens/s for hardware",
        sync_to_thread=False,
        description="Serving estimates for one reference model on every current offer whose GPU "
        "is in the canonical table, ranked by USD per million total (prompt + generated) "
        "tokens; offers the model does not fit are left out. Throughput is the steady-state "
        "output tokens/s of the whole instance (roofline decode + compute-bound prefill, best "
        "tensor/data-parallel split; see docs/estimates.md), price the offer's USD per "
        "instance-hour. At the standard settings (precision=standard, 1000 in / 1000 out) the "
        "answer is the precomputed token_estimates table. With gpu=<canonical id>&gpus=<n> "
        "the answer is for that hardware alone: output tokens/s of n GPUs, no offer, no price. "
        "Every estimate says how sure it is: confidence (high, medium, low) and a band "
        "(output_tokens_per_s_low/high, and for offers usd_per_million_total_tokens_low/high) "
        "from how far the model was from published measurements in the nearest calibration "
        "regime of GPU generation, precision and output length (confidence_basis).",
        responses={
            200: ResponseSpec(
                data_container=EstimatesPage | HardwareEstimate,
                description="Ranked offers; a HardwareEstimate with gpus",
            ),
            **ERRORS,
        },
    )
    def estimates(
        self,
        store: Store,
        model: ModelParam,
        precision: PrecisionParam = "standard",
        input_tokens: InputTokens = STANDARD_INPUT_TOKENS,
        output_tokens: OutputTokens = STANDARD_OUTPUT_TOKENS,
        gpu: GpuFilter = None,
        gpus: Annotated[
            int | None,
            Parameter(
                ge=1,
                le=1024,
                description=(
                    "GPUs of the one `gpu` given: answer for that hardware (tokens/s), "
                    "not for offers"
                ),
            ),
        ] = None,
        provider: ProviderFilter = None,
        pricing: PricingFilter = None,
        serverless: ServerlessFilter = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Offers returned")] = 50,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot, est = _snapshot(store)
        _check_model(est, model, input_tokens + output_tokens)
        if gpus is not None:
            if format_ == "csv":
                raise ClientException(
                    "format=csv: with gpus=<n> the answer is one hardware estimate, not a list"
                )
            return self._hardware(
                snapshot,
                est,
                model,
                precision,
                input_tokens,
                output_tokens,
                gpu,
                gpus,
                bool(provider or pricing) or serverless is not None,
            )
        filters = _filters(provider, gpu, pricing, serverless)
        standard = (
            precision == STANDARD_PRECISION
            and input_tokens == STANDARD_INPUT_TOKENS
            and output_tokens == STANDARD_OUTPUT_TOKENS
            and "token_estimates" in snapshot.tables
        )
        key = ("estimates", model, precision, input_tokens, output_tokens, _key(filters), limit)

        def build() -> bytes:
            where = instances_where(filters)
            if standard:
                page_sql, count_sql = token_estimates_sql(where)
                items = snapshot.query(page_sql, [*where.params, model, limit])
                total = snapshot.query(count_sql, [*where.params, model])[0]["n"]
            else:
                offers = snapshot.query(economics_offers_sql(where), where.params)
                ranked = ranked_estimates(
                    offers, est, model, precision, input_tokens, output_tokens
                )
                items, total = ranked[:limit], len(ranked)
            items = [_with_confidence(est, i, "usd_per_million_total_tokens") for i in items]
            return encode(
                {
                    "items": items,
                    "total": total,
                    "limit": limit,
                    "model_id": model,
                    "precision": precision,
                    "input_tokens": input_tokens,
                    "output_tokens": output_tokens,
                    "source": "token_estimates" if standard else "computed",
                    "as_of": snapshot.as_of,
                }
            )

        return json_response(snapshot.cached(key, build), list_format=format_)

    @staticmethod
    def _hardware(
        snapshot: Snapshot,
        est: Estimator,
        model: str,
        precision: str,
        input_tokens: int,
        output_tokens: int,
        gpu: list[str] | None,
        gpus: int,
        offer_filters: bool,
    ) -> Response[bytes]:
        values = [v for g in gpu or () for v in g.split(",") if v.strip()]
        if len(values) != 1:
            raise ClientException("gpus=<n> needs exactly one gpu=<canonical GPU id>")
        if offer_filters:
            raise ClientException(
                "provider, pricing and serverless filter offers; with gpus=<n> "
                "the answer is for hardware, not offers"
            )
        gpu_id = gpu_filter(values[0])
        if gpu_id not in est.gpus:
            family = sorted(g for g in est.gpus if g.startswith(gpu_id))
            hint = f"; did you mean {', '.join(family[:10])}" if family else "; see GET /gpus"
            raise ClientException(f"unknown GPU id {values[0]!r}{hint}")
        key = ("hardware", model, precision, input_tokens, output_tokens, gpu_id, gpus)
        return json_response(
            snapshot.cached(
                key,
                lambda: encode(
                    {
                        **_with_confidence(
                            est,
                            hardware_estimate(
                                est, model, gpu_id, gpus, precision, input_tokens, output_tokens
                            ),
                            None,
                        ),
                        "as_of": snapshot.as_of,
                    }
                ),
            )
        )

    @get(
        "/fit",
        summary="Which GPUs and offers can hold a model",
        sync_to_thread=False,
        description="For every GPU model with current offers: the smallest tensor-parallel "
        "group (1, 2, 4, 8 or the largest offer's GPU count) whose memory holds the weights, "
        "`concurrency` KV caches of `context` tokens and the runtime overhead, with the memory "
        "breakdown in GB and the precision that runs (native, or the fallback and why); then "
        "the current offers with at least that many GPUs, cheapest USD per instance-hour "
        "first. An offer of a share of one GPU (MIG, vGPU) counts when the model fits in the "
        "memory the share gives (vram_gb_usable).",
        responses={
            200: ResponseSpec(data_container=FitAnswer, description="Fit per GPU model"),
            **ERRORS,
        },
    )
    def fit(
        self,
        store: Store,
        model: ModelParam,
        precision: PrecisionParam = "standard",
        context: Annotated[
            int,
            Parameter(
                ge=1, le=MAX_TOKENS, description=("Tokens per sequence (prompt + generated)")
            ),
        ] = STANDARD_INPUT_TOKENS + STANDARD_OUTPUT_TOKENS,
        concurrency: Annotated[
            int,
            Parameter(
                ge=1,
                le=100_000,
                description=(
                    "Sequences resident at once (each holds `context` tokens of KV cache)"
                ),
            ),
        ] = 1,
        gpu: GpuFilter = None,
        provider: ProviderFilter = None,
        pricing: PricingFilter = None,
        serverless: ServerlessFilter = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Offers returned")] = 100,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot, est = _snapshot(store)
        _check_model(est, model, context)
        filters = _filters(provider, gpu, pricing, serverless)
        key = ("fit", model, precision, context, concurrency, _key(filters), limit)

        def build() -> bytes:
            where = instances_where(filters)
            offers = snapshot.query(economics_offers_sql(where), where.params)
            answer = fit_answer(offers, est, model, precision, context, concurrency)
            return encode(
                {
                    "model_id": model,
                    "precision": precision,
                    "context_tokens": context,
                    "concurrency": concurrency,
                    "gpus": answer["gpus"],
                    "offers": answer["offers"][:limit],
                    "offers_total": len(answer["offers"]),
                    "as_of": snapshot.as_of,
                }
            )

        return json_response(snapshot.cached(key, build), list_format=format_)

    @get(
        "/breakeven",
        summary="Serverless tiers vs the cheapest dedicated offer",
        sync_to_thread=False,
        description="Monthly cost of a load on every serverless tier that fits vs the cheapest "
        "dedicated offer that fits, and the load (requests/day, and its busy share of one "
        "dedicated replica) above which dedicated wins. Give the load as requests_per_day plus "
        "either model (GPU-seconds per request come from the throughput model on each offer's "
        "hardware: output_tokens / output tokens/s with `concurrency` requests in flight) or "
        "gpu_seconds_per_request (measured on the tier's hardware; each tier is then compared "
        "with the cheapest dedicated offer of the same GPU model and count). Serverless bills "
        "each request rounded up to the platform's metering step, cold starts, and the idle "
        "tail up to idle_timeout_s where the platform bills idle time; warm replicas bill all "
        "day. Dedicated = replicas x USD/hour x 730 h (a month of 8760 / 12 hours, as providers "
        "bill). Formulas: docs/estimates.md section 3.",
        responses={
            200: ResponseSpec(
                data_container=BreakevenAnswer, description="One row per serverless tier"
            ),
            **ERRORS,
        },
    )
    def breakeven(
        self,
        store: Store,
        requests_per_day: Annotated[float, Parameter(ge=0, le=1e9, description="Requests per day")],
        model: Annotated[
            str | None,
            Parameter(
                description="Reference model id; or give gpu_seconds_per_request", max_length=100
            ),
        ] = None,
        gpu_seconds_per_request: Annotated[
            float | None,
            Parameter(
                gt=0,
                le=86_400,
                description=("Seconds of the tier's runtime per request (instead of model)"),
            ),
        ] = None,
        input_tokens: InputTokens = STANDARD_INPUT_TOKENS,
        output_tokens: OutputTokens = STANDARD_OUTPUT_TOKENS,
        precision: PrecisionParam = "standard",
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
        ] = 1,
        cold_start_s: Annotated[
            float, Parameter(ge=0, le=86_400, description="Seconds billed per cold start")
        ] = 0.0,
        min_warm_replicas: Annotated[
            int,
            Parameter(
                ge=0,
                le=10_000,
                description=(
                    "Replicas kept warm (billed all day) on serverless; dedicated runs at "
                    "least this many"
                ),
            ),
        ] = 0,
        idle_timeout_s: Annotated[
            float,
            Parameter(
                ge=0,
                le=86_400,
                description=("Seconds a serverless worker stays up after its last request"),
            ),
        ] = economics.DEFAULT_IDLE_TIMEOUT_S,
        dedicated_pricing: Annotated[
            DedicatedPricing,
            Parameter(
                description=(
                    "Pricing model of the dedicated side (any = on_demand, spot or reserved)"
                )
            ),
        ] = "on_demand",
        gpu: GpuFilter = None,
        platform: Annotated[
            list[str] | None,
            Parameter(
                description="Serverless platform slug, any case (repeatable or comma-separated)",
                max_items=MAX_LIST_VALUES,
            ),
        ] = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description="Tiers returned")] = 100,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot, est = _snapshot(store)
        if (model is None) == (gpu_seconds_per_request is None):
            raise ClientException("give exactly one of model or gpu_seconds_per_request")
        if model is not None:
            _check_model(est, model, input_tokens + output_tokens)
        filters = _filters(None, gpu, None, None)
        platforms = slugs(platform, "platform")
        params = (
            requests_per_day,
            model,
            gpu_seconds_per_request,
            input_tokens,
            output_tokens,
            precision,
            concurrency,
            cold_start_s,
            min_warm_replicas,
            idle_timeout_s,
            dedicated_pricing,
        )
        key = ("breakeven", params, _key(filters), tuple(platforms or ()), limit)

        def build() -> bytes:
            where = instances_where(filters)
            offers = snapshot.query(economics_offers_sql(where), where.params)
            if platforms:
                offers = [o for o in offers if not o["serverless"] or o["provider"] in platforms]
            answer = breakeven_answer(
                offers,
                est,
                requests_per_day=requests_per_day,
                model_id=model,
                gpu_seconds_per_request=gpu_seconds_per_request,
                precision=precision,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                concurrency=concurrency,
                cold_start_s=cold_start_s,
                min_warm_replicas=min_warm_replicas,
                idle_timeout_s=idle_timeout_s,
                dedicated_pricing=dedicated_pricing,
            )
            return encode(
                {
                    "requests_per_day": requests_per_day,
                    "model_id": model,
                    "gpu_seconds_per_request": gpu_seconds_per_request,
                    "input_tokens": input_tokens,
                    "output_tokens": output_tokens,
                    "precision": precision,
                    "concurrency": concurrency,
                    "cold_start_s": cold_start_s,
                    "min_warm_replicas": min_warm_replicas,
                    "idle_timeout_s": idle_timeout_s,
                    "dedicated_pricing": dedicated_pricing,
                    "hours_per_month": float(economics.HOURS_PER_MONTH),
                    "cheapest_dedicated": answer["cheapest_dedicated"],
                    "items": answer["items"][:limit],
                    "total": len(answer["items"]),
                    "not_fitting": answer["not_fitting"],
                    "as_of": snapshot.as_of,
                }
            )

        return json_response(snapshot.cached(key, build), list_format=format_)
