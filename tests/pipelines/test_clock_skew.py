"""A clock set back or ahead loses nothing (issue 27).

The attack: with the clock 18 months behind, one ``ingest --provider lambda`` quarantined 32 of
42 stored scrapes (every one dated after the wrong "now") and published 105 offers instead of
714; 2.4 days behind, Vast's live scrape was deleted (138 offers -> 0) and stayed at 0 once the
clock was fixed. Here the clock is the run's injectable ``now`` (``scrape_provider``,
``derive.rebuild``, ``publish``): each test ingests, runs one provider at the skewed clock, and
checks that every stored scrape, observation, history interval and raw body is still there and
published, then again with the clock fixed. New input dated after the skewed clock is refused
loudly (``future_observation``), never stored.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import httpx
import pytest

from pipelines.ingest import scrape_provider
from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import publish

# the file takes about 30 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=30)

LAMBDA = PROVIDERS["lambda"]
VAST = PROVIDERS["vast"]
HETZNER = PROVIDERS["hetzner"]  # the provider ingested at the skewed clock
MONTHS_18 = timedelta(days=548)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    monkeypatch.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)


def _vast_live() -> httpx.MockTransport:
    body = discover(SNAPSHOTS, ["vast"])["vast"][-1].path.read_bytes()
    return httpx.MockTransport(
        lambda r: httpx.Response(200, content=body, headers={"content-type": "application/json"})
    )


@pytest.fixture(scope="module")
def stored_home(tmp_path_factory: pytest.TempPathFactory, seeded_template: Path) -> Path:
    """Every Lambda capture replayed (2023-2026) and one live Vast scrape, at the real clock:
    built once for the module, copied for each test (``paths``)."""
    paths = Paths(tmp_path_factory.mktemp("clock-skew") / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scraper_http, "pause", lambda seconds: None)
        mp.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)
        replayed = scrape_provider(LAMBDA, paths=paths, replay_dir=SNAPSHOTS)
        live = scrape_provider(VAST, paths=paths, replay_dir=None, env={}, transport=_vast_live())
    assert len(replayed) >= 3 and {o.status for o in replayed} == {"success"}
    assert [o.status for o in live] == ["success"] and live[0].offer_count > 0
    return paths.home


@pytest.fixture
def paths(stored_home: Path, tmp_path: Path) -> Paths:
    """A copy of ``stored_home`` of this test's own."""
    shutil.copytree(stored_home, tmp_path / "home")
    return Paths(tmp_path / "home")


def _stored(con: duckdb.DuckDBPyConnection, raw: Path) -> dict[str, list]:
    """Everything of Lambda and Vast a clock must not take away."""

    def rows(sql: str) -> list[tuple]:
        return con.execute(sql, [LAMBDA.slug, VAST.slug]).fetchall()

    return {
        "scrapes": rows(
            "select scrape_id, status, observed_at from scrapes where provider in (?, ?) order by 1"
        ),
        "observations": rows(
            "select scrape_id, count(*) from observations where provider in (?, ?)"
            " group by 1 order by 1"
        ),
        "history": rows(
            "select offer_id, valid_from, valid_to, price from offer_history"
            " where provider in (?, ?) order by 1, 2"
        ),
        "raw": rows(
            "select distinct sha256 from fetches join scrapes using (scrape_id)"
            " where provider in (?, ?) order by 1"
        ),
        "raw_on_disk": sorted(p.name for p in raw.glob("*/*.gz")),
    }


def _published(paths: Paths, now: datetime) -> dict[str, int]:
    """Offers per scraped provider in the snapshot published at ``now`` (the curated serverless
    tiers are in force between their seed's dates: which ones is the clock's to say)."""
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con, now=now)
        snapshot = publish(con, paths.published, now=now)
    with duckdb.connect(str(snapshot.path), read_only=True) as snap:
        return dict(
            snap.execute(
                "select provider, count(*) from current_offers where provider in (?, ?) group by 1",
                [LAMBDA.slug, VAST.slug],
            ).fetchall()
        )


def _ingest_one_provider_at(paths: Paths, now: datetime) -> list:
    return scrape_provider(HETZNER, paths=paths, replay_dir=SNAPSHOTS, now=now)


@pytest.mark.parametrize(
    "skew", [-MONTHS_18, -timedelta(days=2.4), MONTHS_18], ids=["back-18mo", "back-2.4d", "ahead"]
)
def test_clock_skew_quarantines_no_stored_scrape_and_publishes_every_offer(
    paths: Paths, skew: timedelta
) -> None:
    real = datetime.now(UTC)
    published = _published(paths, real)
    with Warehouse(paths.warehouse).connect() as con:
        before = _stored(con, paths.raw)
    assert published["vast"] > 0 and published["lambda"] > 0

    skewed = real + skew
    outcomes = _ingest_one_provider_at(paths, skewed)

    # new input dated after the skewed clock is refused loudly, nothing of it stored; the rest
    # loads
    for outcome in outcomes:
        assert outcome.observed_at is not None
        if outcome.observed_at > skewed + timedelta(minutes=5):
            assert outcome.status == "failed"
            assert "in the future (later than now plus GPUPRICES_CLOCK_SKEW_S)" in (
                outcome.error or ""
            )
        else:
            assert outcome.status == "success"
    with Warehouse(paths.warehouse).connect() as con:
        stored = _stored(con, paths.raw)
        assert {k: v for k, v in stored.items() if k != "raw_on_disk"} == {
            k: v for k, v in before.items() if k != "raw_on_disk"
        }
        assert set(before["raw_on_disk"]) <= set(stored["raw_on_disk"])
    assert _published(paths, skewed) == published
    # clock fixed: still all there
    assert {o.status for o in _ingest_one_provider_at(paths, real)} <= {"success", "unchanged"}
    with Warehouse(paths.warehouse).connect() as con:
        stored = _stored(con, paths.raw)
        assert {k: v for k, v in stored.items() if k != "raw_on_disk"} == {
            k: v for k, v in before.items() if k != "raw_on_disk"
        }
        assert set(before["raw_on_disk"]) <= set(stored["raw_on_disk"])
    assert _published(paths, real) == published


def test_clock_set_back_2_4_days_keeps_the_live_scrape_after_the_clock_is_fixed(
    paths: Paths,
) -> None:
    """The Vast case: its live scrape (observed at the real clock) is 2.4 days ahead of the
    skewed one; another provider's run at the skewed clock leaves it current and served."""
    real = datetime.now(UTC)
    served = _published(paths, real)["vast"]
    scrape_provider(LAMBDA, paths=paths, replay_dir=SNAPSHOTS, now=real - timedelta(days=2.4))
    assert _published(paths, real - timedelta(days=2.4))["vast"] == served
    assert _published(paths, real)["vast"] == served


def test_live_scrape_at_a_clock_set_back_is_refused_as_future_input(paths: Paths) -> None:
    """New input the skewed clock calls future fails loudly; the stored Vast scrape stays."""
    real = datetime.now(UTC)
    served = _published(paths, real)["vast"]
    # a live fetch is dated by the wall clock (what the server sent), the run's clock is behind
    outcomes = scrape_provider(
        VAST,
        paths=paths,
        replay_dir=None,
        env={},
        transport=_vast_live(),
        now=real - timedelta(days=2.4),
    )
    assert [o.status for o in outcomes] in (["failed"], ["unchanged"]), outcomes
    if outcomes[0].status == "failed":
        assert "in the future" in (outcomes[0].error or "")
    assert _published(paths, real)["vast"] == served


@pytest.mark.parametrize("skew", [-MONTHS_18, -timedelta(days=2.4)], ids=["back-18mo", "back-2.4d"])
def test_recovery_at_a_clock_set_back_quarantines_no_stored_scrape(
    paths: Paths, skew: timedelta
) -> None:
    """What every run does first, at the skewed clock (today's code quarantined every scrape
    dated after it: Lambda's newer captures and the live Vast scrape, observations deleted)."""
    from warehouse.recovery import recover
    from warehouse.retention import prune_raw

    real = datetime.now(UTC)
    with Warehouse(paths.warehouse).connect() as con:
        before = _stored(con, paths.raw)
        recovered = recover(con, paths.raw, now=real + skew)
        prune_raw(con, paths.raw, now=real + skew)
        assert recovered.quarantined_scrapes == {}
        assert _stored(con, paths.raw) == before
    assert _published(paths, real) == _published(paths, real + skew)
