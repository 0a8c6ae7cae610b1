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

Documented exclusions:

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
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
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
from scrapers.parsing import (
    decimal,
    distinct_bodies,
    ensure_unique,
    first_number,
    html_body,
    money,
    node_text,
)

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


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from the pricing page (either layout) or from pricebook + flavors JSON.

    Prices are USD per GPU-hour (``price_per`` gpu). Raises ``SchemaDriftError`` when a
    response is neither layout, a grid has an unknown column, a cell is not a number/price,
    a GPU flavor has no pricebook price, or nothing at all is found.
    """
    offers: list[Offer] = []
    pricebook: dict[str, Decimal | None] | None = None
    flavors: list[tuple[RawResponse, dict[str, Any]]] | None = None
    for response in distinct_bodies(responses):
        document = _json_or_none(response)
        if document is None:
            offers.extend(_parse_page(response))
        elif isinstance(document, list):
            pricebook = _parse_pricebook(document)
        elif isinstance(document, dict) and "data" in document:
            flavors = [(response, flavor) for flavor in _iter_flavors(document)]
        else:
            raise SchemaDriftError(f"{response.url}: JSON is neither a pricebook nor flavors")
    if (pricebook is None) != (flavors is None):
        missing = "flavors" if flavors is None else "pricebook"
        raise SchemaDriftError(f"API responses without the {missing} response")
    if pricebook is not None and flavors is not None:
        offers.extend(_api_offers(pricebook, flavors))
    if not offers:
        raise SchemaDriftError("no GPU offers found in any response")
    return ensure_unique(offers)


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


def _parse_page(response: RawResponse) -> list[Offer]:
    tree = html_body(response)
    grids = [_table_grid(t) for t in tree.css(TABLE)] + [_card_grid(c) for c in tree.css(CARD_GRID)]
    gpu_grids = [g for g in grids if g.headings and g.headings[0].lower().startswith("gpu model")]
    if not gpu_grids:
        raise SchemaDriftError(f"{response.url}: no table or card grid headed 'GPU Model'")
    specs: dict[str, dict[str, Decimal]] = {}
    rows_by_role: list[tuple[str, dict[str, str]]] = []
    for grid in gpu_grids:
        roles = [_heading_role(h) for h in grid.headings]
        if len(set(roles)) != len(roles):
            raise SchemaDriftError(f"repeated column in GPU grid {grid.headings!r}")
        if not grid.rows:
            raise SchemaDriftError(f"GPU grid {grid.headings!r} has no rows")
        for cells in grid.rows:
            if len(cells) != len(roles):
                raise SchemaDriftError(f"row {cells!r} does not match columns {grid.headings!r}")
            row = dict(zip(roles, cells, strict=True))
            if _VRAM in row:
                specs[row[_GPU]] = {"vram": first_number(row[_VRAM])}
            for role in roles:
                if role in _PRICE_ROLES:
                    rows_by_role.append((role, row))
    offers = [_page_offer(role, row, specs, response) for role, row in rows_by_role]
    if not offers:
        raise SchemaDriftError(f"{response.url}: GPU grids without an on-demand or spot price")
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
    role: str, row: dict[str, str], specs: dict[str, dict[str, Decimal]], response: RawResponse
) -> Offer:
    gpu = row[_GPU]
    if not gpu:
        raise SchemaDriftError(f"GPU row without a name: {row!r}")
    price, currency = money(row[role])
    vram = first_number(row[_VRAM]) if _VRAM in row else specs.get(gpu, {}).get("vram")
    return Offer(
        provider="hyperstack",
        instance_type=gpu,
        gpu_name=_page_gpu_name(gpu, vram),
        gpu_count=Decimal(1),
        vram_gb_reported=vram,
        vcpus=first_number(row[_VCPUS]) if _VCPUS in row else None,
        ram_gb=first_number(row[_RAM]) if _RAM in row else None,
        pricing=_PRICE_ROLES[role],
        price=price,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        source_url=PRICING_URL,
        observed_at=response.fetched_at,
    )


def _page_gpu_name(gpu: str, vram: Decimal | None) -> str:
    """The row's GPU name, or the exact part ``PAGE_GPU_NAMES`` gives for an open spelling.

    Raises ``SchemaDriftError`` when such a row shows a VRAM other than the mapped part's (the
    page then sells a different variant under the same words).
    """
    exact = PAGE_GPU_NAMES.get(gpu)
    if exact is None:
        return gpu
    name, expected_vram = exact
    if vram is not None and vram != expected_vram:
        raise SchemaDriftError(f"{gpu!r} row shows {vram} GB VRAM, PAGE_GPU_NAMES expects {name}")
    return name


# --- the Infrahub API -------------------------------------------------------------------------


def _parse_pricebook(document: list[Any]) -> dict[str, Decimal | None]:
    """Resource name -> price; None when the entry has no value (checked only where used)."""
    prices: dict[str, Decimal | None] = {}
    for entry in document:
        if not isinstance(entry, dict) or "name" not in entry or "value" not in entry:
            raise SchemaDriftError(f"pricebook entry without name/value: {entry!r:.80}")
        value = entry["value"]
        prices[str(entry["name"])] = decimal(value) if value is not None else None
    if not prices:
        raise SchemaDriftError("empty pricebook")
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
    pricebook: dict[str, Decimal | None], flavors: list[tuple[RawResponse, dict[str, Any]]]
) -> list[Offer]:
    offers = []
    for response, flavor in flavors:
        try:
            gpu, count = flavor["gpu"], flavor["gpu_count"]
            if not gpu or not count:
                continue  # a CPU-only flavor: not a GPU offer
            name, region = flavor["name"], flavor["region_name"]
            cpu, ram, disk = flavor["cpu"], flavor["ram"], flavor["disk"]
        except (KeyError, TypeError):
            raise SchemaDriftError(f"flavor missing a field: {flavor!r:.120}") from None
        price = pricebook.get(gpu)
        if price is None or price <= 0:
            raise SchemaDriftError(f"flavor {name!r} uses GPU {gpu!r}, which the pricebook lacks")
        spot = gpu.endswith(SPOT_SUFFIX)
        offers.append(
            Offer(
                provider="hyperstack",
                instance_type=name,
                region=region,
                gpu_name=gpu.removesuffix(SPOT_SUFFIX),
                gpu_count=decimal(count),
                vcpus=decimal(cpu),
                ram_gb=decimal(ram),
                # Root disk plus the ephemeral NVMe that comes with the flavor.
                storage_gb=decimal(disk) + decimal(flavor.get("ephemeral") or 0),
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
        raise SchemaDriftError("flavors response lists no GPU flavor")
    return offers


PROVIDER = Provider(
    slug="hyperstack",
    name="Hyperstack",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="HYPERSTACK_API_KEY is optional: with it the pricebook API is used, else the page.",
)
