"""TensorPool pricing page: a copy of the first line of TensorPool's own "GPU COSTS / HR" card
("B200 SXM - $4.99"), its GPU renamed to a made-up "Z100 SXM", inserted after the original."""

from __future__ import annotations

import re

MADE_UP_GPU = "Z100 SXM"
_CARD = b">TensorPool</h3>"
_LINE = re.compile(rb'<div class="mb-2">(?P<name>[^<]+?) - <strong>[^<]*</strong></div>')


def inject(body: bytes) -> tuple[bytes, str]:
    line = _LINE.search(body, body.index(_CARD))
    assert line is not None, "no price line in the TensorPool card"
    copy = line.group().replace(line["name"], MADE_UP_GPU.encode())
    return body[: line.end()] + copy + body[line.end() :], MADE_UP_GPU
