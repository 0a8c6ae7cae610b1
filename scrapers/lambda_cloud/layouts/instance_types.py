"""``cloud API instance-types`` (``GET /api/v1/instance-types``, live when ``LAMBDA_API_KEY`` is
set; no real answer is recorded, the tests read the documented shape):
``{"data": {<name>: {"instance_type": {...}, "regions_with_capacity_available": [...]}}}``.

One offer per region with capacity (available); a type with capacity nowhere keeps its list
price as one ``global`` offer, not available (the price is the same in every region). Prices:
``price_cents_per_hour`` divided by 100 (cents are not a currency code), USD per instance-hour
(``price_per`` instance); RAM and storage GiB -> GB; VRAM read off ``gpu_description``
("H100 (80 GB SXM5)"), which names the GPU as the API spells it: it is not checked against
``KNOWN_GPUS`` (no real API response is recorded to list them from).

Exclusions: ``no_gpu`` (an instance type with ``specs.gpus == 0`` is not a GPU SKU). Drift (the
API is typed, so an odd entry is a schema change, not one odd row): no ``data`` object, an
instance type missing a documented key, non-integer price/gpus/vcpus, regions not a list.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from scrapers.kit import (
    Offer,
    PricePer,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    decimal,
    gb_from_gib,
    json_body,
    require,
)
from scrapers.lambda_cloud.common import API_URL, GLOBAL_REGION, offer

_VRAM_IN_DESCRIPTION = re.compile(r"\((?P<gb>\d+(?:\.\d+)?)\s*GB\b")


@dataclass(frozen=True, slots=True)
class Row:
    key: str  # the instance type's key in ``data``
    entry: Any
    observed_at: datetime


def detect(response: RawResponse) -> bool:
    return response.body.lstrip()[:1] == b"{"


def rows(response: RawResponse) -> list[Row]:
    payload = json_body(response)
    data = require(payload.get("data") if isinstance(payload, dict) else None, "API 'data'")
    if not isinstance(data, dict):
        raise SchemaDriftError("API 'data' is not an object keyed by instance type")
    return [Row(key, entry, response.fetched_at) for key, entry in data.items()]


def read_row(row: Row, excluded: Counter[str]) -> list[Offer]:
    """The offers of one instance type, one per region with capacity (else one ``global``)."""
    key = row.key
    try:
        spec = row.entry["instance_type"]
        name = require(spec["name"], f"{key} name")
        gpu_description = require(spec["gpu_description"], f"{key} gpu_description")
        cents = spec["price_cents_per_hour"]
        specs = spec["specs"]
        gpus, vcpus = specs["gpus"], specs["vcpus"]
        memory_gib, storage_gib = specs["memory_gib"], specs["storage_gib"]
        regions = row.entry["regions_with_capacity_available"]
    except (KeyError, TypeError) as exc:
        raise SchemaDriftError(f"API instance type {key!r}: missing {exc}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (cents, gpus, vcpus)):
        raise SchemaDriftError(f"API instance type {key!r}: price/gpus/vcpus not integers")
    if gpus == 0:
        raise RowExcluded("no_gpu")
    if not isinstance(regions, list):
        raise SchemaDriftError(f"API instance type {key!r}: regions is not a list")
    region_names = [require(r.get("name"), f"{key} region name") for r in regions] or [
        GLOBAL_REGION
    ]
    vram = _VRAM_IN_DESCRIPTION.search(gpu_description)
    return [
        offer(
            instance_type=name,
            gpu_name=gpu_description,
            gpu_count=gpus,
            vram=decimal(vram["gb"]) if vram else None,
            vcpus=decimal(vcpus),
            ram_gb=gb_from_gib(memory_gib),
            storage_gb=gb_from_gib(storage_gib),
            price=decimal(cents) / 100,
            price_per=PricePer.INSTANCE,
            source_url=API_URL,
            observed_at=row.observed_at,
            region=region,
            available=bool(regions),  # the regions listed are those with capacity
        )
        for region in region_names
    ]
