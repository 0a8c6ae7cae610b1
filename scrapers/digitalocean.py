"""DigitalOcean: GPU Droplet prices from the public pricing page, or from the sizes API.

Live sources (``fetch`` uses one of them):

- With ``DIGITALOCEAN_TOKEN`` set: ``GET https://api.digitalocean.com/v2/sizes?per_page=200``
  with ``Authorization: Bearer <token>`` (scope ``sizes:read``), following ``links.pages.next``
  (absolute URLs, only on api.digitalocean.com, at most ``MAX_PAGES``); 200 is the documented
  maximum ``per_page`` (https://docs.digitalocean.com/reference/api/reference/sizes/).
  ``fetch_with_skips``: the first page failing is a ``FetchError``; a later page that fails (or
  a next link off the API host, or a page past ``MAX_PAGES``) ends the paging, the pages read so
  far are parsed and the missing page is reported as a skipped part ("page 2": error).
- Without a token: ``GET https://www.digitalocean.com/pricing/gpu-droplets`` (HTML, no auth).
  This is also what a replay of the recorded page asks for.

``parse`` tells the two apart by the body (a JSON object vs an HTML page).

**Pricing page** (recognised layout: the 2025 styled-components cards). Each GPU offering is a
card (``class`` starting ``CardPricingstyles__StyledCardPricingCard``) with an ``<h3>`` title
("NVIDIA H100x8", "AMD Instinct(TM) MI300X"), a price container holding one or two price spans
("$2.99" + "/GPU/hour") and a label ("On-Demand Price" or "Reserved Price"), and a spec list.

- The title's GPU must hold one of ``PAGE_MODELS`` ("H100", "RTX 4000 Ada", "MI300X", ...).
- Prices are USD per GPU per hour (``price_per`` gpu), as printed.
- Two price spans in one card: the first is the struck-through former price and the second the
  current one, marked "*" for promotional (the H100 card: $6.74 struck, $3.39*). The current
  price is emitted; the former is counted as ``struck_through_price``.
- On-demand cards list "GPUs per Droplet", "GPU Memory" (the Droplet total: 640 GB for 8 GPUs,
  so per GPU = total / count), "Droplet Memory" (GiB), "Droplet vCPUs", "Boot Disk" and
  "Scratch Disk" (storage = boot + scratch; the RTX cards have no scratch disk).
- Reserved cards say "Prices start as low as $X/GPU/hour ... if you reserve via a contractual
  commitment of N months": emitted as ``reserved`` with that term. It is a floor, sold through
  sales; the card has no specs, so only the GPU count (from the title) is known.
- The GPU count comes from the title suffix "x8" (none: 1) and must agree with "GPUs per Droplet".

**Sizes API**: ``{"sizes": [...], "links": {"pages": {"next": ...}}, "meta": {"total"}}``. A GPU
size has ``gpu_info`` ``{count, model, vram: {amount, unit}}`` (``nvidia_h100``; ``vram`` is the
Droplet total, 640 gib on ``gpu-h100x8-640gb``); other sizes are CPU Droplets, counted as
``not_a_gpu_size``. ``price_hourly`` is USD per hour for the whole Droplet (``price_per``
instance); ``memory`` is MiB; storage = the sum of ``disk_info`` sizes (local + scratch), else
``disk`` (GB). ``available`` ("whether new Droplets can be created with this size") is the
offer's ``offered`` flag and its availability: a size that is available but lists no region
(``"regions": []``) can be created nowhere, so it is not available either.
Region ``global`` on both paths: a size's price does not depend on the
region, and ``regions`` lists where it can be created now (availability, not another offer).

GPU size slugs read ``gpu-<family>x<count>-<VRAM>gb[-<variant>]``; the family must be one of
``SIZE_FAMILIES`` and the variant one of ``SIZE_VARIANTS``. A third party's dump of /v2/sizes
(2026-10-08, github.com/shyamsfo/bernoulli) lists ``-spot`` and ``-lc-spot`` sizes (B300,
MI350X, MI355X) beside the plain ones: they are emitted as ``spot``, the plain ones as
``on_demand``. ``-contracted`` sizes (in DigitalOcean client code) carry a contract's rate
without its term and are not offers.

Exclusions (counted by ``parse_with_exclusions``; one count per card or size unless stated):

- ``unknown_gpu <card title>``: a card whose GPU holds none of ``PAGE_MODELS``;
  ``unknown_label <label> (<title>)``: a card whose price label is neither of ``LABELS``;
  ``unknown_unit <unit> (<title>)``: a price not per "/GPU/hour";
- ``unknown_family <slug>`` / ``unknown_sku <slug>``: a GPU size of a family not in
  ``SIZE_FAMILIES``, or whose slug is of another shape or variant; ``unknown_unit <unit>
  (<slug>)``: a VRAM or disk size in a unit other than GiB/GB;
- ``not_a_gpu_size``: a size without ``gpu_info``; ``contracted``: a ``-contracted`` size;
- a price cell that is exactly a no-price marker ("Contact sales") is counted by marker;
  ``struck_through_price``: a card's former price (one count per card, the card is emitted);
- a card that cannot be read: ``unparsed_price`` (no amount: not "$<n> /GPU/hour", or neither
  one nor two price spans), ``no_reserved_term`` (a reserved card without "commitment of N
  months"), ``incomplete_specs`` / ``unparsed_specs`` (an on-demand spec list lacking a spec,
  or with an item or value that does not read), ``gpu_count_mismatch`` (title vs "GPUs per
  Droplet");
- a size that cannot be read: ``incomplete_size`` (a field missing or not a number),
  ``unparsed_price`` (``price_hourly`` NaN or infinite).

A price that reads as zero or negative ("$0.00", "$-1.99", "-$1.99 /GPU/hour", ``price_hourly``
-3.5) is not unreadable: it is emitted as read, so the loader rejects the whole scrape
(``prices_positive``); so is one 100x too high, which the price-jump guard quarantines.

``SchemaDriftError`` is kept for a structure that is gone: a page without pricing cards, a card
without an ``<h3>`` title or a price container, an API body without a ``sizes`` list, a size
without a slug, no offer left at all (the message lists the exclusions), more unreadable cards or
sizes (``UNREADABLE``) than read ones (a renamed spec label or price format on every card is a
changed layout, not a slip), or the same offer twice.

GPU names are the page's or the API's words, except where ``GPU_NAMES`` names the exact part:
DigitalOcean calls its H100 plain "H100", but its GPU Droplets are NVIDIA HGX H100 systems
(https://www.digitalocean.com/blog/now-available-gpu-droplets-nvidia-h100s-ams, "GPU Droplets
accelerated by NVIDIA HGX H100"), and HGX boards carry SXM modules, hence "NVIDIA H100 SXM".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx
from selectolax.lexbor import LexborNode

from scrapers import http
from scrapers.kit import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    gb_from_size,
    html_body,
    json_body,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import gb_from_mib

PRICING_URL = "https://www.digitalocean.com/pricing/gpu-droplets"
API_HOST = "api.digitalocean.com"
SIZES_URL = f"https://{API_HOST}/v2/sizes"
PER_PAGE = 200  # the documented maximum
MAX_PAGES = 10
HOMEPAGE = "https://www.digitalocean.com"
TOKEN_ENV = "DIGITALOCEAN_TOKEN"  # optional: without it the public pricing page is read
SLUG = "digitalocean"
REGION = "global"
CURRENCY = "USD"

# Selectors anchor on the styled-components' display names at the start of ``class`` (the
# hashed suffixes change with every site build).
CARD = '[class^="CardPricingstyles__StyledCardPricingCard"]'
PRICE_CONTAINER = '[class^="CardPricingstyles__StyledPriceContainer"]'
SPEC_LIST = '[class^="CardPricingstyles__StyledSpecList"]'
LABELS = {"On-Demand Price": PricingModel.ON_DEMAND, "Reserved Price": PricingModel.RESERVED}
SPEC_GPUS = "GPUs per Droplet"
SPEC_GPU_MEMORY = "GPU Memory"
SPEC_RAM = "Droplet Memory"
SPEC_VCPUS = "Droplet vCPUs"
SPEC_BOOT_DISK = "Boot Disk"
SPEC_SCRATCH_DISK = "Scratch Disk"
ON_DEMAND_SPECS = (SPEC_GPUS, SPEC_GPU_MEMORY, SPEC_RAM, SPEC_VCPUS, SPEC_BOOT_DISK)

# Provider spellings (page titles and API gpu_info.model) that leave the part open -> the part;
# see the module docstring for the evidence.
GPU_NAMES = {"NVIDIA H100": "NVIDIA H100 SXM", "nvidia_h100": "NVIDIA H100 SXM"}

# GPU models this scraper knows, as the pricing page's card titles spell them (compared by
# their alphanumeric words, so "AMD Instinct™ MI300X" and "AMD Instinct(TM) MI300X" both hold
# "MI300X"): the 2025-07 capture's cards, and the models of DigitalOcean's GPU Droplet sizes
# listed on 2026-10-08 (H200, B300, MI325X, MI350X, MI355X; a third party's dump of /v2/sizes,
# github.com/shyamsfo/bernoulli, see the sizes notes below).
PAGE_MODELS = (
    "H100",
    "H200",
    "B300",
    "L40S",
    "RTX 4000 Ada",
    "RTX 6000 Ada",
    "MI300X",
    "MI325X",
    "MI350X",
    "MI355X",
)

# GPU Droplet size slugs: "gpu-<family>x<count>-<total VRAM>gb[-<variant>]". The families and
# variants below are those of the 2026-10-08 /v2/sizes dump (gpu-4000adax1-20gb,
# gpu-h200x8-1128gb, gpu-mi355x8-2304gb-spot, gpu-b300x8-2304gb-lc-spot, ...) and of size slugs
# in DigitalOcean client code ("-contracted", "-fabric-contracted").
SIZE_FAMILIES = frozenset(
    {"h100", "h200", "b300", "l40s", "4000ada", "6000ada", "mi300", "mi325", "mi350", "mi355"}
)
# variant -> pricing model, or None: not a public price (a contract's rate, term not stated).
SIZE_VARIANTS: dict[str, PricingModel | None] = {
    "": PricingModel.ON_DEMAND,
    "spot": PricingModel.SPOT,
    "lc-spot": PricingModel.SPOT,
    "contracted": None,
    "fabric-contracted": None,
}

_TITLE_COUNT = re.compile(r"^(?P<gpu>.+?)x(?P<count>\d+)$")
# "$2.99 /GPU/hour", "$3.39 /GPU/hour*" (promotional). A minus on either side of the "$" is
# read ("-$1.99", "$-1.99"), as are thousands separators: a zero, negative or 100x price is a
# wrong price that must reach the loader (which rejects the scrape), not an unreadable card.
_PRICE = re.compile(
    r"^(?P<sign>[-\u2212])?\$(?P<sign2>[-\u2212])?(?P<amount>\d[\d,]*(?:\.\d+)?) ?"
    r"(?P<unit>/[^\s*]+)(?P<promo>\*)?$"
)
PRICE_UNIT = "/GPU/hour"
_TERM = re.compile(r"commitment of (?P<n>\d+) (?P<unit>month|year)s?\b")
_WHOLE = re.compile(r"^\d+$")
_SIZE_UNITS = {"gib": gb_from_gib, "gb": decimal}
_SIZE_SLUG = re.compile(
    r"^gpu-(?P<family>[a-z0-9]+?)x(?P<count>\d+)-(?P<vram>\d+)gb(?:-(?P<variant>[a-z0-9-]+))?$"
)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """``fetch_with_skips``, failing instead of skipping: raises ``FetchError`` on any failed
    request, a next link off the API host (the token is never sent elsewhere) or more than
    ``MAX_PAGES`` pages."""
    responses, skipped = fetch_with_skips(client, token)
    if skipped:
        raise FetchError("; ".join(f"{part}: {error}" for part, error in skipped.items()))
    return responses


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """With a token: every page of the sizes API; without: the pricing page.

    The first request failing raises ``FetchError``. A later page that fails, a next link off
    the API host (not followed: the token is never sent elsewhere) or a page beyond
    ``MAX_PAGES`` ends the paging: the pages read so far are returned, and the part that was
    not read is reported as ``{"page <n>": "<one-line error>"}``.
    """
    if not token:
        return [http.get(client, PRICING_URL)], {}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    responses = [http.get(client, SIZES_URL, params={"per_page": PER_PAGE}, headers=headers)]
    for page in range(2, MAX_PAGES + 2):
        next_url = _next_page(responses[-1])
        if next_url is None:
            return responses, {}
        part = f"page {page}"
        if page > MAX_PAGES:
            return responses, {part: f"GET {SIZES_URL}: more than {MAX_PAGES} pages, not read"}
        if httpx.URL(next_url).host != API_HOST:
            return responses, {
                part: f"GET {SIZES_URL}: next page {next_url!r} is not on {API_HOST}, not read"
            }
        try:
            responses.append(http.get(client, next_url, headers=headers))
        except FetchError as exc:
            return responses, {part: str(exc)}
    raise AssertionError("unreachable: the loop returns by page MAX_PAGES + 1")


def _next_page(response: RawResponse) -> str | None:
    if not _is_json(response):
        return None  # the replayed pricing page answers every request; it has no pages
    try:
        document = json_body(response)
    except SchemaDriftError:
        return None  # parse reports the body; there is no next link to follow
    links = document.get("links") if isinstance(document, dict) else None
    pages = links.get("pages") if isinstance(links, dict) else None
    next_url = pages.get("next") if isinstance(pages, dict) else None
    return next_url if isinstance(next_url, str) and next_url else None


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page (USD per GPU-hour) or the sizes API (USD per Droplet-hour).

    Raises ``SchemaDriftError`` when a page has no pricing cards (or a card no title or price
    container) or an API body no ``sizes`` list (or a size no slug), or when nothing yields an
    offer; a card or size that cannot be read is excluded instead (see the module docstring).

    Returns the offers, and how many prices, cards or sizes each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        if _is_json(response):
            offers.extend(_parse_sizes(response, excluded))
        else:
            offers.extend(_parse_page(response, excluded))
    if not offers:
        reasons = ", ".join(
            f"{r} {n}" for r, n in sorted(excluded.items()) if r != "not_a_gpu_size"
        )
        raise SchemaDriftError(f"no GPU Droplet prices found (excluded: {reasons or 'none'})")
    _check_readable(offers, excluded)
    return ensure_unique(offers), excluded


# Exclusions of cards or sizes of a known GPU that could not be read: one is a slip, most of
# them a changed layout (see ``_check_readable``).
UNREADABLE = frozenset(
    {
        "unparsed_price",
        "no_reserved_term",
        "incomplete_specs",
        "unparsed_specs",
        "gpu_count_mismatch",
        "incomplete_size",
    }
)


def _check_readable(offers: list[Offer], excluded: Counter[str]) -> None:
    """``SchemaDriftError`` when more cards/sizes could not be read than were read (counted like
    ``base.check_structure`` counts rows): the layout changed, publishing the rest would hide it."""
    read = len({(offer.instance_type, offer.region) for offer in offers})
    unreadable = {r: n for r, n in excluded.items() if r in UNREADABLE}
    if sum(unreadable.values()) > read:
        detail = ", ".join(f"{r} {n}" for r, n in sorted(unreadable.items()))
        raise SchemaDriftError(f"more GPU Droplet cards or sizes unreadable than read: {detail}")


def _is_json(response: RawResponse) -> bool:
    return response.body.lstrip()[:1] == b"{"


def _words(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()


_PAGE_MODEL_WORDS = [_words(model) for model in PAGE_MODELS]


def _known_page_gpu(gpu: str) -> bool:
    words = _words(gpu)
    return any(
        words[i : i + len(model)] == model
        for model in _PAGE_MODEL_WORDS
        for i in range(len(words) - len(model) + 1)
    )


# --- pricing page --------------------------------------------------------------------------------


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = html_body(response)
    cards = tree.css(CARD)
    if not cards:
        raise SchemaDriftError(f"{response.url}: no GPU Droplet pricing cards ({CARD})")
    return offers_from_rows(cards, lambda card: _card_offer(card, response, excluded), excluded)


def _card_offer(card: LexborNode, response: RawResponse, excluded: Counter[str]) -> Offer | None:
    title_node = card.css_first("h3")
    title = node_text(title_node) if title_node is not None else ""
    if not title:
        raise SchemaDriftError(f"{response.url}: pricing card without an <h3> title")
    where = f"{response.url}: card {title!r}"
    container = card.css_first(PRICE_CONTAINER)
    if container is None:
        raise SchemaDriftError(f"{where}: no price container")
    titled = _TITLE_COUNT.match(title)
    gpu, count = (titled["gpu"], Decimal(titled["count"])) if titled else (title, Decimal(1))
    if not _known_page_gpu(gpu):
        raise RowExcluded(unknown_row("gpu", title))
    label_node = container.css_first("p")
    label = node_text(label_node) if label_node is not None else ""
    if label not in LABELS:
        raise RowExcluded(unknown_row("label", f"{label or '(none)'} ({title})"))
    prices = [node_text(span) for span in container.iter() if span.tag == "span"]
    if len(prices) == 1 and (marker := no_price_marker(prices[0])) is not None:
        excluded[marker] += 1
        return None
    if len(prices) not in (1, 2):
        raise RowExcluded("unparsed_price")  # neither the price nor former + current price
    match = _PRICE.match(prices[-1])
    if match is None:
        raise RowExcluded("unparsed_price")
    if match["unit"] != PRICE_UNIT:
        raise RowExcluded(unknown_row("unit", f"{match['unit']} ({title})"))
    if len(prices) == 2:
        excluded["struck_through_price"] += 1
    amount = decimal(match["amount"])
    price = -amount if match["sign"] or match["sign2"] else amount

    items = card.css(f"{SPEC_LIST} li")
    pricing = LABELS[label]
    specs: dict[str, Any] = {}
    term = None
    if pricing is PricingModel.RESERVED:
        term = _reserved_term([node_text(li) for li in items])
    else:
        specs = _specs(items, count)
    return Offer(
        provider=SLUG,
        instance_type=title,
        region=REGION,
        gpu_name=GPU_NAMES.get(gpu, gpu),
        gpu_count=count,
        pricing=pricing,
        reserved_term_months=term,
        price=price,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=response.url,
        observed_at=response.fetched_at,
        **specs,
    )


def _reserved_term(texts: list[str]) -> int:
    for text in texts:
        match = _TERM.search(text)
        if match:
            return int(match["n"]) * (12 if match["unit"] == "year" else 1)
    raise RowExcluded("no_reserved_term")


def _specs(items: list[LexborNode], count: Decimal) -> dict[str, Decimal]:
    """vram_gb_reported (per GPU), vcpus, ram_gb, storage_gb of an on-demand card."""
    specs: dict[str, str] = {}
    for li in items:
        spans = [node_text(span) for span in li.css("span")]
        if len(spans) != 2 or not spans[0]:
            raise RowExcluded("unparsed_specs")  # a spec item that is not label + value
        specs[spans[0]] = spans[1]
    if any(not specs.get(name) for name in ON_DEMAND_SPECS):
        raise RowExcluded("incomplete_specs")
    try:
        gpus = _whole(specs[SPEC_GPUS])
        storage = gb_from_size(specs[SPEC_BOOT_DISK])
        if specs.get(SPEC_SCRATCH_DISK):
            storage += gb_from_size(specs[SPEC_SCRATCH_DISK])
        read = {
            "vram_gb_reported": gb_from_size(specs[SPEC_GPU_MEMORY]) / count,
            "vcpus": _whole(specs[SPEC_VCPUS]),
            "ram_gb": gb_from_size(specs[SPEC_RAM]),
            "storage_gb": storage,
        }
    except SchemaDriftError:
        raise RowExcluded("unparsed_specs") from None
    if gpus != count:
        raise RowExcluded("gpu_count_mismatch")  # the title's "x<n>" is not "GPUs per Droplet"
    return read


def _whole(text: str) -> Decimal:
    if _WHOLE.match(text.replace(",", "")) is None:
        raise SchemaDriftError(f"expected a whole number, found {text!r}")
    return decimal(text)


# --- sizes API -----------------------------------------------------------------------------------


def _parse_sizes(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    document = json_body(response)
    sizes = document.get("sizes") if isinstance(document, dict) else None
    if not isinstance(sizes, list):
        raise SchemaDriftError(f"{response.url}: no 'sizes' list")

    def read_size(size: Any) -> Offer:
        if not isinstance(size, dict) or not isinstance(size.get("slug"), str) or not size["slug"]:
            raise SchemaDriftError(f"{response.url}: size without a slug: {size!r:.80}")
        if not size.get("gpu_info"):
            raise RowExcluded("not_a_gpu_size")
        return _size_offer(size, response)

    return offers_from_rows(sizes, read_size, excluded)


def _size_pricing(slug: str) -> PricingModel:
    """The pricing model of a GPU size slug's variant; ``RowExcluded`` for an unknown slug."""
    match = _SIZE_SLUG.match(slug)
    if match is None or match["variant"] not in (None, *SIZE_VARIANTS):
        raise RowExcluded(unknown_row("sku", slug))
    if match["family"] not in SIZE_FAMILIES:
        raise RowExcluded(unknown_row("family", slug))
    pricing = SIZE_VARIANTS[match["variant"] or ""]
    if pricing is None:
        raise RowExcluded("contracted")
    return pricing


def _size_offer(size: dict[str, Any], response: RawResponse) -> Offer:
    slug = size["slug"]
    pricing = _size_pricing(slug)
    try:
        info = size["gpu_info"]
        count, model, vram = info["count"], info["model"], info["vram"]
        vram_amount, vram_unit = vram["amount"], vram["unit"]
        price, vcpus, memory, available = (
            size["price_hourly"],
            size["vcpus"],
            size["memory"],
            size["available"],
        )
    except (KeyError, TypeError):
        raise RowExcluded("incomplete_size") from None
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise RowExcluded("incomplete_size")
    if not isinstance(model, str) or not model or not isinstance(available, bool):
        raise RowExcluded("incomplete_size")
    to_gb = _SIZE_UNITS.get(str(vram_unit).lower())
    if to_gb is None:
        raise RowExcluded(unknown_row("unit", f"{vram_unit} ({slug})"))
    try:
        read = {
            "vram_gb_reported": to_gb(vram_amount) / count,
            "vcpus": decimal(vcpus),
            "ram_gb": gb_from_mib(memory),
            "storage_gb": _storage_gb(size),
            "price": decimal(price),
        }
    except SchemaDriftError:
        raise RowExcluded("incomplete_size") from None
    if not read["price"].is_finite():  # NaN / Infinity: not a number of dollars
        raise RowExcluded("unparsed_price")
    # A zero or negative price_hourly is emitted as read: a wrong price fails the scrape (the
    # loader's ``prices_positive``), it is not left out as unreadable.
    return Offer(
        provider=SLUG,
        instance_type=slug,
        region=REGION,
        gpu_name=GPU_NAMES.get(model, model),
        gpu_count=Decimal(count),
        pricing=pricing,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        offered=available,
        available=available and size.get("regions") != [],
        source_url=response.url,
        observed_at=response.fetched_at,
        **read,
    )


def _storage_gb(size: dict[str, Any]) -> Decimal | None:
    disks = size.get("disk_info")
    if not disks:
        return decimal(size["disk"]) if size.get("disk") is not None else None
    total = Decimal(0)
    for disk in disks:
        try:
            amount, unit = disk["size"]["amount"], str(disk["size"]["unit"]).lower()
        except (KeyError, TypeError):
            raise RowExcluded("incomplete_size") from None
        to_gb = _SIZE_UNITS.get(unit)
        if to_gb is None:
            raise RowExcluded(unknown_row("unit", f"{unit} ({size['slug']})"))
        total += to_gb(amount)
    return total


PROVIDER = Provider(
    slug=SLUG,
    name="DigitalOcean",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="GPU Droplets pricing page; the sizes API instead when DIGITALOCEAN_TOKEN is set.",
)
