"""Hyperstack: GPU prices from the public pricing page, or from the Infrahub API with a key.

Without a key the public page https://www.hyperstack.cloud/gpu-pricing is scraped. Known page
layouts (both are one GPU per row, priced per GPU-hour, with the maximum vCPUs and RAM that
come with each GPU):

- **Sortable table** (2024): one ``<table>`` with the columns GPU Model, VRAM (GB), Max pCPUs
  per GPU, Max RAM (GB) per GPU, Pricing Per Hour and Reservation Pricing.
- **Pricing cards** (2025): ``div.page-price_card_main`` grids, each with a head row and value
  rows. The on-demand card has the same five columns as the table; the spot card has GPU Model
  and "Spot VM"; the reservation card has GPU Model, "Starting from" and a "Reserve" link.

Grids are recognised by their column headings (a capture's card titles may be cut off), and
only grids whose first heading is "GPU Model" are read; CPU and storage cards are not GPUs.

Documented rules:

- **Reservation prices are not emitted.** Both layouts print a "Starting from" / "Starts from"
  price with no contract term, so there is no honest ``reserved_term_months`` for them.
- Spot rows carry only the GPU name and price; their VRAM is taken from the on-demand row of the
  same GPU on the same page (a property of the GPU model), their vCPUs/RAM are left unknown.

With ``HYPERSTACK_API_KEY`` set, the Infrahub API is used instead (header ``api_key``):

- ``GET /v1/pricebook`` -- bare JSON array of ``{name, value, original_value, ...}``; ``value``
  is the current price per GPU-hour in USD for GPU resources (a ``-spot`` suffix marks the spot
  price of a GPU). It also lists non-GPU resources (CPU, RAM, storage, inference).
- ``GET /v1/core/flavors`` -- ``{status, message, data: [{gpu, region_name, flavors: [...]}]}``;
  each flavor has ``name, region_name, cpu, ram (GB), disk (GB), ephemeral (GB), gpu,
  gpu_count``. It says which pricebook names are GPUs and how they are packaged.

One offer per GPU flavor and region (``instance_type`` = flavor name, ``region`` = its
region_name): its GPU's pricebook price per GPU-hour (vCPU and RAM are not billed separately
on GPU flavors); the GPU name is the pricebook name without ``-spot``; storage = root disk +
ephemeral disk. Pricebook entries no GPU flavor uses are not offers; a GPU flavor whose GPU
has no pricebook price is drift. The USD currency and the price-per-GPU unit are the
documentation's ("Price value for the GPU per hour"); the response itself does not state them.
Docs: https://docs.hyperstack.cloud/docs/api-reference/pricebook-resources/pricebook and
https://docs.hyperstack.cloud/docs/api-reference/core-resources/flavors.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One row the parser
cannot read never fails the provider; the rest is still published:

- ``unknown_gpu <GPU Model>`` (page): a row whose GPU Model names none of ``KNOWN_GPU_MODELS``
  (the models seen on the captures, whole words, case-insensitively), or an open spelling of
  ``PAGE_GPU_NAMES`` shown with another VRAM ("NVIDIA H100 (94 GB)": a variant the map does
  not know). Reported once per page though a GPU has rows in several grids; its on-demand and
  spot rows are all left out. (API flavors are not checked against the list: their ``gpu``
  field says they are GPUs, and the API names them itself.)
- a price cell that is a no-price marker (``parsing.NO_PRICE_MARKERS``) is counted under it.
- ``unparsed_price``: any other price cell without a readable amount ("TBD", "-").
- ``unnamed_row``: a grid row without a GPU Model.
- ``unparsed_row``: a grid row whose cells do not match the headings, or whose VRAM / pCPU /
  RAM figure is not a number.
- ``non_gpu`` (API): a flavor without GPUs (CPU-only).
- ``unparsed_flavor`` (API): a flavor without one of its documented fields.
- ``unpriced_gpu`` (API): a GPU flavor whose GPU has no pricebook price (or a null ``value``).
- ``unparsed_pricebook_entry`` (API): a pricebook entry without ``name`` / ``value``, or whose
  ``value`` is not a finite number.

A price that reads as zero or negative (page "$0.00", "$-3.99", "-$3.99"; pricebook ``value``
-3.99 or 0) is not unreadable: it is emitted as read, so the loader rejects the whole scrape
(``prices_positive``); one 100x too high is emitted too, and the price-jump guard quarantines it.

``SchemaDriftError`` is kept for structure: a response that is neither layout (nor pricebook or
flavors JSON), only one of the two API responses, a grid column heading that is unknown or
repeated, a GPU grid without rows, an empty pricebook, a flavors response whose ``data`` is not
a list of groups with ``flavors`` lists, a duplicated offer, and no offer at all (the message
lists the exclusions).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
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
    first_number,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import known_names_pattern

PRICING_URL = "https://www.hyperstack.cloud/gpu-pricing"
API_BASE = "https://infrahub-api.nexgencloud.com/v1"
PRICEBOOK_URL = f"{API_BASE}/pricebook"
FLAVORS_URL = f"{API_BASE}/core/flavors"
HOMEPAGE = "https://www.hyperstack.cloud"
TOKEN_ENV = "HYPERSTACK_API_KEY"  # optional: without it the public page is scraped
API_KEY_HEADER = "api_key"
SPOT_SUFFIX = "-spot"

# Page grids: table (2024) and pricing cards (2025).
TABLE = "table"
CARD_GRID = "div.page-price_card_main"
CARD_HEAD = ".page-price_card_head_item"
CARD_ROW = ".page-price_card_row_item"
CARD_CELL = ".page-price_card_row_item_col"

# Column roles, keyed by how the (lower-cased) heading starts.
_GPU, _VRAM, _VCPUS, _RAM, _ON_DEMAND, _SPOT, _RESERVATION, _RESERVE_LINK = (
    "gpu",
    "vram",
    "vcpus",
    "ram",
    "on_demand",
    "spot",
    "reservation",
    "reserve_link",
)
_HEADING_ROLES = (
    ("gpu model", _GPU),
    ("vram", _VRAM),
    ("max pcpus", _VCPUS),
    ("max ram", _RAM),
    ("pricing per hour", _ON_DEMAND),
    ("spot", _SPOT),
    ("reservation", _RESERVATION),
    ("starting from", _RESERVATION),
    ("reserve", _RESERVE_LINK),
)
_PRICE_ROLES = {_ON_DEMAND: PricingModel.ON_DEMAND, _SPOT: PricingModel.SPOT}

# The GPU models the page's GPU Model cells name (every capture, every grid). A row naming none
# of them is reported as ``unknown_gpu``; adding a model here is how a new GPU gets published.
KNOWN_GPU_MODELS = (
    "A4000",
    "A5000",
    "A6000",
    "A40",
    "L40",
    "A100",
    "H100",
    "H200",
    "B200",
    "B300",
    "RTX PRO 6000",
)
_KNOWN_GPU = known_names_pattern(KNOWN_GPU_MODELS)
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.

# Page spellings that leave the part open -> (exact part, the VRAM in GB the row must show).
# The 2025 page lists "NVIDIA H100 SXM" / "NVIDIA A100 SXM" beside plain and "NVLink" rows, and
# its plain/NVLink rows keep the pCPUs and RAM of the 2024 page's "PCIe 80GB" / "PCIe NVLink"
# rows (H100: 28/180 and 31/180; A100: 28/120 and 31/240). Hyperstack's flavor list names the
# same four GPUs "H100 80GB PCIe", "H100 80G PCIe w/ NVLink", "A100 80G PCIe", "A100 80G PCIe w/
# NVLink" (https://infrahub-doc.nexgencloud.com/docs/hardware/flavor-labels): bridged PCIe
# cards, not SXM. "NVIDIA RTX A6000/A40" (2024, one row for two GPUs) is the RTX A6000 flavor:
# the same 48 GB / 28 pCPUs / 58 GB RAM row is "NVIDIA A6000" on the 2025 page, and the flavor
# list has an RTX A6000 flavor but no A40 one.
PAGE_GPU_NAMES: dict[str, tuple[str, Decimal]] = {
    "NVIDIA H100": ("NVIDIA H100 PCIe 80GB", Decimal(80)),
    "NVIDIA H100 NVLink": ("NVIDIA H100 PCIe NVLink 80GB", Decimal(80)),
    "NVIDIA A100": ("NVIDIA A100 PCIe 80GB", Decimal(80)),
    "NVIDIA A100 NVLink": ("NVIDIA A100 80GB PCIe NVLink", Decimal(80)),
    "NVIDIA RTX A6000/A40": ("NVIDIA RTX A6000", Decimal(48)),
}
# Offer identity (``Offer.product_key``): the 2024 page's spellings -> the 2025 page's (the
# key: the current spelling; the 2026 page spells them as in 2025). Read off
# ../shared/snapshots/hyperstack, 2024-08-22 against 2025-07-24: each pair is one on-demand row
# per page with the same VRAM, max pCPUs and max RAM per GPU, and no page lists both spellings
# (the exact parts of the open 2025 names: ``PAGE_GPU_NAMES``). Price per GPU-hour 2024 -> 2025.
PRODUCT_KEYS: dict[str, str] = {
    "NVIDIA H100 SXM 80GB": "NVIDIA H100 SXM",  # 80 GB, 24 pCPUs, 240 GB; $3.75 -> $2.40
    "NVIDIA H100 PCIe 80GB": "NVIDIA H100",  # 80 GB, 28 pCPUs, 180 GB; $3.44 -> $1.90
    "NVIDIA H100 PCIe NVLink 80GB": "NVIDIA H100 NVLink",  # 80, 31, 180; $3.54 -> $1.95
    "NVIDIA A100 PCIe 80GB": "NVIDIA A100",  # 80 GB, 28 pCPUs, 120 GB; $2.20 -> $1.35
    "NVIDIA A100 80GB PCIe NVLink": "NVIDIA A100 NVLink",  # 80, 31, 240; $2.30 -> $1.40
    "NVIDIA RTX A4000": "NVIDIA A4000",  # 16 GB, 6 pCPUs, 24 GB; $0.30 -> $0.15
    "NVIDIA RTX A6000/A40": "NVIDIA A6000",  # 48 GB, 28 pCPUs, 58 GB; $1.00 -> $0.50
}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch. With a key: GET the pricebook and the flavors (header ``api_key``); without:
    GET the public pricing page. Raises ``FetchError`` when a request fails."""
    if token:
        headers = {API_KEY_HEADER: token, "accept": "application/json"}
        return [
            http.get(client, PRICEBOOK_URL, headers=headers),
            http.get(client, FLAVORS_URL, headers=headers),
        ]
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page (either layout) or from pricebook + flavors JSON.

    Prices are USD per GPU-hour (``price_per`` gpu). Raises ``SchemaDriftError`` when a
    response is neither layout, a grid has an unknown column, the API envelope is not the
    documented one, or nothing at all is found; rows that cannot be read are left out and counted.

    Returns the offers, and how many rows/cells each documented exclusion rule left out.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    pricebook: dict[str, Decimal | None] | None = None
    flavors: list[tuple[RawResponse, dict[str, Any]]] | None = None
    for response in distinct_bodies(responses):
        document = _json_or_none(response)
        if document is None:
            offers.extend(_parse_page(response, excluded))
        elif isinstance(document, list):
            pricebook = _parse_pricebook(document, excluded)
        elif isinstance(document, dict) and "data" in document:
            flavors = [(response, flavor) for flavor in _iter_flavors(document)]
        else:
            raise SchemaDriftError(f"{response.url}: JSON is neither a pricebook nor flavors")
    if (pricebook is None) != (flavors is None):
        missing = "flavors" if flavors is None else "pricebook"
        raise SchemaDriftError(f"API responses without the {missing} response")
    if pricebook is not None and flavors is not None:
        offers.extend(_api_offers(pricebook, flavors, excluded))
    if not offers:
        raise SchemaDriftError(f"no GPU offers found in any response{_left_out(excluded)}")
    return ensure_unique(offers), excluded


def _left_out(excluded: Counter[str]) -> str:
    return f"; excluded: {dict(excluded)}" if excluded else ""


def _figure(text: str) -> Decimal:
    try:
        return first_number(text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_row") from None


def _json_or_none(response: RawResponse) -> Any:
    """The JSON document, or None for a body that is not JSON (the HTML pricing page)."""
    try:
        return json.loads(response.body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


# --- the public pricing page ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Grid:
    headings: list[str]
    rows: list[list[str]]


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = html_body(response)
    grids = [_table_grid(t) for t in tree.css(TABLE)] + [_card_grid(c) for c in tree.css(CARD_GRID)]
    gpu_grids = [g for g in grids if g.headings and g.headings[0].lower().startswith("gpu model")]
    if not gpu_grids:
        raise SchemaDriftError(f"{response.url}: no table or card grid headed 'GPU Model'")
    vram_of: dict[str, Decimal] = {}  # GPU Model -> VRAM of its row in a grid with that column
    priced: list[tuple[str, dict[str, str], Decimal | None]] = []
    unknown: set[str] = set()  # a GPU's rows in several grids are one unknown row
    for grid in gpu_grids:
        roles = [_heading_role(h) for h in grid.headings]
        if len(set(roles)) != len(roles):
            raise SchemaDriftError(f"repeated column in GPU grid {grid.headings!r}")
        if not grid.rows:
            raise SchemaDriftError(f"GPU grid {grid.headings!r} has no rows")
        for cells in grid.rows:
            if len(cells) != len(roles):
                excluded["unparsed_row"] += 1
                continue
            row = dict(zip(roles, cells, strict=True))
            gpu = row[_GPU]
            if not gpu:
                excluded["unnamed_row"] += 1
                continue
            if _KNOWN_GPU.search(gpu) is None:
                unknown.add(gpu)
                continue
            try:
                own_vram = _figure(row[_VRAM]) if _VRAM in row else None
            except RowExcluded as skip:
                excluded[skip.reason] += 1
                continue
            if own_vram is not None:
                vram_of[gpu] = own_vram
            priced.extend((role, row, own_vram) for role in roles if role in _PRICE_ROLES)

    def read_price(entry: tuple[str, dict[str, str], Decimal | None]) -> Offer | None:
        role, row, own_vram = entry
        gpu = row[_GPU]
        vram = own_vram if own_vram is not None else vram_of.get(gpu)
        exact = PAGE_GPU_NAMES.get(gpu)
        if exact is not None and vram is not None and vram != exact[1]:
            unknown.add(f"{gpu} ({vram} GB)")  # the page sells another variant under these words
            return None
        return _page_offer(role, row, vram, response)

    offers = offers_from_rows(priced, read_price, excluded)
    excluded.update(unknown_row("gpu", name) for name in unknown)
    if not offers:
        raise SchemaDriftError(
            f"{response.url}: GPU grids without an on-demand or spot price{_left_out(excluded)}"
        )
    return offers


def _table_grid(table: Any) -> _Grid:
    headings = [node_text(th) for th in table.css("thead th")]
    rows = [[node_text(td) for td in tr.css("td")] for tr in table.css("tbody tr")]
    return _Grid(headings, [r for r in rows if r])


def _card_grid(card: Any) -> _Grid:
    headings = [node_text(h) for h in card.css(CARD_HEAD)]
    rows = [[node_text(c) for c in row.css(CARD_CELL)] for row in card.css(CARD_ROW)]
    return _Grid(headings, rows)


def _heading_role(heading: str) -> str:
    lowered = heading.lower()
    for prefix, role in _HEADING_ROLES:
        if lowered.startswith(prefix):
            return role
    raise SchemaDriftError(f"unknown column {heading!r} in a GPU pricing grid")


def _page_offer(
    role: str, row: dict[str, str], vram: Decimal | None, response: RawResponse
) -> Offer:
    """One price cell of a known GPU row as an offer; ``RowExcluded`` for a cell or figure it cannot
    read. ``vram`` is the row's own VRAM, or that of the GPU's row in the on-demand grid."""
    gpu = row[_GPU]
    marker = no_price_marker(row[role])
    if marker is not None:
        raise RowExcluded(marker)
    try:
        price, currency = money(row[role])
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    exact = PAGE_GPU_NAMES.get(gpu)
    return Offer(
        provider="hyperstack",
        instance_type=gpu,
        gpu_name=exact[0] if exact is not None else gpu,
        gpu_count=Decimal(1),
        vram_gb_reported=vram,
        vcpus=_figure(row[_VCPUS]) if _VCPUS in row else None,
        ram_gb=_figure(row[_RAM]) if _RAM in row else None,
        pricing=_PRICE_ROLES[role],
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


# --- the Infrahub API -------------------------------------------------------------------------


def _parse_pricebook(document: list[Any], excluded: Counter[str]) -> dict[str, Decimal | None]:
    """Resource name -> price; None when the entry has no value (checked only where used)."""
    if not document:
        raise SchemaDriftError("empty pricebook")
    prices: dict[str, Decimal | None] = {}
    for entry in document:
        if not isinstance(entry, dict) or "name" not in entry or "value" not in entry:
            excluded["unparsed_pricebook_entry"] += 1
            continue
        value = entry["value"]
        try:
            price = decimal(value) if value is not None else None
        except SchemaDriftError:
            excluded["unparsed_pricebook_entry"] += 1
            continue
        if price is not None and not price.is_finite():  # NaN / Infinity: not a price
            excluded["unparsed_pricebook_entry"] += 1
            continue
        prices[str(entry["name"])] = price
    if not prices:
        raise SchemaDriftError(f"pricebook without a readable entry{_left_out(excluded)}")
    return prices


def _iter_flavors(document: dict[str, Any]) -> list[dict[str, Any]]:
    groups = document["data"]
    if not isinstance(groups, list):
        raise SchemaDriftError("flavors response: 'data' is not a list")
    flavors = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("flavors"), list):
            raise SchemaDriftError(f"flavors group without a 'flavors' list: {group!r:.80}")
        flavors.extend(group["flavors"])
    return flavors


def _api_offers(
    pricebook: dict[str, Decimal | None],
    flavors: list[tuple[RawResponse, dict[str, Any]]],
    excluded: Counter[str],
) -> list[Offer]:
    offers = []
    for response, flavor in flavors:
        try:
            gpu, count = flavor["gpu"], flavor["gpu_count"]
            if not gpu or not count:
                excluded["non_gpu"] += 1  # a CPU-only flavor: not a GPU offer
                continue
            name, region = flavor["name"], flavor["region_name"]
            cpu, ram, disk = flavor["cpu"], flavor["ram"], flavor["disk"]
            figures = [decimal(v) for v in (count, cpu, ram, disk, flavor.get("ephemeral") or 0)]
        except (KeyError, TypeError, SchemaDriftError):
            excluded["unparsed_flavor"] += 1
            continue
        price = pricebook.get(gpu)
        if price is None:
            excluded["unpriced_gpu"] += 1  # the pricebook lacks the flavor's GPU
            continue
        # A zero or negative price is emitted as read: a wrong price fails the scrape (the
        # loader's ``prices_positive``), it is not left out as if the GPU were unpriced.
        gpu_count, vcpus, ram_gb, disk_gb, ephemeral_gb = figures
        spot = gpu.endswith(SPOT_SUFFIX)
        offers.append(
            Offer(
                provider="hyperstack",
                instance_type=name,
                region=region,
                gpu_name=gpu.removesuffix(SPOT_SUFFIX),
                gpu_count=gpu_count,
                vcpus=vcpus,
                ram_gb=ram_gb,
                # Root disk plus the ephemeral NVMe that comes with the flavor.
                storage_gb=disk_gb + ephemeral_gb,
                pricing=PricingModel.SPOT if spot else PricingModel.ON_DEMAND,
                price=price,
                currency="USD",
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.GPU,
                source_url=PRICEBOOK_URL,
                observed_at=response.fetched_at,
            )
        )
    if not offers:
        raise SchemaDriftError(f"flavors response lists no priced GPU flavor{_left_out(excluded)}")
    return offers


PROVIDER = Provider(
    slug="hyperstack",
    name="Hyperstack",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
    notes="HYPERSTACK_API_KEY is optional: with it the pricebook API is used, else the page.",
)
