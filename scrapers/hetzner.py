"""Hetzner: GPU servers on the Server Auction (Serverbörse), each its own offer.

Live: ``GET https://www.hetzner.com/_resources/app/data/app/live_data_sb_EUR.json``, no auth,
no pagination: the JSON behind https://www.hetzner.com/sb listing every server on auction.

Known layouts: ``{"server": [...]}`` (the live response) and a bare array of the server
elements (how the 2026-04 capture stores one run's rows).

Rules (exclusions counted by ``parse_with_exclusions``, one count per server):

1. A GPU server has a description line "GPU - <model>" (and "GPU" among its ``specials``);
   every other server -> ``non_gpu``. "GPU" in ``specials`` without such a line ->
   ``unknown_gpu auction-<id>`` (a GPU this scraper cannot name).
2. One offer per GPU server: ``instance_type`` "auction-<id>", ``region`` its data center
   (``FSN1-DC18``), ``gpu_name`` the model as the line spells it, one GPU per "GPU - " line
   (Hetzner prefixes multiples with "Nx", as in "2x RAM ..."; a GPU line with such a prefix
   is read the same way). The model must be one of ``VRAM_GB`` (the models this scraper has
   seen and knows the memory of); another model -> ``unknown_gpu <model>``. Several models in one
   server -> ``several_gpu_models``.
3. Price: ``hourly_price`` (EUR per hour) when present, else ``price`` (EUR per month). The
   hourly rate applies while a server is used for part of a month; the month is capped at
   ``price`` ("The total costs is never more than the monthly price",
   https://docs.hetzner.com/general/billing-and-account-management/billing-at-hetzner/billing-system-hetzner).
   Both are net prices excluding VAT: the feed states no tax, and auction watchers add VAT to
   ``price`` themselves (e.g. hah.py, ``--tax`` default 19 %). Emitted as given.
   ``setup_price`` is 0 for auction servers and is not part of the offer.

RAM: ``ram_size`` is in binary GB (the modules are listed in MB of 1024² bytes, "4x RAM 16384
MB"), converted to decimal GB. Storage: the sum of ``serverDiskData`` nvme/sata/hdd sizes,
which are decimal GB as disks are sold. VRAM is not in the feed: ``VRAM_GB`` by model spelling.

A GPU server that cannot be read is excluded: ``no_datacenter``, ``unparsed_price`` (neither
``hourly_price`` nor ``price`` present, or the one read not a finite number), ``unparsed_ram``
(``ram_size`` not a positive number), ``unparsed_disks`` (``serverDiskData`` missing or not
lists of sizes).

A price that reads as zero or negative (``"hourly_price": -0.1795``, ``0.0000``) is not
unreadable: it is emitted as read, so the loader rejects the whole scrape
(``prices_positive``); one 100x too high is emitted too, and the price-jump guard quarantines
the scrape.

``SchemaDriftError`` is kept for a structure that is gone: a body in neither known layout, a
server that is not an object or has no ``id``/``description``, a response without any GPU offer
left (the message lists the exclusions), more unreadable GPU servers (``UNREADABLE``) than read
ones, and duplicate ids.
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
    decimal,
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    json_body,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "hetzner"
HOMEPAGE = "https://www.hetzner.com/sb"
AUCTION_URL = "https://www.hetzner.com/_resources/app/data/app/live_data_sb_EUR.json"
CURRENCY = "EUR"  # the _EUR feed; a _USD twin exists
TOKEN_ENV = None
GPU_SPECIAL = "GPU"
DISK_KINDS = ("nvme", "sata", "hdd")  # "general" repeats distinct sizes, not disks

# GPU memory per model, keyed by the feed's spelling. Sources: NVIDIA product pages
# https://www.nvidia.com/en-gb/geforce/products/10series/geforce-gtx-1080/ (8 GB GDDR5X),
# https://www.nvidia.com/en-us/design-visualization/rtx-6000/ (RTX 6000 Ada: 48 GB GDDR6),
# https://www.nvidia.com/en-us/design-visualization/rtx-4000-sff/ (RTX 4000 SFF Ada: 20 GB).
VRAM_GB: dict[str, Decimal] = {
    "GeForce GTX 1080": Decimal(8),
    "Nvidia RTX 6000 Ada": Decimal(48),
    "Nvidia RTX 4000 SFF Ada Generation": Decimal(20),
}

_GPU_LINE = re.compile(r"^(?:(?P<count>\d+)x )?GPU - (?P<model>\S.*)$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the EUR auction list (one response, no auth; ``token`` is ignored).

    Raises ``FetchError`` when the request fails.
    """
    return [http.get(client, AUCTION_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One offer per GPU auction server: EUR per server per hour (per month without an hourly
    price), net, on-demand, region = data center.

    Raises ``SchemaDriftError`` for an unknown layout, a server that is not an object or lacks
    id/description, duplicate ids, and when a response holds no GPU offer; a GPU server that
    cannot be read is excluded instead (see the module docstring).

    Returns the offers, and how many servers each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        found = offers_from_rows(
            enumerate(_servers(response)),
            partial(_parse_server, response=response, excluded=excluded),
            excluded,
        )
        if not found:
            reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()) if r != "non_gpu")
            raise SchemaDriftError(
                f"{response.url}: no GPU server in the auction list (excluded: {reasons or 'none'})"
            )
        offers.extend(found)
    _check_readable(offers, excluded)
    return ensure_unique(offers), excluded


# Exclusions of GPU servers that could not be read: one is a slip, most of them a changed layout.
UNREADABLE = frozenset(
    {"several_gpu_models", "no_datacenter", "unparsed_price", "unparsed_ram", "unparsed_disks"}
)


def _check_readable(offers: list[Offer], excluded: Counter[str]) -> None:
    """``SchemaDriftError`` when more GPU servers could not be read than were read."""
    unreadable = {r: n for r, n in excluded.items() if r in UNREADABLE}
    if sum(unreadable.values()) > len(offers):
        detail = ", ".join(f"{r} {n}" for r, n in sorted(unreadable.items()))
        raise SchemaDriftError(f"more auction GPU servers unreadable than read: {detail}")


def _servers(response: RawResponse) -> list[Any]:
    body = json_body(response)
    if isinstance(body, dict) and isinstance(body.get("server"), list):
        return body["server"]
    if isinstance(body, list):
        return body
    raise SchemaDriftError(
        f"{response.url}: neither the auction object ({{'server': [...]}}) nor a server array"
    )


def _parse_server(
    numbered: tuple[int, Any], response: RawResponse, excluded: Counter[str]
) -> Offer | None:
    index, server = numbered
    if not isinstance(server, dict):
        raise SchemaDriftError(f"{response.url}: server {index} is not an object")
    server_id, description = server.get("id"), server.get("description")
    if not isinstance(server_id, int) or not isinstance(description, list):
        raise SchemaDriftError(f"{response.url}: server {index} lacks id/description")
    gpu_lines = [
        m for line in description if isinstance(line, str) and (m := _GPU_LINE.match(line))
    ]
    specials = server.get("specials")
    flagged = isinstance(specials, list) and GPU_SPECIAL in specials
    if not gpu_lines:
        if flagged:  # a GPU server whose GPU line this scraper cannot read
            raise RowExcluded(unknown_row("gpu", f"auction-{server_id}"))
        excluded["non_gpu"] += 1
        return None
    models = {m["model"] for m in gpu_lines}
    if len(models) != 1:
        raise RowExcluded("several_gpu_models")
    gpu_name = models.pop()
    if gpu_name not in VRAM_GB:
        raise RowExcluded(unknown_row("gpu", gpu_name))
    gpu_count = sum(int(m["count"] or 1) for m in gpu_lines)

    datacenter = server.get("datacenter")
    if not isinstance(datacenter, str) or not datacenter:
        raise RowExcluded("no_datacenter")
    price, unit = _price(server)
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=f"auction-{server_id}",
        region=datacenter,
        gpu_name=gpu_name,
        gpu_count=Decimal(gpu_count),
        vram_gb_reported=VRAM_GB[gpu_name],
        ram_gb=_ram_gb(server),
        storage_gb=_storage_gb(server),
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=CURRENCY,
        price_unit=unit,
        price_per=PricePer.INSTANCE,
        source_url=AUCTION_URL,
        observed_at=response.fetched_at,
    )


def _price(server: dict[str, Any]) -> tuple[Decimal, PriceUnit]:
    for field, unit in (("hourly_price", PriceUnit.HOUR), ("price", PriceUnit.MONTH)):
        value = server.get(field)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise RowExcluded("unparsed_price")
        try:
            price = decimal(value)
        except SchemaDriftError:
            raise RowExcluded("unparsed_price") from None
        if not price.is_finite():  # NaN / Infinity (Python's json reads them): not a price
            raise RowExcluded("unparsed_price")
        # A zero or negative price is returned as read: a wrong price fails the scrape (the
        # loader's ``prices_positive``), it is not left out as unreadable.
        return price, unit
    raise RowExcluded("unparsed_price")


def _ram_gb(server: dict[str, Any]) -> Decimal:
    size = server.get("ram_size")
    if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
        raise RowExcluded("unparsed_ram")
    return gb_from_gib(size)


def _storage_gb(server: dict[str, Any]) -> Decimal:
    disks = server.get("serverDiskData")
    if not isinstance(disks, dict):
        raise RowExcluded("unparsed_disks")
    total = Decimal(0)
    for kind in DISK_KINDS:
        sizes = disks.get(kind, [])
        if not isinstance(sizes, list) or not all(
            isinstance(s, int | float) and not isinstance(s, bool) for s in sizes
        ):
            raise RowExcluded("unparsed_disks")
        total += sum((decimal(s) for s in sizes), Decimal(0))
    return total


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Hetzner",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="marketplace",
    notes="Server Auction GPU servers, one offer per server; EUR net, hourly rate capped monthly.",
)
