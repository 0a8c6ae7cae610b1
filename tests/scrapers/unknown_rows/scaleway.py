"""Scaleway Instance catalog: a copy of the capture's first GPU Instance type, renamed and given
a made-up GPU (``gpu_info.gpu_name`` "Z100-SXM"), added to the ``servers`` object."""

from __future__ import annotations

import copy
import json

MADE_UP_GPU = "Z100-SXM"


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    servers = document["servers"]
    name, spec = next((n, s) for n, s in servers.items() if s.get("gpu"))
    made_up = copy.deepcopy(spec)
    made_up["gpu_info"]["gpu_name"] = MADE_UP_GPU
    servers[f"{MADE_UP_GPU}-{name}"] = made_up
    return json.dumps(document, indent=1).encode(), MADE_UP_GPU
