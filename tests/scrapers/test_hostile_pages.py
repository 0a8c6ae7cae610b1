"""Issue 15: "a 31.5 MB 200k-row page still parses 63 s before the offers cap refuses it".

The table readers now refuse a page at its first row past ``MAX_TABLE_ROWS_PER_PAGE`` while
reading it (the tokenising reader) or right after lexbor built the tree (selectolax), with an
error that names the provider and the cap. The pages go through the live code path: a mock
server -> the scraper's fetch -> ``parse_report``. Time to refuse is a figure, printed by
``benchmarks/hostile_pages.py``, not asserted here.
"""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from scrapers import base, crusoe, datacrunch, digitalocean, http, lambda_cloud
from scrapers.base import PageOverBudget, PageTooLarge, Provider, RawResponse
from scrapers.parsing import MAX_HTML_ELEMENTS, MAX_TABLE_ROWS_PER_PAGE, check_html_budget
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.pipelines.test_hostile_input import datacrunch_page

REFUSED = (
    f" table rows on one page (at most {MAX_TABLE_ROWS_PER_PAGE:,} are read; no real pricing page"
    " has nearly as many), refused while parsing"
)


def raw_from_bytes(body: bytes) -> RawResponse:
    return RawResponse("https://example.invalid/", "GET", 200, "text/html", body, datetime.now(UTC))


def _scrape(provider: Provider, page: bytes):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host not in ("datacrunch.io", "www.crusoe.ai"):
            return httpx.Response(404)  # DataCrunch's open API: the page is the fallback
        return httpx.Response(200, content=page, headers={"content-type": "text/html"})

    with http.make_client(httpx.MockTransport(answer)) as client:
        responses = provider.fetch(client, None)
    return provider.parse_report(responses)


def test_a_200k_row_datacrunch_page_is_refused_before_parsing_naming_provider_and_size():
    page = datacrunch_page(200_000)  # 31.5 MB, 600k offers: past the HTML byte budget
    with pytest.raises(PageOverBudget) as refused:
        _scrape(datacrunch.PROVIDER, page)
    assert str(refused.value) == (
        f"DataCrunch: {datacrunch.PRODUCTS_URL}: HTML page of 31.5 MB, more than 16 MB,"
        " refused before parsing"
    )


def test_a_datacrunch_page_over_the_row_cap_is_refused_while_parsing_naming_provider_and_count():
    page = datacrunch_page(MAX_TABLE_ROWS_PER_PAGE + 100)  # within the HTML budget
    with pytest.raises(PageTooLarge) as refused:
        _scrape(datacrunch.PROVIDER, page)
    cap = f"more than {MAX_TABLE_ROWS_PER_PAGE:,}"
    assert str(refused.value) == f"DataCrunch: {datacrunch.PRODUCTS_URL}: {cap}{REFUSED}"


def nested_page(depth: int) -> bytes:
    """Issue 27's attack: a page of ``depth`` nested ``<div>`` (200k: 2.2 MB, 191 s in lexbor)."""
    return b"<html><body>" + b"<div>" * depth + b"x" + b"</div>" * depth + b"</body></html>"


@pytest.mark.parametrize(
    "provider", [lambda_cloud.PROVIDER, crusoe.PROVIDER, digitalocean.PROVIDER]
)
def test_200k_nested_div_page_is_refused_before_lexbor_parses_it(provider: Provider) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=nested_page(200_000), headers={"content-type": "text/html"}
        )

    with http.make_client(httpx.MockTransport(answer)) as client:
        responses = provider.fetch(client, None)
    with pytest.raises(PageOverBudget, match=r"HTML nested more than 512 elements deep, refused"):
        provider.parse_report(responses)


def test_html_element_budget_refuses_a_flat_page_of_too_many_elements() -> None:
    page = b"<html><body>" + b"<span>x</span>" * (MAX_HTML_ELEMENTS + 1) + b"</body></html>"
    with pytest.raises(PageOverBudget, match=f"more than {MAX_HTML_ELEMENTS:,} HTML elements"):
        check_html_budget(raw_from_bytes(page))


def test_every_real_html_capture_is_within_the_html_budget() -> None:
    pages = sorted(SNAPSHOTS.rglob("*.htm*"))
    assert len(pages) > 20
    for path in pages:
        check_html_budget(raw_from_bytes(path.read_bytes()))


def test_parse_past_the_deadline_is_refused_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "PARSE_DEADLINE_S", 0.0)
    capture = discover(SNAPSHOTS, ["crusoe"])["crusoe"][-1].path.read_bytes()
    with pytest.raises(PageOverBudget) as refused:
        _scrape(crusoe.PROVIDER, capture)
    assert str(refused.value) == (
        f"Crusoe: {crusoe.PRICING_URL}: parse deadline of 0 s passed, refused while parsing"
    )


def test_a_page_at_the_row_cap_still_parses():
    header = 1
    offers, _ = _scrape(datacrunch.PROVIDER, datacrunch_page(MAX_TABLE_ROWS_PER_PAGE - header))
    assert len(offers) == 3 * (MAX_TABLE_ROWS_PER_PAGE - header)


def test_a_selectolax_read_page_over_the_row_cap_is_refused_naming_provider_and_count():
    capture = discover(SNAPSHOTS, ["crusoe"])["crusoe"][-1].path.read_bytes()
    rows = MAX_TABLE_ROWS_PER_PAGE + 1 - capture.count(b"<tr")
    page = capture + b"<table>" + b"<tr><td>x</td></tr>" * rows + b"</table>"
    with pytest.raises(PageTooLarge) as refused:
        _scrape(crusoe.PROVIDER, page)
    total = MAX_TABLE_ROWS_PER_PAGE + 1
    assert str(refused.value) == f"Crusoe: {crusoe.PRICING_URL}: {total:,}{REFUSED}"


def test_impossible_dates_in_capture_names_are_left_out_with_one_line_not_a_traceback(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 27 (low): ``2025-13-45_...`` (or Feb 30, hour 25) raised ValueError out of
    ``discover``; the file is left out with a warning naming it, the other captures replay."""
    from scrapers.replay import CaptureNameError, capture_time

    good = discover(SNAPSHOTS, ["hetzner"])["hetzner"][-1].path
    folder = tmp_path / "hetzner"
    folder.mkdir()
    for name in ("2025-13-45_x.json", "2025-02-30_x.json", "2025-01-01T25_x.json", good.name):
        (folder / name).write_bytes(good.read_bytes())
    with caplog.at_level("WARNING", logger="scrapers.replay"):
        found = discover(tmp_path, ["hetzner"])
    assert [c.path.name for c in found["hetzner"]] == [good.name]
    assert [r.getMessage() for r in caplog.records] == [
        "replay: capture 2025-01-01T25_x.json: its date does not exist (hour must be in 0..23);"
        " not replayed",
        "replay: capture 2025-02-30_x.json: its date does not exist (day is out of range for"
        " month); not replayed",
        "replay: capture 2025-13-45_x.json: its date does not exist (month must be in 1..12);"
        " not replayed",
    ]
    with pytest.raises(CaptureNameError):
        capture_time("2025-13-45_x.json")
