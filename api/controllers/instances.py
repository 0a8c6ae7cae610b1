"""GET /instances: the current comparison, filtered, sorted and paged."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from api.encoding import json_response, page_body
from api.params import MAX_LIST_VALUES, ListFormat, gpu_filters, slugs, split_values
from api.queries import (
    INSTANCE_SORT_KEYS,
    cheapest_per_gpu_sql,
    instances_sql,
    instances_where,
)
from api.schemas import InstancesPage
from api.store import Store

MAX_LIMIT = 1000
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
# Documentation of the list filters shared with the economics endpoints.
GPU_DOC = (
    "Canonical GPU id or family, e.g. h100-sxm, h100 or a100-80gb, in any case and punctuation, "
    "or another spelling of it (RTX4090, A100-80GB, H100-SXM, NVIDIA L40S); an id matches that "
    "GPU only, a family every GPU whose id starts with it. Repeatable or comma-separated"
)
PROVIDER_DOC = "Provider slug, any case (repeatable or comma-separated: lambda,runpod)"


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
        min_vram: Annotated[
            float | None,
            Parameter(
                ge=0,
                le=10_000,
                description="Minimum GB of usable VRAM per GPU (vram_gb_usable: a share of a "
                "GPU counts with the memory it gets)",
            ),
        ] = None,
        min_total_vram: Annotated[
            float | None,
            Parameter(
                ge=0, le=100_000, description="Minimum GB of usable VRAM per instance (all GPUs)"
            ),
        ] = None,
        fp8: Annotated[
            bool | None, Parameter(description="Only GPUs with (true) / without (false) native FP8")
        ] = None,
        bf16: Annotated[
            bool | None,
            Parameter(description="Only GPUs with (true) / without (false) native BF16"),
        ] = None,
        gpu: Annotated[
            list[str] | None,
            Parameter(description=GPU_DOC, max_items=MAX_LIST_VALUES),
        ] = None,
        provider: Annotated[
            list[str] | None,
            Parameter(description=PROVIDER_DOC, max_items=MAX_LIST_VALUES),
        ] = None,
        pricing: Annotated[
            list[PricingModel] | None, Parameter(description="Pricing model (repeatable)")
        ] = None,
        serverless: Annotated[
            bool | None,
            Parameter(description="Only serverless tiers (true) or only instances (false)"),
        ] = None,
        max_price: Annotated[
            float | None, Parameter(ge=0, description="Maximum USD per instance-hour")
        ] = None,
        max_price_per_gpu: Annotated[
            float | None, Parameter(ge=0, description="Maximum USD per GPU-hour")
        ] = None,
        min_gpus: Annotated[
            float | None, Parameter(ge=0, le=10_000, description="Minimum GPUs per instance")
        ] = None,
        region: Annotated[
            list[str] | None,
            Parameter(
                description="Region code, any case (repeatable or comma-separated)",
                max_items=MAX_LIST_VALUES,
            ),
        ] = None,
        max_age_days: Annotated[
            float | None,
            Parameter(
                ge=0,
                le=100_000,
                description="Only prices observed at most this many days before the snapshot",
            ),
        ] = None,
        include_suspect: Annotated[
            bool,
            Parameter(
                description="Also list prices the plausibility screen marks suspect "
                "(price_status, price_status_reasons); left out by default"
            ),
        ] = False,
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
        filters = {
            "min_vram": min_vram,
            "min_total_vram": min_total_vram,
            "fp8": fp8,
            "bf16": bf16,
            "gpu": gpu_filters(gpu),
            "provider": slugs(provider),
            "pricing": sorted(set(pricing)) if pricing else None,
            "serverless": serverless,
            "max_price": max_price,
            "max_price_per_gpu": max_price_per_gpu,
            "min_gpus": min_gpus,
            "region": split_values(region, "region", lower=True),
            "max_age_days": max_age_days,
            "include_suspect": include_suspect or None,
        }
        key = (
            "instances",
            tuple(sorted((k, str(v)) for k, v in filters.items() if v is not None)),
            sort,
            limit,
            offset,
            cheapest_per_gpu,
        )

        def build() -> bytes:
            where = instances_where(filters)
            page_sql, count_sql = (cheapest_per_gpu_sql if cheapest_per_gpu else instances_sql)(
                where, sort
            )
            items = snapshot.query(page_sql, [*where.params, limit, offset])
            total = snapshot.query(count_sql, where.params)[0]["n"]
            return page_body(items, total=total, limit=limit, offset=offset, as_of=snapshot.as_of)

        return json_response(snapshot.cached(key, build), list_format=format_)


assert set(INSTANCE_SORT_KEYS) == set(Sort.__args__)  # the Literal and the allow-list agree
