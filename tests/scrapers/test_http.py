"""The HTTP layer's politeness and retry contract: per-host concurrency limit, minimum interval,
honest User-Agent, bounded retries honouring Retry-After, no credential in any log line; and its
limits against hostile servers (issue 15): bodies refused while streaming past the size limit
(gzip bombs included), a wall-clock deadline per exchange and per client, no header value in
an error, no observation date set by a live server.

The slow-loris and illegal-header cases need a real socket (h11 on the wire, httpcore's
timeouts): ``socket_server`` answers on 127.0.0.1 from a thread, every loop bounded."""

from __future__ import annotations

import logging
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from scrapers import http
from scrapers.base import FetchError
from tests.support.hostile_answers import gzip_bomb


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


# --- hostile servers (issue 15) -----------------------------------------------------------------


@contextmanager
def socket_server(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that reads one request per connection and calls ``answer`` with
    the connection (from a thread per connection); yields its base URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            try:
                conn.recv(65536)
                answer(conn)
            except OSError:
                pass  # the client hung up: what a deadline does

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join()
        listener.close()


def drip(data: bytes, every_s: float, limit: int = 200) -> Callable[[socket.socket], None]:
    """An answer sent one byte every ``every_s`` seconds (at most ``limit`` bytes)."""

    def answer(conn: socket.socket) -> None:
        for byte in data[:limit]:
            conn.sendall(bytes([byte]))
            time.sleep(every_s)

    return answer


OK_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_slow_loris_headers_hit_the_request_deadline() -> None:
    limits = http.FetchLimits(request_deadline_s=1.0)
    with socket_server(drip(OK_RESPONSE, 0.25)) as url, http.make_client(limits=limits) as client:
        started = time.monotonic()
        with pytest.raises(FetchError) as failure:
            http.get(client, url)
        elapsed = time.monotonic() - started
    # every byte arrives well inside the 20 s read timeout; the wall clock ends it
    assert 1.0 <= elapsed < 3.0
    assert str(failure.value) == (
        f"GET {url}: no complete answer within the request deadline of 1 s (after 1 attempt)"
    )


def test_slow_loris_body_hits_the_request_deadline() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"

    def answer(conn: socket.socket) -> None:
        conn.sendall(head)
        drip(b"x" * 1000, 0.25)(conn)

    limits = http.FetchLimits(request_deadline_s=1.0)
    with socket_server(answer) as url, http.make_client(limits=limits) as client:
        started = time.monotonic()
        with pytest.raises(FetchError, match="within the request deadline of 1 s"):
            http.get(client, url)
        assert time.monotonic() - started < 3.0


def test_provider_deadline_stops_retries_and_later_requests(monkeypatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr(http, "pause", waits.append)
    limits = http.FetchLimits(provider_deadline_s=0.5)
    transport = httpx.MockTransport(lambda r: httpx.Response(500))
    with http.make_client(transport, limits=limits) as client:
        with pytest.raises(FetchError) as failure:
            http.get(client, "https://a.invalid/")
        # the first backoff (1 s or more) would end past the 0.5 s the provider has
        assert waits == []
        assert str(failure.value) == (
            "GET https://a.invalid/: HTTP 500 after 1 attempt; no time left for another before"
            " the provider deadline of 0.5 s"
        )
        time.sleep(0.6)
        with pytest.raises(FetchError, match=r"provider deadline of 0\.5 s had passed"):
            http.get(client, "https://a.invalid/other")


class Chunks(httpx.SyncByteStream):
    """A streamed body: ``count`` times ``chunk``; counts the chunks the client pulled."""

    def __init__(self, chunk: bytes, count: int) -> None:
        self.chunk, self.count, self.pulled = chunk, count, 0

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.count):
            self.pulled += 1
            yield self.chunk


def test_oversized_body_is_refused_while_streaming() -> None:
    body = Chunks(b"x" * (1 << 20), 1000)  # 1000 MiB, never sent whole
    transport = httpx.MockTransport(lambda r: httpx.Response(200, stream=body))
    limits = http.FetchLimits(max_response_bytes=4 << 20)
    with (
        http.make_client(transport, limits=limits) as client,
        pytest.raises(FetchError) as failure,
    ):
        http.get(client, "https://a.invalid/big")
    assert body.pulled == 5  # 4 MiB read, the fifth passed the limit
    assert str(failure.value) == (
        "GET https://a.invalid/big: body larger than 4 MB (decoded), refused while reading"
        " (after 1 attempt)"
    )


def test_gzip_bomb_is_refused_without_inflating_it() -> None:
    bomb = gzip_bomb(256)  # 256 MiB of zeros in ~260 KB
    chunks = [bomb[i : i + 65536] for i in range(0, len(bomb), 65536)]
    pulled: list[int] = []

    class Bomb(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for chunk in chunks:
                pulled.append(len(chunk))
                yield chunk

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": "gzip"}, stream=Bomb())

    limits = http.FetchLimits(max_response_bytes=8 << 20)
    tracemalloc.start()
    try:
        with (
            http.make_client(httpx.MockTransport(answer), limits=limits) as client,
            pytest.raises(FetchError, match=r"body larger than 8 MB \(decoded\)"),
        ):
            http.get(client, "https://a.invalid/bomb")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # stopped after ~8 MiB of output, inside the first of its 4 compressed 64 KB chunks, with
    # memory near the limit, not the 256 MiB the bomb inflates to (httpx alone decodes each
    # 64 KB chunk whole, to 64 MiB)
    assert len(chunks) == 4 and pulled == [65536]
    assert peak < 24 << 20


def test_announced_length_over_the_limit_is_refused_unread() -> None:
    body = Chunks(b"x" * 1024, 10)
    answer = httpx.Response(200, headers={"content-length": str(100 << 20)}, stream=body)
    limits = http.FetchLimits(max_response_bytes=1 << 20)
    with (
        http.make_client(httpx.MockTransport(lambda r: answer), limits=limits) as client,
        pytest.raises(FetchError, match="body of 104857600 bytes announced, more than 1 MB"),
    ):
        http.get(client, "https://a.invalid/")
    assert body.pulled == 0


def test_a_content_coding_not_asked_for_is_refused() -> None:
    answer = httpx.Response(200, headers={"content-encoding": "br"}, stream=Chunks(b"x", 1))
    with (
        http.make_client(httpx.MockTransport(lambda r: answer)) as client,
        pytest.raises(FetchError, match=r"content coding 'br' not asked for \(gzip, deflate\)"),
    ):
        http.get(client, "https://a.invalid/")


def test_bodies_within_the_limit_decode_as_before() -> None:
    text = b"price 3.64 " * 5000
    packer = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    gz = packer.compress(text) + packer.flush()
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    answers = {
        "/gzip": ("gzip", gz),
        "/zlib": ("deflate", zlib.compress(text)),
        "/raw-deflate": ("deflate", raw_deflate.compress(text) + raw_deflate.flush()),
        "/plain": ("identity", text),
    }

    def answer(request: httpx.Request) -> httpx.Response:
        coding, data = answers[request.url.path]
        stream = _Pieces(data, 333)  # arbitrary chunk boundaries, as a network gives them
        return httpx.Response(200, headers={"content-encoding": coding}, stream=stream)

    with http.make_client(httpx.MockTransport(answer)) as client:
        for path in answers:
            assert http.get(client, f"https://a.invalid{path}").body == text, path


class _Pieces(httpx.SyncByteStream):
    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size

    def __iter__(self) -> Iterator[bytes]:
        for i in range(0, len(self.data), self.size):
            yield self.data[i : i + self.size]


def test_in_memory_body_over_the_limit_is_refused() -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(200, content=b"x" * 2048))
    limits = http.FetchLimits(max_response_bytes=1024)
    with (
        http.make_client(transport, limits=limits) as client,
        pytest.raises(FetchError, match="body larger than 1024 bytes"),
    ):
        http.get(client, "https://a.invalid/")


def test_illegal_header_value_never_quotes_the_credential() -> None:
    with socket_server(lambda conn: conn.sendall(OK_RESPONSE)) as url, http.make_client() as c:
        with pytest.raises(FetchError) as failure:
            http.get(c, url, headers={"Authorization": "Bearer SECRET-vast-7f3a9c2e51\r"})
        assert http.get(c, url).body == b"ok"
    # h11 says "Illegal header value b'Bearer SECRET-...\\r'": never stored or shown, not retried
    assert str(failure.value) == (
        f"GET {url}: Illegal header value (not shown: it may be a credential) (after 1 attempt)"
    )


def test_scrub_error_text_removes_every_form_of_a_secret() -> None:
    secret = "s3cr+t/key=\r"
    text = (
        f"echo {secret!r} {secret.encode()!r} {http.quote(secret, safe='')}"
        f" {http.quote_plus(secret)} {http.jsonlib.dumps(secret)} Bearer {secret.strip()}\nline 2"
    )
    scrubbed = http.scrub_error_text(text, {secret})
    assert "\n" not in scrubbed and "line 2" not in scrubbed
    assert not any(form in scrubbed for form in http.credential_forms(secret))
    assert scrubbed.count(http.REDACTED) >= 5


def test_a_live_server_cannot_date_its_own_observation() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        headers = {http.CAPTURED_AT_HEADER: "2099-01-01T00:00:00+00:00"}
        if request.url.path == "/garbage":
            headers[http.CAPTURED_AT_HEADER] = "next tuesday"
        return httpx.Response(200, headers=headers, text="ok")

    with http.make_client(httpx.MockTransport(answer)) as client:
        for path in ("/2099", "/garbage"):
            raw = http.get(client, f"https://a.invalid{path}")
            assert abs(raw.fetched_at - datetime.now(UTC)) < timedelta(minutes=1), path


def test_a_malformed_capture_time_is_a_fetch_error() -> None:
    response = httpx.Response(200, headers={http.CAPTURED_AT_HEADER: "2025-13-45"})
    with pytest.raises(FetchError, match="is not an ISO 8601 time with a UTC offset"):
        http.fetched_at(response)
    naive = httpx.Response(200, headers={http.CAPTURED_AT_HEADER: "2025-06-01T10:00:00"})
    with pytest.raises(FetchError, match="UTC offset"):
        http.fetched_at(naive)
