"""The Litestar application: ``create_app()`` (uvicorn: ``api.app:create_app --factory``)."""

from __future__ import annotations

from pathlib import Path

from litestar import Litestar, Request, Response
from litestar.config.compression import CompressionConfig
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme

from api.catalog.controller import (
    GpusController,
    ProviderDetailController,
    ProvidersController,
    ServerlessController,
)
from api.conditional import conditional_get, head_as_get
from api.docs import SCHEMA_PATH, OfflineSwaggerPlugin, schema_router
from api.economics.controller import EconomicsController
from api.encoding import EXCLUDED_HEADERS, encode
from api.errors import request_ids, unhandled_error
from api.history.controller import HistoryController
from api.instances.controller import InstancesController, instances_fast_route
from api.limits import limit_query_length
from api.logs import logging_config
from api.metrics import Metrics
from api.openapi import CompleteJsonRenderPlugin
from api.ops.admin import ADMIN_TOKEN_ENV, ADMIN_TOKEN_STATE, BEARER, AdminController
from api.ops.controller import (
    API_VERSION,
    METRICS_STATE,
    HealthController,
    MetricsController,
    VersionController,
)
from api.params import enum_values, query_name, reject_unknown_parameters
from api.problems import PROBLEM_MEDIA_TYPE, instance_of, problem
from api.schemas import NumberSchemaPlugin
from api.store import NoSnapshot, SnapshotGone, SnapshotStore, pinned_store
from api.vary import keep_vary, merge_vary
from api.web.controller import ChartsController, WebController
from warehouse import remote
from warehouse.settings import Settings, env_var

CORS_ENV = env_var("cors_origins")  # comma-separated origins; unset = no CORS headers
# gzip for clients that send Accept-Encoding: gzip; level 6: most of 9's gain at a third the CPU
COMPRESSION = CompressionConfig(backend="gzip", minimum_size=1024, gzip_compress_level=6)


def _error(
    request: Request,
    status: int,
    detail: str,
    extra: list | None = None,
    headers: dict[str, str] | None = None,
    **members: object,
) -> Response[bytes]:
    body = problem(status, detail, instance_of(request.scope), extra=extra or None, **members)
    return Response(
        content=encode(body), status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers
    )


def _with_valid_values(request: Request, extra: list) -> list:
    """``extra`` of a validation error with each query parameter under its query name
    (``format``, not the argument ``format_``) and each enum error with its valid values."""
    handler = request.scope.get("route_handler")
    if handler is None:
        return extra
    path_params = request.scope.get("path_params") or {}
    out = []
    for e in extra:
        if not (isinstance(e, dict) and e.get("key") and e.get("source") == "query"):
            out.append(e)
            continue
        e = {**e, "key": query_name(handler, str(e["key"]), path_params)}
        valid = enum_values(handler, e["key"], path_params)
        if valid and "enum" in str(e.get("message", "")):
            message = f"{e['message']}; valid values: {', '.join(valid)}"
            e = {**e, "message": message, "valid": valid}
        out.append(e)
    return out


def _validation_error(request: Request, exc: ValidationException) -> Response[bytes]:
    extra = _with_valid_values(request, exc.extra if isinstance(exc.extra, list) else [])
    names = [str(e.get("key")) for e in extra if isinstance(e, dict) and e.get("key")]
    messages = "; ".join(
        f"{e.get('key')}: {e.get('message')}" for e in extra if isinstance(e, dict) and e.get("key")
    )
    detail = (
        f"invalid parameter{'s' if len(names) > 1 else ''} {', '.join(names)} ({messages})"
        if names
        else str(exc.detail)
    )
    return _error(request, 400, detail, extra)


def _no_snapshot(request: Request, exc: NoSnapshot) -> Response[bytes]:
    return _error(request, 503, str(exc))


def _snapshot_gone(request: Request, exc: SnapshotGone) -> Response[bytes]:
    return _error(
        request, 410, str(exc), current_as_of=exc.current_as_of, held_as_of=exc.held or None
    )


def _http_error(request: Request, exc: HTTPException) -> Response[bytes]:
    """The exception's status and detail, and its headers: a 405 keeps Litestar's ``Allow``
    (with HEAD wherever GET is allowed: ``head_as_get`` answers it), a 429 says when to retry
    (``Retry-After``, the rate limit's reset in seconds)."""
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    if "allow" in headers:
        methods = {m.strip().upper() for m in headers["allow"].split(",") if m.strip()}
        if "GET" in methods:
            methods.add("HEAD")
        headers["allow"] = ", ".join(sorted(methods))
    if exc.status_code == 429 and "ratelimit-reset" in headers:  # RFC 6585: say when to retry
        headers.setdefault("retry-after", headers["ratelimit-reset"])
    return _error(
        request,
        exc.status_code,
        str(exc.detail),
        exc.extra if isinstance(exc.extra, list) else None,
        headers=headers or None,
    )


def create_app(
    published_dir: Path | None = None,
    reload_interval_s: float | None = None,
    settings: Settings | None = None,
) -> Litestar:
    """The API over the newest published snapshot under ``$GPUPRICES_HOME/published``, or the
    one ``$GPUPRICES_SNAPSHOT_URL`` (an fsspec URL) names when that is set.

    ``settings`` default: ``Settings.load()`` (the environment, README "Settings"; a bad value
    raises ``warehouse.settings.SettingError``, one line naming the variable)."""
    settings = settings or Settings.load()
    directory = published_dir or settings.paths().published
    url = settings.snapshot_url if published_dir is None else None
    interval = (
        reload_interval_s
        if reload_interval_s is not None
        else settings.reload_interval(remote=bool(url))
    )
    cache_bytes = settings.response_cache_bytes
    if url:
        # Replicas elsewhere: read snapshots from $GPUPRICES_SNAPSHOT_URL via a local cache.
        source = remote.RemoteSnapshots(url, settings.snapshot_cache_dir())
        store = SnapshotStore(
            source.cache_dir,
            reload_interval_s=interval,
            locate=source.current,
            where=url,
            cache_bytes=cache_bytes,
            held=settings.held_snapshots,
        )
    else:
        store = SnapshotStore(
            directory,
            reload_interval_s=interval,
            cache_bytes=cache_bytes,
            held=settings.held_snapshots,
        )
    origins = list(settings.cors_origins)
    app = Litestar(
        route_handlers=[
            InstancesController,
            GpusController,
            ProvidersController,
            HealthController,
            WebController,
            ChartsController,
            ProviderDetailController,
            ServerlessController,
            EconomicsController,
            AdminController,
            HistoryController,
            VersionController,
            MetricsController,
        ],
        # outermost first: nothing answers before the query is checked, and a 304 only ever
        # stands in for a 200
        middleware=[
            keep_vary,
            limit_query_length,
            reject_unknown_parameters,
            conditional_get(store),
        ],
        compression_config=COMPRESSION,
        logging_config=logging_config(),  # stderr as it is at each record (api.logs)
        plugins=[NumberSchemaPlugin()],  # response schemas' numbers: JSON numbers, not strings
        # the store, or with ?as_of= a view pinned to that held snapshot (api.store)
        dependencies={"store": Provide(pinned_store(store), sync_to_thread=False)},
        exception_handlers={
            ValidationException: _validation_error,
            NoSnapshot: _no_snapshot,
            SnapshotGone: _snapshot_gone,
            HTTPException: _http_error,
            Exception: unhandled_error,
        },
        request_max_body_size=settings.max_body_bytes,
        cors_config=CORSConfig(
            allow_origins=origins,
            allow_methods=["GET", "HEAD"],
            expose_headers=[
                "ETag",
                "Last-Modified",
                "X-Total-Count",
                *EXCLUDED_HEADERS,
                "Content-Disposition",
                "X-Request-ID",
            ],
        )
        if origins
        else None,
        openapi_config=OpenAPIConfig(
            title="gpuprices",
            version=API_VERSION,
            path=SCHEMA_PATH,
            openapi_router=schema_router(),
            description="Cloud GPU offers compared: VRAM, bandwidth, precision support and prices "
            "normalised to USD per hour, per GPU-hour and per GB-of-VRAM-hour.",
            render_plugins=[OfflineSwaggerPlugin(), CompleteJsonRenderPlugin()],
            components=Components(
                security_schemes={
                    BEARER: SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description=f"${ADMIN_TOKEN_ENV} of the server",
                    ),
                }
            ),
        ),
        state=State(
            {
                "store": store,
                ADMIN_TOKEN_STATE: settings.admin_token_value(),
            }
        ),
    )
    # plain GET /instances queries skip Litestar (routing, parameter parsing, handler): the same
    # bytes; HEAD on every GET endpoint; every answer, errors included, carries an X-Request-ID
    # GET /metrics counts every answer: it wraps everything but the request id
    metrics = Metrics(store, (route.path for route in app.routes))
    app.state[METRICS_STATE] = metrics
    # the app's Vary survives Litestar's CORS layer (api.vary); with origins, each answer
    # varies on Origin too
    app.asgi_handler = request_ids(
        metrics.wrap(
            head_as_get(
                instances_fast_route(store)(
                    merge_vary(app.asgi_handler, ("Origin",) if origins else ())
                )
            )
        )
    )
    return app
