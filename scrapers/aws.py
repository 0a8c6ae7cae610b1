"""AWS: EC2 on-demand Linux prices of GPU instances, from the JSON behind the EC2 pricing page.

Live: one ``GET`` per region (no auth, no paging) of ``REGION_URL_TEMPLATE``
(``https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/
ec2-ondemand-without-sec-sel/<Region name>/Linux/index.json``), the file that
https://aws.amazon.com/ec2/pricing/on-demand/ loads for its table, with the region's display
name URL-encoded as the page's script encodes it. Prices are USD per instance-hour.

Known layouts:

- **per region** (the live file): ``{"manifest": {...}, "regions": {"<Region name>": {"<key>":
  entry, ...}}, ...}``; an entry carries ``price``, ``Location``, ``Instance Type``,
  ``Instance Family``, ``vCPU``, ``Memory`` ("2048 GiB"), ``Storage`` ("8 x 3840 GB SSD" or
  "EBS only"), ``Operating System`` and ``Pre Installed S/W``.
- **merged**: ``{"<Region name>": {"regions": {"<Region name>": {...}}}, ...}`` -- several
  per-region files keyed by region (how the 7-region capture stores them).

In replay every request is answered with the same capture, so the same body arrives once per
request: a body already seen is parsed once (its exclusions are not counted again), and
identical offers for one instance type and region from different bodies are kept once,
different ones raise.

Regions: ``fetch`` asks for every region in ``REGIONS``. A region whose price file answers
HTTP 404 (AWS publishes no file for it) is skipped; so is a region that fails in any other way
once an earlier region has answered (the host works: the failure is that region's). Each skip
is logged as a warning on this module's logger and listed by ``fetch_with_skips`` as the part
"region <code>" (``region us-east-2``) with the one-line error; the skipped region's response
is simply not returned, so its offers are absent from the scrape and the other regions' offers
are published. A failure before any region has answered means the host itself is failing and
fails the provider at once (all regions share one host: trying the other 21, each with
retries, would only delay the same error), as does no region answering.

Rows: only GPU instances. Entry rules, in this order (exclusions counted by
``parse_with_exclusions``; an ``unknown_*`` reason names the row, so the table gets extended,
and the other rows' offers are still published):

1. Family (``p5`` of ``p5.48xlarge``) not in ``_FAMILIES`` and ``Instance Family`` not "GPU
   instance" -> ``not_gpu`` (CPU, FPGA, Trainium and Inferentia instances).
2. Pre-installed software -> ``preinstalled_software`` (a bundle price, not the instance's).
3. A "GPU instance" family not in ``_FAMILIES`` -> ``unknown_family <family>``; a size not in
   its family's sizes -> ``unknown_size <instance type>``.
4. ``Operating System`` other than Linux -> ``unknown_os <operating system>``.
5. ``Location`` not in ``REGIONS`` -> ``unknown_region <location>``.
6. A price, memory, storage or vCPU value that does not read -> ``unparsed_price``,
   ``unparsed_memory``, ``unparsed_storage``, ``unparsed_vcpus``.

Structure still raises ``SchemaDriftError``: a body that is not one of the layouts above, a
manifest in another currency, a price of 0 or less (a wrong price is rejected, never dropped:
docs/reliability.md), an entry that is not an object or lacks one of the fields every
entry has (``Instance Type``, ``price``, ``Location``, ...), an entry filed under another
region than its ``Location`` (the file's region keying changed), two different offers for one
instance type and region, and no offer at all.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any
from urllib.parse import quote

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
    gb_from_gib,
    json_body,
    offers_from_rows,
    unknown_row,
    unknown_rows,
)

PROVIDER_SLUG = "aws"
PRICING_PAGE_URL = "https://aws.amazon.com/ec2/pricing/on-demand/"
REGION_URL_TEMPLATE = (
    "https://b0.p.awsstatic.com/pricing/2.0/meteredUnitMaps/ec2/USD/current/"
    "ec2-ondemand-without-sec-sel/{region}/Linux/index.json"
)
CURRENCY = "USD"  # the file path asks for USD; a manifest naming another currency is drift
TOKEN_ENV = None
INSTANCE_SPECS_URL = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"
GPU_INSTANCE_FAMILY = "GPU instance"
EBS_ONLY = "ebs only"  # the Storage value of instances without local disks, lowercased
OPERATING_SYSTEM = "Linux"
NO_SOFTWARE = "NA"

# Pricing-file region names (the ``Location`` attribute) -> region codes. ``fetch`` asks for
# every region listed here; parse excludes an entry whose location is not listed.
REGIONS: dict[str, str] = {
    "US East (N. Virginia)": "us-east-1",
    "US East (Ohio)": "us-east-2",
    "US West (N. California)": "us-west-1",
    "US West (Oregon)": "us-west-2",
    "Canada (Central)": "ca-central-1",
    "South America (Sao Paulo)": "sa-east-1",
    "EU (Frankfurt)": "eu-central-1",
    "EU (Ireland)": "eu-west-1",
    "EU (London)": "eu-west-2",
    "EU (Paris)": "eu-west-3",
    "EU (Stockholm)": "eu-north-1",
    "EU (Milan)": "eu-south-1",
    "Asia Pacific (Tokyo)": "ap-northeast-1",
    "Asia Pacific (Seoul)": "ap-northeast-2",
    "Asia Pacific (Osaka)": "ap-northeast-3",
    "Asia Pacific (Singapore)": "ap-southeast-1",
    "Asia Pacific (Sydney)": "ap-southeast-2",
    "Asia Pacific (Mumbai)": "ap-south-1",
    "Asia Pacific (Hong Kong)": "ap-east-1",
    "Middle East (Bahrain)": "me-south-1",
    "Middle East (UAE)": "me-central-1",
    "Africa (Cape Town)": "af-south-1",
}

_STORAGE = re.compile(
    r"^(?P<disks>\d+) x (?P<size>[\d,]+)(?: (?P<unit>GB|TB))?(?: NVMe)?(?: SSD| HDD)?$"
)
_MEMORY = re.compile(r"^(?P<gib>[\d,.]+) GiB$")
# ``http.request`` fails a non-retryable status at once with "<METHOD> <url>: HTTP <status>"
_HTTP_STATUS = re.compile(r": HTTP (?P<status>\d{3})$")
MISSING_REGION_STATUS = 404

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Family:
    gpu_name: str
    vram_gb_per_gpu: Decimal  # per GPU as AWS documents it (its "GiB" are the vendor's "GB")
    gpus_by_size: Mapping[str, int | Decimal]  # a fraction: the instance's share of one GPU
    doc_url: str


_TYPES = "https://aws.amazon.com/ec2/instance-types/"
_SMALL_1_MID_4_BIG_8 = {
    "xlarge": 1,
    "2xlarge": 1,
    "4xlarge": 1,
    "8xlarge": 1,
    "16xlarge": 1,
    "12xlarge": 4,
    "24xlarge": 4,
    "48xlarge": 8,
}

# GPU instance families: GPU model and memory, and GPUs per size, from the family's instance-type
# page (URL on each row) and the accelerated-computing specs (INSTANCE_SPECS_URL).
# ``gpu_name`` names the exact part, because "A100 40GB" or "H100" alone is a PCIe card or an SXM
# module: P4d/P4de are 8 A100s on an NVSwitch board at 600 GB/s (HGX A100, SXM4; "8 x 40 GB
# NVIDIA Tesla A100 GPUs with NVSwitch",
# https://aws.amazon.com/blogs/compute/amazon-ec2-p4d-instances-deep-dive/), P5 is 8 H100s with
# 80 GB HBM3 each and 900 GB/s NVSwitch (SXM5; only the SXM part has HBM3 at 80 GB), P3/P3dn
# are V100 SXM2 modules on NVLink, P5e/P5en are H200 (SXM, the part AWS names H200).
#
# G6f/Gr6f are fractional L4 instances: each size gets a fixed share of one L4 (an NVIDIA vGPU
# profile: L4-3Q on g6f.large/xlarge, L4-6Q on g6f.2xlarge, L4-12Q on g6f.4xlarge and
# gr6f.4xlarge, i.e. 3/6/12 of the L4's 24 GB). ``gpu_count`` is that share (0.125, 0.25,
# 0.5), as for GCP's G4 shares; ``vram_gb_per_gpu`` stays the whole L4's 24 GB. G7 is the
# RTX PRO 4500 Blackwell Server Edition (32 GB GDDR7 per GPU), G7e the RTX PRO 6000 Blackwell
# Server Edition (96 GB); both 1 GPU up to 8xlarge, then 2 / 4 / 8 at 12x / 24x / 48xlarge.
# Sources: the accelerated-computing specs (INSTANCE_SPECS_URL) and the family pages on each
# row (https://aws.amazon.com/ec2/instance-types/g6/, .../g7/, .../g7e/).
_SHARES_OF_ONE_L4 = {
    "large": Decimal("0.125"),
    "xlarge": Decimal("0.125"),
    "2xlarge": Decimal("0.25"),
    "4xlarge": Decimal("0.5"),
}
_G7_SIZES = {
    "2xlarge": 1,
    "4xlarge": 1,
    "8xlarge": 1,
    "12xlarge": 2,
    "24xlarge": 4,
    "48xlarge": 8,
}
_FAMILIES: dict[str, _Family] = {
    "g7e": _Family(
        "NVIDIA RTX PRO 6000 Blackwell Server Edition", Decimal(96), _G7_SIZES, _TYPES + "g7e/"
    ),
    "g7": _Family(
        "NVIDIA RTX PRO 4500 Blackwell Server Edition", Decimal(32), _G7_SIZES, _TYPES + "g7/"
    ),
    "p6-b300": _Family("NVIDIA B300", Decimal("268.5"), {"48xlarge": 8}, _TYPES + "p6/"),
    "p6-b200": _Family("NVIDIA B200", Decimal(179), {"48xlarge": 8}, _TYPES + "p6/"),
    "p5en": _Family("NVIDIA H200", Decimal(141), {"48xlarge": 8}, _TYPES + "p5/"),
    "p5e": _Family("NVIDIA H200", Decimal(141), {"48xlarge": 8}, _TYPES + "p5/"),
    "p5": _Family("NVIDIA H100 SXM", Decimal(80), {"4xlarge": 1, "48xlarge": 8}, _TYPES + "p5/"),
    "p4de": _Family("NVIDIA A100 SXM4 80GB", Decimal(80), {"24xlarge": 8}, _TYPES + "p4/"),
    "p4d": _Family("NVIDIA A100 SXM4 40GB", Decimal(40), {"24xlarge": 8}, _TYPES + "p4/"),
    "p3dn": _Family("NVIDIA V100 SXM2 32GB", Decimal(32), {"24xlarge": 8}, _TYPES + "p3/"),
    "p3": _Family(
        "NVIDIA V100 SXM2 16GB",
        Decimal(16),
        {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8},
        _TYPES + "p3/",
    ),
    "g6e": _Family("NVIDIA L40S", Decimal(48), _SMALL_1_MID_4_BIG_8, _TYPES + "g6e/"),
    "g6": _Family("NVIDIA L4", Decimal(24), _SMALL_1_MID_4_BIG_8, _TYPES + "g6/"),
    "gr6": _Family("NVIDIA L4", Decimal(24), {"4xlarge": 1, "8xlarge": 1}, _TYPES + "g6/"),
    "g6f": _Family("NVIDIA L4", Decimal(24), _SHARES_OF_ONE_L4, _TYPES + "g6/"),
    "gr6f": _Family("NVIDIA L4", Decimal(24), {"4xlarge": Decimal("0.5")}, _TYPES + "g6/"),
    "g5": _Family("NVIDIA A10G", Decimal(24), _SMALL_1_MID_4_BIG_8, _TYPES + "g5/"),
    "g5g": _Family(
        "NVIDIA T4G",
        Decimal(16),
        {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 2, "metal": 2},
        _TYPES + "g5g/",
    ),
    "g4dn": _Family(
        "NVIDIA T4",
        Decimal(16),
        {
            "xlarge": 1,
            "2xlarge": 1,
            "4xlarge": 1,
            "8xlarge": 1,
            "16xlarge": 1,
            "12xlarge": 4,
            "metal": 8,
        },
        _TYPES + "g4/",
    ),
    "g4ad": _Family(
        "AMD Radeon Pro V520",
        Decimal(8),
        {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 2, "16xlarge": 4},
        _TYPES + "g4/",
    ),
    "g3": _Family(
        "NVIDIA Tesla M60",
        Decimal(8),
        {"4xlarge": 1, "8xlarge": 2, "16xlarge": 4},
        _TYPES + "g3/",
    ),
    "g3s": _Family("NVIDIA Tesla M60", Decimal(8), {"xlarge": 1}, _TYPES + "g3/"),
    "p2": _Family(
        "NVIDIA Tesla K80",
        Decimal(12),
        {"xlarge": 1, "8xlarge": 8, "16xlarge": 16},
        _TYPES + "p2/",
    ),
}


def region_url(region_name: str) -> str:
    """The per-region file URL; the name is encoded like JavaScript's ``encodeURIComponent``."""
    return REGION_URL_TEMPLATE.format(region=quote(region_name, safe="!'()*"))


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """GET the on-demand Linux price file of every region in ``REGIONS``, one request each.

    No auth (``token`` is ignored). Skipped regions (see the module docstring) are logged as
    warnings and their responses left out. Raises ``FetchError`` when the first request to
    answer fails for any reason other than HTTP 404, or when no region answers at all.
    """
    return fetch_with_skips(client, token)[0]


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """``fetch``, plus the skipped regions: "region <code>" -> the one-line ``FetchError`` text.

    Raises ``FetchError`` as ``fetch`` does; a skipped region never raises.
    """
    responses: list[RawResponse] = []
    skipped: dict[str, str] = {}
    for name, code in REGIONS.items():
        try:
            responses.append(http.get(client, region_url(name)))
        except FetchError as exc:
            if not responses and not _is_missing_region(exc):
                raise
            skipped[f"region {code}"] = str(exc)
            _log.warning("aws: region %s skipped, its offers are not in this scrape: %s", code, exc)
    if not responses:
        raise FetchError(f"AWS EC2 price files: no region answered ({len(skipped)} skipped)")
    return responses, skipped


def _is_missing_region(exc: FetchError) -> bool:
    match = _HTTP_STATUS.search(str(exc))
    return match is not None and int(match["status"]) == MISSING_REGION_STATUS


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers, one per GPU instance type and region: on-demand USD per instance-hour.

    Raises ``SchemaDriftError`` for an unknown layout, an entry missing a field, an entry filed
    under another region, two different offers for one instance type and region, and when all
    responses together yield no offer. Unknown GPU families, sizes and regions are excluded
    (``unknown_*``, see the module docstring), not raised.

    Returns the offers, and how many entries each documented exclusion rule dropped.
    """
    offers: dict[tuple[str, str], Offer] = {}
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        for region_name, entries in _region_files(response):
            read = partial(_parse_entry, region_name=region_name, response=response)
            for offer in offers_from_rows(entries.items(), read, excluded):
                _add_unique(offers, offer)
    if not offers:
        unknown = ", ".join(sorted(unknown_rows(excluded))[:10])
        raise SchemaDriftError(
            "AWS EC2 on-demand prices: no known GPU instance in any response"
            + (f" (unknown rows: {unknown})" if unknown else "")
        )
    return list(offers.values()), excluded


def _region_files(response: RawResponse) -> list[tuple[str, dict[str, Any]]]:
    """(region name, entries by key) for each per-region file the response holds."""
    body = json_body(response)
    if not isinstance(body, dict) or not body:
        raise SchemaDriftError(f"{response.url}: expected a JSON object of regions")
    if "regions" in body:
        return _per_region_file(body, response)
    files: list[tuple[str, dict[str, Any]]] = []
    for name, part in body.items():
        if not isinstance(part, dict) or "regions" not in part:
            raise SchemaDriftError(
                f"{response.url}: neither a per-region price file nor a merge of them "
                f"({name!r} has no 'regions')"
            )
        files.extend(_per_region_file(part, response))
    return files


def _per_region_file(
    body: dict[str, Any], response: RawResponse
) -> list[tuple[str, dict[str, Any]]]:
    manifest = body.get("manifest")
    if isinstance(manifest, dict) and manifest.get("currencyCode") not in (None, CURRENCY):
        raise SchemaDriftError(f"{response.url}: currency {manifest['currencyCode']!r}")
    regions = body["regions"]
    if not isinstance(regions, dict) or not regions:
        raise SchemaDriftError(f"{response.url}: 'regions' is empty or not an object")
    for name, entries in regions.items():
        if not isinstance(entries, dict):
            raise SchemaDriftError(f"{response.url}: region {name!r} is not an object")
    return list(regions.items())


def _parse_entry(item: tuple[str, Any], region_name: str, response: RawResponse) -> Offer:
    key, entry = item
    if not isinstance(entry, dict):
        raise SchemaDriftError(f"{response.url}: entry {key!r} is not an object")
    instance_type = _text(entry, "Instance Type", key, response)
    family, _, size = instance_type.partition(".")
    spec = _FAMILIES.get(family)
    if spec is None and entry.get("Instance Family") != GPU_INSTANCE_FAMILY:
        raise RowExcluded("not_gpu")
    # before the family and size checks: the live file lists each instance type once per
    # software bundle, and a new family must count once per instance type, not once per bundle
    if _text(entry, "Pre Installed S/W", key, response) != NO_SOFTWARE:
        raise RowExcluded("preinstalled_software")
    if spec is None:
        raise RowExcluded(unknown_row("family", family))  # add it to _FAMILIES
    if size not in spec.gpus_by_size:
        raise RowExcluded(unknown_row("size", instance_type))  # add it to _FAMILIES[family]
    operating_system = _text(entry, "Operating System", key, response)
    if operating_system != OPERATING_SYSTEM:
        raise RowExcluded(unknown_row("os", operating_system))
    location = _text(entry, "Location", key, response)
    if location != region_name:
        raise SchemaDriftError(f"{response.url}: {key!r} is in {location!r}, not {region_name!r}")
    region = REGIONS.get(location)
    if region is None:
        raise RowExcluded(unknown_row("region", location))  # add it to REGIONS
    price = _number(_text(entry, "price", key, response))
    if price is None:
        raise RowExcluded("unparsed_price")
    if price <= 0:  # rejected, not excluded: a wrong price must fail the scrape
        raise SchemaDriftError(f"{response.url}: {instance_type} in {region}: price {price}")
    ram_gb = _memory_gb(_text(entry, "Memory", key, response))
    if ram_gb is None:
        raise RowExcluded("unparsed_memory")
    storage_text = _text(entry, "Storage", key, response)
    storage_gb = _storage_gb(storage_text)
    if storage_gb is None and storage_text.lower() != EBS_ONLY:
        raise RowExcluded("unparsed_storage")
    vcpus = _number(_text(entry, "vCPU", key, response))
    if vcpus is None:
        raise RowExcluded("unparsed_vcpus")
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=instance_type,
        region=region,
        gpu_name=spec.gpu_name,
        gpu_count=Decimal(spec.gpus_by_size[size]),
        vram_gb_reported=spec.vram_gb_per_gpu,
        vcpus=vcpus,
        ram_gb=ram_gb,
        storage_gb=storage_gb,
        pricing=PricingModel.ON_DEMAND,
        price=price,
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        source_url=region_url(location),
        observed_at=response.fetched_at,
    )


def _text(entry: dict[str, Any], field: str, key: str, response: RawResponse) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not value.strip():
        raise SchemaDriftError(f"{response.url}: entry {key!r} lacks {field!r}")
    return value.strip()


def _number(text: str) -> Decimal | None:
    """The text as a Decimal; None when it is not a (finite) number."""
    try:
        value = decimal(text)
    except SchemaDriftError:
        return None
    return value if value.is_finite() else None


def _memory_gb(text: str) -> Decimal | None:
    """Memory in GB from "N GiB"; None when the text has another form."""
    match = _MEMORY.match(text)
    return None if match is None else gb_from_gib(match["gib"])


def _storage_gb(text: str) -> Decimal | None:
    """Local instance storage in GB from "N x M GB"; None for EBS only (no local disks) and for
    text of another form (the caller tells the two apart)."""
    match = _STORAGE.match(text)
    if match is None:
        return None
    per_disk = decimal(match["size"]) * (1000 if match["unit"] == "TB" else 1)
    return Decimal(match["disks"]) * per_disk


def _add_unique(offers: dict[tuple[str, str], Offer], offer: Offer) -> None:
    """Keep one offer per instance type and region; identical repeats (the same capture answering
    every region's request in replay) are dropped, a different offer for the same key raises."""
    key = (offer.instance_type, offer.region)
    seen = offers.get(key)
    if seen is None:
        offers[key] = offer
    elif seen.model_dump(exclude={"observed_at"}) != offer.model_dump(exclude={"observed_at"}):
        raise SchemaDriftError(
            f"two different offers for {offer.instance_type} in {offer.region}: "
            f"{seen.price} and {offer.price} {offer.currency}/h"
        )


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Amazon Web Services",
    homepage=PRICING_PAGE_URL,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    fetch_with_skips=fetch_with_skips,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="On-demand Linux prices of GPU instance families, one request per region.",
)
