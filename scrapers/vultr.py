"""Vultr: GPU bare-metal and Cloud GPU plans from the public Vultr API v2.

Endpoints (public; ``Authorization: Bearer`` sent only when ``VULTR_API_KEY`` is set):

- ``GET https://api.vultr.com/v2/plans-metal?per_page=500`` -> ``{"plans_metal": [...],
  "meta": {"total": n, "links": {"next": "<cursor>", "prev": ""}}}``
- ``GET https://api.vultr.com/v2/plans?type=all&per_page=500`` -> ``{"plans": [...], "meta"}``:
  every instance plan type the API has. Vultr's OpenAPI document lists the ``type`` values
  ``all`` (All available types), ``vc2``, ``vdc`` (Dedicated Cloud), ``vhf``, ``vhp``, ``voc``
  (``voc-g``/``-c``/``-m``/``-s``) and ``vcg`` (Cloud GPU) (``list-plans`` as generated into
  github.com/vultr/vultr-ruby ``lib/vultr_ruby/api/plans_api.rb`` @ 7af6097); asking
  ``type=vcg`` alone missed the GPU plans of every other type (the dedicated "vdm" plans), so
  we ask ``all`` (as gpuhunt's Vultr provider does, ``/plans?type=all&per_page=500``) and keep
  the plans that have a ``gpu_type``, whatever their type. A plan listed by two responses (or
  pages) is read once.

Pagination is by cursor: a non-empty ``meta.links.next`` is sent back as ``cursor=...``
(https://docs.vultr.com/reference/vultr-cli/plans/metal), up to ``MAX_PAGES`` per endpoint.
The recorded capture is the bare ``plans_metal`` array without envelope; it is accepted too.

Fetch failures: the first request failing fails the provider (``FetchError``: the host is
down or refuses us). A request failing after it answered (a later page, or the ``vcg``
endpoint) is a skipped part (``fetch_with_skips``: "plans-metal page 2", "plans page 1" -> the
error; logged as a warning): that endpoint's remaining pages are not fetched, the plans already
read are published. More than ``MAX_PAGES`` pages on one endpoint (a cursor that never ends) is
a ``FetchError``.

Reading a plan (fields as the API returns them):

- **GPU plans** have a ``gpu_type`` (``NVIDIA_H100``, ``AMD_MI300X``; note ``gpu_brand`` is
  "none" on some AMD GPU plans, so it is not used). It must be one of ``GPU_TYPES``, and is the
  offer's ``gpu_name``, except where ``GPU_TYPE_NAMES`` names the exact part of a type that
  leaves the form factor open. Plans without ``gpu_type`` are CPU servers and are not offers.
- **GPU count** of a bare-metal plan comes from its id, ``vbm-<c>c-<ram>gb-<n>-<model>-gpu``
  (``vbm-72c-480gb-gh200-gpu`` has no count: one GPU). ``gpu_vram_gb`` is the plan total, so
  VRAM per GPU = total / count. Cloud GPU (``vcg``) plans are often a fraction of one card
  (``vcg-a100-1c-6g-4vram``: 4 GB of an 80 GB A100): count = plan VRAM / the card's VRAM from
  ``CARD_VRAM_GB`` (add a type there, don't guess).
- **Prices** are USD. ``hourly_cost`` is emitted per hour when present, else ``monthly_cost``
  per month. Vultr lists both prices on every plan; ``deploy_ondemand`` and
  ``deploy_preemptible`` say which ones can actually be deployed. Spot (``*_preemptible``
  prices) only when ``deploy_preemptible`` is true. The on-demand price of a deployable plan is
  always emitted: offered when ``deploy_ondemand`` is not false, else as the plan's listed but
  not offered list price (``offered=False``), which the plausibility screen keeps out of
  default answers and compares the plan's spot price with (a preemptible price equal to the
  listed on-demand one, e.g. GH200 1.99 / 1.99, is no spot discount).
- **Region and availability**: ``locations`` lists the location ids where a plan can be
  deployed right now (``ewr``, ``atl``, ``man``). Each is a region: one offer per location,
  ``available=True``, at the plan's price (prices do not vary by location). A plan with no
  location (``"locations": []``, every GPU plan of the 2026-03/04 captures but GH200) cannot be
  deployed anywhere: one offer, region ``global``, ``available=False`` (sold out), so it stays
  in the data but default answers leave it out. A plan without a ``locations`` field (not seen)
  is one ``global`` offer of unknown availability.
- vCPUs = ``cpu_threads`` (bare metal) or ``vcpu_count`` (vcg); ``ram`` is MiB; storage =
  ``disk`` (GB per disk) x ``disk_count``.

Exclusions (counted by ``parse_with_exclusions``, one count per plan unless stated):

- ``non_gpu``: a plan without ``gpu_type`` or ``gpu_brand``; ``not_deployable``: a GPU plan
  deployable neither on demand nor preemptible;
- ``unknown_gpu <gpu_type>``: a ``gpu_type`` not in ``GPU_TYPES``; ``unknown_card
  <gpu_type>``: a Cloud GPU plan of a known type whose card VRAM is not in ``CARD_VRAM_GB``;
  ``unknown_sku <id>``: a bare-metal GPU plan whose id has no readable GPU count;
- a GPU plan that cannot be read: ``no_plan_id``, ``no_gpu_type`` (a GPU brand but no type),
  ``no_gpu_vram``, ``unparsed_specs``, ``unparsed_locations`` (``locations`` not a list of ids);
- one price of a plan (the plan's other price is still emitted): ``no_on_demand_price`` /
  ``no_spot_price`` (neither its hourly nor its monthly field), ``unparsed_price`` (not a
  number). A price of zero or below is emitted as read, so that the loader rejects the scrape
  (a plan "for free" is a broken answer, not an offer to publish or to drop quietly).

``SchemaDriftError`` is kept for a structure that is gone: a body that is no plan list, no plan
with an id, a field gone from every plan of a response (``gpu_type`` beside GPU brands, the
on-demand or the preemptible price fields), no GPU offer left (the message lists the
exclusions), or the same offer twice.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.kit import (
    FetchError,
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
from scrapers.parsing import gb_from_mib

API_BASE = "https://api.vultr.com/v2"
METAL_URL = f"{API_BASE}/plans-metal"
PLANS_URL = f"{API_BASE}/plans"
PER_PAGE = 500  # the documented maximum
MAX_PAGES = 20
# (part name, url, query, envelope key) per endpoint; the name labels a skipped page.
ENDPOINTS = (
    ("plans-metal", METAL_URL, {"per_page": PER_PAGE}, "plans_metal"),
    ("plans", PLANS_URL, {"type": "all", "per_page": PER_PAGE}, "plans"),
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

# Every ``gpu_type`` this scraper knows: those of the plans-metal captures (2026-03-31/04-01)
# and the Cloud GPU types of ``CARD_VRAM_GB``. Another type is reported as unknown_gpu.
GPU_TYPES = frozenset(
    {
        "AMD_MI300X",
        "AMD_MI325X",
        "AMD_MI355X",
        "NVIDIA_A100",
        "NVIDIA_A100_SXM",
        "NVIDIA_B200",
        "NVIDIA_GH200",
        "NVIDIA_H100",
        "NVIDIA_L40S",
        *CARD_VRAM_GB,
    }
)

_METAL_GPU_ID = re.compile(r"^vbm-\d+c-\d+gb-(?:(?P<count>\d+)-)?[a-z0-9]+-gpu$")
_NO_GPU_BRAND = "none"
_log = logging.getLogger(__name__)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: every page of plans-metal and of plans?type=all, following
    ``meta.links.next`` cursors; pages that failed after the first request answered are left
    out (see ``fetch_with_skips``). Raises ``FetchError`` when the first request fails or an
    endpoint has more than ``MAX_PAGES`` pages."""
    return fetch_with_skips(client, token)[0]


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """``fetch``, plus the skipped parts: "<endpoint> page <n>" -> the one-line error.

    A failed page ends its endpoint (the next cursor is in the page that failed); the other
    endpoint is still fetched. Raises ``FetchError`` when the very first request fails, and
    ``SchemaDriftError`` when its body is not JSON.
    """
    headers = {"Authorization": f"Bearer {token}"} if token else None
    responses: list[RawResponse] = []
    skipped: dict[str, str] = {}
    for name, url, query, _ in ENDPOINTS:
        cursor: str | None = None
        for page in range(1, MAX_PAGES + 1):
            params: dict[str, Any] = dict(query)
            if cursor:
                params["cursor"] = cursor
            try:
                response = http.get(client, url, params=params, headers=headers)
                cursor = _next_cursor(response)
            except (FetchError, SchemaDriftError) as exc:
                if not responses:
                    raise
                part = f"{name} page {page}"
                skipped[part] = " ".join(str(exc).split())
                _log.warning("vultr: %s skipped, its plans are not in this scrape: %s", part, exc)
                break
            responses.append(response)
            if not cursor:
                break
        else:
            raise FetchError(f"GET {url}: more than {MAX_PAGES} pages")
    return responses, skipped


def _next_cursor(response: RawResponse) -> str | None:
    document = json_body(response)
    if not isinstance(document, dict):
        return None  # a bare list (the recorded capture) has no pagination
    links = (document.get("meta") or {}).get("links") or {}
    cursor = links.get("next") if isinstance(links, dict) else None
    return cursor if isinstance(cursor, str) and cursor else None


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers for every GPU plan in every response (metal or vcg, enveloped or bare array).

    Raises ``SchemaDriftError`` for a body that is no plan list, a field gone from every plan
    of a response, or when no GPU offer is left; a GPU plan (or one of its prices) that cannot
    be read is excluded (and counted).

    Returns the offers, and the plans (and single prices) left out, counted per reason.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    seen: set[str] = set()  # plan ids already read (a plan listed by two responses or pages)
    for response in distinct_bodies(responses):
        plans = _plans(json_body(response), response)
        _check_fields(plans, response)
        plans = [p for p in plans if not _seen(p, seen)]
        offers.extend(
            offers_from_rows(
                plans, partial(_plan_offers, response=response, excluded=excluded), excluded
            )
        )
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()) if r != "non_gpu")
        raise SchemaDriftError(f"no GPU offers found (excluded: {reasons or 'none'})")
    return ensure_unique(offers), excluded


def _plans(document: Any, response: RawResponse) -> list[Any]:
    if isinstance(document, dict):
        keys = [key for *_, key in ENDPOINTS if key in document]
        if len(keys) != 1:
            raise SchemaDriftError(f"{response.url}: no 'plans_metal' or 'plans' list")
        document = document[keys[0]]
    if not isinstance(document, list):
        raise SchemaDriftError(f"{response.url}: plans are not a list")
    if document and not any(isinstance(p, dict) and _plan_id(p) for p in document):
        raise SchemaDriftError(f"{response.url}: no plan with an id: {document[0]!r:.80}")
    return document


def _seen(plan: Any, seen: set[str]) -> bool:
    """Whether ``plan``'s id was read already (and remember it)."""
    plan_id = _plan_id(plan) if isinstance(plan, dict) else None
    if plan_id is None:
        return False
    if plan_id in seen:
        return True
    seen.add(plan_id)
    return False


def _locations(plan: dict[str, Any]) -> list[tuple[str, bool | None]]:
    """(region, available) of each offer of a plan: one per location id it can be deployed in,
    else one ``global`` offer, not available when the plan lists no location (sold out) and of
    unknown availability when it has no ``locations`` field."""
    if "locations" not in plan:
        return [("global", None)]
    locations = plan["locations"]
    if not isinstance(locations, list) or not all(
        isinstance(x, str) and x.strip() for x in locations
    ):
        raise RowExcluded("unparsed_locations")
    ids = list(dict.fromkeys(x.strip() for x in locations))
    return [(x, True) for x in ids] or [("global", False)]


def _plan_id(plan: dict[str, Any]) -> str | None:
    plan_id = plan.get("id")
    return plan_id if isinstance(plan_id, str) and plan_id else None


def _check_fields(plans: list[Any], response: RawResponse) -> None:
    """Drift when a field every plan carries is gone from all plans of the response."""
    rows = [p for p in plans if isinstance(p, dict)]
    branded = [p for p in rows if p.get("gpu_brand", _NO_GPU_BRAND) != _NO_GPU_BRAND]
    if branded and not any(p.get("gpu_type") for p in rows):
        raise SchemaDriftError(f"{response.url}: plans with a GPU brand but no gpu_type")
    fields = (
        ([p for p in rows if p.get("deploy_ondemand", True)], "hourly_cost", "monthly_cost"),
        (
            [p for p in rows if p.get("deploy_preemptible") is True],
            "hourly_cost_preemptible",
            "monthly_cost_preemptible",
        ),
    )
    for deployable, hourly, monthly in fields:
        if deployable and not any(hourly in p or monthly in p for p in deployable):
            raise SchemaDriftError(
                f"{response.url}: neither {hourly} nor {monthly} on any plan deployable so"
            )


def _gpus(plan: dict[str, Any], plan_id: str, gpu_type: str) -> tuple[Decimal, Decimal]:
    """(GPU count, VRAM GB per GPU); the count is fractional for a slice of one card."""
    total = _vram_total(plan)
    if plan_id.startswith("vbm-"):
        match = _METAL_GPU_ID.match(plan_id)
        if match is None:
            raise RowExcluded(unknown_row("sku", plan_id))  # no readable GPU count
        count = Decimal(match["count"] or 1)
        return count, total / count
    card = CARD_VRAM_GB.get(gpu_type)
    if card is None:
        raise RowExcluded(unknown_row("card", gpu_type))
    return total / card, card


def _vram_total(plan: dict[str, Any]) -> Decimal:
    try:
        total = decimal(plan["gpu_vram_gb"])
    except (KeyError, TypeError, SchemaDriftError):
        raise RowExcluded("no_gpu_vram") from None
    if total <= 0:
        raise RowExcluded("no_gpu_vram")
    return total


def _prices(
    plan: dict[str, Any], excluded: Counter[str]
) -> list[tuple[PricingModel, Decimal, PriceUnit, bool | None]]:
    """(pricing, price, unit, offered) of each price of a deployable plan; offered is False for
    the listed on-demand price of a plan deployable preemptible only (the spot price's
    reference), else None (the API has no other flag)."""
    on_demand = bool(plan.get("deploy_ondemand", True))
    preemptible = plan.get("deploy_preemptible") is True
    if not on_demand and not preemptible:
        raise RowExcluded("not_deployable")
    wanted = [
        (
            PricingModel.ON_DEMAND,
            "hourly_cost",
            "monthly_cost",
            "no_on_demand_price",
            None if on_demand else False,
        )
    ]
    if preemptible:
        wanted.append(
            (
                PricingModel.SPOT,
                "hourly_cost_preemptible",
                "monthly_cost_preemptible",
                "no_spot_price",
                None,
            )
        )
    found = []
    for pricing, hourly, monthly, missing, offered in wanted:
        try:
            found.append((pricing, *_price(plan, hourly, monthly, missing), offered))
        except RowExcluded as exc:
            if offered is not False:  # a reference price the plan does not list is no loss
                excluded[exc.reason] += 1  # this price only; the plan's other price is kept
    return found


def _price(
    plan: dict[str, Any], hourly: str, monthly: str, missing: str
) -> tuple[Decimal, PriceUnit]:
    for key, unit in ((hourly, PriceUnit.HOUR), (monthly, PriceUnit.MONTH)):
        if plan.get(key) is not None:
            try:
                # a price <= 0 is emitted as read: the loader rejects the whole scrape for it
                return decimal(plan[key]), unit
            except SchemaDriftError:
                raise RowExcluded("unparsed_price") from None
    raise RowExcluded(missing)


def _specs(plan: dict[str, Any]) -> tuple[Decimal | None, Decimal | None, Decimal | None]:
    """(vCPUs, RAM GB, storage GB), each None when the plan does not state it."""
    vcpus = plan.get("cpu_threads", plan.get("vcpu_count"))
    disk, disks = plan.get("disk"), plan.get("disk_count")
    try:
        return (
            decimal(vcpus) if vcpus is not None else None,
            gb_from_mib(plan["ram"]) if plan.get("ram") is not None else None,
            decimal(disk) * decimal(disks) if disk and disks else None,
        )
    except SchemaDriftError:
        raise RowExcluded("unparsed_specs") from None


def _plan_offers(plan: Any, response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    plan_id = _plan_id(plan) if isinstance(plan, dict) else None
    if plan_id is None:
        raise RowExcluded("no_plan_id")
    gpu_type = plan.get("gpu_type")
    if not gpu_type:
        brand = plan.get("gpu_brand", _NO_GPU_BRAND)
        raise RowExcluded("non_gpu" if brand in (_NO_GPU_BRAND, None, "") else "no_gpu_type")
    gpu_type = str(gpu_type)
    if gpu_type not in GPU_TYPES:
        raise RowExcluded(unknown_row("gpu", gpu_type))
    count, vram_per_gpu = _gpus(plan, plan_id, gpu_type)
    vcpus, ram_gb, storage_gb = _specs(plan)
    places = _locations(plan)
    return [
        Offer(
            provider="vultr",
            instance_type=plan_id,
            region=region,
            available=available,
            gpu_name=GPU_TYPE_NAMES.get(gpu_type, gpu_type),
            gpu_count=count,
            vram_gb_reported=vram_per_gpu,
            vcpus=vcpus,
            ram_gb=ram_gb,
            storage_gb=storage_gb,
            pricing=pricing,
            price=price,
            currency="USD",
            price_unit=unit,
            price_per=PricePer.INSTANCE,
            offered=offered,
            source_url=response.url,
            observed_at=response.fetched_at,
        )
        for pricing, price, unit, offered in _prices(plan, excluded)
        for region, available in places
    ]


PROVIDER = Provider(
    slug="vultr",
    name="Vultr",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="VULTR_API_KEY is optional: the plan endpoints are public.",
)
