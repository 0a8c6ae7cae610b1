"""What every RunPod layout shares: the tiers, the gpu type ids and page names this parser knows,
the price rules, MIG slices, and how one offer is built (``offer``).

Offers (all ``gpu_count`` 1, USD per GPU per hour, ``price_per`` gpu): on-demand, spot and
savings plans per tier (region ``global``, ``cloud_tier`` secure or community), and live also
per data centre (Secure Cloud) or country (Community Cloud). Names: API layouts use the gpu type
id for ``gpu_name`` ("NVIDIA H100 80GB HBM3") and "1x <id>" as ``instance_type``; web-page
layouts only carry the display name ("H100 SXM") and use it the same way, except that a display
name RunPod uses for one part only but that names several products elsewhere ("A100 PCIe")
becomes that part's gpu type id (``DISPLAY_NAME_IDS``). Identity does not follow the spelling:
every offer's ``product_key`` is "1x <gpu type id>", a page row's read from ``PAGE_NAME_IDS``,
so secure H100 SXM on-demand is one series whether the API or the page stated it.

MIG slices (gpu type ids "<GPU> MIG <n>g.<m>gb", e.g. "NVIDIA RTX PRO 6000 Blackwell Server
Edition MIG 1g.24gb") are a fraction of one GPU: ``gpu_name`` is the full GPU, ``gpu_count`` the
slice's share of its memory (24 of 96 GB -> 0.25), ``vram_gb_reported`` the full GPU's memory (so
count x VRAM is the slice's 24 GB), and the price, which is the slice's, is ``price_per``
instance. ``instance_type`` keeps the MIG profile ("1x <id>"). The full GPU's memory comes from
``MIG_FULL_GPU_MEMORY_GB``; a MIG id of another GPU, or whose memory disagrees with the item's
``memoryInGb``, is left out (``unknown_gpu``, ``mig_memory_mismatch``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from scrapers.base import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    SchemaDriftError,
    unknown_row,
)
from scrapers.parsing import RowExcluded, decimal

SLUG = "runpod"
CURRENCY = "USD"
SECURE = "secure"
COMMUNITY = "community"
GLOBAL_REGION = "global"  # a per-tier price: RunPod-wide, no data centre named
PRICING_URL = "https://www.runpod.io/pricing"  # the public pricing page (2025-09 on)

# RunPod ends spot (interruptible) Pods on 2026-09-11: every spot offer carries this end of
# service (``Offer.available_until``), so one observed on or after it, or served after it, is
# not available. Sources: RunPod's maintainer on runpod/runpodctl PR #267 (2026-04-13):
# "spot/interruptible pod support (`podRentInterruptable` GraphQL mutation) is being removed
# from the runpod api"; the date, and gpuhunt dropping RunPod spot offers in August 2026, as
# gpuprices issue 22 records them (no dated notice of RunPod's own is in our reference library:
# replace the date here when one is found).
SPOT_END_OF_SERVICE = datetime(2026, 9, 11, tzinfo=UTC)

REQUIRED_FIELDS = ("id", "displayName", "memoryInGb")
FLAG_FIELDS = {SECURE: "secureCloud", COMMUNITY: "communityCloud"}
# (field, region, pricing, reserved term in months) for items carrying the per-cloud prices.
PRICE_FIELDS: tuple[tuple[str, str, PricingModel, int | None], ...] = (
    ("securePrice", SECURE, PricingModel.ON_DEMAND, None),
    ("communityPrice", COMMUNITY, PricingModel.ON_DEMAND, None),
    ("secureSpotPrice", SECURE, PricingModel.SPOT, None),
    ("communitySpotPrice", COMMUNITY, PricingModel.SPOT, None),
    ("oneMonthPrice", SECURE, PricingModel.RESERVED, 1),
    ("threeMonthPrice", SECURE, PricingModel.RESERVED, 3),
    ("sixMonthPrice", SECURE, PricingModel.RESERVED, 6),
)


def instance_type(name: str) -> str:
    """The instance type of a one-GPU Pod of gpu type id or display name ``name``."""
    return f"1x {name}"


# Web-page display names that name several products outside RunPod -> RunPod's gpu type id for
# them, per RunPod's GPU types reference (https://docs.runpod.io/references/gpu-types: "NVIDIA A100
# 80GB PCIe | A100 PCIe | 80", "NVIDIA A100-SXM4-80GB | A100 SXM | 80"). Other display names
# ("H100 SXM", "H100 PCIe", "RTX Pro 6000") already name one part and stay as printed.
DISPLAY_NAME_IDS: dict[str, str] = {
    "A100 PCIe": "NVIDIA A100 80GB PCIe",
    "A100 SXM": "NVIDIA A100-SXM4-80GB",
}
# Memory (GB) of each GPU RunPod slices with MIG, from NVIDIA's MIG user guide, supported GPUs
# table (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html: RTX PRO
# 6000 Blackwell Server Edition, 96GB, up to 4 instances: profiles 1g.24gb, 2g.48gb, 4g.96gb).
MIG_FULL_GPU_MEMORY_GB: dict[str, Decimal] = {
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": Decimal(96),
}
_MIG_ID = re.compile(r"^(?P<gpu>\S.*?) MIG (?P<slices>\d+)g\.(?P<gb>\d+)gb$")

# The gpu type ids this parser has read: every id in the API captures in ../shared/snapshots/
# runpod (2023-09 __NEXT_DATA__, 2025-06, 2026-03/04, c2026-09), MIG slice ids aside (those are
# checked against MIG_FULL_GPU_MEMORY_GB) and the placeholder "unknown" (only zero prices).
# A priced item of any other id is left out as ``unknown_gpu <id>`` and the rest published;
# add the id here (and to the alias table) once its item has been checked.
KNOWN_GPU_TYPE_IDS = frozenset(
    {
        "AMD Instinct MI300X OAM",
        "NVIDIA A100 80GB PCIe",
        "NVIDIA A100-PCIE-40GB",
        "NVIDIA A100-SXM4-40GB",
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA A30",
        "NVIDIA A40",
        "NVIDIA B200",
        "NVIDIA B300 SXM6 AC",
        "NVIDIA GeForce RTX 3070",
        "NVIDIA GeForce RTX 3080",
        "NVIDIA GeForce RTX 3080 Ti",
        "NVIDIA GeForce RTX 3090",
        "NVIDIA GeForce RTX 3090 Ti",
        "NVIDIA GeForce RTX 4070 Ti",
        "NVIDIA GeForce RTX 4080",
        "NVIDIA GeForce RTX 4080 SUPER",
        "NVIDIA GeForce RTX 4090",
        "NVIDIA GeForce RTX 5080",
        "NVIDIA GeForce RTX 5090",
        "NVIDIA H100 80GB HBM3",
        "NVIDIA H100 NVL",
        "NVIDIA H100 PCIe",
        "NVIDIA H200",
        "NVIDIA H200 NVL",
        "NVIDIA L4",
        "NVIDIA L40",
        "NVIDIA L40S",
        "NVIDIA RTX 2000 Ada Generation",
        "NVIDIA RTX 4000 Ada Generation",
        "NVIDIA RTX 4000 SFF Ada Generation",
        "NVIDIA RTX 5000 Ada Generation",
        "NVIDIA RTX 6000 Ada Generation",
        "NVIDIA RTX A2000",
        "NVIDIA RTX A4000",
        "NVIDIA RTX A4500",
        "NVIDIA RTX A5000",
        "NVIDIA RTX A6000",
        "NVIDIA RTX PRO 4000 Blackwell",
        "NVIDIA RTX PRO 4500 Blackwell",
        "NVIDIA RTX PRO 4500 Blackwell Server Edition",
        "NVIDIA RTX PRO 5000 Blackwell",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "Tesla V100-FHHL-16GB",
        "Tesla V100-PCIE-16GB",
        "Tesla V100-SXM2-16GB",
        "Tesla V100-SXM2-32GB",
    }
)
# The display names of the web-page layouts (2025-09 rows, 2026-08 ld+json; the same 19 names
# as the 2026-02 parse of the page by another tool) -> the gpu type id the API gives the same
# product. Any other GPU row -> ``unknown_gpu``. The ids are RunPod's GPU types reference
# (https://docs.runpod.io/references/gpu-types: "GPU ID | Display Name", e.g. "NVIDIA H100 80GB
# HBM3 | H100 SXM") and agree with the displayName of each id in the 2026 API captures, where
# the page's "H200" is displayed "H200 SXM" and its "RTX Pro 6000" "RTX PRO 6000" (the Server
# Edition; the Workstation Edition is "RTX PRO 6000 WK" there, and its 2025-06 "RTX PRO 6000"
# predates both pages). ``tests/scrapers/test_runpod.py`` checks each id against the captures.
PAGE_NAME_IDS: dict[str, str] = {
    "A100 PCIe": "NVIDIA A100 80GB PCIe",
    "A100 SXM": "NVIDIA A100-SXM4-80GB",
    "A40": "NVIDIA A40",
    "B200": "NVIDIA B200",
    "B300": "NVIDIA B300 SXM6 AC",
    "H100 NVL": "NVIDIA H100 NVL",
    "H100 PCIe": "NVIDIA H100 PCIe",
    "H100 SXM": "NVIDIA H100 80GB HBM3",
    "H200": "NVIDIA H200",
    "L4": "NVIDIA L4",
    "L40": "NVIDIA L40",
    "L40S": "NVIDIA L40S",
    "RTX 3090": "NVIDIA GeForce RTX 3090",
    "RTX 4090": "NVIDIA GeForce RTX 4090",
    "RTX 5090": "NVIDIA GeForce RTX 5090",
    "RTX 6000 Ada": "NVIDIA RTX 6000 Ada Generation",
    "RTX A5000": "NVIDIA RTX A5000",
    "RTX A6000": "NVIDIA RTX A6000",
    "RTX Pro 6000": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
}
KNOWN_PAGE_NAMES = frozenset(PAGE_NAME_IDS)
# Offer identity (``Offer.product_key``): one product is one series whichever layout it was
# read from. The key is the API's instance type, "1x <gpu type id>", so the offers of the live
# source keep their ids, and a page row's offer (instance type "1x <display name>", as the page
# prints it) gets the id of the API offer of the same product, region, pricing and term.
PRODUCT_KEYS: dict[str, str] = {
    instance_type(name): instance_type(gpu_id) for name, gpu_id in PAGE_NAME_IDS.items()
}
UNPARSED_PRICE = "unparsed_price"
MISSING_PRICE = "missing_price"
MALFORMED_ITEM = "malformed_item"
MIG_MISMATCH = "mig_memory_mismatch"


def spec(value: Any) -> Decimal | None:
    """A vCPU count or GB figure of ``lowestPrice``; None for null, ``RowExcluded`` (malformed_item)
    for anything but a non-negative number."""
    if value is None:
        return None
    if not is_number(value) or value < 0:
        raise RowExcluded(MALFORMED_ITEM)
    return decimal(value)


def mig_slice(gpu_id: str, vram: Decimal | None) -> tuple[str, Decimal, Decimal] | None:
    """(full GPU name, share of one GPU, full GPU memory GB) for a MIG slice id, else None.

    The share is the slice's memory over the full GPU's (1g.24gb of 96 GB -> 0.25). ``RowExcluded``
    for a GPU missing from ``MIG_FULL_GPU_MEMORY_GB`` (``unknown_gpu <id>``) or a slice whose
    ``memoryInGb`` (``vram``) is not the memory its profile names (``mig_memory_mismatch``).
    """
    match = _MIG_ID.match(gpu_id)
    if match is None:
        return None
    full_vram = MIG_FULL_GPU_MEMORY_GB.get(match["gpu"])
    if full_vram is None:
        raise RowExcluded(unknown_row("gpu", gpu_id))
    slice_gb = Decimal(match["gb"])
    if vram is not None and vram != slice_gb:
        raise RowExcluded(MIG_MISMATCH)
    if not 0 < slice_gb <= full_vram:
        raise RowExcluded(MIG_MISMATCH)
    return match["gpu"], slice_gb / full_vram, full_vram


def flag(item: dict[str, Any], key: str) -> bool | None:
    """The item's availability flag; None when the query did not ask for it."""
    if key not in item:
        return None
    value = item[key]
    if not isinstance(value, bool):
        raise RowExcluded(MALFORMED_ITEM)
    return value


def price_or_none(value: Any, what: str) -> Decimal | None:
    """A price in USD, or None for "not offered" (null or 0).

    ``RowExcluded`` (``unparsed_price``) for a value that is not a number; ``SchemaDriftError``
    for a negative one: an impossible price is a broken answer, not one odd price, and fails the
    scrape (the last good data stays served).
    """
    if value is None:
        return None
    if not (isinstance(value, str) or is_number(value)):
        raise RowExcluded(UNPARSED_PRICE)
    try:
        price = decimal(value)
    except SchemaDriftError:
        raise RowExcluded(UNPARSED_PRICE) from None
    if price < 0:
        raise SchemaDriftError(f"{what}: negative price {price}")
    return price if price > 0 else None


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def place_rule(region: str, cloud_tier: str | None) -> tuple[str, str | None]:
    """Where an offer stored at (``region``, ``cloud_tier``) is now (``Provider.place_rule``).

    Until issue 22 the tier was stored as the region ("secure", "community"; a location's
    offer had its data centre or country as the region and no tier): those become region
    ``global`` with that tier, a data centre id (Secure Cloud) or a country code (Community
    Cloud) keeps its region and gains its tier. An offer stored with a tier is already right."""
    if cloud_tier is not None:
        return region, cloud_tier
    if region in FLAG_FIELDS:
        return GLOBAL_REGION, region
    if region == GLOBAL_REGION:
        return region, None
    return region, COMMUNITY if _COUNTRY_CODE.fullmatch(region) else SECURE


_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


def offer(
    *,
    name: str,
    tier: str,
    pricing: PricingModel,
    term: int | None,
    price: Decimal,
    vram: Decimal | None,
    source_url: str,
    observed_at: datetime,
    vcpus: Decimal | None = None,
    ram_gb: Decimal | None = None,
    gpu_name: str | None = None,
    gpu_count: Decimal = Decimal(1),
    price_per: PricePer = PricePer.GPU,
    offered: bool | None = None,
    available: bool | None = None,
    region: str = GLOBAL_REGION,
    country: str | None = None,
) -> Offer:
    """One RunPod offer; a spot one carries RunPod's end of spot Pods (``SPOT_END_OF_SERVICE``)."""
    pod = instance_type(name)
    return Offer(
        provider=SLUG,
        instance_type=pod,
        product_key=PRODUCT_KEYS.get(pod, pod),
        region=region,
        cloud_tier=tier,
        country=country,
        gpu_name=gpu_name or name,
        gpu_count=gpu_count,
        vram_gb_reported=vram,
        vcpus=vcpus,
        ram_gb=ram_gb,
        pricing=pricing,
        reserved_term_months=term,
        price=price,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=price_per,
        offered=offered,
        available=available,
        available_until=SPOT_END_OF_SERVICE if pricing is PricingModel.SPOT else None,
        source_url=source_url,
        observed_at=observed_at,
    )
