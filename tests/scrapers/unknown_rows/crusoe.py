"""Crusoe (c2026-09 GPU list): a copy of a real GPU list item under a made-up GPU name."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from scrapers import crusoe

NAME = "NVIDIA Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    tree = LexborHTMLParser(body.decode("utf-8"))
    header = next(
        h
        for h in tree.css(crusoe.LIST_HEADER_ROW)
        if crusoe._list_headings(h)[:1] == [crusoe.LIST_HEADING]
    )
    assert header.parent is not None
    item = header.parent.css(crusoe.LIST_ITEM)[3]  # a priced GPU (its prices are copied too)
    copy = item.clone()
    name = copy.css_first(crusoe.LIST_ITEM_NAME)
    assert name is not None
    name.inner_html = NAME
    item.insert_after(copy)
    return (tree.html or "").encode("utf-8"), NAME
