"""E2E Networks: one more row in the newest capture's GPU table, a copy of its first row whose
item names a GPU E2E does not list."""

from __future__ import annotations

import re

MADE_UP_GPU = "NVIDIA Z100"
_ROW = re.compile(rb"<tbody[^>]*>(?P<row><tr\b.*?</tr>)", re.S)


def inject(body: bytes) -> tuple[bytes, str]:
    match = _ROW.search(body)
    assert match is not None, "no table row in the capture"
    row = match["row"]
    item = re.search(rb"<td[^>]*>(?:<[^>]+>)*(?P<item>NVIDIA [^<]+)<", row)
    assert item is not None, "no item in the first row"
    copy = row.replace(item["item"], MADE_UP_GPU.encode(), 1)
    return body[: match.end()] + copy + body[match.end() :], MADE_UP_GPU
