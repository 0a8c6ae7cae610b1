"""Vultr: GPU bare-metal and Cloud GPU plans from the public Vultr API v2.

Endpoints (public; ``Authorization: Bearer`` sent only when ``VULTR_API_KEY`` is set):

- ``GET https://api.vultr.com/v2/plans-metal?per_page=500`` -> ``{"plans_metal": [...],
  "meta": {"total": n, "links": {"next": "<cursor>", "prev": ""}}}``
- ``GET https://api.vultr.com/v2/plans?type=vcg&per_page=500`` -> ``{"plans": [...], "meta"}``

Pagination is by cursor: a non-empty ``meta.links.next`` is sent back as ``cursor=...``
(https://docs.vultr.com/reference/vultr-cli/plans/metal), up to ``MAX_PAGES`` per endpoint.
The recorded capture is the bare ``plans_metal`` array without envelope; it is accepted too.

Reading a plan (fields as the API returns them):

- **GPU plans** have a ``gpu_type`` (``NVIDIA_H100``, ``AMD_MI300X``; note ``gpu_brand`` is
  "none" on some AMD GPU plans, so it is not used). It is the offer's ``gpu_name``, except where
  ``GPU_TYPE_NAMES`` names the exact part of a type that leaves the form factor open. Plans
  without ``gpu_type`` are CPU servers and are not offers (documented exclusion); one with a GPU
  brand but no type is drift.
- **GPU count** of a bare-metal plan comes from its id, ``vbm-<c>c-<ram>gb-<n>-<model>-gpu``
  (``vbm-72c-480gb-gh200-gpu`` has no count: one GPU). ``gpu_vram_gb`` is the plan total, so
  VRAM per GPU = total / count. Cloud GPU (``vcg``) plans are often a fraction of one card
  (``vcg-a100-1c-6g-4vram``: 4 GB of an 80 GB A100): count = plan VRAM / the card's VRAM from
  ``CARD_VRAM_GB``; a vcg GPU type missing there is drift (add it, don't guess).
- **Prices** are USD. ``hourly_cost`` is emitted per hour when present, else ``monthly_cost``
  per month. On-demand only when ``deploy_ondemand`` is not false; spot (``*_preemptible``
  prices) only when ``deploy_preemptible`` is true -- Vultr lists both prices on every plan but
  these flags say which ones can actually be deployed. A GPU plan deployable neither way is
  not an offer (documented exclusion).
- **Region**: ``global``. Prices do not vary by location; ``locations`` is where a plan can be
  deployed right now (often empty for GPU plans, i.e. sold out), which is availability, not a
  different offer.
- vCPUs = ``cpu_threads`` (bare metal) or ``vcpu_count`` (vcg); ``ram`` is MiB; storage =
  ``disk`` (GB per disk) x ``disk_count``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx

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
    gb_from_mib,
    json_body,
)

API_BASE = "https://api.vultr.com/v2"
METAL_URL = f"{API_BASE}/plans-metal"
PLANS_URL = f"{API_BASE}/plans"
PER_PAGE = 500  # the documented maximum
MAX_PAGES = 20
# (url, query, envelope key) per endpoint.
ENDPOINTS = (
    (METAL_URL, {"per_page": PER_PAGE}, "plans_metal"),
    (PLANS_URL, {"type": "vcg", "per_page": PER_PAGE}, "plans"),
)
HOMEPAGE = "https://www.vultr.com"
TOKEN_ENV = "VULTR_API_KEY"  # optional: the plan endpoints are public

# VRAM (GB) of one whole card, per vcg gpu_type: only needed to express fractional Cloud GPU
# plans as a GPU count. Sizes are those of the card variants Vultr's whole-card plans show
# (e.g. vcg-a100-12c-120g-80vram, vcg-a40-24c-120g-48vram, vcg-l40s-16c-180g-48vram); the A16
# board holds four 16 GB GPUs, sold per 16 GB GPU.
CARD_VRAM_GB = {
    "NVIDIA_A100": Decimal(80),
    "NVIDIA_A40": Decimal(48),
    "NVIDIA_A16": Decimal(16),
    "NVIDIA_L40S": Decimal(48),
    "NVIDIA_H100": Decimal(80),
}

# ``gpu_type`` values that leave the form factor open -> the exact part (the VRAM per GPU then
# picks the memory size). No Vultr page stating SXM or PCIe was found; the defaults rest on the
# API's own data (plans-metal, captured 2026-04-01):
# - NVIDIA_A100: the API has a separate NVIDIA_A100_SXM type (the 8-GPU vbm-112c-2048gb-8-a100
#   plan), so the plain type is the other A100, the PCIe card (the 4-GPU Xeon Gold 6342 plan,
#   80 GB each; Cloud GPU plans slice the same 80 GB card).
# - NVIDIA_H100: the only H100 type; its plan (vbm-112c-2048gb-8-h100-gpu: 8 GPUs, 640 GB, 112
#   Xeon Platinum 8480+ cores, 2 TB RAM) is the same chassis as the A100 SXM plan, an HGX board,
#   so the SXM5 part. Lower confidence than the other defaults: revisit if Vultr lists H100 PCIe.
GPU_TYPE_NAMES: dict[str, str] = {
    "NVIDIA_A100": "NVIDIA A100 PCIe",
    "NVIDIA_H100": "NVIDIA H100 SXM",
}

_METAL_GPU_ID = re.compile(r"^vbm-\d+c-\d+gb-(?:(?P<count>\d+)-)?[a-z0-9]+-gpu$")
_NO_GPU_BRAND = "none"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: every page of plans-metal and of plans?type=vcg, following
    ``meta.links.next`` cursors. Raises ``FetchError`` on a failed request or when an endpoint
    has more than ``MAX_PAGES`` pages (a partial catalogue is not published)."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    responses = []
    for url, query, _ in ENDPOINTS:
        cursor: str | None = None
        for _page in range(MAX_PAGES):
            params: dict[str, Any] = dict(query)
            if cursor:
                params["cursor"] = cursor
            response = http.get(client, url, params=params, headers=headers)
            responses.append(response)
            cursor = _next_cursor(response)
            if not cursor:
                break
        else:
            raise FetchError(f"GET {url}: more than {MAX_PAGES} pages")
    return responses


def _next_cursor(response: RawResponse) -> str | None:
    document = json_body(response)
    if not isinstance(document, dict):
        return None  # a bare list (the recorded capture) has no pagination
    links = (document.get("meta") or {}).get("links") or {}
    cursor = links.get("next") if isinstance(links, dict) else None
    return cursor if isinstance(cursor, str) and cursor else None


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers for every GPU plan in every response (metal or vcg, enveloped or bare array).

    Raises ``SchemaDriftError`` for a body that is no plan list, a GPU plan whose count, VRAM
    or price cannot be read, or when no GPU plan is found at all.
    """
    offers: list[Offer] = []
    for response in distinct_bodies(responses):
        for plan in _plans(json_body(response), response):
            if plan.get("gpu_type"):
                offers.extend(_plan_offers(plan, response))
            elif plan.get("gpu_brand", _NO_GPU_BRAND) != _NO_GPU_BRAND:
                raise SchemaDriftError(f"plan {plan['id']!r} has a GPU brand but no gpu_type")
    if not offers:
        raise SchemaDriftError("no GPU plans found")
    return ensure_unique(offers)


def _plans(document: Any, response: RawResponse) -> list[dict[str, Any]]:
    if isinstance(document, dict):
        keys = [key for _, _, key in ENDPOINTS if key in document]
        if len(keys) != 1:
            raise SchemaDriftError(f"{response.url}: no 'plans_metal' or 'plans' list")
        document = document[keys[0]]
    if not isinstance(document, list):
        raise SchemaDriftError(f"{response.url}: plans are not a list")
    for plan in document:
        if not isinstance(plan, dict) or not plan.get("id"):
            raise SchemaDriftError(f"{response.url}: plan without an id: {plan!r:.80}")
    return document


def _gpus(plan: dict[str, Any]) -> tuple[Decimal, Decimal]:
    """(GPU count, VRAM GB per GPU); the count is fractional for a slice of one card."""
    plan_id, total = plan["id"], _vram_total(plan)
    if plan_id.startswith("vbm-"):
        match = _METAL_GPU_ID.match(plan_id)
        if match is None:
            raise SchemaDriftError(f"bare-metal GPU plan id {plan_id!r} has no readable GPU count")
        count = Decimal(match["count"] or 1)
        return count, total / count
    card = CARD_VRAM_GB.get(plan["gpu_type"])
    if card is None:
        raise SchemaDriftError(f"plan {plan_id!r}: no card VRAM known for {plan['gpu_type']!r}")
    return total / card, card


def _vram_total(plan: dict[str, Any]) -> Decimal:
    if plan.get("gpu_vram_gb") is None:
        raise SchemaDriftError(f"GPU plan {plan['id']!r} without gpu_vram_gb")
    return decimal(plan["gpu_vram_gb"])


def _prices(plan: dict[str, Any]) -> list[tuple[PricingModel, Decimal, PriceUnit]]:
    found = []
    if plan.get("deploy_ondemand", True):
        found.append((PricingModel.ON_DEMAND, *_price(plan, "hourly_cost", "monthly_cost")))
    if plan.get("deploy_preemptible") is True:
        found.append(
            (
                PricingModel.SPOT,
                *_price(plan, "hourly_cost_preemptible", "monthly_cost_preemptible"),
            )
        )
    return found


def _price(plan: dict[str, Any], hourly: str, monthly: str) -> tuple[Decimal, PriceUnit]:
    for key, unit in ((hourly, PriceUnit.HOUR), (monthly, PriceUnit.MONTH)):
        if plan.get(key) is not None:
            price = decimal(plan[key])
            if price <= 0:
                raise SchemaDriftError(f"plan {plan['id']!r}: {key} is {plan[key]!r}")
            return price, unit
    raise SchemaDriftError(f"plan {plan['id']!r}: neither {hourly} nor {monthly}")


def _plan_offers(plan: dict[str, Any], response: RawResponse) -> list[Offer]:
    count, vram_per_gpu = _gpus(plan)
    gpu_type = str(plan["gpu_type"])
    vcpus = plan.get("cpu_threads", plan.get("vcpu_count"))
    disk, disks = plan.get("disk"), plan.get("disk_count")
    # A plan deployable neither on demand nor preemptible has no offer (documented exclusion).
    prices = _prices(plan)
    return [
        Offer(
            provider="vultr",
            instance_type=plan["id"],
            gpu_name=GPU_TYPE_NAMES.get(gpu_type, gpu_type),
            gpu_count=count,
            vram_gb_reported=vram_per_gpu,
            vcpus=decimal(vcpus) if vcpus is not None else None,
            ram_gb=gb_from_mib(plan["ram"]) if plan.get("ram") is not None else None,
            storage_gb=decimal(disk) * decimal(disks) if disk and disks else None,
            pricing=pricing,
            price=price,
            currency="USD",
            price_unit=unit,
            price_per=PricePer.INSTANCE,
            source_url=response.url,
            observed_at=response.fetched_at,
        )
        for pricing, price, unit in prices
    ]


PROVIDER = Provider(
    slug="vultr",
    name="Vultr",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="VULTR_API_KEY is optional: the plan endpoints are public.",
)
