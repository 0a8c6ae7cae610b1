"""GET /schema: the OpenAPI viewer (Swagger UI), served offline.

Swagger UI's files come from the ``swagger-ui-py`` package (a runtime dependency that ships
swagger-ui's dist files); ``GET /schema/assets/{name}`` serves the few the viewer needs, plus
its starter script (``api/static/swagger-init.js``). The page loads nothing from another host:
no CDN, no fonts, no online validator badge, and its Content-Security-Policy (on every response
under /schema) allows same-origin scripts, styles and requests only.
"""

from __future__ import annotations

import html
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated, Any

from litestar import Request, Response, Router, get
from litestar.datastructures import ResponseHeader
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.params import PathParameter

SCHEMA_PATH = "/schema"
ASSETS_PATH = "/assets"
STATIC = Path(__file__).resolve().parent / "static"
# Swagger UI styles elements inline (React style attributes), hence 'unsafe-inline' for styles.
SCHEMA_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# Litestar adds "; charset=utf-8" to text/* types itself
_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
ASSET_MAX_AGE_S = 86_400


def swagger_ui_dist() -> Path:
    """The directory of Swagger UI's dist files inside the installed swagger-ui-py package
    (found without importing it). Raises RuntimeError when the package is missing."""
    spec = find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the /schema viewer needs the swagger-ui-py package: run `uv sync`")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@cache
def _assets() -> dict[str, Path]:
    dist = swagger_ui_dist()
    return {
        "swagger-ui-bundle.js": dist / "swagger-ui-bundle.js",
        "swagger-ui.css": dist / "swagger-ui.css",
        "favicon-32x32.png": dist / "favicon-32x32.png",
        "swagger-init.js": STATIC / "swagger-init.js",
    }


@cache
def _asset(name: str) -> bytes | None:
    path = _assets().get(name)
    return path.read_bytes() if path is not None else None


@get(f"{ASSETS_PATH}/{{name:str}}", sync_to_thread=False, include_in_schema=False)
def schema_asset(name: Annotated[str, PathParameter(max_length=64)]) -> Response[bytes]:
    """One file of the viewer, by name (an allow-list; anything else is 404)."""
    body = _asset(name)
    if body is None:
        raise NotFoundException(f"no viewer asset {name!r}")
    return Response(
        content=body,
        media_type=_TYPES[Path(name).suffix],
        headers={"Cache-Control": f"public, max-age={ASSET_MAX_AGE_S}"},
    )


class OfflineSwaggerPlugin(OpenAPIRenderPlugin):
    """Swagger UI over /schema/openapi.json, from local files only."""

    def __init__(self, path: str = "/swagger") -> None:
        swagger_ui_dist()  # fail at startup, not on the first visit, if the package is missing
        super().__init__(
            path=path,
            favicon=f'<link rel="icon" type="image/png" '
            f'href="{SCHEMA_PATH}{ASSETS_PATH}/favicon-32x32.png">',
        )

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        assets = f"{SCHEMA_PATH}{ASSETS_PATH}"
        title = html.escape(str(openapi_schema["info"]["title"]))
        spec_url = html.escape(self.get_openapi_json_route(request), quote=True)
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} API</title>
{self.favicon}
<link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-spec-url="{spec_url}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{assets}/swagger-init.js"></script>
</body>
</html>
""".encode()

    def receive_router(self, router: Router) -> None:
        router.register(schema_asset)


def schema_router() -> Router:
    """The router the OpenAPI plugin fills (``OpenAPIConfig(openapi_router=...)``): every
    response under /schema carries the viewer's Content-Security-Policy."""
    return Router(
        SCHEMA_PATH,
        route_handlers=[],
        include_in_schema=False,
        response_headers=[
            ResponseHeader(name="Content-Security-Policy", value=SCHEMA_CSP),
            ResponseHeader(name="X-Content-Type-Options", value="nosniff"),
        ],
    )
