"""Vast.ai: one more offer in the newest capture (the reduced bare array), a copy of its first
offer with ``gpu_name`` renamed to a GPU Vast does not list."""

from __future__ import annotations

import json

MADE_UP_GPU = "Z100 SXM"


def inject(body: bytes) -> tuple[bytes, str]:
    rows = json.loads(body)
    assert isinstance(rows, list) and rows, "expected the reduced offer array"
    rows.insert(1, {**rows[0], "gpu_name": MADE_UP_GPU})
    return json.dumps(rows).encode(), MADE_UP_GPU
