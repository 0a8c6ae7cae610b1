"""GET /gpus, GET /providers, GET /health."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec

from api.encoding import encode_as, json_response
from api.params import ListFormat
from api.queries import GPUS_SQL, HEALTH_ORIGINS_SQL, HEALTH_SQL, PROVIDERS_SQL
from api.schemas import GpuList, Health, ProviderList
from api.store import NoSnapshot, Store


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
        "many of its offers are current.",
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


class HealthController(Controller):
    path = "/health"
    tags = ("health",)

    @get(
        "/",
        summary="Liveness and data presence",
        sync_to_thread=False,
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
                    "by_origin": by_origin,
                },
            )
        )
