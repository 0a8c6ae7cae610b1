"""DataCrunch (Verda) products page: a copy of the first instance row, renamed to a made-up GPU
family ("1B200.30V" -> "1Z9X.30V", its GPU model cell too), inserted after the original."""

from __future__ import annotations

import re

MADE_UP_FAMILY = b"Z9X"
_ROW = re.compile(rb"<tr>(?:(?!</tr>).)*?<td.*?</tr>", re.DOTALL)
# The instance-name cell: ">1B200.30V<" (count, family, the rest of the name).
_NAME_CELL = re.compile(rb">\s*(?P<count>\d+)(?P<family>[A-Z][A-Z0-9]*)(?P<rest>\.[A-Z0-9.]+)\s*<")


def inject(body: bytes) -> tuple[bytes, str]:
    row = _ROW.search(body)
    assert row is not None, "no instance row in the capture"
    name = _NAME_CELL.search(row.group())
    assert name is not None, "no instance name in the first row"
    copy = row.group().replace(name["family"], MADE_UP_FAMILY)
    made_up = (name["count"] + MADE_UP_FAMILY + name["rest"]).decode()
    return body[: row.end()] + copy + body[row.end() :], made_up
