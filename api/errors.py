"""Request ids and the answer to an unhandled error.

Every response carries ``X-Request-ID``: the client's own (if it sent a short, plain one) or a
new random id. An error no handler expected is logged once, at ERROR with its traceback, on the
``gpuprices.api`` logger with that id, method and path; the client gets a 500 whose body holds
only the id (no exception text, server path or DuckDB message), to quote in a report.
"""

from __future__ import annotations

import logging
import re
import uuid

from litestar import Request, Response
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.encoding import encode
from api.problems import PROBLEM_MEDIA_TYPE, instance_of, problem

REQUEST_ID_HEADER = b"x-request-id"
REQUEST_ID_KEY = "gpuprices.request_id"  # where the id lives in the ASGI scope
_CLIENT_ID = re.compile(rb"[A-Za-z0-9._:-]{1,64}")
log = logging.getLogger("gpuprices.api")


def request_id(scope: Scope) -> str:
    """This request's id (set by :func:`request_ids`; a new one if it did not run)."""
    found = scope.get(REQUEST_ID_KEY)  # type: ignore[misc]
    if not isinstance(found, str):
        found = uuid.uuid4().hex
        scope[REQUEST_ID_KEY] = found  # type: ignore[literal-required]
    return found


def request_ids(app: ASGIApp) -> ASGIApp:
    """Wrap an ASGI app: give each HTTP request an id and add ``X-Request-ID`` to its answer."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        given = next((v for n, v in scope.get("headers", ()) if n == REQUEST_ID_HEADER), b"")
        rid = given.decode("ascii") if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex
        scope[REQUEST_ID_KEY] = rid  # type: ignore[literal-required]

        async def with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    h for h in message.get("headers", []) if h[0].lower() != REQUEST_ID_HEADER
                ]
                message = {**message, "headers": [*headers, (REQUEST_ID_HEADER, rid.encode())]}
            await send(message)

        await app(scope, receive, with_id)

    return wrapped


def unhandled_error(request: Request, exc: Exception) -> Response[bytes]:
    """500 for an exception no other handler took: logged with its traceback and the request
    id; the body carries the id only."""
    rid = request_id(request.scope)
    log.error(
        "unhandled error, request id %s: %s %s",
        rid,
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    body = problem(
        500,
        f"internal error; quote request id {rid} when reporting it",
        instance_of(request.scope),
        request_id=rid,
    )
    return Response(content=encode(body), status_code=500, media_type=PROBLEM_MEDIA_TYPE)
