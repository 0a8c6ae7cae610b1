"""Massed Compute: on-demand GPU VM prices from the public pricing page.

Live: ``GET https://vm.massedcompute.com/pricing``, no auth, no pagination. The page is a
Next.js app; its price list is rendered from React Server Components flight data
(``self.__next_f.push``), in which every configuration is a keyed element twice: a mobile card
(key ``"<GPU>-mobile-x <count>-<n>"``: the count badge "×" "8", the price ``"$$52.80"`` with a
"/hr" suffix, and a vCPU / RAM / Storage list) and a desktop table row (key ``"<GPU>-x
<count>-<n>"``, the same figures, some of them in lazy chunks ``$L2f``). Massed Compute also
has an inventory API for account holders (``/api/v1``, its MCP server's ``gpu_inventory_list``,
https://github.com/Massed-Compute/massed-compute-mcp), not read here: its reference is not in
the stored material. The 2026-08-22 capture is the first 16,000 characters of an excerpt of the
flight data, cut inside the H100's card after its price.

Offers: one per mobile card, on-demand, USD per VM-hour for the whole configuration
(``price_per`` instance, ``gpu_count`` the badge). ``instance_type`` is the card's GPU name and
count ("H200 NVL (141GB) NVLink x4"); ``gpu_name`` that name without its memory and NVLink words
("H200 NVL"), which must be in ``KNOWN_GPUS``; ``vram_gb_reported`` the memory it states
("(141GB)"); vCPUs, RAM ("144 GB") and storage (GB) from the card's list where it has them.

Rules (one count per keyed element, ``offers_from_rows``):

- a desktop row -> ``desktop_row`` (the same configuration as its mobile card, in the other
  markup: not a second offer);
- a card whose GPU is not in ``KNOWN_GPUS`` -> ``unknown_gpu <name>``;
- a card without a "/hr" price: ``truncated_row`` when the text ends inside it (an excerpt's
  cut edge), else ``unparsed_price``.

``SchemaDriftError``: no keyed configuration at all, no offer, a card listed twice.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

import httpx

from scrapers import http
from scrapers.flight import flight_text
from scrapers.kit import (
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
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "massedcompute"
HOMEPAGE = "https://massedcompute.com"
PRICING_URL = "https://vm.massedcompute.com/pricing"
TOKEN_ENV = None
# GPU names as the cards spell them, memory and NVLink words removed; emitted as such
# (warehouse/seeds/gpu_aliases.csv resolves them). A new one is ``unknown_gpu <name>``.
KNOWN_GPUS = frozenset(
    {
        "B200 SXM6",
        "B300 SXM6",
        "H100",
        "H200 NVL",
        "RTX PRO 4500 Blackwell",
        "RTX PRO 6000 Blackwell",
    }
)
MOBILE = "mobile"
_KEY = re.compile(r'"(?P<name>[^"]+?)-(?:(?P<mobile>mobile)-)?x (?P<count>\d+)-(?P<n>\d+)",\{')
# signed as printed: a negative price is the price screen's to refuse
_PRICE = re.compile(r'"\$\$(?P<price>-?\d[\d,]*(?:\.\d+)?)",\["\$","small",null,\{[^{}]*"/hr"\}')
_MEMORY = re.compile(r"\s*\((?P<gb>\d+(?:\.\d+)?)\s*GB\)")
_NVLINK = re.compile(r"\s+NVLink$", re.IGNORECASE)


def _spec(label: str) -> re.Pattern[str]:
    return re.compile(
        r'"children":"' + re.escape(label) + r'"\}\],\["\$","dd",null,\{[^{}]*?"children":'
        r'"?(?P<value>[^"{}]+?)"?\}'
    )


_SPECS = {"vcpus": _spec("vCPU"), "ram": _spec("RAM"), "storage": _spec("Storage")}


@dataclass(frozen=True)
class _Element:
    name: str
    count: int
    mobile: bool
    text: str  # the element's flight text, up to the next keyed element
    at_end: bool  # the text runs to the end of the capture


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the public pricing page (no auth; ``token`` is ignored). Raises ``FetchError``."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One on-demand offer per configuration card: USD per VM-hour. Raises
    ``SchemaDriftError`` as the module docstring says."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        elements = list(_elements(flight_text(response)))
        if not elements:
            raise SchemaDriftError(f"{response.url}: no keyed GPU configuration in the page")
        offers.extend(offers_from_rows(elements, partial(_read, response=response), excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"Massed Compute: no priced GPU card (excluded: {reasons})")
    return ensure_unique(offers), excluded


def _elements(text: str) -> Iterator[_Element]:
    keys = list(_KEY.finditer(text))
    for key, following in zip(keys, [*keys[1:], None], strict=False):
        end = following.start() if following is not None else len(text)
        yield _Element(
            name=key["name"],
            count=int(key["count"]),
            mobile=key["mobile"] == MOBILE,
            text=text[key.end() : end],
            at_end=following is None,
        )


def _read(element: _Element, response: RawResponse) -> Offer:
    if not element.mobile:
        raise RowExcluded("desktop_row")
    memory = _MEMORY.search(element.name)
    gpu_name = _NVLINK.sub("", _MEMORY.sub("", element.name)).strip()
    if gpu_name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", gpu_name))
    price = _PRICE.search(element.text)
    if price is None:
        raise RowExcluded("truncated_row" if element.at_end else "unparsed_price")
    specs = {
        field: match["value"] for field, p in _SPECS.items() if (match := p.search(element.text))
    }
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=f"{element.name} x{element.count}",
        gpu_name=gpu_name,
        gpu_count=Decimal(element.count),
        vram_gb_reported=decimal(memory["gb"]) if memory else None,
        vcpus=_figure(specs.get("vcpus")),
        ram_gb=_figure(specs.get("ram")),
        storage_gb=_figure(specs.get("storage")),
        pricing=PricingModel.ON_DEMAND,
        price=decimal(price["price"]),
        currency="USD",
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


def _figure(text: str | None) -> Decimal | None:
    """``"280"``, ``"2800 GB"`` or ``6000`` -> the number (GB where a unit is given)."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?:GB)?\s*", text)
    return decimal(match["num"]) if match else None


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Massed Compute",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="Pricing page flight data: one card per GPU configuration; USD per VM-hour on demand",
)
