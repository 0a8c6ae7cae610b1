"""GET /version and GET /metrics (Prometheus text format, api.metrics)."""

from __future__ import annotations

import platform
from importlib import metadata

import duckdb
from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from prometheus_client import generate_latest

from api.encoding import encode_as, json_response
from api.metrics import MEDIA_TYPE
from api.schemas.ops import Version
from api.store import NoSnapshot, Store

API_VERSION = "0.1.0"  # OpenAPI info.version (api.app)
METRICS_STATE = "metrics"


class VersionController(Controller):
    path = "/version"
    tags = ("health",)

    @get(
        "/",
        summary="Versions of the server and the snapshot it serves",
        sync_to_thread=False,
        responses={200: ResponseSpec(data_container=Version, description="Versions")},
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
            200: ResponseSpec(
                data_container=str, media_type=MEDIA_TYPE, description="Prometheus text format"
            )
        },
    )
    def metrics(self, request: Request) -> Response[bytes]:
        registry = request.app.state[METRICS_STATE].registry
        return Response(content=generate_latest(registry), media_type=MEDIA_TYPE)
