"""Oracle Cloud (OCI): GPU prices from the public OCI price list API.

Live: ``GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD``,
no auth (Oracle links it as its price list API from
https://docs.oracle.com/en-us/iaas/Content/GSG/Tasks/signingup_topic-Estimating_Costs.htm#accessing_list_pricing).
Known layout: ``{"lastUpdated": ..., "items": [...]}``, the whole price list in one response
(the 2026-10 capture keeps only its GPU-related items). The API is served by Oracle APEX/ORDS,
whose paged collections add ``hasMore`` and a ``links`` entry ``rel: next``; should those
appear, fetch follows them (hard cap ``MAX_PAGES``). A page after the first that fails (after
retries) ends the walk and is reported by ``fetch_with_skips`` as the skipped part "page <n>"
(the pages after it need its next link); the pages before it are published. The first request
failing fails the provider (``FetchError``).

OCI prices GPU compute per GPU per hour (metric "GPU Per Hour"), one part number per GPU
generation, the same in every commercial region ("All the OCI region have same pricing",
https://docs.oracle.com/en/cloud/paas/ociov/oci_governance.html), hence region "global".

The price list names parts, not shapes. ``PARTS`` maps each GPU part to the shapes it prices
and their GPU model, GPU count and GPU memory. Shapes and specs:
https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm (GPU shapes,
bare metal and VM). Part -> shape links: Oracle's Cost Estimator shape list
(https://www.oracle.com/a/ocom/docs/cloudestimator2/data/shapes.json, each shape names the
part number that prices it; as recorded on 2026-09-18 in
https://github.com/dstackai/gpuhunt/blob/main/src/tests/providers/test_oci.py) and the part
names (X7 = BM.GPU2/VM.GPU2 P100 per the shapes page; "GPU Standard - V2" = V100, the part of
VM.GPU3.1).

One offer per part and shape: price per GPU per hour as listed, ``gpu_count`` = GPUs in the
shape. Item rules, in this order (exclusions counted by ``parse_with_exclusions``):

1. ``metricName`` other than "GPU Per Hour" -> ``not_gpu_hour`` (VMware nodes, Roving Edge
   devices, Cloud@Customer racks priced per node, per day, ...).
2. Cloud@Customer parts -> ``cloud_at_customer``: GPUs in the customer's data center.
3. Parts in ``UNMAPPED_PARTS`` -> ``no_documented_shape`` (the reason is given per part).
4. Any other part not in ``PARTS`` -> ``unknown_part <part number> <display name>``, so the
   table gets extended instead of a shape being guessed; the other parts are still published.
5. Price: no single USD localization -> ``no_usd_price``; no single pay-as-you-go price ->
   ``no_pay_as_you_go_price``; a value that is not a number -> ``unparsed_price``; 0 or less
   raises (a wrong price is rejected, never dropped: docs/reliability.md).

Structure still raises ``SchemaDriftError``: a body without an ``items`` list, an item that is
not an object or lacks ``partNumber`` / ``displayName`` / ``metricName``, ``hasMore`` without a
next link, duplicate offers, and no offer at all (the message lists what was excluded, so a
price list that lost its USD or pay-as-you-go prices everywhere says so).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
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
    unknown_rows,
)

PROVIDER_SLUG = "oracle"
HOMEPAGE = "https://www.oracle.com/cloud/compute/gpu/pricing/"
PRODUCTS_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"
CURRENCY = "USD"
QUERY_PARAMS = {"currencyCode": CURRENCY}
SOURCE_URL = f"{PRODUCTS_URL}?currencyCode={CURRENCY}"
MAX_PAGES = 20
TOKEN_ENV = None
REGION = "global"
GPU_HOUR_METRIC = "GPU Per Hour"
PAY_AS_YOU_GO = "PAY_AS_YOU_GO"
CLOUD_AT_CUSTOMER = "Cloud@Customer"

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Part:
    gpu_name: str  # as the shapes page names the GPU
    vram_gb_per_gpu: Decimal | None
    shapes: tuple[tuple[str, int], ...]  # (shape, GPUs in it)


PARTS: dict[str, _Part] = {
    # "Compute - Bare Metal GPU Standard - X7" / "Compute - Virtual Machine GPU Standard - X7":
    # the X7-based GPU2 series, NVIDIA Tesla P100 16 GB.
    "B88517": _Part("NVIDIA Tesla P100", Decimal(16), (("BM.GPU2.2", 2),)),
    "B88518": _Part("NVIDIA Tesla P100", Decimal(16), (("VM.GPU2.1", 1),)),
    # "Compute - GPU Standard - V2": GPU3 series, NVIDIA Tesla V100 16 GB.
    "B89734": _Part(
        "NVIDIA Tesla V100",
        Decimal(16),
        (("VM.GPU3.1", 1), ("VM.GPU3.2", 2), ("VM.GPU3.4", 4), ("BM.GPU3.8", 8)),
    ),
    # "Compute - GPU - E3": BM.GPU4, E3-based, NVIDIA A100 40 GB. OCI's 8-GPU A100 and H100 bare
    # metal shapes (BM.GPU4.8, BM.GPU.A100-v2.8, BM.GPU.H100.8) are HGX systems, 8 SXM modules on
    # NVSwitch; "A100 40GB" alone would also name the PCIe card, so the part is named exactly.
    "B92740": _Part("NVIDIA A100 SXM4 40GB", Decimal(40), (("BM.GPU4.8", 8),)),
    # "Compute - GPU - A100 - v2": BM.GPU.A100-v2, NVIDIA A100 80 GB (SXM4, see above).
    "B95907": _Part("NVIDIA A100 SXM4 80GB", Decimal(80), (("BM.GPU.A100-v2.8", 8),)),
    "B95909": _Part(
        "NVIDIA A10",
        Decimal(24),
        (("VM.GPU.A10.1", 1), ("VM.GPU.A10.2", 2), ("BM.GPU.A10.4", 4)),
    ),
    # BM.GPU.H100.8: HGX H100, SXM5 modules (see BM.GPU4 above).
    "B98415": _Part("NVIDIA H100 SXM", Decimal(80), (("BM.GPU.H100.8", 8),)),
    "B109479": _Part("NVIDIA L40S", Decimal(48), (("BM.GPU.L40S.4", 4),)),
    "B109485": _Part("AMD MI300X", Decimal(192), (("BM.GPU.MI300X.8", 8),)),
    "B110519": _Part("NVIDIA H200", Decimal(141), (("BM.GPU.H200.8", 8),)),
    "B110978": _Part("NVIDIA B200", Decimal(180), (("BM.GPU.B200.8", 8),)),
    # GB200/GB300: the shapes page lists "4 x NVIDIA Blackwell B200 192 GB" / "B300 278 GB".
    "B110979": _Part("NVIDIA GB200", Decimal(192), (("BM.GPU.GB200.4", 4),)),
    "B112140": _Part("NVIDIA GB300", Decimal(278), (("BM.GPU.GB300.4", 4),)),
    "B111758": _Part("AMD MI355X", Decimal(288), (("BM.GPU.MI355X.8", 8),)),
    # Not on the shapes page yet; the Cost Estimator gives 2100 GB for 8 GPUs (262.5 each),
    # which does not match any B300 part, so GPU memory is left unknown.
    "B112237": _Part("NVIDIA B300", None, (("BM.GPU.B300.8", 8),)),
    # Cost Estimator: 8 GPUs, 768 GB GPU memory (96 GB each).
    "B112613": _Part("NVIDIA RTX PRO 6000", Decimal(96), (("BM.GPU.RTXPRO.8", 8),)),
}

# GPU-hour parts that no documented shape uses: excluded rather than guessed.
UNMAPPED_PARTS: dict[str, str] = {
    "B93544": "'GPU - E4' (A100 40 GB on E4?) is the part of no shape in the Cost Estimator",
    "B109480": "'GPU - H100T' is the part of no documented shape",
}


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the USD price list, following ORDS ``next`` links while ``hasMore`` is true.

    No auth (``token`` is ignored). A page after the first that fails is logged and left out
    with the pages after it (see ``fetch_with_skips``). Raises ``FetchError`` when the first
    request fails or more than ``MAX_PAGES`` pages come back, ``SchemaDriftError`` when
    ``hasMore`` has no next link.
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
    url: str | None = PRODUCTS_URL
    params: dict[str, str] | None = QUERY_PARAMS
    while url is not None:
        if len(responses) == MAX_PAGES:
            raise FetchError(f"GET {PRODUCTS_URL}: still hasMore after {MAX_PAGES} pages")
        try:
            response = http.get(client, url, params=params)
        except FetchError as exc:
            if not responses:
                raise
            page = len(responses) + 1
            skipped[f"page {page}"] = f"{exc}; the pages after it were not fetched"
            _log.warning("oracle: page %d failed, earlier pages published: %s", page, exc)
            break
        responses.append(response)
        url, params = _next_link(response), None  # a next link carries its own query
    return responses, skipped


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers per GPU part and shape: on-demand list price in USD per GPU per hour, "global".

    Raises ``SchemaDriftError`` for an unknown layout, an item missing a field, duplicate
    offers, and when all responses together yield no offer. A GPU-hour part missing from
    ``PARTS`` or without a readable price is excluded (see the module docstring), not raised.

    Returns the offers, and how many items each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        offers.extend(
            offers_from_rows(enumerate(_items(response)), partial(_parse_item, response), excluded)
        )
    if not offers:
        unknown = unknown_rows(excluded)
        reasons = sorted(excluded, key=lambda reason: (reason not in unknown, reason))
        counts = ", ".join(f"{reason} {excluded[reason]}" for reason in reasons[:10])
        raise SchemaDriftError(
            "OCI price list: no priced GPU-hour part of a known shape in any response"
            + (f" (excluded: {counts})" if counts else "")
        )
    return ensure_unique(offers), excluded


def _items(response: RawResponse) -> list[Any]:
    body = json_body(response)
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        raise SchemaDriftError(f"{response.url}: expected the price list object with an items list")
    return body["items"]


def _next_link(response: RawResponse) -> str | None:
    """The ORDS ``next`` link when the page says ``hasMore``; None for the one-page list."""
    try:
        body = json_body(response)
    except SchemaDriftError:
        return None  # parse reports the layout
    if not isinstance(body, dict) or body.get("hasMore") is not True:
        return None
    links = body.get("links")
    for link in links if isinstance(links, list) else []:
        if (
            isinstance(link, dict)
            and link.get("rel") == "next"
            and isinstance(link.get("href"), str)
        ):
            return link["href"]
    raise SchemaDriftError(f"{response.url}: hasMore is true but there is no next link")


def _parse_item(response: RawResponse, numbered: tuple[int, Any]) -> list[Offer]:
    index, item = numbered
    if not isinstance(item, dict):
        raise SchemaDriftError(f"{response.url}: item {index} is not an object")
    part, name, metric = item.get("partNumber"), item.get("displayName"), item.get("metricName")
    if not all(isinstance(value, str) and value for value in (part, name, metric)):
        raise SchemaDriftError(
            f"{response.url}: item {index} lacks partNumber/displayName/metricName"
        )
    assert isinstance(part, str) and isinstance(name, str)
    if metric != GPU_HOUR_METRIC:
        raise RowExcluded("not_gpu_hour")
    if CLOUD_AT_CUSTOMER in name or CLOUD_AT_CUSTOMER in str(item.get("serviceCategory", "")):
        raise RowExcluded("cloud_at_customer")
    if part in UNMAPPED_PARTS:
        raise RowExcluded("no_documented_shape")
    spec = PARTS.get(part)
    if spec is None:
        raise RowExcluded(unknown_row("part", f"{part} {name}"))  # add it to PARTS
    price = _pay_as_you_go(item)
    if isinstance(price, str):
        raise RowExcluded(price)
    return [
        Offer(
            provider=PROVIDER_SLUG,
            instance_type=shape,
            region=REGION,
            gpu_name=spec.gpu_name,
            gpu_count=Decimal(count),
            vram_gb_reported=spec.vram_gb_per_gpu,
            pricing=PricingModel.ON_DEMAND,
            price=price,
            currency=CURRENCY,
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.GPU,
            source_url=SOURCE_URL,
            observed_at=response.fetched_at,
        )
        for shape, count in spec.shapes
    ]


def _pay_as_you_go(item: dict[str, Any]) -> Decimal | str:
    """The part's single pay-as-you-go price in ``CURRENCY``, or the exclusion reason when it
    is absent, ambiguous, not a number or not positive."""
    localizations = item.get("currencyCodeLocalizations")
    local = [
        entry
        for entry in (localizations if isinstance(localizations, list) else [])
        if isinstance(entry, dict) and entry.get("currencyCode") == CURRENCY
    ]
    if len(local) != 1 or not isinstance(local[0].get("prices"), list):
        return "no_usd_price"
    values = [
        price.get("value")
        for price in local[0]["prices"]
        if isinstance(price, dict) and price.get("model") == PAY_AS_YOU_GO
    ]
    if len(values) != 1:
        return "no_pay_as_you_go_price"
    value = values[0]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return "unparsed_price"
    try:
        price = decimal(value)
    except SchemaDriftError:
        return "unparsed_price"
    if not price.is_finite():
        return "unparsed_price"
    if price <= 0:  # rejected, not excluded: a wrong price must fail the scrape
        raise SchemaDriftError(f"OCI part {item.get('partNumber')}: price {price} is not positive")
    return price


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Oracle Cloud Infrastructure",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="List prices per GPU-hour, identical in all commercial regions (region 'global').",
)
