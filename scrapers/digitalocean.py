"""DigitalOcean: GPU Droplet prices from the public pricing page, or from the sizes API.

Live sources (``fetch`` uses one of them):

- With ``DIGITALOCEAN_TOKEN`` set: ``GET https://api.digitalocean.com/v2/sizes?per_page=200``
  with ``Authorization: Bearer <token>`` (scope ``sizes:read``), following ``links.pages.next``
  (absolute URLs, only on api.digitalocean.com, at most ``MAX_PAGES``); 200 is the documented
  maximum ``per_page`` (https://docs.digitalocean.com/reference/api/reference/sizes/).
- Without a token: ``GET https://www.digitalocean.com/pricing/gpu-droplets`` (HTML, no auth).
  This is also what a replay of the recorded page asks for.

``parse`` tells the two apart by the body (a JSON object vs an HTML page).

**Pricing page** (recognised layout: the 2025 styled-components cards). Each GPU offering is a
card (``class`` starting ``CardPricingstyles__StyledCardPricingCard``) with an ``<h3>`` title
("NVIDIA H100x8", "AMD Instinct(TM) MI300X"), a price container holding one or two price spans
("$2.99" + "/GPU/hour") and a label ("On-Demand Price" or "Reserved Price"), and a spec list.

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
- A card with an unknown label, no price, or a price that does not read "$<n> /GPU/hour" is
  drift. A price cell that is exactly a no-price marker ("Contact sales") is counted by marker.

**Sizes API**: ``{"sizes": [...], "links": {"pages": {"next": ...}}, "meta": {"total"}}``. A GPU
size has ``gpu_info`` ``{count, model, vram: {amount, unit}}`` (``nvidia_h100``; ``vram`` is the
Droplet total, 640 gib on ``gpu-h100x8-640gb``); other sizes are CPU Droplets, counted as
``not_a_gpu_size``. ``price_hourly`` is USD per hour for the whole Droplet (``price_per``
instance); ``memory`` is MiB; storage = the sum of ``disk_info`` sizes (local + scratch), else
``disk`` (GB). ``available`` ("whether new Droplets can be created with this size") is the
offer's ``offered`` flag. Region ``global`` on both paths: a size's price does not depend on the
region, and ``regions`` lists where it can be created now (availability, not another offer).

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
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers import http
from scrapers.base import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
)
from scrapers.parsing import (
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    gb_from_mib,
    gb_from_size,
    json_body,
    no_price_marker,
    node_text,
)

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

_TITLE_COUNT = re.compile(r"^(?P<gpu>.+?)x(?P<count>\d+)$")
_PRICE = re.compile(r"^\$(?P<amount>\d+(?:\.\d+)?) ?/GPU/hour(?P<promo>\*)?$")
_TERM = re.compile(r"commitment of (?P<n>\d+) (?P<unit>month|year)s?\b")
_WHOLE = re.compile(r"^\d+$")
_SIZE_UNITS = {"gib": gb_from_gib, "gb": decimal}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """With a token: every page of the sizes API; without: the pricing page. Raises
    ``FetchError`` on a failed request, a next link off the API host (the token is never sent
    elsewhere) or more than ``MAX_PAGES`` pages."""
    if not token:
        return [http.get(client, PRICING_URL)]
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    responses = [http.get(client, SIZES_URL, params={"per_page": PER_PAGE}, headers=headers)]
    for _page in range(MAX_PAGES - 1):
        next_url = _next_page(responses[-1])
        if next_url is None:
            return responses
        if httpx.URL(next_url).host != API_HOST:
            raise FetchError(f"GET {SIZES_URL}: next page {next_url!r} is not on {API_HOST}")
        responses.append(http.get(client, next_url, headers=headers))
    if _next_page(responses[-1]) is not None:
        raise FetchError(f"GET {SIZES_URL}: more than {MAX_PAGES} pages")
    return responses


def _next_page(response: RawResponse) -> str | None:
    if not _is_json(response):
        return None  # the replayed pricing page answers every request; it has no pages
    document = json_body(response)
    links = document.get("links") if isinstance(document, dict) else None
    pages = links.get("pages") if isinstance(links, dict) else None
    next_url = pages.get("next") if isinstance(pages, dict) else None
    return next_url if isinstance(next_url, str) and next_url else None


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from the pricing page (USD per GPU-hour) or the sizes API (USD per Droplet-hour).

    Raises ``SchemaDriftError`` when a page has no pricing cards or an API body no ``sizes``
    list, when a card or GPU size cannot be read, or when nothing yields an offer.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many prices or sizes each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        if _is_json(response):
            offers.extend(_parse_sizes(response, excluded))
        else:
            offers.extend(_parse_page(response, excluded))
    if not offers:
        raise SchemaDriftError("no GPU Droplet prices found")
    return ensure_unique(offers), excluded


def _is_json(response: RawResponse) -> bool:
    return response.body.lstrip()[:1] == b"{"


# --- pricing page --------------------------------------------------------------------------------


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = LexborHTMLParser(response.body.decode("utf-8", errors="replace"))
    cards = tree.css(CARD)
    if not cards:
        raise SchemaDriftError(f"{response.url}: no GPU Droplet pricing cards ({CARD})")
    offers = []
    for card in cards:
        offer = _card_offer(card, response, excluded)
        if offer is not None:
            offers.append(offer)
    return offers


def _card_offer(card: LexborNode, response: RawResponse, excluded: Counter[str]) -> Offer | None:
    title_node = card.css_first("h3")
    title = node_text(title_node) if title_node is not None else ""
    if not title:
        raise SchemaDriftError(f"{response.url}: pricing card without an <h3> title")
    where = f"{response.url}: card {title!r}"
    container = card.css_first(PRICE_CONTAINER)
    if container is None:
        raise SchemaDriftError(f"{where}: no price container")
    label_node = container.css_first("p")
    label = node_text(label_node) if label_node is not None else ""
    if label not in LABELS:
        raise SchemaDriftError(f"{where}: unknown price label {label!r}")
    prices = [node_text(span) for span in container.iter() if span.tag == "span"]
    if len(prices) == 1 and (marker := no_price_marker(prices[0])) is not None:
        excluded[marker] += 1
        return None
    if len(prices) not in (1, 2):
        raise SchemaDriftError(f"{where}: {len(prices)} prices, expected the price or former+now")
    if len(prices) == 2:
        excluded["struck_through_price"] += 1
    match = _PRICE.match(prices[-1])
    if match is None:
        raise SchemaDriftError(f"{where}: price {prices[-1]!r} is not '$<n> /GPU/hour'")

    titled = _TITLE_COUNT.match(title)
    gpu, count = (titled["gpu"], Decimal(titled["count"])) if titled else (title, Decimal(1))
    items = card.css(f"{SPEC_LIST} li")
    pricing = LABELS[label]
    specs: dict[str, Any] = {}
    term = None
    if pricing is PricingModel.RESERVED:
        term = _reserved_term([node_text(li) for li in items], where)
    else:
        specs = _specs(items, count, where)
    return Offer(
        provider=SLUG,
        instance_type=title,
        region=REGION,
        gpu_name=GPU_NAMES.get(gpu, gpu),
        gpu_count=count,
        pricing=pricing,
        reserved_term_months=term,
        price=decimal(match["amount"]),
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=response.url,
        observed_at=response.fetched_at,
        **specs,
    )


def _reserved_term(texts: list[str], where: str) -> int:
    for text in texts:
        match = _TERM.search(text)
        if match:
            return int(match["n"]) * (12 if match["unit"] == "year" else 1)
    raise SchemaDriftError(f"{where}: reserved card without 'commitment of N months'")


def _specs(items: list[LexborNode], count: Decimal, where: str) -> dict[str, Decimal]:
    """vram_gb_reported (per GPU), vcpus, ram_gb, storage_gb of an on-demand card."""
    specs: dict[str, str] = {}
    for li in items:
        spans = [node_text(span) for span in li.css("span")]
        if len(spans) != 2 or not spans[0]:
            raise SchemaDriftError(f"{where}: spec item {node_text(li)!r} is not label + value")
        specs[spans[0]] = spans[1]
    missing = [name for name in ON_DEMAND_SPECS if not specs.get(name)]
    if missing:
        raise SchemaDriftError(f"{where}: spec list lacks {missing}")
    gpus = _whole(specs[SPEC_GPUS], f"{where}: {SPEC_GPUS}")
    if gpus != count:
        raise SchemaDriftError(f"{where}: title says {count} GPUs, {SPEC_GPUS} says {gpus}")
    storage = gb_from_size(specs[SPEC_BOOT_DISK])
    if specs.get(SPEC_SCRATCH_DISK):
        storage += gb_from_size(specs[SPEC_SCRATCH_DISK])
    return {
        "vram_gb_reported": gb_from_size(specs[SPEC_GPU_MEMORY]) / count,
        "vcpus": _whole(specs[SPEC_VCPUS], f"{where}: {SPEC_VCPUS}"),
        "ram_gb": gb_from_size(specs[SPEC_RAM]),
        "storage_gb": storage,
    }


def _whole(text: str, where: str) -> Decimal:
    if _WHOLE.match(text.replace(",", "")) is None:
        raise SchemaDriftError(f"{where}: expected a whole number, found {text!r}")
    return decimal(text)


# --- sizes API -----------------------------------------------------------------------------------


def _parse_sizes(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    document = json_body(response)
    sizes = document.get("sizes") if isinstance(document, dict) else None
    if not isinstance(sizes, list):
        raise SchemaDriftError(f"{response.url}: no 'sizes' list")
    offers = []
    for size in sizes:
        if not isinstance(size, dict) or not size.get("slug"):
            raise SchemaDriftError(f"{response.url}: size without a slug: {size!r:.80}")
        if not size.get("gpu_info"):
            excluded["not_a_gpu_size"] += 1
            continue
        offers.append(_size_offer(size, response))
    return offers


def _size_offer(size: dict[str, Any], response: RawResponse) -> Offer:
    slug = size["slug"]
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
    except (KeyError, TypeError) as exc:
        raise SchemaDriftError(f"{response.url}: GPU size {slug!r}: missing {exc}") from None
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise SchemaDriftError(f"{response.url}: GPU size {slug!r}: gpu_info.count {count!r}")
    if not isinstance(model, str) or not model:
        raise SchemaDriftError(f"{response.url}: GPU size {slug!r}: gpu_info.model {model!r}")
    to_gb = _SIZE_UNITS.get(str(vram_unit).lower())
    if to_gb is None:
        raise SchemaDriftError(f"{response.url}: GPU size {slug!r}: VRAM unit {vram_unit!r}")
    if not isinstance(available, bool):
        raise SchemaDriftError(f"{response.url}: GPU size {slug!r}: available is {available!r}")
    return Offer(
        provider=SLUG,
        instance_type=slug,
        region=REGION,
        gpu_name=GPU_NAMES.get(model, model),
        gpu_count=Decimal(count),
        vram_gb_reported=to_gb(vram_amount) / count,
        vcpus=decimal(vcpus),
        ram_gb=gb_from_mib(memory),
        storage_gb=_storage_gb(size, response),
        pricing=PricingModel.ON_DEMAND,
        price=decimal(price),
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        offered=available,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


def _storage_gb(size: dict[str, Any], response: RawResponse) -> Decimal | None:
    disks = size.get("disk_info")
    if not disks:
        return decimal(size["disk"]) if size.get("disk") is not None else None
    total = Decimal(0)
    for disk in disks:
        try:
            amount, unit = disk["size"]["amount"], str(disk["size"]["unit"]).lower()
        except (KeyError, TypeError):
            raise SchemaDriftError(f"{response.url}: {size['slug']!r}: bad disk {disk!r}") from None
        to_gb = _SIZE_UNITS.get(unit)
        if to_gb is None:
            raise SchemaDriftError(f"{response.url}: {size['slug']!r}: disk unit {unit!r}")
        total += to_gb(amount)
    return total


PROVIDER = Provider(
    slug=SLUG,
    name="DigitalOcean",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="GPU Droplets pricing page; the sizes API instead when DIGITALOCEAN_TOKEN is set.",
)
