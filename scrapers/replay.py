"""Replay recorded provider responses instead of fetching the live sites.

Layout: ``DIR/<provider slug>/<capture date>_<what>.<ext>``. Each capture file is one replayed
scrape: every request the scraper sends during it is answered with that file's bytes, stamped
with the capture time. Files that ``DIR/PROVENANCE.md`` marks as another tool's output
(PARSED, PROCESSED, AGGREGATED) are not responses and are never replayed. A file whose
completeness line says it holds a subset of the rows (EXCERPT, PARTIAL, FILTERED, SAMPLE) is a
partial capture: its scrape never closes an offer it does not list (``Capture.partial_reason``).

Per-exchange captures: a ``<capture date>_<what>.har`` file (HAR 1.2, the browsers' "save all as
HAR" format, http://www.softwareishard.com/blog/har-12-spec/) records each exchange of one scrape,
request (method, URL with query) -> response (status, headers, body). Its replay answers each
request with the response recorded for it, matched by method and URL with the query compared
order-insensitively; a request the file does not record fails as one line naming its URL
(``ReplayMismatch``). So a scraper may ask several zones or pages of one scrape and each request
gets its own answer. Every other capture file answers all requests with its bytes, as before.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from scrapers.base import ScraperError

_log = logging.getLogger(__name__)

# The capture time a replayed response carries; scrapers.http believes it only from this
# module's transport (a live server's copy is dropped).
CAPTURED_AT_HEADER = "x-gpuprices-captured-at"
# Replayed requests never leave the process; a placeholder stands in for a provider's token so
# that fetch code which requires one runs unchanged (real tokens are never handed to replay).
REPLAY_TOKEN = "replay-placeholder-token"
NOT_A_RESPONSE_MARKERS = ("PARSED", "PROCESSED", "AGGREGATED")
# Words of a PROVENANCE completeness line (any case) that say the file holds a subset of the
# provider's rows: a cut-out section, rows removed by the saver, a sample.
SUBSET_MARKERS = ("EXCERPT", "PARTIAL", "FILTERED", "SAMPLE")
_SUBSET = re.compile(r"\b(" + "|".join(SUBSET_MARKERS) + r")\b", re.IGNORECASE)
_COMPLETENESS = re.compile(r"^-\s*completeness:\s*(?P<text>.*)$", re.IGNORECASE)
_DATE_PREFIX = re.compile(
    r"^(?P<approx>c)?(?P<y>\d{4})-(?P<m>\d{2})(?:-(?P<d>\d{2}))?"
    r"(?:T(?P<H>\d{2})(?P<M>\d{2})?Z?)?(?=[_.])"
)
_CONTENT_TYPES = {
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".xml": "text/xml",
}
HAR_SUFFIX = ".har"


@dataclass(frozen=True, slots=True)
class Capture:
    provider: str
    path: Path
    captured_at: datetime
    approximate: bool
    precision: str = "minute"  # "month", "day" or "minute": how much of captured_at is known
    # why the capture holds only a subset of the provider's list ("PROVENANCE: EXCERPT"), or
    # None for a full one
    partial_reason: str | None = None

    @property
    def content_type(self) -> str:
        return _CONTENT_TYPES.get(self.path.suffix, "application/octet-stream")


def capture_time(filename: str) -> tuple[datetime, bool] | None:
    """The capture time encoded in a file name's leading part, and whether it is approximate.

    ``2025-06-15T1027Z_x.json`` -> 10:27 UTC; ``c2026-09_x.json`` (circa) -> 2026-09-01, approx.
    Returns None when the name carries no date; raises ``CaptureNameError`` (one line) for a
    date that does not exist (``2025-13-45_``, ``2025-02-30_``, hour 25).
    """
    match = _DATE_PREFIX.match(filename)
    if match is None:
        return None
    parts = match.groupdict()
    try:
        when = datetime(
            int(parts["y"]),
            int(parts["m"]),
            int(parts["d"] or 1),
            int(parts["H"] or 0),
            int(parts["M"] or 0),
            tzinfo=UTC,
        )
    except ValueError as exc:
        raise CaptureNameError(f"capture {filename}: its date does not exist ({exc})") from None
    return when, bool(parts["approx"]) or parts["d"] is None


class CaptureNameError(ScraperError):
    """A capture file named with a date that does not exist (issue 27: a traceback before)."""


def capture_precision(filename: str) -> str | None:
    """How precisely a file name dates its capture: ``"month"`` (``c2026-09_``, ``2026-09_``),
    ``"day"`` (``2025-06-21_``) or ``"minute"`` (``2025-06-15T1027Z_``; an hour alone counts
    as minute 0). None when the name carries no date."""
    match = _DATE_PREFIX.match(filename)
    if match is None:
        return None
    if match["d"] is None:
        return "month"
    return "day" if match["H"] is None else "minute"


def _provenance_lines(replay_dir: Path) -> Iterator[tuple[str, str | None]]:
    """Each line of ``DIR/PROVENANCE.md`` with the capture section it is in (the relative path
    of its ``### `provider/file` `` heading; None outside one, or after a ``## `` heading). A
    heading line itself comes with its path. Nothing when the file is missing."""
    provenance = replay_dir / "PROVENANCE.md"
    if not provenance.is_file():
        return
    current: str | None = None
    for line in provenance.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^###\s+`([^`]+)`", line)
        if heading:
            current = heading.group(1)
        elif line.startswith("## "):
            current = None
        yield line, current


def not_responses(replay_dir: Path) -> set[str]:
    """Relative paths PROVENANCE.md marks as parsed/processed/aggregated output."""
    return {
        current
        for line, current in _provenance_lines(replay_dir)
        if current
        and not line.startswith("###")
        and any(marker in line for marker in NOT_A_RESPONSE_MARKERS)
    }


def partial_captures(replay_dir: Path) -> dict[str, str]:
    """Relative path -> reason, for the files PROVENANCE.md's completeness line marks as a subset
    of the rows (a word of ``SUBSET_MARKERS`` in any case: ``"PROVENANCE: EXCERPT"``)."""
    partial: dict[str, str] = {}
    for line, current in _provenance_lines(replay_dir):
        completeness = _COMPLETENESS.match(line.strip())
        if current and completeness:
            words = dict.fromkeys(m.upper() for m in _SUBSET.findall(completeness["text"]))
            if words:
                partial[current] = "PROVENANCE: " + ", ".join(words)
    return partial


def described_captures(replay_dir: Path) -> set[str]:
    """Relative paths PROVENANCE.md has a section for."""
    return {current for _, current in _provenance_lines(replay_dir) if current}


# A capture PROVENANCE.md does not describe is judged by its name: the files of a recorded subset
# say so ("2025-09-09_wayback_pricing_excerpt.html", "..._items_sample.json").
_NAME_SUBSET = re.compile(r"(?:^|[_.-])(" + "|".join(SUBSET_MARKERS) + r")(?=[_.-]|$)", re.I)


def name_partial_reason(filename: str) -> str | None:
    """``"file name: EXCERPT"`` when ``filename`` says it holds a subset of the rows, else None."""
    found = dict.fromkeys(m.upper() for m in _NAME_SUBSET.findall(filename))
    return "file name: " + ", ".join(found) if found else None


def discover(replay_dir: Path, providers: list[str] | None = None) -> dict[str, list[Capture]]:
    """Replayable captures per provider slug, oldest first (a file named with a date that does
    not exist is left out with a warning on the ``scrapers.replay`` log). A capture holds a
    subset of its provider's rows (``partial_reason``) when PROVENANCE.md says so, or, for a
    file it does not describe, when the file's name says so."""
    excluded = not_responses(replay_dir)
    partial = partial_captures(replay_dir)
    described = described_captures(replay_dir)
    found: dict[str, list[Capture]] = {}
    for folder in sorted(p for p in replay_dir.iterdir() if p.is_dir()):
        if providers is not None and folder.name not in providers:
            continue
        captures = []
        for path in sorted(folder.iterdir()):
            rel = f"{folder.name}/{path.name}"
            try:
                stamp = capture_time(path.name)
            except CaptureNameError as exc:  # not replayable: said, and the others replay
                _log.warning("replay: %s; not replayed", exc)
                continue
            if not path.is_file() or rel in excluded or stamp is None:
                continue
            precision = capture_precision(path.name) or "minute"
            reason = partial.get(rel)
            if reason is None and rel not in described:
                reason = name_partial_reason(path.name)
            captures.append(Capture(folder.name, path, stamp[0], stamp[1], precision, reason))
        if captures:
            found[folder.name] = sorted(captures, key=lambda c: (c.captured_at, c.path.name))
    return found


class ReplayMismatch(httpx.LocalProtocolError):
    """A request a per-exchange capture does not record. A local error: never retried, and
    reported by ``scrapers.http`` as one line ``GET <url>: ...``."""


class HarCaptureError(ScraperError):
    """A ``.har`` capture that is not HAR 1.2 JSON with ``log.entries`` (one line)."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One recorded response of a per-exchange capture."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


_Key = tuple[str, str, tuple[tuple[str, str], ...]]


def exchange_key(method: str, url: str | httpx.URL) -> _Key:
    """What matches a request to its recorded exchange: method, URL without query, and the
    query's pairs in sorted order (``?b=2&a=1`` matches ``?a=1&b=2``)."""
    parsed = httpx.URL(url)
    return (
        method.upper(),
        str(parsed.copy_with(query=None, fragment=None)),
        tuple(sorted(parsed.params.multi_items())),
    )


def read_har(path: Path) -> dict[_Key, Exchange]:
    """The exchanges of a HAR 1.2 file by ``exchange_key``; the last one recorded for a request
    wins. Raises ``HarCaptureError`` for a file that is not one."""
    try:
        entries = json.loads(path.read_bytes())["log"]["entries"]
        found = {}
        for entry in entries:
            request, response = entry["request"], entry["response"]
            content = response.get("content", {})
            text = content.get("text", "")
            body = (
                base64.b64decode(text)
                if content.get("encoding") == "base64"
                else str(text).encode("utf-8")
            )
            headers = [(str(h["name"]), str(h["value"])) for h in response.get("headers", [])]
            key = exchange_key(str(request["method"]), str(request["url"]))
            found[key] = Exchange(int(response["status"]), headers, body)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise HarCaptureError(f"capture {path.name}: not a HAR 1.2 file ({exc!r})") from None
    return found


# headers a recorded response carries that describe its transfer, not its content: the body a
# HAR holds is already decoded and whole
_TRANSFER_HEADERS = {"content-encoding", "content-length", "transfer-encoding", "connection"}


class ReplayTransport(httpx.BaseTransport):
    """Answers a request as the live site answered at capture time: a per-exchange (``.har``)
    capture with the response recorded for that request, any other with the capture's bytes."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self._exchanges = read_har(capture.path) if capture.path.suffix == HAR_SUFFIX else None
        self._body = capture.path.read_bytes() if self._exchanges is None else b""
        self.requests: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        stamp = {
            CAPTURED_AT_HEADER: self.capture.captured_at.isoformat(),
            "x-gpuprices-replay-file": self.capture.path.name,
        }
        if self._exchanges is None:
            headers = {"content-type": self.capture.content_type, **stamp}
            return httpx.Response(200, headers=headers, content=self._body, request=request)
        exchange = self._exchanges.get(exchange_key(request.method, request.url))
        if exchange is None:
            raise ReplayMismatch(
                f"capture {self.capture.path.name} records no {request.method} {request.url}",
                request=request,
            )
        kept = [(k, v) for k, v in exchange.headers if k.lower() not in _TRANSFER_HEADERS]
        kept = [(k, v) for k, v in kept if k.lower() not in stamp]
        return httpx.Response(
            exchange.status,
            headers=[*kept, *stamp.items()],
            content=exchange.body,
            request=request,
        )
