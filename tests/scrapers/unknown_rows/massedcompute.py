"""Massed Compute pricing flight data: a copy of the first mobile card (its escaped keyed
segment, ``\\"<GPU>-mobile-x <count>-<n>\\",{...`` up to the next keyed element), its GPU name
changed to a made-up "Z100 SXM9", inserted before that next element."""

from __future__ import annotations

import re

MADE_UP_GPU = "Z100 SXM9"
_KEY = re.compile(rb'\\"(?P<name>[^"\\]+?)-(?:mobile-)?x \d+-\d+\\",\{')


def inject(body: bytes) -> tuple[bytes, str]:
    keys = list(_KEY.finditer(body))
    first = next(i for i, key in enumerate(keys) if b"-mobile-x " in key.group())
    start, end = keys[first].start(), keys[first + 1].start()
    card = body[start:end].replace(keys[first]["name"], MADE_UP_GPU.encode())
    return body[:end] + card + body[end:], MADE_UP_GPU
