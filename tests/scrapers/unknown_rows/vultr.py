"""Vultr: a copy of a real GPU bare-metal plan, renamed to a made-up GPU type."""

from __future__ import annotations

import copy
import json

GPU_TYPE = "NVIDIA_Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    plans = document["plans_metal"] if isinstance(document, dict) else document
    real = next(p for p in plans if p.get("gpu_type"))
    made_up = copy.deepcopy(real)
    parts = real["id"].split("-")  # vbm-<c>c-<ram>gb-<n>-<model>-gpu
    parts[-2] = "z100"
    made_up["id"] = "-".join(parts)
    made_up["gpu_type"] = GPU_TYPE
    plans.append(made_up)
    return json.dumps(document, indent=1).encode(), GPU_TYPE
