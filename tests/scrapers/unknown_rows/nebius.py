"""Nebius (c2026-09 GPU instances table): a copy of a real GPU row under a made-up item name."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from scrapers import nebius
from scrapers.parsing import node_text

NAME = "NVIDIA Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    tree = LexborHTMLParser(body.decode("utf-8"))
    table = next(
        t
        for t in tree.css(nebius.HIGHLIGHT_TABLE)
        if (head := t.css_first(nebius.HIGHLIGHT_HEAD_ROW)) is not None
        and "On-demand, GPU-hour" in [node_text(c) for c in head.css(nebius.HIGHLIGHT_CELL)]
    )
    row = table.css(nebius.HIGHLIGHT_BODY_ROW)[3]  # a priced GPU row
    copy = row.clone()
    copy.css(nebius.HIGHLIGHT_CELL)[0].inner_html = NAME
    row.insert_after(copy)
    return (tree.html or "").encode("utf-8"), NAME
