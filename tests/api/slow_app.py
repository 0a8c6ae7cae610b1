"""A tiny ASGI app for the server-limit tests: ``/slow`` answers after ``SLOW_S`` seconds, so a
test can hold connections with a request in progress; anything else answers at once."""

from __future__ import annotations

import asyncio
from typing import Any

SLOW_S = 3.0


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(SLOW_S)
    headers = [(b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})
