"""A price's age and shelf life (the five fields every offer item carries), an offer's availability,
and ``excluded``: what an answer that lists or ranks offers left out, and why
(``warehouse.queries.Exclusions``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from api.schemas.base import Number, Schema

AgeDays = Annotated[
    Number | None,
    msgspec.Meta(
        description="Age of the price in days when the snapshot was published; null: no date, "
        "no age (never within max_age_days)"
    ),
]
PriceKind = Annotated[
    str,
    msgspec.Meta(
        description="Kind of price, which decides its shelf life: dynamic (re-set daily), spot, "
        "marketplace (host listings, bids, auctions), on_demand, reserved or serverless"
    ),
]
ShelfLifeDays = Annotated[
    Number,
    msgspec.Meta(
        description="How long a price of this kind stays in force after it was observed, days "
        "(GPUPRICES_SHELF_LIFE_DAYS_<KIND>)"
    ),
]
ExpiresAt = Annotated[
    datetime | None,
    msgspec.Meta(
        description="observed_at + shelf_life_days: when the price expires; null: the price has "
        "no date (an undated source), so it is expired"
    ),
]
Expired = Annotated[
    bool,
    msgspec.Meta(
        description="The price was past expires_at when the snapshot was published; listed only "
        "with include_expired=true"
    ),
]


Available = Annotated[
    bool | None,
    msgspec.Meta(
        description="Whether the source says the offer can be bought now: true (in stock, "
        "deployable in a listed location), false (no location, sold out, flagged not offered, "
        "past available_until; listed only with include_unavailable=true), null (the source "
        "does not say; listed)"
    ),
]
AvailableUntil = Annotated[
    datetime | None,
    msgspec.Meta(
        description="The end of service the provider announces for the offer (UTC): from then "
        "on it is not available; null: none announced"
    ),
]


class ExpiredExclusion(Schema):
    count: Annotated[int, msgspec.Meta(description="Offers left out as expired")]
    by_kind: Annotated[
        dict[str, int], msgspec.Meta(description="Those offers per price_kind, e.g. {'spot': 73}")
    ]
    shelf_life_days: Annotated[
        dict[str, Number],
        msgspec.Meta(description="The rule: shelf life per price_kind in this snapshot, days"),
    ]


class AgeExclusion(Schema):
    count: Annotated[
        int, msgspec.Meta(description="Offers left out because their price is older than this")
    ]
    max_age_days: Annotated[Number, msgspec.Meta(description="The max_age_days asked for, days")]


class SuspectExclusion(Schema):
    count: Annotated[
        int,
        msgspec.Meta(description="Offers left out as suspect (plausibility screen)"),
    ]


class UnavailableExclusion(Schema):
    count: Annotated[
        int,
        msgspec.Meta(description="Offers left out as not on sale (available: false)"),
    ]


class Excluded(Schema):
    count: Annotated[
        int,
        msgspec.Meta(
            description="Offers matching the other filters that the rules below left out; each "
            "is counted once, under the first rule that applies (expired, max_age_days, "
            "suspect, unavailable). Before any grouping, fit or limit"
        ),
    ]
    expired: Annotated[
        ExpiredExclusion,
        msgspec.Meta(description="Past the shelf life of their kind (include_expired=true: 0)"),
    ]
    max_age_days: Annotated[
        AgeExclusion | None,
        msgspec.Meta(description="Older than max_age_days; null when it was not given"),
    ]
    suspect: Annotated[
        SuspectExclusion,
        msgspec.Meta(description="Marked suspect (include_suspect=true: 0)"),
    ]
    unavailable: Annotated[
        UnavailableExclusion,
        msgspec.Meta(description="The source says not on sale now (include_unavailable=true: 0)"),
    ]


class SuspectChanges(Schema):
    count: Annotated[
        int,
        msgspec.Meta(
            description="Changes from or to a suspect price (include_suspect=true: 0, listed)"
        ),
    ]


class ChangesExcluded(Schema):
    count: Annotated[int, msgspec.Meta(description="Matching changes left out (= suspect)")]
    suspect: Annotated[
        SuspectChanges, msgspec.Meta(description="Left out as from or to a suspect price")
    ]


EXCLUDED_DOC = (
    "What the answer left out and why: offers matching the other filters whose price expired "
    "(per kind), is older than max_age_days, is suspect, or is not on sale (unavailable)"
)
