"""GET /gpus, GET /providers, GET /health."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec

from api.encoding import encode_as, json_response
from api.params import ListFormat
from api.schemas import GpuList, Health, ProviderList
from api.store import NoSnapshot, Store
from warehouse.queries import LIVENESS_SQL, PROVIDERS_SQL, Liveness
from warehouse.queries.catalog import GPUS_SQL
from warehouse.queries.health import HEALTH_ORIGINS_SQL, HEALTH_SQL


class GpusController(Controller):
    path = "/gpus"
    tags = ("reference",)

    @get(
        "/",
        summary="Canonical GPU table",
        sync_to_thread=False,
        description="VRAM (GB), memory bandwidth (GB/s), dense tensor TFLOPS per precision "
        "(never sparsity figures), FP8/BF16 support, interconnect; one source URL per row.",
        responses={200: ResponseSpec(data_container=GpuList, description="All GPUs")},
    )
    def list_gpus(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        snapshot = store.get()
        return json_response(
            snapshot.cached(
                ("gpus",),
                lambda: encode_as(
                    GpuList, {"items": snapshot.query(GPUS_SQL), "as_of": snapshot.as_of}
                ),
            ),
            list_format=format_,
        )


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
        responses={200: ResponseSpec(data_container=ProviderList, description="All providers")},
    )
    def list_providers(self, store: Store, format_: ListFormat = None) -> Response[bytes]:
        snapshot = store.get()
        return json_response(
            snapshot.cached(
                ("providers",),
                lambda: encode_as(
                    ProviderList, {"items": snapshot.query(PROVIDERS_SQL), "as_of": snapshot.as_of}
                ),
            ),
            list_format=format_,
        )


def data_origin(by_origin: dict[str, dict[str, Any]]) -> tuple[str | None, str | None]:
    """(data_origin, notice) of a snapshot from its offers per origin (HEALTH_ORIGINS_SQL):
    live, recorded, mixed or curated, and a plain sentence unless every scraped price is live.
    """
    live, recorded = by_origin.get("live"), by_origin.get("recorded")
    if recorded is None:
        return ("live" if live else "curated" if by_origin else None), None
    age = recorded["newest_age_days"]
    newest = "" if age is None else f"; the newest was observed {age:g} days before this snapshot"
    if live is None:
        return "recorded", (
            f"These prices are recorded, not live: all {recorded['offers']} scraped offers of "
            f"{recorded['providers']} providers were replayed from dated captures (or the "
            f"recorded offers shipped with gpuprices){newest}"
        )
    return "mixed", (
        f"{recorded['offers']} offers of {recorded['providers']} providers are recorded, not "
        f"live: replayed from dated captures{newest}"
    )


class HealthController(Controller):
    path = "/health"
    tags = ("health",)

    @get(
        "/",
        summary="Liveness and data presence",
        sync_to_thread=False,
        description="The served snapshot, its offers by origin, how many providers are live "
        "(prices from a live scrape, within their shelf life) and a banner when none is.",
        responses={
            200: ResponseSpec(data_container=Health, description="Serving a snapshot"),
            503: ResponseSpec(data_container=Health, description="No snapshot yet"),
        },
    )
    def health(self, store: Store) -> Response[bytes]:
        try:
            snapshot = store.get()
        except NoSnapshot:
            return json_response(
                encode_as(
                    Health,
                    {
                        "status": "no_snapshot",
                        "problem": store.last_error,
                        "snapshot_id": None,
                        "as_of": None,
                        "offers": 0,
                        "providers": 0,
                        "by_origin": {},
                    },
                ),
                503,
            )
        counts = snapshot.query(HEALTH_SQL)[0]
        by_origin = {row.pop("data_origin"): row for row in snapshot.query(HEALTH_ORIGINS_SQL)}
        origin, notice = data_origin(by_origin)
        live = Liveness.of(snapshot.query(LIVENESS_SQL)[0])
        # a newer snapshot or the pointer could not be read: still serving, the last good one
        problem = store.last_error
        return json_response(
            encode_as(
                Health,
                {
                    "status": "degraded" if problem else "ok",
                    "problem": problem,
                    "snapshot_id": snapshot.info.snapshot_id,
                    "as_of": snapshot.as_of,
                    **counts,
                    "data_origin": origin,
                    "notice": notice,
                    "by_origin": by_origin,
                    "scraped_providers": live.scraped_providers,
                    "live_providers": live.live_providers,
                    "banner": live.banner,
                },
            )
        )
