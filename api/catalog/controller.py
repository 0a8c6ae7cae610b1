"""The catalog: GET /gpus (the canonical GPU table), GET /providers (freshness),
GET /providers/{slug} (status + curated billing facts), GET /serverless (platforms, tiers)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, get
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from api.catalog.schemas import GpuList, ProviderDetail, ProviderList, ServerlessList
from api.catalog.service import FACT_TABLES, cached_list, first_row, with_tiers
from api.encoding import encode_as, json_response
from api.openapi import ResponseDoc
from api.params import ListFormat
from api.schemas import ErrorBody
from api.store import Store
from warehouse.queries import PROVIDER_STATUS_SQL, PROVIDERS_SQL
from warehouse.queries.catalog import (
    GPUS_SQL,
    KNOWN_PROVIDERS_SQL,
    PLATFORM_SQL,
    PLATFORMS_SQL,
    PROVIDER_FACTS_SQL,
)


class GpusController(Controller):
    path = "/gpus"
    tags = ("reference",)

    @get(
        "/",
        summary="Canonical GPU table",
        sync_to_thread=False,
        description="VRAM (GB), memory bandwidth (GB/s), dense tensor TFLOPS per precision "
        "(never sparsity figures), FP8/BF16 support, interconnect; one source URL per row.",
        responses={200: ResponseDoc(data_container=GpuList, description="All GPUs")},
    )
    def list_gpus(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        body = cached_list(store.get(), "gpus", GpuList, GPUS_SQL)
        return json_response(body, list_format=format_)


class ProvidersController(Controller):
    path = "/providers"
    tags = ("providers",)

    @get(
        "/",
        summary="Provider freshness",
        sync_to_thread=False,
        description="Last success and last failure (with its error) per provider, and how "
        "many of its offers are current, suspect, stale and expired (past the shelf life of "
        "their kind of price, per kind: left out of answers unless include_expired=true).",
        responses={200: ResponseDoc(data_container=ProviderList, description="All providers")},
    )
    def list_providers(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        body = cached_list(store.get(), "providers", ProviderList, PROVIDERS_SQL)
        return json_response(body, list_format=format_)


class ProviderDetailController(Controller):
    path = "/providers"
    tags = ("providers",)

    @get(
        "/{slug:str}",
        summary="One provider: freshness and billing facts",
        sync_to_thread=False,
        description="Scrape status (as in GET /providers) plus the curated facts: metering "
        "step (s), minimum charge (s), egress USD per GB, block storage USD per GB-month, spot "
        "availability, interconnect notes, each row with its as-of date and source URLs. For a "
        "serverless platform slug (e.g. runpod-serverless) also the platform's billing and "
        "scaling facts and its GPU tiers. Unknown facts are null.",
        responses={
            200: ResponseDoc(data_container=ProviderDetail, description="The provider"),
            404: ResponseDoc(data_container=ErrorBody, description="Unknown slug"),
        },
    )
    def provider(
        self,
        store: Store,
        slug: Annotated[
            str,
            Parameter(description="Provider or serverless platform slug, any case", max_length=100),
        ],
    ) -> Response[bytes]:
        snapshot = store.get()
        slug = slug.lower()  # slugs are lowercase: /providers/Lambda is /providers/lambda

        def build() -> bytes:
            status = first_row(snapshot, PROVIDER_STATUS_SQL, [slug], "provider_status")
            facts = first_row(snapshot, PROVIDER_FACTS_SQL, [slug], "provider_facts")
            platform = first_row(snapshot, PLATFORM_SQL, [slug], "serverless_platforms")
            if status is None and facts is None and platform is None:
                known = (
                    [r["provider"] for r in snapshot.query(KNOWN_PROVIDERS_SQL)]
                    if snapshot.tables >= FACT_TABLES
                    else []
                )
                raise NotFoundException(
                    f"unknown provider {slug!r}; known: {', '.join(known) or 'see GET /providers'}"
                )
            return encode_as(
                ProviderDetail,
                {
                    "provider": slug,
                    "status": status,
                    "facts": facts,
                    "serverless_platform": with_tiers(snapshot, [platform])[0]
                    if platform
                    else None,
                    "as_of": snapshot.as_of,
                },
            )

        return json_response(snapshot.cached(("provider", slug), build))


class ServerlessController(Controller):
    path = "/serverless"
    tags = ("providers",)

    @get(
        "/",
        summary="Serverless GPU platforms and their tiers",
        sync_to_thread=False,
        description="How each platform bills (metering step s, minimum charge s, idle billing, "
        "scale to zero), keeps replicas warm and mitigates cold starts, with its GPU tiers: "
        "price in the platform's own unit and USD per hour for the whole tier. The same tiers "
        "are offers in GET /instances?serverless=true.",
        responses={200: ResponseDoc(data_container=ServerlessList, description="All platforms")},
    )
    def platforms(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        snapshot = store.get()

        def build() -> bytes:
            platforms = (
                snapshot.query(PLATFORMS_SQL) if "serverless_platforms" in snapshot.tables else []
            )
            return encode_as(
                ServerlessList,
                {
                    "items": with_tiers(snapshot, platforms) if platforms else [],
                    "as_of": snapshot.as_of,
                },
            )

        return json_response(snapshot.cached(("serverless",), build), list_format=format_)
