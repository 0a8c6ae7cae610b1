"""FluidStack (2025-01 table): a copy of a real table row under a made-up GPU name."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from scrapers import fluidstack

NAME = "Nvidia Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    tree = LexborHTMLParser(body.decode("utf-8"))
    table = fluidstack._find_table(tree)
    assert table is not None
    row = table.css("tbody tr")[1]  # a row priced in both columns
    copy = row.clone()
    name = copy.css_first("th h2")
    assert name is not None
    name.inner_html = NAME
    row.insert_after(copy)
    return (tree.html or "").encode("utf-8"), NAME
