"""Azure: GPU virtual machine prices from the public Azure Retail Prices API.

Live: ``GET https://prices.azure.com/api/retail/prices`` (no auth) with
``api-version=2023-01-01-preview``, ``meterRegion='primary'`` and an OData ``$filter`` for
Consumption prices of the GPU VM families (armSkuName containing ``Standard_NC``, ``_ND``,
``_NG`` or ``_NV``). Docs:
https://learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices

Paging: pages are followed through ``NextPageLink``, which must be an https URL on the prices
host (else ``SchemaDriftError``). The documented last page says ``"NextPageLink": null``, but
the API has also been seen sending an empty link on pages that were not the last
(https://learn.microsoft.com/en-us/answers/questions/1188465/azure-retail-prices-api-broken-paging,
2023-03: "check the returned item count ... then increment the skip counter"). So a null, empty
or missing link ends paging only on a page that is not full: a page holding exactly a page
size of items (``FULL_PAGE_SIZES``: 1000, and 100 of the older API versions) is followed by a
request for the same query with ``$skip`` = the items read so far, and paging ends at the
first page holding fewer (an exactly full last page costs one extra, empty page). Every page
must carry an ``Items`` list (drift otherwise), and ``MAX_PAGES`` caps the walk with a
``FetchError`` that says the cap was hit.

Partial fetches (``fetch_with_skips``): the first page failing fails the provider
(``FetchError``); a page after it that fails (after retries) ends the walk and is reported as
the skipped part "page <n>" (the pages after it cannot be reached without it), and the pages
before it are published.

Known layouts:

- **envelope** (the documented response): ``{"BillingCurrency", "Items": [...], "NextPageLink",
  "Count", ...}``.
- **bare items array**: the ``Items`` list alone (how the reduced capture stores it).

The price API names SKUs but not GPUs, so GPU model, GPU count, VRAM, vCPUs and RAM come from
the VM size table below (``_SERIES``), one row per series citing its Microsoft Learn page. An
in-scope row whose SKU is not in the table is excluded as ``unknown_sku <armSkuName>``, so the
table gets extended instead of the row being guessed, and the other SKUs are still published.
Sizes that the price list carries but Microsoft Learn does not document (ND H100 v5 and ND A100
v4 variants) are in the table only with the facts their series page fixes (GPU model, 8 GPUs
per VM) and ``None`` for the rest.

Row rules, applied in this order (exclusions are counted by ``parse_with_exclusions``; an
``unknown_*`` reason is counted once per SKU and region, the grain of a known row, whose
on-demand and spot items are one row):

1. ``type`` ``Reservation`` -> excluded (``reservation``): its ``retailPrice`` is the total for the
   whole 1- or 3-year term although ``unitOfMeasure`` still says "1 Hour" (see the documented
   sample response), which an ``Offer`` cannot express without converting units here. The live
   query asks for ``priceType eq 'Consumption'`` only, so these appear only in other captures.
   A row without ``type`` cannot be told from one and raises (``lacks ... type``): that is how
   another tool's processed table (region/skuName/pricePerHour rows, reservation totals possibly
   mixed in) fails instead of becoming hourly offers.
   ``DevTestConsumption`` -> excluded (``dev_test``): Dev/Test subscription rates, not retail.
   Any other ``type`` -> ``unknown_type <type>``.
2. ``serviceName`` (when sent) other than "Virtual Machines" -> ``unknown_service <name>``.
3. ``productName`` naming Windows -> excluded (``windows``): we compare Linux prices (the
   Linux products are named "... Series", "... Srs" or "... Series Linux"). Windows is spelled
   out ("NCadsH100v5 Series Windows") or abbreviated as the word "Win" ("Virtual Machines
   NCCadsv5 Srs Win", the 2025-06 processed capture): both are matched as whole words
   (``WINDOWS_PRODUCT``), so a Windows price never becomes a second on-demand price of its SKU.
4. ``productName`` containing "Dedicated Host" -> excluded (``dedicated_host``): a whole physical
   host billed per host, not a VM size.
5. ``meterName`` containing "Low Priority" -> excluded (``low_priority``): low-priority VMs are
   the legacy Azure Batch / scale-set discount that Spot replaced; mapping them to spot would
   put two different spot prices on one SKU and region.
6. The SKU must be in ``_SERIES``, else ``unknown_sku <armSkuName>``.
7. ``unitOfMeasure`` must be "1 Hour" (the price is per VM, i.e. instance, per hour), else
   ``unknown_unit <unit>``.
8. ``retailPrice`` not a number -> ``unparsed_price``; 0 or less raises (a wrong price is
   rejected, never dropped: docs/reliability.md).
9. ``meterName`` or ``skuName`` containing "Spot" -> spot; else on-demand (pay-as-you-go).

Structure still raises ``SchemaDriftError``: a body that is neither layout, an item that is not
an object or lacks one of the fields every item has (``_REQUIRED_FIELDS``), a text field that is
not text, a malformed currency code, two different prices for one SKU, region and pricing, and
no offer at all.

Currency: the item's ``currencyCode``, else the envelope's ``BillingCurrency``, else USD -- the
API's default when no ``currencyCode`` is requested (ours never is); the reduced capture dropped
both fields.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.base import UNKNOWN_ROW_PREFIX
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
    gb_from_gib,
    json_body,
    offers_from_rows,
    unknown_row,
    unknown_rows,
)

PROVIDER_SLUG = "azure"
PRICES_URL = "https://prices.azure.com/api/retail/prices"
_PRICES_HOST = httpx.URL(PRICES_URL).host
HOMEPAGE = "https://azure.microsoft.com/en-us/pricing/details/virtual-machines/linux/"
API_VERSION = "2023-01-01-preview"
TOKEN_ENV = None
# GPU VM families: NC/ND (compute), NV (visualisation), NG (AMD gaming). Filter values are
# case-sensitive since 2023-01-01-preview, hence the exact "Standard_" spelling.
GPU_SKU_PREFIXES = ("Standard_NC", "Standard_ND", "Standard_NG", "Standard_NV")
GPU_FILTER = (
    "serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and ("
    + " or ".join(f"contains(armSkuName, '{prefix}')" for prefix in GPU_SKU_PREFIXES)
    + ")"
)
QUERY_PARAMS = {
    "api-version": API_VERSION,
    # Primary meters only: the preview version otherwise also returns non-primary meter
    # regions, i.e. the same SKU and region twice.
    "meterRegion": "'primary'",
    "$filter": GPU_FILTER,
}
MAX_PAGES = 200  # pages hold up to 1000 items; the GPU slice is far below 200k items
# Items on a full page: 1000 (the current API versions), 100 (older ones). A full page whose
# NextPageLink is empty is followed by $skip (see the module docstring).
FULL_PAGE_SIZES = frozenset({100, 1000})
HOURLY_UNIT = "1 Hour"
# A Windows product name: "... Series Windows" or, abbreviated, "... Srs Win" (whole words).
WINDOWS_PRODUCT = re.compile(r"\bWin(?:dows)?\b", re.IGNORECASE)
DEFAULT_CURRENCY = "USD"
_REQUIRED_FIELDS = (
    "armSkuName",
    "armRegionName",
    "retailPrice",
    "unitOfMeasure",
    "meterName",
    "productName",
    "type",
)

_LEARN = "https://learn.microsoft.com/en-us/azure/virtual-machines/sizes/gpu-accelerated/"

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _VmSize:
    # a fraction for partitioned GPUs (NVadsA10_v5, NC A10 v4, NVads V710 v5, NVv4, NGads V620):
    # the share of one whole GPU, as other providers' shared GPUs are modelled
    gpu_count: Decimal
    vcpus: int | None  # None: size not documented (variants below)
    ram_gib: int | None  # Microsoft Learn states VM memory in GiB; None: not documented


@dataclass(frozen=True, slots=True)
class _VmSeries:
    gpu_name: str
    vram_gb_per_gpu: Decimal | None  # of one whole GPU, as the series page states it
    doc_url: str
    sizes: Mapping[str, _VmSize]


def _n(value: int | str) -> Decimal:
    return Decimal(value)


_SIXTH, _THIRD, _HALF = Decimal(1) / 6, Decimal(1) / 3, Decimal(1) / 2
_QUARTER, _EIGHTH = Decimal(1) / 4, Decimal(1) / 8

# VM size specs per series: GPUs, vCPUs, RAM (GiB) per size, GPU model and VRAM per GPU, from
# the series' Microsoft Learn page (the URL on each row). ``gpu_name`` names the exact part, as the
# series page describes it: ND A100 v4 = 8 NVLink 3.0 A100 40GB GPUs (HGX A100, SXM4), NDm A100
# v4 = the same board with 80GB A100s, NC A100 v4 = A100 80GB PCIe cards, ND H100 v5 = 8 H100
# on NVLink 4.0 (HGX H100, SXM5), NC(C)ads H100 v5 = H100 NVL 94GB PCIe cards, NCv3 = V100 PCIe
# 16GB cards, NDv2 = 8 NVLink-connected V100 32GB (SXM2).
_SERIES: dict[str, _VmSeries] = {
    "NC_A100_v4": _VmSeries(
        "NVIDIA A100 80GB PCIe",
        _n(80),
        _LEARN + "nca100v4-series",
        {
            "Standard_NC24ads_A100_v4": _VmSize(_n(1), 24, 220),
            "Standard_NC48ads_A100_v4": _VmSize(_n(2), 48, 440),
            "Standard_NC96ads_A100_v4": _VmSize(_n(4), 96, 880),
        },
    ),
    "NCads_H100_v5": _VmSeries(
        "NVIDIA H100 NVL",
        _n(94),
        _LEARN + "ncadsh100v5-series",
        {
            "Standard_NC40ads_H100_v5": _VmSize(_n(1), 40, 320),
            "Standard_NC80adis_H100_v5": _VmSize(_n(2), 80, 640),
        },
    ),
    "NCCads_H100_v5": _VmSeries(
        "NVIDIA H100 NVL",
        _n(94),
        _LEARN + "nccadsh100v5-series",
        {"Standard_NCC40ads_H100_v5": _VmSize(_n(1), 40, 320)},
    ),
    "NC_A10_v4": _VmSeries(
        # No Microsoft Learn size page for NC A10 v4 was found. Shares: 16 vCPUs per whole A10,
        # as gpuhunt's azure provider scales its VRAM (24 GB x min(1, vCPUs/16)) and as Azure's
        # resource-SKU capabilities (the generated AKS size list in microsoft/aspire,
        # AksNodeVmSizes.cs: 1, 1, 2 GPUs rounded up; 100, 200, 400 GB memory) agree.
        "NVIDIA A10",
        _n(24),
        "https://aspire.dev/reference/api/csharp/aspire.hosting.azure.kubernetes/standardncadsa10v4/",
        {
            "Standard_NC8ads_A10_v4": _VmSize(_HALF, 8, 100),
            "Standard_NC16ads_A10_v4": _VmSize(_n(1), 16, 200),
            "Standard_NC32ads_A10_v4": _VmSize(_n(2), 32, 400),
        },
    ),
    "NCasT4_v3": _VmSeries(
        "NVIDIA T4",
        _n(16),
        _LEARN + "ncast4v3-series",
        {
            "Standard_NC4as_T4_v3": _VmSize(_n(1), 4, 28),
            "Standard_NC8as_T4_v3": _VmSize(_n(1), 8, 56),
            "Standard_NC16as_T4_v3": _VmSize(_n(1), 16, 110),
            "Standard_NC64as_T4_v3": _VmSize(_n(4), 64, 440),
        },
    ),
    "NCv3": _VmSeries(
        "NVIDIA V100 PCIe 16GB",
        _n(16),
        _LEARN + "ncv3-series",
        {
            "Standard_NC6s_v3": _VmSize(_n(1), 6, 112),
            "Standard_NC12s_v3": _VmSize(_n(2), 12, 224),
            "Standard_NC24s_v3": _VmSize(_n(4), 24, 448),
            "Standard_NC24rs_v3": _VmSize(_n(4), 24, 448),
        },
    ),
    "ND_A100_v4": _VmSeries(
        "NVIDIA A100 SXM4 40GB",
        _n(40),
        _LEARN + "ndasra100v4-series",
        {"Standard_ND96asr_v4": _VmSize(_n(8), 96, 900)},
    ),
    "NDm_A100_v4": _VmSeries(
        "NVIDIA A100 SXM4 80GB",
        _n(80),
        _LEARN + "ndma100v4-series",
        {"Standard_ND96amsr_A100_v4": _VmSize(_n(8), 96, 1900)},
    ),
    "ND_H100_v5": _VmSeries(
        "NVIDIA H100 SXM 80GB",
        _n(80),
        _LEARN + "ndh100v5-series",
        {"Standard_ND96isr_H100_v5": _VmSize(_n(8), 96, 1900)},
    ),
    "ND_H100_v5 variants": _VmSeries(
        # Sizes the Retail Prices API lists under the ND H100 v5 products ("NDsr H100 v5",
        # "NDsrf H100 v5", "NDsH100v5", "NDsfH100v5") that the series page does not table (it
        # lists ND96isr only). What the page fixes for every ND H100 v5 VM: 8 H100 SXM 80GB.
        # vCPUs: the size name's number (Azure naming convention, vm-naming-conventions);
        # memory: undocumented. ARM names as spelled in public SKU tables, not guessed.
        "NVIDIA H100 SXM 80GB",
        _n(80),
        _LEARN + "ndh100v5-series",
        {
            "Standard_ND96is_H100_v5": _VmSize(_n(8), 96, None),
            "Standard_ND96isrf_H100_v5": _VmSize(_n(8), 96, None),
            "Standard_ND96is_flex_H100_v5": _VmSize(_n(8), 96, None),
            "Standard_ND96is_noIB_H100_v5": _VmSize(_n(8), 96, None),
        },
    ),
    "ND_A100_v4 variants": _VmSeries(
        # Priced under "NDasr A100 v4" beside ND96asr_v4, at the same prices in the 2025-06
        # capture; the series page tables ND96asr_v4 only (8 A100 40GB).
        "NVIDIA A100 SXM4 40GB",
        _n(40),
        _LEARN + "ndasra100v4-series",
        {"Standard_ND96asr_A100_v4": _VmSize(_n(8), 96, None)},
    ),
    "NDm_A100_v4 variants": _VmSeries(
        # Priced under "NDamsr A100 v4" beside ND96amsr_A100_v4 (same price in the 2025-06
        # capture); the series page tables ND96amsr only (8 A100 80GB).
        "NVIDIA A100 SXM4 80GB",
        _n(80),
        _LEARN + "ndma100v4-series",
        {"Standard_ND96ams_A100_v4": _VmSize(_n(8), 96, None)},
    ),
    "ND_H200_v5": _VmSeries(
        "NVIDIA H200",
        _n(141),  # 1128 GB accelerator memory over 8 GPUs
        _LEARN + "ndh200v5-series",
        {"Standard_ND96isr_H200_v5": _VmSize(_n(8), 96, 1850)},
    ),
    "ND_GB200_v6": _VmSeries(
        # 4 Blackwell GPUs per VM (two Grace CPUs, NVLink 5); the host spec gives 192 GiB per GPU
        # and the size table 192 under "Accelerator-Memory (GB)" for the 4-GPU size, i.e. per GPU
        # here (unlike H100 v5's 640 total). 128 vCPUs, 900 GiB.
        "NVIDIA GB200",
        _n(192),
        _LEARN + "nd-gb200-v6-series",
        {"Standard_ND128isr_NDR_GB200_v6": _VmSize(_n(4), 128, 900)},
    ),
    "ND_MI300X_v5": _VmSeries(
        "AMD Instinct MI300X",
        _n(192),
        _LEARN + "ndmi300xv5-series",
        {"Standard_ND96isr_MI300X_v5": _VmSize(_n(8), 96, 1850)},
    ),
    "NDv2": _VmSeries(
        "NVIDIA V100 SXM2 32GB",
        _n(32),  # 256 GB accelerator memory over 8 GPUs
        _LEARN + "ndv2-series",
        {"Standard_ND40rs_v2": _VmSize(_n(8), 40, 672)},
    ),
    "NVadsA10_v5": _VmSeries(
        "NVIDIA A10",
        _n(24),  # a 1/6 GPU gets 4 GB of it, a 1/3 GPU 8 GB, a 1/2 GPU 12 GB
        _LEARN + "nvadsa10v5-series",
        {
            "Standard_NV6ads_A10_v5": _VmSize(_SIXTH, 6, 55),
            "Standard_NV12ads_A10_v5": _VmSize(_THIRD, 12, 110),
            "Standard_NV18ads_A10_v5": _VmSize(_HALF, 18, 220),
            "Standard_NV36ads_A10_v5": _VmSize(_n(1), 36, 440),
            "Standard_NV36adms_A10_v5": _VmSize(_n(1), 36, 880),
            "Standard_NV72ads_A10_v5": _VmSize(_n(2), 72, 880),
        },
    ),
    "NVads_V710_v5": _VmSeries(
        # Accelerators tab: 1/6, 1/3, 1/2, 1, 1 GPU with 4, 8, 12, 24, 24 GB, so a whole V710
        # is 24 GB here (the page's figure, not AMD's board total). Memory: the host spec's GiB.
        "AMD Radeon PRO V710",
        _n(24),
        _LEARN + "nvadsv710-v5-series",
        {
            "Standard_NV4ads_V710_v5": _VmSize(_SIXTH, 4, 16),
            "Standard_NV8ads_V710_v5": _VmSize(_THIRD, 8, 32),
            "Standard_NV12ads_V710_v5": _VmSize(_HALF, 12, 64),
            "Standard_NV24ads_V710_v5": _VmSize(_n(1), 24, 128),
            "Standard_NV28adms_V710_v5": _VmSize(_n(1), 28, 160),
        },
    ),
    "NVv3": _VmSeries(
        "NVIDIA Tesla M60",
        _n(8),
        _LEARN + "nvv3-series",
        {
            "Standard_NV12s_v3": _VmSize(_n(1), 12, 112),
            "Standard_NV24s_v3": _VmSize(_n(2), 24, 224),
            "Standard_NV48s_v3": _VmSize(_n(4), 48, 448),
        },
    ),
    "NVv4": _VmSeries(
        "AMD Radeon Instinct MI25",
        _n(16),
        _LEARN + "nvv4-series",
        {
            "Standard_NV4as_v4": _VmSize(_EIGHTH, 4, 14),
            "Standard_NV8as_v4": _VmSize(_QUARTER, 8, 28),
            "Standard_NV16as_v4": _VmSize(_HALF, 16, 56),
            "Standard_NV32as_v4": _VmSize(_n(1), 32, 112),
        },
    ),
    "NGads_V620": _VmSeries(
        "AMD Radeon PRO V620",
        _n(32),
        _LEARN + "ngadsv620-series",
        {
            "Standard_NG8ads_V620_v1": _VmSize(_QUARTER, 8, 16),
            "Standard_NG16ads_V620_v1": _VmSize(_HALF, 16, 32),
            "Standard_NG32ads_V620_v1": _VmSize(_n(1), 32, 64),
            "Standard_NG32adms_V620_v1": _VmSize(_n(1), 32, 176),
        },
    ),
}

_SIZES: dict[str, tuple[_VmSeries, _VmSize]] = {
    sku: (series, size) for series in _SERIES.values() for sku, size in series.sizes.items()
}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET every page of GPU VM Consumption prices, following ``NextPageLink`` (or ``$skip``
    after a full page without a link) to the last page.

    No auth (``token`` is ignored). A page after the first that fails is logged and left out
    with the pages after it (see ``fetch_with_skips``). Raises ``FetchError`` when the first
    request fails or the ``MAX_PAGES`` cap is hit with a further page announced,
    ``SchemaDriftError`` when a page is not a known layout, lacks ``Items``, or links somewhere
    other than the prices API.
    """
    return fetch_with_skips(client, token)[0]


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """``fetch``, plus the page that failed after the first: "page <n>" -> its one-line error.

    Raises what ``fetch`` raises; a failed later page never raises.
    """
    responses: list[RawResponse] = []
    skipped: dict[str, str] = {}
    items_read = 0
    url: str | None = PRICES_URL
    params: dict[str, str] | None = QUERY_PARAMS
    while url is not None:
        if len(responses) == MAX_PAGES:
            raise FetchError(
                f"GET {PRICES_URL}: page cap MAX_PAGES={MAX_PAGES} hit; page {MAX_PAGES} still "
                f"links to {url}"
            )
        try:
            response = http.get(client, url, params=params)
        except FetchError as exc:
            if not responses:
                raise
            page = len(responses) + 1
            skipped[f"page {page}"] = f"{exc}; the pages after it were not fetched"
            _log.warning(
                "azure: page %d failed; publishing pages 1-%d, later pages not fetched: %s",
                page,
                page - 1,
                exc,
            )
            break
        responses.append(response)
        url, params = _next_page(response, items_read)
        items_read += _page_item_count(response)
    return responses, skipped


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers, one per Linux GPU VM size, region and on-demand/spot: price per VM per hour.

    Raises ``SchemaDriftError`` for an unknown layout, a row missing a field, two different
    prices for one SKU/region/pricing, and when all responses together yield no offer. Unknown
    SKUs, row types and units are excluded (``unknown_*``), not raised.

    Returns the offers, and how many rows each documented exclusion rule dropped.
    """
    offers: dict[tuple[str, str, PricingModel], Offer] = {}
    excluded: Counter[str] = Counter()
    unknown_seen: set[Hashable] = set()  # (reason, SKU, region) of unknown rows
    for response in responses:
        items, envelope_currency = _page_items(response)
        read = partial(_parse_item, envelope_currency=envelope_currency, response=response)
        for offer in offers_from_rows(enumerate(items), read, excluded, seen=unknown_seen):
            _add_unique(offers, offer)
    if not offers:
        unknown = ", ".join(sorted(unknown_rows(excluded))[:10])
        raise SchemaDriftError(
            "Azure retail prices: no known Linux GPU VM prices in any response"
            + (f" (unknown rows: {unknown})" if unknown else "")
        )
    return list(offers.values()), excluded


def _next_page(
    response: RawResponse, items_before: int
) -> tuple[str | None, dict[str, str] | None]:
    """The request after ``response`` (URL, query parameters), or (None, None) after the last
    page. ``items_before``: the items on the pages before this one.

    ``NextPageLink`` is a complete URL (filter and ``$skip`` included): it is followed as given.
    Without one, a full page is followed by the same query with ``$skip`` = the items read.
    """
    link = _next_page_link(response)  # validates the page first
    if link is not None:
        return link, None
    count = _page_item_count(response)
    if isinstance(json_body(response), dict) and count in FULL_PAGE_SIZES:
        return PRICES_URL, {**QUERY_PARAMS, "$skip": str(items_before + count)}
    return None, None


def _page_item_count(response: RawResponse) -> int:
    return len(_page_items(response)[0])


def _next_page_link(response: RawResponse) -> str | None:
    """The page's ``NextPageLink``; None when it is null, empty or not sent at all (the bare
    items layout has no paging)."""
    body = json_body(response)
    if isinstance(body, list):  # the bare items layout has no paging
        return None
    if not isinstance(body, dict) or not isinstance(body.get("Items"), list):
        raise SchemaDriftError(f"{response.url}: expected the retail prices envelope with Items")
    link = body.get("NextPageLink")
    if link is None:
        return None
    if not isinstance(link, str):
        raise SchemaDriftError(f"{response.url}: NextPageLink is not a URL: {link!r}")
    if not link.strip():
        return None
    next_url = httpx.URL(link.strip())
    if next_url.scheme != "https" or next_url.host != _PRICES_HOST:
        raise SchemaDriftError(f"{response.url}: NextPageLink leaves the prices API: {link!r}")
    return str(next_url)


def _page_items(response: RawResponse) -> tuple[list[Any], str | None]:
    """The page's items and the envelope's currency (None for the bare items layout)."""
    body = json_body(response)
    if isinstance(body, list):
        return body, None
    if isinstance(body, dict) and isinstance(body.get("Items"), list):
        currency = body.get("BillingCurrency")
        return body["Items"], currency if isinstance(currency, str) else None
    raise SchemaDriftError(
        f"{response.url}: neither the retail prices envelope (Items list) nor a bare items array"
    )


def _parse_item(
    numbered: tuple[int, Any], envelope_currency: str | None, response: RawResponse
) -> Offer:
    """The item's offer; ``RowExcluded`` with the reason it is excluded (see the row rules), an
    unknown row counted once per SKU and region (the API lists a price once per meter)."""
    index, item = numbered
    if not isinstance(item, dict):
        raise SchemaDriftError(f"{response.url}: item {index} is not an object")
    fields = _required(item, response, index)

    def skip(reason: str) -> RowExcluded:
        once = (reason, fields["armSkuName"], fields["armRegionName"])
        return RowExcluded(reason, once=once if reason.startswith(UNKNOWN_ROW_PREFIX) else None)

    row_type = fields["type"]
    if row_type == "Reservation":
        raise skip("reservation")
    if row_type == "DevTestConsumption":
        raise skip("dev_test")
    if row_type != "Consumption":
        raise skip(unknown_row("type", row_type))
    service = item.get("serviceName")
    if service not in (None, "Virtual Machines"):
        raise skip(unknown_row("service", str(service)))
    if WINDOWS_PRODUCT.search(fields["productName"]):
        raise skip("windows")
    if "Dedicated Host" in fields["productName"]:
        raise skip("dedicated_host")
    meter = fields["meterName"]
    if "Low Priority" in meter:
        raise skip("low_priority")
    sku = fields["armSkuName"]
    known = _SIZES.get(sku)
    if known is None:
        raise skip(unknown_row("sku", sku))  # add its series to _SERIES
    if fields["unitOfMeasure"] != HOURLY_UNIT:
        raise skip(unknown_row("unit", fields["unitOfMeasure"]))
    raw_price = fields["retailPrice"]
    if isinstance(raw_price, bool) or not isinstance(raw_price, int | float):
        raise skip("unparsed_price")
    price = decimal(raw_price)
    if not price.is_finite():  # JSON NaN / Infinity, which Python's json module accepts
        raise skip("unparsed_price")
    if price <= 0:  # rejected, not excluded: a wrong price must fail the scrape
        raise SchemaDriftError(f"{response.url}: {sku} in {fields['armRegionName']}: price {price}")
    spot = "Spot" in meter or "Spot" in str(item.get("skuName") or "")
    series, size = known
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=sku,
        region=fields["armRegionName"],
        gpu_name=series.gpu_name,
        gpu_count=size.gpu_count,
        vram_gb_reported=series.vram_gb_per_gpu,
        vcpus=None if size.vcpus is None else Decimal(size.vcpus),
        ram_gb=None if size.ram_gib is None else gb_from_gib(size.ram_gib),
        pricing=PricingModel.SPOT if spot else PricingModel.ON_DEMAND,
        price=price,
        currency=_currency(item, envelope_currency, response, index),
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        source_url=response.url,
        observed_at=response.fetched_at,
    )


def _required(item: dict[str, Any], response: RawResponse, index: int) -> dict[str, Any]:
    missing = [name for name in _REQUIRED_FIELDS if item.get(name) in (None, "")]
    if missing:
        raise SchemaDriftError(f"{response.url}: item {index} lacks {', '.join(missing)}")
    for name in _REQUIRED_FIELDS:
        if name != "retailPrice" and not isinstance(item[name], str):
            raise SchemaDriftError(f"{response.url}: item {index}: {name} is not text")
    return item


def _currency(
    item: dict[str, Any], envelope_currency: str | None, response: RawResponse, index: int
) -> str:
    currency = item.get("currencyCode") or envelope_currency or DEFAULT_CURRENCY
    if not isinstance(currency, str) or len(currency) != 3 or not currency.isupper():
        raise SchemaDriftError(f"{response.url}: item {index}: currency {currency!r}")
    return currency


def _add_unique(offers: dict[tuple[str, str, PricingModel], Offer], offer: Offer) -> None:
    """Keep one offer per SKU, region and pricing; an identical repeat (e.g. the same item on
    two pages while the index shifts) is dropped, a different price for the same key raises."""
    key = (offer.instance_type, offer.region, offer.pricing)
    seen = offers.get(key)
    if seen is None:
        offers[key] = offer
    elif _comparable(seen) != _comparable(offer):
        raise SchemaDriftError(
            f"two different {offer.pricing} prices for {offer.instance_type} in {offer.region}: "
            f"{seen.price} and {offer.price}"
        )


def _comparable(offer: Offer) -> dict[str, Any]:
    return offer.model_dump(exclude={"observed_at", "source_url"})


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Microsoft Azure",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="Linux pay-as-you-go and Spot; reservations, Windows and low-priority rows excluded.",
)
