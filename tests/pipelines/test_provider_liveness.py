"""A provider's status from the age of its data, not from when it was last loaded (issue 22 §4),
and its exclusions by reason, unknown SKUs named (issue 22 §7).

On a full replay every provider was loaded a minute ago, from captures up to three years old:
``last_success_at`` is for live scrapes only (a load of recorded data is
``last_recorded_load_at``), ``stale`` is the newest price past the provider's shelf life, and no
provider is ``live``. A live fetch (the real capture answered through the live path) is live
until its prices pass their shelf life.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, date, datetime, timedelta
from typing import Any

import dagster as dg
import httpx
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.cli import main
from pipelines.ingest import scrape_provider
from pipelines.run import run_ingest
from scrapers import hetzner
from scrapers.base import unrecognised_rows
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.scrapers.unknown_rows import azure as azure_unknown
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.queries import liveness

ON_DEMAND_DAYS = 180  # the default shelf life of a list price (warehouse.shelf_life)


@pytest.fixture(scope="module")
def replayed(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as client:
        providers = {p["provider"]: p for p in client.get("/providers").json()["items"]}
        health = client.get("/health").json()
    return providers, health


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_paperspace_stale_from_its_newest_price_not_last_scrape(replayed):
    providers, health = replayed
    as_of = _at(health["as_of"])
    paperspace = providers["paperspace"]
    # its only capture is of 2024-01-23; it was loaded minutes before the snapshot
    assert paperspace["newest_price_observed_at"][:10] == "2024-01-23"
    assert as_of - _at(paperspace["last_recorded_load_at"]) < timedelta(hours=1)
    assert paperspace["shelf_life_days"] == ON_DEMAND_DAYS  # on-demand list prices only
    assert _at(paperspace["fresh_until"]).date() == date(2024, 7, 21)  # + 180 days
    assert paperspace["stale"] is True and paperspace["live"] is False
    # the rule, for every provider: stale once its newest price is past its shelf life
    for item in providers.values():
        newest = _at(item["newest_price_observed_at"])
        assert _at(item["fresh_until"]) == newest + timedelta(days=item["shelf_life_days"])
        assert item["stale"] is (as_of >= _at(item["fresh_until"])), item["provider"]
    # Hetzner's server auction is a marketplace price (30 days); Azure's list prices 180
    assert providers["hetzner"]["shelf_life_days"] == 30
    azure = providers["azure"]
    assert azure["newest_price_observed_at"][:10] == "2026-10-01"
    assert azure["stale"] is (as_of >= datetime(2026, 10, 1, tzinfo=UTC) + timedelta(days=180))


def test_recorded_load_is_not_last_success(replayed):
    providers, health = replayed
    # every provider verified by a capture is replayed (one verified by its docs has none)
    captured = [p for p in PROVIDERS.values() if p.verified == "capture"]
    assert len(providers) == len(captured)
    for item in providers.values():
        assert item["last_status"] == "success"  # every capture replayed
        assert item["last_success_at"] is None, item["provider"]  # none of it was live
        assert item["last_recorded_load_at"] is not None
        assert item["live"] is False and item["overdue"] is True
    assert health["live_providers"] == 0 and health["scraped_providers"] == len(captured)
    assert health["banner"] == (
        "no provider is live: serving recorded data observed 2024-01-23 to 2026-10-01"
    )


@pytest.fixture
def live_hetzner(tmp_path, seeded_template):
    """Hetzner's newest real capture answered through the live path (what a live fetch of that
    page returns), then its captures replayed, then its shipped recorded offers loaded."""
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    body = discover(SNAPSHOTS, ["hetzner"])["hetzner"][-1].path.read_bytes()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=body, headers={"content-type": "application/json"}
        )
    )
    [live] = scrape_provider(hetzner.PROVIDER, paths=paths, replay_dir=None, transport=transport)
    assert live.status == "success"
    replays = scrape_provider(hetzner.PROVIDER, paths=paths, replay_dir=SNAPSHOTS)
    assert {o.status for o in replays} == {"success"}
    return paths


def _status(paths: Paths, now: datetime | None = None) -> dict:
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con, now=now)
        result = con.execute(
            "select last_success_at, last_recorded_load_at, data_origin, stale, live, overdue,"
            " shelf_life_days from provider_status where provider = 'hetzner'"
        )
        names = [d[0] for d in result.description or []]
        row: dict[str, Any] = dict(zip(names, result.fetchone() or (), strict=True))
        row["liveness"] = liveness(con)
        finished = con.execute(
            "select mode, max(finished_at) from scrapes where status = 'success' group by mode"
        ).fetchall()
    return {**row, "finished": dict(finished)}


def test_a_live_scrape_is_live_until_its_prices_pass_their_shelf_life(live_hetzner):
    now = _status(live_hetzner)
    # the replays came after the live scrape: they are recorded loads, not successes
    assert now["last_success_at"] == now["finished"]["live"]
    assert now["last_recorded_load_at"] == now["finished"]["replay"] > now["last_success_at"]
    assert now["data_origin"] == "live"  # the live prices are the newest observed
    assert now["live"] is True and now["stale"] is False and now["overdue"] is False
    assert now["liveness"].line == "1 of 1 providers live" and now["liveness"].banner is None
    # a month later the auction prices (30 days) are past their shelf life
    later = _status(live_hetzner, datetime.now(UTC) + timedelta(days=31))
    assert later["stale"] is True and later["live"] is False and later["overdue"] is True
    assert later["liveness"].banner.startswith("no provider is live: serving old data observed ")


# --- exclusions by reason, unknown SKUs named ------------------------------------------------

AZURE_BENIGN = {"low_priority": 10, "windows": 30}  # the newest capture's Low Priority and Windows


@pytest.fixture(scope="module")
def azure_with_unknown_sku(tmp_path_factory):
    """Azure's newest capture with one made-up SKU (tests/scrapers/unknown_rows/azure.py),
    replayed through the jobs."""
    root = tmp_path_factory.mktemp("unknown-sku")
    capture = discover(SNAPSHOTS, ["azure"])["azure"][-1].path
    body, sku = azure_unknown.inject(capture.read_bytes())
    (root / "replay" / "azure").mkdir(parents=True)
    (root / "replay" / "azure" / capture.name).write_bytes(body)
    paths = Paths(root / "home")
    report = run_ingest(
        paths,
        replay_dir=root / "replay",
        providers=["azure"],
        instance=dg.DagsterInstance.ephemeral(),
    )
    return paths, report, f"unknown_sku {sku}"


def test_status_lists_exclusions_by_reason_with_unknown_skus_named(
    azure_with_unknown_sku, monkeypatch, capsys
):
    paths, report, reason = azure_with_unknown_sku
    assert reason == "unknown_sku Standard_ND96isr_Z100_v9"
    [line] = report.providers
    assert line.status == "ok"
    assert line.detail.endswith(f"; warning: rows not recognised: {reason}")
    assert report.summary().endswith(f"; rows not recognised: {reason} (azure)")
    with TestClient(create_app(paths.published)) as client:
        [azure] = client.get("/providers").json()["items"]
    assert azure["benign_rows"] == AZURE_BENIGN and azure["benign_row_count"] == 40
    assert azure["unknown_rows"] == {reason: 1} and azure["unknown_row_count"] == 1
    assert azure["excluded_rows"] == {**AZURE_BENIGN, reason: 1}

    monkeypatch.setenv("GPUPRICES_HOME", str(paths.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["status", "--format", "table"]) == 0
    out = capsys.readouterr().out
    listed = out.split("rows not recognised", 1)[1]
    assert f"azure: {reason} (1)" in listed
    assert main(["status", "--format", "csv"]) == 0
    [row] = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert (row["benign_row_count"], row["unknown_row_count"]) == ("40", "1")
    assert row["unknown_rows"] == f"{reason} (1)"


def test_a_replay_without_unknown_rows_names_none(replayed):
    providers, _ = replayed
    assert providers["hetzner"]["benign_rows"] == {"non_gpu": 436}  # the auction's CPU servers
    for item in providers.values():
        assert item["unknown_rows"] == {} and item["unknown_row_count"] == 0
        assert item["benign_row_count"] + item["unknown_row_count"] == item["excluded_row_count"]


def test_provider_status_splits_reasons_as_the_parsers_drift_rule_does(
    azure_with_unknown_sku, tmp_path
):
    """The model's SQL names the prefixes of scrapers.base.unrecognised_rows: the same split,
    for reasons of every shape stored with the scrape Azure is served from."""
    paths, _, reason = azure_with_unknown_sku
    home = tmp_path / "home"
    shutil.copytree(paths.home, home)
    more = {"unknown_family g9x": 2, "unparsed_price H100 (n/a)": 3, "contact sales": 4}
    with Warehouse(Paths(home).warehouse).connect() as con:
        [(scrape_id,)] = con.execute(
            "select distinct scrape_id from current_offers where provider = 'azure'"
        ).fetchall()
        con.executemany(
            "insert into scrape_exclusions values (?, 'azure', ?, ?)",
            [[scrape_id, r, n] for r, n in more.items()],
        )
        rebuild(con)
        [(unknown, benign)] = con.execute(
            "select unknown_rows, benign_rows from provider_status where provider = 'azure'"
        ).fetchall()
    every = {**AZURE_BENIGN, reason: 1, **more}
    assert json.loads(unknown) == unrecognised_rows(every)
    assert json.loads(benign) == {
        r: n for r, n in every.items() if r not in unrecognised_rows(every)
    }
