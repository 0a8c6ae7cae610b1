"""Operations: GET /health, GET /version and GET /metrics (Prometheus text format,
``api.metrics``); POST /admin/refresh is ``api.ops.admin``."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

import duckdb
from litestar import Controller, Request, Response, get
from prometheus_client import generate_latest

from api.encoding import encode_as, json_response
from api.metrics import MEDIA_TYPE
from api.openapi import ResponseDoc
from api.ops.schemas import Health, Version
from api.store import NoSnapshot, Store
from warehouse.queries import LIVENESS_SQL, Liveness
from warehouse.queries.health import HEALTH_ORIGINS_SQL, HEALTH_SQL

API_VERSION = "0.1.0"  # OpenAPI info.version (api.app)
METRICS_STATE = "metrics"


class VersionController(Controller):
    path = "/version"
    tags = ("health",)

    @get(
        "/",
        summary="Versions of the server and the snapshot it serves",
        sync_to_thread=False,
        responses={200: ResponseDoc(data_container=Version, description="Versions")},
    )
    def version(self, store: Store) -> Response[bytes]:
        try:
            snapshot = store.get()
            snapshot_id, as_of = snapshot.info.snapshot_id, snapshot.as_of
        except NoSnapshot:
            snapshot_id, as_of = None, None
        return json_response(
            encode_as(
                Version,
                {
                    "version": metadata.version("gpuprices"),
                    "api_version": API_VERSION,
                    "snapshot_id": snapshot_id,
                    "snapshot_as_of": as_of,
                    "python": platform.python_version(),
                    "duckdb": duckdb.__version__,
                    "litestar": metadata.version("litestar"),
                },
            )
        )


class MetricsController(Controller):
    path = "/metrics"
    tags = ("health",)

    @get(
        "/",
        summary="Prometheus metrics of this process",
        description="Requests by method, route template and status; latency histogram by "
        "route; the served snapshot's age in seconds, its offers (all, expired) and providers. "
        "Prometheus text exposition format 0.0.4; one process's figures (each worker its own).",
        sync_to_thread=False,
        media_type=MEDIA_TYPE,
        responses={
            200: ResponseDoc(
                data_container=str, media_type=MEDIA_TYPE, description="Prometheus text format"
            )
        },
    )
    def metrics(self, request: Request) -> Response[bytes]:
        registry = request.app.state[METRICS_STATE].registry
        return Response(content=generate_latest(registry), media_type=MEDIA_TYPE)


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
            200: ResponseDoc(data_container=Health, description="Serving a snapshot"),
            503: ResponseDoc(data_container=Health, description="No snapshot yet"),
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
