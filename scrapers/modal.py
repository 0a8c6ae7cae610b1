"""Modal: serverless GPU prices from the public pricing page (https://modal.com/pricing).

Known layout: the "Compute costs" panel. A ``<p>`` reading "GPU Tasks" is followed by a
``<div>`` of ``div.line-item`` rows, one per GPU tier: the GPU name in the first ``<p>``
("Nvidia H100", "Nvidia A100, 80 GB") and ``p.price`` holding the price and, in a ``<span>``,
its unit. A toggle switches the panel between "Per second" ("$0.001097 / sec") and "Per hour";
the capture is the rendered page after choosing per second, the server HTML may show either, so
both "/ sec" and "/ h" (or "/ hr", "/ hour") are read and emitted in that unit. Any other unit
raises ``SchemaDriftError``.

Each tier is billed per GPU while a function runs: one serverless offer per tier, price per GPU,
region "global". The CPU and memory rows of the panel are not GPU prices and are not read.
``gpu_name`` is the tier name, except where ``DEFAULT_GPU_NAMES`` names the exact part of an
A100/H100 tier (the tier name stays in ``instance_type``). Tier names are read generically:
the 2025-09+ labels ("Nvidia RTX PRO 6000", "Nvidia A10", the rename of "A10G" in Modal's GPU
docs) become ``modal-rtx-pro-6000`` / ``modal-a10`` with the printed name as ``gpu_name``.

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
- a GPU row whose price is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``) is counted
  under that marker. Any other unreadable row still raises ``SchemaDriftError``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx

from scrapers import http
from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
)
from scrapers.parsing import html_body, money, no_price_marker, node_text

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


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """One serverless offer per GPU tier: USD per GPU per second (or per hour, as shown).

    Raises ``SchemaDriftError`` when the "GPU Tasks" section, a row's name, price or unit is
    missing or unknown, when a tier appears twice, and when a page yields no GPU row.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many rows each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        found = _parse_pricing_page(response, excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no priced GPU row under GPU Tasks")
        offers.extend(found)
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
    offers: list[Offer] = []
    seen: set[str] = set()
    for row in rows:
        offer = _parse_row(row, response, excluded)
        if offer is None:
            continue
        if offer.instance_type in seen:
            raise SchemaDriftError(f"{response.url}: GPU tier {offer.instance_type!r} listed twice")
        seen.add(offer.instance_type)
        offers.append(offer)
    return offers


def _next_element(node: Any) -> Any:
    """The next sibling element, skipping text and comment nodes (Svelte leaves many)."""
    sibling = node.next
    while sibling is not None and sibling.tag.startswith(("-", "_")):
        sibling = sibling.next
    return sibling


def _parse_row(row: Any, response: RawResponse, excluded: Counter[str]) -> Offer | None:
    name_node = row.css_first("p")
    price_node = row.css_first(PRICE_SELECTOR)
    if name_node is None or price_node is None or name_node is price_node:
        raise SchemaDriftError(f"{response.url}: GPU row without a name and a price: {row.html}")
    name = node_text(name_node)
    marker = no_price_marker(node_text(price_node))
    if marker is not None:
        excluded[marker] += 1
        return None
    unit_node = price_node.css_first("span")
    if unit_node is None:
        raise SchemaDriftError(f"{response.url}: {name}: price without a unit")
    unit_text = "".join(node_text(unit_node).split()).lower()
    unit = UNITS.get(unit_text)
    if unit is None:
        raise SchemaDriftError(f"{response.url}: {name}: unknown price unit {unit_text!r}")
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
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="serverless",
    notes="Serverless GPU functions billed per GPU-second.",
)
