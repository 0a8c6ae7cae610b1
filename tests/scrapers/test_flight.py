"""Next.js flight data (scrapers.flight): pushed chunks, escaped excerpts, cut-off objects."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from scrapers.base import RawResponse, SchemaDriftError
from scrapers.flight import flight_text, objects_at


def _raw(body: bytes) -> RawResponse:
    return RawResponse("https://example.invalid/", "GET", 200, "text/html", body, datetime.now(UTC))


def test_pushed_chunks_are_unescaped_and_joined() -> None:
    body = (
        b'<script>self.__next_f.push([1,"7:{\\"a\\":1,"])</script>'
        b'<script>self.__next_f.push([1,"\\"b\\":\\"caf\\u00e9\\"}"])</script>'
    )
    assert flight_text(_raw(body)) == '7:{"a":1,"b":"café"}'


def test_an_excerpt_of_one_chunk_cut_inside_an_escape_reads() -> None:
    # a slice of the escaped string, its edge inside "\u00e9" and then inside '\"'
    assert flight_text(_raw(b'{\\"id\\":\\"caf\\u00')) == '{"id":"caf'
    assert flight_text(_raw(b'{\\"id\\":\\"x\\')) == '{"id":"x'


def test_objects_at_a_marker_and_the_cut_one() -> None:
    text = '[{"id":"p1","n":[1]},{"id":"p2","n":{"x":"}"}},{"id":"p3","n":[2'
    found = list(objects_at(text, '{"id":'))
    assert [value for value, _ in found] == [
        {"id": "p1", "n": [1]},
        {"id": "p2", "n": {"x": "}"}},
        None,
    ]


def test_a_broken_object_before_the_end_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="unreadable object"):
        list(objects_at('{"id":1,,}, {"id":2}', '{"id":'))
