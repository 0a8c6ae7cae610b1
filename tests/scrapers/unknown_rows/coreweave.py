"""CoreWeave (c2026-09 instance tables): a copy of a real GPU row under a made-up model name."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from scrapers import coreweave

NAME = "NVIDIA Z100"


def inject(body: bytes) -> tuple[bytes, str]:
    tree = LexborHTMLParser(body.decode("utf-8"))
    table = next(
        t
        for t in tree.css(coreweave.INSTANCE_TABLE)
        if coreweave._first_heading(t) == coreweave.INSTANCE_FIRST_HEADING
    )
    row = table.css(coreweave.INSTANCE_ROW)[-1]
    model = coreweave._row_cells(row)[0]
    original = row.html or ""
    html = tree.html or ""
    assert original and original in html and model in original
    copy = original.replace(model, NAME)  # desktop cell and mobile card alike
    at = html.index(original) + len(original)
    return (html[:at] + copy + html[at:]).encode("utf-8"), NAME
