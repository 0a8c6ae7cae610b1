"""Hetzner Server Auction: a copy of the capture's first GPU server, its "GPU - <model>" lines
renamed to a made-up model ("GPU - Z100") and given a new id, appended to the server list."""

from __future__ import annotations

import copy
import json
from typing import Any

MADE_UP_MODEL = "Z100"
GPU_LINE_PREFIX = "GPU - "


def _rename(lines: list[Any]) -> list[Any]:
    return [
        f"{GPU_LINE_PREFIX}{MADE_UP_MODEL}"
        if isinstance(line, str) and line.startswith(GPU_LINE_PREFIX)
        else line
        for line in lines
    ]


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    servers = document["server"] if isinstance(document, dict) else document
    gpu_server = next(s for s in servers if _rename(s["description"]) != s["description"])
    server = copy.deepcopy(gpu_server)
    server["id"] = server["key"] = max(s["id"] for s in servers) + 1
    server["description"] = _rename(server["description"])
    server["information"] = _rename(server.get("information", []))
    servers.append(server)
    return json.dumps(document, indent=1).encode(), MADE_UP_MODEL
