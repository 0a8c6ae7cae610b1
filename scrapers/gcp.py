"""Google Cloud: GPU prices from the Cloud Billing Catalog API and the GPU pricing page.

Two sources, both parsed; replay answers every request with one capture, so ``parse`` tells
them apart per response by content:

- **Accelerator-optimized pricing page** (always fetched, no auth): ``GET
  https://cloud.google.com/products/compute/pricing/accelerator-optimized`` (the "View prices"
  link of the Accelerator-optimized family on https://cloud.google.com/compute/all-pricing;
  compute/gpus-pricing lists per-GPU prices only, no machine-type tables).
  Its machine-type tables ("Machine type | GPU | Components | Price (USD) | ...") give one
  offer per accelerator-optimized machine type (``a3-highgpu-8g``, ``g2-standard-4``) and
  pricing column, priced per instance per hour. The tables show one region at a time: the
  page's region selector defaults to Iowa (us-central1). No region is printed in the table
  markup, so ``PAGE_REGION`` is a constant. Cross-check: a2-highgpu-1g at $3.673385 = the
  A100 "running in Americas" SKU ($2.933908, 2025-06 capture) + the A2 12 vCPU / 85 GiB
  us-central1 rate ($0.739477); in us-east4 the A100 alone costs $3.101559926.
- **Cloud Billing Catalog API** (only when ``GCP_API_KEY`` is set):
  ``GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?pageSize=5000``
  with the key in the ``X-Goog-Api-Key`` header (never in the URL, which is archived;
  https://cloud.google.com/docs/authentication/api-keys-use),
  following ``nextPageToken`` (as ``pageToken``) with a hard page cap. Docs:
  https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list . Every GPU SKU
  is a price per GPU per hour: one offer per GPU model, location and pricing model.

Known layouts: the HTML page; an API page ``{"skus": [...], "nextPageToken": "..."}``; and a
bare JSON array of SKU objects (how the reduced 2025-06 capture stores all pages, each SKU cut
to skuId/description/pricingInfo).

SKU rules, applied in this order (exclusions counted by ``parse_with_exclusions``; an
``unknown_*`` reason names what is new and is counted once per GPU and location, the grain of a
known row, whatever the number of SKUs (pricing models) behind it):

1. description without "GPU" -> ``non_gpu`` (the live API lists every Compute Engine SKU).
2. "Licensing Fee for ... (GPU cost)" -> ``license``: an OS/software fee per GPU, not a rental.
3. The description must match ``_SKU`` ("[Commitment v1: |Reserved ]<GPU> GPU [attached to
   <kind> VMs] [running ]in <location>[ for N Year(s)][ in Calendar Mode]"), else
   ``unknown_sku <description>``; so must the commitment wording ("Commitment v1:" with a term
   in years, on no VM kind).
4. "... in Calendar Mode" -> ``dws_calendar``; "attached to DWS Defined Duration VMs" ->
   ``dws_flex_start``: Dynamic Workload Scheduler capacity for fixed durations (days, not 12
   or 36 months), which none of on-demand/spot/reserved describes.
5. A usage unit other than "h" -> ``unknown_unit <unit>``; a price that does not read (not one
   tiered rate, units/nanos not integers) -> ``unparsed_price``; a negative price raises (a
   wrong price is rejected, never dropped: docs/reliability.md).
6. "Reserved <GPU> in <location>" (not calendar mode) -> ``reservation_placeholder`` when the
   price is 0: reserved capacity is billed through the on-demand/commitment SKUs. A non-zero
   price -> ``unknown_reservation <description>`` (a meaning we do not know).
7. "attached to Spot Preemptible VMs" -> spot; "Commitment v1: ... for 1/3 Year(s)" ->
   reserved 12/36 months; plain -> on-demand. Any other attachment kind ->
   ``unknown_vm_kind <kind>``.
8. Price 0 -> ``zero_price``: GCP keeps $0 SKUs for GPUs a location does not offer (V100 in
   Jakarta, Warsaw, Seoul, ...).
9. A location that is neither in ``LOCATION_REGIONS`` nor a known multi-region or unlisted
   location (only asked when the SKU has no ``serviceRegions``) -> ``unknown_region <location>``.

Money: ``unitPrice`` is ``units`` (int64 as a string) + ``nanos`` / 1e9, taken exactly as a
Decimal (proto3 JSON omits zero fields, so a missing one is 0).

Region: the SKU's ``serviceRegions`` (one offer per region) when present. The reduced capture
dropped them, so the region then comes from the description's location via
``LOCATION_REGIONS``; multi-region SKU groups ("Americas", "EMEA", "APAC", "Japan") and
locations with no public region id ("Phoenix", "Alabama", ...) keep the location, slugged
(``americas``, ``phoenix``).

A page that yields no machine-type price is drift when it is the only source; when the SKU
list answered with GPU prices it is counted (``page_without_prices``) and logged as a warning,
and the SKU offers are published.

Partial fetches (``fetch_with_skips``): with a key, a pricing page that cannot be fetched while
the SKU list answers is the skipped part "pricing page"; a SKU page after the first that fails
ends the SKU walk and is the skipped part "SKU page <n>" (the pages after it need its
``nextPageToken``). What was fetched is published; both are logged as warnings. The first SKU
page failing, or the page failing without a key, fails the provider (``FetchError``).

Page rules: series heading rows ("A3 High") are skipped; DWS Flex-start, DWS Calendar Mode and
Compute Flexible CUD columns are not emitted (``page_dws`` / ``page_flex_cud`` count their
prices): flexible CUDs are spend-based and would give a second 12/36-month reserved price for
the same machine type. A spot cell that names the machine's spot variant instead of a price
("g2-standard-24-spot", a page typo) is counted as ``page_spot_cell_without_price``. The page
names GPUs in free text (no GPU table here: a new series with a new GPU is published, and the
alias table downstream flags a GPU name it does not resolve). Row rules: a machine type not
shaped like ``a3-highgpu-8g`` -> ``unknown_machine_type <name>``; a GPU cell that contradicts
``MACHINE_SERIES_GPU`` -> ``unknown_gpu <cell>`` (an empty one: ``unparsed_gpu``); a row whose
Components cell lacks GPUs, vCPUs or memory -> ``unparsed_components``; a price cell that is
not a price per hour -> ``unparsed_price`` (that price only; the row's other prices are kept),
but a negative price raises.

Structure still raises ``SchemaDriftError``: a response that is neither layout, a SKU without a
description or ``pricingInfo`` / ``pricingExpression`` / ``unitPrice.currencyCode``, malformed
``serviceRegions``, a machine-type table without its required or with an unknown column, a row
with another number of cells than the header, duplicate offers, and no offer at all.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Hashable, Sequence
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
    distinct_bodies,
    ensure_unique,
    gb_from_gib,
    html_body,
    json_body,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
    unknown_rows,
)

PROVIDER_SLUG = "gcp"
HOMEPAGE = "https://cloud.google.com/compute/gpus-pricing"
PRICING_PAGE_URL = "https://cloud.google.com/products/compute/pricing/accelerator-optimized"
COMPUTE_ENGINE_SERVICE = "6F81-5844-456A"
SKUS_URL = f"https://cloudbilling.googleapis.com/v1/services/{COMPUTE_ENGINE_SERVICE}/skus"
SKU_PAGE_SIZE = 5000  # the API's maximum and default page size
MAX_SKU_PAGES = 40  # Compute Engine has tens of thousands of SKUs: ~10 pages at 5000
TOKEN_ENV = "GCP_API_KEY"
API_KEY_HEADER = "X-Goog-Api-Key"
PAGE_REGION = "us-central1"  # the pricing page's default region selection (Iowa)
PAGE_CURRENCY = "USD"

# Location names as SKU descriptions spell them -> region ids. Sources: region/location table
# https://cloud.google.com/compute/docs/regions-zones and the "Location (region)" list of
# https://cloud.google.com/spot-vms/pricing . Only single-region locations belong here.
LOCATION_REGIONS: dict[str, str] = {
    "Belgium": "europe-west1",
    "Berlin": "europe-west10",
    "Columbus": "us-east5",
    "Dallas": "us-south1",
    "Dammam": "me-central2",
    "Delhi": "asia-south2",
    "Doha": "me-central1",
    "Finland": "europe-north1",
    "Frankfurt": "europe-west3",
    "Hong Kong": "asia-east2",
    "Iowa": "us-central1",
    "Israel": "me-west1",
    "Jakarta": "asia-southeast2",
    "Johannesburg": "africa-south1",
    "Las Vegas": "us-west4",
    "London": "europe-west2",
    "Los Angeles": "us-west2",
    "Madrid": "europe-southwest1",
    "Melbourne": "australia-southeast2",
    "Mexico": "northamerica-south1",
    "Milan": "europe-west8",
    "Montreal": "northamerica-northeast1",
    "Mumbai": "asia-south1",
    "Netherlands": "europe-west4",
    "Northern Virginia": "us-east4",
    "Oregon": "us-west1",
    "Osaka": "asia-northeast2",
    "Paris": "europe-west9",
    "Salt Lake City": "us-west3",
    "Santiago": "southamerica-west1",
    "Sao Paulo": "southamerica-east1",
    "Seoul": "asia-northeast3",
    "Singapore": "asia-southeast1",
    "South Carolina": "us-east1",
    "Stockholm": "europe-north2",
    "Sydney": "australia-southeast1",
    "Taiwan": "asia-east1",
    "Tokyo": "asia-northeast1",
    "Toronto": "northamerica-northeast2",
    "Turin": "europe-west12",
    "Virginia": "us-east4",  # older SKUs say "Virginia" for Ashburn, Northern Virginia
    "Warsaw": "europe-central2",
    "Zurich": "europe-west6",
}
# SKU groups priced once for several regions; which ones only serviceRegions says.
MULTI_REGION_LOCATIONS = frozenset({"Americas", "APAC", "EMEA", "Japan"})
# Billing locations with no public region id in the docs above: kept as named, never guessed.
UNLISTED_LOCATIONS = frozenset(
    {"Alabama", "Frankfurt West", "Galaxy Frankfurt", "Phoenix", "TelAviv"}
)

_SKU = re.compile(
    r"^(?P<commitment>Commitment v1: )?(?P<reserved>Reserved )?(?P<gpu>\S.*?) GPU"
    r"(?: attached to (?P<attached>.+?) VMs)?"
    r" (?:running )?in (?P<location>.+?)"
    r"(?: for (?P<years>\d+) Years?)?"
    r"(?P<calendar> in Calendar Mode)?$"
)
_LICENSE_PREFIX = "Licensing Fee for "
_SPOT_ATTACHMENT = "Spot Preemptible"
_DWS_FLEX_ATTACHMENT = "DWS Defined Duration"
_VRAM_IN_NAME = re.compile(r"\b(\d+)GB\b")

_log = logging.getLogger(__name__)

# Pricing page: column headings (prefix match) -> what the column holds.
_PAGE_REQUIRED_COLUMNS = ("Machine type", "GPU", "Components")
_PAGE_PRICE_COLUMNS: dict[str, tuple[PricingModel, int | None]] = {
    "Price (USD)": (PricingModel.ON_DEMAND, None),
    "Current Spot pricing (USD)": (PricingModel.SPOT, None),
    "Compute Resource CUDs - 1 Year (USD)": (PricingModel.RESERVED, 12),
    "Compute Resource CUDs - 3 Year (USD)": (PricingModel.RESERVED, 36),
}
_PAGE_SKIPPED_COLUMNS: dict[str, str] = {
    "DWS Flex-start price": "page_dws",
    "DWS Calendar Mode price": "page_dws",
    "Compute Flexible CUD - 1 Year": "page_flex_cud",
    "Compute Flexible CUD - 3 Year": "page_flex_cud",
}
_MACHINE_TYPE = re.compile(r"^(?P<series>[a-z][a-z0-9]*-[a-z]+)-\d+g?$")
# a sign before or after the "$" is read, so that a negative price is rejected, not dropped
_PAGE_PRICE = re.compile(
    r"^(?P<sign>-?)\$\s*(?P<sign2>-?)\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*/\s*1 hour$"
)
_GPUS = re.compile(r"GPUs:\s*(?P<num>\d+)(?:\s*/\s*(?P<den>\d+))?")
_VCPUS = re.compile(r"vCPUs:\s*(?P<num>\d+)")
_MEMORY = re.compile(r"Memory:\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>GiB|GB)\b")
_SSD = re.compile(r"SSD:\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>GiB|GB)\b")
# GPU memory per GPU by machine series, from https://cloud.google.com/compute/docs/gpus
# (the page's GPU cell says only "Nvidia A100", which is 80 GB on A2 Ultra and 40 GB on A2).
MACHINE_SERIES_VRAM_GB: dict[str, Decimal] = {
    "a4-highgpu": Decimal(180),  # NVIDIA B200
    "a3-ultragpu": Decimal(141),  # NVIDIA H200
    "a3-megagpu": Decimal(80),  # NVIDIA H100
    "a3-highgpu": Decimal(80),  # NVIDIA H100
    "a3-edgegpu": Decimal(80),  # NVIDIA H100
    "a2-ultragpu": Decimal(80),  # NVIDIA A100 80GB
    "a2-highgpu": Decimal(40),  # NVIDIA A100 40GB
    "a2-megagpu": Decimal(40),  # NVIDIA A100 40GB
    "g4-standard": Decimal(96),  # NVIDIA RTX PRO 6000
    "g2-standard": Decimal(24),  # NVIDIA L4
}
# The exact part behind a generic GPU name, where the machine series fixes it. Source: the GPU
# machine types table of https://cloud.google.com/compute/docs/gpus (A3 High and A3 Edge: NVIDIA
# H100 SXM, nvidia-h100-80gb; A3 Mega: NVIDIA H100 SXM, nvidia-h100-mega-80gb; A2 Ultra: A100
# 80GB; A2 Standard: A100 40GB, nvidia-tesla-a100). A2 GPUs are on an NVLink full mesh at 600 GB/s
# (up to 16 per VM), i.e. NVSwitch baseboards of SXM4 modules. The page's GPU cell says only
# "Nvidia A100" / "Nvidia H100"; a cell naming another model for one of these series is drift.
MACHINE_SERIES_GPU: dict[str, str] = {
    "a2-highgpu": "NVIDIA A100 SXM4 40GB",
    "a2-megagpu": "NVIDIA A100 SXM4 40GB",
    "a2-ultragpu": "NVIDIA A100 SXM4 80GB",
    "a3-highgpu": "NVIDIA H100 SXM 80GB",
    "a3-megagpu": "NVIDIA H100 SXM 80GB",
    "a3-edgegpu": "NVIDIA H100 SXM 80GB",
}
# The exact part behind a billing SKU's generic GPU name (the SKU's own name stays in
# ``instance_type``). H100 SKUs bill only A3 machines ("To run NVIDIA H100 80GB GPUs, you must
# use an A3 accelerator-optimized machine type", https://cloud.google.com/compute/docs/gpus), and
# every A3 H100 is the SXM part (table above); "Plus" SKUs name no other GPU model there. The
# other SKU names ("Nvidia Tesla A100", "Nvidia H100 80GB Mega", ...) resolve through the alias
# table.
SKU_GPU_NAMES: dict[str, str] = {
    "Nvidia H100 80GB": "NVIDIA H100 SXM 80GB",
    "Nvidia H100 80GB Plus": "NVIDIA H100 SXM 80GB",
}


PAGE_PART = "pricing page"  # the skipped-part name of the accelerator-optimized page


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the accelerator-optimized pricing page and, when ``token`` (an API key) is set,
    every SKU page.

    Without a key only the page is fetched (the page alone is a complete scrape for one
    region), so a missing key never fails the provider. The key travels in the
    ``X-Goog-Api-Key`` header, never in the URL. With a key, a page that cannot be fetched, and
    a SKU page after the first that fails, are logged and left out (see ``fetch_with_skips``).
    Raises ``FetchError`` when the page fails without a key, when the first SKU request fails,
    or when ``MAX_SKU_PAGES`` pages still end in a page token.
    """
    return fetch_with_skips(client, token)[0]


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """``fetch``, plus the parts that failed alone: "pricing page" and "SKU page <n>" -> the
    one-line error. Raises what ``fetch`` raises; a skipped part never raises."""
    skipped: dict[str, str] = {}
    try:
        responses = [http.get(client, PRICING_PAGE_URL)]
    except FetchError as exc:
        if not token:
            raise
        page_error: FetchError | None = exc
        responses = []
    else:
        page_error = None
    if not token:
        return responses, skipped
    try:
        sku_pages = _fetch_sku_pages(client, token, skipped)
    except FetchError as exc:
        if page_error is None:
            raise
        raise FetchError(f"{exc}; the pricing page failed too: {page_error}") from None
    if page_error is not None:  # reported only once the SKU list has answered
        skipped[PAGE_PART] = str(page_error)
        _log.warning("gcp: pricing page skipped, SKU prices only: %s", page_error)
    return responses + sku_pages, skipped


def _fetch_sku_pages(
    client: httpx.Client, token: str, skipped: dict[str, str]
) -> list[RawResponse]:
    """Every SKU page; a page after the first that fails ends the walk and goes to ``skipped``."""
    headers = {API_KEY_HEADER: token}
    responses: list[RawResponse] = []
    page_token: str | None = None
    for number in range(1, MAX_SKU_PAGES + 1):
        params: dict[str, str | int] = {"pageSize": SKU_PAGE_SIZE}
        if page_token:
            params["pageToken"] = page_token
        try:
            response = http.get(client, SKUS_URL, params=params, headers=headers)
        except FetchError as exc:
            if number == 1:
                raise
            skipped[f"SKU page {number}"] = f"{exc}; the SKU pages after it were not fetched"
            _log.warning(
                "gcp: SKU page %d failed; publishing SKU pages 1-%d, later ones not fetched: %s",
                number,
                number - 1,
                exc,
            )
            return responses
        responses.append(response)
        page_token = _next_page_token(response)
        if not page_token:
            return responses
    raise FetchError(f"GET {SKUS_URL}: still a nextPageToken after {MAX_SKU_PAGES} pages")


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from the pricing page (USD per machine per hour, us-central1) and the SKU list
    (USD per GPU per hour, per location): on-demand, spot and 1/3-year commitments.

    Raises ``SchemaDriftError`` for a response that is neither layout, a SKU or table that
    lacks what every one has, an unknown column, duplicate offers, and when the page or the
    SKU responses together yield no offer. Unknown SKUs, locations, machine types and GPU cells
    are excluded (``unknown_*``, see the module docstring), not raised.

    Returns the offers, and how many SKUs / price cells each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    sku_offers: list[Offer] = []
    sku_responses = 0
    empty_pages: list[str] = []
    unknown_seen: set[Hashable] = set()
    for response in distinct_bodies(responses):
        if response.body.lstrip()[:1] == b"<":
            found = _parse_pricing_page(response, excluded)
            if not found:
                empty_pages.append(response.url)
            offers.extend(found)
        else:
            sku_responses += 1
            sku_offers.extend(
                offers_from_rows(
                    enumerate(_skus(response)),
                    partial(_parse_sku, response=response),
                    excluded,
                    seen=unknown_seen,
                )
            )
    unknown = ", ".join(sorted(unknown_rows(excluded))[:10])
    detail = f" (unknown rows: {unknown})" if unknown else ""
    # One API page may hold no GPU SKU at all; the SKU list as a whole must.
    if sku_responses and not sku_offers:
        raise SchemaDriftError(
            f"Cloud Billing SKUs: no known priced GPU SKU in any response{detail}"
        )
    if empty_pages:
        if not sku_offers:
            raise SchemaDriftError(
                f"{empty_pages[0]}: no machine-type prices on the GPU page{detail}"
            )
        excluded["page_without_prices"] += len(empty_pages)
        _log.warning(
            "gcp: no machine-type prices on %s; publishing the SKU prices only", empty_pages[0]
        )
    offers.extend(sku_offers)
    return ensure_unique(offers), excluded


# --- fetch helpers ------------------------------------------------------------------------


def _next_page_token(response: RawResponse) -> str | None:
    """The page's ``nextPageToken``; None when absent, empty or the body is not an API page
    (in replay the HTML capture answers the API request too: parse reports that, not fetch)."""
    try:
        body = json_body(response)
    except SchemaDriftError:
        return None
    token = body.get("nextPageToken") if isinstance(body, dict) else None
    return token if isinstance(token, str) and token else None


# --- SKU list -----------------------------------------------------------------------------


def _skus(response: RawResponse) -> list[Any]:
    body = json_body(response)
    if isinstance(body, list):
        return body
    if isinstance(body, dict):
        if isinstance(body.get("skus"), list):
            return body["skus"]
        if set(body) <= {"nextPageToken"}:  # proto3 JSON drops an empty "skus" list
            return []
    raise SchemaDriftError(
        f"{response.url}: neither the GPU pricing page, a Cloud Billing SKU page "
        "({'skus': [...]}) nor a SKU array"
    )


def _parse_sku(numbered: tuple[int, Any], response: RawResponse) -> list[Offer]:
    index, sku = numbered
    if not isinstance(sku, dict) or not isinstance(sku.get("description"), str):
        raise SchemaDriftError(f"{response.url}: SKU {index} has no description")
    description: str = sku["description"]

    def skip(reason: str, *row: str) -> RowExcluded:
        """The SKU left out; an ``unknown_*`` reason is counted once per row it stands for."""
        once = (reason, *(row or (description,)))
        return RowExcluded(reason, once=once if reason.startswith(UNKNOWN_ROW_PREFIX) else None)

    if "GPU" not in description:
        raise skip("non_gpu")
    if description.startswith(_LICENSE_PREFIX):
        raise skip("license")
    match = _SKU.match(description)
    if match is None:
        raise skip(unknown_row("sku", description))
    row = (match["gpu"], match["location"])
    if match["calendar"]:
        raise skip("dws_calendar")
    attached = match["attached"]
    if attached == _DWS_FLEX_ATTACHMENT:
        raise skip("dws_flex_start")
    read = _sku_price(sku, description)
    if isinstance(read, str):
        raise skip(read, *row)
    price, currency = read
    if match["reserved"]:
        if price != 0:
            raise skip(unknown_row("reservation", description))
        raise skip("reservation_placeholder")
    if attached not in (None, _SPOT_ATTACHMENT):
        raise skip(unknown_row("vm_kind", attached), *row)
    if bool(match["commitment"]) != bool(match["years"]) or (match["commitment"] and attached):
        raise skip(unknown_row("sku", description))
    if price == 0:
        raise skip("zero_price")
    regions = _sku_regions(sku, match["location"])
    if regions is None:
        raise skip(unknown_row("region", match["location"]), *row)

    term: int | None = None
    if match["commitment"]:
        pricing, term = PricingModel.RESERVED, int(match["years"]) * 12
    elif attached == _SPOT_ATTACHMENT:
        pricing = PricingModel.SPOT
    else:
        pricing = PricingModel.ON_DEMAND
    sku_gpu = match["gpu"]
    vram = _VRAM_IN_NAME.search(sku_gpu)
    return [
        Offer(
            provider=PROVIDER_SLUG,
            instance_type=f"{sku_gpu} GPU",
            region=region,
            gpu_name=SKU_GPU_NAMES.get(sku_gpu, sku_gpu),
            gpu_count=Decimal(1),
            vram_gb_reported=Decimal(vram[1]) if vram else None,
            pricing=pricing,
            reserved_term_months=term,
            price=price,
            currency=currency,
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.GPU,
            source_url=SKUS_URL,
            observed_at=response.fetched_at,
        )
        for region in regions
    ]


def _sku_price(sku: dict[str, Any], description: str) -> tuple[Decimal, str] | str:
    """The SKU's current list price per hour: (units + nanos/1e9, currency); or the exclusion
    reason of a price this parser cannot read (an unknown usage unit, a tiered or malformed
    rate, a negative price)."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not isinstance(infos[-1], dict):
        raise SchemaDriftError(f"SKU {description!r}: no pricingInfo")
    expression = infos[-1].get("pricingExpression")  # the timeline is chronological
    if not isinstance(expression, dict):
        raise SchemaDriftError(f"SKU {description!r}: no pricingExpression")
    unit = expression.get("usageUnit")
    if unit != "h":
        return unknown_row("unit", str(unit))
    tiers = expression.get("tieredRates")
    if not isinstance(tiers, list) or len(tiers) != 1 or not isinstance(tiers[0], dict):
        return "unparsed_price"  # not exactly one tiered rate
    unit_price = tiers[0].get("unitPrice")
    if not isinstance(unit_price, dict) or not isinstance(unit_price.get("currencyCode"), str):
        raise SchemaDriftError(f"SKU {description!r}: no unitPrice.currencyCode")
    units, nanos = unit_price.get("units", "0"), unit_price.get("nanos", 0)
    if not isinstance(units, str | int) or not isinstance(nanos, int) or isinstance(nanos, bool):
        return "unparsed_price"
    try:
        price = Decimal(int(units)) + Decimal(nanos) / Decimal(10**9)
    except ValueError:
        return "unparsed_price"
    if price < 0:  # rejected, not excluded: a wrong price must fail the scrape
        raise SchemaDriftError(f"SKU {description!r}: negative price {price}")
    return price, unit_price["currencyCode"]


def _sku_regions(sku: dict[str, Any], location: str) -> list[str] | None:
    """The SKU's regions; None for a location this parser does not know."""
    regions = sku.get("serviceRegions")
    if regions is not None:
        if (
            not isinstance(regions, list)
            or not regions
            or not all(isinstance(r, str) and r for r in regions)
        ):
            raise SchemaDriftError(f"SKU {sku.get('skuId')!r}: serviceRegions {regions!r}")
        return regions
    if location in LOCATION_REGIONS:
        return [LOCATION_REGIONS[location]]
    if location in MULTI_REGION_LOCATIONS or location in UNLISTED_LOCATIONS:
        return [location.lower().replace(" ", "-")]
    return None


# --- pricing page -------------------------------------------------------------------------


def _parse_pricing_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tree = html_body(response)
    offers: list[Offer] = []
    for table in tree.css("table"):
        rows = table.css("tr")
        if not rows:
            continue
        header = [node_text(cell) for cell in rows[0].css("th, td")]
        if not header or header[0] != "Machine type":
            continue
        columns = _page_columns(header, response)
        for row in rows[1:]:
            cells = [node_text(cell) for cell in row.css("td, th")]
            offers.extend(_parse_page_row(cells, columns, response, excluded))
    return offers


@dataclass(frozen=True, slots=True)
class _Columns:
    fixed: dict[str, int]  # required heading -> index
    prices: dict[int, tuple[PricingModel, int | None]]  # index -> pricing, term
    skipped: dict[int, str]  # index -> exclusion rule
    width: int


def _page_columns(header: list[str], response: RawResponse) -> _Columns:
    """Column index of each required heading, and the kind of every other column."""
    fixed = {name: header.index(name) for name in _PAGE_REQUIRED_COLUMNS if name in header}
    missing = [name for name in _PAGE_REQUIRED_COLUMNS if name not in fixed]
    if missing:
        raise SchemaDriftError(f"{response.url}: machine-type table without column(s) {missing}")
    prices: dict[int, tuple[PricingModel, int | None]] = {}
    skipped: dict[int, str] = {}
    for index, heading in enumerate(header):
        if index in fixed.values():
            continue
        price_kind = next(
            (v for k, v in _PAGE_PRICE_COLUMNS.items() if heading.startswith(k)), None
        )
        skip_rule = next(
            (v for k, v in _PAGE_SKIPPED_COLUMNS.items() if heading.startswith(k)), None
        )
        if price_kind is not None:
            prices[index] = price_kind
        elif skip_rule is not None:
            skipped[index] = skip_rule
        else:
            raise SchemaDriftError(f"{response.url}: unknown pricing column {heading!r}")
    if PricingModel.ON_DEMAND not in {kind for kind, _ in prices.values()}:
        raise SchemaDriftError(f"{response.url}: machine-type table without an on-demand column")
    return _Columns(fixed, prices, skipped, len(header))


def _parse_page_row(
    cells: list[str], columns: _Columns, response: RawResponse, excluded: Counter[str]
) -> list[Offer]:
    if len(cells) != columns.width:
        raise SchemaDriftError(f"{response.url}: row {cells[:1]} has {len(cells)} cells")
    if all(cell in ("", "-") for cell in cells[1:]):
        return []  # a series heading such as "A3 High"
    fixed = columns.fixed
    machine_type = cells[fixed["Machine type"]]
    series = _MACHINE_TYPE.match(machine_type)
    if series is None:
        excluded[unknown_row("machine_type", machine_type)] += 1
        return []
    gpu_cell = cells[fixed["GPU"]]
    gpu_name = _page_gpu_name(gpu_cell, series["series"])
    if gpu_name is None:
        excluded[unknown_row("gpu", gpu_cell) if gpu_cell else "unparsed_gpu"] += 1
        return []
    specs = _components(cells[fixed["Components"]])
    if specs is None:
        excluded["unparsed_components"] += 1
        return []

    for index, rule in columns.skipped.items():
        if "$" in cells[index]:  # a price we do not emit (DWS, flexible CUD)
            excluded[rule] += 1
    offers = []
    for index, (pricing, term) in columns.prices.items():
        price = _page_price(cells[index], machine_type, pricing, excluded)
        if price is None:
            continue
        offers.append(
            Offer(
                provider=PROVIDER_SLUG,
                instance_type=machine_type,
                region=PAGE_REGION,
                gpu_name=gpu_name,
                vram_gb_reported=MACHINE_SERIES_VRAM_GB.get(series["series"]),
                pricing=pricing,
                reserved_term_months=term,
                price=price,
                currency=PAGE_CURRENCY,
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.INSTANCE,
                gpu_count=specs.gpu_count,
                vcpus=specs.vcpus,
                ram_gb=specs.ram_gb,
                storage_gb=specs.storage_gb,
                source_url=PRICING_PAGE_URL,
                observed_at=response.fetched_at,
            )
        )
    return offers


def _page_gpu_name(cell: str, series: str) -> str | None:
    """The GPU cell, or the exact part from ``MACHINE_SERIES_GPU`` when the series fixes it.

    None for an empty cell, or when the cell names a different GPU model than the series table
    expects (its last word, "A100"/"H100", must be in the exact name).
    """
    if not cell:
        return None
    exact = MACHINE_SERIES_GPU.get(series)
    if exact is None:
        return cell
    if cell.split()[-1].upper() not in exact.split():
        return None
    return exact


def _page_price(
    text: str, machine_type: str, pricing: PricingModel, excluded: Counter[str]
) -> Decimal | None:
    """The cell's USD per hour; None for a not-offered cell ("N/A", "-", empty) and for a cell
    that is not a price (counted). Raises ``SchemaDriftError`` for a negative price."""
    if text in ("", "-") or no_price_marker(text) == "n/a":
        return None
    match = _PAGE_PRICE.match(text)
    if match is not None:
        if match["sign"] or match["sign2"]:  # rejected, not excluded: a wrong price fails
            raise SchemaDriftError(f"{machine_type}: {pricing} price {text!r} is negative")
        return Decimal(match["num"].replace(",", ""))
    if pricing is PricingModel.SPOT and text == f"{machine_type}-spot":
        excluded["page_spot_cell_without_price"] += 1
        return None
    excluded["unparsed_price"] += 1
    return None


@dataclass(frozen=True, slots=True)
class _Components:
    gpu_count: Decimal
    vcpus: Decimal
    ram_gb: Decimal
    storage_gb: Decimal | None


def _components(text: str) -> _Components | None:
    """GPU count (fractional for G4 shares), vCPUs, RAM and local SSD from the Components cell;
    None when it lacks GPUs, vCPUs or memory.

    The page states memory in "GB" and "GiB" alike; both are binary ("machine type memory [is]
    calculated in JEDEC binary gigabytes (GB), or IEC gibibytes (GiB)",
    https://cloud.google.com/compute/vm-instance-pricing), so both convert as GiB.
    """
    gpus, vcpus, memory = _GPUS.search(text), _VCPUS.search(text), _MEMORY.search(text)
    if gpus is None or vcpus is None or memory is None:
        return None
    gpu_count = Decimal(gpus["num"])
    if gpus["den"]:
        gpu_count /= Decimal(gpus["den"])
    ssd = _SSD.search(text)
    return _Components(
        gpu_count=gpu_count,
        vcpus=Decimal(vcpus["num"]),
        ram_gb=gb_from_gib(memory["num"]),
        storage_gb=gb_from_gib(ssd["num"]) if ssd else None,
    )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Google Cloud",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes=(
        "GCP_API_KEY is optional: without it only the GPU pricing page (us-central1 machine "
        "types) is scraped; with it the Cloud Billing SKU list adds per-GPU prices everywhere."
    ),
)
