"""GET /instances: the current comparison, filtered, sorted and paged.

Two ways in, one answer. :class:`InstancesController` is the documented Litestar handler: it
parses and validates every parameter and answers every request the fast route leaves to it
(errors, CSV, gzip, conditional and CORS requests, anything unusual).
:func:`instances_fast_route` wraps the whole Litestar app (``api.app``) and answers the common
request without Litestar's routing, middleware, parameter parsing, dependency injection and
response machinery, which cost more than the query: a query string it can read exactly as
Litestar would (:func:`parse_query`: every name known, plain numbers within the documented
bounds, ``true``/``false``, valid enum values, no repeats of a single-valued name, at most
``api.limits.MAX_QUERY_BYTES``), with ``OfferFilter.build``'s own checks, JSON wanted, no gzip,
no conditional or CORS headers. It sends the bytes and headers the handler and
``api.conditional`` send (``tests/api/test_instances_pinned.py`` pins both against the answers
before it existed). Anything it does not expect, an error included, goes to Litestar, whose
error handling and logging then apply.

One executor: every answer is read off the snapshot's ``OfferTable`` (``api.offers``, by
``api.instances.service.answer``; the SQL of
``warehouse.queries`` is what the table is tested against, ``tests/warehouse/test_queries.py``).
The fast route is the one second path, kept because the latency targets of
``benchmarks/serving.py`` and ``benchmarks/uncached_queries.py`` are not met through Litestar's
handler alone (figures in docs/reliability.md "Serving speed"); both read the filters from
``warehouse.queries.FILTERS``, so neither can take a filter the other does not.

The executor, off the event loop for a large table, is ``api.instances.service``; the fast
route's query parser ``api.instances.params``.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.exceptions import ClientException
from litestar.params import Parameter
from litestar.types import ASGIApp, Receive, Scope, Send

from api.conditional import CACHE_CONTROL, VARY, etag, validator_headers
from api.encoding import json_response, wants_csv
from api.instances.params import parse_query
from api.instances.service import answer
from api.limits import MAX_QUERY_BYTES
from api.openapi import ResponseDoc
from api.paging import link_header
from api.params import ListFormat, offer_query_parameters
from api.schemas import InstancesPage
from api.store import NoSnapshot, SnapshotStore, Store
from warehouse.queries import FilterError, OfferFilter, OfferQuery
from warehouse.vocabulary import DEFAULT_LIMIT, DEFAULT_SORT, MAX_LIMIT, MAX_OFFSET

# --- the fast route -----------------------------------------------------------------------------


def _plain_request(scope: Scope, explicit_json: bool) -> bool:
    """No gzip accepted (Litestar's compression answers those), JSON wanted, no conditional
    headers (``api.conditional`` answers those) and no Origin (CORS adds its headers)."""
    accept = b""
    for name, value in scope.get("headers", ()):
        lowered = name.lower()
        if lowered == b"accept-encoding":
            if b"gzip" in value.lower():
                return False
        elif lowered == b"accept":
            accept = value
        elif lowered in _HANDLED_ELSEWHERE:
            return False
    if explicit_json or accept in _JSON_ACCEPTS:
        return True
    return not wants_csv(accept.decode("latin-1"))


_JSON_ACCEPTS = frozenset({b"", b"*/*", b"application/json"})
_HANDLED_ELSEWHERE = frozenset({b"if-none-match", b"if-modified-since", b"origin"})


def instances_fast_route(store: SnapshotStore):
    """ASGI wrapper (``instances_fast_route(store)(app)``) answering plain GET /instances
    queries itself, everything else by ``app`` (see module doc). It adds the validators
    ``api.conditional`` adds to a 200."""

    def factory(app: ASGIApp) -> ASGIApp:
        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if (
                scope["type"] != "http"
                or scope.get("method") != "GET"
                or scope.get("path", "").rstrip("/") != "/instances"
            ):
                await app(scope, receive, send)
                return
            raw = scope.get("query_string", b"")
            query = parse_query(raw) if len(raw) <= MAX_QUERY_BYTES else None
            if query is None or not _plain_request(scope, b"format=json" in raw):
                await app(scope, receive, send)
                return
            try:
                snapshot = store.get()
                snapshot.vocabulary.check(query.filter)  # an unknown value: Litestar's 400
            except (NoSnapshot, FilterError):
                await app(scope, receive, send)
                return
            if snapshot.offers is None:
                await app(scope, receive, send)
                return
            try:
                body, total = await answer(snapshot, query)
            except Exception:  # unexpected: Litestar answers (and logs) it
                await app(scope, receive, send)
                return
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
                *validator_headers(snapshot, etag(snapshot, scope)),
                (b"cache-control", CACHE_CONTROL),
                _VARY,
            ]
            link = link_header(scope.get("path", ""), raw, query.offset, query.limit, total)
            if link is not None:
                headers.append((b"link", link.encode("latin-1")))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        return middleware

    return factory


_VARY = (b"vary", ", ".join(VARY).encode())


# --- the documented handler ---------------------------------------------------------------------


class InstancesController(Controller):
    path = "/instances"
    tags = ("instances",)

    @get(
        "/",
        summary="Current GPU offers",
        description="Offers from each provider's newest successful scrape. Prices in USD per "
        "hour (instance), per GPU-hour and per GB-of-VRAM-hour; the provider's own price, "
        "currency and unit are kept alongside, with the provider's billing facts (metering "
        "step, minimum charge, egress USD/GB, block storage USD/GB-month). serverless=true "
        "lists serverless GPU tiers as offers: hourly-normalised price plus the native unit "
        "(price, price_unit). Marketplaces list many offers per GPU model; "
        "cheapest_per_gpu=true keeps one row per (provider, GPU model, pricing model), the "
        "cheapest per GPU-hour, with offers_in_group counting the offers it stands for, so the "
        "cheapest of each GPU model is easy to compare across providers. Prices past the "
        "shelf life of their kind (expired: dynamic 2 days, spot and marketplace 30, list "
        "prices 180 by default) are left out unless include_expired=true, as are suspect "
        "ones and those the source says are not on sale (available: false; "
        "include_unavailable=true lists them); `excluded` says how many offers matching the "
        "other filters each rule left out "
        "(CSV: X-Excluded-* headers).",
        responses={200: ResponseDoc(data_container=InstancesPage, description="A page of offers")},
    )
    @offer_query_parameters  # one parameter per filter of warehouse.queries.FILTERS; sort
    async def list_instances(
        self,
        request: Request,
        store: Store,
        cheapest_per_gpu: Annotated[
            bool,
            Parameter(
                description=(
                    "One row per (provider, GPU model, pricing model): the offer with "
                    "the lowest USD per GPU-hour among the matching ones; "
                    "offers_in_group = how many matched in its group"
                ),
            ),
        ] = False,
        sort: str = DEFAULT_SORT,
        limit: Annotated[
            int, Parameter(ge=1, le=MAX_LIMIT, description=f"Page size (at most {MAX_LIMIT})")
        ] = DEFAULT_LIMIT,
        offset: Annotated[int, Parameter(ge=0, le=MAX_OFFSET, description="Rows to skip")] = 0,
        format_: ListFormat = None,
        **filters: Any,
    ) -> Response[bytes]:
        snapshot = store.get()
        try:
            query = OfferQuery(
                OfferFilter.build(**filters),
                sort=sort,
                limit=limit,
                offset=offset,
                cheapest_per_gpu=cheapest_per_gpu,
            )
            snapshot.vocabulary.check(query.filter)
        except FilterError as exc:
            raise ClientException(str(exc), extra=exc.extra) from None
        body, total = await answer(snapshot, query)
        response = json_response(body, list_format=format_)
        scope = request.scope
        link = link_header(scope["path"], scope.get("query_string", b""), offset, limit, total)
        if link is not None:
            response.headers["Link"] = link
        return response
