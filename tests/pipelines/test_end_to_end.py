"""Replay the real captures through the Dagster jobs into a temporary GPUPRICES_HOME, then
query the API the way a client would."""

from __future__ import annotations

import shutil

import dagster as dg
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.run import run_ingest
from scrapers.registry import PROVIDERS
from tests.conftest import SNAPSHOTS
from warehouse.db import Warehouse
from warehouse.paths import Paths


@pytest.fixture(scope="module")
def replayed(tmp_path_factory, replayed_home):
    """A private copy of the session's replayed home (these tests ingest into it again)."""
    paths = Paths(tmp_path_factory.mktemp("home") / "h")
    shutil.copytree(replayed_home[0].home, paths.home)
    return paths, replayed_home[1]


def test_replay_ingest_succeeds_for_every_provider(replayed):
    _, report = replayed
    failed = [line for line in report.lines() if "FAILED" in line]
    assert failed == []
    assert report.ok and report.snapshot_id
    # a provider verified by its docs has no capture to replay: left out of the replay
    captured = {slug for slug, p in PROVIDERS.items() if p.verified == "capture"}
    assert {p.provider for p in report.providers} == captured


def test_instances_min_vram_fp8(replayed):
    paths, _ = replayed
    with TestClient(create_app(paths.published)) as client:
        # include_expired: Lambda's 2026-01 list price is past its 180 days in December 2026
        every = {"min_vram": 80, "fp8": "true", "limit": 1000, "include_expired": "true"}
        response = client.get("/instances", params=every)
        assert response.status_code == 200
        body = response.json()
    assert body["total"] == len(body["items"]) > 0
    for item in body["items"]:
        assert item["fp8"] is True
        assert item["vram_gb_per_gpu"] >= 80
        assert isinstance(item["price_per_hour_usd"], float | int)
    lambda_h100 = [
        i
        for i in body["items"]
        if i["provider"] == "lambda" and i["gpu_id"] == "h100-sxm" and i["gpu_count"] == 8
    ]
    assert lambda_h100, "Lambda's 8x H100 SXM is served"
    assert lambda_h100[0]["price_per_gpu_hour_usd"] == 2.99
    assert lambda_h100[0]["price_per_hour_usd"] == pytest.approx(23.92)


def test_replay_builds_history_in_capture_order(replayed):
    paths, _ = replayed
    with Warehouse(paths.warehouse).connect() as con:
        observed = [
            r[0]
            for r in con.execute(
                "select observed_at from scrapes where provider = 'runpod' and status = 'success'"
                " order by started_at"
            ).fetchall()
        ]
        assert observed == sorted(observed) and len(observed) >= 5
        years = {
            r[0]
            for r in con.execute(
                "select distinct year(valid_from) from offer_history where provider = 'runpod'"
            ).fetchall()
        }
    assert {2023, 2025, 2026} <= years


def test_rerunning_the_same_replay_changes_nothing(replayed, tmp_path):
    paths, _ = replayed
    with Warehouse(paths.warehouse).connect() as con:
        before = con.execute("select count(*) from offer_history").fetchone()[0]
        observations = con.execute("select count(*) from observations").fetchone()[0]
    report = run_ingest(
        paths,
        replay_dir=SNAPSHOTS,
        providers=["lambda", "runpod"],
        instance=dg.DagsterInstance.ephemeral(),
    )
    assert report.ok
    with Warehouse(paths.warehouse).connect() as con:
        assert con.execute("select count(*) from offer_history").fetchone()[0] == before
        assert con.execute("select count(*) from observations").fetchone()[0] == observations


def test_layout_change_fails_one_provider_and_keeps_its_last_good_data(replayed, tmp_path):
    paths, _ = replayed
    broken = tmp_path / "replay"
    (broken / "lambda").mkdir(parents=True)
    (broken / "aws").mkdir()
    # a newer lambda "capture" whose page lost its pricing table
    (broken / "lambda" / "2026-11-01_pricing.html").write_text(
        "<html><body><h1>Pricing</h1></body></html>"
    )
    src = next((SNAPSHOTS / "aws").iterdir())
    shutil.copy(src, broken / "aws" / ("2026-11-01_" + src.name.split("_", 1)[1]))
    with TestClient(create_app(paths.published, reload_interval_s=0)) as client:
        before = client.get("/instances", params={"provider": "lambda", "limit": 1000}).json()
    report = run_ingest(
        paths,
        replay_dir=broken,
        providers=["lambda", "aws"],
        instance=dg.DagsterInstance.ephemeral(),
    )
    lines = {p.provider: p for p in report.providers}
    assert lines["lambda"].status == "FAILED"
    assert lines["lambda"].detail.startswith("replay failed: parse: ")
    assert lines["lambda"].detail.endswith("-> last good data (observed 2026-01-09)")
    assert lines["aws"].status == "ok"
    assert not report.ok and report.snapshot_id
    with TestClient(create_app(paths.published, reload_interval_s=0)) as client:
        after = client.get("/instances", params={"provider": "lambda", "limit": 1000}).json()
        providers = client.get("/providers").json()["items"]
    assert after["as_of"] != before["as_of"]
    assert [i["id"] for i in after["items"]] == [i["id"] for i in before["items"]]
    status = next(p for p in providers if p["provider"] == "lambda")
    assert status["last_status"] == "failed" and "parse failed" in status["last_error"]


def test_parsed_outputs_are_never_replayed(replayed):
    paths, _ = replayed
    with Warehouse(paths.warehouse).connect() as con:
        sources = [r[0] for r in con.execute("select source from scrapes").fetchall()]
    assert sources and not any(
        "parsed" in s or "processed" in s or "gpu-stats" in s for s in sources
    )
