"""Modal: serverless GPU prices from the public pricing page (https://modal.com/pricing).

Known layout: the "Compute costs" panel. A ``<p>`` reading "GPU Tasks" is followed by a
``<div>`` of ``div.line-item`` rows, one per GPU tier: the GPU name in the first ``<p>``
("Nvidia H100", "Nvidia A100, 80 GB") and ``p.price`` holding the price and, in a ``<span>``,
its unit. A toggle switches the panel between "Per second" ("$0.001097 / sec") and "Per hour";
the capture is the rendered page after choosing per second, the server HTML may show either, so
both "/ sec" and "/ h" (or "/ hr", "/ hour") are read and emitted in that unit. A price with a
minus sign ("$-0.001736") is emitted negative: the loader rejects the whole scrape for it.

Each tier is billed per GPU while a function runs: one serverless offer per tier, price per GPU,
region "global". The CPU and memory rows of the panel are not GPU prices and are not read.
``gpu_name`` is the tier name, except where ``DEFAULT_GPU_NAMES`` names the exact part of an
A100/H100 tier (the tier name stays in ``instance_type``). A tier is read only when its name is
one of ``GPU_TIERS`` (compared without regard to case and spacing): the labels of the 2025-06
capture and the 2025-09+ labels "Nvidia RTX PRO 6000" and "Nvidia A10" (the rename of "A10G"
in Modal's GPU docs), which become ``modal-rtx-pro-6000`` / ``modal-a10`` with the printed name
as ``gpu_name``. Any other name is reported (``unknown_gpu <name>``), not guessed at.

Sandboxes: Modal bills Sandboxes at their own rates (its docs: "Sandbox resources and
pricing"; the Sandbox CPU rate is not the Function rate), so a Sandbox price is not the GPU
function price this scraper publishes. Decision: Sandbox prices are excluded and counted, not
parsed as their own instance type, because no capture of that section exists to say whether
its GPU rows are full prices or multipliers. A Sandbox section is recognised in document
order: an ``<h1>``-``<h4>`` heading or a ``<p>`` heading whose text starts with "Sandbox" opens
it, the next ``<h1>``-``<h4>`` without that word closes it. The Function "GPU Tasks" heading
is the one outside such a section and must be unique.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- ``sandbox_price``: each ``div.line-item`` row listed under a "GPU Tasks" heading inside a
  Sandbox section, or in the element right after a "Sandbox..." ``<p>`` heading;
- ``unknown_gpu <name>``: a Function GPU row whose tier name is not in ``GPU_TIERS``;
- a GPU row whose price is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``) is counted
  under that marker;
- a GPU row that cannot be read: ``unparsed_row`` (no name and price paragraphs, or an empty
  name), and for a known tier ``no_price_unit`` (no unit span), ``unknown_unit <unit>`` (a unit
  not in ``UNITS``, spaces removed: ``/day``), ``unparsed_price``.

``SchemaDriftError`` is kept for a structure that is gone: no Function "GPU Tasks" heading or
more than one, no row list after it or no ``div.line-item`` row in it, a page without any
offer left (the message lists the exclusions), or a tier listed twice (a second price for one
tier means the page gained a dimension this scraper does not read).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.kit import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "modal"
PRICING_URL = "https://modal.com/pricing"
HOMEPAGE = "https://modal.com"
TOKEN_ENV = None
GPU_SECTION_HEADING = "GPU Tasks"
ROW_SELECTOR = "div.line-item"
PRICE_SELECTOR = "p.price"
INSTANCE_TYPE_PREFIX = "modal-"
SANDBOX_WORD = "sandbox"
SECTION_TAGS = frozenset({"h1", "h2", "h3", "h4"})
# The unit span's text with whitespace removed and lower-cased -> the price unit.
UNITS: dict[str, PriceUnit] = {
    "/sec": PriceUnit.SECOND,
    "/s": PriceUnit.SECOND,
    "/h": PriceUnit.HOUR,
    "/hr": PriceUnit.HOUR,
    "/hour": PriceUnit.HOUR,
}
_VRAM_IN_NAME = re.compile(r"(\d+)\s*GB\b", re.IGNORECASE)

# Documented default for tiers whose name leaves the form factor open. Modal names the GPU types
# "A100-40GB", "A100-80GB" and "H100" and runs up to 8 of them per container, "always attached to
# the same physical machine" (https://modal.com/docs/guide/gpu); it does not say SXM or PCIe.
# 8-GPU A100/H100 machines on the clouds Modal rents from are HGX boards of SXM modules (AWS
# p4d/p4de/p5, GCP a2/a3, OCI BM.GPU4/A100-v2/H100; see those scrapers), so the SXM part is the
# default. Keyed by the tier name as printed; the A100 names carry their memory size.
DEFAULT_GPU_NAMES: dict[str, str] = {
    "Nvidia H100": "NVIDIA H100 SXM",
    "Nvidia A100, 40 GB": "NVIDIA A100 SXM4 40GB",
    "Nvidia A100, 80 GB": "NVIDIA A100 SXM4 80GB",
}

# Function GPU tiers as the page prints them: those of the 2025-06-12 capture, plus "Nvidia A10"
# (Modal's GPU docs renamed A10G to A10) and "Nvidia RTX PRO 6000" (listed there since 2025-09).
GPU_TIERS = frozenset(
    {
        "Nvidia B200",
        "Nvidia H200",
        "Nvidia H100",
        "Nvidia RTX PRO 6000",
        "Nvidia A100, 80 GB",
        "Nvidia A100, 40 GB",
        "Nvidia L40S",
        "Nvidia A10G",
        "Nvidia A10",
        "Nvidia L4",
        "Nvidia T4",
    }
)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One serverless offer per GPU tier: USD per GPU per second (or per hour, as shown).

    Raises ``SchemaDriftError`` when the "GPU Tasks" section or its rows are missing, when a
    tier appears twice, and when a page yields no offer; a row of an unknown tier or one that
    cannot be read is excluded (and counted).

    Returns the offers, and how many rows each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        page_excluded: Counter[str] = Counter()
        found = _parse_pricing_page(response, page_excluded)
        if not found:
            reasons = ", ".join(f"{r} {n}" for r, n in sorted(page_excluded.items()))
            raise SchemaDriftError(
                f"{response.url}: no priced GPU row under GPU Tasks (excluded: {reasons or 'none'})"
            )
        offers.extend(found)
        excluded.update(page_excluded)
    return offers, excluded


def _sections(response: RawResponse) -> tuple[list[Any], list[Any]]:
    """(Function "GPU Tasks" headings, Sandbox headings whose next element lists rows)."""
    tree = html_body(response)
    if tree.body is None:
        raise SchemaDriftError(f"{response.url}: empty page")
    functions: list[Any] = []
    sandbox: list[Any] = []
    in_sandbox = False
    for node in tree.body.traverse():
        if node.tag in SECTION_TAGS:
            in_sandbox = node_text(node).lower().startswith(SANDBOX_WORD)
        elif node.tag == "p":
            text = node_text(node)
            if text == GPU_SECTION_HEADING:
                (sandbox if in_sandbox else functions).append(node)
            elif text.lower().startswith(SANDBOX_WORD):
                in_sandbox = True
                sandbox.append(node)
    return functions, sandbox


def _parse_pricing_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    headings, sandbox = _sections(response)
    if len(headings) != 1:
        raise SchemaDriftError(
            f"{response.url}: expected one {GPU_SECTION_HEADING!r} heading, found {len(headings)}"
        )
    for heading in sandbox:
        listed = _next_element(heading)
        if listed is not None and listed.tag == "div":
            excluded["sandbox_price"] += len(listed.css(ROW_SELECTOR))
    section = _next_element(headings[0])
    if section is None or section.tag != "div":
        raise SchemaDriftError(f"{response.url}: no list of GPU rows after {GPU_SECTION_HEADING!r}")
    rows = section.css(ROW_SELECTOR)
    if not rows:
        raise SchemaDriftError(f"{response.url}: no {ROW_SELECTOR} rows under GPU Tasks")
    offers = offers_from_rows(rows, partial(_parse_row, response=response), excluded)
    seen: set[str] = set()
    for offer in offers:
        if offer.instance_type in seen:
            raise SchemaDriftError(f"{response.url}: GPU tier {offer.instance_type!r} listed twice")
        seen.add(offer.instance_type)
    return offers


def _next_element(node: Any) -> Any:
    """The next sibling element, skipping text and comment nodes (Svelte leaves many)."""
    sibling = node.next
    while sibling is not None and sibling.tag.startswith(("-", "_")):
        sibling = sibling.next
    return sibling


def _parse_row(row: Any, response: RawResponse) -> Offer:
    """The row's offer; ``RowExcluded`` with its reason when it is left out."""
    name_node = row.css_first("p")
    price_node = row.css_first(PRICE_SELECTOR)
    name = node_text(name_node) if name_node is not None else ""
    if not name or price_node is None or name_node is price_node:
        raise RowExcluded("unparsed_row")
    if _key(name) not in _TIER_KEYS:
        raise RowExcluded(unknown_row("gpu", name))
    name = _TIER_KEYS[_key(name)]
    reason = _unreadable_price(price_node)
    if reason is not None:
        raise RowExcluded(reason)
    unit = UNITS["".join(node_text(price_node.css_first("span")).split()).lower()]
    price, currency = money(node_text(price_node))
    vram = _VRAM_IN_NAME.search(name)
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=INSTANCE_TYPE_PREFIX + _slug(name),
        region="global",
        gpu_name=DEFAULT_GPU_NAMES.get(name, name),
        gpu_count=Decimal(1),
        vram_gb_reported=Decimal(vram.group(1)) if vram else None,
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=currency,
        price_unit=unit,
        price_per=PricePer.GPU,
        serverless=True,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


def _key(tier_name: str) -> str:
    return " ".join(tier_name.split()).casefold()


_TIER_KEYS = {_key(name): name for name in GPU_TIERS}


def _unreadable_price(price_node: Any) -> str | None:
    """The exclusion reason of a price cell that is not a price in a known unit, else None."""
    marker = no_price_marker(node_text(price_node))
    if marker is not None:
        return marker
    unit_node = price_node.css_first("span")
    if unit_node is None:
        return "no_price_unit"
    unit_text = "".join(node_text(unit_node).split()).lower()
    if unit_text not in UNITS:
        return unknown_row("unit", unit_text)
    try:
        money(node_text(price_node))
    except SchemaDriftError:
        return "unparsed_price"
    return None


def _slug(gpu_name: str) -> str:
    """``"Nvidia A100, 80 GB"`` -> ``"a100-80gb"``; ``"Nvidia H100"`` -> ``"h100"``."""
    text = re.sub(r"^nvidia\s+", "", gpu_name.strip().lower())
    text = re.sub(r"(\d+)\s*gb\b", r"\1gb", text)
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if not slug:
        raise SchemaDriftError(f"GPU row with an empty name: {gpu_name!r}")
    return slug


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Modal",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="serverless",
    notes="Serverless GPU functions billed per GPU-second.",
)
