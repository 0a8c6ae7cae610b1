"""Lambda: one more row in the newest capture's first tab panel, a copy of its first row with
the plan renamed to a GPU Lambda does not list."""

from __future__ import annotations

import re

MADE_UP_GPU = "NVIDIA Z100 SXM"
_ROW = re.compile(rb'<tr\b[^>]*data-plan="(?P<plan>[^"]+)".*?</tr>', re.DOTALL)


def inject(body: bytes) -> tuple[bytes, str]:
    row = _ROW.search(body)
    assert row is not None, "no pricing row with a data-plan attribute in the capture"
    copy = row.group(0).replace(row["plan"], MADE_UP_GPU.encode())
    return body[: row.end()] + copy + body[row.end() :], MADE_UP_GPU
