"""DeepInfra: one more row in the newest capture's Custom LLMs GPU table, a copy of its A100 row
naming a GPU DeepInfra does not list."""

from __future__ import annotations

import re

MADE_UP_GPU = "Z100"
_ROW = re.compile(rb"<tr[^>]*><td[^>]*>A100</td>.*?</tr>", re.S)


def inject(body: bytes) -> tuple[bytes, str]:
    row = _ROW.search(body)
    assert row is not None, "no A100 row in the capture"
    copy = row[0].replace(b">A100<", b">" + MADE_UP_GPU.encode() + b"<", 1)
    return body[: row.end()] + copy + body[row.end() :], MADE_UP_GPU
