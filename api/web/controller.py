"""GET / (the comparison page) and the SVG charts it embeds: GET /charts/{offer_id}/history.svg
(one offer's price history) and GET /charts/gpus/{gpu}/history.svg (a GPU model's market).

The page is one self-contained HTML file (inline CSS and JavaScript, no CDN, no fonts, no
external requests). Its Content-Security-Policy allows only same-origin requests and only the
page's own inline script and style, by hash, so text that slipped into the DOM as markup still
could not run. It reads the same JSON endpoints as any other client (/instances, /gpus,
/models, /fit, /estimates); the charts are drawn server-side as SVG, at the width the page
asks for (its chart box's, so their text is 12 px on a phone too). GET /favicon.ico is the
page's icon (``api.web.favicon``).
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, timedelta
from functools import cache
from pathlib import Path
from typing import Annotated, ClassVar

from litestar import Controller, Response, get
from litestar.exceptions import ClientException, NotFoundException
from litestar.params import Parameter

from api.offload import cached_off_loop
from api.openapi import ResponseDoc
from api.store import Store
from api.web.charts import (
    MARKET_WIDTH,
    MAX_WIDTH,
    MIN_WIDTH,
    WIDTH,
    history_svg,
    market_history_svg,
)
from api.web.favicon import favicon_ico
from warehouse.queries import gpu_filter
from warehouse.queries.catalog import GPUS_SQL
from warehouse.queries.history import MARKET_HISTORY_SQL, OFFER_HISTORY_SQL, market_history_params
from warehouse.vocabulary import MAX_RANGE_DAYS, FixedPricing, HistoryBucket

PAGE = Path(__file__).resolve().parent / "pages" / "index.html"
SVG = "image/svg+xml"
WIDTH_DOC = (
    "Drawing width in CSS pixels (the SVG's viewBox width): shown at this width, its text is "
    "12 px; a page asks for the width of its container"
)
SVG_HEADERS = {"Cache-Control": "public, max-age=60", "X-Content-Type-Options": "nosniff"}


def _hashes(html: str, tag: str) -> str:
    blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.S)
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
        for b in blocks
    )


@cache
def _page() -> tuple[bytes, str]:
    """The page and its Content-Security-Policy: same-origin requests only, and no script or
    style but the page's own inline blocks (by hash; no 'unsafe-inline')."""
    html = PAGE.read_text(encoding="utf-8")
    csp = (
        "default-src 'none'; connect-src 'self'; img-src 'self' data: blob:; "
        f"style-src {_hashes(html, 'style')}; script-src {_hashes(html, 'script')}; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
    return html.encode("utf-8"), csp


class WebController(Controller):
    path = "/"
    include_in_schema = False

    @get("/", sync_to_thread=False, media_type="text/html")
    def page(self) -> Response[bytes]:
        body, csp = _page()
        return Response(
            content=body,
            media_type="text/html",
            headers={"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff"},
        )

    @get("/favicon.ico", sync_to_thread=False, media_type="image/x-icon")
    def favicon(self) -> Response[bytes]:
        """The page's icon (browsers ask for /favicon.ico whether or not a page links one)."""
        return Response(
            content=favicon_ico(),
            media_type="image/x-icon",
            headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
        )


class ChartsController(Controller):
    path = "/charts"
    tags: ClassVar[list[str]] = ["charts"]

    @get(
        "/{offer_id:str}/history.svg",
        summary="Price history of one offer (SVG)",
        media_type=SVG,
        description="Step chart of the offer's USD-per-instance-hour price over its change "
        "intervals; gaps where it was not seen. 404 if the offer has no history.",
        responses={
            200: ResponseDoc(data_container=str, media_type=SVG, description="An SVG document")
        },
    )
    async def history(
        self,
        store: Store,
        offer_id: Annotated[str, Parameter(max_length=64, description="Offer id from /instances")],
        width: Annotated[int, Parameter(ge=MIN_WIDTH, le=MAX_WIDTH, description=WIDTH_DOC)] = WIDTH,
    ) -> Response[bytes]:
        snapshot = store.get()

        def build() -> bytes:
            rows = snapshot.query(OFFER_HISTORY_SQL, [offer_id])
            if not rows:
                return b""
            first = rows[0]
            title = (
                f"{first['provider']} {first['instance_type']} ({first['region']}, "
                f"{first['pricing'].replace('_', '-')})"
            )
            return history_svg(title, rows, snapshot.as_of, width).encode("utf-8")

        body = await cached_off_loop(snapshot, ("history_svg", offer_id, width), build)
        if not body:
            raise NotFoundException(f"no price history for offer {offer_id!r}")
        return Response(content=body, media_type=SVG, headers=SVG_HEADERS)

    @get(
        "/gpus/{gpu:str}/history.svg",
        summary="Market price history of a GPU model (SVG)",
        media_type=SVG,
        description="GET /history drawn: per bucket, the cheapest and the median of each "
        "provider's cheapest offer in USD per GPU-hour over the min-max band, for the `days` "
        "days up to the snapshot (suspect prices and serverless tiers left out). 404 if the "
        "GPU model has no history in that range.",
        responses={
            200: ResponseDoc(data_container=str, media_type=SVG, description="An SVG document")
        },
    )
    async def gpu_history(
        self,
        store: Store,
        gpu: Annotated[
            str,
            Parameter(
                min_length=1,
                max_length=64,
                description="Canonical GPU id or family, e.g. h100-sxm or h100",
            ),
        ],
        pricing: Annotated[FixedPricing, Parameter(description="Pricing model")] = "on_demand",
        bucket: Annotated[HistoryBucket, Parameter(description="Bucket size")] = "week",
        days: Annotated[
            int,
            Parameter(
                ge=1,
                le=MAX_RANGE_DAYS["month"],
                description="Days up to the snapshot's publication day: at most "
                f"{MAX_RANGE_DAYS['day']} by day, {MAX_RANGE_DAYS['week']} by week, "
                f"{MAX_RANGE_DAYS['month']} by month",
            ),
        ] = 730,
        width: Annotated[
            int, Parameter(ge=MIN_WIDTH, le=MAX_WIDTH, description=WIDTH_DOC)
        ] = MARKET_WIDTH,
    ) -> Response[bytes]:
        if days > MAX_RANGE_DAYS[bucket]:
            raise ClientException(
                f"days={days} is more than {MAX_RANGE_DAYS[bucket]} by {bucket} "
                "(use a larger bucket)"
            )
        snapshot = store.get()
        family = gpu_filter(gpu)
        if not family:
            raise ClientException("gpu must name a GPU model, e.g. h100-sxm")

        def build() -> bytes:
            last = snapshot.as_of.astimezone(UTC).date()
            first = last - timedelta(days=days - 1)
            rows = snapshot.query(  # GET /history's query and rules
                MARKET_HISTORY_SQL,
                market_history_params(family, pricing, bucket, first, last, snapshot.as_of),
            )
            if not rows:
                return b""
            names = {g["gpu_id"]: g["name"] for g in snapshot.query(GPUS_SQL)}
            name = names.get(family) or f"{family} (every variant)"
            title = f"{name}, {pricing.replace('_', '-')}"
            until = last + timedelta(days=1)
            return market_history_svg(title, rows, bucket, until, width).encode()

        body = await cached_off_loop(
            snapshot, ("market_svg", family, pricing, bucket, days, width), build
        )
        if not body:
            raise NotFoundException(
                f"no {pricing} price history for GPU {family!r} in the last {days} days"
            )
        return Response(content=body, media_type=SVG, headers=SVG_HEADERS)
