"""Hot Aisle: one more plan card in the newest capture, a copy of its Small card whose GPU line
names a GPU Hot Aisle does not list."""

from __future__ import annotations

MADE_UP_GPU = "MI900x"
_CARD_START = b'<div class="flex flex-col rounded-lg'
_GPU_SPAN = b'text-muted-foreground">MI300x</span>'


def inject(body: bytes) -> tuple[bytes, str]:
    start = body.index(_CARD_START)
    end = body.index(_CARD_START, start + 1)
    card = body[start:end]
    assert _GPU_SPAN in card, "no GPU span in the first card"
    copy = card.replace(_GPU_SPAN, _GPU_SPAN.replace(b"MI300x", MADE_UP_GPU.encode()))
    return body[:end] + copy + body[end:], MADE_UP_GPU
