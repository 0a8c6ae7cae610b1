"""RunPod: per-GPU hourly prices of Pods (Secure Cloud, Community Cloud, spot, savings plans).

Live source: ``POST https://api.runpod.io/graphql`` with a ``gpuTypes`` query. The query needs no
key: gpuhunt's RunPod provider posts its ``gpuTypes`` queries (securePrice, communityPrice, the
spot and savings-plan prices, secureCloud/communityCloud) to this endpoint with no credentials
(github.com/dstackai/gpuhunt, ``src/gpuhunt/providers/runpod.py``, ``_make_request``). When
``RUNPOD_API_KEY`` is set the key is sent too, so a rejected key fails the scrape instead of being
ignored. RunPod documents the key as an ``api_key`` query parameter
(https://docs.runpod.io/sdks/graphql/configurations); we send it as ``Authorization: Bearer``
instead, which the API also accepts (the 2025-06 captures were fetched that way), so the key never
lands in the recorded URL. One request, no pagination.

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

Offers (all ``gpu_count`` 1, USD per GPU per hour, ``price_per`` gpu):
- on-demand, region ``secure`` (securePrice) and ``community`` (communityPrice);
- spot, region ``secure`` (secureSpotPrice) and ``community`` (communitySpotPrice);
- reserved (savings plans), region ``secure``: oneMonthPrice, threeMonthPrice, sixMonthPrice ->
  1, 3, 6 months. Savings-plan rates sit below the Secure but above the Community on-demand rate
  (H100 SXM 2025-06: 2.99 > 2.811 > 2.69), so they are Secure Cloud commitments.

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
- ``malformed_item``: an item whose id, memoryInGb, availability flag or lowestPrice is not of
  its type; ``mig_memory_mismatch``: a MIG slice whose memory is not its profile's;
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
price wrapper, ld+json that is not JSON or has no @graph, a response with no offer, and a
duplicate offer.

Names: API layouts use the gpu type id for ``gpu_name`` ("NVIDIA H100 80GB HBM3") and
"1x <id>" as ``instance_type``; web-page layouts only carry the display name ("H100 SXM") and use
it the same way, except that a display name RunPod uses for one part only but that names several
products elsewhere ("A100 PCIe") becomes that part's gpu type id (``DISPLAY_NAME_IDS``).

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
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from scrapers import http
from scrapers.base import (
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
    distinct_bodies,
    ensure_unique,
    html_body,
    json_body,
    require,
)

GRAPHQL_URL = "https://api.runpod.io/graphql"
PRICING_URL = "https://www.runpod.io/pricing"
LEGACY_PRICING_URL = "https://www.runpod.io/gpu-instance/pricing"  # the 2023 __NEXT_DATA__ page
TOKEN_ENV = "RUNPOD_API_KEY"
SLUG = "runpod"
CURRENCY = "USD"
SECURE = "secure"
COMMUNITY = "community"

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
_LD_OFFER_REGIONS = {"Secure Cloud": SECURE, "Community Cloud": COMMUNITY}
_LD_PRODUCT_SUFFIX = " GPU on Runpod"

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
# as the 2026-02 parse of the page by another tool). Any other GPU row -> ``unknown_gpu``.
KNOWN_PAGE_NAMES = frozenset(
    {
        "A100 PCIe",
        "A100 SXM",
        "A40",
        "B200",
        "B300",
        "H100 NVL",
        "H100 PCIe",
        "H100 SXM",
        "H200",
        "L4",
        "L40",
        "L40S",
        "RTX 3090",
        "RTX 4090",
        "RTX 5090",
        "RTX 6000 Ada",
        "RTX A5000",
        "RTX A6000",
        "RTX Pro 6000",
    }
)
UNPARSED_PRICE = "unparsed_price"
MISSING_PRICE = "missing_price"
MALFORMED_ITEM = "malformed_item"
MIG_MISMATCH = "mig_memory_mismatch"


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """POST the ``gpuTypes`` GraphQL query; with ``token`` (``RUNPOD_API_KEY``) as Bearer
    credentials when one is set, with no ``Authorization`` header otherwise.

    Raises ``FetchError`` (via ``scrapers.http``) when the API cannot be reached or rejects the
    key (a set but rejected key is not retried without it: a wrong key should be seen).
    """
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return [http.post(client, GRAPHQL_URL, json={"query": GPU_TYPES_QUERY}, headers=headers)]


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers from recorded RunPod responses, USD per GPU-hour; the layout is read off the content.

    Raises ``SchemaDriftError`` for an unknown layout, a GraphQL error envelope, items whose
    keys differ or carry no price fields, a duplicate offer, or a response with no offers; one
    item or row of an unknown GPU, or with a malformed price or field, is left out and counted
    instead (``parse_with_exclusions``). Byte-identical bodies are parsed once (replay answers
    every request of a scrape with the same capture).
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many items, rows or prices each documented rule left out."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        parsed = _parse_response(response, excluded)
        if not parsed:
            reasons = ", ".join(f"{reason}: {n}" for reason, n in excluded.most_common(5))
            detail = f" (left out: {reasons})" if reasons else ""
            raise SchemaDriftError(f"{response.url}: no offers found{detail}")
        offers.extend(parsed)
    return ensure_unique(offers), excluded


_Skip = RowExcluded  # one row left out, with its exclusion reason


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
    items: Any, layout: str, source_url: str, observed_at: datetime, excluded: Counter[str]
) -> Iterator[Offer]:
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise SchemaDriftError(f"{layout}: expected a non-empty list of gpuTypes objects")
    keys = set(items[0])
    missing = [k for k in _REQUIRED if k not in keys]
    if missing:
        raise SchemaDriftError(f"{layout}: gpuTypes items lack {missing}")
    for item in items:
        if set(item) != keys:
            raise SchemaDriftError(
                f"{layout}: item {item.get('id')!r} has keys {sorted(set(item) ^ keys)} "
                "that differ from the first item's"
            )
    explicit = "securePrice" in keys and "communityPrice" in keys
    if not explicit and "lowestPrice" not in keys:
        raise SchemaDriftError(
            f"{layout}: no price fields (securePrice+communityPrice or lowestPrice): {sorted(keys)}"
        )
    if not explicit and not all(flag in keys for flag in _FLAGS.values()):
        raise SchemaDriftError(f"{layout}: lowestPrice items need secureCloud and communityCloud")
    for item in items:
        try:
            offers = list(
                _offers_from_gpu_type(item, explicit, layout, source_url, observed_at, excluded)
            )
        except _Skip as skip:
            excluded[skip.reason] += 1
            continue
        yield from offers


def _offers_from_gpu_type(
    item: dict[str, Any],
    explicit: bool,
    layout: str,
    source_url: str,
    observed_at: datetime,
    excluded: Counter[str],
) -> Iterator[Offer]:
    """The item's offers; ``_Skip`` when the whole item is left out (an unknown GPU with a
    price, a malformed id, memory, flag or lowestPrice, a MIG slice that does not add up). A
    single price that is not one is left out alone (``unparsed_price``)."""
    gpu_id = item["id"]
    if not isinstance(gpu_id, str) or not gpu_id:
        raise _Skip(MALFORMED_ITEM)
    memory = item["memoryInGb"]
    if not _is_number(memory) or memory < 0:
        raise _Skip(MALFORMED_ITEM)
    offered = {region: _flag(item, flag) for region, flag in _FLAGS.items()}
    candidates: list[tuple[str, str, PricingModel, int | None, Any]] = []
    if explicit:
        candidates = [
            (field, region, pricing, term, item[field])
            for field, region, pricing, term in _PRICE_FIELDS
            if field in item
        ]
    else:
        lowest = item["lowestPrice"]
        if lowest is not None and not isinstance(lowest, dict):
            raise _Skip(MALFORMED_ITEM)
        for field, region, pricing in _LOWEST_PRICE_FIELDS:
            if lowest is not None and field not in lowest:
                raise _Skip(MALFORMED_ITEM)
            value = None if lowest is None else lowest[field]
            candidates.append((f"lowestPrice.{field}", region, pricing, None, value))
        if "secureSpotPrice" in item:
            candidates.append(
                ("secureSpotPrice", SECURE, PricingModel.SPOT, None, item["secureSpotPrice"])
            )
    if not any(raw is not None and raw != 0 for *_, raw in candidates):
        return  # not offered anywhere (e.g. the "unknown" placeholder type): nothing to report
    vram = decimal(memory) if memory > 0 else None
    mig = _mig_slice(gpu_id, vram)
    if mig is None and gpu_id not in KNOWN_GPU_TYPE_IDS:
        raise _Skip(unknown_row("gpu", gpu_id))
    for field, region, pricing, term, raw in candidates:
        try:
            price = _price(raw, f"{layout}: {gpu_id} {field}")
        except _Skip as skip:
            excluded[skip.reason] += 1
            continue
        if price is None:
            continue
        if mig is None:
            yield _offer(
                name=gpu_id,
                region=region,
                pricing=pricing,
                term=term,
                price=price,
                vram=vram,
                source_url=source_url,
                observed_at=observed_at,
                offered=offered[region],
            )
            continue
        full_gpu, share, full_vram = mig
        yield _offer(
            name=gpu_id,
            region=region,
            pricing=pricing,
            term=term,
            price=price,
            vram=full_vram,
            source_url=source_url,
            observed_at=observed_at,
            gpu_name=full_gpu,
            gpu_count=share,
            price_per=PricePer.INSTANCE,  # the price of the slice, not of a whole GPU
            offered=offered[region],
        )


def _mig_slice(gpu_id: str, vram: Decimal | None) -> tuple[str, Decimal, Decimal] | None:
    """(full GPU name, share of one GPU, full GPU memory GB) for a MIG slice id, else None.

    The share is the slice's memory over the full GPU's (1g.24gb of 96 GB -> 0.25). ``_Skip``
    for a GPU missing from ``MIG_FULL_GPU_MEMORY_GB`` (``unknown_gpu <id>``) or a slice whose
    ``memoryInGb`` (``vram``) is not the memory its profile names (``mig_memory_mismatch``).
    """
    match = _MIG_ID.match(gpu_id)
    if match is None:
        return None
    full_vram = MIG_FULL_GPU_MEMORY_GB.get(match["gpu"])
    if full_vram is None:
        raise _Skip(unknown_row("gpu", gpu_id))
    slice_gb = Decimal(match["gb"])
    if vram is not None and vram != slice_gb:
        raise _Skip(MIG_MISMATCH)
    if not 0 < slice_gb <= full_vram:
        raise _Skip(MIG_MISMATCH)
    return match["gpu"], slice_gb / full_vram, full_vram


def _flag(item: dict[str, Any], key: str) -> bool | None:
    """The item's availability flag; None when the query did not ask for it."""
    if key not in item:
        return None
    value = item[key]
    if not isinstance(value, bool):
        raise _Skip(MALFORMED_ITEM)
    return value


def _price(value: Any, what: str) -> Decimal | None:
    """A price in USD, or None for "not offered" (null or 0).

    ``_Skip`` (``unparsed_price``) for a value that is not a number; ``SchemaDriftError`` for a
    negative one: an impossible price is a broken answer, not one odd price, and fails the
    scrape (the last good data stays served).
    """
    if value is None:
        return None
    if not (isinstance(value, str) or _is_number(value)):
        raise _Skip(UNPARSED_PRICE)
    try:
        price = decimal(value)
    except SchemaDriftError:
        raise _Skip(UNPARSED_PRICE) from None
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
    offers: list[Offer] = []
    for tags in rows:
        name_node = require(_sibling(tags, before=True), "GPU name before a spec row")
        name = require(name_node.text(strip=True), "GPU name")
        wrapper = require(_sibling(tags, before=False), f"{name} price wrapper")
        if "gpu-pricing-row__price-wrapper" not in (wrapper.attributes.get("class") or ""):
            raise SchemaDriftError(f"{name}: no price wrapper after the spec tags")
        price_node = require(wrapper.css_first("[data-secure-cloud-price]"), f"{name} prices")
        if name not in KNOWN_PAGE_NAMES:
            excluded[unknown_row("gpu", name)] += 1
            continue
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
            excluded[unknown_row("spec", unknown_tags[0])] += 1
            continue
        if set(specs) != set(_ROW_TAGS.values()):
            excluded["missing_spec"] += 1
            continue
        for region, attribute in (
            (SECURE, "data-secure-cloud-price"),
            (COMMUNITY, "data-community-cloud-price"),
        ):
            raw = price_node.attributes.get(attribute)
            if raw is None:
                excluded[MISSING_PRICE] += 1
                continue
            try:
                price = _price(raw, f"{name} {attribute}")
            except _Skip as skip:
                excluded[skip.reason] += 1
                continue
            if price is None:
                continue
            offers.append(
                _offer(
                    name=name,
                    region=region,
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
            )
    return offers


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
    for entry in entries:
        entry_name = entry.get("name") if isinstance(entry, dict) else None
        region = _LD_OFFER_REGIONS.get(entry_name) if isinstance(entry_name, str) else None
        if region is None:
            excluded[unknown_row("region", str(entry_name))] += 1
            continue
        if "per-hour on-demand" not in str(entry.get("description", "")):
            excluded[unknown_row("unit", f"{name} {entry_name}")] += 1
            continue
        currency = entry.get("priceCurrency")
        if currency != CURRENCY:
            excluded[unknown_row("currency", str(currency))] += 1
            continue
        if entry.get("price") in (None, ""):
            excluded[MISSING_PRICE] += 1
            continue
        try:
            price = _price(entry["price"], f"ld+json {name} price")
        except _Skip as skip:
            excluded[skip.reason] += 1
            continue
        if price is None:
            continue
        yield _offer(
            name=name,
            region=region,
            pricing=PricingModel.ON_DEMAND,
            term=None,
            price=price,
            vram=None,
            source_url=PRICING_URL,
            observed_at=observed_at,
            gpu_name=DISPLAY_NAME_IDS.get(name),
        )


# --- helpers -------------------------------------------------------------------------------------


def _offer(
    *,
    name: str,
    region: str,
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
) -> Offer:
    return Offer(
        provider=SLUG,
        instance_type=f"1x {name}",
        region=region,
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
        source_url=source_url,
        observed_at=observed_at,
    )


PROVIDER = Provider(
    slug=SLUG,
    name="RunPod",
    homepage="https://www.runpod.io",
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,  # optional: the gpuTypes query works without a key
    token_required=False,
    kind="cloud",
    notes="GraphQL gpuTypes; Secure/Community on-demand, spot and savings plans per GPU-hour.",
)
