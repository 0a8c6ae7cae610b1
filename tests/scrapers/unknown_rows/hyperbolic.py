"""Hyperbolic: one more rental option in the newest capture, a copy of its first option whose
``gpuType`` names a GPU Hyperbolic does not list."""

from __future__ import annotations

import json

MADE_UP_GPU = "z100"


def inject(body: bytes) -> tuple[bytes, str]:
    options = json.loads(body)
    options.append({**options[0], "gpuType": MADE_UP_GPU})
    return json.dumps(options).encode(), MADE_UP_GPU
