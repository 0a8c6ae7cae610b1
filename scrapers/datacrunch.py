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
``storage`` may carry no size: a third party's recording of the live listing (2026-09-23,
github.com/michaellchung/yeto ``tests/fixtures/verda_instance_types.json``) has
``{"description": "dynamic"}`` on most types (storage sized at deploy time), so
``storage_gb`` is then None.

Products page: one table per GPU model with the columns "Instance name, GPU model, GPU, CPU,
RAM, VRAM, P2P, On demand price, Dynamic price, Spot price". VRAM is the instance total there too
(checked against the per-GPU figure in the GPU model name). Prices are per instance-hour
("$29.10/h").

Instance names (API and page alike) read ``<GPU count><family>.<...>``: "8B200.240V",
"1H100.80S.30V", "1RTX6000ADA.10V", "8B300.240V.CC" (confidential computing). The family must be
one of ``KNOWN_FAMILIES`` (the GPU families Verda lists, from its listing recorded 2026-09-23
and the 2025-08 page); a GPU instance of another family is a row this scraper does not know.

The token is ``"<client_id>:<client_secret>"``, from ``$DATACRUNCH_CREDENTIALS``.
Only the instance-types response (or the page) is returned for archiving, never the token
response or a refused open-listing attempt. The sources are alternatives, not parts of one
scrape (the page is read only when the listing is not open to us), so there is no partial
fetch: ``fetch`` returns one response or raises.

Pricing models: on-demand -> ``on_demand``; spot -> ``spot``; the "dynamic price" (a
non-interruptible price that DataCrunch re-sets daily) -> ``dynamic``, its own pricing kind
(it is neither the fixed on-demand rate nor an interruptible spot one), same instance type.

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule):

- ``no_gpu``: an API instance type with zero GPUs (CPU-only node).
- ``unknown_family <instance type>``: a GPU instance type (API item or page row) whose name is
  not ``<count><family>.`` with a family in ``KNOWN_FAMILIES`` (counted once per row).
- ``no_spot_price`` / ``no_dynamic_price``: an API price field that is absent, null or 0.
- ``incomplete_instance_type``: an API item without a field every item has (``instance_type``,
  ``gpu``, ``cpu``, ``memory``, ``gpu_memory``, ``price_per_hour``, ``currency``), or with a
  field of the wrong type; ``unparsed_gpu``: an API GPU description that is not
  ``"<count>x <model>"`` for its GPU count.
- ``unparsed_specs``: a page row whose GPU/CPU/RAM/VRAM cell is not a whole number (or 0 GPUs);
  ``vram_mismatch``: a page row whose VRAM / GPUs is not the GB figure in its GPU model name.
- ``unparsed_price``: one price (API field or page cell) that is not a number (absent, "TBD",
  "NaN"), or a page cell that does not end in "/h"; the row's other prices are still read. A
  price that reads as zero or negative (``"price_per_hour": "-3.64"``, "$-3.64/h", "-$3.64/h",
  "$0.00/h") is not unreadable: it is emitted as read, so the loader rejects the whole scrape
  (``prices_positive``). Only an optional API price of exactly 0 is "not offered" (above).
- a page price cell that is exactly a no-price marker (``parsing.NO_PRICE_MARKERS``) is
  counted under that marker.

``SchemaDriftError`` is kept for a structure that is gone: an API body that is not an array, a
page without a table headed "Instance name", a table whose columns changed, a row with another
number of cells than its header, a response without any offer left (the message lists the
exclusions), and more unreadable rows or prices (``UNREADABLE``) than rows read (a price format
or spec column changed on every row is a changed layout, not a slip).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from typing import Any

import httpx

from scrapers import http
from scrapers.kit import (
    Cell,
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
    html_tables,
    json_body,
    money,
    no_price_marker,
    offers_from_rows,
    unknown_row,
)

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
# GPU families in instance names ("<count><family>.<...>"): Verda's listing as recorded on
# 2026-09-23 (GB300, B300, B200, H200, H100, A100, V100, RTXPRO6000, L40S, RTX6000ADA, A6000; see
# the module docstring) and the 2025-08 products page (B200). Compared in upper case.
KNOWN_FAMILIES = frozenset(
    {
        "GB300",
        "B300",
        "B200",
        "H200",
        "H100",
        "A100",
        "V100",
        "RTXPRO6000",
        "L40S",
        "RTX6000ADA",
        "A6000",
    }
)
_INSTANCE_NAME = re.compile(r"^(?P<count>\d+)(?P<family>[A-Za-z][A-Za-z0-9]*)\.")
_GPU_DESCRIPTION = re.compile(r"^(?P<count>\d+)x (?P<name>.+)$")
_GB_IN_NAME = re.compile(r"(?P<gb>\d+)\s*GB\b")
_INTEGER = re.compile(r"^\d+$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.


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


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers per instance-hour (currency as given, USD on the page), region "global".

    Raises ``SchemaDriftError`` for an unknown layout or shape, or a response with no offer
    left; a row that cannot be read is excluded instead (and counted).

    Returns the offers, and how many items/rows/cells each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in responses:
        if response.body.lstrip()[:1] in (b"[", b"{"):
            found = _parse_api(response, excluded)
        else:
            found = _parse_page(response, excluded)
        if not found:
            reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items()) if r != "no_gpu")
            raise SchemaDriftError(
                f"{response.url}: no GPU instance prices found (excluded: {reasons or 'none'})"
            )
        offers.extend(found)
    _check_readable(offers, excluded)
    return offers, excluded


# Exclusions of rows (or prices) of a known family that could not be read: one is a slip, most of
# them a changed layout (see ``_check_readable``).
UNREADABLE = frozenset(
    {
        "incomplete_instance_type",
        "unparsed_gpu",
        "unparsed_specs",
        "vram_mismatch",
        "unparsed_price",
    }
)


def _check_readable(offers: list[Offer], excluded: Counter[str]) -> None:
    """``SchemaDriftError`` when more rows/prices could not be read than rows were read (counted
    like ``base.check_structure`` counts rows): the layout changed, publishing the rest would
    hide it."""
    read = len({(offer.instance_type, offer.region) for offer in offers})
    unreadable = {r: n for r, n in excluded.items() if r in UNREADABLE}
    if sum(unreadable.values()) > read:
        detail = ", ".join(f"{r} {n}" for r, n in sorted(unreadable.items()))
        raise SchemaDriftError(f"more DataCrunch rows or prices unreadable than read: {detail}")


def _known_family(name: str) -> None:
    """Raise ``RowExcluded(unknown_family <name>)`` unless ``name`` is of a known GPU family."""
    match = _INSTANCE_NAME.match(name)
    if match is None or match["family"].upper() not in KNOWN_FAMILIES:
        raise RowExcluded(unknown_row("family", name))


def _price(raw: Any) -> Decimal | None:
    """A price field as a Decimal, negative or zero as given (None when absent);
    ``RowExcluded`` when it is not a finite number."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise RowExcluded("unparsed_price")
    try:
        price = decimal(raw)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None
    if not price.is_finite():  # "NaN", "Infinity": not a number of dollars
        raise RowExcluded("unparsed_price")
    return price


# --- API -------------------------------------------------------------------------------------


def _parse_api(response: RawResponse, excluded: Counter[str]) -> list[Offer]:
    items = json_body(response)
    if not isinstance(items, list):
        raise SchemaDriftError(f"{response.url}: expected a JSON array of instance types")
    return offers_from_rows(items, lambda item: _api_item(response, item, excluded), excluded)


def _api_item(response: RawResponse, item: dict[str, Any], excluded: Counter[str]) -> list[Offer]:
    try:
        return _read_api_item(response, item, excluded)
    except (KeyError, TypeError, AttributeError):
        raise RowExcluded("incomplete_instance_type") from None


def _read_api_item(
    response: RawResponse, item: dict[str, Any], excluded: Counter[str]
) -> list[Offer]:
    name = item["instance_type"]
    gpus = item["gpu"]["number_of_gpus"]
    if not isinstance(name, str) or not name or isinstance(gpus, bool) or not isinstance(gpus, int):
        raise TypeError("instance_type / number_of_gpus")
    if not gpus:
        excluded["no_gpu"] += 1
        return []
    _known_family(name)
    description = _GPU_DESCRIPTION.match(item["gpu"]["description"])
    if description is None or int(description["count"]) != gpus:
        raise RowExcluded("unparsed_gpu")
    gpu_count = decimal(gpus)
    currency = str(item["currency"]).upper()
    if not _CURRENCY.match(currency):
        raise RowExcluded("incomplete_instance_type")
    storage = item.get("storage")
    storage_gb = storage.get("size_in_gigabytes") if isinstance(storage, dict) else None
    try:
        specs = {
            "provider": "datacrunch",
            "gpu_name": description["name"],
            "gpu_count": gpu_count,
            "vram_gb_reported": decimal(item["gpu_memory"]["size_in_gigabytes"]) / gpu_count,
            "vcpus": decimal(item["cpu"]["number_of_cores"]),
            "ram_gb": decimal(item["memory"]["size_in_gigabytes"]),
            "storage_gb": None if storage_gb is None else decimal(storage_gb),
            "currency": currency,
            "price_unit": PriceUnit.HOUR,
            "price_per": PricePer.INSTANCE,
            "source_url": response.url,
            "observed_at": response.fetched_at,
        }
    except SchemaDriftError:
        raise RowExcluded("incomplete_instance_type") from None
    on_demand = _price(item["price_per_hour"])
    if on_demand is None:
        raise RowExcluded("unparsed_price")
    # A zero or negative on-demand price is emitted as read: a wrong price fails the scrape
    # (the loader's ``prices_positive``), it is not left out as unreadable.
    offers = [Offer(instance_type=name, pricing=PricingModel.ON_DEMAND, price=on_demand, **specs)]
    # An optional price that is absent or 0 is "not offered"; one that is not a number is
    # counted as unparsed, and the item's other prices are still read. A negative one is
    # emitted as read, so the loader rejects the scrape.

    def optional_price(column: tuple[PricingModel, str, str]) -> Offer:
        pricing, field, rule = column
        price = _price(item.get(field))
        if price is None or price == 0:
            raise RowExcluded(rule)
        return Offer(instance_type=name, pricing=pricing, price=price, **specs)

    columns = (
        (PricingModel.SPOT, "spot_price", "no_spot_price"),
        (PricingModel.DYNAMIC, "dynamic_price", "no_dynamic_price"),
    )
    return offers + offers_from_rows(columns, optional_price, excluded)


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
        offers.extend(
            offers_from_rows(
                table[1:],
                partial(_page_row, response=response, header=header, excluded=excluded),
                excluded,
            )
        )
    return offers


def _texts(row: list[Cell]) -> list[str]:
    return [cell.text for cell in row]


def _page_row(
    cells: list[Cell], response: RawResponse, header: list[str], excluded: Counter[str]
) -> list[Offer]:
    values = _texts(cells)
    if len(values) != len(header):
        raise SchemaDriftError(
            f"{response.url}: row {values[:1]} has {len(values)} cells, expected {len(header)}"
        )
    row = dict(zip(header, values, strict=True))
    name = row["Instance name"]
    _known_family(name)
    if not all(_INTEGER.match(row[column]) for column in ("GPU", "CPU", "RAM", "VRAM")):
        raise RowExcluded("unparsed_specs")
    gpu_count = decimal(row["GPU"])
    if gpu_count <= 0:
        raise RowExcluded("unparsed_specs")
    vram_per_gpu = decimal(row["VRAM"]) / gpu_count
    stated = _GB_IN_NAME.search(row["GPU model"])
    if stated is not None and decimal(stated["gb"]) != vram_per_gpu:
        raise RowExcluded("vram_mismatch")  # is VRAM still the instance total?
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
            excluded["unparsed_price"] += 1
            continue
        try:
            price, currency = money(text)
        except SchemaDriftError:
            excluded["unparsed_price"] += 1
            continue
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
    name="DataCrunch",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    notes=(
        "api.verda.com /v1/instance-types: the open listing, else with DATACRUNCH_CREDENTIALS "
        "('client_id:client_secret') via OAuth, else the products page"
    ),
)
