"""Token-serving estimates per offer: the ``token_estimates`` table and the API's on-demand twin.

For every current offer whose GPU resolved to the canonical table and every reference model,
``warehouse.economics`` estimates the steady-state output tokens/s of the whole instance and
turns the offer's USD price per hour into USD per million tokens. The table is rebuilt every run
at the standard settings (:data:`STANDARD_PRECISION` resolved per GPU by
``economics.standard_precision``, :data:`STANDARD_INPUT_TOKENS` in /
:data:`STANDARD_OUTPUT_TOKENS` out per request, no concurrency limit). The API computes other
settings with :func:`estimate_rows`, the same function, so both always agree. Every estimate
served also carries a confidence band (:func:`confidence_fields`): how far the model was from
published measurements in the nearest calibration regime (``economics.confidence_band``), and
what it assumes (``economics.assumption_fields``: engine class, batch, KV cache, bandwidth).

Offers with a fractional GPU count (a share of one GPU) are listed with ``fits`` false and a
``not_estimated_reason``: the throughput model knows whole GPUs only. A serverless tier that may
land on several GPUs (``gpu_candidates``, memory promised in ``vram_gb_guaranteed``) is one
offer, estimated on what it guarantees: ``economics.guaranteed_minimum`` of its candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from itertools import islice
from typing import Any

import duckdb
import pyarrow as pa

from warehouse import economics
from warehouse.db import insert_arrow, transaction
from warehouse.estimator import (
    STANDARD_PRECISION,
    Estimator,
    precision_for,
    whole_gpus,
)
from warehouse.facts import model_from_row
from warehouse.records import ESTIMATE_OFFER_COLUMNS, TOKEN_ESTIMATE_COLUMNS

STANDARD_INPUT_TOKENS = 1000
STANDARD_OUTPUT_TOKENS = 1000
PRECISION_CHOICES: tuple[str, ...] = (STANDARD_PRECISION, *economics.PRECISIONS)

# Columns of current_offers an estimate needs (identity, hardware, USD price per instance-hour)
# and the columns of token_estimates: the fields of their records.
OFFER_COLUMNS: tuple[str, ...] = ESTIMATE_OFFER_COLUMNS  # records.EstimateOffer
ESTIMATE_COLUMNS: tuple[str, ...] = TOKEN_ESTIMATE_COLUMNS  # records.TokenEstimate
# Offers estimated (and rows written) per step of rebuild_token_estimates: memory stays that of
# one chunk (~17 models x 2,000 offers) however many offers are current (issue 15).
CHUNK_OFFERS = 2_000


def iter_estimate_rows(
    offers: Iterable[Mapping[str, Any]],
    estimator: Estimator,
    model_ids: Iterable[str],
    *,
    precision: str = STANDARD_PRECISION,
    input_tokens: int = STANDARD_INPUT_TOKENS,
    output_tokens: int = STANDARD_OUTPUT_TOKENS,
    kv_admission: str = economics.DEFAULT_KV_ADMISSION,
) -> Iterator[dict[str, Any]]:
    """One row (``ESTIMATE_COLUMNS``) per offer x model, in offer order, made as they are read
    (the offers may be a stream); offers need ``OFFER_COLUMNS``.

    Offers whose ``gpu_id`` (or a candidate GPU) is unknown to the estimator are skipped (the
    caller selects offers with a canonical GPU); optional ``gpu_candidates`` and
    ``vram_gb_guaranteed`` keys are honoured (:meth:`Estimator.offer_spec`). Rates are output /
    total (input + output) tokens per second for the whole instance; costs are USD per million
    tokens at the offer's USD price per hour, null when the model does not fit. Raises
    ValueError for an unknown precision or KV admission policy, or a sequence longer than a
    model's context (callers validate inputs first); the precision and the policy are checked
    before the first row is asked for.
    """
    if precision not in PRECISION_CHOICES:
        raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISION_CHOICES}")
    if kv_admission not in economics.KV_ADMISSION_RESERVED_OUTPUT_FRACTION:
        raise ValueError(f"unknown kv_admission {kv_admission!r}")
    models = [estimator.models[m] for m in model_ids]
    return _rows(offers, estimator, models, precision, input_tokens, output_tokens, kv_admission)


def _rows(
    offers: Iterable[Mapping[str, Any]],
    estimator: Estimator,
    model_list: list[economics.ModelSpec],
    precision: str,
    input_tokens: int,
    output_tokens: int,
    kv_admission: str,
) -> Iterator[dict[str, Any]]:
    # Everything but the price depends only on (model, GPU, GPU count): marketplaces list many
    # offers of one configuration, so those parts are computed once per configuration.
    parts: dict[tuple[str, str, Any], dict[str, Any]] = {}
    for offer in offers:
        gpu = estimator.offer_spec(offer)
        if gpu is None:
            continue
        price = Decimal(offer["price_per_hour_usd"])
        identity = {c: offer[c] for c in OFFER_COLUMNS}
        for model in model_list:
            key = (model.model_id, gpu.gpu_id, offer["gpu_count"])
            part = parts.get(key)
            if part is None:
                part = parts[key] = _config_part(
                    estimator, model, gpu, offer["gpu_count"], precision, input_tokens,
                    output_tokens, kv_admission,
                )  # fmt: skip
            row = {**identity, **part}
            if part["fits"]:
                cost = economics.cost_per_million_tokens(
                    price, part["output_tokens_per_s"], part["total_tokens_per_s"]
                )
                row["usd_per_million_output_tokens"] = cost.usd_per_million_output_tokens
                row["usd_per_million_total_tokens"] = cost.usd_per_million_total_tokens
            yield row


def estimate_rows(
    offers: Iterable[Mapping[str, Any]],
    estimator: Estimator,
    model_ids: Iterable[str],
    *,
    precision: str = STANDARD_PRECISION,
    input_tokens: int = STANDARD_INPUT_TOKENS,
    output_tokens: int = STANDARD_OUTPUT_TOKENS,
    kv_admission: str = economics.DEFAULT_KV_ADMISSION,
) -> list[dict[str, Any]]:
    """The rows of :func:`iter_estimate_rows` as a list (for a bounded set of offers). Raises
    ValueError for an unknown precision or KV admission policy, or a sequence longer than a
    model's context."""
    return list(
        iter_estimate_rows(
            offers,
            estimator,
            model_ids,
            precision=precision,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            kv_admission=kv_admission,
        )
    )


def _config_part(
    estimator: Estimator,
    model: economics.ModelSpec,
    gpu: economics.GpuSpec,
    gpu_count: Any,
    precision: str,
    input_tokens: int,
    output_tokens: int,
    kv_admission: str,
) -> dict[str, Any]:
    """The offer-independent columns of an estimate row (costs left null)."""
    resolved = economics.resolve_precision(precision_for(precision, model, gpu), gpu)
    part: dict[str, Any] = {
        "model_id": model.model_id, "input_tokens": input_tokens,
        "output_tokens": output_tokens, "precision_requested": resolved.requested,
        "weight_precision": resolved.weight_precision,
        "compute_precision": resolved.compute_precision, "kv_precision": resolved.kv_precision,
        "precision_native": resolved.native, "fallback_reason": resolved.fallback_reason,
        "fits": False, "not_estimated_reason": None, "gpus_used": 0, "tensor_parallel": 0,
        "data_parallel": 0, "batch_per_replica": 0, "output_tokens_per_s": 0.0,
        "total_tokens_per_s": 0.0, "usd_per_million_output_tokens": None,
        "usd_per_million_total_tokens": None, **dict.fromkeys(economics.ASSUMPTION_COLUMNS),
    }  # fmt: skip
    count = whole_gpus(gpu_count)
    if count is None:
        part["not_estimated_reason"] = f"fractional GPU share ({gpu_count} GPUs) is not modelled"
        return part
    estimate = estimator.throughput(
        model.model_id, gpu.gpu_id, count, precision, input_tokens, output_tokens,
        kv_admission=kv_admission,
    )  # fmt: skip
    if isinstance(estimate, str):
        part["not_estimated_reason"] = estimate
    elif not estimate.fits:
        part["not_estimated_reason"] = does_not_fit(
            model.model_id,
            count,
            gpu.gpu_id,
            resolved.weight_precision,
            input_tokens + output_tokens,
        )
    else:
        part.update(
            fits=True, gpus_used=estimate.tensor_parallel * estimate.data_parallel,
            tensor_parallel=estimate.tensor_parallel, data_parallel=estimate.data_parallel,
            batch_per_replica=estimate.batch,
            output_tokens_per_s=round(estimate.output_tokens_per_s, 3),
            total_tokens_per_s=round(estimate.total_tokens_per_s, 3),
            **economics.assumption_fields(estimate),
        )  # fmt: skip
    return part


CONFIDENCE_COLUMNS: tuple[str, ...] = (
    "confidence", "confidence_basis", "confidence_points", "output_tokens_per_s_low",
    "output_tokens_per_s_high", "usd_per_million_total_tokens_low",
    "usd_per_million_total_tokens_high",
)  # fmt: skip


def confidence_fields(
    gpu: economics.GpuSpec,
    precision_requested: str,
    output_tokens: int,
    output_tokens_per_s: float,
    usd_per_million_total_tokens: Decimal | float | None = None,
) -> dict[str, Any]:
    """The confidence band of one estimate (``CONFIDENCE_COLUMNS``), from
    ``economics.confidence_band`` for its GPU generation, requested precision and output
    length: the output tokens/s band of the instance and, when a cost is given, the matching
    USD per million total tokens band (null without one)."""
    band = economics.confidence_band(gpu, precision_requested, output_tokens)
    low, high = band.rate_bounds(float(output_tokens_per_s))
    cost_low = cost_high = None
    if usd_per_million_total_tokens is not None:
        cost_low, cost_high = band.cost_bounds(Decimal(str(usd_per_million_total_tokens)))
    return {
        "confidence": band.confidence, "confidence_basis": band.basis,
        "confidence_points": band.points, "output_tokens_per_s_low": round(low, 3),
        "output_tokens_per_s_high": round(high, 3),
        "usd_per_million_total_tokens_low": cost_low,
        "usd_per_million_total_tokens_high": cost_high,
    }  # fmt: skip


def _query(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    return list(_stream(con, sql))


def _stream(
    con: duckdb.DuckDBPyConnection, sql: str, chunk: int = CHUNK_OFFERS
) -> Iterator[dict[str, Any]]:
    """The rows of ``sql`` as dicts, fetched ``chunk`` at a time."""
    result = con.execute(sql)
    columns = [d[0] for d in result.description or []]
    while rows := result.fetchmany(chunk):
        for row in rows:
            yield dict(zip(columns, row, strict=True))


def does_not_fit(
    model_id: str, gpus: int, gpu_id: str, weight_precision: str, sequence_tokens: int
) -> str:
    """Why a model has no estimate on ``gpus`` x ``gpu_id``: the one wording of the table's
    rows and of GET /estimates' hardware items."""
    return (
        f"{model_id} does not fit {gpus} x {gpu_id} at {weight_precision} with one "
        f"{sequence_tokens}-token sequence"
    )


def load_estimator(con: duckdb.DuckDBPyConnection) -> Estimator:
    """An Estimator over the ``models`` and ``gpus`` tables of a warehouse or snapshot."""
    models = {r["model_id"]: model_from_row(r) for r in _query(con, "select * from models")}
    gpus = {r["gpu_id"]: economics.gpu_spec_from_row(r) for r in _query(con, "select * from gpus")}
    return Estimator(models, gpus)


def rebuild_token_estimates(con: duckdb.DuckDBPyConnection) -> int:
    """Replace ``token_estimates`` from ``current_offers`` at the standard settings, atomically.

    Returns the row count. Runs after the SQL models (it reads ``current_offers``). Offers
    whose price is suspect (``warehouse.plausibility``) get no estimate: a cost per token from a
    placeholder price would rank first and mean nothing. Offers are read, estimated and written
    :data:`CHUNK_OFFERS` at a time, so memory does not grow with their number.
    """
    estimator = load_estimator(con)
    # A curated tier's candidates and guaranteed memory come from its seed row. The offers are
    # read whole first (a few hundred bytes each): DuckDB cannot stream a query's result while
    # the same connection inserts.
    offers = con.sql(
        f"select {', '.join(f'o.{c}' for c in OFFER_COLUMNS)},"  # columns: code constants
        " t.gpu_candidates, t.vram_gb_guaranteed from current_offers as o"
        " left join serverless_tiers as t"
        " on o.offer_id = t.offer_id and o.price_source = 'curated'"
        # an undated price (no observed_at: warehouse/provenance.py) is never in force
        " where o.gpu_id is not null and o.price_status <> 'suspect' and o.observed_at is not null"
        " order by o.offer_id"
    ).to_arrow_table()
    rows = iter_estimate_rows(_arrow_rows(offers), estimator, sorted(estimator.models))
    written = 0
    with transaction(con):
        con.execute("delete from token_estimates")
        per_chunk = CHUNK_OFFERS * max(len(estimator.models), 1)
        while chunk := list(islice(rows, per_chunk)):
            insert_arrow(con, "token_estimates", _estimate_table(chunk))
            written += len(chunk)
    return written


def _arrow_rows(table: pa.Table) -> Iterator[dict[str, Any]]:
    for batch in table.to_batches(max_chunksize=CHUNK_OFFERS):
        yield from batch.to_pylist()


def _estimate_table(rows: list[dict[str, Any]]) -> pa.Table:
    columns: dict[str, pa.Array] = {}
    for c in ESTIMATE_COLUMNS:
        values = [r[c] for r in rows]
        if c in _DECIMAL_ESTIMATE_COLUMNS:
            # decimals as text: DuckDB casts them to the column's decimal type exactly on insert
            columns[c] = pa.array([None if v is None else str(v) for v in values], pa.string())
        else:
            columns[c] = pa.array(values)
    return pa.table(columns)


_DECIMAL_ESTIMATE_COLUMNS = frozenset(
    {"gpu_count", "price_per_hour_usd", "usd_per_million_output_tokens",
     "usd_per_million_total_tokens"}
)  # fmt: skip
