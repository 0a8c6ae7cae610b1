"""What every Lambda layout shares: the URLs offers cite, the GPUs this parser knows, the
identity of renamed products, the exclusion reasons, how cells are read (sizes, counts, prices)
and how one offer is built (``offer``).

Units: RAM and storage are printed in GiB/TiB (and once in TB) and stored as decimal GB; VRAM is
stored as printed (GB). Prices stay as printed: per GPU-hour or per instance-hour, USD.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from decimal import Decimal

from selectolax.lexbor import LexborNode

from scrapers.kit import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    RowExcluded,
    SchemaDriftError,
    decimal,
    gb_from_size,
    unknown_row,
)

SLUG = "lambda"
CURRENCY = "USD"
GLOBAL_REGION = "global"
PRICING_URL = "https://lambda.ai/pricing"
LEGACY_PRICING_URL = "https://lambdalabs.com/service/gpu-cloud"  # source_url of pre-2025 layouts
API_URL = "https://cloud.lambdalabs.com/api/v1/instance-types"

# The GPUs (plan names, as printed) of Lambda's pricing pages this parser has read: the three
# page captures in ../shared/snapshots/lambda (2023-09, 2024-11, 2026-01) and the plan names of
# the whole lambda.ai/pricing page a month later (2026-02-11_parsed_pricing_page.json, another
# tool's parse: A10, A6000, GH200, H100 PCIe, Quadro RTX 6000 in the 1x-4x tabs). A row of any
# other GPU is left out as ``unknown_gpu <plan>`` and the known rows are still published; add
# its name here once the row has been checked. "H100 SXM" is the 2023 reserved table's GPU.
KNOWN_GPUS = frozenset(
    {
        "NVIDIA A10",
        "NVIDIA A100 PCIe",
        "NVIDIA A100 SXM",
        "NVIDIA A6000",
        "NVIDIA B200 SXM6",
        "NVIDIA GH200",
        "NVIDIA H100 PCIe",
        "NVIDIA H100 SXM",
        "NVIDIA Quadro RTX 6000",
        "NVIDIA RTX A6000",
        "NVIDIA Tesla V100",
        "H100 SXM",
    }
)

# Exclusion reasons for one row of a known GPU whose cells do not parse.
UNPARSED_PRICE = "unparsed_price"
UNPARSED_SPEC = "unparsed_spec"
RESERVED_WITHOUT_TERM = "reserved_without_term"

# Offer identity (``Offer.product_key``): the instance types one product was listed under
# before Lambda renamed it -> its current instance type (the key), so its history is one series
# and the price change at the rename is a change. Each read off the captures in
# ../shared/snapshots/lambda: the 2023-09-09 page (on-demand, per instance-hour) against the
# 2024-11-03 page (per GPU-hour), which lists each renamed product and no other of its GPU,
# count and VRAM. Lambda restated specs page-wide in 2024 without renaming: 8x V100 storage
# 5.9 -> 5.8 TiB, 1x H100 PCIe RAM 200 -> 225 GiB, 1x A10 RAM 200 -> 226 GiB.
PRODUCT_KEYS: dict[str, str] = {
    # 124 vCPUs, 1800 GiB RAM, 6 TiB (2024: 5.8 TiB) on both; $8.80/h -> $1.29/GPU-h
    "8x NVIDIA A100 (40 GB)": "8x NVIDIA A100 SXM (40 GB)",
    # 240 vCPUs, 1800 GiB RAM, 20 TiB (2024: 19.5 TiB) on both; $12.00/h -> $1.79/GPU-h
    "8x NVIDIA A100 (80 GB)": "8x NVIDIA A100 SXM (80 GB)",
    # 60 vCPUs, 1 TiB; RAM 400 -> 450 GiB (the 1x PCIe rows' 200 -> 225 GiB per GPU); the 2024
    # page's only 2x A100 40 GB; $2.20/h -> $1.29/GPU-h
    "2x NVIDIA A100 (40 GB)": "2x NVIDIA A100 PCIe (40 GB)",
    # 120 vCPUs, 1 TiB; RAM 800 -> 900 GiB (as the 2x); the only 4x A100 40 GB; $4.40/h ->
    # $1.29/GPU-h
    "4x NVIDIA A100 (40 GB)": "4x NVIDIA A100 PCIe (40 GB)",
    # "1x NVIDIA A100 (40 GB)" (30 vCPUs, 200 GiB, 512 GiB) is not keyed: the 2024 page lists
    # two 1x A100 40 GB products with those vCPUs and storage, "SXM" (220 GiB) and "PCIe"
    # (225 GiB), and nothing on either page says which one the 2023 row was.
    # The RTX A6000 is the only A6000 (48 GB); vCPUs and RAM equal at each count (1x: 14 vCPUs,
    # 100 GiB, storage 200 -> 512 GiB; 2x: 28, 200 GiB, 1 TiB; 4x: 56, 400 GiB, 1 TiB);
    # $0.80/GPU-h before and after.
    "1x NVIDIA RTX A6000 (48 GB)": "1x NVIDIA A6000 (48 GB)",
    "2x NVIDIA RTX A6000 (48 GB)": "2x NVIDIA A6000 (48 GB)",
    "4x NVIDIA RTX A6000 (48 GB)": "4x NVIDIA A6000 (48 GB)",
}

Specs = tuple[Decimal, Decimal, Decimal, Decimal]  # a page row's VRAM GB, vCPUs, RAM GB, storage GB

COUNT_AND_GPU = re.compile(r"(?P<count>\d+)x\s+(?P<gpu>\S.*)")
PRICE_BARE = re.compile(r"\$(?P<num>\d+(?:\.\d+)?)")
_INTEGER = re.compile(r"\d+")
_NEGATIVE_PRICE = re.compile(r"-\s*\$|\$\s*-")


def offer(
    *,
    instance_type: str,
    gpu_name: str,
    gpu_count: int,
    vram: Decimal | None,
    vcpus: Decimal,
    ram_gb: Decimal | None,
    storage_gb: Decimal | None,
    price: Decimal,
    price_per: PricePer,
    source_url: str,
    observed_at: datetime,
    pricing: PricingModel = PricingModel.ON_DEMAND,
    term_months: int | None = None,
    region: str = GLOBAL_REGION,
    available: bool | None = None,
) -> Offer:
    """One Lambda offer: USD per hour, per GPU or per instance as ``price_per`` says."""
    return Offer(
        provider=SLUG,
        instance_type=instance_type,
        region=region,
        available=available,
        gpu_name=gpu_name,
        gpu_count=Decimal(gpu_count),
        vram_gb_reported=vram,
        vcpus=vcpus,
        ram_gb=ram_gb,
        storage_gb=storage_gb,
        pricing=pricing,
        reserved_term_months=term_months,
        price=price,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=price_per,
        source_url=source_url,
        observed_at=observed_at,
    )


def plan_offer(
    *,
    gpu: str,
    gpu_count: int,
    row_specs: Specs,
    price: Decimal,
    price_per: PricePer,
    source_url: str,
    observed_at: datetime,
    gpu_name: str | None = None,
) -> Offer:
    """The on-demand offer of a page row: ``gpu_count`` x ``gpu`` (as printed; ``gpu_name`` when
    the row leaves the part open), named by ``instance_name``, region ``global``."""
    vram, vcpus, ram_gb, storage_gb = row_specs
    return offer(
        instance_type=instance_name(gpu_count, gpu, vram),
        gpu_name=gpu_name or gpu,
        gpu_count=gpu_count,
        vram=vram,
        vcpus=vcpus,
        ram_gb=ram_gb,
        storage_gb=storage_gb,
        price=price,
        price_per=price_per,
        source_url=source_url,
        observed_at=observed_at,
    )


def instance_name(gpu_count: int, gpu: str, vram_gb: Decimal) -> str:
    """Names like ``8x NVIDIA A100 SXM (80 GB)``: one GPU name comes in two VRAM sizes."""
    return f"{gpu_count}x {gpu} ({vram_gb.normalize():f} GB)"


def headers(table: LexborNode) -> tuple[str, ...]:
    """A table's ``thead`` header cells, each ``norm``-ed."""
    return tuple(norm(th.text()) for th in table.css("thead th"))


def norm(text: str) -> str:
    """Upper case, white space folded, footnote asterisks removed: how headers are compared."""
    return " ".join(text.replace("*", "").split()).upper()


def integer(text: str) -> Decimal | None:
    return Decimal(text) if _INTEGER.fullmatch(text) else None


def size(text: str) -> Decimal | None:
    """``gb_from_size``, or None when the cell holds no size."""
    try:
        return gb_from_size(text)
    except SchemaDriftError:
        return None


def specs(vram: str, vcpus: str, ram: str, storage: str) -> Specs | None:
    """(VRAM GB, vCPUs, RAM GB, storage GB) of a row, or None when a cell does not parse."""
    values = (size(vram), integer(vcpus), size(ram), size(storage))
    if any(value is None for value in values):
        return None
    vram_gb, vcpu_count, ram_gb, storage_gb = values
    assert vram_gb is not None and vcpu_count is not None
    assert ram_gb is not None and storage_gb is not None
    return vram_gb, vcpu_count, ram_gb, storage_gb


def price(
    pattern: re.Pattern[str], text: str, row: str, excluded: Counter[str], *, unit_in_cell: bool
) -> Decimal | None:
    """The price ``pattern`` reads from a cell, or None after counting why not: a "$n" cell in
    another unit than the layout's (``unit_in_cell`` layouts) is ``unknown_unit <row>``, any
    other text ``unparsed_price``. A negative price ("$-2.99") raises ``SchemaDriftError``."""
    match = pattern.fullmatch(text)
    if match is not None:
        return decimal(match["num"])
    if _NEGATIVE_PRICE.search(text):
        # Not an odd row: an impossible price fails the scrape (last good data stays served).
        raise SchemaDriftError(f"{row}: negative price {text!r}")
    other_unit = unit_in_cell and PRICE_BARE.match(text) is not None
    excluded[unknown_row("unit", row) if other_unit else UNPARSED_PRICE] += 1
    return None


def priced_specs(
    pattern: re.Pattern[str],
    price_text: str,
    spec_cells: tuple[str, str, str, str],
    row: str,
    excluded: Counter[str],
    *,
    unit_in_cell: bool,
) -> tuple[Decimal, Specs] | None:
    """A page row's price (``price``) and its (VRAM, vCPUs, RAM, storage) cells (``specs``);
    None when ``price`` counted the price cell (the specs are then not judged),
    ``RowExcluded(UNPARSED_SPEC)`` for a priced row whose spec cells do not parse."""
    amount = price(pattern, price_text, row, excluded, unit_in_cell=unit_in_cell)
    row_specs = specs(*spec_cells)
    if amount is None:
        return None
    if row_specs is None:
        raise RowExcluded(UNPARSED_SPEC)
    return amount, row_specs
