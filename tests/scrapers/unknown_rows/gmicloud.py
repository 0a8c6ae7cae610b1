"""GMI Cloud: one more GPU card in the newest capture, a copy of its H100 card whose heading
names a GPU GMI Cloud does not list."""

from __future__ import annotations

MADE_UP_GPU = "NVIDIA Z100"
_HEADING = b">NVIDIA H100 GPU</h3>"
_CARD_START = b'<div class="border-border-dark'


def inject(body: bytes) -> tuple[bytes, str]:
    heading = body.index(_HEADING)
    start = body.rindex(_CARD_START, 0, heading)
    end = body.index(_CARD_START, heading)
    copy = body[start:end].replace(_HEADING, b">" + MADE_UP_GPU.encode() + b"</h3>")
    return body[:end] + copy + body[end:], MADE_UP_GPU
