"""Shadeform: the GPU marketplace's instance types, each resold from an underlying cloud.

Live, with a key (``SHADEFORM_API_KEY``): ``GET https://api.shadeform.ai/v1/instances/types``
with an ``X-API-KEY`` header, no pagination (one ``instance_types`` list; optional filters
``cloud``, ``region``, ``num_gpus``, ``gpu_type`` are not sent:
https://docs.shadeform.ai/api-reference/instances/instances-types; the OpenAPI document
https://raw.githubusercontent.com/shadeform/docs/c1140cfb67fa7ffdda77fb4cfe3c413216caea1f/openapi.yaml
says the Shade Instance Type and the cloud together denote one instance type). Without a key:
``GET https://shadeform.com/``, whose Next.js flight data embeds the same ``instance_types``
list (the react-query state the homepage's price table is rendered from; the 2026-08-22 capture
is an excerpt of it, cut inside its 18th type).

An instance type: ``cloud`` (the underlying cloud that runs it: ``lambdalabs``, ``crusoe``,
``hyperstack``, ...), ``shade_instance_type`` (``A100_80Gx8_NVLINK``), ``cloud_instance_type``
(the cloud's own name), ``configuration`` (``num_gpus``, ``gpu_type``, ``vram_per_gpu_in_gb``,
``vcpus``, ``memory_in_gb``, ``storage_in_gb``, ``interconnect``), ``hourly_price`` (integer
US cents per instance-hour: the docs' example A6000 is 210, $2.10) and ``availability`` (one
entry per region: ``region``, ``display_name`` "US, Dallas, TX", ``available``).

Offers: one per instance type and region, on-demand USD per instance-hour. The underlying cloud
is the offer's ``cloud_tier`` (one Shade type sold by two clouds is two offers), ``region`` the
Shadeform region id, ``country`` the ISO code ``display_name`` starts with, ``available`` the
region's flag. ``gpu_name`` is ``KNOWN_GPUS``'s spelling of the ``gpu_type`` (Shadeform's
``A100_80G`` is "A100 80GB"); ``gpu_form_factor`` SXM when ``interconnect`` says ``sxm*``, PCIe
when it says ``pcie`` unless the cloud's own type name says SXM (Crusoe's
``a100-80gb-sxm-ib.8x`` is listed as ``pcie``: the two disagree, so none is stated).

Rules (one count per instance type, ``offers_from_rows``):

- ``gpu_type`` not in ``KNOWN_GPUS`` -> ``unknown_gpu <gpu_type>``;
- ``hourly_price`` not a number of cents -> ``unparsed_price`` (a number is read signed as
  printed: a zero or negative price is the price screen's to refuse); ``num_gpus`` not a
  positive whole number -> ``unparsed_gpu_count``;
- no availability entry -> ``no_region``;
- the last type of an excerpt, cut off by its edge -> ``truncated_row``.

``SchemaDriftError``: no ``instance_types`` list in the body, a type that is not an object or
lacks ``cloud``/``shade_instance_type``/``configuration``, no offer at all, and one (type,
cloud, region) twice with different figures.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.flight import flight_text, objects_at
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
    json_body,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "shadeform"
HOMEPAGE = "https://shadeform.com/"
API_URL = "https://api.shadeform.ai/v1/instances/types"
TOKEN_ENV = "SHADEFORM_API_KEY"  # optional: without it the homepage's embedded list is read
CENTS_PER_USD = Decimal(100)
LIST_MARKER = '"instance_types":['
TYPE_MARKER = '{"cloud":'
# Shadeform's ``gpu_type`` values read off the capture and the docs -> the spelling emitted
# (warehouse/seeds/gpu_aliases.csv resolves it, with the form factor for A100/H100). A new
# value is left out as ``unknown_gpu <gpu_type>`` until checked.
KNOWN_GPUS: dict[str, str] = {
    "A100": "A100 40GB",  # Shadeform names the 80 GB part A100_80G; the plain one is 40 GB
    "A100_80G": "A100 80GB",
    "A4000": "A4000",
    "A6000": "A6000",
    "H100": "H100",
    "H100_nvl": "H100 NVL",
    "H200": "H200",
    "L4": "L4",
    "L40": "L40",
    "RTX4090": "RTX 4090",
}
_COUNTRY = re.compile(r"^(?P<code>[A-Z]{2}),")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """With a key, the instance types API; without, the homepage. Raises ``FetchError``."""
    if token:
        headers = {"X-API-KEY": token, "Accept": "application/json"}
        return [http.get(client, API_URL, headers=headers)]
    return [http.get(client, HOMEPAGE)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One on-demand offer per instance type, underlying cloud and region: USD per
    instance-hour. Raises ``SchemaDriftError`` as the module docstring says."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        read = partial(_read_type, response=response)
        offers.extend(offers_from_rows(_types(response), read, excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"Shadeform: no instance type offered (excluded: {reasons})")
    # the homepage may embed one list more than once: a repeat of the same offer is one offer
    return ensure_unique(list(dict.fromkeys(offers))), excluded


def _types(response: RawResponse) -> Iterator[Any]:
    """The instance types of an API body or of a page's flight data (None: a cut-off one)."""
    if response.body.lstrip().startswith(b"{"):
        body = json_body(response)
        listed = body.get("instance_types") if isinstance(body, dict) else None
        if not isinstance(listed, list):
            raise SchemaDriftError(f"{response.url}: no instance_types list")
        yield from listed
        return
    text = flight_text(response)
    start = text.find(LIST_MARKER)
    if start == -1:
        raise SchemaDriftError(f"{response.url}: no instance_types list")
    for value, _ in objects_at(text[start:], TYPE_MARKER):
        yield value


def _read_type(item: Any, response: RawResponse) -> list[Offer]:
    if item is None:
        raise RowExcluded("truncated_row")
    if not (
        isinstance(item, dict)
        and isinstance(item.get("cloud"), str)
        and isinstance(item.get("shade_instance_type"), str)
        and isinstance(item.get("configuration"), dict)
    ):
        raise SchemaDriftError(f"{response.url}: an instance type without cloud/type/configuration")
    config: dict[str, Any] = item["configuration"]
    gpu_type = config.get("gpu_type")
    if gpu_type not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", str(gpu_type)))
    cents = item.get("hourly_price")
    if not isinstance(cents, int | float) or isinstance(cents, bool):
        raise RowExcluded("unparsed_price")
    count = config.get("num_gpus")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        raise RowExcluded("unparsed_gpu_count")
    places = [a for a in item.get("availability") or [] if isinstance(a, dict) and a.get("region")]
    if not places:
        raise RowExcluded("no_region")
    return [
        Offer(
            provider=PROVIDER_SLUG,
            instance_type=item["shade_instance_type"],
            cloud_tier=item["cloud"],
            region=str(place["region"]),
            country=_country(place.get("display_name")),
            gpu_name=KNOWN_GPUS[gpu_type],
            gpu_count=Decimal(count),
            gpu_form_factor=_form_factor(config, item.get("cloud_instance_type")),
            vram_gb_reported=_figure(config.get("vram_per_gpu_in_gb")),
            vcpus=_figure(config.get("vcpus")),
            ram_gb=_figure(config.get("memory_in_gb")),
            storage_gb=_figure(config.get("storage_in_gb")),
            pricing=PricingModel.ON_DEMAND,
            price=decimal(cents) / CENTS_PER_USD,
            currency="USD",
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.INSTANCE,
            available=place.get("available") if isinstance(place.get("available"), bool) else None,
            source_url=API_URL if response.url.startswith(API_URL) else HOMEPAGE,
            observed_at=response.fetched_at,
        )
        for place in places
    ]


def _country(display_name: Any) -> str | None:
    match = _COUNTRY.match(display_name) if isinstance(display_name, str) else None
    return match["code"] if match else None


def _form_factor(config: dict[str, Any], cloud_type: Any) -> str | None:
    interconnect = str(config.get("interconnect") or "").lower()
    named_sxm = "sxm" in str(cloud_type or "").lower()
    if interconnect.startswith("sxm"):
        return "SXM"
    if interconnect == "pcie" and not named_sxm:
        return "PCIe"
    return None


def _figure(value: Any) -> Decimal | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return Decimal(str(value))
    return None


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Shadeform",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="marketplace",
    notes="GPU marketplace: instance types resold from other clouds (the cloud is the offer's"
    " cloud_tier), one offer per region; USD per instance-hour",
)
