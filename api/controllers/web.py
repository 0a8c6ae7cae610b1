"""GET / (the comparison page) and GET /charts/{offer_id}/history.svg (a price-history chart).

The page is one self-contained HTML file (inline CSS and JavaScript, no CDN, no fonts, no
external requests: the Content-Security-Policy header enforces it). It reads the same
/instances endpoint as any other client; the chart is drawn server-side as SVG.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, ClassVar

from litestar import Controller, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from api.charts import history_svg
from api.queries import OFFER_HISTORY_SQL
from api.store import Store

PAGE = Path(__file__).resolve().parents[1] / "pages" / "index.html"
# Everything the page needs is inline or same-origin; nothing may load from elsewhere.
PAGE_CSP = (
    "default-src 'none'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SVG = "image/svg+xml"


@cache
def _page() -> bytes:
    return PAGE.read_bytes()


class WebController(Controller):
    path = "/"
    include_in_schema = False

    @get("/", sync_to_thread=False, media_type="text/html; charset=utf-8")
    def page(self) -> Response[bytes]:
        return Response(
            content=_page(),
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff"},
        )


class ChartsController(Controller):
    path = "/charts"
    tags: ClassVar[list[str]] = ["charts"]

    @get(
        "/{offer_id:str}/history.svg",
        summary="Price history of one offer (SVG)",
        sync_to_thread=False,
        media_type=SVG,
        description="Step chart of the offer's USD-per-instance-hour price over its change "
        "intervals; gaps where it was not seen. 404 if the offer has no history.",
        responses={
            200: ResponseSpec(data_container=str, media_type=SVG, description="An SVG document")
        },
    )
    def history(
        self,
        store: Store,
        offer_id: Annotated[str, Parameter(max_length=64, description="Offer id from /instances")],
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
            return history_svg(title, rows, snapshot.as_of).encode("utf-8")

        body = snapshot.cached(("history_svg", offer_id), build)
        if not body:
            raise NotFoundException(f"no price history for offer {offer_id!r}")
        return Response(
            content=body,
            media_type=SVG,
            headers={"Cache-Control": "public, max-age=60", "X-Content-Type-Options": "nosniff"},
        )
