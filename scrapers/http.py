"""HTTP plumbing shared by every scraper: client factory, polite requests with retries.

Retries use tenacity (bounded attempts, exponential backoff with jitter, Retry-After honoured
for 429/503). Per-host politeness is ``HostThrottle``: at most ``MAX_CONCURRENT_PER_HOST``
exchanges in flight per host (held by the client around each whole exchange, body included) and
a minimum interval between request starts (a request event hook). Every wait goes through
``pause`` so tests can record waits instead of sleeping. Credentials never reach a log line:
URLs are redacted in our messages and in httpx's own request log.

Limits against a hostile or broken server (``FetchLimits``; the pipeline sets them from the
environment): every body is read as a stream and refused once its *decoded* size passes
``max_response_bytes`` (a gzip bomb is stopped after at most one 64 KiB decoding step beyond the
limit, never inflated whole); every exchange (redirects included) has a wall-clock deadline,
``request_deadline_s``, on top of httpx's per-read timeout (a server dripping one byte every few
seconds never trips a read timeout); and one client's requests together (one provider's scrape,
retries and their waits included) stop at ``provider_deadline_s``. A refused response is never
retried and never archived; ``request`` raises a one-line ``FetchError`` naming the limit.

Redirects are followed on the requested host only, and never from https to http
(``RedirectRefused``): a redirect must not carry a scrape, or its credentials, to another server.
The response keeps the URL that was requested (``RawResponse.url``, hence ``source_url``).
"""

from __future__ import annotations

import base64
import dataclasses
import json as jsonlib
import logging
import re
import socket
import threading
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext, suppress
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import tenacity

from scrapers.base import FetchError, RawResponse
from scrapers.replay import CAPTURED_AT_HEADER, ReplayTransport  # only it may date a response

USER_AGENT = (
    "gpuprices/0.1 (+https://github.com/gpuprices/gpuprices; open-source GPU price tracker)"
)
TIMEOUT = httpx.Timeout(20.0, connect=10.0)
MAX_ATTEMPTS = 4
BACKOFF_INITIAL_S = 1.0
BACKOFF_MAX_S = 30.0
RETRY_AFTER_CAP_S = 120.0
MIN_INTERVAL_PER_HOST_S = 1.0
MAX_CONCURRENT_PER_HOST = 1  # one exchange at a time per host, per process
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
# Fetch limits (defaults of ``FetchLimits``). The largest real capture under ../shared/snapshots
# is 1.8 MB (OVH's catalog); 64 MB of decoded body leaves 35x headroom for the full live pages.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
REQUEST_DEADLINE_S = 60.0  # one exchange, redirects included, from the first byte sent
PROVIDER_DEADLINE_S = 300.0  # every request of one client (one provider's scrape) together
# One client's (one provider's scrape's) responses together, across pagination (issue 27: Azure
# followed 60 pages of 64 MB, 4.0 GB kept): decoded bytes and requests. The largest real scrape
# is a few MB over a few dozen requests (AWS: one per region).
MAX_SCRAPE_BYTES = 128 * 1024 * 1024
MAX_REQUESTS_PER_SCRAPE = 250
ACCEPT_ENCODING = "gzip, deflate"  # and nothing else is decoded: another coding is refused
_DECODE_STEP = 64 * 1024  # at most this many decoded bytes are produced per decompression step
# Request extension marking an exchange whose body carries credentials (an OAuth token
# response): the raw archive keeps its URL and status but never its body.
SENSITIVE_EXTENSION = "gpuprices.sensitive"
SENSITIVE_QUERY_PARAMS = frozenset(
    {"key", "api_key", "apikey", "token", "access_token", "client_secret", "password", "sig"}
)
REDACTED = "REDACTED"
SENSITIVE_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-goog-api-key",
        "cookie",
        "api-key",
        "api_key",
        "x-api-key",
        "x-auth-token",
        "x-api-token",
    }
)


class RetryableStatus(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


class FetchRefused(Exception):
    """A response refused by a fetch limit (size, content coding, deadline): never retried."""


class ResponseTooLarge(FetchRefused):
    pass


class RedirectRefused(FetchRefused):
    """A redirect to another host, or from https to http: the scrape is not carried there."""


class DeadlineExceeded(FetchRefused):
    pass


class ScrapeBudgetExceeded(FetchRefused):
    """One scrape's responses together passed ``FetchLimits.max_scrape_bytes`` or its requests
    ``max_requests``: this request and every later one of the client are refused, and the whole
    scrape fails (``budget_exceeded``), not only the page that passed it."""


@dataclasses.dataclass(frozen=True)
class FetchLimits:
    """Bounds on what one client may spend: decoded bytes per response, seconds per exchange
    (redirects included), seconds for all of the client's requests together (its budget starts
    when the client is made). See the module docstring."""

    max_response_bytes: int = MAX_RESPONSE_BYTES
    request_deadline_s: float = REQUEST_DEADLINE_S
    provider_deadline_s: float = PROVIDER_DEADLINE_S
    max_scrape_bytes: int = MAX_SCRAPE_BYTES
    max_requests: int = MAX_REQUESTS_PER_SCRAPE

    def __post_init__(self) -> None:
        if self.max_response_bytes < 1 or self.max_scrape_bytes < 1 or self.max_requests < 1:
            raise ValueError("byte and request limits must be at least 1")
        if not (self.request_deadline_s > 0 and self.provider_deadline_s > 0):
            raise ValueError("deadlines must be positive")


def _megabytes(n: int) -> str:
    mib = 1024 * 1024
    return f"{n // mib} MB" if n % mib == 0 else f"{n} bytes"


def pause(seconds: float) -> None:
    """The one place the HTTP layer waits (retry backoff, Retry-After, politeness interval).

    Looked up at call time, so a test can replace ``scrapers.http.pause`` with a recorder.
    """
    time.sleep(seconds)


class HostThrottle:
    """Per-host politeness (thread-safe, per process): at most ``max_concurrent`` exchanges in
    flight per host (see ``slot``) and ``min_interval_s`` seconds between request starts (the
    instance is a request event hook). Defaults are the module settings at construction time."""

    def __init__(
        self, min_interval_s: float | None = None, max_concurrent: int | None = None
    ) -> None:
        self.min_interval_s = MIN_INTERVAL_PER_HOST_S if min_interval_s is None else min_interval_s
        self.max_concurrent = MAX_CONCURRENT_PER_HOST if max_concurrent is None else max_concurrent
        if self.max_concurrent < 1:
            raise ValueError("max_concurrent must be at least 1")
        self._last: dict[str, float] = {}
        self._locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._slots_lock = threading.Lock()

    @contextmanager
    def slot(self, host: str) -> Iterator[None]:
        """Hold one of the host's ``max_concurrent`` slots for the duration of the block."""
        with self._slots_lock:
            semaphore = self._slots.get(host)
            if semaphore is None:
                semaphore = self._slots[host] = threading.BoundedSemaphore(self.max_concurrent)
        with semaphore:
            yield

    def __call__(self, request: httpx.Request) -> None:
        host = request.url.host
        with self._locks[host]:
            now = time.monotonic()
            wait = self._last.get(host, -1e9) + self.min_interval_s - now
            if wait > 0:
                pause(wait)
            self._last[host] = time.monotonic()


class _Watchdog:
    """The wall-clock deadline of one exchange. httpx's timeouts are per socket operation, so a
    server that sends a byte every few seconds never trips them: at the deadline this shuts the
    exchange's sockets down (a blocked read returns at once), and the body reader checks it
    between chunks. Sockets are learnt from httpcore's ``trace`` request extension (every
    exchange opens its own connection: the client keeps none alive, see ``make_client``)."""

    def __init__(self, deadline: float, what: str, inner: Callable[..., Any] | None) -> None:
        self.deadline = deadline
        self.what = what  # "the request deadline of 60 s", for messages
        self.fired = False
        self._inner = inner
        self._lock = threading.Lock()
        self._done = False
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        with self._lock:
            self._done = True
        self._timer.cancel()

    def error(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"no complete answer within {self.what}")

    def check(self) -> None:
        if time.monotonic() >= self.deadline:
            self.fired = True
            raise self.error()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if self._inner is not None:
            self._inner(event, info)
        if not event.endswith(("connect_tcp.complete", "start_tls.complete")):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            late = self.fired and not self._done
        if late:
            _shutdown(sock)

    def _fire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    # OSError: already closed, the exchange ended on its own
    with suppress(OSError):
        # the plain socket's shutdown, also under TLS: SSLSocket.shutdown would drop the SSL
        # object under the reading thread; shutting the descriptor down makes its read return
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Decoder:
    """gzip/deflate decoding in bounded steps (zlib's ``max_length``): httpx decodes each network
    chunk whole, and 64 KiB of gzip can inflate to 64 MB, so the limit is applied here."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
        self._zlib = None if coding == "identity" else zlib.decompressobj(wbits)
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._zlib is None:
            for i in range(0, len(data), _DECODE_STEP):
                yield data[i : i + _DECODE_STEP]
            return
        while data and not self._zlib.eof:
            try:
                out = self._zlib.decompress(data, _DECODE_STEP)
            except zlib.error as exc:
                if self.coding == "deflate" and not self._started:
                    # "deflate" is sent both zlib-wrapped (RFC 9110) and raw; httpx accepts both
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._started = True
                    continue
                raise FetchRefused(f"body is not valid {self.coding}: {exc}") from None
            self._started = True
            data = self._zlib.unconsumed_tail
            if out:
                yield out

    def flush(self) -> bytes:
        return self._zlib.flush() if self._zlib is not None else b""


class _BoundedBody(httpx.SyncByteStream):
    """A response body read under the limits: decoded in bounded steps, refused past
    ``limit`` decoded bytes or after the exchange's deadline."""

    def __init__(
        self,
        inner: httpx.SyncByteStream,
        coding: str,
        limit: int,
        watchdog: _Watchdog | None,
        spend: Callable[[int], None] | None = None,
    ) -> None:
        self._inner = inner
        self._decoder = _Decoder(coding)
        self._limit = limit
        self._watchdog = watchdog
        self._spend = spend  # the scrape's running byte count (``_PoliteClient._spend``)

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for raw in self._inner:
            for out in self._decoder.feed(raw):  # a generator: one bounded step at a time
                if self._watchdog is not None:
                    self._watchdog.check()
                total += len(out)
                if self._spend is not None:
                    self._spend(len(out))
                if total > self._limit:
                    raise ResponseTooLarge(
                        f"body larger than {_megabytes(self._limit)} (decoded), refused while"
                        " reading"
                    )
                yield out
        rest = self._decoder.flush()
        if total + len(rest) > self._limit:
            raise ResponseTooLarge(f"body larger than {_megabytes(self._limit)} (decoded)")
        if rest:
            yield rest

    def close(self) -> None:
        self._inner.close()


_WATCHDOG_EXTENSION = "gpuprices.watchdog"
# the URL a top-level request was sent to; httpx copies extensions onto each redirect it builds
_REQUESTED_URL_EXTENSION = "gpuprices.requested_url"


def _check_redirect(request: httpx.Request) -> None:
    """Request hook: refuse a redirect hop that leaves the requested host or drops https.

    The port may change only with an upgrade from http to https on the same host.
    """
    requested = request.extensions.get(_REQUESTED_URL_EXTENSION)
    if not isinstance(requested, httpx.URL) or request.url == requested:
        return
    target = request.url
    if requested.scheme == "https" and target.scheme != "https":
        raise RedirectRefused(
            f"redirect from https to {target.scheme} refused ({redact_url(target)})"
        )
    upgraded = requested.scheme == "http" and target.scheme == "https"
    if target.host != requested.host or (target.port != requested.port and not upgraded):
        raise RedirectRefused(
            f"redirect to another host refused ({redact_url(target)}; only"
            f" {requested.host} is followed)"
        )


class _PoliteClient(httpx.Client):
    """An httpx client that holds a per-host ``HostThrottle`` slot around every exchange, and
    reads every body under ``FetchLimits``.

    Wrapping ``send`` (not the transport) keeps httpx's own transport selection (proxies from
    the environment) and covers reading the body, which ``send`` does for non-streamed requests.
    The limits are applied by the first response hook (so the recorder and redirects read bounded
    bodies too) and by a watchdog per exchange.
    """

    def __init__(
        self,
        *args: Any,
        throttle: HostThrottle | None = None,
        fetch_limits: FetchLimits | None = None,
        trust_captured_at: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._throttle = throttle
        self.fetch_limits = fetch_limits or FetchLimits()
        self._trust_captured_at = trust_captured_at
        self._budget_ends = time.monotonic() + self.fetch_limits.provider_deadline_s
        self._bytes_read = 0
        self._requests_sent = 0
        # why the scrape's budget refused a request; every later request is refused with it
        self.budget_error: str | None = None
        hooks = self.event_hooks
        self.event_hooks = {
            "request": [_check_redirect, *hooks["request"]],
            "response": [self._bound_response, *hooks["response"]],
        }

    def remaining_budget_s(self) -> float:
        """Seconds left of the provider deadline (negative once it passed)."""
        return self._budget_ends - time.monotonic()

    def _refuse(self, why: str) -> ScrapeBudgetExceeded:
        self.budget_error = self.budget_error or why
        return ScrapeBudgetExceeded(self.budget_error)

    def _spend(self, n: int) -> None:
        """Count ``n`` decoded bytes against the scrape's budget (raises past it)."""
        self._bytes_read += n
        if self._bytes_read > self.fetch_limits.max_scrape_bytes:
            limit = _megabytes(self.fetch_limits.max_scrape_bytes)
            raise self._refuse(
                f"the scrape's responses together passed {limit} (decoded), refused while reading"
            )

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        if self.budget_error is not None:
            raise ScrapeBudgetExceeded(self.budget_error)
        self._requests_sent += 1
        if self._requests_sent > self.fetch_limits.max_requests:
            raise self._refuse(
                f"more than {self.fetch_limits.max_requests} requests in one scrape, refused"
            )
        slot = self._throttle.slot(request.url.host) if self._throttle else nullcontext()
        with slot:
            limits = self.fetch_limits
            left = self.remaining_budget_s()
            if left <= 0:
                raise DeadlineExceeded(
                    f"the provider deadline of {limits.provider_deadline_s:g} s had passed"
                    " before this request"
                )
            if left < limits.request_deadline_s:
                seconds, what = left, f"the provider deadline of {limits.provider_deadline_s:g} s"
            else:
                seconds, what = (
                    limits.request_deadline_s,
                    (f"the request deadline of {limits.request_deadline_s:g} s"),
                )
            watchdog = _Watchdog(time.monotonic() + seconds, what, request.extensions.get("trace"))
            request.extensions = {
                **request.extensions,
                "trace": watchdog.trace,
                _WATCHDOG_EXTENSION: watchdog,
                _REQUESTED_URL_EXTENSION: request.url,
            }
            try:
                with watchdog:
                    return super().send(request, **kwargs)
            except FetchRefused:
                raise
            except Exception:
                if watchdog.fired:  # the read that failed was cut off by the deadline
                    raise watchdog.error() from None
                raise

    def _bound_response(self, response: httpx.Response) -> None:
        if not self._trust_captured_at and CAPTURED_AT_HEADER in response.headers:
            del response.headers[CAPTURED_AT_HEADER]
        limit = self.fetch_limits.max_response_bytes
        try:
            content = response.content  # an in-memory response (a mock, the replay transport)
        except httpx.ResponseNotRead:
            content = None
        if content is not None:
            if len(content) > limit:
                raise ResponseTooLarge(f"body larger than {_megabytes(limit)}")
            self._spend(len(content))
            return
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise ResponseTooLarge(
                f"body of {int(declared)} bytes announced, more than {_megabytes(limit)}"
            )
        coding = response.headers.get("content-encoding", "identity").strip().lower() or (
            "identity"
        )
        coding = {"x-gzip": "gzip"}.get(coding, coding)
        if coding not in ("identity", "gzip", "deflate"):
            raise FetchRefused(f"content coding {coding!r} not asked for ({ACCEPT_ENCODING})")
        watchdog = response.request.extensions.get(_WATCHDOG_EXTENSION)
        if not isinstance(response.stream, httpx.SyncByteStream):
            return  # an async stream: never one of ours (this client is synchronous)
        response.stream = _BoundedBody(response.stream, coding, limit, watchdog, self._spend)
        if "content-encoding" in response.headers:
            del response.headers["content-encoding"]  # decoded by _BoundedBody


def budget_exceeded(client: httpx.Client) -> FetchError | None:
    """The error that fails the whole scrape when ``client``'s scrape budget refused a request
    (a scraper may have taken that request's failure for a part that failed alone), else None."""
    why = getattr(client, "budget_error", None)
    return FetchError(f"scrape budget: {why}") if why else None


def _is_replay(transport: httpx.BaseTransport | None) -> bool:
    return isinstance(transport, ReplayTransport)


def make_client(
    transport: httpx.BaseTransport | None = None,
    *,
    throttle: HostThrottle | None = None,
    on_response: Callable[[httpx.Response], None] | None = None,
    timeout: httpx.Timeout = TIMEOUT,
    limits: FetchLimits | None = None,
) -> httpx.Client:
    """An httpx client with our User-Agent, a timeout on every request, politeness hooks and
    ``limits`` (default ``FetchLimits()``; the provider deadline runs from now).

    Only the replay transport's ``x-gpuprices-captured-at`` is believed (``fetched_at``): any
    other server's copy of the header is dropped before anything reads it. No connection is
    kept alive, so each exchange opens its own and its deadline can cut exactly that one.
    """
    _redact_httpx_log()
    hooks: dict[str, list[Callable[..., Any]]] = {"request": [], "response": []}
    if throttle is not None:
        hooks["request"].append(throttle)
    if on_response is not None:
        hooks["response"].append(on_response)
    return _PoliteClient(
        transport=transport,
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
        follow_redirects=True,
        event_hooks=hooks,
        limits=httpx.Limits(max_keepalive_connections=0),
        throttle=throttle,
        fetch_limits=limits,
        trust_captured_at=_is_replay(transport),
    )


class _RedactingFilter(logging.Filter):
    """httpx logs every request URL at INFO ("HTTP Request: GET https://...?key=..."): the
    arguments of its records get the same redaction as our own messages."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_url(a) if isinstance(a, httpx.URL | str) and _looks_like_url(str(a)) else a
                for a in record.args
            )
        return True


def _looks_like_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


_HTTPX_FILTER = _RedactingFilter()


def _redact_httpx_log() -> None:
    logger = logging.getLogger("httpx")
    if _HTTPX_FILTER not in logger.filters:
        logger.addFilter(_HTTPX_FILTER)


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = exc
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def _is_retryable(exc: BaseException) -> bool:
    """Transport errors and retryable statuses, except a host name that does not exist:
    EAI_NONAME is permanent (a typo or no DNS at all), so retrying it only delays the error."""
    if isinstance(exc, RetryableStatus):
        return True
    if not isinstance(exc, httpx.TransportError) or isinstance(exc, httpx.LocalProtocolError):
        return False  # a request we could not even send (an illegal header) fails the same again
    return not any(
        isinstance(e, socket.gaierror) and e.errno == socket.EAI_NONAME for e in _chain(exc)
    )


class _WaitRetryAfter(tenacity.wait.wait_base):
    """Wait what the server asked for (capped), else exponential backoff with jitter."""

    def __init__(self) -> None:
        self.fallback = tenacity.wait_exponential_jitter(
            initial=BACKOFF_INITIAL_S, max=BACKOFF_MAX_S
        )

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        outcome = retry_state.outcome
        if outcome is not None and outcome.failed:
            exc = outcome.exception()
            if isinstance(exc, RetryableStatus):
                asked = _retry_after_seconds(exc.response)
                if asked is not None:
                    return min(asked, RETRY_AFTER_CAP_S)
        return self.fallback(retry_state)


class _BudgetStop(tenacity.stop.stop_base):
    """Stop retrying when the next wait would run past the client's provider deadline."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.hit = False

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        if not isinstance(self.client, _PoliteClient):
            return False
        self.hit = retry_state.upcoming_sleep >= self.client.remaining_budget_s()
        return self.hit


def request(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    json: Any = None,
    headers: Mapping[str, str] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    sleep: Callable[[float], None] | None = None,
    sensitive: bool = False,
) -> RawResponse:
    """Send one request with bounded retries; return the response or raise ``FetchError``.

    Retries transport errors (timeouts, refused connections) and 408/425/429/5xx, while the
    client's provider deadline leaves time for the wait. Any other non-2xx status fails at once,
    and so does a response refused by the client's ``FetchLimits`` (too large, an unasked content
    coding, past its deadline) and a request that cannot be sent (an illegal header value). The
    message names the URL (credentials redacted) and the last cause, one line, never a header
    value. ``sensitive=True`` marks a response whose body holds credentials: the archive stores
    its status but not its body. Waits (seconds) go to ``sleep``, default ``pause``.
    """
    extensions = {SENSITIVE_EXTENSION: True} if sensitive else None
    shown = redact_url(url)
    budget = _BudgetStop(client)

    @tenacity.retry(
        stop=tenacity.stop_after_attempt(max_attempts) | budget,
        wait=_WaitRetryAfter(),
        retry=tenacity.retry_if_exception(_is_retryable),
        sleep=sleep if sleep is not None else pause,
        reraise=True,
    )
    def _send() -> httpx.Response:
        response = client.request(
            method, url, params=params, json=json, headers=headers, extensions=extensions
        )
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableStatus(response)
        return response

    def attempts() -> str:
        made = _send.statistics.get("attempt_number", 1)  # type: ignore[attr-defined]
        text = f"{made} attempt{'s' if made != 1 else ''}"
        if budget.hit and made < max_attempts and isinstance(client, _PoliteClient):
            deadline = client.fetch_limits.provider_deadline_s
            text += f"; no time left for another before the provider deadline of {deadline:g} s"
        return text

    try:
        response = _send()
    except RetryableStatus as exc:
        raise FetchError(
            f"{method} {shown}: HTTP {exc.response.status_code} after {attempts()}"
        ) from None
    except FetchRefused as exc:
        raise FetchError(f"{method} {shown}: {exc} (after {attempts()})") from None
    except httpx.TimeoutException:
        raise FetchError(f"{method} {shown}: timed out after {attempts()}") from None
    except httpx.TooManyRedirects:
        raise FetchError(f"{method} {shown}: more than {client.max_redirects} redirects") from None
    except httpx.TransportError as exc:
        # one line, and never a credential an exception text might quote
        cause = scrub_error_text(str(exc), _sent_secrets(headers, params)) or type(exc).__name__
        raise FetchError(f"{method} {shown}: {cause} (after {attempts()})") from None
    if not response.is_success:
        raise FetchError(f"{method} {shown}: HTTP {response.status_code}")
    raw = RawResponse.from_httpx(response, fetched_at(response))
    # parse() and source_url see the URL that was requested (not a redirect's target), without
    # credentials
    requested = response.history[0].request.url if response.history else response.request.url
    return dataclasses.replace(raw, url=redact_url(requested))


def fetched_at(response: httpx.Response) -> datetime:
    """Now, or the capture time a replayed response carries (see ``scrapers.replay``; the client
    drops the header from any other server). A value that is not an ISO 8601 time with a UTC
    offset raises ``FetchError``."""
    captured = response.headers.get(CAPTURED_AT_HEADER)
    if not captured:
        return datetime.now(UTC)
    try:
        when = datetime.fromisoformat(captured)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise FetchError(
            f"{CAPTURED_AT_HEADER} {captured[:40]!r} is not an ISO 8601 time with a UTC offset"
        )
    return when


_ILLEGAL_HEADER = re.compile(r"(?i)(illegal header (?:name|value))\b.*")


def _sent_secrets(headers: Mapping[str, str] | None, params: Mapping[str, Any] | None) -> set[str]:
    found = {v for k, v in (headers or {}).items() if k.lower() in SENSITIVE_HEADERS}
    found |= {v.partition(" ")[2] for v in found}
    found |= {str(v) for k, v in (params or {}).items() if k.lower() in SENSITIVE_QUERY_PARAMS}
    return {f for f in found if f.strip()}


def credential_forms(secret: str) -> set[str]:
    """Every way ``secret`` may be printed back: as is, without surrounding whitespace, and
    escaped as Python (``b'...\\r'`` in h11's "Illegal header value"), JSON (also with ``\\/``)
    or a URL would, and base64-encoded (alone, or as Basic auth's ``user:password``). Matched
    case-insensitively (``scrub_error_text``, ``pipelines.credentials.Scrubber``): a server may
    print a key upper-cased."""
    bare = {secret, secret.strip()}
    forms = set(bare)
    for s in bare:
        forms.add(repr(s)[1:-1])
        forms.add(repr(s.encode())[2:-1])
        json_form = jsonlib.dumps(s)[1:-1]
        forms.add(json_form)
        forms.add(json_form.replace("/", "\\/"))  # JSON's optional escape of "/" (PHP, Java)
        forms.add(quote(s, safe=""))
        forms.add(quote_plus(s))
        # base64, as HTTP Basic auth sends it ("user:password") or a server re-encodes it
        for raw in (s, f"{s}:", f":{s}"):
            for encoded in (base64.b64encode(raw.encode()), base64.urlsafe_b64encode(raw.encode())):
                text = encoded.decode()
                forms |= {text, text.rstrip("=")}
    return {f for f in forms if f}


def scrub_error_text(text: str, secrets: set[str] | frozenset[str] = frozenset()) -> str:
    """An exception text fit to store and show: its first line, credential query parameters
    replaced, no header value an "Illegal header value b'...'" quotes, and none of ``secrets``
    (in any of their ``credential_forms``)."""
    lines = text.strip().splitlines()
    line = _ILLEGAL_HEADER.sub(r"\1 (not shown: it may be a credential)", lines[0] if lines else "")
    line = redact_text(line)
    forms = {f for s in secrets for f in credential_forms(s)}
    return secrets_pattern(forms).sub(REDACTED, line) if forms else line


def secrets_pattern(forms: Iterable[str]) -> re.Pattern[str]:
    """One case-insensitive pattern of ``forms`` (longest first)."""
    ordered = sorted(set(forms), key=len, reverse=True)
    return re.compile("|".join(re.escape(f) for f in ordered), re.IGNORECASE)


def get(client: httpx.Client, url: str, **kwargs: Any) -> RawResponse:
    return request(client, "GET", url, **kwargs)


def post(client: httpx.Client, url: str, **kwargs: Any) -> RawResponse:
    return request(client, "POST", url, **kwargs)


def redact_url(url: str | httpx.URL) -> str:
    """The URL with credential-bearing query parameters (``key``, ``api_key``...) replaced."""
    parsed = httpx.URL(str(url))
    if not parsed.query:
        return str(parsed)
    params = [
        (k, REDACTED if k.lower() in SENSITIVE_QUERY_PARAMS else v)
        for k, v in parsed.params.multi_items()
    ]
    return str(parsed.copy_with(params=params))


_SENSITIVE_IN_TEXT = re.compile(
    r"(?i)([?&;](?:" + "|".join(sorted(SENSITIVE_QUERY_PARAMS)) + r")=)[^&\s'\"]+"
)


def redact_text(text: str) -> str:
    """Free text (an exception message) with credential query parameters replaced."""
    return _SENSITIVE_IN_TEXT.sub(lambda m: m.group(1) + REDACTED, text)


def is_sensitive(request: httpx.Request) -> bool:
    return bool(request.extensions.get(SENSITIVE_EXTENSION))


def request_credentials(request: httpx.Request) -> set[str]:
    """The credential values ``request`` carried: sensitive header values (with and without
    their scheme word, e.g. the token of ``Bearer <token>``) and sensitive query parameter
    values. A server may echo them (an error page quoting the key): callers scrub these from
    anything they store."""
    found: set[str] = set()
    for name, value in request.headers.items():
        if name.lower() in SENSITIVE_HEADERS:
            found.add(value)
            found.add(value.partition(" ")[2].strip())
    for name, value in request.url.params.multi_items():
        if name.lower() in SENSITIVE_QUERY_PARAMS:
            found.add(value)
    return {f for f in found if f}


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers safe to store or log: credentials replaced by a marker."""
    return {k: ("<redacted>" if k.lower() in SENSITIVE_HEADERS else v) for k, v in headers.items()}
