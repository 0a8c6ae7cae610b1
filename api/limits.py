"""Request limits applied before any handler runs: the query string length.

Page size and list lengths are limits of the handlers' parameters (each resource's
``controller``); this bounds the raw query string itself, so a client cannot make the server
parse megabytes of repeated parameters. Requests over the limit get 414 with the usual JSON
error body.
"""

from __future__ import annotations

from litestar.types import ASGIApp, HTTPResponseBodyEvent, Receive, Scope, Send

from api.encoding import encode
from api.problems import PROBLEM_MEDIA_TYPE, instance_of, problem

MAX_QUERY_BYTES = 4096


def limit_query_length(app: ASGIApp) -> ASGIApp:
    """ASGI middleware factory: 414 for a query string longer than ``MAX_QUERY_BYTES``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        query = scope.get("query_string", b"") if scope["type"] == "http" else b""
        if len(query) > MAX_QUERY_BYTES:
            body = encode(
                problem(
                    414,
                    f"query string is {len(query)} bytes; at most {MAX_QUERY_BYTES} are accepted",
                    instance_of(scope, with_query=False),  # the query is the problem
                )
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 414,
                    "headers": [
                        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            done: HTTPResponseBodyEvent = {
                "type": "http.response.body",
                "body": body,
                "more_body": False,
            }
            await send(done)
            return
        await app(scope, receive, send)

    return middleware
