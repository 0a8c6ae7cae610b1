"""RFC 9457 problem details: the body and media type of every error answer.

Each error is ``application/problem+json`` with the RFC's members: ``type`` (``about:blank``:
the HTTP status says what kind of problem it is), ``title`` (that status's phrase), ``status``,
``detail`` (what was wrong with this request, in one sentence) and ``instance`` (the request's
path and query: which request it was). The fields of earlier releases stay beside them for one
minor version (docs/api-stability.md): ``status_code`` (= ``status``, deprecated) and, for
parameter errors, ``extra`` (one entry per parameter: key, message, valid values). Nothing here
imports the app, so the server protocol and the middlewares can build the same body."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from litestar.types import Scope

PROBLEM_MEDIA_TYPE = "application/problem+json"
ABOUT_BLANK = "about:blank"
# RFC 9110's names where Python 3.11's http.HTTPStatus still has the older RFC 7231 phrase
_RFC9110_TITLES = {413: "Content Too Large", 414: "URI Too Long", 422: "Unprocessable Content"}


def instance_of(scope: Scope, *, with_query: bool = True) -> str:
    """The request target as sent: path, and the query unless it is itself the problem."""
    path = scope.get("raw_path") or scope.get("path", "").encode()
    target = path.decode("latin-1") if isinstance(path, bytes) else str(path)
    target = target.split("?", 1)[0]  # some servers put the query in raw_path too
    query = scope.get("query_string", b"") if with_query else b""
    return f"{target}?{query.decode('latin-1')}" if query else target


def problem(
    status: int, detail: str, instance: str | None = None, **members: Any
) -> dict[str, Any]:
    """The problem object of one error; ``members`` are extension members (``extra``...)."""
    body: dict[str, Any] = {
        "type": ABOUT_BLANK,
        "title": _RFC9110_TITLES.get(status) or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if instance is not None:
        body["instance"] = instance
    body["status_code"] = status  # deprecated alias of status, kept for one minor version
    body.update({k: v for k, v in members.items() if v is not None})
    return body
