"""RunPod: per-GPU hourly prices of Pods (Secure Cloud, Community Cloud, spot, savings plans),
and per data centre / country with the vCPU and RAM of a one-GPU Pod.

Live source: ``POST https://api.runpod.io/graphql``, no pagination. No query needs a key:
gpuhunt's RunPod provider posts queries 2 and 3 below, which ask every field query 1 asks, to
this endpoint with no credentials (``_make_request``). When
``RUNPOD_API_KEY`` is set the key is sent with every request, so a rejected key fails the scrape
instead of being ignored. RunPod documents the key as an ``api_key`` query parameter
(https://docs.runpod.io/sdks/graphql/configurations); we send it as ``Authorization: Bearer``
instead, which the API also accepts (the 2025-06 captures were fetched that way), so the key never
lands in the recorded URL. The requests, in order:

1. ``GPU_TYPES_QUERY`` (``gpuTypes`` with securePrice/communityPrice, spot, savings plans and the
   secureCloud/communityCloud flags): the per-tier offers. Failing, it fails the fetch.
2. ``LOCATIONS_QUERY``: ``countryCodes``, ``dataCenters {id name listed}`` and each gpu type's
   flags and GPU counts.
3. ``POD_TYPES_QUERY`` once per listed data centre (``lowestPriceInput`` ``{secureCloud: true,
   dataCenterId}``) and once per non-null country code (``{secureCloud: false, countryCode}``):
   ``gpuTypes`` with ``lowestPrice {minVcpu minMemory stockStatus ...}`` and the prices.

Queries 2 and 3 are gpuhunt's, field for field and with its variables (``gpu_types_query``,
``query_pod_types`` and ``RunpodProvider._build_query_variables`` in github.com/dstackai/gpuhunt
``src/gpuhunt/providers/runpod.py`` at commit 0272c27a088b25985f06622bbcbde1bc92be3e0a, the
newest version in our reference library; its repeated ``maxGpuCount`` and ``secureSpotPrice``
lines are kept: GraphQL merges a repeated field, so they ask nothing twice). Also gpuhunt's: the
variable ``GpuTypeFilter: {cluster: false}``, which the operation does not declare (it declares
``$gpuTypesInput``), and ``minCudaVersion`` "12.8" (``RunpodProvider.MIN_CUDA_VERSION``: only
hosts with CUDA 12.8 or newer count towards stock, vCPU and RAM). One difference bounds the
requests: gpuhunt repeats every location query for each ``gpuCount`` from 1 to the largest
``maxGpuCount`` (8 today, 8x the requests); we ask ``gpuCount`` 1 only, the grain of our
offers (one GPU), so a scrape sends 2 + locations requests, at most ``MAX_LOCATIONS`` of them
location queries. A location query that fails (or one past ``MAX_LOCATIONS``) is a skipped part
(``fetch_with_skips``: "dataCenterId EU-RO-1", logged as a warning) and the rest is published; so
is query 2 failing ("locations"), which leaves only the per-tier offers.

A location response does not say which location it answers, so its request URL carries it in
the fragment (``https://api.runpod.io/graphql#dataCenterId=EU-RO-1``, ``#countryCode=CA``; query
2's is ``#locations``). HTTP never sends a fragment: the server sees gpuhunt's request, and the
recorded URL says what the body is. In replay every request gets the same capture; no capture
holds a ``dataCenters`` list, so no location query is sent and each capture parses as before.

Known layouts, each recognised from the response content (anything else raises
``SchemaDriftError``):
- ``graphql``: ``{"data": {"gpuTypes": [...]}}`` (live; the c2026-09 capture asked only for
  id/displayName/memoryInGb/securePrice/communityPrice). ``{"errors": [...]}`` is drift: GraphQL
  reports a renamed or removed field that way.
- ``gpuTypes array``: the same items without the envelope (2025-06 captures).
- ``lowestPrice items``: items with ``lowestPrice{minimumBidPrice uninterruptablePrice}`` and
  ``secureSpotPrice`` but no securePrice/communityPrice (2026-03 capture).
- ``__NEXT_DATA__``: www.runpod.io/gpu-instance/pricing with the gpuTypes embedded (2023).
- ``pricing rows``: www.runpod.io/pricing rows with ``data-secure-cloud-price`` and
  ``data-community-cloud-price`` attributes plus VRAM/RAM/vCPU tags (2025-09).
- ``ld+json``: www.runpod.io/pricing schema.org ``Product`` entries whose ``AggregateOffer``
  lists "Community Cloud" and "Secure Cloud" per-hour on-demand prices (2026-08).
- ``locations`` (live, query 2): ``{"data": {"countryCodes": [...], "dataCenters": [...],
  "gpuTypes": [...]}}``, no prices: no offers of its own; its secureCloud/communityCloud flags
  are the ``offered`` of the located offers.
- ``location`` (live, query 3; told by the URL fragment, not the content): ``data.gpuTypes``
  items with the prices and ``lowestPrice {minVcpu minMemory stockStatus ...}``.

Offers (all ``gpu_count`` 1, USD per GPU per hour, ``price_per`` gpu):
- on-demand, region ``secure`` (securePrice) and ``community`` (communityPrice);
- spot, region ``secure`` (secureSpotPrice) and ``community`` (communitySpotPrice);
- reserved (savings plans), region ``secure``: oneMonthPrice, threeMonthPrice, sixMonthPrice ->
  1, 3, 6 months. Savings-plan rates sit below the Secure but above the Community on-demand rate
  (H100 SXM 2025-06: 2.99 > 2.811 > 2.69), so they are Secure Cloud commitments;
- per location (live only, ``location`` responses), read as gpuhunt reads them: on-demand
  (securePrice) and spot (secureSpotPrice) in each data centre, region = its id (``EU-RO-1``),
  and on-demand (communityPrice) and spot (communitySpotPrice) in each country, region = the
  country code (``CA``), with ``vcpus`` = ``lowestPrice.minVcpu`` and ``ram_gb`` =
  ``lowestPrice.minMemory`` (GB) of a one-GPU Pod there (None when RunPod returns null), and
  ``offered`` = the tier's flag from the ``locations`` response (None without it). Only where
  ``lowestPrice.stockStatus`` is not null (gpuhunt's rule): no stock there means no offer
  there, not counted, like a null price. The prices are the per-tier ones (a gpu type's prices
  take no location argument); savings plans stay per tier. ``minVcpu``/``minMemory`` are read
  from ``location`` responses only: the 2023 capture's ``lowestPrice`` has them too, but names
  no location (and asked without a cloud filter), so its offers keep no vCPU/RAM, as before.

Availability (``Offer.available``): a location offer is available (RunPod reports stock
there: ``lowestPrice.stockStatus`` not null; where it is null there is no offer). In the 2023
capture, whose items carry ``lowestPrice`` beside the per-cloud prices, that ``lowestPrice`` is
the Community one, so its ``stockStatus`` says whether Community Cloud has stock (null: not
available). A tier flagged ``false`` (``offered=False``) is not available. Spot offers carry
``SPOT_END_OF_SERVICE`` as ``available_until``: RunPod ends spot Pods, so from that date on they
are not available. Anything else: unknown (None).

Documented rules (the only prices that produce no offer):
- null or 0 means "not offered";
- where the item carries ``secureCloud``/``communityCloud``, a false flag means that cloud does
  not offer the GPU: RunPod fills such slots with placeholder prices (often 0.50, e.g. the
  MI300X community price). They are emitted with ``offered=False`` (the secure flag covers
  secure on-demand, secure spot and savings plans; the community flag community on-demand and
  spot) so the warehouse keeps them and the plausibility screen marks them suspect; items
  without flags (the 5-field c2026-09 query) get ``offered=None`` and the screen consults the
  newest earlier observation of the same price that had a flag. The live query always asks
  for the flags;
- ``oneWeekPrice`` (a 1-week savings plan) is not emitted: ``reserved_term_months`` is a whole
  number of months and a week would be misreported as a month. Captures that carry it parse as
  before; the live query no longer asks for it, since it is the one field of ours that gpuhunt's
  keyless queries do not ask for, and one field refused to a keyless caller would fail the
  whole GraphQL request;
- ``lowestPrice`` without a cloud filter is the Community price (in the 2023 capture every
  non-null ``uninterruptablePrice`` equals ``communityPrice`` and every ``minimumBidPrice``
  equals ``communitySpotPrice``), so it is read only where the community fields are absent
  (``lowestPrice items``) and then stands for community on-demand / spot; null means no stock;
- ``clusterPrice`` (Instant Clusters) and ``maxGpuCount`` are not offers of one Pod GPU.

Exclusions (counted by ``parse_with_exclusions``, keyed by reason). One item or row never fails
the scrape: it is left out and counted, the rest published (``Provider.parse_report`` still
fails it when no known row is left, or more than half of the rows are unknown):
- ``unknown_gpu <id or name>``: an item with at least one price whose gpu type id is not in
  ``KNOWN_GPU_TYPE_IDS`` (or a MIG slice of a GPU missing from ``MIG_FULL_GPU_MEMORY_GB``); a
  web-page row or ld+json product whose display name is not in ``KNOWN_PAGE_NAMES``. An
  unknown item with only null/0 prices offers nothing and is not counted (the "unknown"
  placeholder type of the captures);
- ``malformed_item``: an item whose id, memoryInGb, availability flag, lowestPrice or (in a
  ``location`` response) minVcpu/minMemory is not of its type; ``mig_memory_mismatch``: a MIG
  slice whose memory is not its profile's;
- ``unparsed_price``: one price that is not a number (the item's others stay; a negative price
  is a broken answer and raises ``SchemaDriftError``);
  ``missing_price``: a 2025-09 row without one of its price attributes, an ld+json entry
  without a price, or a product without an offers list;
- ``unknown_spec <label>``: a 2025-09 row with a spec tag other than VRAM/RAM/vCPUs (or whose
  value is no number); ``missing_spec``: a row lacking one of the three;
- ld+json: ``unknown_product <name>`` (a GPU product not named "<GPU> GPU on Runpod"),
  ``unknown_region <offer name>`` (not "Secure Cloud"/"Community Cloud"), ``unknown_unit
  <GPU> <offer name>`` (not a per-hour on-demand rate), ``unknown_currency <code>``.

Still ``SchemaDriftError`` (the response's structure changed): an unknown layout, a GraphQL
``errors`` envelope, no non-empty gpuTypes list, items lacking id/displayName/memoryInGb or
whose keys differ from the first item's, no price fields, lowestPrice items without the cloud
flags, a 2025-09 page whose spec rows and prices do not pair up or a row without its name or
price wrapper, ld+json that is not JSON or has no @graph, a ``locations`` response without
its three lists or with a gpu type without an id, a ``location`` response whose items lack
lowestPrice or the tier's two prices or whose lowestPrice lacks minVcpu, minMemory or
stockStatus, a response with no offer (a ``locations`` or ``location`` response may have none:
the scrape as a whole must), and a duplicate offer.

Names: API layouts use the gpu type id for ``gpu_name`` ("NVIDIA H100 80GB HBM3") and
"1x <id>" as ``instance_type``; web-page layouts only carry the display name ("H100 SXM") and use
it the same way, except that a display name RunPod uses for one part only but that names several
products elsewhere ("A100 PCIe") becomes that part's gpu type id (``DISPLAY_NAME_IDS``).
Identity does not follow the spelling: every offer's ``product_key`` is "1x <gpu type id>", a
page row's read from ``PAGE_NAME_IDS``, so secure H100 SXM on-demand is one series whether
the API ("1x NVIDIA H100 80GB HBM3") or the page ("1x H100 SXM") stated it.

MIG slices (gpu type ids "<GPU> MIG <n>g.<m>gb", e.g. "NVIDIA RTX PRO 6000 Blackwell Server
Edition MIG 1g.24gb") are a fraction of one GPU: ``gpu_name`` is the full GPU, ``gpu_count`` the
slice's share of its memory (24 of 96 GB -> 0.25), ``vram_gb_reported`` the full GPU's memory (so
count x VRAM is the slice's 24 GB), and the price, which is the slice's, is ``price_per``
instance. ``instance_type`` keeps the MIG profile ("1x <id>"). The full GPU's memory comes from
``MIG_FULL_GPU_MEMORY_GB``; a MIG id of another GPU, or whose memory disagrees with the item's
``memoryInGb``, is drift.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote, unquote

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

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
    unknown_row,
)
from scrapers.parsing import (
    RowExcluded,
    decimal,
    ensure_unique,
    html_body,
    json_body,
    offers_from_rows,
    require,
)

_log = logging.getLogger(__name__)

GRAPHQL_URL = "https://api.runpod.io/graphql"
PRICING_URL = "https://www.runpod.io/pricing"
LEGACY_PRICING_URL = "https://www.runpod.io/gpu-instance/pricing"  # the 2023 __NEXT_DATA__ page
TOKEN_ENV = "RUNPOD_API_KEY"
SLUG = "runpod"
CURRENCY = "USD"
SECURE = "secure"
COMMUNITY = "community"
GLOBAL_REGION = "global"  # a per-tier price: RunPod-wide, no data centre named

GPU_TYPES_QUERY = """
query GpuTypes {
  gpuTypes {
    id
    displayName
    memoryInGb
    maxGpuCount
    secureCloud
    communityCloud
    securePrice
    communityPrice
    secureSpotPrice
    communitySpotPrice
    oneMonthPrice
    threeMonthPrice
    sixMonthPrice
    lowestPrice(input: {gpuCount: 1}) {
      minimumBidPrice
      uninterruptablePrice
    }
  }
}
""".strip()

# gpuhunt's two queries (module docstring): which locations there are, and per location the
# gpu types with their lowest-price Pod's vCPU, RAM and stock.
LOCATIONS_QUERY = """
query GpuTypes {
  countryCodes
  dataCenters {
    id
    name
    listed
    __typename
  }
  gpuTypes {
    maxGpuCount
    maxGpuCount
    maxGpuCountCommunityCloud
    maxGpuCountSecureCloud
    minPodGpuCount
    id
    displayName
    memoryInGb
    secureCloud
    communityCloud
    __typename
  }
}
""".strip()
POD_TYPES_QUERY = """
query GpuTypes($lowestPriceInput: GpuLowestPriceInput, $gpuTypesInput: GpuTypeFilter) {
  gpuTypes(input: $gpuTypesInput) {
    lowestPrice(input: $lowestPriceInput) {
      minimumBidPrice
      uninterruptablePrice
      minVcpu
      minMemory
      stockStatus
      compliance
      countryCode
      __typename
    }
    maxGpuCount
    id
    nodeGroupDatacenters {
      id
    }
    clusterPrice
    displayName
    memoryInGb
    securePrice
    secureSpotPrice
    communityPrice
    communitySpotPrice
    oneMonthPrice
    threeMonthPrice
    sixMonthPrice
    secureSpotPrice
    __typename
  }
}
""".strip()
MIN_CUDA_VERSION = "12.8"  # gpuhunt's RunpodProvider.MIN_CUDA_VERSION
LOCATION_GPU_COUNT = 1  # gpuhunt asks 1..max(maxGpuCount); our offers are one GPU's
MAX_LOCATIONS = 100  # location queries per scrape (one per data centre or country)
# URL fragments naming what a response answers (never sent: HTTP carries no fragment).
LOCATIONS_FRAGMENT = "locations"
DATA_CENTER_KEY = "dataCenterId"  # Secure Cloud is queried per data centre
COUNTRY_KEY = "countryCode"  # Community Cloud per country
_LOCATION_TIERS = {DATA_CENTER_KEY: SECURE, COUNTRY_KEY: COMMUNITY}
_STOCK_FIELDS = ("minVcpu", "minMemory", "stockStatus")

# RunPod ends spot (interruptible) Pods on 2026-09-11: every spot offer carries this end of
# service (``Offer.available_until``), so one observed on or after it, or served after it, is
# not available. Sources: RunPod's maintainer on runpod/runpodctl PR #267 (2026-04-13):
# "spot/interruptible pod support (`podRentInterruptable` GraphQL mutation) is being removed
# from the runpod api"; the date, and gpuhunt dropping RunPod spot offers in August 2026, as
# gpuprices issue 22 records them (no dated notice of RunPod's own is in our reference library:
# replace the date here when one is found).
SPOT_END_OF_SERVICE = datetime(2026, 9, 11, tzinfo=UTC)

_REQUIRED = ("id", "displayName", "memoryInGb")
_FLAGS = {SECURE: "secureCloud", COMMUNITY: "communityCloud"}
# (field, region, pricing, reserved term in months) for items carrying the per-cloud prices.
_PRICE_FIELDS: tuple[tuple[str, str, PricingModel, int | None], ...] = (
    ("securePrice", SECURE, PricingModel.ON_DEMAND, None),
    ("communityPrice", COMMUNITY, PricingModel.ON_DEMAND, None),
    ("secureSpotPrice", SECURE, PricingModel.SPOT, None),
    ("communitySpotPrice", COMMUNITY, PricingModel.SPOT, None),
    ("oneMonthPrice", SECURE, PricingModel.RESERVED, 1),
    ("threeMonthPrice", SECURE, PricingModel.RESERVED, 3),
    ("sixMonthPrice", SECURE, PricingModel.RESERVED, 6),
)
_LOWEST_PRICE_FIELDS = (
    ("uninterruptablePrice", COMMUNITY, PricingModel.ON_DEMAND),
    ("minimumBidPrice", COMMUNITY, PricingModel.SPOT),
)
_ROW_TAGS = {"GB VRAM": "vram", "GB RAM": "ram", "vCPUs": "vcpus"}
_LD_OFFER_TIERS = {"Secure Cloud": SECURE, "Community Cloud": COMMUNITY}
_LD_PRODUCT_SUFFIX = " GPU on Runpod"


def _instance_type(name: str) -> str:
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
    _instance_type(name): _instance_type(gpu_id) for name, gpu_id in PAGE_NAME_IDS.items()
}
UNPARSED_PRICE = "unparsed_price"
MISSING_PRICE = "missing_price"
MALFORMED_ITEM = "malformed_item"
MIG_MISMATCH = "mig_memory_mismatch"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """POST the per-tier ``gpuTypes`` query, then gpuhunt's locations query and its per-location
    query for each listed data centre and country (at most ``MAX_LOCATIONS``); with ``token``
    (``RUNPOD_API_KEY``) as Bearer credentials on every request when one is set, with no
    ``Authorization`` header otherwise.

    Raises ``FetchError`` (via ``scrapers.http``) when the per-tier query cannot be fetched or
    the key is rejected (a set but rejected key is not retried without it: a wrong key should be
    seen). A later request that fails is left out and logged (see ``fetch_with_skips``).
    """
    return fetch_with_skips(client, token)[0]


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """``fetch``, plus the parts left out: "locations", "dataCenterId <id>", "countryCode <cc>"
    or "locations past <MAX_LOCATIONS>" -> the one-line reason. Raises as ``fetch`` does."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    responses = [http.post(client, GRAPHQL_URL, json={"query": GPU_TYPES_QUERY}, headers=headers)]
    skipped: dict[str, str] = {}
    try:
        catalog = http.post(
            client,
            f"{GRAPHQL_URL}#{LOCATIONS_FRAGMENT}",
            json={"query": LOCATIONS_QUERY, "variables": {}},
            headers=headers,
        )
    except FetchError as exc:
        _skip(skipped, LOCATIONS_FRAGMENT, str(exc))
        return responses, skipped
    responses.append(catalog)
    locations = _listed_locations(catalog)
    if len(locations) > MAX_LOCATIONS:
        rest = locations[MAX_LOCATIONS:]
        names = ", ".join(value for _, value in rest)
        _skip(
            skipped,
            f"locations past {MAX_LOCATIONS}",
            f"{len(rest)} not asked (at most {MAX_LOCATIONS} per scrape): {names}"[:500],
        )
    for key, value in locations[:MAX_LOCATIONS]:
        try:
            responses.append(
                http.post(
                    client,
                    location_url(key, value),
                    json={"query": POD_TYPES_QUERY, "variables": _pod_types_variables(key, value)},
                    headers=headers,
                )
            )
        except FetchError as exc:
            _skip(skipped, f"{key} {value}", str(exc))
    return responses, skipped


def location_url(key: str, value: str) -> str:
    """The request URL of one location query: the endpoint, the location in the fragment."""
    return f"{GRAPHQL_URL}#{key}={quote(value, safe='')}"


def _skip(skipped: dict[str, str], part: str, reason: str) -> None:
    skipped[part] = reason
    _log.warning("runpod: %s left out of this scrape: %s", part, reason)


def _listed_locations(response: RawResponse) -> list[tuple[str, str]]:
    """(``dataCenterId``, id) of each listed data centre, then (``countryCode``, code) of each
    non-null country code, as gpuhunt builds its queries; [] when the body has no such lists
    (a replayed capture; ``parse`` judges the body)."""
    try:
        payload = json.loads(response.body)
    except ValueError:
        return []
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict):
        return []
    found: list[tuple[str, str]] = []
    centres = data.get("dataCenters")
    for centre in centres if isinstance(centres, list) else []:
        if isinstance(centre, dict) and centre.get("listed") is True:
            ident = centre.get("id")
            if isinstance(ident, str) and ident:
                found.append((DATA_CENTER_KEY, ident))
    codes = data.get("countryCodes")
    for code in codes if isinstance(codes, list) else []:
        if isinstance(code, str) and code:
            found.append((COUNTRY_KEY, code))
    return list(dict.fromkeys(found))


def _pod_types_variables(key: str, value: str) -> dict[str, Any]:
    """gpuhunt's variables for one location (``_build_query_variables``), gpuCount 1."""
    return {
        "GpuTypeFilter": {"cluster": False},
        "lowestPriceInput": {
            "secureCloud": key == DATA_CENTER_KEY,
            key: value,
            "gpuCount": LOCATION_GPU_COUNT,
            "minDisk": None,
            "minMemoryInGb": None,
            "minVcpuCount": None,
            "minCudaVersion": MIN_CUDA_VERSION,
        },
    }


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from recorded RunPod responses, USD per GPU-hour; the layout is read off the content
    (a location query's location off its URL's fragment, see ``location_url``).

    Raises ``SchemaDriftError`` for an unknown layout, a GraphQL error envelope, items whose
    keys differ or carry no price fields, a duplicate offer, or a per-tier response with no
    offers (or no offer at all); one item or row of an unknown GPU, or with a malformed price or
    field, is left out and counted instead. Byte-identical bodies
    are parsed once, per location (replay answers every request of a scrape with the same
    capture).

    Returns the offers, and how many items, rows or prices each documented rule left out.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    flags: dict[str, dict[str, bool | None]] = {}
    located: list[tuple[RawResponse, tuple[str, str]]] = []
    for response in _distinct(responses):
        location = _location(response.url)
        if location is not None:
            located.append((response, location))
            continue
        catalog = _locations_payload(response)
        if catalog is not None:
            flags.update(_catalog_flags(catalog))
            continue
        parsed = _parse_response(response, excluded)
        if not parsed:
            raise SchemaDriftError(f"{response.url}: no offers found{_left_out(excluded)}")
        offers.extend(parsed)
    for response, location in located:  # after every locations response: its flags apply
        offers.extend(_parse_location(response, location, flags, excluded))
    if not offers:
        raise SchemaDriftError(f"{GRAPHQL_URL}: no offers in any response{_left_out(excluded)}")
    return ensure_unique(offers), excluded


def _left_out(excluded: Counter[str]) -> str:
    reasons = ", ".join(f"{reason}: {n}" for reason, n in excluded.most_common(5))
    return f" (left out: {reasons})" if reasons else ""


def _distinct(responses: Sequence[RawResponse]) -> list[RawResponse]:
    """``scrapers.parsing.distinct_bodies``, per location: two locations may answer byte for
    byte alike (no stock in either), and each is its own answer; the other responses by body
    alone (replay answers the per-tier and the locations request with the same capture)."""
    seen: set[tuple[tuple[str, str] | None, bytes]] = set()
    kept = []
    for response in responses:
        key = (_location(response.url), response.body)
        if key not in seen:
            seen.add(key)
            kept.append(response)
    return kept


def _location(url: str) -> tuple[str, str] | None:
    """(tier, data-centre id or country code) of a location query's URL (``location_url``);
    None for any other URL."""
    key, sep, value = httpx.URL(url).fragment.partition("=")
    if not sep or key not in _LOCATION_TIERS:
        return None
    value = unquote(value)
    if not value:
        raise SchemaDriftError(f"{url}: a location query without its location")
    return _LOCATION_TIERS[key], value


def _parse_response(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    when = response.fetched_at
    first = response.body.lstrip()[:1]
    if first == b"{":
        return _parse_graphql_envelope(json_body(response), when, excluded)
    if first == b"[":
        items = json_body(response)
        return list(_offers_from_gpu_types(items, "gpuTypes array", GRAPHQL_URL, when, excluded))
    tree = html_body(response)
    next_data = tree.css_first("script#__NEXT_DATA__")
    if next_data is not None:
        return _parse_next_data(next_data.text(), when, excluded)
    if tree.css_first("[data-secure-cloud-price]") is not None:
        return _parse_pricing_rows(tree, when, excluded)
    ld_scripts = tree.css('script[type="application/ld+json"]')
    if ld_scripts:
        return _parse_ld_json(ld_scripts, when, excluded)
    raise SchemaDriftError(
        f"{response.url}: unknown layout (not gpuTypes JSON, no __NEXT_DATA__, "
        "no data-secure-cloud-price rows, no ld+json)"
    )


# --- GraphQL gpuTypes (live, captures, __NEXT_DATA__) --------------------------------------------


def _parse_graphql_envelope(
    payload: Any, observed_at: datetime, excluded: Counter[str]
) -> list[Offer]:
    if not isinstance(payload, dict):
        raise SchemaDriftError("GraphQL response is not an object")
    if payload.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in payload["errors"])
        raise SchemaDriftError(f"GraphQL errors: {messages[:300]}")
    data = payload.get("data")
    items = data.get("gpuTypes") if isinstance(data, dict) else None
    return list(_offers_from_gpu_types(items, "data.gpuTypes", GRAPHQL_URL, observed_at, excluded))


def _parse_next_data(script: str, observed_at: datetime, excluded: Counter[str]) -> list[Offer]:
    try:
        payload = json.loads(script)
        items = payload["props"]["pageProps"]["data"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise SchemaDriftError(f"__NEXT_DATA__ without props.pageProps.data ({exc})") from None
    return list(
        _offers_from_gpu_types(items, "__NEXT_DATA__", LEGACY_PRICING_URL, observed_at, excluded)
    )


def _offers_from_gpu_types(
    items: Any,
    layout: str,
    source_url: str,
    observed_at: datetime,
    excluded: Counter[str],
    *,
    location: tuple[str, str] | None = None,
    flags: dict[str, dict[str, bool | None]] | None = None,
) -> Iterator[Offer]:
    """The offers of a gpuTypes list; with ``location`` (tier, id), a ``location`` response's:
    that tier's on-demand and spot prices where the location has stock, with vCPU and RAM,
    ``offered`` from ``flags`` (gpu type id -> tier -> the ``locations`` response's flag)."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise SchemaDriftError(f"{layout}: expected a non-empty list of gpuTypes objects")
    keys = set(items[0])
    required = _REQUIRED
    if location is not None:
        required = (*_REQUIRED, "lowestPrice", *(f for f, *_ in _location_fields(location[0])))
    missing = [k for k in required if k not in keys]
    if missing:
        raise SchemaDriftError(f"{layout}: gpuTypes items lack {missing}")
    for item in items:
        if set(item) != keys:
            raise SchemaDriftError(
                f"{layout}: item {item.get('id')!r} has keys {sorted(set(item) ^ keys)} "
                "that differ from the first item's"
            )
    explicit = "securePrice" in keys and "communityPrice" in keys
    if location is None and not explicit and "lowestPrice" not in keys:
        raise SchemaDriftError(
            f"{layout}: no price fields (securePrice+communityPrice or lowestPrice): {sorted(keys)}"
        )
    if location is None and not explicit and not all(flag in keys for flag in _FLAGS.values()):
        raise SchemaDriftError(f"{layout}: lowestPrice items need secureCloud and communityCloud")
    if location is not None:
        for item in items:
            lowest = item["lowestPrice"]
            if isinstance(lowest, dict) and any(k not in lowest for k in _STOCK_FIELDS):
                raise SchemaDriftError(
                    f"{layout}: lowestPrice of {item.get('id')!r} lacks"
                    f" {[k for k in _STOCK_FIELDS if k not in lowest]}"
                )
    yield from offers_from_rows(
        items,
        lambda item: _offers_from_gpu_type(
            item, explicit, layout, source_url, observed_at, excluded, location, flags
        ),
        excluded,
    )


def _location_fields(tier: str) -> list[tuple[str, PricingModel]]:
    """The price fields gpuhunt reads for a location of ``tier``: on-demand, then spot."""
    return [
        (field, pricing)
        for field, region, pricing, term in _PRICE_FIELDS
        if region == tier and term is None
    ]


def _offers_from_gpu_type(
    item: dict[str, Any],
    explicit: bool,
    layout: str,
    source_url: str,
    observed_at: datetime,
    excluded: Counter[str],
    location: tuple[str, str] | None = None,
    flags: dict[str, dict[str, bool | None]] | None = None,
) -> Iterator[Offer]:
    """The item's offers; ``RowExcluded`` when the whole item is left out (an unknown GPU with a
    price, a malformed id, memory, flag, lowestPrice or vCPU/RAM figure, a MIG slice that does
    not add up). A single price that is not one is left out alone (``unparsed_price``)."""
    gpu_id = item["id"]
    if not isinstance(gpu_id, str) or not gpu_id:
        raise RowExcluded(MALFORMED_ITEM)
    memory = item["memoryInGb"]
    if not _is_number(memory) or memory < 0:
        raise RowExcluded(MALFORMED_ITEM)
    # (field, region, pricing, term, raw price, offered)
    candidates: list[tuple[str, str, PricingModel, int | None, Any, bool | None]] = []
    vcpus = ram_gb = None
    # region -> whether RunPod reports stock there (lowestPrice.stockStatus); absent: unknown
    stock: dict[str, bool] = {}
    if location is not None:
        tier, where = location
        lowest = item["lowestPrice"]
        if lowest is not None and not isinstance(lowest, dict):
            raise RowExcluded(MALFORMED_ITEM)
        if lowest is None or lowest["stockStatus"] is None:
            return  # no stock there: not offered there (gpuhunt's rule)
        vcpus, ram_gb = _spec(lowest["minVcpu"]), _spec(lowest["minMemory"])
        stock[where] = True  # a stockStatus ("High", "Low", ...): there is stock there
        flag = (flags or {}).get(gpu_id, {}).get(tier)
        candidates = [
            (field, where, pricing, None, item[field], flag)
            for field, pricing in _location_fields(tier)
        ]
    elif explicit:
        offered = {region: _flag(item, flag) for region, flag in _FLAGS.items()}
        lowest = item.get("lowestPrice")
        if isinstance(lowest, dict) and "stockStatus" in lowest:
            # lowestPrice without a cloud filter is the Community price (module doc), so its
            # stockStatus is the Community stock: null is none (gpuhunt's rule)
            stock[COMMUNITY] = lowest["stockStatus"] is not None
        candidates = [
            (field, region, pricing, term, item[field], offered[region])
            for field, region, pricing, term in _PRICE_FIELDS
            if field in item
        ]
    else:
        offered = {region: _flag(item, flag) for region, flag in _FLAGS.items()}
        lowest = item["lowestPrice"]
        if lowest is not None and not isinstance(lowest, dict):
            raise RowExcluded(MALFORMED_ITEM)
        for field, region, pricing in _LOWEST_PRICE_FIELDS:
            if lowest is not None and field not in lowest:
                raise RowExcluded(MALFORMED_ITEM)
            value = None if lowest is None else lowest[field]
            candidates.append(
                (f"lowestPrice.{field}", region, pricing, None, value, offered[region])
            )
        if "secureSpotPrice" in item:
            candidates.append(
                (
                    "secureSpotPrice",
                    SECURE,
                    PricingModel.SPOT,
                    None,
                    item["secureSpotPrice"],
                    offered[SECURE],
                )
            )
    if not any(raw is not None and raw != 0 for *_, raw, _ in candidates):
        return  # not offered anywhere (e.g. the "unknown" placeholder type): nothing to report
    vram = decimal(memory) if memory > 0 else None
    mig = _mig_slice(gpu_id, vram)
    if mig is None and gpu_id not in KNOWN_GPU_TYPE_IDS:
        raise RowExcluded(unknown_row("gpu", gpu_id))

    def read_price(
        candidate: tuple[str, str, PricingModel, int | None, Any, bool | None],
    ) -> Offer | None:
        field, place, pricing, term, raw, offered_flag = candidate
        price = _price(raw, f"{layout}: {gpu_id} {field}")
        if price is None:
            return None
        # a per-tier price is RunPod-wide (region global); a location's is that data centre's
        # or country's, in the tier the location was asked for
        tier, region = (place, GLOBAL_REGION) if location is None else (location[0], place)
        country = region if location is not None and location[0] == COMMUNITY else None
        if mig is None:
            return _offer(
                name=gpu_id,
                tier=tier,
                region=region,
                country=country,
                pricing=pricing,
                term=term,
                price=price,
                vram=vram,
                source_url=source_url,
                observed_at=observed_at,
                vcpus=vcpus,
                ram_gb=ram_gb,
                offered=offered_flag,
                available=stock.get(place),
            )
        full_gpu, share, full_vram = mig
        return _offer(
            name=gpu_id,
            tier=tier,
            region=region,
            country=country,
            pricing=pricing,
            term=term,
            price=price,
            vram=full_vram,
            source_url=source_url,
            observed_at=observed_at,
            vcpus=vcpus,
            ram_gb=ram_gb,
            gpu_name=full_gpu,
            gpu_count=share,
            price_per=PricePer.INSTANCE,  # the price of the slice, not of a whole GPU
            offered=offered_flag,
            available=stock.get(place),
        )

    yield from offers_from_rows(candidates, read_price, excluded)


def _spec(value: Any) -> Decimal | None:
    """A vCPU count or GB figure of ``lowestPrice``; None for null, ``RowExcluded`` (malformed_item)
    for anything but a non-negative number."""
    if value is None:
        return None
    if not _is_number(value) or value < 0:
        raise RowExcluded(MALFORMED_ITEM)
    return decimal(value)


# --- gpuhunt's locations and per-location queries (live) -----------------------------------------


def _locations_payload(response: RawResponse) -> dict[str, Any] | None:
    """The decoded body of a ``locations`` response (``data.dataCenters`` present), else None."""
    if response.body.lstrip()[:1] != b"{":
        return None
    payload = json_body(response)
    data = payload.get("data") if isinstance(payload, dict) else None
    if isinstance(data, dict) and "dataCenters" in data:
        return payload
    return None


def _catalog_flags(payload: dict[str, Any]) -> dict[str, dict[str, bool | None]]:
    """gpu type id -> tier -> its secureCloud/communityCloud flag (None when not a bool)."""
    data = payload["data"]
    lists = {key: data.get(key) for key in ("countryCodes", "dataCenters", "gpuTypes")}
    broken = [key for key, value in lists.items() if not isinstance(value, list)]
    if broken:
        raise SchemaDriftError(f"locations response: {broken} not lists")
    flags: dict[str, dict[str, bool | None]] = {}
    for item in lists["gpuTypes"]:
        gpu_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(gpu_id, str) or not gpu_id:
            raise SchemaDriftError("locations response: a gpu type without an id")
        flags[gpu_id] = {
            tier: value if isinstance(value := item.get(key), bool) else None
            for tier, key in _FLAGS.items()
        }
    return flags


def _parse_location(
    response: RawResponse,
    location: tuple[str, str],
    flags: dict[str, dict[str, bool | None]],
    excluded: Counter[str],
) -> list[Offer]:
    tier, where = location
    layout = f"location {where} ({tier})"
    payload = json_body(response)
    if not isinstance(payload, dict):
        raise SchemaDriftError(f"{layout}: GraphQL response is not an object")
    if payload.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in payload["errors"])
        raise SchemaDriftError(f"{layout}: GraphQL errors: {messages[:300]}")
    data = payload.get("data")
    items = data.get("gpuTypes") if isinstance(data, dict) else None
    return list(
        _offers_from_gpu_types(
            items,
            layout,
            GRAPHQL_URL,
            response.fetched_at,
            excluded,
            location=location,
            flags=flags,
        )
    )


def _mig_slice(gpu_id: str, vram: Decimal | None) -> tuple[str, Decimal, Decimal] | None:
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


def _flag(item: dict[str, Any], key: str) -> bool | None:
    """The item's availability flag; None when the query did not ask for it."""
    if key not in item:
        return None
    value = item[key]
    if not isinstance(value, bool):
        raise RowExcluded(MALFORMED_ITEM)
    return value


def _price(value: Any, what: str) -> Decimal | None:
    """A price in USD, or None for "not offered" (null or 0).

    ``RowExcluded`` (``unparsed_price``) for a value that is not a number; ``SchemaDriftError``
    for a negative one: an impossible price is a broken answer, not one odd price, and fails the
    scrape (the last good data stays served).
    """
    if value is None:
        return None
    if not (isinstance(value, str) or _is_number(value)):
        raise RowExcluded(UNPARSED_PRICE)
    try:
        price = decimal(value)
    except SchemaDriftError:
        raise RowExcluded(UNPARSED_PRICE) from None
    if price < 0:
        raise SchemaDriftError(f"{what}: negative price {price}")
    return price if price > 0 else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --- www.runpod.io/pricing rows with data attributes (2025-09) -----------------------------------


def _parse_pricing_rows(
    tree: LexborHTMLParser, observed_at: datetime, excluded: Counter[str]
) -> list[Offer]:
    """Each row is (name element, ``.gpu-pricing-row__tags``, price wrapper) as siblings.

    The attributes hold hourly rates (H100 NVL 2.79/2.59 = the API's securePrice/communityPrice
    three months before); the "/s" beside them is a per-second view computed in the browser.
    """
    rows = tree.css(".gpu-pricing-row__tags")
    prices = tree.css("[data-secure-cloud-price]")
    if len(rows) != len(prices):
        raise SchemaDriftError(f"pricing page: {len(rows)} spec rows but {len(prices)} prices")

    def read_row(tags: LexborNode) -> list[Offer]:
        name_node = require(_sibling(tags, before=True), "GPU name before a spec row")
        name = require(name_node.text(strip=True), "GPU name")
        wrapper = require(_sibling(tags, before=False), f"{name} price wrapper")
        if "gpu-pricing-row__price-wrapper" not in (wrapper.attributes.get("class") or ""):
            raise SchemaDriftError(f"{name}: no price wrapper after the spec tags")
        price_node = require(wrapper.css_first("[data-secure-cloud-price]"), f"{name} prices")
        if name not in KNOWN_PAGE_NAMES:
            raise RowExcluded(unknown_row("gpu", name))
        specs: dict[str, Decimal] = {}
        unknown_tags = []
        for tag in tags.css(".gpu-pricing-row__tag"):
            value, label = (child.text(strip=True) for child in _children(tag))
            if label not in _ROW_TAGS:
                unknown_tags.append(label)
                continue
            try:
                specs[_ROW_TAGS[label]] = decimal(value)
            except SchemaDriftError:
                unknown_tags.append(f"{label} {value}")
        if unknown_tags:
            raise RowExcluded(unknown_row("spec", unknown_tags[0]))
        if set(specs) != set(_ROW_TAGS.values()):
            raise RowExcluded("missing_spec")

        def read_price(column: tuple[str, str]) -> Offer | None:
            tier, attribute = column
            raw = price_node.attributes.get(attribute)
            if raw is None:
                raise RowExcluded(MISSING_PRICE)
            price = _price(raw, f"{name} {attribute}")
            if price is None:
                return None
            return _offer(
                name=name,
                tier=tier,
                pricing=PricingModel.ON_DEMAND,
                term=None,
                price=price,
                vram=specs["vram"],
                vcpus=specs["vcpus"],
                ram_gb=specs["ram"],
                source_url=PRICING_URL,
                observed_at=observed_at,
                gpu_name=DISPLAY_NAME_IDS.get(name),
            )

        # one price that cannot be read leaves out that price; the row's other is kept
        columns = ((SECURE, "data-secure-cloud-price"), (COMMUNITY, "data-community-cloud-price"))
        return offers_from_rows(columns, read_price, excluded)

    return offers_from_rows(rows, read_row, excluded)


def _sibling(node: LexborNode, *, before: bool) -> LexborNode | None:
    """The nearest element sibling (text and comment nodes skipped)."""
    current = node.prev if before else node.next
    while current is not None and not _is_element(current):
        current = current.prev if before else current.next
    return current


def _children(node: LexborNode) -> list[LexborNode]:
    return [child for child in node.iter() if _is_element(child)]


def _is_element(node: LexborNode) -> bool:
    return not (node.tag or "-").startswith(("-", "_", "#"))


# --- www.runpod.io/pricing schema.org ld+json (2026-08) ------------------------------------------


def _parse_ld_json(
    scripts: list[LexborNode], observed_at: datetime, excluded: Counter[str]
) -> list[Offer]:
    """GPU ``Product`` entries (``@id`` ``.../pricing/#gpu-...``); other Products (none in the
    2026-08 capture) would be non-GPU SKUs and are excluded by that rule."""
    offers: list[Offer] = []
    for script in scripts:
        try:
            document = json.loads(script.text())
        except json.JSONDecodeError as exc:
            raise SchemaDriftError(f"ld+json is not JSON ({exc.msg})") from None
        graph = document.get("@graph") if isinstance(document, dict) else document
        if not isinstance(graph, list):
            raise SchemaDriftError("ld+json has no @graph list")
        for node in graph:
            if not isinstance(node, dict) or node.get("@type") != "Product":
                continue
            if "#gpu-" not in str(node.get("@id", "")):
                continue
            offers.extend(_offers_from_ld_product(node, observed_at, excluded))
    return offers


def _offers_from_ld_product(
    product: dict[str, Any], observed_at: datetime, excluded: Counter[str]
) -> Iterator[Offer]:
    title = str(product.get("name", ""))
    if not title.endswith(_LD_PRODUCT_SUFFIX):
        excluded[unknown_row("product", title)] += 1
        return
    name = title.removesuffix(_LD_PRODUCT_SUFFIX)
    if name not in KNOWN_PAGE_NAMES:
        excluded[unknown_row("gpu", name)] += 1
        return
    aggregate = product.get("offers")
    entries = aggregate.get("offers") if isinstance(aggregate, dict) else None
    if not isinstance(entries, list) or not entries:
        excluded[MISSING_PRICE] += 1
        return

    def read_entry(entry: Any) -> Offer | None:
        entry_name = entry.get("name") if isinstance(entry, dict) else None
        tier = _LD_OFFER_TIERS.get(entry_name) if isinstance(entry_name, str) else None
        if tier is None:
            raise RowExcluded(unknown_row("region", str(entry_name)))
        if "per-hour on-demand" not in str(entry.get("description", "")):
            raise RowExcluded(unknown_row("unit", f"{name} {entry_name}"))
        currency = entry.get("priceCurrency")
        if currency != CURRENCY:
            raise RowExcluded(unknown_row("currency", str(currency)))
        if entry.get("price") in (None, ""):
            raise RowExcluded(MISSING_PRICE)
        price = _price(entry["price"], f"ld+json {name} price")
        if price is None:
            return None
        return _offer(
            name=name,
            tier=tier,
            pricing=PricingModel.ON_DEMAND,
            term=None,
            price=price,
            vram=None,
            source_url=PRICING_URL,
            observed_at=observed_at,
            gpu_name=DISPLAY_NAME_IDS.get(name),
        )

    yield from offers_from_rows(entries, read_entry, excluded)


# --- helpers -------------------------------------------------------------------------------------


def place_rule(region: str, cloud_tier: str | None) -> tuple[str, str | None]:
    """Where an offer stored at (``region``, ``cloud_tier``) is now (``Provider.place_rule``).

    Until issue 22 the tier was stored as the region ("secure", "community"; a location's
    offer had its data centre or country as the region and no tier): those become region
    ``global`` with that tier, a data centre id (Secure Cloud) or a country code (Community
    Cloud) keeps its region and gains its tier. An offer stored with a tier is already right."""
    if cloud_tier is not None:
        return region, cloud_tier
    if region in _FLAGS:
        return GLOBAL_REGION, region
    if region == GLOBAL_REGION:
        return region, None
    return region, COMMUNITY if _COUNTRY_CODE.fullmatch(region) else SECURE


_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


def _offer(
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
    instance_type = _instance_type(name)
    return Offer(
        provider=SLUG,
        instance_type=instance_type,
        product_key=PRODUCT_KEYS.get(instance_type, instance_type),
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


PROVIDER = Provider(
    slug=SLUG,
    name="RunPod",
    homepage="https://www.runpod.io",
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,  # optional: every query works without a key
    token_required=False,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
    place_rule=place_rule,
    notes="GraphQL gpuTypes; Secure/Community on-demand, spot and savings plans per GPU-hour;"
    " live also per data centre / country with vCPU and RAM (gpuhunt's queries).",
)
