"""Fault matrix: every registered provider x every fault, injected through the HTTP transport.

Each provider first gets a good scrape through the live code path (``scrape_provider`` with an
``httpx.MockTransport`` answering with its newest real capture). Then one fault is injected and
the test asserts what the operator and the API would see: the scrape fails with a one-line
message, retries are bounded and honour Retry-After, the right asset check goes red, and the
provider's last good offers (and every other provider's) are still the current ones.

Nothing sleeps: ``scrapers.http.pause`` is replaced by a recorder and the politeness interval
is zero, so the requested waits are asserted instead of waited for.

Hostile answers (issue 15) are in the matrix too: a body larger than the response limit and a
gzip bomb (both refused while streaming, never retried, nothing archived), and a price that is
positive as printed but rounds to zero as stored ($3.64 -> $0.0000000364).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipelines.defs.providers import _check_results
from pipelines.ingest import scrape_provider
from scrapers import http as scraper_http
from scrapers.base import Offer, Provider
from scrapers.registry import PROVIDERS
from scrapers.replay import Capture, discover
from tests.conftest import SNAPSHOTS, raw_from_capture
from tests.support.hostile_answers import gzip_bomb
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths

# the file takes about 95 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=95)

RETRY_AFTER_S = 7.0
RETRYABLE = ("timeout", "connection_refused", "http_500", "http_429_retry_after", "truncated_body")
PARSE_FAULTS = ("layout_change", "empty_result")
PRICE_FAULTS = ("negative_price", "zero_price", "price_rounds_to_zero", "price_jump_100x")
LIMIT_FAULTS = ("oversized_body", "gzip_bomb")
FAULTS = RETRYABLE + PARSE_FAULTS + PRICE_FAULTS + LIMIT_FAULTS
# the faults mutate a real capture: providers verified by their docs have none
CAPTURED = {slug: p for slug, p in PROVIDERS.items() if p.verified == "capture"}
LIMIT_MB = 4  # GPUPRICES_MAX_RESPONSE_MB for the limit faults (the largest capture is 1.8 MB)
FAKE_TOKEN = "fault-matrix-token"  # a placeholder, not a credential
# Providers whose source documents a zero price as "not offered" (RunPod's API: null or 0):
# their parser drops that price, so a zero is a withdrawn offer, never a free one.
ZERO_MEANS_NOT_OFFERED = frozenset({"runpod"})
# OVH prints each price twice, in units of 1e-8 and as "$x.xx", and its parser drops a row whose
# two disagree (price_mismatch): a price below a cent cannot be printed consistently, so it never
# reaches the loader (tests/scrapers/test_ovh.py covers the cross-check).
NO_SUB_CENT_PRICES = frozenset({"ovh"})
# The check that must be red for each fault (see pipelines/defs/providers.py).
RED_CHECK = {
    **{fault: "non_empty" for fault in RETRYABLE + PARSE_FAULTS},
    "negative_price": "prices_positive",
    "zero_price": "prices_positive",
    "price_rounds_to_zero": "prices_positive",
    "price_jump_100x": "no_price_jumps",
    **{fault: "non_empty" for fault in LIMIT_FAULTS},
}


# --- the injected faults ------------------------------------------------------------------------


class _TruncatedStream(httpx.SyncByteStream):
    """A body cut off mid-transfer: what httpx raises when the peer closes the connection
    before Content-Length bytes arrived (httpcore's RemoteProtocolError, same wording)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self) -> Iterator[bytes]:
        half = len(self.body) // 2
        yield self.body[:half]
        raise httpx.RemoteProtocolError(
            "peer closed connection without sending complete message body "
            f"(received {half} bytes, expected {len(self.body)})"
        )


class _Chunks(httpx.SyncByteStream):
    """A streamed body (as a server sends it), ``total`` bytes of ``chunk`` repeated; counts what
    the client pulled."""

    def __init__(self, chunk: bytes, total: int) -> None:
        self.chunk, self.total, self.sent = chunk, total, 0

    def __iter__(self) -> Iterator[bytes]:
        while self.sent < self.total:
            self.sent += len(self.chunk)
            yield self.chunk


GZIP_BOMB = gzip_bomb(64)  # 64 MiB decoded from ~64 KB


@dataclass
class FaultyTransport:
    """Answers every request with ``body`` (as the capture's content type), or with ``fault``."""

    body: bytes
    content_type: str
    fault: str | None = None
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fault == "timeout":
            raise httpx.ReadTimeout("The read operation timed out", request=request)
        if self.fault == "connection_refused":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        if self.fault == "http_500":
            return httpx.Response(500, text="Internal Server Error")
        if self.fault == "http_429_retry_after":
            return httpx.Response(
                429, headers={"Retry-After": f"{RETRY_AFTER_S:g}"}, text="Too Many Requests"
            )
        headers = {"content-type": self.content_type}
        if self.fault == "oversized_body":  # 4x the limit of blanks, streamed
            return httpx.Response(
                200, headers=headers, stream=_Chunks(b" " * 65536, 4 * LIMIT_MB << 20)
            )
        if self.fault == "gzip_bomb":
            headers["content-encoding"] = "gzip"
            return httpx.Response(200, headers=headers, stream=_Chunks(GZIP_BOMB, len(GZIP_BOMB)))
        if self.fault == "truncated_body":
            headers["content-length"] = str(len(self.body))
            return httpx.Response(200, headers=headers, stream=_TruncatedStream(self.body))
        return httpx.Response(200, headers=headers, content=self.body)

    def urls(self) -> Counter[str]:
        return Counter(str(r.url) for r in self.requests)


def _rename_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {f"{k}_v2": _rename_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename_keys(v) for v in value]
    return value


def _empty_items(value: Any, depth: int = 0) -> Any:
    """Keep the envelope, drop the items: every list, and every object-of-objects below the
    top level (AWS keys its entries by SKU, Scaleway its servers by type), becomes empty."""
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        if depth >= 1 and value and all(isinstance(v, dict) for v in value.values()):
            return {}
        return {k: _empty_items(v, depth + 1) for k, v in value.items()}
    return value


_TABLE_TAGS = re.compile(rb"<(/?)(table|thead|tbody|tr|td|th)\b", re.IGNORECASE)
# the elements a card or list is made of (headings, paragraphs, spans, list items)
_TEXT_TAG_NAMES = rb"h[1-6]|p|span|small|strong|li|ul|ol|dl|dt|dd"
_TEXT_TAGS = re.compile(rb"<(/?)(" + _TEXT_TAG_NAMES + rb")\b", re.IGNORECASE)
# the same elements as Next.js flight data writes them: ["$","small",null,{...}], maybe escaped
_FLIGHT_TAGS = re.compile(
    rb'(\[\\*"\$\\*",\\*")(' + _TEXT_TAG_NAMES + rb"|table|thead|tbody|tr|td|th)(\\*\")"
)
_CLASS_OR_ID = re.compile(rb'\b(class|id)="', re.IGNORECASE)
# a key of JSON embedded in the page (Next.js flight data, JSON-LD), plain or string-escaped
_EMBEDDED_KEY = re.compile(rb'(\\*")([A-Za-z_][\w-]*)(\\*"\s*:)')
_EMPTY_PAGE = (
    b"<!doctype html><html><head><title>GPU pricing</title></head><body><main>"
    b"<h1>Pricing</h1><p>Contact sales for GPU pricing.</p></main></body></html>"
)


def layout_changed(capture: Capture, body: bytes) -> bytes:
    """A redesign: JSON keys renamed; in a page, tables, headings, paragraphs and lists become
    divs, every class/id is renamed and so is every key of the JSON embedded in it."""
    if capture.path.suffix == ".json":
        return json.dumps(_rename_keys(json.loads(body))).encode()
    body = _TEXT_TAGS.sub(rb"<\1div", _TABLE_TAGS.sub(rb"<\1div", body))
    body = _FLIGHT_TAGS.sub(rb"\1div\3", body)
    return _EMBEDDED_KEY.sub(rb"\1\2_v2\3", _CLASS_OR_ID.sub(rb'\1="v2-', body))


def emptied(capture: Capture, body: bytes) -> bytes:
    """A valid answer with zero items: the JSON envelope without items, or a page without
    the pricing table."""
    if capture.path.suffix == ".json":
        return json.dumps(_empty_items(json.loads(body))).encode()
    return _EMPTY_PAGE


def spellings(slug: str, price: Decimal) -> list[list[str]]:
    """The ways a price may be printed in the provider's capture (never in exponent notation):
    each a list of forms that all appear: in dollars, or in whole cents (Hyperbolic's
    ``costPerHourCents``, Shadeform's ``hourly_price``)."""
    if slug == "ovh":  # integer units of 1e-8 beside a formatted "$3299.00", cross-checked
        return [[f"{price * 10**8:.0f}", f"${price:.2f}"]]
    return [[f"{price:f}"], [f"{(price * 100).normalize():f}"]]


def with_price(
    slug: str, body: bytes, offers: list[Offer], change: Callable[[Decimal], Decimal]
) -> tuple[bytes, Decimal]:
    """The capture with one offer's printed price (every occurrence of it) changed."""
    for offer in offers:
        new_price = change(offer.price)
        forms = zip(spellings(slug, offer.price), spellings(slug, new_price), strict=True)
        for olds, news in forms:
            patterns = [
                re.compile(rb"(?<![\d.])" + re.escape(old.encode()) + rb"(?![\d])") for old in olds
            ]
            if all(p.search(body) for p in patterns):
                for pattern, new in zip(patterns, news, strict=True):
                    body = pattern.sub(new.encode(), body)
                return body, new_price
    raise AssertionError("no offer's price is printed verbatim in the capture")


PRICE_CHANGES: dict[str, Callable[[Decimal], Decimal]] = {
    "negative_price": lambda p: -p,
    "zero_price": lambda p: p * 0,
    "price_rounds_to_zero": lambda p: p.scaleb(-8),  # 3.64 -> 0.0000000364: 0 with 6 decimals
    "price_jump_100x": lambda p: p * 100,
}


# --- fixtures -----------------------------------------------------------------------------------


@dataclass
class World:
    paths: Paths
    captures: dict[str, Capture]
    waits: list[float]
    baseline_errors: dict[str, str] = field(default_factory=dict)
    _current: dict[tuple[str, str], tuple[Decimal, Any]] | None = None

    def env(self, provider: Provider) -> dict[str, str]:
        env = {"GPUPRICES_MAX_RESPONSE_MB": str(LIMIT_MB)}
        if provider.token_required and provider.token_env:
            env[provider.token_env] = FAKE_TOKEN
        return env

    def scrape(self, provider: Provider, transport: FaultyTransport) -> list[Any]:
        return scrape_provider(
            provider,
            paths=self.paths,
            replay_dir=None,
            env=self.env(provider),
            transport=httpx.MockTransport(transport),
        )

    def raw_bodies(self) -> set[str]:
        return {p.name for p in self.paths.raw.glob("*/*.gz")}

    def current(self, *, cached: bool = False) -> dict[tuple[str, str], tuple[Decimal, Any]]:
        """(provider, offer id) -> (USD per hour, observed at) of every current offer, after
        ``derive.rebuild`` (a newer scrape of the same prices would change ``observed_at``).
        ``cached``: the result of the previous call, when nothing was loaded since."""
        if cached and self._current is not None:
            return self._current
        with Warehouse(self.paths.warehouse).connect() as con:
            rebuild(con, select=("current_offers",))
            rows = con.execute(
                "select provider, offer_id, price_per_hour_usd, observed_at from current_offers"
            ).fetchall()
        self._current = {(p, o): (usd, seen) for p, o, usd, seen in rows}
        return self._current

    def forget_current(self) -> None:
        self._current = None

    def keep_current(self, current: dict[tuple[str, str], tuple[Decimal, Any]]) -> None:
        """What ``current(cached=True)`` returns next: nothing was loaded since ``current``."""
        self._current = current

    def stored(self) -> tuple[Any, ...]:
        """What the current offers are derived from: the observations and the successful
        scrapes (counts and newest), and the quarantine. Equal before and after a scrape means
        ``current()`` is too, without rebuilding."""
        with Warehouse(self.paths.warehouse).connect() as con:
            row = con.execute(
                "select (select count(*) from observations), (select count(*) from scrapes"
                " where status = 'success'), (select max(started_at) from scrapes where status"
                " = 'success'), (select count(*) from quarantined_offers)"
            ).fetchone()
        return tuple(row or ())

    def observations_of(self, scrape_id: str | None) -> int:
        with Warehouse(self.paths.warehouse).connect() as con:
            row = con.execute(
                "select count(*) from observations where scrape_id = ?", [scrape_id]
            ).fetchone()
        return int(row[0]) if row else 0


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, seeded_template: Path) -> Iterator[World]:
    """A warehouse holding a good live-path scrape of every provider; waits recorded."""
    waits: list[float] = []
    with pytest.MonkeyPatch.context() as mp, ExitStack() as stack:
        mp.setattr(scraper_http, "pause", waits.append)
        mp.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)
        paths = Paths(tmp_path_factory.mktemp("fault-matrix"))
        seeded_warehouse(seeded_template, paths.warehouse)
        # one open connection for the whole module: opening DuckDB costs ~50 ms per connect
        stack.enter_context(Warehouse(paths.warehouse).held())
        captures = {slug: found[-1] for slug, found in discover(SNAPSHOTS).items()}
        world = World(paths, captures, waits)
        for slug, provider in sorted(CAPTURED.items()):
            capture = captures[slug]
            outcomes = world.scrape(
                provider, FaultyTransport(capture.path.read_bytes(), capture.content_type)
            )
            if [o.status for o in outcomes] != ["success"]:
                world.baseline_errors[slug] = f"{outcomes[-1].status}: {outcomes[-1].error}"
        yield world


def test_every_provider_verified_by_a_capture_has_one_to_start_from() -> None:
    assert set(CAPTURED) <= set(discover(SNAPSHOTS))


# --- the matrix ---------------------------------------------------------------------------------


# every provider x every fault, provider by provider; OVH cannot print a sub-cent price (above)
CASES = [
    (slug, fault)
    for slug in sorted(CAPTURED)
    for fault in FAULTS
    if not (fault == "price_rounds_to_zero" and slug in NO_SUB_CENT_PRICES)
]


@pytest.mark.parametrize(("slug", "fault"), CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_fault(world: World, slug: str, fault: str) -> None:
    assert slug not in world.baseline_errors, f"good baseline failed: {world.baseline_errors[slug]}"
    provider = PROVIDERS[slug]
    capture = world.captures[slug]
    body = capture.path.read_bytes()
    before = world.current(cached=True)  # the previous test left it so (asserted below)
    assert any(p == slug for p, _ in before), "the good baseline is current"
    new_price: Decimal | None = None
    if fault == "layout_change":
        body = layout_changed(capture, body)
    elif fault == "empty_result":
        body = emptied(capture, body)
    elif fault in PRICE_FAULTS:
        # the faulty answer is a live fetch, observed now: a page whose prices depend on the
        # observation date (Nebius' "Effective <date>" columns) is read as of now here too
        live = replace(raw_from_capture(capture.path), fetched_at=datetime.now(UTC))
        offers = provider.parse([live])
        body, new_price = with_price(slug, body, offers, PRICE_CHANGES[fault])
    injected = fault if fault in RETRYABLE + LIMIT_FAULTS else None
    transport = FaultyTransport(body, capture.content_type, injected)
    del world.waits[:]
    world.forget_current()
    archived = world.raw_bodies()
    stored = world.stored()

    outcomes = world.scrape(provider, transport)

    assert len(outcomes) == 1
    outcome = outcomes[0]
    if fault == "zero_price" and slug in ZERO_MEANS_NOT_OFFERED:
        assert outcome.status == "success"
        after = world.current()
        assert all(usd > 0 for usd, _ in after.values())
        assert len([k for k in after if k[0] == slug]) < len([k for k in before if k[0] == slug])
        return
    assert outcome.status == "failed", f"{slug}/{fault} was not rejected: {outcome}"
    error = outcome.error or ""
    assert error and "\n" not in error and "Traceback" not in error and len(error) < 1000

    requests = transport.urls()
    if fault in RETRYABLE:
        # the first request keeps failing: exactly MAX_ATTEMPTS tries, then the provider stops
        assert error.startswith("fetch failed: ")
        assert list(requests.values()) == [scraper_http.MAX_ATTEMPTS], requests
        assert f"after {scraper_http.MAX_ATTEMPTS} attempts" in error
        retry_waits = world.waits
        assert len(retry_waits) == scraper_http.MAX_ATTEMPTS - 1
        if fault == "http_429_retry_after":
            assert retry_waits == [RETRY_AFTER_S] * (scraper_http.MAX_ATTEMPTS - 1)
        else:  # exponential backoff with jitter, capped
            assert all(0 < w <= scraper_http.BACKOFF_MAX_S + 1 for w in retry_waits)
            assert retry_waits[-1] > retry_waits[0]
    else:
        # a wrong answer is not retried
        assert set(requests.values()) == {1}, requests
        assert world.waits == []
    if fault in PARSE_FAULTS:
        assert error.startswith("parse failed: ") or "no offers parsed" in error
    if fault in ("negative_price", "zero_price", "price_rounds_to_zero"):
        assert error.startswith("parse failed: ") or "price <= 0" in error
    if fault in LIMIT_FAULTS:  # refused while streaming: one line naming the limit, not archived
        assert error.startswith("fetch failed: ") and f"larger than {LIMIT_MB} MB" in error
        assert world.raw_bodies() == archived
    if fault == "price_jump_100x":
        assert new_price is not None
        _assert_quarantined(world, outcome.scrape_id, slug, new_price, error)

    results = {r.check_name: r.passed for r in _check_results(slug, outcome.problems)}
    if fault in PRICE_FAULTS[:3] and error.startswith("parse failed: "):
        assert results["non_empty"] is False  # the parser itself refused the price
    else:
        assert results[RED_CHECK[fault]] is False, (error, results)

    # nothing of the failed scrape is served: every provider's current offers are unchanged
    unchanged = world.stored() == stored
    if fault in RETRYABLE + LIMIT_FAULTS:
        assert unchanged  # it failed before parsing: nothing of it is stored
    if unchanged:
        # what current_offers is built from is unchanged, so it is too (rebuilding it after
        # every fault cost a quarter of the suite): a parser that refused the page stored none
        # of its offers
        assert world.observations_of(outcome.scrape_id) == 0
        world.keep_current(before)
    else:  # something was stored (a quarantine, a rejected load): rebuild and compare
        assert world.current() == before


def _assert_quarantined(
    world: World, scrape_id: str | None, slug: str, new_price: Decimal, error: str
) -> None:
    assert error.startswith("quarantined: ")
    with Warehouse(world.paths.warehouse).connect() as con:
        rows = con.execute(
            "select basis, ratio, old_price, new_price from quarantined_offers"
            " where scrape_id = ? and provider = ?",
            [scrape_id, slug],
        ).fetchall()
    assert rows, "the offending offers are recorded with old and new values"
    assert any(recorded == pytest.approx(new_price) for *_, recorded in rows)
    for basis, ratio, old_price, recorded_new in rows:
        if basis == "offer":  # the same offer, 100x its last good price
            assert ratio == pytest.approx(100, rel=0.02)
            assert recorded_new == pytest.approx(old_price * 100)
        else:  # an offer without a stable id, against its GPU's median
            assert basis == "gpu_median" and ratio >= 10
