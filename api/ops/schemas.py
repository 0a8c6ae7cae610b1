"""Response schemas of GET /health, GET /version and POST /admin/refresh."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from api.schemas.base import Number, Schema


class Version(Schema):
    version: Annotated[str, msgspec.Meta(description="The gpuprices package version serving")]
    api_version: Annotated[
        str, msgspec.Meta(description="The OpenAPI document's version (info.version)")
    ]
    snapshot_id: Annotated[
        str | None, msgspec.Meta(description="The snapshot served; null before the first one")
    ]
    snapshot_as_of: Annotated[
        datetime | None, msgspec.Meta(description="When the served snapshot was published (UTC)")
    ]
    python: Annotated[str, msgspec.Meta(description="Python version of the server process")]
    duckdb: Annotated[str, msgspec.Meta(description="DuckDB library version reading snapshots")]
    litestar: Annotated[str, msgspec.Meta(description="Litestar version")]


class OriginCounts(Schema):
    offers: Annotated[
        int, msgspec.Meta(description="Current offers of this origin, expired ones included")
    ]
    providers: Annotated[
        int, msgspec.Meta(description="Providers with a current offer of this origin")
    ]
    newest_age_days: Annotated[
        Number | None, msgspec.Meta(description="Age in days of the newest price of this origin")
    ]
    oldest_age_days: Annotated[
        Number | None, msgspec.Meta(description="Age in days of the oldest price of this origin")
    ]


class Health(Schema):
    status: Annotated[
        str,
        msgspec.Meta(
            description="ok; degraded: serving the last good snapshot while a newer one or the "
            "snapshot pointer cannot be read (see problem); or no_snapshot"
        ),
    ]
    snapshot_id: Annotated[
        str | None, msgspec.Meta(description="Id of the served snapshot; null: none is served yet")
    ]
    as_of: Annotated[
        datetime | None,
        msgspec.Meta(
            description="When the served snapshot was published (UTC); null: none is served yet"
        ),
    ]
    offers: Annotated[
        int,
        msgspec.Meta(description="Current offers in the served snapshot, expired ones included"),
    ]
    providers: Annotated[
        int, msgspec.Meta(description="Providers with a current offer in the served snapshot")
    ]
    expired_offers: Annotated[
        int,
        msgspec.Meta(
            description="Of those, offers whose price is past the shelf life of its kind: left "
            "out of answers unless include_expired=true"
        ),
    ] = 0
    data_origin: Annotated[
        str | None,
        msgspec.Meta(
            description="Where the scraped prices come from: live (every one fetched from the "
            "provider), recorded (none: all replayed from dated captures or the recorded offers "
            "shipped with gpuprices), mixed, or curated (seed tiers only); null: no offers"
        ),
    ] = None
    notice: Annotated[
        str | None,
        msgspec.Meta(description="A plain sentence when the prices are not all live; else null"),
    ] = None
    by_origin: Annotated[
        dict[str, OriginCounts],
        msgspec.Meta(
            description="Current offers by where they come from: live (fetched), recorded (a"
            " replayed capture or the recorded offers shipped with gpuprices, at their capture"
            " date) or curated (seed tiers); per provider: GET /providers"
        ),
    ] = msgspec.field(default_factory=dict)
    scraped_providers: Annotated[
        int, msgspec.Meta(description="Providers that have been scraped (GET /providers)")
    ] = 0
    live_providers: Annotated[
        int,
        msgspec.Meta(
            description="Of those, providers whose prices come from a live scrape and are "
            "within their shelf life (GET /providers: live)"
        ),
    ] = 0
    banner: Annotated[
        str | None,
        msgspec.Meta(
            description="A plain sentence when no provider is live, saying what is served "
            "instead (e.g. 'no provider is live: serving recorded data observed 2024-01-23 to "
            "2026-10-01 ...'); null when one is"
        ),
    ] = None
    problem: Annotated[
        str | None,
        msgspec.Meta(description="Why the status is not ok (no server paths); null when ok"),
    ] = None


class RefreshResult(Schema):
    swapped: Annotated[bool, msgspec.Meta(description="A newer snapshot was loaded by this call")]
    snapshot_id: Annotated[
        str, msgspec.Meta(description="Id of the snapshot served after this call")
    ]
    as_of: Annotated[datetime, msgspec.Meta(description="When the served snapshot was published")]
