"""Civo: one more GPU table in the newest capture, a copy of the first table of its NVIDIA GPUs
section whose caption names a GPU Civo does not list."""

from __future__ import annotations

import re

MADE_UP_GPU = "NVIDIA Z100 96GB"
_TABLE = re.compile(rb'<table class="pricing-table">.*?</table>', re.S)
_CAPTION = re.compile(rb"<caption>[^<]*</caption>")


def inject(body: bytes) -> tuple[bytes, str]:
    table = _TABLE.search(body, body.index(b'id="nvidia-gpus"'))
    assert table is not None, "no pricing table in the capture"
    copy = _CAPTION.sub(b"<caption>" + MADE_UP_GPU.encode() + b" GPU pricing</caption>", table[0])
    return body[: table.end()] + copy + body[table.end() :], MADE_UP_GPU
