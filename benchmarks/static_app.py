"""The serving benchmark's yardstick: an ASGI app that answers every request with one
precomputed body (read once from ``$STATIC_BODY_FILE``) and does nothing else.

    uvicorn benchmarks.static_app:create_app --factory
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def create_app() -> Any:
    body = Path(os.environ["STATIC_BODY_FILE"]).read_bytes()
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    message = {"type": "http.response.body", "body": body}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = (await receive())["type"]  # lifespan.startup, then lifespan.shutdown
                await send({"type": f"{event}.complete"})
                if event == "lifespan.shutdown":
                    return
        await send(start)
        await send(message)

    return app
