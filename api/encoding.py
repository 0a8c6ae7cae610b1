"""Encoding responses: rows are dicts straight from DuckDB; Decimals become JSON numbers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Response
from litestar.enums import MediaType

_ENCODER = msgspec.json.Encoder(decimal_format="number")


def encode(value: Any) -> bytes:
    return _ENCODER.encode(value)


def page_body(
    items: list[dict[str, Any]], *, total: int, limit: int, offset: int, as_of: datetime
) -> bytes:
    return encode(
        {"items": items, "total": total, "limit": limit, "offset": offset, "as_of": as_of}
    )


def json_response(body: bytes, status_code: int = 200) -> Response[bytes]:
    return Response(content=body, media_type=MediaType.JSON, status_code=status_code)
