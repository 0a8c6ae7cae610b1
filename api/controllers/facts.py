"""GET /providers/{slug} (status + curated billing facts), GET /serverless (platforms, tiers)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from api.encoding import encode_as, json_response
from api.params import ListFormat
from api.schemas import ErrorBody
from api.schemas_economics import ProviderDetail, ServerlessList
from api.store import Snapshot, Store
from warehouse.queries import PROVIDER_STATUS_SQL
from warehouse.queries.catalog import (
    KNOWN_PROVIDERS_SQL,
    PLATFORM_SQL,
    PLATFORM_TIERS_SQL,
    PLATFORMS_SQL,
    PROVIDER_FACTS_SQL,
)

_FACT_TABLES = frozenset({"provider_facts", "serverless_platforms", "serverless_tiers"})


def _first(snapshot: Snapshot, sql: str, params: list[Any], table: str) -> dict[str, Any] | None:
    if table not in snapshot.tables:  # a snapshot published before the facts existed
        return None
    rows = snapshot.query(sql, params)
    return rows[0] if rows else None


def _with_tiers(snapshot: Snapshot, platforms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tiers = snapshot.query(PLATFORM_TIERS_SQL, [[p["platform"] for p in platforms]])
    by_platform: dict[str, list[dict[str, Any]]] = {}
    for tier in tiers:
        by_platform.setdefault(tier["platform"], []).append(tier)
    return [{**p, "tiers": by_platform.get(p["platform"], [])} for p in platforms]


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
            200: ResponseSpec(data_container=ProviderDetail, description="The provider"),
            404: ResponseSpec(data_container=ErrorBody, description="Unknown slug"),
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
            status = _first(snapshot, PROVIDER_STATUS_SQL, [slug], "provider_status")
            facts = _first(snapshot, PROVIDER_FACTS_SQL, [slug], "provider_facts")
            platform = _first(snapshot, PLATFORM_SQL, [slug], "serverless_platforms")
            if status is None and facts is None and platform is None:
                known = (
                    [r["provider"] for r in snapshot.query(KNOWN_PROVIDERS_SQL)]
                    if snapshot.tables >= _FACT_TABLES
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
                    "serverless_platform": _with_tiers(snapshot, [platform])[0]
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
        responses={200: ResponseSpec(data_container=ServerlessList, description="All platforms")},
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
                    "items": _with_tiers(snapshot, platforms) if platforms else [],
                    "as_of": snapshot.as_of,
                },
            )

        return json_response(snapshot.cached(("serverless",), build), list_format=format_)
