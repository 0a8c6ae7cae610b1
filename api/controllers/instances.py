"""GET /instances: the current comparison, filtered, sorted and paged."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, Request, Response, get
from litestar.exceptions import ClientException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from api.encoding import encode, json_response, page_body
from api.params import MAX_LIST_VALUES, ListFormat, filter_parameter
from api.schemas import InstancesPage
from api.store import Snapshot, Store
from warehouse.queries import (
    GPU_DOC,
    INSTANCE_SORT_KEYS,
    MAX_LIMIT,
    PROVIDER_DOC,
    FilterError,
    OfferFilter,
    OfferQuery,
    query_offers_sql,
)

Sort = Literal[
    "price",
    "-price",
    "price_per_gpu",
    "-price_per_gpu",
    "price_per_vram_gb",
    "-price_per_vram_gb",
    "vram",
    "-vram",
]
PricingModel = Literal["on_demand", "spot", "reserved", "dynamic"]
__all__ = ["GPU_DOC", "PROVIDER_DOC", "PricingModel", "instances_body"]  # shared with economics


def instances_body(snapshot: Snapshot, query: OfferQuery) -> bytes:
    """GET /instances' JSON body for ``query`` on ``snapshot``: from its in-memory offers
    (pre-encoded rows), or by SQL when the snapshot has none loaded; the same bytes."""
    offers = snapshot.offers
    if offers is None:
        items, total = query_offers_sql(snapshot.cursor(), query)
        return page_body(
            items, total=total, limit=query.limit, offset=query.offset, as_of=snapshot.as_of
        )
    found = offers.table.page(query)
    return b"".join(
        (
            b'{"items":',
            offers.items_json(found.rows, found.groups),
            b',"total":%d,"limit":%d,"offset":%d,"as_of":'
            % (found.total, query.limit, query.offset),
            encode(snapshot.as_of),
            b"}",
        )
    )


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
        "cheapest of each GPU model is easy to compare across providers.",
        sync_to_thread=False,
        responses={200: ResponseSpec(data_container=InstancesPage, description="A page of offers")},
    )
    def list_instances(
        self,
        request: Request,
        store: Store,
        min_vram: Annotated[float | None, filter_parameter("min_vram")] = None,
        min_total_vram: Annotated[float | None, filter_parameter("min_total_vram")] = None,
        fp8: Annotated[bool | None, filter_parameter("fp8")] = None,
        bf16: Annotated[bool | None, filter_parameter("bf16")] = None,
        gpu: Annotated[list[str] | None, filter_parameter("gpu", max_items=MAX_LIST_VALUES)] = None,
        provider: Annotated[
            list[str] | None, filter_parameter("provider", max_items=MAX_LIST_VALUES)
        ] = None,
        pricing: Annotated[list[PricingModel] | None, filter_parameter("pricing")] = None,
        serverless: Annotated[bool | None, filter_parameter("serverless")] = None,
        max_price: Annotated[float | None, filter_parameter("max_price")] = None,
        max_price_per_gpu: Annotated[float | None, filter_parameter("max_price_per_gpu")] = None,
        min_gpus: Annotated[float | None, filter_parameter("min_gpus")] = None,
        region: Annotated[
            list[str] | None, filter_parameter("region", max_items=MAX_LIST_VALUES)
        ] = None,
        max_age_days: Annotated[float | None, filter_parameter("max_age_days")] = None,
        include_suspect: Annotated[bool, filter_parameter("include_suspect")] = False,
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
        sort: Annotated[
            Sort,
            Parameter(
                description=(
                    "price = USD/instance-hour, price_per_gpu = USD/GPU-hour, "
                    "price_per_vram_gb = USD/GB-hour (usable), vram = usable GB per GPU; "
                    "ascending, or descending with a leading '-' (-price); rows without the "
                    "value last, ties by id"
                ),
            ),
        ] = "price",
        limit: Annotated[
            int, Parameter(ge=1, le=MAX_LIMIT, description="Page size (at most 1000)")
        ] = 100,
        offset: Annotated[int, Parameter(ge=0, le=1_000_000, description="Rows to skip")] = 0,
        format_: ListFormat = None,
    ) -> Response[bytes]:
        snapshot = store.get()
        try:
            query = OfferQuery(
                OfferFilter.build(
                    min_vram=min_vram,
                    min_total_vram=min_total_vram,
                    fp8=fp8,
                    bf16=bf16,
                    gpu=gpu,
                    provider=provider,
                    pricing=pricing,
                    serverless=serverless,
                    max_price=max_price,
                    max_price_per_gpu=max_price_per_gpu,
                    min_gpus=min_gpus,
                    region=region,
                    max_age_days=max_age_days,
                    include_suspect=include_suspect,
                ),
                sort=sort,
                limit=limit,
                offset=offset,
                cheapest_per_gpu=cheapest_per_gpu,
            )
        except FilterError as exc:
            raise ClientException(str(exc)) from None
        # no response cache: an in-memory query costs less than a cache of every query would
        return json_response(instances_body(snapshot, query), list_format=format_)


assert set(INSTANCE_SORT_KEYS) == set(Sort.__args__)  # the Literal and the allow-list agree
