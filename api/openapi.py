"""The OpenAPI document, completed: every answer an operation can give is in it.

Litestar documents the 200 of each handler and the 400 of its own parameter validation. The
answers that come from the layers around the handlers are added here, once, for every operation
they apply to (so a new endpoint is documented without listing them again):

- every error is an RFC 9457 problem (``application/problem+json``, ``ErrorBody``; api.problems);
- 304 where a GET answers conditional requests (ETag/Last-Modified, api.conditional);
- 400 for an unknown query parameter (api.params), 404 for a path parameter that names nothing,
  410 for an ``as_of`` the server no longer holds (api.store), 414 for a query string over the
  limit (api.limits), 500 for an unexpected error (api.errors), 503 while no snapshot is loaded;
- ``text/csv`` beside JSON for the list answers that take ``format`` (api.encoding);
- the ``Link`` header (RFC 8288: next, first, prev) of the paged answers, those that take
  ``limit`` and ``offset`` (api.paging).

Handlers document their other answers with ``ResponseDoc``: Litestar's ``ResponseSpec`` fills
an answer's schema with an example it makes up from random values unless told not to
(``generate_examples`` defaults to true there), and the document carried 586 of them
(``"precision_requested": "XVNlpvKbisEEMzQXLuAg"``, a GPU count of 200 digits, negative
tokens/s) for a client or a reader of /schema to take at their word.

``CompleteJsonRenderPlugin`` serves the completed document at /schema/openapi.json."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Request
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin

from api.paging import LINK_DOC
from api.problems import PROBLEM_MEDIA_TYPE

ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
_METHODS = ("get", "put", "post", "delete", "patch")
_DONE = "x-gpuprices-completed"
_ADDED = {
    "400": "Invalid or unknown query parameters (the detail names them; extra lists each)",
    "404": "No such resource: the path names nothing this server knows",
    "410": "as_of names a snapshot this server no longer holds (or never served)",
    "414": "The query string is longer than the server accepts",
    "500": "Unexpected error; the body holds a request id to quote",
    "503": "No snapshot is loaded yet (or the one pinned cannot be read)",
}
_NOT_MODIFIED = "Not Modified: If-None-Match / If-Modified-Since matched the snapshot served"


@dataclass
class ResponseDoc(ResponseSpec):
    """An answer of a handler as the document states it: Litestar's ``ResponseSpec`` without
    the made-up example (see the module docstring)."""

    generate_examples: bool = False


def _problem_content() -> dict[str, Any]:
    return {PROBLEM_MEDIA_TYPE: {"schema": ERROR_REF}}


def _query_names(operation: dict[str, Any]) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"}


def _takes_csv(operation: dict[str, Any]) -> bool:
    for p in operation.get("parameters", []):
        if p.get("name") == "format":
            schema = p.get("schema", {})
            options = schema.get("enum") or [
                v for s in schema.get("oneOf", []) for v in s.get("enum", [])
            ]
            return "csv" in options
    return False


def complete(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every answer documented (in place; a second call changes nothing)."""
    if schema.get(_DONE):
        return schema
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    if "ErrorBody" not in components:  # pragma: no cover - an endpoint references it today
        raise RuntimeError("ErrorBody is not in the OpenAPI components")
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status, response in responses.items():
                if status[0] in "45":
                    response["content"] = _problem_content()
            names = _query_names(operation)
            wanted = {"414", "500"}
            if path.startswith("/schema"):
                wanted = set()
            if names:
                wanted.add("400")
            if "{" in path:
                wanted.add("404")
            if "as_of" in names:
                wanted |= {"410", "503"}
            for status in sorted(wanted - set(responses)):
                responses[status] = {"description": _ADDED[status], "content": _problem_content()}
            ok = responses.get("200")
            if method == "get" and ok is not None and "application/json" in ok.get("content", {}):
                responses.setdefault("304", {"description": _NOT_MODIFIED})
                if {"limit", "offset"} <= names:
                    ok.setdefault("headers", {})["Link"] = {
                        "description": LINK_DOC,
                        "schema": {"type": "string"},
                    }
                if _takes_csv(operation):
                    ok["content"]["text/csv"] = {
                        "schema": {"type": "string", "description": "The list, one row per item"}
                    }
    schema[_DONE] = True
    return schema


class CompleteJsonRenderPlugin(JsonRenderPlugin):
    """/schema/openapi.json: Litestar's document, completed by :func:`complete`."""

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, complete(openapi_schema))
