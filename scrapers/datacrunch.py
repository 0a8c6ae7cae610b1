"""DataCrunch (now "Verda"): instance prices from the public API or the products page.

DataCrunch renamed itself Verda; its API is ``https://api.verda.com/v1`` ("Verda Cloud
(formerly DataCrunch) API", https://api.verda.com/v1/docs; the Verda Python SDK's default
``base_url``, github.com/DataCrunch-io/datacrunch-python ``verda/verda.py``). The slug stays
``datacrunch`` (the snapshots folder).

Sources, tried in this order by ``fetch``:

1. **Open API listing**: ``GET /v1/instance-types?currency=usd`` with no credentials. Verda's
   docs say every request needs an access token "except for a few open endpoints". That this is
   one of them is second-hand: a third-party probe (2026-09) reports that
   https://api.verda.com/v1/openapi.json declares it with ``security: []`` and that
   ``?currency=usd`` answered HTTP 200 without a token (it also reports ``dynamic_price`` as
   deprecated: its absence is the ``no_dynamic_price`` exclusion below); a Terraform example
   says "The current list of instance types is public: curl -s
   https://api.verda.com/v1/instance-types". gpuhunt's ``verda`` provider uses the SDK, which
   always authenticates, so it is no evidence either way. Used when it answers 2xx with a JSON
   array.
2. **OAuth API** (only when credentials are given): OAuth2 client credentials, ``POST
   /v1/oauth2/token`` with ``{"grant_type": "client_credentials", "client_id",
   "client_secret"}``, then the same listing with ``Authorization: Bearer <access_token>``.
3. **Products page** (no credentials): https://datacrunch.io/products.

The next source is tried only when the open listing gives a definite "not for you" answer: a
4xx status (401/403: the endpoint is no longer open; 404: moved), or a 2xx that is not a JSON
array (a login page). A timeout, refused connection or 5xx after retries raises ``FetchError``
instead: an outage is reported, not hidden behind a fallback that would also double the load.
Rejected credentials (OAuth 4xx) raise too, never fall back to the page: a configured key that
stopped working must be seen.

API shape: no pagination, one JSON array. ``instance_type``, ``price_per_hour`` and
``spot_price`` as strings, ``dynamic_price``, ``currency``, and
``cpu``/``gpu``/``memory``/``gpu_memory``/``storage`` objects with ``number_of_cores``,
``number_of_gpus`` and ``size_in_gigabytes``, as in DataCrunch's own Python SDK
(github.com/DataCrunch-io/datacrunch-python, ``instance_types.py`` and its unit test).
``gpu_memory.size_in_gigabytes`` is the instance total; it is divided by the GPU count.

Products page: one table per GPU model with the columns "Instance name, GPU model, GPU, CPU,
RAM, VRAM, P2P, On demand price, Dynamic price, Spot price". VRAM is the instance total there too
(checked against the per-GPU figure in the GPU model name). Prices are per instance-hour
("$29.10/h").

The token is ``"<client_id>:<client_secret>"``, from ``$DATACRUNCH_CREDENTIALS``.
Only the instance-types response (or the page) is returned for archiving, never the token
response or a refused open-listing attempt.

Pricing models: on-demand -> ``on_demand``; spot -> ``spot``; the "dynamic price" (a
non-interruptible price that DataCrunch re-sets daily) -> ``dynamic``, its own pricing kind
(it is neither the fixed on-demand rate nor an interruptible spot one), same instance type.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- ``no_gpu``: an API instance type with zero GPUs (CPU-only node).
- ``no_spot_price`` / ``no_dynamic_price``: an API price field that is absent, null or 0.
- a page price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``) is
  counted under that marker; any other non-price text raises ``SchemaDriftError``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import httpx

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
)
from scrapers.parsing import Cell, decimal, html_tables, json_body, money_at, no_price_marker

PRODUCTS_URL = "https://datacrunch.io/products"
HOMEPAGE = "https://verda.com"
API_BASE = "https://api.verda.com/v1"
TOKEN_URL = f"{API_BASE}/oauth2/token"
INSTANCE_TYPES_URL = f"{API_BASE}/instance-types"
INSTANCE_TYPES_PARAMS = {"currency": "usd"}
# ``scrapers.http`` reports a non-retryable error status as "<METHOD> <url>: HTTP <status>"; a
# 4xx there means "not open to us", the cue to try the next source.
_CLIENT_ERROR = re.compile(r": HTTP 4\d\d$")
# Optional: the page works without credentials. One variable holds "<client_id>:<client_secret>".
TOKEN_ENV = "DATACRUNCH_CREDENTIALS"

# Page table columns: the ones every pricing table must have, and the optional price columns.
PAGE_REQUIRED = ("Instance name", "GPU model", "GPU", "CPU", "RAM", "VRAM", "On demand price")
PAGE_OPTIONAL = ("P2P", "Dynamic price", "Spot price")
PAGE_PRICE_SUFFIX = "/h"
_PAGE_PRICE_COLUMNS = {
    "On demand price": (PricingModel.ON_DEMAND, ""),
    "Dynamic price": (PricingModel.DYNAMIC, ""),
    "Spot price": (PricingModel.SPOT, ""),
}
_GPU_DESCRIPTION = re.compile(r"^(?P<count>\d+)x (?P<name>.+)$")
_GB_IN_NAME = re.compile(r"(?P<gb>\d+)\s*GB\b")
_INTEGER = re.compile(r"^\d+$")


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """The open instance-types listing; else, with ``token`` ("client_id:client_secret"), the
    OAuth-authenticated listing; else the products page (the order and its reasons are in the
    module docstring).

    Raises ``FetchError`` for a malformed token (before any request), an unreachable or failing
    API (no fallback on outages), rejected credentials, or a token response without an access
    token.
    """
    credentials = _credentials(token) if token else None
    listing = _open_listing(client)
    if listing is not None:
        return [listing]
    if credentials is not None:
        return [_oauth_listing(client, *credentials)]
    return [http.get(client, PRODUCTS_URL)]


def _credentials(token: str) -> tuple[str, str]:
    client_id, sep, client_secret = token.partition(":")
    if not sep or not client_id or not client_secret:
        raise FetchError(f"{TOKEN_URL}: DataCrunch token must be '<client_id>:<client_secret>'")
    return client_id, client_secret


def _open_listing(client: httpx.Client) -> RawResponse | None:
    """The keyless listing, or None when the API answers that it is not open to us."""
    try:
        response = http.get(client, INSTANCE_TYPES_URL, params=INSTANCE_TYPES_PARAMS)
    except FetchError as exc:
        if _CLIENT_ERROR.search(str(exc)):
            return None
        raise
    return response if response.body.lstrip()[:1] == b"[" else None


def _oauth_listing(client: httpx.Client, client_id: str, client_secret: str) -> RawResponse:
    auth = http.post(
        client,
        TOKEN_URL,
        json={
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": client_secret,
        },
        sensitive=True,
    )
    try:
        access_token = json_body(auth)["access_token"]
    except (SchemaDriftError, KeyError, TypeError):
        raise FetchError(f"POST {TOKEN_URL}: response carries no access_token") from None
    return http.get(
        client,
        INSTANCE_TYPES_URL,
        params=INSTANCE_TYPES_PARAMS,
        headers={"Authorization": f"Bearer {access_token}"},
    )


def parse(responses: Sequence[RawResponse]) -> list[Offer]:
    """Offers per instance-hour (currency as given, USD on the page), region "global".

    Raises ``SchemaDriftError`` for an unknown layout or shape, a row or price that cannot be
    read, a VRAM figure that does not match the GPU model, or a response with no offers.
    """
    return parse_with_exclusions(responses)[0]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """``parse``, plus how many items/cells each documented exclusion rule dropped."""
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        if response.body.lstrip()[:1] in (b"[", b"{"):
            found = _parse_api(response, excluded)
        else:
            found = _parse_page(response, excluded)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU instance prices found")
        offers.extend(found)
    return offers, excluded


# --- API -------------------------------------------------------------------------------------


def _parse_api(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    items = json_body(response)
    if not isinstance(items, list):
        raise SchemaDriftError(f"{response.url}: expected a JSON array of instance types")
    offers = []
    for item in items:
        try:
            offers.extend(_api_item(response, item, excluded))
        except (KeyError, TypeError) as exc:
            name = item.get("instance_type") if isinstance(item, dict) else None
            raise SchemaDriftError(
                f"{response.url}: instance type {name!r} lacks field {exc}"
            ) from None
    return offers


def _api_item(response: RawResponse, item: dict[str, Any], excluded: Counter[str]) -> list[Offer]:
    name = item["instance_type"]
    gpus = item["gpu"]["number_of_gpus"]
    if not gpus:
        excluded["no_gpu"] += 1
        return []
    description = _GPU_DESCRIPTION.match(item["gpu"]["description"])
    if description is None or int(description["count"]) != gpus:
        raise SchemaDriftError(
            f"{response.url}: {name}: gpu description {item['gpu']['description']!r} "
            f"is not '{gpus}x <model>'"
        )
    gpu_count = decimal(gpus)
    currency = str(item["currency"]).upper()
    specs = {
        "provider": "datacrunch",
        "gpu_name": description["name"],
        "gpu_count": gpu_count,
        "vram_gb_reported": decimal(item["gpu_memory"]["size_in_gigabytes"]) / gpu_count,
        "vcpus": decimal(item["cpu"]["number_of_cores"]),
        "ram_gb": decimal(item["memory"]["size_in_gigabytes"]),
        "storage_gb": decimal(item["storage"]["size_in_gigabytes"]),
        "currency": currency,
        "price_unit": PriceUnit.HOUR,
        "price_per": PricePer.INSTANCE,
        "source_url": response.url,
        "observed_at": response.fetched_at,
    }
    # (pricing, instance type, raw price, exclusion rule when the price is absent or 0)
    prices: list[tuple[PricingModel, str, Any, str | None]] = [
        (PricingModel.ON_DEMAND, name, item["price_per_hour"], None),
        (PricingModel.SPOT, name, item.get("spot_price"), "no_spot_price"),
        (PricingModel.DYNAMIC, name, item.get("dynamic_price"), "no_dynamic_price"),
    ]
    offers = []
    for pricing, instance_type, raw, rule in prices:
        price = None if raw is None else decimal(raw)
        if rule is not None and (price is None or price == 0):
            excluded[rule] += 1
            continue
        if price is None or price <= 0:
            raise SchemaDriftError(f"{response.url}: {name}: price_per_hour {raw!r} is not a price")
        offers.append(Offer(instance_type=instance_type, pricing=pricing, price=price, **specs))
    return offers


# --- products page ---------------------------------------------------------------------------


def _parse_page(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    tables = [t for t in html_tables(response) if _texts(t[0])[:1] == [PAGE_REQUIRED[0]]]
    if not tables:
        raise SchemaDriftError(
            f"{response.url}: unknown DataCrunch page layout: no table headed '{PAGE_REQUIRED[0]}'"
        )
    offers = []
    for table in tables:
        header = _texts(table[0])
        missing = [name for name in PAGE_REQUIRED if name not in header]
        unknown = [name for name in header if name not in PAGE_REQUIRED + PAGE_OPTIONAL]
        if missing or unknown or len(set(header)) != len(header):
            raise SchemaDriftError(
                f"{response.url}: instance table columns changed "
                f"(missing {missing}, unknown {unknown})"
            )
        for row in table[1:]:
            offers.extend(_page_row(response, header, _texts(row), excluded))
    return offers


def _texts(row: list[Cell]) -> list[str]:
    return [cell.text for cell in row]


def _page_row(
    response: RawResponse, header: list[str], values: list[str], excluded: Counter[str]
) -> list[Offer]:
    if len(values) != len(header):
        raise SchemaDriftError(
            f"{response.url}: row {values[:1]} has {len(values)} cells, expected {len(header)}"
        )
    row = dict(zip(header, values, strict=True))
    name = row["Instance name"]
    for column in ("GPU", "CPU", "RAM", "VRAM"):
        if not _INTEGER.match(row[column]):
            raise SchemaDriftError(
                f"{response.url}: {name}: {column} {row[column]!r} is not a number"
            )
    gpu_count = decimal(row["GPU"])
    if gpu_count <= 0:
        raise SchemaDriftError(f"{response.url}: {name}: GPU count {row['GPU']!r}")
    vram_per_gpu = decimal(row["VRAM"]) / gpu_count
    stated = _GB_IN_NAME.search(row["GPU model"])
    if stated is not None and decimal(stated["gb"]) != vram_per_gpu:
        raise SchemaDriftError(
            f"{response.url}: {name}: VRAM {row['VRAM']} / {row['GPU']} GPUs does not match "
            f"{row['GPU model']!r} (is VRAM still the instance total?)"
        )
    offers = []
    for column, (pricing, suffix) in _PAGE_PRICE_COLUMNS.items():
        if column not in row:
            continue
        text = row[column]
        marker = no_price_marker(text)
        if marker is not None:
            excluded[marker] += 1
            continue
        if not text.replace(" ", "").endswith(PAGE_PRICE_SUFFIX):
            raise SchemaDriftError(
                f"{response.url}: {name}: {column} {text!r} does not end in {PAGE_PRICE_SUFFIX!r}"
            )
        price, currency = money_at(text, f"{response.url}: {name}: {column}")
        offers.append(
            Offer(
                provider="datacrunch",
                instance_type=f"{name}{suffix}",
                gpu_name=row["GPU model"],
                gpu_count=gpu_count,
                vram_gb_reported=vram_per_gpu,
                vcpus=decimal(row["CPU"]),
                ram_gb=decimal(row["RAM"]),
                pricing=pricing,
                price=price,
                currency=currency,
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.INSTANCE,
                source_url=response.url,
                observed_at=response.fetched_at,
            )
        )
    return offers


PROVIDER = Provider(
    slug="datacrunch",
    name="DataCrunch (Verda)",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse=parse,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes=(
        "api.verda.com /v1/instance-types: the open listing, else with DATACRUNCH_CREDENTIALS "
        "('client_id:client_secret') via OAuth, else the products page"
    ),
)
