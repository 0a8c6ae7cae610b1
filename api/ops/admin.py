"""POST /admin/refresh: the one endpoint that changes server state, behind a bearer token.

The token is ``$GPUPRICES_ADMIN_TOKEN`` as read when the app is created. Unset: every admin
request gets 403 (the endpoint is disabled, not open). A missing or wrong token gets 401. The
comparison is constant-time (``hmac.compare_digest``). Each client (by address) may call it
``ADMIN_REQUESTS_PER_MINUTE`` times a minute; beyond, 429 with ``Retry-After`` (Litestar's rate
limit middleware), and every refused attempt is logged with the client's address (issue 27: the
endpoint took 2,612 guesses a second and logged none).
"""

from __future__ import annotations

import hmac
import logging

from litestar import Controller, Request, Response, post
from litestar.middleware.rate_limit import RateLimitConfig

from api.encoding import encode_as, json_response
from api.openapi import ResponseDoc
from api.ops.schemas import RefreshResult
from api.problems import PROBLEM_MEDIA_TYPE, instance_of, problem
from api.schemas import ErrorBody
from api.store import Store

ADMIN_TOKEN_ENV = "GPUPRICES_ADMIN_TOKEN"
ADMIN_TOKEN_STATE = "admin_token"
BEARER = "bearer"  # the OpenAPI security scheme name (see api.app)
ADMIN_REQUESTS_PER_MINUTE = 10
RATE_LIMIT = RateLimitConfig(rate_limit=("minute", ADMIN_REQUESTS_PER_MINUTE))
log = logging.getLogger("gpuprices.api")


def denied(request: Request) -> Response[bytes] | None:
    """403 when admin endpoints are disabled, 401 unless the bearer token matches, else None."""
    expected: str = request.app.state.get(ADMIN_TOKEN_STATE) or ""
    if not expected:
        return _refuse(
            request,
            403,
            f"admin endpoints are disabled: set {ADMIN_TOKEN_ENV} on the server to enable them",
        )
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        given.strip().encode(), expected.encode()
    ):
        return _refuse(
            request,
            401,
            "admin endpoints need 'Authorization: Bearer <token>'",
            {"WWW-Authenticate": 'Bearer realm="gpuprices-admin"'},
        )
    return None


def _refuse(
    request: Request, status: int, detail: str, headers: dict[str, str] | None = None
) -> Response[bytes]:
    client = request.client.host if request.client else "unknown"
    log.warning("admin request refused (%d) from %s: %s", status, client, detail)
    return Response(
        content=encode_as(ErrorBody, problem(status, detail, instance_of(request.scope))),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )


class AdminController(Controller):
    path = "/admin"
    tags = ("admin",)

    @post(
        "/refresh",
        summary="Load the newest published snapshot now",
        sync_to_thread=False,
        status_code=200,
        security=[{BEARER: []}],
        middleware=[RATE_LIMIT.middleware],
        description="Re-reads published/CURRENT at once instead of at the next reload "
        "interval. Needs `Authorization: Bearer $GPUPRICES_ADMIN_TOKEN`; 403 while the "
        "server has no admin token configured. At most "
        f"{ADMIN_REQUESTS_PER_MINUTE} requests a minute per client address: beyond, 429.",
        responses={
            200: ResponseDoc(data_container=RefreshResult, description="Snapshot served now"),
            401: ResponseDoc(data_container=ErrorBody, description="Missing or wrong token"),
            403: ResponseDoc(data_container=ErrorBody, description="Admin disabled"),
            429: ResponseDoc(data_container=ErrorBody, description="Too many admin requests"),
        },
    )
    def refresh(self, request: Request, store: Store) -> Response[bytes]:
        refusal = denied(request)
        if refusal is not None:
            return refusal
        swapped = store.refresh()
        snapshot = store.get()
        return json_response(
            encode_as(
                RefreshResult,
                {
                    "swapped": swapped,
                    "snapshot_id": snapshot.info.snapshot_id,
                    "as_of": snapshot.as_of,
                },
            )
        )
