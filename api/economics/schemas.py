"""Response schemas of the economics endpoints (documentation of the wire format).

Units are in the names: ``_usd`` US dollars, ``_s`` seconds, ``_gb`` 10^9 bytes, ``_per_s`` per
second, ``_monthly_usd`` USD per month of 730 hours (8760 / 12, the month providers bill by and
the project's one month, ``warehouse.units.HOURS_PER_MONTH``), ``utilization`` a fraction 0..1
of one replica's day. Times are UTC ISO 8601.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar

import msgspec

from api.schemas import Excluded, Number, Schema
from api.schemas.assumptions import EstimateAssumptions
from api.schemas.fields import (
    AsOf,
    GpuCount,
    GpuId,
    InputTokens,
    InstanceType,
    Limit,
    ModelId,
    OfferId,
    OutputTokens,
    Pricing,
    ProviderSlug,
    Region,
    RequestedPrecision,
    SourceUrl,
    TensorParallel,
)
from api.schemas.shelf_life import (
    EXCLUDED_DOC,
    AgeDays,
    Expired,
    ExpiresAt,
    PriceKind,
    ShelfLifeDays,
)
from warehouse.vocabulary import KvAdmission


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


# --- GET /models ------------------------------------------------------------------------------


class Model(Schema):
    model_id: Annotated[str, _d("Id to pass as `model` to /estimates, /fit and /breakeven")]
    name: Annotated[str, _d("Display name, e.g. Llama 3.1 8B Instruct")]
    hf_repo: Annotated[str, _d("Hugging Face repository of the checkpoint (owner/name)")]
    architecture: Annotated[str, _d("dense or moe")]
    params_total_b: Annotated[Number, _d("Total parameters, billions")]
    params_active_b: Annotated[Number, _d("Parameters active per token, billions")]
    layers: Annotated[int, _d("Transformer layers")]
    hidden_size: Annotated[int, _d("Width of the residual stream (model dimension)")]
    attention_heads: Annotated[int, _d("Query heads per layer")]
    kv_heads: Annotated[int, _d("Key/value heads per layer (fewer than attention_heads under GQA)")]
    head_dim: Annotated[int, _d("Dimension of one attention head")]
    kv_latent_dim: Annotated[int | None, _d("MLA latent width per token per layer")]
    max_context_tokens: Annotated[int, _d("Longest context the model supports, tokens")]
    sliding_window_tokens: Annotated[int | None, _d("Sliding-window size, tokens; null: none")]
    sliding_window_layers: Annotated[int, _d("Layers that attend over the window only (0: none)")]
    num_experts: Annotated[int | None, _d("Experts per MoE layer; null for a dense model")]
    experts_per_token: Annotated[int | None, _d("Experts routed per token; null for a dense model")]
    vocab_size: Annotated[
        int, _d("Tokens in the vocabulary: the embedding table and lm_head are vocab x hidden")
    ]
    tied_embeddings: Annotated[
        bool, _d("The lm_head is the embedding table (one matrix stored, counted once)")
    ]
    checkpoint_precision: Annotated[str, _d("Precision the weights are published in")]
    source_url: Annotated[str, _d("The config the figures are read from")]


class ModelList(Schema):
    items: Annotated[list[Model], _d("Every reference model (warehouse/seeds/models.csv)")]
    as_of: AsOf


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
    offer_id: OfferId
    provider: ProviderSlug
    instance_type: InstanceType
    region: Region
    pricing: Pricing
    serverless: Annotated[bool, _d("A serverless tier, not an instance")]
    gpu_id: Annotated[str, _d("Canonical GPU id")]
    gpu_count: GpuCount
    model_id: ModelId
    input_tokens: Annotated[int, _d("Prompt tokens per request")]
    output_tokens: Annotated[int, _d("Generated tokens per request")]
    gpus_used: Annotated[int, _d("GPUs of the instance the layout uses (TP x DP)")]
    tensor_parallel: TensorParallel
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
    observed_at: Annotated[datetime, _d("When the offer's price was observed, UTC")]
    source_url: SourceUrl
    age_days: AgeDays
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class EstimatesPage(Schema):
    items: Annotated[list[EstimateItem], _d("Fitting offers, cheapest per 10^6 tokens first")]
    total: Annotated[int, _d("Fitting offers before limit")]
    excluded: Annotated[Excluded, _d(EXCLUDED_DOC + " (before the fit)")]
    limit: Limit
    model_id: ModelId
    precision: RequestedPrecision
    input_tokens: InputTokens
    output_tokens: OutputTokens
    kv_admission: Annotated[
        KvAdmission, _d("The KV admission policy the estimates assume (the request's)")
    ]
    source: Annotated[str, _d("token_estimates (standard settings, precomputed) or computed")]
    as_of: AsOf


class HardwareEstimate(_Estimated):
    model_id: ModelId
    gpu_id: GpuId
    gpus: Annotated[int, _d("GPUs of `gpu_id` asked about")]
    input_tokens: InputTokens
    output_tokens: OutputTokens
    fits: Annotated[bool, _d("The model fits these GPUs with one sequence")]
    not_estimated_reason: Annotated[
        str | None,
        _d(
            "Why no throughput is estimated (the model does not fit, or cannot run there);"
            " null when it is"
        ),
    ]
    tensor_parallel: Annotated[int, _d("GPUs one replica is sharded over (0 when not estimated)")]
    data_parallel: Annotated[int, _d("Independent replicas on these GPUs (0 when not estimated)")]
    batch_per_replica: Annotated[
        int, _d("Sequences decoded together per replica (0: not estimated)")
    ]
    output_tokens_per_s: Annotated[Number, _d("Generated tokens per second, all GPUs")]
    total_tokens_per_s: Annotated[
        Number, _d("Prompt + generated tokens/s, all GPUs (0: not estimated)")
    ]
    decode_tokens_per_s_per_sequence: Annotated[Number, _d("Decode speed one request sees")]
    prefill_s_per_request: Annotated[Number, _d("Replica seconds spent on one prompt")]
    assumptions: Annotated[
        EstimateAssumptions | None, _d("What the estimate assumes; null when it does not fit")
    ]
    as_of: AsOf


# --- GET /fit ---------------------------------------------------------------------------------


class FitGpu(_Precision):
    gpu_id: GpuId
    fits: Annotated[
        bool,
        _d(
            "A tensor-parallel group of these GPUs holds the model at this context and concurrency"
            " (groups of 1, 2, 4, 8, or the largest offer's GPU count)"
        ),
    ]
    min_gpus: Annotated[int | None, _d("Smallest TP group that holds the model; null = none")]
    gpus_in_breakdown: Annotated[int, _d("Group size the memory figures are for")]
    weights_gb: Annotated[Number, _d("Weights at weight_precision, GB, summed over the group")]
    kv_cache_gb: Annotated[Number, _d("All `concurrency` sequences of `context` tokens")]
    overhead_gb: Annotated[Number, _d("Reserved 10% + 2 GB workspace per GPU")]
    required_gb: Annotated[Number, _d("weights_gb + kv_cache_gb + overhead_gb, GB")]
    capacity_gb: Annotated[
        Number, _d("Memory the group really has, GB of 10^9 bytes (an 80 GB HBM GPU holds 85.9)")
    ]
    offers: Annotated[int, _d("Current offers with this GPU")]
    offers_that_fit: Annotated[int, _d("Of those, with at least min_gpus GPUs")]
    cheapest_offer_id: Annotated[
        str | None, _d("The offer that fits at the lowest USD per instance-hour; null: none fits")
    ]
    cheapest_price_per_hour_usd: Annotated[
        Number | None, _d("That offer's price, USD per instance-hour; null: none fits")
    ]


class FitOffer(Schema):
    offer_id: OfferId
    provider: ProviderSlug
    instance_type: InstanceType
    region: Region
    pricing: Pricing
    serverless: Annotated[bool, _d("A serverless tier, not an instance")]
    gpu_id: GpuId
    gpu_count: GpuCount
    min_gpus: Annotated[int, _d("Fewest GPUs of this model that hold it (<= gpu_count)")]
    price_per_hour_usd: Annotated[Number, _d("USD per instance-hour")]
    source_url: SourceUrl
    age_days: AgeDays
    price_kind: PriceKind
    shelf_life_days: ShelfLifeDays
    expires_at: ExpiresAt
    expired: Expired


class FitAnswer(Schema):
    CSV_LIST: ClassVar[str] = "offers"  # format=csv writes the offers (api.encoding)

    model_id: ModelId
    precision: RequestedPrecision
    context_tokens: Annotated[int, _d("Tokens per sequence (prompt + generated)")]
    concurrency: Annotated[int, _d("Sequences resident at once")]
    gpus: Annotated[list[FitGpu], _d("Per GPU model: fit, memory breakdown, cheapest offer")]
    offers: Annotated[list[FitOffer], _d("Offers that can serve it, cheapest per hour first")]
    offers_total: Annotated[int, _d("Offers that can serve it, before limit")]
    excluded: Annotated[Excluded, _d(EXCLUDED_DOC + " (before the fit)")]
    as_of: AsOf
