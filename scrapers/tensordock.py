"""TensorDock: GPU prices of the marketplace's deployment locations, from its v2 API.

Live, with a key (``TENSORDOCK_API_TOKEN``, created under the dashboard's Developer Settings):
``GET LOCATIONS_URL`` with ``Authorization: Bearer <token>``, no pagination (one
``data.locations`` list). Documented, with the example response the tests read, at
https://dashboard.tensordock.com/api/docs/fetch-hostnodes ("List Available Locations": "all
available deployment locations with their GPU offerings and maximum deployable resources").
Without a key the provider is skipped (``MissingTokenError``), not failed.

Known layout: ``{"data": {"locations": [location, ...]}}``; a location has ``id``, ``city``,
``stateprovince``, ``country``, ``tier`` and ``gpus``, a list of GPU offerings, each with
``v0Name`` (TensorDock's GPU id, ``h100-sxm5-80gb``), ``displayName`` ("H100 SXM5 80GB"),
``max_count`` (the most GPUs of it one VM there can have), ``price_per_hr`` (USD per GPU-hour,
a JSON number), ``resources`` (the most vCPUs, RAM and storage deployable beside it) and
``pricing`` (USD per vCPU-, GB-of-RAM- and GB-of-storage-hour).

Offers: one per location and GPU, on-demand, USD per GPU-hour, ``gpu_count`` 1, ``region``
the location's id, ``instance_type`` the ``v0Name``, ``gpu_name`` the ``displayName`` and
``vram_gb_reported`` the GB it ends with. The price is the GPU's own: the vCPUs, RAM and
storage a VM is given are billed on top at ``pricing``'s rates, so, as for CoreWeave's
component table, the location's maxima are not attached to the offer (they are not in the
price). ``available`` is True where ``max_count`` is at least one, False where it is 0.

Rules (exclusions counted by ``parse_with_exclusions``, one count per GPU offering):

- ``unknown_gpu <displayName>``: a GPU this scraper has not read off the docs' example;
- ``unparsed_gpu_count``: a ``max_count`` that is not a whole number >= 0;
- ``unparsed_price``: a ``price_per_hr`` that is not a number.

``SchemaDriftError`` when the body is not the layout above (no ``data.locations`` list, a
location that is not an object with an ``id`` and a ``gpus`` list, a GPU offering that is not
an object with a ``v0Name``), or no offering yields an offer (``Provider.parse_report`` also
fails the scrape when more than half of them are unknown).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.kit import (
    MissingTokenError,
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
    gb_from_size,
    json_body,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "tensordock"
HOMEPAGE = "https://www.tensordock.com"
LOCATIONS_URL = "https://dashboard.tensordock.com/api/v2/locations"
DOCS_URL = "https://dashboard.tensordock.com/api/docs/fetch-hostnodes"
TOKEN_ENV = "TENSORDOCK_API_TOKEN"
CURRENCY = "USD"
# The GPUs (``displayName``, as the API spells them) this parser has read off the API
# reference's example; an offering of another GPU is left out as ``unknown_gpu <name>``.
KNOWN_GPUS = frozenset({"H100 SXM5 80GB", "NVIDIA GeForce RTX 4090 PCIe 24GB"})
UNPARSED_PRICE = "unparsed_price"
UNPARSED_GPU_COUNT = "unparsed_gpu_count"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the locations with the Bearer key (one response, no pagination).

    Raises ``MissingTokenError`` without a key, ``FetchError`` for a failed request."""
    if not token:
        raise MissingTokenError(f"TensorDock's v2 API needs a key: set {TOKEN_ENV}")
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    return [http.get(client, LOCATIONS_URL, headers=headers)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """On-demand offers: USD per GPU-hour of the GPU alone, one per location and GPU.

    Raises ``SchemaDriftError`` for an unknown layout or a response without an offer; an
    offering that cannot be read is left out and counted (see the module docstring).

    Returns the offers, and how many offerings each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        found = offers_from_rows(_rows(response), partial(_read_row, response=response), excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no offer in the locations")
        offers.extend(found)
    return ensure_unique(offers), excluded


def _rows(response: RawResponse) -> Iterator[tuple[str, Any]]:
    """(location id, GPU offering) for every offering of every location."""
    body = json_body(response)
    data = body.get("data") if isinstance(body, dict) else None
    locations = data.get("locations") if isinstance(data, dict) else None
    if not isinstance(locations, list):
        raise SchemaDriftError(f"{response.url}: unknown layout: no 'data.locations' list")
    for location in locations:
        if not isinstance(location, dict) or not isinstance(location.get("id"), str):
            raise SchemaDriftError(f"{response.url}: a location is not an object with an 'id'")
        gpus = location.get("gpus")
        if not isinstance(gpus, list):
            raise SchemaDriftError(f"{response.url}: location {location['id']!r} has no 'gpus'")
        for gpu in gpus:
            yield location["id"], gpu


def _read_row(row: tuple[str, Any], response: RawResponse) -> Offer:
    location_id, gpu = row
    if not isinstance(gpu, dict) or not isinstance(gpu.get("v0Name"), str) or not gpu["v0Name"]:
        raise SchemaDriftError(f"{response.url}: a GPU offering is not an object with a 'v0Name'")
    name, count, price = gpu.get("displayName"), gpu.get("max_count"), gpu.get("price_per_hr")
    if not isinstance(name, str) or name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", str(name)))
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise RowExcluded(UNPARSED_GPU_COUNT)
    if not isinstance(price, int | float) or isinstance(price, bool):
        raise RowExcluded(UNPARSED_PRICE)
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=gpu["v0Name"],
        region=location_id,
        gpu_name=name,
        gpu_count=decimal(1),
        vram_gb_reported=gb_from_size(name),  # every known name ends in its GB
        pricing=PricingModel.ON_DEMAND,
        price=decimal(price),
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        available=count > 0,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="TensorDock",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    token_required=True,
    kind="marketplace",
    verified="docs",
    notes="TENSORDOCK_API_TOKEN is required (v2 API, Bearer). Price: the GPU's own, per GPU-hour"
    "; vCPUs, RAM and storage are billed on top.",
)
