"""Issue 27: "a 60 MB JSON answer is decoded whole before it is refused".

The per-offer text cap (``scrapers.base.MAX_TEXT_CHARS``) applied after ``json.loads`` had
built the whole document: the 60 MB Vast answer of 60 KB regions peaked at twice its size in
the decoder, and a few MB of ``[{},{},...]`` decode to ~25 times their size. The JSON budget
(``scrapers.parsing.check_json_budget``, inside ``json_body``, which every JSON scraper reads
through) refuses such a body before decoding, with one line naming the provider and the bound.
The pipeline test (last good data kept) is in tests/pipelines/test_hostile_input.py.
"""

from __future__ import annotations

import json
import tracemalloc
from datetime import UTC, datetime

import httpx
import pytest

from scrapers import http, vast
from scrapers.base import PageOverBudget, RawResponse
from scrapers.parsing import (
    MAX_JSON_ITEMS,
    MAX_JSON_STRING_CHARS,
    check_json_budget,
    json_body,
)
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.hostile_answers import vast_answer


def _parse_vast(body: bytes):
    """Vast's live path: a mock server -> the scraper's fetch -> ``parse_report``."""
    transport = httpx.MockTransport(
        lambda r: httpx.Response(200, content=body, headers={"content-type": "application/json"})
    )
    with http.make_client(transport) as client:
        responses = vast.PROVIDER.fetch(client, None)
    return vast.PROVIDER.parse_report(responses)


def _raw(body: bytes) -> RawResponse:
    return RawResponse(
        "https://example.invalid/", "GET", 200, "application/json", body, datetime.now(UTC)
    )


def test_60mb_vast_answer_is_refused_without_being_decoded() -> None:
    body = vast_answer(1000, "R" * 60_000)
    tracemalloc.start()
    try:
        with pytest.raises(PageOverBudget) as refused:
            json_body(_raw(body))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(refused.value) == (
        "https://example.invalid/: JSON answer of 60.1 MB, more than 16 MB, refused before decoding"
    )
    assert peak < 1_000_000  # decoded: ~120 MB (the text, then its 1,000 strings)


def test_vast_answer_of_60kb_regions_within_the_size_limit_is_refused_before_decoding() -> None:
    body = vast_answer(100, "R" * 60_000)  # 6 MB
    with pytest.raises(PageOverBudget) as refused:
        _parse_vast(body)
    message = str(refused.value)
    assert message.startswith(f"Vast.ai: {vast.BUNDLES_URL}?q="), message
    assert message.endswith(
        f": JSON string of more than {MAX_JSON_STRING_CHARS:,} characters, refused before decoding"
    )


def test_a_long_string_of_escaped_quotes_is_counted_as_decoded() -> None:
    # every byte block holds a quote, so only the exact count can tell how long the string is
    body = json.dumps({"offers": [{"geolocation": '"' * 40_000}]}).encode()
    with pytest.raises(PageOverBudget, match="JSON string of more than"):
        check_json_budget(_raw(body))
    assert len(json.loads(body)["offers"][0]["geolocation"]) == 40_000


def test_a_million_empty_objects_are_refused_before_decoding() -> None:
    body = b"[" + b",".join([b"{}"] * (MAX_JSON_ITEMS + 1)) + b"]"  # 3 MB, ~90 MB decoded
    with pytest.raises(PageOverBudget) as refused:
        check_json_budget(_raw(body))
    assert str(refused.value) == (
        f"https://example.invalid/: more than {MAX_JSON_ITEMS:,} JSON values and keys in one"
        " answer, refused before decoding"
    )


def test_a_nan_yajl_rejects_does_not_open_the_item_bound() -> None:
    # yajl stops at NaN, which json.loads accepts: the structural upper bound still applies
    body = b"[NaN," + b",".join([b"[]"] * (MAX_JSON_ITEMS + 1)) + b"]"
    with pytest.raises(PageOverBudget, match="JSON values and keys"):
        check_json_budget(_raw(body))


def test_json_that_only_json_loads_reads_still_decodes_as_before() -> None:
    body = json.dumps({"price": float("nan"), "pad": "x" * 20_000, "big": 10**30}).encode()
    assert b"NaN" in body
    decoded = json_body(_raw(body))
    assert decoded["big"] == 10**30
    assert decoded["pad"] == "x" * 20_000


def test_every_json_capture_is_within_the_budget() -> None:
    checked = 0
    for captures in discover(SNAPSHOTS).values():
        for capture in captures:
            body = capture.path.read_bytes()
            try:
                json.loads(body)
            except ValueError:
                continue  # an HTML capture
            check_json_budget(_raw(body))
            checked += 1
    assert checked >= 20
