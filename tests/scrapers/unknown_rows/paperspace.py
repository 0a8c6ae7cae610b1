"""Paperspace: one more machine card in the newest capture, a copy of its first card
(``instance-blocks-flex`` block up to the next one) renamed to a machine type Paperspace does
not list."""

from __future__ import annotations

import re

MADE_UP_TYPE = "Z100-80G"
_CARD = b'<div class="instance-blocks-flex">'
_NAME = re.compile(rb'(<h1 class="instance-names">)(?P<name>[^<]+)(</h1>)')


def inject(body: bytes) -> tuple[bytes, str]:
    start = body.index(_CARD)
    end = body.index(_CARD, start + len(_CARD))
    card = body[start:end]
    name = _NAME.search(card)
    assert name is not None, "no machine name in the first card"
    copy = card[: name.start("name")] + MADE_UP_TYPE.encode() + card[name.end("name") :]
    return body[:end] + copy + body[end:], MADE_UP_TYPE
