"""HTTP plumbing shared by every scraper: client factory, polite requests with retries.

Retries use tenacity (bounded attempts, exponential backoff with jitter, Retry-After honoured
for 429/503). Per-host politeness is ``HostThrottle``: at most ``MAX_CONCURRENT_PER_HOST``
exchanges in flight per host (held by the client around each whole exchange, body included) and
a minimum interval between request starts (a request event hook). Every wait goes through
``pause`` so tests can record waits instead of sleeping. Credentials never reach a log line:
URLs are redacted in our messages and in httpx's own request log.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import tenacity

from scrapers.base import FetchError, RawResponse

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
CAPTURED_AT_HEADER = "x-gpuprices-captured-at"
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


class _PoliteClient(httpx.Client):
    """An httpx client that holds a per-host ``HostThrottle`` slot around every exchange.

    Wrapping ``send`` (not the transport) keeps httpx's own transport selection (proxies from
    the environment) and covers reading the body, which ``send`` does for non-streamed requests.
    """

    def __init__(self, *args: Any, throttle: HostThrottle | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._throttle = throttle

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        if self._throttle is None:
            return super().send(request, **kwargs)
        with self._throttle.slot(request.url.host):
            return super().send(request, **kwargs)


def make_client(
    transport: httpx.BaseTransport | None = None,
    *,
    throttle: HostThrottle | None = None,
    on_response: Callable[[httpx.Response], None] | None = None,
    timeout: httpx.Timeout = TIMEOUT,
) -> httpx.Client:
    """An httpx client with our User-Agent, a timeout on every request and politeness hooks."""
    _redact_httpx_log()
    hooks: dict[str, list[Callable[..., Any]]] = {"request": [], "response": []}
    if throttle is not None:
        hooks["request"].append(throttle)
    if on_response is not None:
        hooks["response"].append(on_response)
    return _PoliteClient(
        transport=transport,
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
        follow_redirects=True,
        event_hooks=hooks,
        throttle=throttle,
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
    if not isinstance(exc, httpx.TransportError):
        return False
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

    Retries transport errors (timeouts, refused connections) and 408/425/429/5xx. Any other
    non-2xx status fails at once. The message names the URL (credentials redacted) and the
    last cause, one line. ``sensitive=True`` marks a response whose body holds credentials: the
    archive stores its status but not its body. Waits (seconds) go to ``sleep``, default
    ``pause``.
    """
    extensions = {SENSITIVE_EXTENSION: True} if sensitive else None
    shown = redact_url(url)

    @tenacity.retry(
        stop=tenacity.stop_after_attempt(max_attempts),
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
        return f"{made} attempt{'s' if made != 1 else ''}"

    try:
        response = _send()
    except RetryableStatus as exc:
        raise FetchError(
            f"{method} {shown}: HTTP {exc.response.status_code} after {attempts()}"
        ) from None
    except httpx.TimeoutException:
        raise FetchError(f"{method} {shown}: timed out after {attempts()}") from None
    except httpx.TransportError as exc:
        # one line, and never a credential an exception text might quote
        lines = str(exc).strip().splitlines()
        cause = redact_text(lines[0]) if lines else type(exc).__name__
        raise FetchError(f"{method} {shown}: {cause} (after {attempts()})") from None
    if not response.is_success:
        raise FetchError(f"{method} {shown}: HTTP {response.status_code}")
    raw = RawResponse.from_httpx(response, fetched_at(response))
    # parse() and source_url see the URL without credentials
    return dataclasses.replace(raw, url=redact_url(raw.url))


def fetched_at(response: httpx.Response) -> datetime:
    """Now, or the capture time a replayed response carries (see ``scrapers.replay``)."""
    captured = response.headers.get(CAPTURED_AT_HEADER)
    if captured:
        return datetime.fromisoformat(captured)
    return datetime.now(UTC)


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
