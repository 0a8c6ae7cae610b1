"""fal: one more row in the newest capture's GPU table, a copy of its H100 row naming a GPU fal
does not list."""

from __future__ import annotations

MADE_UP_GPU = "Z100"
_NAME = b'<span class="ml-4">H100</span>'


def inject(body: bytes) -> tuple[bytes, str]:
    name = body.index(_NAME)
    start = body.rindex(b"<tr", 0, name)
    end = body.index(b"</tr>", name) + len(b"</tr>")
    copy = body[start:end].replace(_NAME, _NAME.replace(b"H100", MADE_UP_GPU.encode()))
    return body[:end] + copy + body[end:], MADE_UP_GPU
