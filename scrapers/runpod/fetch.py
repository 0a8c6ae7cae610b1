"""RunPod's live requests: ``POST https://api.runpod.io/graphql``, no pagination.

No query needs a key: gpuhunt's RunPod provider posts queries 2 and 3 below, which ask every
field query 1 asks, to this endpoint with no credentials (``_make_request``). When
``RUNPOD_API_KEY`` is set the key is sent with every request, so a rejected key fails the scrape
instead of being ignored. RunPod documents the key as an ``api_key`` query parameter
(https://docs.runpod.io/sdks/graphql/configurations); we send it as ``Authorization: Bearer``
instead, which the API also accepts (the 2025-06 captures were fetched that way), so the key never
lands in the recorded URL. The requests, in order:

1. ``GPU_TYPES_QUERY`` (``gpuTypes`` with securePrice/communityPrice, spot, savings plans and the
   secureCloud/communityCloud flags): the per-tier offers (``layouts.graphql``). Failing, it
   fails the fetch.
2. ``LOCATIONS_QUERY``: ``countryCodes``, ``dataCenters {id name listed}`` and each gpu type's
   flags and GPU counts (``layouts.locations``).
3. ``POD_TYPES_QUERY`` once per listed data centre (``lowestPriceInput`` ``{secureCloud: true,
   dataCenterId}``) and once per non-null country code (``{secureCloud: false, countryCode}``):
   ``gpuTypes`` with ``lowestPrice {minVcpu minMemory stockStatus ...}`` and the prices
   (``layouts.location``).

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
The live query no longer asks ``oneWeekPrice``: it is the one field of ours that gpuhunt's
keyless queries do not ask for, and one field refused to a keyless caller would fail the whole
GraphQL request.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import quote, unquote

import httpx

from scrapers import http
from scrapers.base import FetchError, RawResponse, SchemaDriftError
from scrapers.runpod.common import COMMUNITY, SECURE

_log = logging.getLogger("scrapers.runpod")  # the provider's logger, as before the split

GRAPHQL_URL = "https://api.runpod.io/graphql"
TOKEN_ENV = "RUNPOD_API_KEY"

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
LOCATION_TIERS = {DATA_CENTER_KEY: SECURE, COUNTRY_KEY: COMMUNITY}


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


def location_of(url: str) -> tuple[str, str] | None:
    """(tier, data-centre id or country code) of a location query's URL (``location_url``);
    None for any other URL."""
    key, sep, value = httpx.URL(url).fragment.partition("=")
    if not sep or key not in LOCATION_TIERS:
        return None
    value = unquote(value)
    if not value:
        raise SchemaDriftError(f"{url}: a location query without its location")
    return LOCATION_TIERS[key], value
