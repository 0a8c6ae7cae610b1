"""Issue 15: "a 31.5 MB 200k-row page still parses 63 s before the offers cap refuses it".

The table readers now refuse a page at its first row past ``MAX_TABLE_ROWS_PER_PAGE`` while
reading it (the tokenising reader) or right after lexbor built the tree (selectolax), with an
error that names the provider and the cap. The pages go through the live code path: a mock
server -> the scraper's fetch -> ``parse_report``. Time to refuse is a figure, printed by
``benchmarks/hostile_pages.py``, not asserted here.
"""

from __future__ import annotations

import httpx
import pytest

from scrapers import crusoe, datacrunch, http
from scrapers.base import PageTooLarge, Provider
from scrapers.parsing import MAX_TABLE_ROWS_PER_PAGE
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.pipelines.test_hostile_input import datacrunch_page

REFUSED = (
    f" table rows on one page (at most {MAX_TABLE_ROWS_PER_PAGE:,} are read; no real pricing page"
    " has nearly as many), refused while parsing"
)


def _scrape(provider: Provider, page: bytes):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host not in ("datacrunch.io", "www.crusoe.ai"):
            return httpx.Response(404)  # DataCrunch's open API: the page is the fallback
        return httpx.Response(200, content=page, headers={"content-type": "text/html"})

    with http.make_client(httpx.MockTransport(answer)) as client:
        responses = provider.fetch(client, None)
    return provider.parse_report(responses)


def test_a_200k_row_datacrunch_page_is_refused_while_parsing_naming_provider_and_count():
    page = datacrunch_page(200_000)  # 31.5 MB, 600k offers
    with pytest.raises(PageTooLarge) as refused:
        _scrape(datacrunch.PROVIDER, page)
    cap = f"more than {MAX_TABLE_ROWS_PER_PAGE:,}"
    assert str(refused.value) == f"DataCrunch: {datacrunch.PRODUCTS_URL}: {cap}{REFUSED}"


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
