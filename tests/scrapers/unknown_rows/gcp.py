"""GCP: one more machine-type row in the newest capture (the accelerator-optimized pricing
page), a copy of its first machine-type row renamed to a made-up machine type of a form the
parser does not read (``z9x-highgpu-8g-lssd``: a made-up series with a name suffix).

The page names GPUs in free text and carries GPU counts, so a new series shaped like the known
ones (``z9x-highgpu-8g``) is published, not excluded: a machine-type name of a new form is the
page's unknown row.
"""

from __future__ import annotations

import re

MACHINE_TYPE = "z9x-highgpu-8g-lssd"
_ROW = re.compile(rb"<tr\b.*?</tr>", re.S)
_FIRST_CELL_TEXT = re.compile(rb"<td\b[^>]*>(?:<p>)?([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?:</p>)?</td>")


def inject(body: bytes) -> tuple[bytes, str]:
    for row in _ROW.finditer(body):
        if b"GPUs:" not in row[0]:
            continue  # a header or series heading row
        cell = _FIRST_CELL_TEXT.search(row[0])
        assert cell is not None, "no machine type in the first data row"
        copy = row[0].replace(cell[1], MACHINE_TYPE.encode(), 1)
        return body[: row.end()] + copy + body[row.end() :], MACHINE_TYPE
    raise AssertionError("no machine-type row in the capture")
