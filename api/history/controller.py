"""Price history: GET /instances/{id}/history, GET /history (the market per bucket), GET /changes,
and GET /history/catalog (imported catalog statistics).

The first three select from the snapshot's analysis objects through
``warehouse.queries.history``: ``offer_intervals`` (change intervals per offer, scraped,
``source`` = 'scrape', and imported from public datasets, 'import:<dataset>'), ``price_changes``
and the ``market_history`` macro, which reads the daily rollup (``daily_provider_prices``:
no suspect price, none past its kind's shelf life, GPUPRICES_SHELF_LIFE_DAYS_*, on the day) and,
for a family (``gpu=h100``), the family-level offers (``daily_family_level_prices``: gpu_id
null, gpu_family set, "NVIDIA H100" of unknown variant), counted per bucket. So /history
answers what ``select * from market_history(...)`` answers on the snapshot file. Catalog rows
(``imported_daily_prices``) are USD per instance-hour with no GPU count, so they cannot be
per-GPU-hour figures: /history/catalog serves them on their own.
"""

from __future__ import annotations

from datetime import UTC, date, timedelta
from typing import Annotated

import msgspec
from litestar import Controller, Request, Response, get
from litestar.exceptions import ClientException, NotFoundException
from litestar.params import Parameter

from api.encoding import encode_as, json_response
from api.history.params import FORMS, TIME, LastDay, first_day, parse_day, parse_instant
from api.history.schemas import (
    CatalogHistory,
    MarketHistory,
    OfferHistory,
    PriceChangesPage,
)
from api.offload import cached_off_loop
from api.openapi import ResponseDoc
from api.paging import link_header, next_offset
from api.params import (
    ListFormat,
    gpu_filter,
    gpu_filters,
    refuse_unknown_values,
    slugs,
)
from api.schemas import ErrorBody
from api.store import Store
from warehouse.queries import (
    GPU_DOC,
    PROVIDER_DOC,
    FilterError,
    OfferFilter,
    gpu_prefix_pattern,
)
from warehouse.queries.history import (
    CATALOG_HISTORY_SQL,
    GPU_LEVEL_SQL,
    MARKET_HISTORY_SQL,
    OFFER_INTERVALS_SQL,
    changes_sql,
    market_history_params,
)
from warehouse.vocabulary import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_LIST_VALUES,
    MAX_OFFSET,
    MAX_RANGE_DAYS,
    FixedPricing,
    HistoryBucket,
)

DEFAULT_RANGE_DAYS = 90
DEFAULT_CHANGES_DAYS = 7
# The instants /changes' since may name: far wider than any data, narrow enough that its UTC
# conversion never overflows (since=0001-01-01T00:00:00+05:00 is before the year 1 in UTC).
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(2199, 12, 31)


class HistoryController(Controller):
    path = "/"
    tags = ("history",)

    @get(
        "/instances/{offer_id:str}/history",
        summary="Price history of one offer",
        description="Every change interval of the offer, oldest first: the price held from "
        "valid_from (inclusive) to valid_to (exclusive; null = still current). A new interval "
        "starts when the price, currency, GPU or GPU count changes; a gap means the offer was "
        "not listed. 404 if the id is unknown.",
        responses={
            200: ResponseDoc(data_container=OfferHistory, description="The intervals"),
            404: ResponseDoc(data_container=ErrorBody, description="No offer with this id"),
        },
    )
    async def offer_history(
        self,
        store: Store,
        offer_id: Annotated[str, Parameter(max_length=64, description="Offer id from /instances")],
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot = store.get()

        def build() -> bytes:
            rows = snapshot.query(OFFER_INTERVALS_SQL, [offer_id])
            if not rows:
                return b""
            last = rows[-1]
            meta = {
                k: last[k]
                for k in ("provider", "instance_type", "region", "pricing", "reserved_term_months")
            }
            items = [{k: v for k, v in r.items() if k not in meta} for r in rows]
            return encode_as(
                OfferHistory, {"id": offer_id, **meta, "items": items, "as_of": snapshot.as_of}
            )

        body = await cached_off_loop(snapshot, ("offer_history", offer_id), build)
        if not body:
            raise NotFoundException(f"no offer with id {offer_id!r} in the price history")
        return json_response(body, list_format=format_)

    @get(
        "/history",
        summary="Market price history of a GPU model",
        description="Per day, week or month (UTC): the minimum, median and maximum across "
        "providers of each provider's cheapest offer, in USD per GPU-hour, over scraped and "
        "imported offer history: the daily prices of `daily_provider_prices` (a provider's "
        "scraped offers are preferred over imported ones for the same day; a price the "
        "plausibility screen judged suspect, or last observed longer before the day than its "
        "kind's shelf life (GPUPRICES_SHELF_LIFE_DAYS_*: 180 days for an on-demand list price, "
        "30 for spot and marketplace prices, 2 for dynamic ones), is left out), so a "
        "day of a canonical GPU is its `daily_gpu_prices` row. Serverless tiers are left out. "
        "In a week or month each provider's price is the cheapest of its days, and "
        "`offer_count` adds up the most offers each provider had on one day of it. A family "
        "(`gpu=h100`) also takes family-level offers, whose source named only the family "
        "('NVIDIA H100', variant unknown): each bucket counts them in "
        "`family_level_offer_count` and `family_level_provider_count`; a canonical id "
        "(`gpu=h100-sxm`) never takes them. The same answer in SQL: "
        "`select * from market_history('h100', 'on_demand', 'week', date '2026-01-01', "
        "date '2026-03-31')` on the snapshot. "
        "Catalog statistics without a GPU count (USD per instance-hour) are at "
        "/history/catalog. `from`/`to` are inclusive dates; "
        f"a range may span at most {MAX_RANGE_DAYS['day']} days by day, "
        f"{MAX_RANGE_DAYS['week']} by week and {MAX_RANGE_DAYS['month']} by month.",
        responses={
            200: ResponseDoc(data_container=MarketHistory, description="One row per bucket")
        },
    )
    async def market_history(
        self,
        store: Store,
        gpu: Annotated[
            str,
            Parameter(
                min_length=1,
                max_length=64,
                description="One canonical GPU id or family, e.g. h100-sxm or h100, in any case "
                "and punctuation, or another spelling of it (RTX4090, A100-80GB, H100-SXM); an "
                "id is that GPU only, a family every GPU whose id starts with it",
            ),
        ],
        pricing: Annotated[FixedPricing, Parameter(description="Pricing model")] = "on_demand",
        bucket: Annotated[HistoryBucket, Parameter(description="Bucket size")] = "day",
        from_: Annotated[
            str | None,
            first_day(
                f"First day, UTC, inclusive (default: {DEFAULT_RANGE_DAYS} days before `to`)"
            ),
        ] = None,
        to: LastDay = None,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot = store.get()
        last = parse_day(to, "to") or snapshot.as_of.astimezone(UTC).date()
        first_day = parse_day(from_, "from")
        default_range = timedelta(days=DEFAULT_RANGE_DAYS)
        # the default range stops at the calendar's first day (to=0001-01-02 was an OverflowError)
        first = first_day or (last - default_range if last - date.min > default_range else date.min)
        if first > last:
            raise ClientException(f"from ({first}) is after to ({last})")
        if (last - first).days + 1 > MAX_RANGE_DAYS[bucket]:
            raise ClientException(
                f"range {first}..{last} is {(last - first).days + 1} days; at most "
                f"{MAX_RANGE_DAYS[bucket]} days by {bucket} (use a larger bucket)"
            )
        if "," in gpu:
            raise ClientException("gpu: one GPU id or family per series (no comma list)")
        family = gpu_filter(gpu)
        refuse_unknown_values(snapshot.vocabulary, OfferFilter.build(gpu=[family]))
        key = ("history", family, pricing, bucket, first, last)

        def build() -> bytes:
            items = snapshot.query(
                MARKET_HISTORY_SQL,
                market_history_params(family, pricing, bucket, first, last, snapshot.as_of),
            )
            return encode_as(
                MarketHistory,
                {
                    "gpu": family,
                    "gpu_level": snapshot.query(GPU_LEVEL_SQL, [family])[0]["gpu_level"],
                    "pricing": pricing,
                    "bucket": bucket,
                    "from": first,
                    "to": last,
                    "items": items,
                    "as_of": snapshot.as_of,
                },
            )

        return json_response(await cached_off_loop(snapshot, key, build), list_format=format_)

    @get(
        "/history/catalog",
        summary="Imported catalog price statistics of a GPU model or family",
        description="Per day (UTC) of an imported catalog (gpuhunt's, `gpuprices backfill`): "
        "the minimum, median and maximum across providers of each provider's cheapest catalog "
        "row, in USD per instance-hour, with the provider and row counts. Catalog rows carry "
        "no GPU count, instance type or spot flag, so they are not per-GPU-hour figures and "
        "are not in /history. Each item says its `gpu_level`: `model` (a canonical GPU) or "
        "`family` (the catalog named only the family, e.g. 'H100': SXM, PCIe or NVL; "
        "`gpu_family` set, `gpu_id` null); the two are never merged. A family "
        "(`gpu=h100`) takes its members' rows and the family-level rows it covers, a "
        "canonical id (`gpu=h100-sxm`) only its own. `from`/`to` are inclusive dates.",
        responses={
            200: ResponseDoc(
                data_container=CatalogHistory, description="One row per day, GPU and source"
            )
        },
    )
    async def catalog_history(
        self,
        store: Store,
        gpu: Annotated[
            str,
            Parameter(
                min_length=1,
                max_length=64,
                description="One canonical GPU id or family, as for /history (h100, h100-sxm, "
                "H200, A100-80GB)",
            ),
        ],
        from_: Annotated[
            str | None, first_day("First day, UTC, inclusive (default: the first there is)")
        ] = None,
        to: LastDay = None,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot = store.get()
        last = parse_day(to, "to") or snapshot.as_of.astimezone(UTC).date()
        first = parse_day(from_, "from")
        if first is not None and first > last:
            raise ClientException(f"from ({first}) is after to ({last})")
        if "," in gpu:
            raise ClientException("gpu: one GPU id or family per series (no comma list)")
        term = gpu_filter(gpu)
        refuse_unknown_values(snapshot.vocabulary, OfferFilter.build(gpu=[term]))
        key = ("history_catalog", term, first, last)

        def build() -> bytes:
            prefix = gpu_prefix_pattern(term)  # None: a canonical id, that GPU only
            items = snapshot.query(CATALOG_HISTORY_SQL, [first, last, term, prefix])
            return encode_as(
                CatalogHistory,
                {
                    "gpu": term,
                    "gpu_level": "model" if prefix is None else "family",
                    "from": first,
                    "to": last,
                    "items": items,
                    "as_of": snapshot.as_of,
                },
            )

        return json_response(await cached_off_loop(snapshot, key, build), list_format=format_)

    @get(
        "/changes",
        summary="Recent price changes",
        description="Offers whose price changed at or after `since`, newest first, with the "
        "old and new price and the percent change. A change is an interval that directly "
        "follows the offer's previous interval with another price; an offer that disappears "
        "and later returns is not a change. A change from or to a price the plausibility "
        "screen judged suspect (a placeholder for a tier the provider does not sell, a price "
        "out of line with its siblings) is left out and counted in `excluded` unless "
        "include_suspect=true.",
        responses={
            200: ResponseDoc(data_container=PriceChangesPage, description="A page of changes")
        },
    )
    async def changes(
        self,
        request: Request,
        store: Store,
        since: Annotated[
            str | None,
            Parameter(
                description=f"Changes at or after this instant: {FORMS}; a date is its first "
                "instant (midnight UTC), a timestamp without an offset is UTC (default: "
                f"{DEFAULT_CHANGES_DAYS} days before the snapshot was published)",
                **TIME,
            ),
        ] = None,
        provider: Annotated[
            list[str] | None,
            Parameter(description=PROVIDER_DOC, max_items=MAX_LIST_VALUES),
        ] = None,
        gpu: Annotated[
            list[str] | None, Parameter(description=GPU_DOC, max_items=MAX_LIST_VALUES)
        ] = None,
        limit: Annotated[
            int, Parameter(ge=1, le=MAX_LIMIT, description=f"Page size (at most {MAX_LIMIT})")
        ] = DEFAULT_LIMIT,
        offset: Annotated[int, Parameter(ge=0, le=MAX_OFFSET, description="Rows to skip")] = 0,
        include_suspect: Annotated[
            bool,
            Parameter(
                description="List changes from or to a suspect price too (old_price_status, "
                "new_price_status)"
            ),
        ] = False,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot = store.get()
        start = parse_instant(since, "since") or snapshot.as_of - timedelta(
            days=DEFAULT_CHANGES_DAYS
        )
        if not FIRST_DAY <= start.date() <= LAST_DAY:  # the offset is applied in DuckDB
            raise ClientException(
                f"since: {start.isoformat()} is not between {FIRST_DAY} and {LAST_DAY}"
            )
        filters = {"since": start, "provider": slugs(provider), "gpu": gpu_filters(gpu, "gpu")}
        try:  # a GPU or provider no snapshot knows: 400 with the closest known one
            snapshot.vocabulary.check(
                OfferFilter.build(provider=filters["provider"], gpu=filters["gpu"])
            )
        except FilterError as exc:
            raise ClientException(str(exc), extra=exc.extra) from None
        key = (
            "changes",
            start.isoformat(),
            tuple(filters["provider"] or ()),
            tuple(filters["gpu"] or ()),
            limit,
            offset,
            include_suspect,
        )

        def build() -> bytes:
            page_sql, count_sql, params = changes_sql(
                start,
                filters["provider"],
                filters["gpu"],
                until=snapshot.as_of,
                list_suspect=include_suspect,
            )
            items = snapshot.query(page_sql, [*params, limit, offset])
            counts = snapshot.query(count_sql, params)[0]
            total, suspect = counts["n"], counts["suspect"]
            return encode_as(
                PriceChangesPage,
                {
                    "items": items,
                    "total": total,
                    "excluded": {"count": suspect, "suspect": {"count": suspect}},
                    "limit": limit,
                    "offset": offset,
                    "next_offset": next_offset(offset, limit, total),
                    "since": start,
                    "as_of": snapshot.as_of,
                },
            )

        body = await cached_off_loop(snapshot, key, build)
        response = json_response(body, list_format=format_)
        total = msgspec.json.decode(body, type=_Total).total  # the cached page's own count
        scope = request.scope
        link = link_header(scope["path"], scope.get("query_string", b""), offset, limit, total)
        if link is not None:
            response.headers["Link"] = link
        return response


class _Total(msgspec.Struct):
    total: int
