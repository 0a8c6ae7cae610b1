"""Together pricing page: a copy of the first GPU row of the visible GPU Clusters table (the
page's last ``<table>``), its GPU renamed ("HGX H100" -> a made-up "HGX Z100"), inserted after
the original row."""

from __future__ import annotations

import re

MADE_UP_GPU = "HGX Z100"
_ROW = re.compile(rb"<tr[^>]*><td>.*?</tr>", re.DOTALL)
_NAME = re.compile(rb"<span>(?P<name>HGX [^<]+)</span>")


def inject(body: bytes) -> tuple[bytes, str]:
    row = _ROW.search(body, body.rindex(b"<table"))
    assert row is not None, "no GPU row in the cluster table"
    name = _NAME.search(row.group())
    assert name is not None, "no HGX name in the first row"
    copy = row.group().replace(name["name"], MADE_UP_GPU.encode())
    return body[: row.end()] + copy + body[row.end() :], MADE_UP_GPU
