"""The HTTP layer's politeness and retry contract: per-host concurrency limit, minimum interval,
honest User-Agent, bounded retries honouring Retry-After, no credential in any log line."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from scrapers import http
from scrapers.base import FetchError


def test_user_agent_names_the_project_and_where_to_find_it() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["user-agent"])
        return httpx.Response(200, text="ok")

    with http.make_client(httpx.MockTransport(answer)) as client:
        http.get(client, "https://example.invalid/")
    assert seen == [http.USER_AGENT]
    assert http.USER_AGENT.startswith("gpuprices/") and "https://" in http.USER_AGENT


def test_at_most_max_concurrent_requests_per_host() -> None:
    lock = threading.Lock()
    in_flight: dict[str, int] = {}
    peak: dict[str, int] = {}

    def slow(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        with lock:
            in_flight[host] = in_flight.get(host, 0) + 1
            peak[host] = max(peak.get(host, 0), in_flight[host])
        time.sleep(0.02)
        with lock:
            in_flight[host] -= 1
        return httpx.Response(200, text="ok")

    throttle = http.HostThrottle(min_interval_s=0, max_concurrent=2)
    with http.make_client(httpx.MockTransport(slow), throttle=throttle) as client:
        urls = [f"https://{host}.invalid/{i}" for i in range(8) for host in ("a", "b")]
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda u: http.get(client, u), urls))
    assert peak == {"a.invalid": 2, "b.invalid": 2}


def test_default_is_one_request_at_a_time_per_host() -> None:
    assert http.HostThrottle().max_concurrent == http.MAX_CONCURRENT_PER_HOST == 1


def test_minimum_interval_between_requests_to_one_host(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(http, "pause", waits.append)
    throttle = http.HostThrottle(min_interval_s=5.0)
    with http.make_client(
        httpx.MockTransport(lambda r: httpx.Response(200)), throttle=throttle
    ) as client:
        http.get(client, "https://a.invalid/1")
        http.get(client, "https://b.invalid/1")  # another host: no wait
        http.get(client, "https://a.invalid/2")
    assert len(waits) == 1 and 4.5 < waits[0] <= 5.0


def test_slot_released_when_the_transport_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "pause", lambda s: None)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    throttle = http.HostThrottle(min_interval_s=0)
    with http.make_client(httpx.MockTransport(refuse), throttle=throttle) as client:
        for _ in range(2):  # a leaked slot would block the second call forever
            with pytest.raises(FetchError, match="Connection refused"):
                http.get(client, "https://a.invalid/")


def test_retry_after_is_honoured_and_attempts_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(http, "pause", waits.append)
    calls = []

    def limited(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(429, headers={"Retry-After": "12"})

    with (
        http.make_client(httpx.MockTransport(limited)) as client,
        pytest.raises(FetchError) as failure,
    ):
        http.get(client, "https://a.invalid/x?key=SECRET")
    assert len(calls) == http.MAX_ATTEMPTS
    assert waits == [12.0] * (http.MAX_ATTEMPTS - 1)
    assert str(failure.value) == (
        f"GET https://a.invalid/x?key=REDACTED: HTTP 429 after {http.MAX_ATTEMPTS} attempts"
    )


def test_retry_after_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(http, "pause", waits.append)
    with (
        http.make_client(
            httpx.MockTransport(lambda r: httpx.Response(503, headers={"Retry-After": "86400"}))
        ) as client,
        pytest.raises(FetchError),
    ):
        http.get(client, "https://a.invalid/", max_attempts=2)
    assert waits == [http.RETRY_AFTER_CAP_S]


def test_httpx_request_log_never_shows_a_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with http.make_client(httpx.MockTransport(lambda r: httpx.Response(200))) as client:
        http.get(client, "https://a.invalid/skus", params={"key": "AIzaSECRET", "pageSize": 5})
    assert "HTTP Request: GET" in caplog.text
    assert "AIzaSECRET" not in caplog.text and "key=REDACTED" in caplog.text


def test_transport_error_text_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "pause", lambda s: None)

    def leaky(request: httpx.Request) -> httpx.Response:
        raise httpx.ProxyError(f"proxy refused {request.url}\nsecond line", request=request)

    with (
        http.make_client(httpx.MockTransport(leaky)) as client,
        pytest.raises(FetchError) as failure,
    ):
        http.get(client, "https://a.invalid/p?api_key=SECRET1")
    assert "SECRET1" not in str(failure.value) and "\n" not in str(failure.value)
