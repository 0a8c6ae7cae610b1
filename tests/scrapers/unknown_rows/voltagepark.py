"""Voltage Park: one more plan card in the newest capture, a copy of its first whole card
(``pricing11_plan`` wrapper to the next one) whose GPU line and heading name a GPU Voltage Park
does not list."""

from __future__ import annotations

import re

MADE_UP_GPU = "HGX Z100"
_PLAN = b'<div class="pricing11_plan">'
_GPU_LINE = re.compile(rb"(?P<range>\d+\s*-\s*\d+\s+)(?P<gpu>.+?)(?P<tail>\s+GPUs\b)")
_HEADING = re.compile(rb'(?P<open>class="text-eyebrow[^"]*">)(?P<heading>[^<]+)(?P<close></div>)')


def inject(body: bytes) -> tuple[bytes, str]:
    start = body.index(_PLAN)
    end = body.index(_PLAN, start + len(_PLAN))
    card = body[start:end]
    line = _GPU_LINE.search(card)
    heading = _HEADING.search(card)
    assert line is not None and heading is not None, "no GPU line or heading in the first card"
    copy = card.replace(line["gpu"], MADE_UP_GPU.encode()).replace(
        heading["heading"], heading["heading"] + b" " + MADE_UP_GPU.encode(), 1
    )
    return body[:end] + copy + body[end:], MADE_UP_GPU
