"""Paged list answers: where the next page starts (``next_offset`` in the body) and the RFC 8288
``Link`` header of the pages around this one.

A page of ``limit`` rows from ``offset`` out of ``total`` links ``rel="next"`` (only when rows
follow it), and ``rel="first"`` and ``rel="prev"`` (only when it is not the first page). Each
target is this request's path and query with ``limit`` and ``offset`` replaced (appended last;
every other parameter, ``as_of`` included, kept in its order), as a URI reference relative to
the request's host (RFC 3986: the client resolves it against the URL it asked). The Litestar
handlers and the GET /instances fast route send the same header from here.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode

LINK_DOC = (
    'RFC 8288 links of the pages around this one: rel="next" while rows follow, rel="first" and '
    'rel="prev" after the first page; each the same path and query with limit and offset'
)


def next_offset(offset: int, limit: int, total: int) -> int | None:
    """The offset of the next page, or None on the last one."""
    following = offset + limit
    return following if following < total else None


def _target(path: str, pairs: list[tuple[str, str]], limit: int, offset: int) -> str:
    query = urlencode(
        [*pairs, ("limit", str(limit)), ("offset", str(offset))], quote_via=quote, safe=","
    )
    return f"{path}?{query}"


def link_header(
    path: str, query_string: bytes | str, offset: int, limit: int, total: int
) -> str | None:
    """The ``Link`` value of a page (see module doc), or None when it has no page around it."""
    text = query_string.decode("latin-1") if isinstance(query_string, bytes) else query_string
    pairs = [
        (k, v) for k, v in parse_qsl(text, keep_blank_values=True) if k not in ("limit", "offset")
    ]
    links = []
    following = next_offset(offset, limit, total)
    if following is not None:
        links.append(f'<{_target(path, pairs, limit, following)}>; rel="next"')
    if offset > 0:
        links.append(f'<{_target(path, pairs, limit, 0)}>; rel="first"')
        links.append(f'<{_target(path, pairs, limit, max(0, offset - limit))}>; rel="prev"')
    return ", ".join(links) or None
