"""GET /models, /estimates, /fit, /breakeven: LLM-serving economics over the current offers.

Thin: each handler's parameters are one dataclass built as a dependency
(``api.economics.params``), the answer is ``api.economics.service.EconomicsService``'s typed
result, cached per snapshot and encoded here; a miss is built in a worker thread
(``api.offload``), so a distinct query does not hold the event loop. The formulas live in
``warehouse.economics``
(documented in ``docs/estimates.md``); at the standard settings /estimates reads the
``token_estimates`` table of the snapshot, otherwise it computes with the same function that
builds that table (``warehouse.estimates``).
"""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency, Provide
from litestar.exceptions import ClientException

from api.economics.params import BreakevenParams, EstimatesParams, FitParams
from api.economics.schemas import (
    EstimatesPage,
    FitAnswer,
    HardwareEstimate,
    ModelList,
)
from api.economics.schemas_breakeven import BreakevenAnswer
from api.economics.service import EconomicsService
from api.encoding import encode_as, json_response
from api.offload import cached_off_loop
from api.openapi import ResponseDoc
from api.params import ListFormat, refuse_unknown_values
from api.schemas import ErrorBody
from api.store import Store

SHELF_LIFE_NOTE = (
    "Offers whose price is past the shelf life of its kind (expired), suspect, or not on sale "
    "(available: false) are left out unless include_expired=true / asked for / "
    "include_unavailable=true; max_age_days bounds the price's own age; "
    "`excluded` counts what each rule left out."
)
ERRORS = {400: ResponseDoc(data_container=ErrorBody, description="Invalid parameters")}


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
        responses={200: ResponseDoc(data_container=ModelList, description="All models")},
    )
    def list_models(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        service = EconomicsService(store.get())
        body = service.snapshot.cached(("models",), lambda: encode_as(ModelList, service.models()))
        return json_response(body, list_format=format_)

    @get(
        "/estimates",
        summary="USD per million tokens per offer, or tokens/s for hardware",
        dependencies={"params": Provide(EstimatesParams, sync_to_thread=False)},
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
        "regime of GPU generation, precision and output length (confidence_basis). "
        + SHELF_LIFE_NOTE,
        responses={
            200: ResponseDoc(
                data_container=EstimatesPage | HardwareEstimate,
                description="Ranked offers; a HardwareEstimate with gpus",
            ),
            **ERRORS,
        },
    )
    async def estimates(
        self, store: Store, params: NamedDependency[EstimatesParams], format_: ListFormat = None
    ) -> Response[bytes]:
        service = EconomicsService(store.get())
        refuse_unknown_values(service.snapshot.vocabulary, params.offers())
        service.check_model(params.model, params.input_tokens + params.output_tokens)
        if params.gpus is not None:
            if format_ == "csv":
                raise ClientException(
                    "format=csv: with gpus=<n> the answer is one hardware estimate, not a list"
                )
            gpu_id = service.hardware_gpu(params)
            key = ("hardware", params.model, params.precision, params.input_tokens,
                   params.output_tokens, params.kv_admission, gpu_id, params.gpus)  # fmt: skip
            body = await cached_off_loop(
                service.snapshot,
                key,
                lambda: encode_as(HardwareEstimate, service.hardware(params, gpu_id).body()),
            )
            return json_response(body)
        body = await cached_off_loop(
            service.snapshot,
            params.key(),
            lambda: encode_as(EstimatesPage, service.estimates(params)),
        )
        return json_response(body, list_format=format_)

    @get(
        "/fit",
        summary="Which GPUs and offers can hold a model",
        dependencies={"params": Provide(FitParams, sync_to_thread=False)},
        description="For every GPU model with current offers: the smallest tensor-parallel "
        "group (1, 2, 4, 8 or the largest offer's GPU count) whose memory holds the weights, "
        "`concurrency` KV caches of `context` tokens and the runtime overhead, with the memory "
        "breakdown in GB and the precision that runs (native, or the fallback and why); then "
        "the current offers with at least that many GPUs, cheapest USD per instance-hour "
        "first. An offer of a share of one GPU (MIG, vGPU) counts when the model fits in the "
        "memory the share gives (vram_gb_usable). " + SHELF_LIFE_NOTE,
        responses={
            200: ResponseDoc(data_container=FitAnswer, description="Fit per GPU model"),
            **ERRORS,
        },
    )
    async def fit(
        self, store: Store, params: NamedDependency[FitParams], format_: ListFormat = None
    ) -> Response[bytes]:
        service = EconomicsService(store.get())
        refuse_unknown_values(service.snapshot.vocabulary, params.offers())
        body = await cached_off_loop(
            service.snapshot, params.key(), lambda: encode_as(FitAnswer, service.fit(params))
        )
        return json_response(body, list_format=format_)

    @get(
        "/breakeven",
        summary="Serverless tiers vs the cheapest dedicated offer",
        dependencies={"params": Provide(BreakevenParams, sync_to_thread=False)},
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
        "bill). Formulas: docs/estimates.md section 3. " + SHELF_LIFE_NOTE,
        responses={
            200: ResponseDoc(
                data_container=BreakevenAnswer, description="One row per serverless tier"
            ),
            **ERRORS,
        },
    )
    async def breakeven(
        self, store: Store, params: NamedDependency[BreakevenParams], format_: ListFormat = None
    ) -> Response[bytes]:
        service = EconomicsService(store.get())
        refuse_unknown_values(service.snapshot.vocabulary, params.offers())
        body = await cached_off_loop(
            service.snapshot,
            params.key(),
            lambda: encode_as(BreakevenAnswer, service.breakeven(params)),
        )
        return json_response(body, list_format=format_)
