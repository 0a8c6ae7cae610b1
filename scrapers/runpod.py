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
)
from scrapers.parsing import (
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

    Raises ``SchemaDriftError`` for an unknown layout, a GraphQL error envelope, a malformed item
    or price, a duplicate offer, or a response with no offers. Byte-identical bodies are parsed
    once (replay answers every request of a scrape with the same capture).
    """
    offers: list[Offer] = []
    for response in distinct_bodies(responses):
        parsed = _parse_response(response)
        if not parsed:
            raise SchemaDriftError(f"{response.url}: no offers found")
        offers.extend(parsed)
    return ensure_unique(offers)


def _parse_response(response: RawResponse) -> list[Offer]:
    when = response.fetched_at
    first = response.body.lstrip()[:1]
    if first == b"{":
        return _parse_graphql_envelope(json_body(response), when)
    if first == b"[":
        items = json_body(response)
        return list(_offers_from_gpu_types(items, "gpuTypes array", GRAPHQL_URL, when))
    tree = html_body(response)
    next_data = tree.css_first("script#__NEXT_DATA__")
    if next_data is not None:
        return _parse_next_data(next_data.text(), when)
    if tree.css_first("[data-secure-cloud-price]") is not None:
        return _parse_pricing_rows(tree, when)
    ld_scripts = tree.css('script[type="application/ld+json"]')
    if ld_scripts:
        return _parse_ld_json(ld_scripts, when)
    raise SchemaDriftError(
        f"{response.url}: unknown layout (not gpuTypes JSON, no __NEXT_DATA__, "
        "no data-secure-cloud-price rows, no ld+json)"
    )


# --- GraphQL gpuTypes (live, captures, __NEXT_DATA__) --------------------------------------------


def _parse_graphql_envelope(payload: Any, observed_at: datetime) -> list[Offer]:
    if not isinstance(payload, dict):
        raise SchemaDriftError("GraphQL response is not an object")
    if payload.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in payload["errors"])
        raise SchemaDriftError(f"GraphQL errors: {messages[:300]}")
    data = payload.get("data")
    items = data.get("gpuTypes") if isinstance(data, dict) else None
    return list(_offers_from_gpu_types(items, "data.gpuTypes", GRAPHQL_URL, observed_at))


def _parse_next_data(script: str, observed_at: datetime) -> list[Offer]:
    try:
        payload = json.loads(script)
        items = payload["props"]["pageProps"]["data"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise SchemaDriftError(f"__NEXT_DATA__ without props.pageProps.data ({exc})") from None
    return list(_offers_from_gpu_types(items, "__NEXT_DATA__", LEGACY_PRICING_URL, observed_at))


def _offers_from_gpu_types(
    items: Any, layout: str, source_url: str, observed_at: datetime
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
        yield from _offers_from_gpu_type(item, explicit, layout, source_url, observed_at)


def _offers_from_gpu_type(
    item: dict[str, Any], explicit: bool, layout: str, source_url: str, observed_at: datetime
) -> Iterator[Offer]:
    gpu_id = item["id"]
    if not isinstance(gpu_id, str) or not gpu_id:
        raise SchemaDriftError(f"{layout}: gpu type id {gpu_id!r} is not a name")
    memory = item["memoryInGb"]
    if not _is_number(memory) or memory < 0:
        raise SchemaDriftError(f"{layout}: {gpu_id} memoryInGb {memory!r} is not a size")
    offered = {region: _flag(item, flag, gpu_id) for region, flag in _FLAGS.items()}
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
            raise SchemaDriftError(f"{layout}: {gpu_id} lowestPrice is not an object")
        for field, region, pricing in _LOWEST_PRICE_FIELDS:
            if lowest is not None and field not in lowest:
                raise SchemaDriftError(f"{layout}: {gpu_id} lowestPrice lacks {field}")
            value = None if lowest is None else lowest[field]
            candidates.append((f"lowestPrice.{field}", region, pricing, None, value))
        if "secureSpotPrice" in item:
            candidates.append(
                ("secureSpotPrice", SECURE, PricingModel.SPOT, None, item["secureSpotPrice"])
            )
    vram = decimal(memory) if memory > 0 else None
    mig = _mig_slice(gpu_id, vram)
    for field, region, pricing, term, raw in candidates:
        price = _price(raw, f"{layout}: {gpu_id} {field}")
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

    The share is the slice's memory over the full GPU's (1g.24gb of 96 GB -> 0.25). Raises
    ``SchemaDriftError`` for a GPU missing from ``MIG_FULL_GPU_MEMORY_GB`` or a slice whose
    ``memoryInGb`` (``vram``) is not the memory its profile names.
    """
    match = _MIG_ID.match(gpu_id)
    if match is None:
        return None
    full_vram = MIG_FULL_GPU_MEMORY_GB.get(match["gpu"])
    if full_vram is None:
        raise SchemaDriftError(f"MIG slice {gpu_id!r}: add its GPU to MIG_FULL_GPU_MEMORY_GB")
    slice_gb = Decimal(match["gb"])
    if vram is not None and vram != slice_gb:
        raise SchemaDriftError(f"MIG slice {gpu_id!r} reports {vram} GB, not {slice_gb}")
    if not 0 < slice_gb <= full_vram:
        raise SchemaDriftError(f"MIG slice {gpu_id!r} is not a part of a {full_vram} GB GPU")
    return match["gpu"], slice_gb / full_vram, full_vram


def _flag(item: dict[str, Any], key: str, gpu_id: str) -> bool | None:
    """The item's availability flag; None when the query did not ask for it."""
    if key not in item:
        return None
    value = item[key]
    if not isinstance(value, bool):
        raise SchemaDriftError(f"{gpu_id} {key} {value!r} is not a boolean")
    return value


def _price(value: Any, what: str) -> Decimal | None:
    """A price in USD, or None for "not offered" (null or 0)."""
    if value is None:
        return None
    if not (isinstance(value, str) or _is_number(value)):
        raise SchemaDriftError(f"{what}: {value!r} is not a price")
    try:
        price = decimal(value)
    except SchemaDriftError:
        raise SchemaDriftError(f"{what}: {value!r} is not a price") from None
    if price < 0:
        raise SchemaDriftError(f"{what}: negative price {price}")
    return price if price > 0 else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --- www.runpod.io/pricing rows with data attributes (2025-09) -----------------------------------


def _parse_pricing_rows(tree: LexborHTMLParser, observed_at: datetime) -> list[Offer]:
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
        specs: dict[str, Decimal] = {}
        for tag in tags.css(".gpu-pricing-row__tag"):
            value, label = (child.text(strip=True) for child in _children(tag))
            if label not in _ROW_TAGS:
                raise SchemaDriftError(f"{name}: unknown spec tag {label!r}")
            specs[_ROW_TAGS[label]] = decimal(value)
        if set(specs) != set(_ROW_TAGS.values()):
            raise SchemaDriftError(f"{name}: spec tags {sorted(specs)}, expected VRAM, RAM, vCPUs")
        wrapper = require(_sibling(tags, before=False), f"{name} price wrapper")
        if "gpu-pricing-row__price-wrapper" not in (wrapper.attributes.get("class") or ""):
            raise SchemaDriftError(f"{name}: no price wrapper after the spec tags")
        price_node = require(wrapper.css_first("[data-secure-cloud-price]"), f"{name} prices")
        for region, attribute in (
            (SECURE, "data-secure-cloud-price"),
            (COMMUNITY, "data-community-cloud-price"),
        ):
            raw = price_node.attributes.get(attribute)
            if raw is None:
                raise SchemaDriftError(f"{name}: missing {attribute}")
            price = _price(raw, f"{name} {attribute}")
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


def _parse_ld_json(scripts: list[LexborNode], observed_at: datetime) -> list[Offer]:
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
            offers.extend(_offers_from_ld_product(node, observed_at))
    return offers


def _offers_from_ld_product(product: dict[str, Any], observed_at: datetime) -> Iterator[Offer]:
    title = str(product.get("name", ""))
    if not title.endswith(_LD_PRODUCT_SUFFIX):
        raise SchemaDriftError(f"ld+json GPU product name {title!r} lacks {_LD_PRODUCT_SUFFIX!r}")
    name = title.removesuffix(_LD_PRODUCT_SUFFIX)
    aggregate = product.get("offers")
    entries = aggregate.get("offers") if isinstance(aggregate, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SchemaDriftError(f"ld+json {name}: no offers list in its AggregateOffer")
    for entry in entries:
        region = _LD_OFFER_REGIONS.get(entry.get("name"))
        if region is None:
            raise SchemaDriftError(f"ld+json {name}: unknown offer {entry.get('name')!r}")
        if "per-hour on-demand" not in str(entry.get("description", "")):
            raise SchemaDriftError(f"ld+json {name} {entry['name']}: not a per-hour on-demand rate")
        currency = entry.get("priceCurrency")
        if currency != CURRENCY:
            raise SchemaDriftError(f"ld+json {name} {entry['name']}: currency {currency!r}")
        price = _price(require(entry.get("price"), f"{name} price"), f"ld+json {name} price")
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
    token_env=TOKEN_ENV,  # optional: the gpuTypes query works without a key
    token_required=False,
    kind="cloud",
    notes="GraphQL gpuTypes; Secure/Community on-demand, spot and savings plans per GPU-hour.",
)
