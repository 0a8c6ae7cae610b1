"""Scaleway: GPU Instance types and their prices, from the Instance API's product catalog.

Live: ``GET https://api.scaleway.com/instance/v1/zones/{zone}/products/servers?per_page=100&page=N``
("List Instance types": every Instance type of a zone with its specs and its hourly and monthly
price; ``per_page`` at most 100, ``page`` from 1;
https://www.scaleway.com/en/developers/api/instance/instance-types). Scaleway's APIs take the
secret key in an ``X-Auth-Token`` header (https://www.scaleway.com/en/developers/api/ quickstart,
https://Scaleway.com/en/api/ "Authentication"); the catalog was answered without one when it was
captured (``../shared/snapshots/scaleway``, 2026-08-22, PROVENANCE.md), so the key is optional:
``SCW_SECRET_KEY`` is sent when set.

Pagination: pages are requested from 1 until one holds fewer than ``PER_PAGE`` types (a short
page is the last), at most ``MAX_PAGES``. A page after the first that fails is reported as the
skipped part ``page <n>`` (``fetch_with_skips``) and the pages read are published; the first
failing fails the scrape. An Instance type met on two pages means the catalog shifted while it
was paged (rows may be missing unseen): ``SchemaDriftError``.

Zones: ``ZONES`` lists every zone where Scaleway sells GPU Instances, per its product
availability guide (https://www.scaleway.com/en/docs/account/reference-content/products-availability/,
validated 2025-12-04; source scaleway/docs-content
``pages/account/reference-content/products-availability.mdx``): PAR2 (B300-SXM, H100-SXM,
H100, L40S, L4), PAR1 (RENDER-S, the P100) and WAW2 (H100, L40S, L4); no GPU in Amsterdam.
These are zones of the Instance API's ``zone`` path parameter (its enum: fr-par-1..3,
nl-ams-1..3, pl-waw-1..2, https://www.scaleway.com/en/developers/api/instance/instance-types).
fr-par-2 comes first: it is the zone captured (``../shared/snapshots/scaleway``). Each zone is
paged on its own; a later zone's first page failing is the skipped part ``<zone> page 1`` (the
other zones are published), fr-par-2's first page failing fails the fetch. The response does
not name its zone, so the offers' region is the zone of the request URL (``unknown`` for a body
read from a file).

Replay: a single-file capture answers every request of a scrape with its bytes, stamped with
its capture time; a per-exchange ``.har`` capture answers each zone's and page's request with
its own response (``scrapers.replay``). An answer equal in body and ``fetched_at`` to an earlier
one is that one recorded answer given again (a live exchange has its own fetch time), so it is
read once, under the zone that asked it first: the fr-par-2 captures replay to fr-par-2's
offers, and two zones that answer live with the same bytes are both read.

Layout: ``{"servers": {"<commercial type>": {...}}}``; a type carries ``gpu`` (GPUs per
Instance), ``gpu_info`` (``gpu_name`` such as ``H100-SXM``, ``gpu_memory`` in bytes), ``ncpus``,
``ram`` (bytes), ``scratch_storage_max_size`` (bytes of local scratch NVMe), ``hourly_price``
and ``monthly_price`` (EUR per Instance, excl. VAT; the monthly price is the hourly one x 730
on every GPU type, a derived display figure and not a commitment, so it is not an offer of its
own), ``mig_profile`` and ``end_of_service``.

Rules (one count per type, ``offers_from_rows``):

- ``gpu`` 0 or absent -> ``no_gpu`` (CPU Instances);
- ``mig_profile`` set -> ``mig_slice`` (a fraction of a GPU the catalog does not quantify);
- ``gpu_info.gpu_name`` not in ``KNOWN_GPUS`` -> ``unknown_gpu <name>``;
- ``hourly_price`` missing or not a finite number -> ``unparsed_price``; a zero or negative
  price is emitted as read (the loader rejects the scrape);
- otherwise one on-demand offer: EUR per Instance per hour, ``region`` the zone,
  ``available`` False for a type marked ``end_of_service``.

``SchemaDriftError``: a body without the ``servers`` object, a type that is not an object or
whose ``gpu`` count is not a whole number, a type on two pages, no GPU offer at all.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
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
    json_body,
    offers_from_rows,
    unknown_row,
)

PROVIDER_SLUG = "scaleway"
HOMEPAGE = "https://www.scaleway.com/en/gpu-instances/"
API_URL = "https://api.scaleway.com/instance/v1/zones/{zone}/products/servers"
ZONES = ("fr-par-2", "fr-par-1", "pl-waw-2")  # every zone selling GPU Instances (docstring)
PER_PAGE = 100  # the API's maximum
MAX_PAGES = 5  # ~140 types per zone in 2026: two pages
TOKEN_ENV = "SCW_SECRET_KEY"  # optional: the catalog answers without it
CURRENCY = "EUR"
UNKNOWN_ZONE = "unknown"  # the region of a body not fetched from a zone's URL (never placed)
BYTES_PER_GB = Decimal(10) ** 9
# The catalog's GPU names (``gpu_info.gpu_name``) this parser has read off the capture; each is
# emitted as spelled (warehouse/seeds/gpu_aliases.csv resolves them). A new one is left out as
# ``unknown_gpu <name>`` until checked.
KNOWN_GPUS = frozenset({"B300-SXM", "H100-PCIe", "H100-SXM", "L4", "L40S", "P100"})


def zone_url(zone: str) -> str:
    return API_URL.format(zone=zone)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Every page of every zone's catalog; raises ``FetchError`` on any failed request."""
    responses, skipped = fetch_with_skips(client, token)
    if skipped:
        raise FetchError("; ".join(f"{part}: {error}" for part, error in skipped.items()))
    return responses


def fetch_with_skips(
    client: httpx.Client, token: str | None
) -> tuple[list[RawResponse], dict[str, str]]:
    """The catalog pages of each zone in ``ZONES``, and the parts not read.

    The first zone's first page failing raises ``FetchError`` (the API is not answering: one
    request retried, no other sent); any later page failing, or a page past ``MAX_PAGES``, ends
    that zone's paging and is reported as ``"<zone> page <n>"``.
    """
    headers = {"Accept": "application/json"}
    if token:
        headers["X-Auth-Token"] = token
    responses: list[RawResponse] = []
    skipped: dict[str, str] = {}
    for zone in ZONES:
        for page in range(1, MAX_PAGES + 2):
            part = f"{zone} page {page}"
            if page > MAX_PAGES:
                skipped[part] = f"GET {zone_url(zone)}: more than {MAX_PAGES} pages, not read"
                break
            params = {"per_page": PER_PAGE, "page": page}
            try:
                response = http.get(client, zone_url(zone), params=params, headers=headers)
            except FetchError as exc:
                if not responses:
                    raise  # the first zone's first page: Scaleway's API is not answering
                skipped[part] = str(exc)
                break
            responses.append(response)
            if _page_size(response) < PER_PAGE:
                break  # a short page is the last one
    return responses, skipped


def _page_size(response: RawResponse) -> int:
    try:
        servers = json_body(response).get("servers")
    except (SchemaDriftError, AttributeError):
        return 0  # parse reports the body
    return len(servers) if isinstance(servers, dict) else 0


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """One on-demand offer per GPU Instance type and zone: EUR per Instance per hour.

    Raises ``SchemaDriftError`` as the module docstring says; a type that is not a GPU offer is
    counted under its rule. Returns the offers, and the types left out per reason.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for response in _distinct_answers(responses):
        zone = _zone(response)
        servers = _servers(response)
        for name in servers:
            if (zone, name) in seen:
                raise SchemaDriftError(
                    f"{response.url}: Instance type {name!r} is on two pages (the catalog"
                    " shifted while it was paged)"
                )
            seen.add((zone, name))
        offers.extend(
            offers_from_rows(
                servers.items(), partial(_read_type, response=response, zone=zone), excluded
            )
        )
    if not offers:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()))
        raise SchemaDriftError(f"Scaleway catalog: no GPU Instance type (excluded: {reasons})")
    return offers, excluded


def _distinct_answers(responses: Sequence[RawResponse]) -> list[RawResponse]:
    """``responses`` without repeats: a body a zone already answered (``distinct_bodies``, per
    zone), or an answer equal in body and fetch time to an earlier one of any zone (one recorded
    answer replayed for several requests; module docstring)."""
    seen_answers: set[tuple[bytes, datetime]] = set()
    seen_zone_bodies: set[tuple[str, bytes]] = set()
    kept = []
    for response in responses:
        answer, zone_body = (response.body, response.fetched_at), (_zone(response), response.body)
        if answer in seen_answers or zone_body in seen_zone_bodies:
            continue
        seen_answers.add(answer)
        seen_zone_bodies.add(zone_body)
        kept.append(response)
    return kept


def _zone(response: RawResponse) -> str:
    """The zone of the catalog URL the response answered; ``UNKNOWN_ZONE`` for a body read
    from elsewhere (a file), since the body never names its zone."""
    parts = httpx.URL(response.url).path.split("/")
    if "zones" in parts and parts.index("zones") + 1 < len(parts):
        return parts[parts.index("zones") + 1]
    return UNKNOWN_ZONE


def _servers(response: RawResponse) -> dict[str, Any]:
    body = json_body(response)
    servers = body.get("servers") if isinstance(body, dict) else None
    if not isinstance(servers, dict):
        raise SchemaDriftError(f"{response.url}: expected {{'servers': {{type: {{...}}}}}}")
    return servers


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _read_type(item: tuple[str, Any], response: RawResponse, zone: str) -> Offer:
    name, spec = item
    if not isinstance(spec, dict):
        raise SchemaDriftError(f"{response.url}: Instance type {name!r} is not an object")
    count = spec.get("gpu") or 0
    if not _number(count) or int(count) != count:
        raise SchemaDriftError(f"{response.url}: {name!r} has a GPU count {count!r}")
    if count <= 0:
        raise RowExcluded("no_gpu")
    if spec.get("mig_profile") is not None:
        raise RowExcluded("mig_slice")
    info: dict[str, Any] = spec["gpu_info"] if isinstance(spec.get("gpu_info"), dict) else {}
    gpu_name = info.get("gpu_name")
    if gpu_name not in KNOWN_GPUS:
        raise RowExcluded(unknown_row("gpu", str(gpu_name)))
    hourly = spec.get("hourly_price")
    if not isinstance(hourly, int | float) or isinstance(hourly, bool) or not math.isfinite(hourly):
        raise RowExcluded("unparsed_price")
    return Offer(
        provider=PROVIDER_SLUG,
        instance_type=name,
        region=zone,
        gpu_name=str(gpu_name),
        gpu_count=Decimal(int(count)),
        vram_gb_reported=_gb(info.get("gpu_memory")),
        vcpus=Decimal(spec["ncpus"]) if _number(spec.get("ncpus")) else None,
        ram_gb=_gb(spec.get("ram")),
        storage_gb=_gb(spec.get("scratch_storage_max_size")),
        pricing=PricingModel.ON_DEMAND,
        price=decimal(hourly),
        currency=CURRENCY,
        price_unit=PriceUnit.HOUR,
        price_per=PricePer.INSTANCE,
        available=False if spec.get("end_of_service") is True else None,
        source_url=str(httpx.URL(response.url).copy_with(query=None)),
        observed_at=response.fetched_at,
    )


def _gb(size_bytes: Any) -> Decimal | None:
    """Bytes to decimal GB (1e9 bytes), 0.1 GB; None for a missing or non-positive size."""
    if not _number(size_bytes) or size_bytes <= 0:
        return None
    return (decimal(size_bytes) / BYTES_PER_GB).quantize(Decimal("0.1"))


PROVIDER = Provider(
    slug=PROVIDER_SLUG,
    name="Scaleway",
    homepage=HOMEPAGE,
    fetch=fetch,
    fetch_with_skips=fetch_with_skips,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes="Instance API product catalog of each GPU zone (fr-par-2, fr-par-1, pl-waw-2), paged;"
    " EUR per Instance-hour excl. VAT",
)
