"""GET /version."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from api.schemas.base import Schema


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
