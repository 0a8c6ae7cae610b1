"""Akash Network: GPU market prices from the Console API, ``GET /v1/gpu-prices``.

Live: ``GET https://console-api.akash.network/v1/gpu-prices`` (public, no auth, no pagination;
https://akash.network/docs/api-documentation/getting-started/ lists the Console API's network
data as "No authentication required"). The response is ``{"availability": {total, available},
"models": [...]}``. The recorded capture is a saver's wrapper ``{"fetchedAt", "url", "models"}``
around one element of ``models``; both shapes are recognised (by their top-level keys) and
anything else is ``SchemaDriftError``.

Each model is ``{vendor, model, ram, interface, availability: {total, available},
providerAvailability, price}``. How the Console computes ``price`` (source:
akash-network/console, ``apps/api/src/gpu/services/gpu-price/gpu-price.service.ts``): for every
provider that has the model it picks one *best bid* on a 1-GPU deployment from the last 14 days
(31 when there are none) -- the pricing bot's newest bid if there is one, else the cheapest
matching bid -- converts its per-block price to USD per hour (``uact`` directly; ``uakt`` at that
day's AKT price), and reports ``min``, ``max``, ``avg``, ``med`` and ``weightedAverage`` (each
provider's best bid weighted by its allocatable GPUs) over those best bids. ``price`` is null when
no provider bid in the window.

What is emitted, and why: **one offer per priced model**, ``price`` = ``weightedAverage``, USD
per GPU-hour, ``gpu_count`` 1, ``pricing`` on_demand, region ``global``.

- Akash is a reverse-auction marketplace; there is no list price. ``weightedAverage`` is the
  figure Akash itself puts forward as the model's price (the "Average price" of its GPU pricing
  page and Console), and it weights providers by the capacity they bring, so a 5-GPU host does
  not count as much as a 32-GPU one. ``min`` is a single provider's bid, often one with no
  free capacity; ``med`` ignores capacity. Neither is emitted as a second offer: the warehouse
  would count the same market twice.
- It is *not* a quote: a deployment gets whatever the providers bid for it, and its CPU, RAM and
  storage move the bid (the pricing bot's deployments are a tenth of a CPU and 256 MiB, so the
  figure is close to the bare GPU price). The lease price is then fixed in the bid's
  denomination for the lease's life and billed per block, which is why on_demand (a
  non-interruptible pay-as-you-go rental) is the pricing model, not spot or dynamic.
- vCPUs, RAM and storage are not emitted: they differ per bid and the aggregate has none.
- ``offered`` is None: the response has capacity counts (``availability.available`` GPUs free
  now), not a flag saying the price is not real; a sold-out model still has a market price.
  Those counts are its availability: ``available`` = at least one GPU of the model free now
  (``availability.available`` > 0), False at 0, None when the count is not a number.

GPU naming: ``gpu_name`` = "<vendor> <model> <interface>" as Akash spells them ("nvidia h100
SXM5"); ``instance_type`` adds the memory ("nvidia-h100-80Gi-SXM5") since one model comes in
several memory sizes. ``ram`` is a Kubernetes-style quantity ("80Gi" = 80 GiB) and is converted
to decimal GB (85.9) like every other GiB figure; a model name the GPU seed does not know is still
emitted (the warehouse loads it with no gpu_id and warns).

Known models: Akash spells a GPU as ``<family><number><suffix>`` ("h100", "rtx4090",
"rtxa6000", "mi300x"); the family (the letters before the number) must be one of
``KNOWN_FAMILIES`` for its vendor. The families are those of the names in Akash's GPU database
(akash-network/provider-configs ``devices/pcie/gpus.json``, from which provider feature discovery
takes the names: a, gt, gtx, h, m, mx, p, rtx, rtxa, t, v; amd mi) plus NVIDIA and AMD product
lines sold since (b/gb/gh: B200, GB200, GH200; l: L4, L40S; k: K80; rtxpro: RTX PRO 6000; rx:
Radeon RX). A new model of a known family ("rtx5090") is emitted as spelled; a name of another
family, or of another vendor, is a row this scraper does not know.

Exclusions (counted by ``parse_with_exclusions``, one count per model):

- ``no_recent_bids``: a model whose ``price`` is null (no provider bid in the last 31 days);
- ``unknown_family <instance type>``: a priced model of an unknown vendor or family
  (``unknown_family nvidia-z100-80Gi-SXM5``);
- ``incomplete_model``: a model without one of ``MODEL_KEYS``, or whose vendor, model, ram or
  interface is not text;
- ``unparsed_price``: a ``price`` that is not an object with a numeric ``weightedAverage`` and a
  currency code; ``unparsed_memory``: a ``ram`` that is not like "80Gi".

``SchemaDriftError`` is kept for a structure that is gone: a body in neither known shape, a
``models`` that is not a non-empty list, no priced model left (the message lists the
exclusions), more unreadable models (``UNREADABLE``) than read ones, or the same offer twice.
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

GPU_PRICES_URL = "https://console-api.akash.network/v1/gpu-prices"
HOMEPAGE = "https://akash.network"
SLUG = "akash"
REGION = "global"
PRICE_FIELD = "weightedAverage"  # see the module docstring for why this statistic

# Top-level keys of the two known shapes: the live response and the capture saver's wrapper.
LIVE_KEYS = frozenset({"availability", "models"})
SAVED_KEYS = frozenset({"fetchedAt", "url", "models"})
MODEL_KEYS = ("vendor", "model", "ram", "interface", "availability", "price")

# GPU families by vendor (the letters before the model number); see the module docstring.
KNOWN_FAMILIES: dict[str, frozenset[str]] = {
    "nvidia": frozenset(
        {
            "a",
            "b",
            "gb",
            "gh",
            "gt",
            "gtx",
            "h",
            "k",
            "l",
            "m",
            "mx",
            "p",
            "rtx",
            "rtxa",
            "rtxpro",
            "t",
            "v",
        }
    ),
    "amd": frozenset({"mi", "rx"}),
}

_FAMILY = re.compile(r"^(?P<family>[a-z]+)\d")
_RAM = re.compile(r"^(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>Gi|GB)$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """One GET of the public GPU price list (no auth, no pagination). Raises ``FetchError``."""
    return [http.get(client, GPU_PRICES_URL, headers={"Accept": "application/json"})]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One on-demand offer per priced GPU model: USD per GPU-hour (the bids' weighted average).

    Raises ``SchemaDriftError`` for a body in neither known shape, or when no model yields an
    offer; a model that cannot be read is excluded instead (and counted).

    Returns the offers, and how many models each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        models = _models(json_body(response), response)
        offers.extend(offers_from_rows(models, partial(_offer, response=response), excluded))
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(
            f"no priced GPU model in the Akash GPU price list (excluded: {reasons or 'none'})"
        )
    _check_readable(offers, excluded)
    return ensure_unique(offers), excluded


# Exclusions of models that could not be read: one is a slip, most of them a changed layout.
UNREADABLE = frozenset({"incomplete_model", "unparsed_price", "unparsed_memory"})


def _check_readable(offers: list[Offer], excluded: Counter[str]) -> None:
    """``SchemaDriftError`` when more models could not be read than were read."""
    unreadable = {r: n for r, n in excluded.items() if r in UNREADABLE}
    if sum(unreadable.values()) > len(offers):
        detail = ", ".join(f"{r} {n}" for r, n in sorted(unreadable.items()))
        raise SchemaDriftError(f"more Akash GPU models unreadable than read: {detail}")


def _models(document: Any, response: RawResponse) -> list[Any]:
    keys = set(document) if isinstance(document, dict) else set()
    if not (keys >= LIVE_KEYS or keys >= SAVED_KEYS):
        found = sorted(keys)[:8] if keys else type(document).__name__
        raise SchemaDriftError(f"{response.url}: not an Akash GPU price list (keys {found})")
    models = document["models"]
    if not isinstance(models, list) or not models:
        raise SchemaDriftError(f"{response.url}: 'models' is not a non-empty list")
    return models


def _offer(model: Any, response: RawResponse) -> Offer:
    if not isinstance(model, dict) or any(key not in model for key in MODEL_KEYS):
        raise RowExcluded("incomplete_model")
    vendor, name, ram, interface = (
        _text(model, key) for key in ("vendor", "model", "ram", "interface")
    )
    label = f"{vendor}-{name}-{ram}-{interface}"
    price = model["price"]
    if price is None:
        raise RowExcluded("no_recent_bids")
    family = _FAMILY.match(name.lower())
    if family is None or family["family"] not in KNOWN_FAMILIES.get(vendor.lower(), ()):
        raise RowExcluded(unknown_row("family", label))
    if not isinstance(price, dict):
        raise RowExcluded("unparsed_price")
    amount, currency = price.get(PRICE_FIELD), price.get("currency")
    if isinstance(amount, bool) or not isinstance(amount, int | float | str):
        raise RowExcluded("unparsed_price")
    if not isinstance(currency, str) or not _CURRENCY.match(currency):
        raise RowExcluded("unparsed_price")
    try:
        value = decimal(amount)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    return Offer(
        provider=SLUG,
        instance_type=label,
        region=REGION,
        gpu_name=f"{vendor} {name} {interface}",
        gpu_count=Decimal(1),
        vram_gb_reported=_vram_gb(ram),
        pricing=PricingModel.ON_DEMAND,
        price=value,
        currency=currency,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.GPU,
        available=_free_now(model["availability"]),
        source_url=response.url,
        observed_at=response.fetched_at,
    )


def _free_now(availability: Any) -> bool | None:
    """Whether any GPU of the model is free now (``availability.available``); None: no count."""
    free = availability.get("available") if isinstance(availability, dict) else None
    if isinstance(free, bool) or not isinstance(free, int | float):
        return None
    return free > 0


def _text(model: dict[str, Any], key: str) -> str:
    value = model[key]
    if not isinstance(value, str) or not value.strip():
        raise RowExcluded("incomplete_model")
    return value.strip()


def _vram_gb(ram: str) -> Decimal:
    match = _RAM.match(ram)
    if match is None:
        raise RowExcluded("unparsed_memory")
    if match["unit"] == "Gi":
        return gb_from_gib(match["num"])
    return decimal(match["num"])


PROVIDER = Provider(
    slug=SLUG,
    name="Akash Network",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=None,
    kind="marketplace",
    notes="Console API market prices: per GPU model, providers' best bids, weighted by capacity.",
)
