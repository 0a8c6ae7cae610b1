"""Reading the data a Next.js (App Router) page embeds in its React Server Components "flight"
payload: the ``self.__next_f.push([1, "<text>"])`` script chunks of the HTML.

The text of each chunk is a JavaScript string literal holding rows of JSON (``7:[...]``); the
objects a pricing page renders (plans, instance types, table rows) are inside. Captures are
often excerpts cut out of that payload: a slice that starts inside a chunk's string (quotes
still backslash-escaped, ``{\\"id\\":...``) and may stop in the middle of an object. Both read
the same here: ``flight_text`` gives the unescaped text, ``objects_at`` the JSON objects that
start at a marker, counting the one an excerpt cut off.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from scrapers.base import RawResponse, SchemaDriftError

PUSH_MARKER = "self.__next_f.push([1,"
_PARTIAL_UNICODE = re.compile(r"\\u[0-9a-fA-F]{0,3}$")
_DECODER = json.JSONDecoder()


def _string_literal(text: str, start: int) -> tuple[str, int]:
    """The JSON string literal body starting at ``text[start]`` (just after its opening quote)
    and the index after its closing quote, or the end of ``text`` when it is cut off there."""
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == '"':
            return text[start:index], index + 1
        index += 1
    return text[start:], len(text)


def _unescape(literal: str, where: str) -> str:
    """The text of a string literal's body; an escape the cut edge split (a lone ``\\``, a
    partial ``\\u00``) is dropped."""
    if _odd_backslashes_at_end(literal):
        literal = literal[:-1]
    partial = _PARTIAL_UNICODE.search(literal)
    if partial is not None and _odd_backslashes_at_end(literal[: partial.start() + 1]):
        literal = literal[: partial.start()]
    try:
        return json.loads(f'"{literal}"')
    except json.JSONDecodeError as exc:
        message = f"{where}: flight data is not a string literal ({exc.msg})"
        raise SchemaDriftError(message) from None


def _odd_backslashes_at_end(text: str) -> bool:
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def flight_text(response: RawResponse) -> str:
    """The unescaped flight text of a page: every pushed chunk's string, joined in order. A body
    with no push call is taken as an excerpt of one chunk's string (escaped as in the page)."""
    body = response.body.decode("utf-8", errors="replace")
    if PUSH_MARKER not in body:
        return _unescape(body.strip(), response.url)
    parts: list[str] = []
    position = 0
    while (found := body.find(PUSH_MARKER, position)) != -1:
        quote = body.find('"', found + len(PUSH_MARKER))
        if quote == -1:
            break
        literal, position = _string_literal(body, quote + 1)
        parts.append(_unescape(literal, response.url))
    return "".join(parts)


def objects_at(text: str, marker: str) -> Iterator[tuple[Any | None, str]]:
    """For each place ``marker`` starts in ``text`` (a marker begins with ``{``), the JSON value
    that starts there and the text it was read from; the value is None when the text ends
    before it does (an excerpt's cut edge), and a value that is not JSON raises
    ``SchemaDriftError``."""
    if not marker.startswith("{"):
        raise ValueError("an object marker starts with '{'")
    position = 0
    while (found := text.find(marker, position)) != -1:
        try:
            value, end = _DECODER.raw_decode(text, found)
        except json.JSONDecodeError as exc:
            if _cut_off(text, found):
                yield None, text[found:]
                return
            raise SchemaDriftError(f"unreadable object at {marker!r} ({exc.msg})") from None
        yield value, text[found:end]
        position = end


def _cut_off(text: str, start: int) -> bool:
    """True when the object starting at ``start`` is still open at the end of ``text``."""
    depth = 0
    in_string = False
    index = start
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return False
        index += 1
    return True
