"""DigitalOcean GPU Droplets page: a copy of the first on-demand pricing card (its whole grid
cell), its GPU renamed to a made-up model ("NVIDIA H100x8" -> "NVIDIA Z100x8"), inserted after
the original card."""

from __future__ import annotations

import itertools
import re

from scrapers.base import PricingModel
from scrapers.digitalocean import CARD, LABELS

MADE_UP_MODEL = "Z100"
# The card's class prefix, from the parser's own selector ('[class^="<prefix>"]').
_CARD_PREFIX = re.fullmatch(r'\[class\^="(?P<prefix>[^"]+)"\]', CARD)
assert _CARD_PREFIX is not None
_CARD_START = re.compile(rb'<div class="' + re.escape(_CARD_PREFIX["prefix"].encode()))
# The two opening tags just before a card: its grid cell, then the card's container.
_WRAPPERS = re.compile(rb"(?P<cell><div[^>]*>)(?:<div[^>]*>)$")
_TITLE = re.compile(rb"(?P<open><h3[^>]*>)(?P<title>[^<]+)(?P<close></h3>)")
_COUNT = re.compile(r"^(?P<gpu>.+?)(?P<count>x\d+)?$")


def inject(body: bytes) -> tuple[bytes, str]:
    first_card = _CARD_START.search(body)
    assert first_card is not None, "no pricing card in the capture"
    wrappers = _WRAPPERS.search(body[: first_card.start()])
    assert wrappers is not None, "a card without its grid cell and container"
    cell_tag = wrappers["cell"]
    starts = [m.start() for m in re.finditer(re.escape(cell_tag), body)]
    on_demand = next(k for k, v in LABELS.items() if v is PricingModel.ON_DEMAND).encode()
    # A grid cell runs to the start of the next one; the last cell's end is not marked.
    index, cell = next(
        (i, body[start:end])
        for i, (start, end) in enumerate(itertools.pairwise(starts))
        if on_demand in body[start:end]
    )
    title = _TITLE.search(cell)
    assert title is not None, "a card without an <h3> title"
    parts = _COUNT.match(title["title"].decode())
    assert parts is not None
    words = parts["gpu"].split()
    made_up = " ".join([*words[:-1], MADE_UP_MODEL]) + (parts["count"] or "")
    copy = cell[: title.start("title")] + made_up.encode() + cell[title.end("title") :]
    insert_at = starts[index + 1]
    return body[:insert_at] + copy + body[insert_at:], made_up
