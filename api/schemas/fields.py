"""Fields several response schemas carry with one meaning: the type and its description once,
so the OpenAPI document describes ``as_of`` or ``provider`` alike in every answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from api.schemas.base import Number

AsOf = Annotated[
    datetime,
    msgspec.Meta(
        description="When the served snapshot was published (UTC): the instant the answer is"
        " about; ages and expiry are measured at it"
    ),
]
Limit = Annotated[int, msgspec.Meta(description="Most items returned: the request's limit")]
Offset = Annotated[
    int, msgspec.Meta(description="Matching items skipped before the first one returned")
]
CloudTier = Annotated[
    str | None,
    msgspec.Meta(
        description="The provider's product tier of this price where it sells one GPU in"
        " several (RunPod: secure, community); null: the provider has no tiers"
    ),
]
Verified = Annotated[
    Literal["capture", "docs"] | None,
    msgspec.Meta(
        description="What the provider's parser is checked against: capture (real recorded"
        " responses of the provider) or docs (the provider's own published API or pricing-page"
        " example, no capture yet); null: a provider with facts and no scraper"
    ),
]
NextOffset = Annotated[
    int | None,
    msgspec.Meta(
        description="The offset of the next page (offset + limit), null on the last page; "
        'the Link header carries its URL (rel="next")'
    ),
]
ProviderSlug = Annotated[
    str, msgspec.Meta(description="Provider slug, e.g. lambda or runpod (GET /providers)")
]
PlatformSlug = Annotated[
    str, msgspec.Meta(description="Serverless platform slug, e.g. modal (GET /serverless)")
]
OfferId = Annotated[
    str,
    msgspec.Meta(description="Offer id, as GET /instances gives it (GET /instances/{id}/history)"),
]
InstanceType = Annotated[
    str, msgspec.Meta(description="The provider's instance type or product name, as it spells it")
]
Region = Annotated[
    str,
    msgspec.Meta(
        description="The provider's own region id; 'global' when the price names no place,"
        " 'unknown' when the source withholds it"
    ),
]
Pricing = Annotated[
    str,
    msgspec.Meta(
        description="Pricing model: on_demand, spot, reserved, or dynamic (a price the provider"
        " re-sets daily)"
    ),
]
GpuId = Annotated[str, msgspec.Meta(description="Canonical GPU id (GET /gpus), e.g. h100-sxm")]
GpuCount = Annotated[
    Number, msgspec.Meta(description="GPUs per instance or tier (fractional for a GPU share)")
]
Currency = Annotated[
    str,
    msgspec.Meta(description="ISO 4217 code of the currency the provider quotes, e.g. USD, EUR"),
]
SourceUrl = Annotated[str, msgspec.Meta(description="The page or API the figures were read from")]
ModelId = Annotated[str, msgspec.Meta(description="Reference model id (GET /models)")]
RequestedPrecision = Annotated[
    str,
    msgspec.Meta(
        description="The precision asked for (the request's precision; standard resolves per"
        " GPU: fp8 where it has FP8 tensor cores, else its 16-bit format)"
    ),
]
InputTokens = Annotated[int, msgspec.Meta(description="Prompt tokens per request, as asked")]
OutputTokens = Annotated[int, msgspec.Meta(description="Generated tokens per request, as asked")]
TensorParallel = Annotated[
    int, msgspec.Meta(description="GPUs one replica's weights are sharded over (tensor parallel)")
]
ScreenVerdict = Annotated[
    Literal["ok", "suspect", "confirmed"] | None,
    msgspec.Meta(
        description="The plausibility screen's verdict on the price (as GET /instances'"
        " price_status: ok, suspect, or confirmed by another capture); null: no screen judged"
        " it (imported history)"
    ),
]
