"""The error body every error answer carries (RFC 9457 problem details, ``api.problems``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from api.schemas.base import Schema


class ErrorBody(Schema, omit_defaults=True):  # extra only when there is any
    """An RFC 9457 problem (``application/problem+json``), every error answer's body."""

    type: Annotated[
        str,
        msgspec.Meta(description="about:blank: the HTTP status says what kind of problem it is"),
    ]
    title: Annotated[str, msgspec.Meta(description="The HTTP status phrase, e.g. Bad Request")]
    status: Annotated[int, msgspec.Meta(description="The HTTP status code")]
    detail: Annotated[str, msgspec.Meta(description="What was wrong with this request")]
    status_code: Annotated[
        int, msgspec.Meta(description="Deprecated: the same as status (kept for one release)")
    ]
    instance: Annotated[
        str | None,
        msgspec.Meta(description="The request target (path and query) this problem is about"),
    ] = None
    extra: Annotated[
        list[dict] | None,
        msgspec.Meta(
            description="Parameter errors: one entry per parameter (key, source, message, "
            "valid values, did_you_mean)"
        ),
    ] = None
