"""HTTP caching tied to the snapshot, and HEAD for every GET endpoint.

A data endpoint's 200 answer is a function of (path, query string, Accept, snapshot) alone, so
its validator names the snapshot: ``ETag: W/"<snapshot id>-<digest of the request>"`` and
``Last-Modified`` = the snapshot's publication time. ``Cache-Control: public, no-cache`` lets
any cache keep the answer and makes it ask again each time (a new snapshot may be published at
any moment); a request whose ``If-None-Match`` names the current tag (or whose
``If-Modified-Since`` is not older than the snapshot) gets 304 without running the handler.
The tag is weak because compression changes the bytes, not the answer. Errors get
``Cache-Control: no-store``.

Order (``api.app``): the unknown-parameter check runs first, so neither a 304 nor a cached
answer skips its 400; a tag is only ever handed out on a 200, and it digests the exact query
string, so a matching ``If-None-Match`` stands for a request that was answered 200 on this
snapshot. A snapshot swapped in while a handler runs can leave the tag naming the older one;
the client's next request then gets the new answer in full, never a stale 304.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from email.utils import format_datetime, parsedate_to_datetime
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.store import NoSnapshot, Snapshot, SnapshotStore

CACHE_CONTROL = b"public, no-cache"
ERROR_CACHE_CONTROL = b"no-store"
VARY = ("Accept", "Accept-Encoding")
try:  # a new release may answer differently on the same snapshot
    _API_VERSION = version("gpuprices")
except PackageNotFoundError:  # pragma: no cover - running from a tree without metadata
    _API_VERSION = "0"


def reads_snapshot(handler: object) -> bool:
    """The handler answers from the snapshot (it takes the ``store`` dependency)."""
    signature = getattr(handler, "parsed_fn_signature", None)
    return signature is not None and "store" in signature.parameters


def etag(snapshot: Snapshot, scope: Scope) -> bytes:
    """The weak validator of this request's answer on ``snapshot``."""
    accept = b""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"accept":
            accept = value
    digest = hashlib.blake2b(digest_size=8)
    for part in (
        _API_VERSION.encode(),
        scope.get("path", "").encode(),
        scope.get("query_string", b""),
        accept,
    ):
        digest.update(part + b"\0")
    return f'W/"{snapshot.info.snapshot_id}-{digest.hexdigest()}"'.encode()


def _matches(if_none_match: bytes, tag: bytes) -> bool:
    """Weak comparison (RFC 9110 13.1.2): ``*`` or any listed tag equal apart from ``W/``."""
    wanted = tag.removeprefix(b"W/")
    for candidate in if_none_match.split(b","):
        candidate = candidate.strip()
        if candidate == b"*" or candidate.removeprefix(b"W/") == wanted:
            return True
    return False


def _not_modified_since(if_modified_since: bytes, snapshot: Snapshot) -> bool:
    try:
        since = parsedate_to_datetime(if_modified_since.decode("latin-1"))
    except (TypeError, ValueError):
        return False
    if since.tzinfo is None:
        return False
    return snapshot.as_of.replace(microsecond=0) <= since


def _with_vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with one Vary naming ``VARY`` and whatever was already varied on."""
    varied: dict[str, str] = {}
    kept = []
    for name, value in headers:
        if name.lower() == b"vary":
            for v in value.decode("latin-1").split(","):
                if v.strip():
                    varied.setdefault(v.strip().lower(), v.strip())
        else:
            kept.append((name, value))
    for v in VARY:
        varied.setdefault(v.lower(), v)
    return [*kept, (b"vary", ", ".join(varied.values()).encode())]


def validator_headers(snapshot: Snapshot, tag: bytes) -> list[tuple[bytes, bytes]]:
    return [(b"etag", tag), (b"last-modified", _http_date(snapshot.as_of))]


@lru_cache(maxsize=8)
def _http_date(moment: datetime) -> bytes:
    """``moment`` as an HTTP date (Last-Modified): formatted once per snapshot, not per answer."""
    return format_datetime(moment, usegmt=True).encode()


def conditional_get(store: SnapshotStore) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware factory (``middleware=[..., conditional_get(store), ...]``)."""

    def factory(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if (
                scope["type"] != "http"
                or scope.get("method") != "GET"
                or not reads_snapshot(scope.get("route_handler"))
            ):
                await app(scope, receive, send)
                return
            try:
                snapshot = store.get()
            except NoSnapshot:
                await app(scope, receive, send)
                return
            tag = etag(snapshot, scope)
            request_headers = {name.lower(): value for name, value in scope.get("headers", ())}
            inm = request_headers.get(b"if-none-match")
            ims = request_headers.get(b"if-modified-since")
            if (inm is not None and _matches(inm, tag)) or (
                inm is None and ims is not None and _not_modified_since(ims, snapshot)
            ):
                headers = [
                    *validator_headers(snapshot, tag),
                    (b"cache-control", CACHE_CONTROL),
                ]
                await send(
                    {"type": "http.response.start", "status": 304, "headers": _with_vary(headers)}
                )
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return

            async def annotate(message: Message) -> None:
                if message["type"] == "http.response.start":
                    headers = list(message.get("headers", []))
                    names = {name.lower() for name, _ in headers}
                    if message["status"] == 200:
                        headers.extend(validator_headers(snapshot, tag))
                        if b"cache-control" not in names:  # a handler's own choice stands
                            headers.append((b"cache-control", CACHE_CONTROL))
                        headers = _with_vary(headers)
                    elif b"cache-control" not in names:
                        headers.append((b"cache-control", ERROR_CACHE_CONTROL))
                    message = {**message, "headers": headers}
                await send(message)

            await app(scope, receive, annotate)

        return middleware

    return factory


def head_as_get(app: ASGIApp) -> ASGIApp:
    """Wrap an ASGI app so HEAD is answered as GET without the body (same status and headers,
    Content-Length included). Goes around the router: Litestar routes HEAD to no GET handler."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            await app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await app({**scope, "method": "GET"}, receive, without_body)

    return wrapped
