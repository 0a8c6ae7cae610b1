"""HTTP plumbing shared by every scraper: client factory, polite requests with retries.

Retries use tenacity (bounded attempts, exponential backoff with jitter, Retry-After honoured
for 429/503). Per-host politeness (one request at a time per host, a minimum interval between
requests) is enforced by ``HostThrottle`` installed as a request event hook.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import tenacity

from scrapers.base import FetchError, RawResponse

USER_AGENT = "gpuprices/0.1 (+https://github.com/gpuprices/gpuprices; open-source GPU price tracker)"
TIMEOUT = httpx.Timeout(20.0, connect=10.0)
MAX_ATTEMPTS = 4
BACKOFF_INITIAL_S = 1.0
BACKOFF_MAX_S = 30.0
RETRY_AFTER_CAP_S = 120.0
MIN_INTERVAL_PER_HOST_S = 1.0
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
CAPTURED_AT_HEADER = "x-gpuprices-captured-at"
# Request extension marking an exchange whose body carries credentials (an OAuth token
# response): the raw archive keeps its URL and status but never its body.
SENSITIVE_EXTENSION = "gpuprices.sensitive"
SENSITIVE_QUERY_PARAMS = frozenset(
    {"key", "api_key", "apikey", "token", "access_token", "client_secret", "password", "sig"}
)
REDACTED = "REDACTED"
SENSITIVE_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "cookie", "proxy-authorization"})


class RetryableStatus(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


class HostThrottle:
    """Minimum interval between request starts to the same host (thread-safe)."""

    def __init__(self, min_interval_s: float = MIN_INTERVAL_PER_HOST_S) -> None:
        self.min_interval_s = min_interval_s
        self._last: dict[str, float] = {}
        self._locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)

    def __call__(self, request: httpx.Request) -> None:
        host = request.url.host
        with self._locks[host]:
            now = time.monotonic()
            wait = self._last.get(host, -1e9) + self.min_interval_s - now
            if wait > 0:
                time.sleep(wait)
            self._last[host] = time.monotonic()


def make_client(
    transport: httpx.BaseTransport | None = None,
    *,
    throttle: HostThrottle | None = None,
    on_response: Callable[[httpx.Response], None] | None = None,
    timeout: httpx.Timeout = TIMEOUT,
) -> httpx.Client:
    """An httpx client with our User-Agent, a timeout on every request and politeness hooks."""
    hooks: dict[str, list[Callable[..., Any]]] = {"request": [], "response": []}
    if throttle is not None:
        hooks["request"].append(throttle)
    if on_response is not None:
        hooks["response"].append(on_response)
    return httpx.Client(
        transport=transport,
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
        follow_redirects=True,
        event_hooks=hooks,
    )


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
        self.fallback = tenacity.wait_exponential_jitter(initial=BACKOFF_INITIAL_S, max=BACKOFF_MAX_S)

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
    sleep: Callable[[float], None] = time.sleep,
    sensitive: bool = False,
) -> RawResponse:
    """Send one request with bounded retries; return the response or raise ``FetchError``.

    Retries transport errors (timeouts, refused connections) and 408/425/429/5xx. Any other
    non-2xx status fails at once. The message names the URL (credentials redacted) and the
    last cause, one line. ``sensitive=True`` marks a response whose body holds credentials: the
    archive stores its status but not its body.
    """
    extensions = {SENSITIVE_EXTENSION: True} if sensitive else None
    shown = redact_url(url)

    @tenacity.retry(
        stop=tenacity.stop_after_attempt(max_attempts),
        wait=_WaitRetryAfter(),
        retry=tenacity.retry_if_exception(_is_retryable),
        sleep=sleep,
        reraise=True,
    )
    def _send() -> httpx.Response:
        response = client.request(method, url, params=params, json=json, headers=headers,
                                  extensions=extensions)
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableStatus(response)
        return response

    try:
        response = _send()
    except RetryableStatus as exc:
        raise FetchError(
            f"{method} {shown}: HTTP {exc.response.status_code} after {max_attempts} attempts"
        ) from None
    except httpx.TimeoutException:
        raise FetchError(f"{method} {shown}: timed out after {max_attempts} attempts") from None
    except httpx.TransportError as exc:
        cause = str(exc) or type(exc).__name__
        raise FetchError(f"{method} {shown}: {cause}") from None
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


def is_sensitive(request: httpx.Request) -> bool:
    return bool(request.extensions.get(SENSITIVE_EXTENSION))


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers safe to store or log: credentials replaced by a marker."""
    return {k: ("<redacted>" if k.lower() in SENSITIVE_HEADERS else v) for k, v in headers.items()}
