"""Price history: GET /instances/{id}/history, /history, /history/catalog, /changes."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

import msgspec

from api.schemas.base import Number, Schema
from api.schemas.fields import (
    AsOf,
    CloudTier,
    Currency,
    GpuCount,
    InstanceType,
    Limit,
    NextOffset,
    OfferId,
    Offset,
    Pricing,
    ProviderSlug,
    Region,
    ScreenVerdict,
)
from api.schemas.instances import PriceStatusReason
from api.schemas.shelf_life import ChangesExcluded


class OfferInterval(Schema):
    valid_from: Annotated[datetime, msgspec.Meta(description="Start of the interval (inclusive)")]
    valid_to: Annotated[
        datetime | None,
        msgspec.Meta(
            description=(
                "End of the interval (exclusive): the first scrape that saw another price or, "
                "being a full scrape, no longer listed the offer; null = still current. The price "
                "was observed only up to `last_seen_at`: from `no_data_from` to `no_data_until` "
                "nothing is known"
            )
        ),
    ]
    last_seen_at: Annotated[
        datetime,
        msgspec.Meta(
            description="The newest observation that saw this price (the interval's "
            "price is known from valid_from to here)"
        ),
    ]
    no_data_from: Annotated[
        datetime | None,
        msgspec.Meta(
            description="Start of the span after this price with no data (= last_seen_at): "
            "nothing was observed until no_data_until, so the price there is unknown, not this "
            "one. Null while the interval is current"
        ),
    ]
    no_data_until: Annotated[
        datetime | None,
        msgspec.Meta(
            description="End of the span with no data: the next interval's valid_from, or "
            "valid_to when no interval follows (the offer was no longer listed)"
        ),
    ]
    no_data_days: Annotated[
        Number | None,
        msgspec.Meta(
            description="Length of the span with no data, in days (~0.04 for hourly scrapes)"
        ),
    ]
    price: Annotated[
        Number, msgspec.Meta(description="The provider's price in `currency` per `price_unit`")
    ]
    currency: Currency
    price_unit: Annotated[
        str | None,
        msgspec.Meta(
            description="What the price is per: hour, month, minute or second (null: "
            "written before units were kept in history)"
        ),
    ]
    price_per: Annotated[
        str | None, msgspec.Meta(description="gpu or instance: the price's basis (null: unknown)")
    ]
    price_per_gpu_hour: Annotated[
        Number | None,
        msgspec.Meta(description="One GPU per hour in `currency` (null: unit unknown)"),
    ]
    price_per_hour_usd: Annotated[Number, msgspec.Meta(description="USD per instance-hour")]
    price_per_gpu_hour_usd: Annotated[Number | None, msgspec.Meta(description="USD per GPU-hour")]
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: GpuCount
    source: Annotated[
        str,
        msgspec.Meta(
            description=(
                "'scrape' (this project's scrapers) or 'import:<dataset>' (backfilled history)"
            )
        ),
    ]
    announced: Annotated[
        bool,
        msgspec.Meta(
            description=(
                "The interval starts at a date the provider announced its price for (valid_from),"
                " and no scrape on or after that date has seen the price in force yet"
            )
        ),
    ]
    price_status: ScreenVerdict
    price_status_reasons: Annotated[
        list[PriceStatusReason],
        msgspec.Meta(
            description="Why the screen judged the observation that opened the interval suspect"
            " or questioned it; empty when ok or unscreened. A suspect interval is left out of"
            " the daily figures and GET /changes"
        ),
    ]


class OfferHistory(Schema):
    id: OfferId
    provider: ProviderSlug
    instance_type: InstanceType
    region: Region
    pricing: Pricing
    reserved_term_months: Annotated[
        int | None,
        msgspec.Meta(
            description="Commitment of a reserved price, months; null for other pricing models"
        ),
    ]
    items: Annotated[list[OfferInterval], msgspec.Meta(description="Oldest first")]
    as_of: AsOf


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
    providers: Annotated[
        list[str],
        msgspec.Meta(
            description="The providers counted in provider_count (slugs, sorted): the set the "
            "min, median and max are taken over"
        ),
    ]
    provider_set_changed: Annotated[
        bool,
        msgspec.Meta(
            description="providers differs from the previous bucket's of this answer (false "
            "for the first): a move of the median or min here may be providers joining or "
            "leaving (a price past its shelf life leaves), not a price change"
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
    pricing: Annotated[
        str,
        msgspec.Meta(
            description="The pricing model the series is of (the request's pricing, default on_demand)"
        ),
    ]
    bucket: Annotated[str, msgspec.Meta(description="day, week or month")]
    from_: Annotated[date, msgspec.Meta(description="First day (inclusive)")] = msgspec.field(
        name="from"
    )
    to: Annotated[date, msgspec.Meta(description="Last day (inclusive)")]
    items: Annotated[
        list[MarketBucket],
        msgspec.Meta(description="One bucket per day, week or month with a price, oldest first"),
    ]
    as_of: AsOf


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
    provider_count: Annotated[
        int, msgspec.Meta(description="Providers with a catalog row that day")
    ]
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
    as_of: AsOf


class PriceChange(Schema):
    changed_at: Annotated[
        datetime,
        msgspec.Meta(
            description="When the new price was first observed (the change happened "
            "after old_last_seen_at and at or before this)"
        ),
    ]
    id: Annotated[str, msgspec.Meta(description="Offer id (see /instances/{id}/history)")]
    provider: ProviderSlug
    instance_type: InstanceType
    region: Region
    cloud_tier: CloudTier
    pricing: Pricing
    gpu_id: Annotated[str | None, msgspec.Meta(description="Canonical GPU id")]
    gpu_count: GpuCount
    old_price: Annotated[Number, msgspec.Meta(description="In `old_currency` per `old_price_unit`")]
    new_price: Annotated[Number, msgspec.Meta(description="In `currency` per `new_price_unit`")]
    old_currency: Annotated[
        str, msgspec.Meta(description="ISO 4217 code of the old price's currency")
    ]
    currency: Annotated[str, msgspec.Meta(description="ISO 4217 code of the new price's currency")]
    old_price_unit: Annotated[
        str | None, msgspec.Meta(description="hour, month, minute or second (null: unknown)")
    ]
    new_price_unit: Annotated[str | None, msgspec.Meta(description="As old_price_unit")]
    old_price_per: Annotated[
        str | None, msgspec.Meta(description="gpu or instance: the old price's basis")
    ]
    new_price_per: Annotated[str | None, msgspec.Meta(description="As old_price_per")]
    old_price_per_hour_usd: Annotated[
        Number, msgspec.Meta(description="The old price, USD per instance-hour")
    ]
    new_price_per_hour_usd: Annotated[
        Number, msgspec.Meta(description="The new price, USD per instance-hour")
    ]
    old_price_per_gpu_hour: Annotated[
        Number | None,
        msgspec.Meta(description="One GPU per hour in `old_currency` (null: unit unknown)"),
    ]
    new_price_per_gpu_hour: Annotated[
        Number | None, msgspec.Meta(description="One GPU per hour in `currency`")
    ]
    old_price_per_gpu_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="The old price, USD per GPU-hour; null: unit unknown"),
    ]
    new_price_per_gpu_hour_usd: Annotated[
        Number | None,
        msgspec.Meta(description="The new price, USD per GPU-hour; null: unit unknown"),
    ]
    pct_change: Annotated[
        Number,
        msgspec.Meta(
            description="Percent change on comparable prices, in the offer's own currency: of "
            "the price when unit, basis and GPU count are unchanged, of the price per GPU-hour "
            "when one of them changed, of USD per GPU-hour when the currency changed or a unit "
            "is unknown (pct_change_basis)"
        ),
    ]
    pct_change_usd: Annotated[
        Number | None,
        msgspec.Meta(
            description="Percent change of USD per GPU-hour (exchange-rate moves included)"
        ),
    ]
    pct_change_basis: Annotated[
        Literal["price", "price_per_gpu_hour", "usd_per_gpu_hour"],
        msgspec.Meta(description="What pct_change compares"),
    ]
    old_last_seen_at: Annotated[
        datetime, msgspec.Meta(description="The newest observation of the old price")
    ]
    gap_days: Annotated[
        Number,
        msgspec.Meta(
            description="Days from old_last_seen_at to changed_at: how long the price "
            "went unobserved before the change was seen (~0.04 for hourly scrapes)"
        ),
    ]
    announced: Annotated[
        bool,
        msgspec.Meta(
            description="The new price is one the provider announced from changed_at (its "
            "effective date) and no scrape on or after that date has seen it in force yet"
        ),
    ]
    source: Annotated[
        str,
        msgspec.Meta(
            description="'scrape' (this project's scrapers) or 'import:<dataset>' (backfilled history)"
        ),
    ]
    old_price_status: ScreenVerdict
    new_price_status: ScreenVerdict


class PriceChangesPage(Schema):
    items: Annotated[list[PriceChange], msgspec.Meta(description="Newest first")]
    total: Annotated[int, msgspec.Meta(description="Changes matching before limit/offset")]
    excluded: Annotated[
        ChangesExcluded,
        msgspec.Meta(
            description="Matching changes not listed: a side is a price the plausibility"
            " screen judged suspect (a placeholder, a price out of line with its siblings)"
        ),
    ]
    limit: Limit
    offset: Offset
    next_offset: NextOffset
    since: Annotated[datetime, msgspec.Meta(description="Changes at or after this instant")]
    as_of: AsOf
