"""Modal: a copy of the first real Function "GPU Tasks" row, renamed to a made-up GPU."""

from __future__ import annotations

import re

NAME = "Nvidia Z100"
_FIRST_PARAGRAPH_TEXT = re.compile(rb"(<p[^>]*>)[^<]*(</p>)")


def inject(body: bytes) -> tuple[bytes, str]:
    heading = body.index(b">GPU Tasks</p>")
    start = body.index(b'<div class="line-item', heading)
    end = body.index(b"</div>", start) + len(b"</div>")  # a row holds no nested div
    row = _FIRST_PARAGRAPH_TEXT.sub(rb"\g<1>" + NAME.encode() + rb"\g<2>", body[start:end], 1)
    return body[:end] + row + body[end:], NAME
