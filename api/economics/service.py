"""The economics answers over one snapshot (GET /models, /estimates, /fit, /breakeven).

``EconomicsService(snapshot)`` checks the snapshot has the reference tables, reads the offers
an answer needs through the one ``OfferFilter`` (``warehouse.queries``) and returns typed
results, one dataclass per answer whose fields are the response's fields in order (they encode
as they are). The arithmetic is ``warehouse.economics``; the per-offer work is
``api.economics.estimates`` and ``api.economics.breakeven``. Controllers only declare parameters
(``api.economics.params``), cache and encode.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from litestar.exceptions import ClientException, ServiceUnavailableException

from api.economics.breakeven import breakeven_answer
from api.economics.estimates import estimator, fit_answer, hardware_estimate, ranked_estimates
from api.economics.params import BreakevenParams, EstimatesParams, FitParams
from api.store import Snapshot
from warehouse import economics
from warehouse.estimates import (
    STANDARD_INPUT_TOKENS,
    STANDARD_OUTPUT_TOKENS,
    STANDARD_PRECISION,
    Estimator,
    confidence_fields,
)
from warehouse.queries import OfferFilter, gpu_filter
from warehouse.queries.economics import (
    ECONOMICS_GPUS_SQL,
    MODELS_SQL,
    economics_offers_sql,
    token_estimates_sql,
)

_ECONOMICS_TABLES = frozenset({"models", "gpus", "current_offers"})

Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ModelsResult:
    items: list[Row]
    as_of: datetime


@dataclass(frozen=True, slots=True)
class EstimatesResult:
    """Fitting offers ranked by USD per million total tokens (``EstimatesPage``)."""

    items: list[Row]
    total: int
    excluded: Row  # warehouse.queries.Exclusions.as_dict
    limit: int
    model_id: str
    precision: str
    input_tokens: int
    output_tokens: int
    kv_admission: str
    source: str  # token_estimates | computed
    as_of: datetime


@dataclass(frozen=True, slots=True)
class HardwareResult:
    """Throughput of n GPUs of one model, no offer (``HardwareEstimate``): ``estimate``'s fields
    and ``as_of``."""

    estimate: Row
    as_of: datetime

    def body(self) -> Row:
        return {**self.estimate, "as_of": self.as_of}


@dataclass(frozen=True, slots=True)
class FitResult:
    """Per GPU model the smallest group that holds the model, and the offers (``FitAnswer``)."""

    model_id: str
    precision: str
    context_tokens: int
    concurrency: int
    gpus: list[Row]
    offers: list[Row]
    offers_total: int
    excluded: Row
    as_of: datetime


@dataclass(frozen=True, slots=True)
class BreakevenResult:
    """Serverless tiers vs the cheapest dedicated offer (``BreakevenAnswer``)."""

    requests_per_day: float
    model_id: str | None
    gpu_seconds_per_request: float | None
    input_tokens: int
    output_tokens: int
    precision: str
    concurrency: int
    cold_start_s: float
    min_warm_replicas: int
    idle_timeout_s: float
    dedicated_pricing: str
    hours_per_month: float
    cheapest_dedicated: Row | None
    items: list[Row]
    total: int
    excluded: Row
    not_fitting: list[dict[str, str]]
    as_of: datetime


def _with_confidence(est: Estimator, item: Row, cost_key: str | None) -> Row:
    """``item`` plus its confidence band (``warehouse.estimates.confidence_fields``) for its GPU,
    requested precision and output length; ``cost_key`` names the item's USD per million total
    tokens (None for a hardware answer, which has no price and so no cost band)."""
    band = confidence_fields(
        est.gpus[item["gpu_id"]],
        item["precision_requested"],
        item["output_tokens"],
        item["output_tokens_per_s"],
        None if cost_key is None else item[cost_key],
    )
    if cost_key is None:
        band.pop("usd_per_million_total_tokens_low")
        band.pop("usd_per_million_total_tokens_high")
    return {**item, **band}


class EconomicsService:
    """The economics answers of one snapshot. Raises ``ServiceUnavailableException`` (503) when
    the snapshot has no reference models yet, ``ClientException`` (400) for a request the
    parameters' bounds cannot express (an unknown model, too long a sequence, contradicting
    parameters)."""

    def __init__(self, snapshot: Snapshot) -> None:
        if not snapshot.tables >= _ECONOMICS_TABLES:
            raise ServiceUnavailableException(
                "the served snapshot has no reference models yet: run `gpuprices ingest`"
            )
        self.snapshot = snapshot
        self.est = estimator(
            snapshot.info.snapshot_id,
            snapshot.query(MODELS_SQL),
            snapshot.query(ECONOMICS_GPUS_SQL),
        )

    def check_model(self, model: str, tokens: int | None = None) -> economics.ModelSpec:
        """The reference model ``model``; 400 naming the known ids when unknown, or when
        ``tokens`` per sequence exceed its context."""
        spec = self.est.models.get(model)
        if spec is None:
            known = ", ".join(sorted(self.est.models))
            raise ClientException(f"unknown model {model!r}; known model ids: {known}")
        if tokens is not None and tokens > spec.max_context_tokens:
            raise ClientException(
                f"{model} supports {spec.max_context_tokens} tokens per sequence, not {tokens}"
            )
        return spec

    def _offers(self, offers: OfferFilter) -> list[Row]:
        where = offers.where()
        return self.snapshot.query(economics_offers_sql(where), where.params)

    def models(self) -> ModelsResult:
        return ModelsResult(self.snapshot.query(MODELS_SQL), self.snapshot.as_of)

    def estimates(self, p: EstimatesParams) -> EstimatesResult:
        """Offers ranked for ``p.model``: the token_estimates table at the standard settings,
        else computed with the function that builds it."""
        self.check_model(p.model, p.input_tokens + p.output_tokens)
        offers = p.offers()
        standard = (
            p.precision == STANDARD_PRECISION
            and p.input_tokens == STANDARD_INPUT_TOKENS
            and p.output_tokens == STANDARD_OUTPUT_TOKENS
            and p.kv_admission == economics.DEFAULT_KV_ADMISSION
            and "token_estimates" in self.snapshot.tables
        )
        if standard:
            where = offers.where()
            page_sql, count_sql = token_estimates_sql(where)
            items = self.snapshot.query(page_sql, [*where.params, p.model, p.limit])
            total = self.snapshot.query(count_sql, [*where.params, p.model])[0]["n"]
        else:
            ranked = ranked_estimates(
                self._offers(offers), self.est, p.model, p.precision, p.input_tokens,
                p.output_tokens, p.kv_admission,
            )  # fmt: skip
            items, total = ranked[: p.limit], len(ranked)
        cost = "usd_per_million_total_tokens"
        items = [economics.nest_assumptions(_with_confidence(self.est, i, cost)) for i in items]
        return EstimatesResult(
            items=items,
            total=total,
            excluded=self.snapshot.excluded(offers),
            limit=p.limit,
            model_id=p.model,
            precision=p.precision,
            input_tokens=p.input_tokens,
            output_tokens=p.output_tokens,
            kv_admission=p.kv_admission,
            source="token_estimates" if standard else "computed",
            as_of=self.snapshot.as_of,
        )

    def hardware_gpu(self, p: EstimatesParams) -> str:
        """The canonical GPU id a ``gpus=<n>`` request is for; 400 unless exactly one known GPU
        and no offer filter is given."""
        values = [v for g in p.gpu or () for v in g.split(",") if v.strip()]
        if len(values) != 1:
            raise ClientException("gpus=<n> needs exactly one gpu=<canonical GPU id>")
        if (
            p.provider
            or p.pricing
            or p.serverless is not None
            or p.max_age_days is not None
            or p.include_expired
            or p.include_unavailable
        ):
            raise ClientException(
                "provider, pricing, serverless, max_age_days, include_expired and "
                "include_unavailable filter offers; with gpus=<n> the answer is for hardware, "
                "not offers"
            )
        gpu_id = gpu_filter(values[0])
        if gpu_id not in self.est.gpus:
            family = sorted(g for g in self.est.gpus if g.startswith(gpu_id))
            hint = f"; did you mean {', '.join(family[:10])}" if family else "; see GET /gpus"
            raise ClientException(f"unknown GPU id {values[0]!r}{hint}")
        return gpu_id

    def hardware(self, p: EstimatesParams, gpu_id: str) -> HardwareResult:
        """Output tokens/s of ``p.gpus`` x ``gpu_id`` (from :meth:`hardware_gpu`)."""
        self.check_model(p.model, p.input_tokens + p.output_tokens)
        assert p.gpus is not None
        estimate = hardware_estimate(
            self.est, p.model, gpu_id, p.gpus, p.precision, p.input_tokens, p.output_tokens,
            p.kv_admission,
        )  # fmt: skip
        return HardwareResult(_with_confidence(self.est, estimate, None), self.snapshot.as_of)

    def fit(self, p: FitParams) -> FitResult:
        self.check_model(p.model, p.context)
        offers = p.offers()
        answer = fit_answer(
            self._offers(offers), self.est, p.model, p.precision, p.context, p.concurrency
        )
        return FitResult(
            model_id=p.model,
            precision=p.precision,
            context_tokens=p.context,
            concurrency=p.concurrency,
            gpus=answer["gpus"],
            offers=answer["offers"][: p.limit],
            offers_total=len(answer["offers"]),
            excluded=self.snapshot.excluded(offers),
            as_of=self.snapshot.as_of,
        )

    def check_breakeven(self, p: BreakevenParams) -> None:
        """400 unless the load is sized one way (a model or GPU-seconds), for a known model."""
        if (p.model is None) == (p.gpu_seconds_per_request is None):
            raise ClientException("give exactly one of model or gpu_seconds_per_request")
        if p.model is not None:
            self.check_model(p.model, p.input_tokens + p.output_tokens)

    def breakeven(self, p: BreakevenParams) -> BreakevenResult:
        self.check_breakeven(p)
        considered = p.offers()
        offers = self._offers(considered)
        platforms = p.platforms()
        if platforms:
            offers = [o for o in offers if not o["serverless"] or o["provider"] in platforms]
        answer = breakeven_answer(
            offers,
            self.est,
            requests_per_day=p.requests_per_day,
            model_id=p.model,
            gpu_seconds_per_request=p.gpu_seconds_per_request,
            precision=p.precision,
            input_tokens=p.input_tokens,
            output_tokens=p.output_tokens,
            concurrency=p.concurrency,
            cold_start_s=p.cold_start_s,
            min_warm_replicas=p.min_warm_replicas,
            idle_timeout_s=p.idle_timeout_s,
            dedicated_pricing=p.dedicated_pricing,
        )
        return BreakevenResult(
            requests_per_day=p.requests_per_day,
            model_id=p.model,
            gpu_seconds_per_request=p.gpu_seconds_per_request,
            input_tokens=p.input_tokens,
            output_tokens=p.output_tokens,
            precision=p.precision,
            concurrency=p.concurrency,
            cold_start_s=p.cold_start_s,
            min_warm_replicas=p.min_warm_replicas,
            idle_timeout_s=p.idle_timeout_s,
            dedicated_pricing=p.dedicated_pricing,
            hours_per_month=float(economics.HOURS_PER_MONTH),
            cheapest_dedicated=answer["cheapest_dedicated"],
            items=answer["items"][: p.limit],
            total=len(answer["items"]),
            excluded=self.snapshot.excluded(considered),
            not_fitting=answer["not_fitting"],
            as_of=self.snapshot.as_of,
        )
