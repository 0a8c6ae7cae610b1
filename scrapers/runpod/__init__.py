"""RunPod: per-GPU hourly prices of Pods (Secure Cloud, Community Cloud, spot, savings plans),
and per data centre / country with the vCPU and RAM of a one-GPU Pod.

The package: ``fetch`` (the live GraphQL requests: URL, queries, auth, location fan-out),
``common`` (the gpu type ids and page names known, price rules, how an offer is built),
``gpu_types`` (the ``gpuTypes`` item lists every API layout carries) and one module per layout
under ``layouts/``, each recognised from the response (``detect``), split into rows (``rows``)
and read one row at a time (``read_row``, through ``scrapers.parsing.offers_from_rows``). The
layouts, oldest first; anything else raises ``SchemaDriftError``:

- ``next_data``: www.runpod.io/gpu-instance/pricing with the gpuTypes embedded (2023-09);
- ``gpu_types_array``: the live query's items without the envelope (2025-06);
- ``pricing_rows``: www.runpod.io/pricing rows with ``data-secure-cloud-price`` and
  ``data-community-cloud-price`` attributes plus VRAM/RAM/vCPU tags (2025-09);
- ``lowest_price_items``: items with ``lowestPrice{minimumBidPrice uninterruptablePrice}`` and
  ``secureSpotPrice`` but no securePrice/communityPrice (2026-03);
- ``ld_json``: www.runpod.io/pricing schema.org ``Product`` entries (2026-08);
- ``graphql``: ``{"data": {"gpuTypes": [...]}}``, today's live per-tier answer (c2026-09);
- ``locations`` and ``location``: the live catalog of data centres and countries (flags, no
  prices) and each one's answer (told by the request URL's fragment, ``fetch.location_url``).

Offers (all ``gpu_count`` 1, USD per GPU per hour, ``price_per`` gpu; MIG slices aside, see
``common``): on-demand and spot per tier, savings plans (1, 3, 6 months) for Secure Cloud, each
RunPod-wide (region ``global``, ``cloud_tier`` the tier); live also per data centre / country.

Availability (``Offer.available``): a location offer is available (RunPod reports stock there).
In the 2023 capture the Community ``lowestPrice.stockStatus`` says whether Community Cloud has
stock (null: not available). A tier flagged ``false`` (``offered=False``) is not available.
Spot offers carry ``SPOT_END_OF_SERVICE`` as ``available_until``: RunPod ends spot Pods, so
from that date on they are not available. Anything else: unknown (None).

Exclusions (counted by ``parse_with_exclusions``, keyed by reason; each layout's module lists
its own). One item or row never fails the scrape: it is left out and counted, the rest
published (``Provider.parse_report`` still fails it when no known row is left, or more than
half of the rows are unknown): ``unknown_gpu <id or name>`` (an item with at least one price
whose gpu type id is not in ``KNOWN_GPU_TYPE_IDS``, a page row whose name is not in
``KNOWN_PAGE_NAMES``; an unknown item with only null/0 prices offers nothing and is not
counted), ``malformed_item``, ``mig_memory_mismatch``, ``unparsed_price`` (one price; a
negative price is a broken answer and raises ``SchemaDriftError``), ``missing_price``.
A response with no offer (a ``locations`` or ``location`` response may have none: the scrape
as a whole must) and a duplicate offer are ``SchemaDriftError`` too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import partial

from scrapers.base import Offer, Provider, RawResponse, SchemaDriftError
from scrapers.parsing import Layout, ensure_unique, offers_by_layout, offers_from_rows
from scrapers.runpod.common import (
    KNOWN_GPU_TYPE_IDS,
    KNOWN_PAGE_NAMES,
    PAGE_NAME_IDS,
    PRODUCT_KEYS,
    SLUG,
    SPOT_END_OF_SERVICE,
    place_rule,
)
from scrapers.runpod.fetch import (
    GPU_TYPES_QUERY,
    GRAPHQL_URL,
    LOCATIONS_QUERY,
    POD_TYPES_QUERY,
    TOKEN_ENV,
    fetch,
    fetch_with_skips,
    location_of,
    location_url,
)
from scrapers.runpod.layouts import (
    gpu_types_array,
    graphql,
    ld_json,
    location,
    locations,
    lowest_price_items,
    next_data,
    pricing_rows,
)

__all__ = [
    "GPU_TYPES_QUERY",
    "GRAPHQL_URL",
    "KNOWN_GPU_TYPE_IDS",
    "KNOWN_PAGE_NAMES",
    "LOCATIONS_QUERY",
    "PAGE_NAME_IDS",
    "POD_TYPES_QUERY",
    "PRODUCT_KEYS",
    "PROVIDER",
    "SPOT_END_OF_SERVICE",
    "fetch",
    "fetch_with_skips",
    "location_url",
    "parse_with_exclusions",
    "place_rule",
]

# The layouts of a per-tier response, tried in this order: the first whose ``detect`` is true
# reads it (the lowestPrice items before the other JSON layouts, which take any object/array).
PER_TIER_LAYOUTS: tuple[Layout, ...] = (
    lowest_price_items,
    graphql,
    gpu_types_array,
    next_data,
    pricing_rows,
    ld_json,
)
# what the layouts look for, as the unknown-layout error says it
EXPECTED = "not gpuTypes JSON, no __NEXT_DATA__, no data-secure-cloud-price rows, no ld+json"


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
    flags: locations.Flags = {}
    located: list[RawResponse] = []
    for response in _distinct(responses):
        if location.detect(response):
            located.append(response)
            continue
        if locations.detect(response):
            flags.update(locations.flags(response))
            continue
        parsed = offers_by_layout(response, PER_TIER_LAYOUTS, excluded, expected=EXPECTED)
        if not parsed:
            raise SchemaDriftError(f"{response.url}: no offers found{_left_out(excluded)}")
        offers.extend(parsed)
    read_located = partial(location.read_row, excluded=excluded)
    for response in located:  # after every locations response: its flags apply
        offers.extend(offers_from_rows(location.rows(response, flags), read_located, excluded))
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
        key = (location_of(response.url), response.body)
        if key not in seen:
            seen.add(key)
            kept.append(response)
    return kept


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
