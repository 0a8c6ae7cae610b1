"""Providers are fetched concurrently within per-host limits, so one slow host does not hold the
others (issue 15: with providers run one at a time, one byte every 5 s held one provider for
409 s and everything after it waited). Loads stay one at a time (DuckDB's single writer).

The live sites are answered by a mock transport in this process; the slow host takes
``SLOW_S`` per exchange, every other host answers at once (404: each provider's fetch is one
failed request, which is all the timing needs).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import dagster as dg
import httpx
import pytest

from pipelines.prefetch import Prefetcher
from pipelines.run import run_ingest
from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS
from warehouse.db import Warehouse
from warehouse.paths import Paths

SLOW_HOST = "console-api.akash.network"  # akash: alphabetically first, so serially all waited
SLOW_S = 3.0
OTHERS = ["hetzner", "ovh", "crusoe"]
ECB_HOST = "www.ecb.europa.eu"  # the fx_rates step's own fetch (not a provider)


class Sites:
    """Records every exchange as (host, start, end), on the monotonic clock."""

    def __init__(self) -> None:
        self.log: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        start = time.monotonic()
        if request.url.host == SLOW_HOST:
            time.sleep(SLOW_S)
        with self.lock:
            self.log.append((request.url.host, start, time.monotonic()))
        return httpx.Response(404, text="not here")


@pytest.fixture
def sites(monkeypatch: pytest.MonkeyPatch) -> Sites:
    sites = Sites()
    live_client = scraper_http.make_client

    def client(transport: httpx.BaseTransport | None = None, **kwargs) -> httpx.Client:
        return live_client(transport or httpx.MockTransport(sites), **kwargs)

    monkeypatch.setattr(scraper_http, "make_client", client)
    monkeypatch.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    return sites


def test_one_slow_host_does_not_hold_the_other_providers(sites: Sites, tmp_path: Path) -> None:
    paths = Paths(tmp_path / "home")
    report = run_ingest(
        paths,
        replay_dir=None,
        providers=["akash", *OTHERS],
        recorded_fallback=False,
        instance=dg.DagsterInstance.ephemeral(),
    )
    slow_end = max(end for host, _, end in sites.log if host == SLOW_HOST)
    others = [(host, start) for host, start, _ in sites.log if host not in (SLOW_HOST, ECB_HOST)]
    assert len({h for h, _ in others}) >= len(OTHERS), sites.log
    # every other provider's requests started while the slow host was still answering
    assert all(start < slow_end for _, start in others), sites.log
    # and each provider was still loaded, and reported, on its own
    assert {p.provider: p.status for p in report.providers} == {
        slug: "FAILED" for slug in ["akash", *OTHERS]
    }
    with Warehouse(paths.warehouse).connect() as con:
        rows = con.execute(
            "select provider, status from scrapes where run_id = ? order by provider",
            [report.run_id],
        ).fetchall()
    assert rows == [(slug, "failed") for slug in sorted(["akash", *OTHERS])]


def test_prefetch_keeps_one_exchange_at_a_time_per_host(sites: Sites) -> None:
    akash = PROVIDERS["akash"]
    twin = dataclasses.replace(akash, slug="akash-twin")  # same host as akash
    with Prefetcher([akash, twin, PROVIDERS["hetzner"]], max_workers=3, env={}) as prefetcher:
        fetched = [prefetcher.take(s) for s in ("akash", "akash-twin", "hetzner")]
    assert all(f is not None and f.error is not None for f in fetched)  # 404: a fault, no raise
    slow = sorted((start, end) for host, start, end in sites.log if host == SLOW_HOST)
    assert len(slow) == 2 and slow[1][0] >= slow[0][1]  # the second waited for the first
    fast = [start for host, start, _ in sites.log if host != SLOW_HOST]
    assert fast and fast[0] < slow[0][1]  # while another host answered at once


def test_prefetch_bound_is_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Prefetcher([], max_workers=0)
