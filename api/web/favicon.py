"""The page's icon, GET /favicon.ico: a 32x32 ICO drawn here (three rising white bars on the
page's accent blue), so the repository holds no binary file and browsers asking for
/favicon.ico (they all do, with or without a link in the page) get an icon, not a 404.

ICO layout: a 6-byte ICONDIR, one 16-byte ICONDIRENTRY, then a BITMAPINFOHEADER with twice the
height (the colour rows plus the 1-bit AND mask), 32-bit BGRA rows bottom-up, and the mask
(all zero: the alpha channel decides transparency).
"""

from __future__ import annotations

import struct
from functools import cache

SIZE = 32  # px
ACCENT = (0x25, 0x63, 0xEB)  # the page's --accent, RGB
WHITE = (0xFF, 0xFF, 0xFF)
# (left, right, top) of each bar in px; every bar ends at BAR_BOTTOM (exclusive)
BARS = ((7, 12, 18), (14, 19, 12), (21, 26, 6))
BAR_BOTTOM = 26
CORNER = 6  # px: radius of the background's rounded corners


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    """RGBA of pixel (x, y), y counted from the top."""
    # outside the rounded corners: transparent
    cx = min(max(x, CORNER - 0.5), SIZE - CORNER - 0.5)
    cy = min(max(y, CORNER - 0.5), SIZE - CORNER - 0.5)
    if (x - cx) ** 2 + (y - cy) ** 2 > CORNER**2:
        return (0, 0, 0, 0)
    for left, right, top in BARS:
        if left <= x < right and top <= y < BAR_BOTTOM:
            return (*WHITE, 0xFF)
    return (*ACCENT, 0xFF)


@cache
def favicon_ico() -> bytes:
    """The icon's bytes (image/x-icon)."""
    rows = []
    for y in reversed(range(SIZE)):  # BMP rows run bottom-up
        row = b"".join(bytes((b, g, r, a)) for r, g, b, a in (_pixel(x, y) for x in range(SIZE)))
        rows.append(row)
    mask = bytes(((SIZE + 31) // 32) * 4 * SIZE)  # 1 bit per pixel, rows padded to 32 bits
    header = struct.pack("<IiiHHIIiiII", 40, SIZE, 2 * SIZE, 1, 32, 0, 0, 0, 0, 0, 0)
    image = header + b"".join(rows) + mask
    icondir = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16)
    return icondir + entry + image
