"""A tiny ASGI app for the server-limit tests: ``/slow`` answers after ``SLOW_S`` seconds, so a
test can hold connections with a request in progress; ``/big`` answers ``BIG_BYTES`` at once, more
than a client that never reads can take in; anything else answers at once."""

from __future__ import annotations

import asyncio
from typing import Any

SLOW_S = 3.0
BIG_BYTES = 8 * 1024 * 1024


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(SLOW_S)
    body = b"x" * BIG_BYTES if scope["path"] == "/big" else b"ok"
    headers = [(b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
