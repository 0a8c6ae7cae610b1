"""Serve repeated reads from encoded bytes, before any parameter parsing or validation.

The read endpoints are pure functions of (path, query string, snapshot). This middleware keeps
the complete 200 response of each (path, raw query string, Accept, Accept-Encoding) for the
snapshot being served and answers a repeat with those bytes, skipping parameter parsing,
validation, dependency injection and the handler. It runs after routing, inside Litestar's
CORS handling, so CORS headers are still added per request, and inside the unknown-parameter
check (``api.params``) and the ETag/304 layer (``api.conditional``), so a cached answer never
skips the 400 for an unknown name and validators are added per request. It sits outside
Litestar's compression: a gzip answer is kept compressed, under its own Accept-Encoding key.

Consistency: a response is stored only if the store served the same snapshot before and after
the handler ran (snapshots only move forward, so the handler saw that one too), and the whole
cache is dropped when the snapshot changes. Only 200 responses are kept; memory is bounded by
``MAX_BYTES`` (least recently used first out).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.store import NoSnapshot, Snapshot, SnapshotStore

CACHED_PATHS = frozenset({"/instances", "/gpus", "/providers"})
MAX_BYTES = 64 * 1024 * 1024


class ResponseCache:
    """Complete responses of the current snapshot, keyed by (path, raw query string)."""

    def __init__(self, store: SnapshotStore, max_bytes: int = MAX_BYTES) -> None:
        self.store = store
        self.max_bytes = max_bytes
        self._snapshot: Snapshot | None = None
        self._entries: OrderedDict[tuple[bytes | str, ...], tuple[dict[str, Any], bytes]] = (
            OrderedDict()
        )
        self._bytes = 0
        self.hits = 0

    def lookup(self, snapshot: Snapshot, key: tuple) -> tuple[dict, bytes] | None:
        if snapshot is not self._snapshot:
            return None
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            self.hits += 1
        return found

    def remember(self, snapshot: Snapshot, key: tuple, start: dict[str, Any], body: bytes) -> None:
        if snapshot is not self._snapshot:
            self._snapshot, self._entries, self._bytes = snapshot, OrderedDict(), 0
        if len(body) > self.max_bytes or key in self._entries:
            return
        self._entries[key] = (start, body)
        self._bytes += len(body)
        while self._bytes > self.max_bytes:
            _, (_, dropped) = self._entries.popitem(last=False)
            self._bytes -= len(dropped)

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """The Litestar middleware factory (``middleware=[cache.middleware]``)."""

        async def serve(scope: Scope, receive: Receive, send: Send) -> None:
            path = scope.get("path", "").rstrip("/")
            if scope["type"] != "http" or scope.get("method") != "GET" or path not in CACHED_PATHS:
                await app(scope, receive, send)
                return
            try:
                before = self.store.get()
            except NoSnapshot:
                await app(scope, receive, send)
                return
            key = (path, scope.get("query_string", b""), *_varying(scope))
            hit = self.lookup(before, key)
            if hit is not None:
                # a fresh message: outer middleware (CORS) adds its headers to the one it gets
                start, body = hit
                await send({**start, "headers": list(start["headers"])})
                await send({"type": "http.response.body", "body": body})
                return
            sent: list[Message] = []

            async def capture(message: Message) -> None:
                # keep our own copy, as the handler sent it, before outer middleware edits it
                sent.append(
                    {**message, "headers": list(message.get("headers", []))}
                    if message["type"] == "http.response.start"
                    else message
                )
                await send(message)

            await app(scope, receive, capture)
            start, *bodies = sent or [{}]
            if (
                start.get("type") == "http.response.start"
                and start.get("status") == 200
                and all(m.get("type") == "http.response.body" for m in bodies)
            ):
                try:
                    after = self.store.get()
                except NoSnapshot:
                    return
                if after is before:
                    self.remember(before, key, start, b"".join(m.get("body", b"") for m in bodies))

        return serve


# Request headers a response could vary on (content negotiation, compression): part of the key.
_VARY = (b"accept", b"accept-encoding")


def _varying(scope: Scope) -> tuple[bytes, ...]:
    found = dict.fromkeys(_VARY, b"")
    for name, value in scope.get("headers", ()):
        lowered = name.lower()
        if lowered in found:
            found[lowered] = value
    return tuple(found.values())
