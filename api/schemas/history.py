"""Price history: GET /instances/{id}/history, /history, /history/catalog, /changes."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from api.schemas.base import Number, Schema


class OfferInterval(Schema):
    valid_from: Annotated[datetime, msgspec.Meta(description="Start of the interval (inclusive)")]
    valid_to: Annotated[
        datetime | None,
        msgspec.Meta(
            description=(
                "End of the interval (exclusive): the first scrape that saw another price or no longer "
                "listed the offer; null = still current"
            )
        ),
    ]
    price: Annotated[Number, msgspec.Meta(description="The provider's price in `currency`")]
    currency: str
    price_per_hour_usd: Annotated[Number, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[Number | None, msgspec.Meta(description="USD per GPU-hour")]
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: Number
    source: Annotated[
        str,
        msgspec.Meta(
            description=(
                "'scrape' (this project's scrapers) or 'import:<dataset>' (backfilled history)"
            )
        ),
    ]


class OfferHistory(Schema):
    id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    reserved_term_months: int | None
    items: Annotated[list[OfferInterval], msgspec.Meta(description="Oldest first")]
    as_of: datetime


class MarketBucket(Schema):
    start: Annotated[
        date, msgspec.Meta(description="First day of the bucket (UTC; weeks start on Monday)")
    ]
    min_usd_per_gpu_hour: Annotated[
        Number, msgspec.Meta(description="Cheapest provider's cheapest offer, USD per GPU-hour")
    ]
    median_usd_per_gpu_hour: Annotated[
        Number,
        msgspec.Meta(
            description="Median across providers of each provider's cheapest offer, USD per GPU-hour"
        ),
    ]
    max_usd_per_gpu_hour: Annotated[
        Number, msgspec.Meta(description="Dearest provider's cheapest offer, USD per GPU-hour")
    ]
    provider_count: Annotated[
        int, msgspec.Meta(description="Providers with a price on any day of the bucket")
    ]
    offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Offers behind the provider prices: for a day, the day's offers; for a "
            "week or month, per provider the most offers it had on one day of the bucket, added "
            "up (the number of distinct offers while a provider's list is stable, else a lower "
            "bound)"
        ),
    ]
    family_level_provider_count: Annotated[
        int,
        msgspec.Meta(
            description="Of provider_count, the providers whose price is a family-level offer: "
            "one whose source named only the GPU family (gpu_id null, gpu_family set, e.g. "
            "'NVIDIA H100', variant unknown). Always 0 for a canonical GPU id"
        ),
    ]
    family_level_offer_count: Annotated[
        int,
        msgspec.Meta(
            description="Of offer_count, the family-level offers (see "
            "family_level_provider_count). Always 0 for a canonical GPU id"
        ),
    ]


GpuLevel = Annotated[
    Literal["model", "family"],
    msgspec.Meta(
        description="model: one canonical GPU (gpu_id); family: a GPU family only, variant "
        "unknown (gpu_id null, gpu_family set, e.g. gpuhunt's 'H100': SXM, PCIe or NVL)"
    ),
]


class MarketHistory(Schema):
    gpu: Annotated[str, msgspec.Meta(description="The GPU id or family asked for (normalised)")]
    gpu_level: Annotated[
        Literal["model", "family"],
        msgspec.Meta(
            description="model: `gpu` is a canonical GPU id and the series holds only its own "
            "offers; family: `gpu` is a family and the series holds its members' offers and the "
            "family-level offers it covers (counted per bucket in family_level_*)"
        ),
    ]
    pricing: str
    bucket: Annotated[str, msgspec.Meta(description="day, week or month")]
    from_: Annotated[date, msgspec.Meta(description="First day (inclusive)")] = msgspec.field(
        name="from"
    )
    to: date
    items: list[MarketBucket]
    as_of: datetime


class CatalogDay(Schema):
    day: Annotated[date, msgspec.Meta(description="Day of the catalog capture (UTC)")]
    gpu_level: GpuLevel
    gpu_id: Annotated[
        str | None, msgspec.Meta(description="Canonical GPU id (gpu_level model), else null")
    ]
    gpu_family: Annotated[
        str | None, msgspec.Meta(description="GPU family id (gpu_level family), else null")
    ]
    min_usd_per_instance_hour: Annotated[
        Number,
        msgspec.Meta(description="Cheapest provider's cheapest catalog row, USD per instance-hour"),
    ]
    median_usd_per_instance_hour: Annotated[
        Number,
        msgspec.Meta(
            description="Median across providers of each provider's cheapest catalog row, USD "
            "per instance-hour"
        ),
    ]
    max_usd_per_instance_hour: Annotated[
        Number,
        msgspec.Meta(description="Dearest provider's cheapest catalog row, USD per instance-hour"),
    ]
    provider_count: int
    offer_count: Annotated[
        int, msgspec.Meta(description="Catalog rows behind the figures (all of them, per provider)")
    ]
    source: Annotated[str, msgspec.Meta(description="'import:<dataset>'")]


class CatalogHistory(Schema):
    gpu: Annotated[str, msgspec.Meta(description="The GPU id or family asked for (normalised)")]
    gpu_level: Annotated[
        Literal["model", "family"],
        msgspec.Meta(
            description="model: `gpu` is a canonical GPU id, only rows of that model; family: "
            "rows of its member models and family-level rows, each item saying which"
        ),
    ]
    from_: Annotated[
        date | None, msgspec.Meta(description="First day (inclusive); null: from the first")
    ] = msgspec.field(name="from")
    to: Annotated[date, msgspec.Meta(description="Last day (inclusive)")]
    items: Annotated[
        list[CatalogDay],
        msgspec.Meta(description="Oldest first; per day, model-level rows before family-level"),
    ]
    as_of: datetime


class PriceChange(Schema):
    changed_at: datetime
    id: Annotated[str, msgspec.Meta(description="Offer id (see /instances/{id}/history)")]
    provider: str
    instance_type: str
    region: str
    pricing: str
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: Number
    old_price: Annotated[Number, msgspec.Meta(description="In `currency`")]
    new_price: Number
    currency: str
    old_price_per_hour_usd: Number
    new_price_per_hour_usd: Number
    pct_change: Annotated[
        Number,
        msgspec.Meta(
            description=(
                "Percent change of the provider's own price (of USD per hour if the currency changed)"
            )
        ),
    ]
    source: str


class PriceChangesPage(Schema):
    items: Annotated[list[PriceChange], msgspec.Meta(description="Newest first")]
    total: int
    limit: int
    offset: int
    since: datetime
    as_of: datetime
