"""Hyperbolic: on-demand GPU rental options from its public JSON API.

Live: ``GET https://api.hyperbolic.ai/v2/alpha/on-demand/rental-options``, no auth (anonymous
access, as the collector of the 2026-08-29 capture states it re-verified live that day), no
pagination: the body is a bare JSON list of rental options. Hyperbolic's on-demand product is
documented at https://docs.hyperbolic.ai/on-demand/overview (GPU-hour metering, cited by the
api-evangelist transcription
https://raw.githubusercontent.com/api-evangelist/hyperbolic-ai/refs/heads/main/finops/hyperbolic-ai-finops.yml).

Known layout (seen 2026-08-29): each option is an object with ``enabled``, ``costPerHourCents``
(the customer price), ``region``, ``gpuCount``, ``gpuType`` (``"h100"``), ``gpuFormFactor``
(``"sxm5"``, ``"pcie"``), ``connectionType`` (``"ethernet"``, ``"infiniband"``),
``ethernetVariant`` (``"normal"``, ``"rocev2"``, only on ethernet), ``machineType``
(``"virtual-machine"``, ``"bare-metal"``), optionally ``totalAvailable`` and a ``nodes`` list
(``ramGb``, ``storageGb``, ``vcpuCount`` or, on bare metal, ``cpuCount``).

Rules:

- one on-demand offer per option: price = ``costPerHourCents`` / 100 USD per hour for the whole
  option (``gpuCount`` GPUs), ``price_per`` instance; region = ``region``;
- ``providerCostPerHourCents`` is the supplier's cost, not a customer price: never read;
- ``instance_type`` names what tells two options of one region apart:
  ``"<n>x <gpu> <form> <machine> <connection>[ <ethernet variant>]"``;
- ``offered`` = ``enabled`` (Hyperbolic's own flag); ``available`` = ``totalAvailable`` > 0 where
  the option states it, else unknown;
- vCPUs are the nodes' ``vcpuCount`` (a bare-metal node's ``cpuCount`` does not say whether it
  counts cores or threads: left empty); RAM and storage are the nodes' GB summed.

Exclusions (counted by ``parse_with_exclusions``): ``unknown_gpu <type>`` for a ``gpuType`` not
in ``GPU_NAMES``, ``unknown_form_factor <form>`` for a form factor not in ``FORM_FACTORS``,
``unparsed_price`` for an option whose cents are not a number (a number is read signed as
printed: a zero or negative price is the price screen's to refuse), ``unparsed_gpu_count``.
``SchemaDriftError`` when the body is not a JSON list of objects or no option yields an offer.
"""

from __future__ import annotations

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
    json_body,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "hyperbolic"
HOMEPAGE = "https://www.hyperbolic.ai"
RENTAL_OPTIONS_URL = "https://api.hyperbolic.ai/v2/alpha/on-demand/rental-options"
TOKEN_ENV = None
CURRENCY = "USD"
CENTS_PER_DOLLAR = Decimal(100)

# ``gpuType`` as the API spells it -> the GPU name offers carry (the alias seed resolves it with
# the form factor). Types of the 2026-08-29 capture.
GPU_NAMES: dict[str, str] = {"h100": "H100", "h200": "H200"}
# ``gpuFormFactor`` -> (word in the GPU name, ``Offer.gpu_form_factor``)
FORM_FACTORS: dict[str, tuple[str, str]] = {"sxm5": ("SXM5", "SXM"), "pcie": ("PCIe", "PCIe")}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the rental options (one response, no auth; ``token`` is ignored).

    Raises ``FetchError`` when the request fails.
    """
    return [http.get(client, RENTAL_OPTIONS_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One on-demand offer per rental option: USD per option (``gpuCount`` GPUs) per hour.

    Raises ``SchemaDriftError`` when a body is not a list of objects or yields no offer; an
    option that cannot be read is excluded and counted (see the module docstring).
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        body = json_body(response)
        if not isinstance(body, list) or not all(isinstance(o, dict) for o in body):
            raise SchemaDriftError(f"{response.url}: expected a JSON list of rental options")
        found = offers_from_rows(body, partial(_read_option, response), excluded)
        if not found:
            raise SchemaDriftError(
                f"{response.url}: no rental option read (excluded: {dict(excluded)})"
            )
        offers.extend(found)
    return ensure_unique(offers), excluded


def _read_option(response: RawResponse, option: dict[str, Any]) -> Offer:
    gpu_type = str(option.get("gpuType") or "").strip().lower()
    if gpu_type not in GPU_NAMES:
        raise RowExcluded(unknown_row("gpu", gpu_type or "<none>"))
    form = str(option.get("gpuFormFactor") or "").strip().lower()
    if form not in FORM_FACTORS:
        raise RowExcluded(unknown_row("form_factor", form or "<none>"))
    cents = option.get("costPerHourCents")
    if not isinstance(cents, int | float) or isinstance(cents, bool):
        raise RowExcluded("unparsed_price")
    count = option.get("gpuCount")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        raise RowExcluded("unparsed_gpu_count")
    region = str(option.get("region") or "").strip()
    if not region:
        raise SchemaDriftError(f"{response.url}: a rental option without a region")
    form_word, form_factor = FORM_FACTORS[form]
    nodes = [n for n in option.get("nodes") or [] if isinstance(n, dict)]
    total_available = option.get("totalAvailable")
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=_instance_type(option, count, gpu_type, form),
        region=region,
        gpu_name=f"{GPU_NAMES[gpu_type]} {form_word}",
        gpu_form_factor=form_factor,
        gpu_count=Decimal(count),
        vcpus=_node_sum(nodes, "vcpuCount"),
        ram_gb=_node_sum(nodes, "ramGb"),
        storage_gb=_node_sum(nodes, "storageGb"),
        pricing=PricingModel.ON_DEMAND,
        price=decimal(cents) / CENTS_PER_DOLLAR,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        offered=option["enabled"] if isinstance(option.get("enabled"), bool) else None,
        available=total_available > 0 if isinstance(total_available, int) else None,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


def _instance_type(option: dict[str, Any], count: int, gpu_type: str, form: str) -> str:
    parts = [f"{count}x", gpu_type, form, option.get("machineType"), option.get("connectionType")]
    if option.get("ethernetVariant"):
        parts.append(option["ethernetVariant"])
    return " ".join(str(p) for p in parts if p)


def _node_sum(nodes: list[dict[str, Any]], key: str) -> Decimal | None:
    """The nodes' ``key`` summed; None when a node does not state it as a number."""
    values = [n.get(key) for n in nodes]
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if not numbers or len(numbers) != len(values):
        return None
    return sum((decimal(v) for v in numbers), Decimal(0))


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Hyperbolic",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    # Hyperbolic calls the product its "GPU Marketplace" (https://huggingface.co/docs/inference-providers/en/providers/hyperbolic)
    # and every option carries a supplier's cost beside the customer price
    kind="marketplace",
    notes="JSON API (on-demand rental options); price per option-hour in USD cents",
)
