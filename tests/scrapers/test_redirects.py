"""Issue 15 (low): "Redirects are followed to any host, including https -> http; the redirect
target becomes ``source_url``."

Now a redirect is followed on the requested host only and never from https to http, and the
response keeps the requested URL, so an offer's ``source_url`` is the URL the scraper asked
for. The servers are ``httpx.MockTransport``s: the policy lives in the client, above the wire.
"""

from __future__ import annotations

import httpx
import pytest

from scrapers import akash, http
from scrapers.base import FetchError
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS

AKASH_CAPTURE = discover(SNAPSHOTS, ["akash"])["akash"][-1]


def _redirecting(location: str, body: bytes = b"ok", status: int = 302):
    """A server that redirects its first request to ``location`` and answers every other."""
    seen: list[httpx.URL] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        if len(seen) == 1:
            return httpx.Response(status, headers={"location": location})
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    return answer, seen


def test_redirect_to_another_host_is_refused() -> None:
    answer, seen = _redirecting("https://elsewhere.invalid/prices?key=SECRET-key-3f9a")
    client = http.make_client(httpx.MockTransport(answer))
    with client, pytest.raises(FetchError) as failure:
        http.get(client, "https://provider.invalid/prices", headers={"Authorization": "t0k3n"})
    assert [u.host for u in seen] == ["provider.invalid"]  # the other host never asked
    assert str(failure.value) == (
        "GET https://provider.invalid/prices: redirect to another host refused"
        " (https://elsewhere.invalid/prices?key=REDACTED; only provider.invalid is followed)"
        " (after 1 attempt)"
    )


def test_redirect_to_a_subdomain_or_another_port_is_refused() -> None:
    for location in ("https://www.provider.invalid/prices", "https://provider.invalid:8443/"):
        answer, seen = _redirecting(location)
        client = http.make_client(httpx.MockTransport(answer))
        with client, pytest.raises(FetchError, match="redirect to another host refused"):
            http.get(client, "https://provider.invalid/prices")
        assert len(seen) == 1


def test_redirect_from_https_to_http_is_refused() -> None:
    answer, seen = _redirecting("http://provider.invalid/prices")
    client = http.make_client(httpx.MockTransport(answer))
    with client, pytest.raises(FetchError) as failure:
        http.get(client, "https://provider.invalid/prices")
    assert len(seen) == 1
    assert "redirect from https to http refused (http://provider.invalid/prices)" in str(
        failure.value
    )


def test_redirect_on_the_same_host_is_followed_and_keeps_the_requested_url() -> None:
    answer, seen = _redirecting("/v2/prices", b"moved", status=301)
    with http.make_client(httpx.MockTransport(answer)) as client:
        response = http.get(client, "https://provider.invalid/prices")
    assert [str(u) for u in seen] == [
        "https://provider.invalid/prices",
        "https://provider.invalid/v2/prices",
    ]
    assert (response.body, response.url) == (b"moved", "https://provider.invalid/prices")


def test_upgrade_from_http_to_https_on_the_same_host_is_followed() -> None:
    answer, seen = _redirecting("https://provider.invalid/prices")
    with http.make_client(httpx.MockTransport(answer)) as client:
        response = http.get(client, "http://provider.invalid/prices")
    assert [u.scheme for u in seen] == ["http", "https"]
    assert response.url == "http://provider.invalid/prices"


def test_redirected_scrape_keeps_the_requested_url_as_source_url() -> None:
    # Akash's real fetch and parse; the API moved on its own host: the offer's source is still
    # the URL the scraper requested, not the redirect target
    answer, seen = _redirecting("/v2/gpu-prices?moved=1", AKASH_CAPTURE.path.read_bytes())
    with http.make_client(httpx.MockTransport(answer)) as client:
        responses = akash.PROVIDER.fetch(client, None)
    [offer] = akash.PROVIDER.parse(responses)
    assert str(seen[-1]) == "https://console-api.akash.network/v2/gpu-prices?moved=1"
    assert offer.source_url == akash.GPU_PRICES_URL


def test_a_redirect_loop_is_one_line_fetch_error() -> None:
    def loop(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "/again"})

    client = http.make_client(httpx.MockTransport(loop))
    with client, pytest.raises(FetchError) as failure:
        http.get(client, "https://provider.invalid/prices")
    assert str(failure.value) == "GET https://provider.invalid/prices: more than 20 redirects"
