"""Hyperstack (c2026-09 page): a copy of a real on-demand card row under a made-up GPU name."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from scrapers import hyperstack
from scrapers.parsing import node_text

NAME = "NVIDIA Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    tree = LexborHTMLParser(body.decode("utf-8"))
    card = next(
        c
        for c in tree.css(hyperstack.CARD_GRID)
        if [node_text(h) for h in c.css(hyperstack.CARD_HEAD)][:2] == ["GPU Model", "VRAM (GB)"]
    )
    row = card.css(hyperstack.CARD_ROW)[1]  # a priced GPU row
    copy = row.clone()
    copy.css(hyperstack.CARD_CELL)[0].inner_html = NAME
    row.insert_after(copy)
    return (tree.html or "").encode("utf-8"), NAME
