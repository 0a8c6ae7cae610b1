"""A 100x price jump through the Dagster jobs: quarantined, check red, nothing of it published,
the other providers published; and a provider not refreshed live is overdue after the threshold."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.run import IngestReport, run_ingest
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import publish
from warehouse.quality import STALE_AFTER_ENV
from warehouse.settings import Settings

LAMBDA_PRICE = "$2.99"  # printed once in Lambda's newest capture: 8x H100 SXM, per GPU-hour
JUMPED_PRICE = "$299.00"


@pytest.fixture(scope="module")
def quarantined(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Paths, IngestReport, dg.DagsterInstance]:
    """Replay Lambda's newest capture, then a later copy with one price 100x; AWS as is."""
    root = tmp_path_factory.mktemp("quarantine")
    replay = root / "replay"
    captures = discover(SNAPSHOTS, ["lambda", "aws"])
    good = captures["lambda"][-1].path
    (replay / "lambda").mkdir(parents=True)
    shutil.copy(good, replay / "lambda" / good.name)
    body = good.read_bytes()
    assert body.count(LAMBDA_PRICE.encode()) == 1
    jumped = replay / "lambda" / ("2026-06-01_" + good.name.split("_", 1)[1])
    jumped.write_bytes(body.replace(LAMBDA_PRICE.encode(), JUMPED_PRICE.encode()))
    (replay / "aws").mkdir()
    aws = captures["aws"][-1].path
    shutil.copy(aws, replay / "aws" / aws.name)
    paths = Paths(root / "home")
    instance = dg.DagsterInstance.ephemeral()
    report = run_ingest(paths, replay_dir=replay, providers=["lambda", "aws"], instance=instance)
    return paths, report, instance


def _check_evaluations(instance: dg.DagsterInstance, run_id: str) -> dict[tuple[str, str], bool]:
    records = instance.all_logs(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
    found = {}
    for record in records:
        evaluation = record.dagster_event.event_specific_data  # type: ignore[union-attr]
        found[(evaluation.asset_key.path[-1], evaluation.check_name)] = evaluation.passed
    return found


def test_price_jump_fails_the_provider_and_its_check(quarantined) -> None:
    _, report, instance = quarantined
    lines = {p.provider: p for p in report.providers}
    assert lines["lambda"].status == "FAILED"
    assert "quarantined: 1 offer(s) moved 10x or more" in lines["lambda"].detail
    assert "\n" not in lines["lambda"].detail
    assert lines["aws"].status == "ok"
    assert report.snapshot_id, "the other providers are published"
    checks = _check_evaluations(instance, report.run_id)
    assert checks[("lambda", "no_price_jumps")] is False
    assert checks[("aws", "no_price_jumps")] is True


# Lambda's capture is of 2026-01-09: past the 180 days of a list price in December 2026, so its
# offers are listed only with include_expired (issue 21); what is asked here is which are served
LAMBDA = {"provider": "lambda", "limit": 1000, "include_expired": "true"}


def test_quarantined_offer_is_recorded_and_never_served(quarantined) -> None:
    paths, _, _ = quarantined
    with Warehouse(paths.warehouse).connect() as con:
        rows = con.execute(
            "select provider, basis, old_price, new_price, ratio from quarantined_offers"
        ).fetchall()
        statuses = con.execute(
            "select status, error from scrapes where provider = 'lambda' order by observed_at"
            " nulls last, started_at"
        ).fetchall()
    assert [(p, b, float(o), float(n), float(r)) for p, b, o, n, r in rows] == [
        ("lambda", "offer", 2.99, 299.0, 100.0)
    ]
    assert statuses[0][0] == "success"
    assert statuses[-1][0] == "failed" and statuses[-1][1].startswith("quarantined:")
    with TestClient(create_app(paths.published)) as client:
        items = client.get("/instances", params=LAMBDA).json()
        providers = {p["provider"]: p for p in client.get("/providers").json()["items"]}
    prices = {i["price"] for i in items["items"]}
    assert 2.99 in prices and 299.0 not in prices
    assert providers["lambda"]["last_status"] == "failed"
    assert providers["lambda"]["last_error"].startswith("quarantined:")
    # replayed captures: never a live success, and stale by their own age, not the scrape's:
    # the provider once its newest price (2026-01-09) is past 180 days, an offer after 30
    assert providers["lambda"]["last_success_at"] is None
    assert providers["lambda"]["stale"] is (items["items"][0]["age_days"] > 180)
    assert all(i["stale"] is (i["age_days"] > 30) for i in items["items"])


def test_last_good_data_is_flagged_overdue_after_the_threshold(
    quarantined, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A provider no live scrape refreshed for GPUPRICES_STALE_AFTER_HOURS is overdue (the
    replays here count as live scrapes, as if the captures had just been fetched)."""
    paths, _, _ = quarantined
    home = tmp_path / "home"
    shutil.copytree(paths.home, home)
    with Warehouse(Paths(home).warehouse).connect() as con:
        con.execute("update scrapes set mode = 'live'")
    published = tmp_path / "published"
    later = datetime.now(UTC) + timedelta(hours=25)  # default threshold: 24 h
    with Warehouse(Paths(home).warehouse).connect() as con:
        rebuild(con, now=later)
        publish(con, published, now=later)
    with TestClient(create_app(published)) as client:
        items = client.get("/instances", params=LAMBDA).json()
        providers = {p["provider"]: p for p in client.get("/providers").json()["items"]}
    assert items["total"] > 0, "stale data is still served"
    assert all(i["stale"] for i in items["items"])
    assert providers["lambda"]["overdue"] is True and providers["aws"]["overdue"] is True

    monkeypatch.setenv(STALE_AFTER_ENV, "48")  # read at run time, not import time
    with Warehouse(Paths(home).warehouse).connect() as con:
        rebuild(con, now=later, stale_after_hours=Settings.load().stale_after_hours)
        overdue = dict(con.execute("select provider, overdue from provider_status").fetchall())
    assert overdue == {"lambda": False, "aws": False}
