"""A first run on a fresh clone, offline and without ``../shared`` (issue 12 §1-2).

Every request fails as it does with no network (``httpx.ConnectError`` from the transport); the
run still ends serving the recorded offers that ship in ``scrapers/recorded/offers.csv``, each
labelled recorded with its capture date and source URL, and says so in one line per provider.
"""

from __future__ import annotations

import csv
import sys
from datetime import UTC, date, datetime

import dagster as dg
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines import cli
from pipelines.run import run_ingest
from scrapers import recorded
from scrapers.registry import PROVIDERS
from tests.conftest import SNAPSHOTS
from tests.support.offline import go_offline
from tests.support.seeded import seeded_warehouse
from warehouse import db as warehouse_db
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import publish

# the file takes about 35 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=35)


@pytest.fixture
def no_network(monkeypatch):
    """Every live request fails as on a machine without network (no token either)."""
    go_offline(monkeypatch)


@pytest.fixture(scope="module")
def shipped_rows() -> list[dict[str, str]]:
    with recorded.PATH.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_shipped_offers_are_what_the_parsers_read_off_the_newest_captures(shipped_rows):
    # derived, never hand-edited; rebuild: `uv run python -m scrapers.recorded ../shared/snapshots`
    assert recorded.render(recorded.build(SNAPSHOTS, PROVIDERS.values())) == recorded.render(
        shipped_rows
    )


def test_every_provider_ships_dated_sourced_facts_and_no_markup(shipped_rows):
    # recorded rows only where a real capture exists (a provider verified by its docs has none)
    captured = {slug for slug, p in PROVIDERS.items() if p.verified == "capture"}
    assert {r["provider"] for r in shipped_rows} == captured
    for row in shipped_rows:
        assert row["source_url"].startswith("https://"), row
        assert date.fromisoformat(row["observed_at"][:10]) <= date(2026, 12, 1)
        assert row["capture"].startswith(f"{row['provider']}/")
        assert not any("<" in cell or "\n" in cell for cell in row.values()), row
    hetzner = [r for r in shipped_rows if r["provider"] == "hetzner"]
    assert {r["currency"] for r in hetzner} == {"EUR"}  # facts stay in the provider's currency


def test_offline_first_run_serves_the_recorded_offers_labelled_with_their_dates(
    tmp_path, no_network, shipped_rows
):
    paths = Paths(tmp_path / "home")
    slugs = ["lambda", "runpod", "hetzner"]
    report = run_ingest(
        paths, replay_dir=None, providers=slugs, instance=dg.DagsterInstance.ephemeral()
    )
    lines = {p.provider: p for p in report.providers}
    detail = lines["lambda"].detail
    assert detail.startswith("live failed: lambda.ai: Temporary failure in name resolution")
    assert detail.endswith(" -> recorded capture 2026-01-09")
    for slug in slugs:
        assert lines[slug].status == "FAILED"
        assert lines[slug].offers == sum(r["provider"] == slug for r in shipped_rows)
    assert report.snapshot_id and report.summary() == (
        "3 providers: 0 live ok, 3 failed, 0 skipped; 0 of 3 providers live"
    )
    assert report.origins["recorded"] == sum(r["provider"] in slugs for r in shipped_rows)

    with TestClient(create_app(paths.published)) as client:
        health = client.get("/health").json()
        assert health["by_origin"]["recorded"]["providers"] == 3
        lambda_ = {"provider": "lambda", "limit": 100, "include_expired": "true"}  # 2026-01-09
        items = client.get("/instances", params=lambda_).json()
        statuses = {p["provider"]: p for p in client.get("/providers").json()["items"]}
    assert {i["data_origin"] for i in items["items"]} == {"recorded"}
    assert {i["observed_at"][:10] for i in items["items"]} == {"2026-01-09"}
    assert all(i["source_url"] == "https://lambda.ai/pricing" for i in items["items"])
    assert statuses["lambda"]["data_origin"] == "recorded"
    assert statuses["lambda"]["last_status"] == "failed"  # the live fetch, not the fallback
    assert statuses["lambda"]["newest_price_age_days"] > 300


def test_first_offline_run_still_answers_and_says_recorded(tmp_path, no_network, shipped_rows):
    """`gpuprices ingest --fallback-replay /nonexistent` on a fresh home, then serve: the shipped
    recorded offers of 2026 are inside the 180 days of a list price, so the default answer is
    not empty, and /health says plainly that the data is recorded, not live. Published again
    at 2026-12-02 so the ages are those of the day the issue was filed."""
    paths = Paths(tmp_path / "home")
    report = run_ingest(paths, replay_dir=None, instance=dg.DagsterInstance.ephemeral())
    assert report.origins["recorded"] == len(shipped_rows)
    at = datetime(2026, 12, 2, tzinfo=UTC)
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con, now=at)
        publish(con, paths.published, now=at)
    with TestClient(create_app(paths.published)) as client:
        health = client.get("/health").json()
        page = client.get("/instances", params={"limit": 1000}).json()
        b200 = client.get("/instances", params={"gpu": "b200", "sort": "price_per_gpu"}).json()
    assert health["data_origin"] == "recorded"
    assert health["notice"].startswith("These prices are recorded, not live")
    captured = [p for p in PROVIDERS.values() if p.verified == "capture"]  # docs: no rows
    scraped = f"all {len(shipped_rows)} scraped offers of {len(captured)} providers"
    assert scraped in health["notice"]
    assert health["expired_offers"] == page["excluded"]["expired"]["count"] > 0
    assert page["total"] > 300 and not any(i["expired"] for i in page["items"])
    assert {i["data_origin"] for i in page["items"]} == {"recorded", "curated"}
    assert {"aws", "gcp", "runpod", "nebius"} <= {i["provider"] for i in page["items"]}
    # DeepInfra's 2026-08-22 B200 at $3.69 / GPU-hour, the cheapest recorded B200
    assert b200["items"][0]["provider"] == "deepinfra" and b200["items"][0]["age_days"] == 102


def test_offline_run_status_says_no_provider_live(
    tmp_path, no_network, shipped_rows, monkeypatch, capsys
):
    """Issue 25: after an offline run every provider failed live and serves its shipped recorded
    offers; nothing may read as a success of the ingest minute ("last success 0 h ago", errors
    "(resolved)", stale: false)."""
    slugs = ["lambda", "runpod", "hetzner"]
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home" / "dagster"))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    args = ["ingest", "--fallback-replay", str(tmp_path / "no-shared")]
    assert cli.main([*args, *(a for s in slugs for a in ("--provider", s))]) == 1
    out = capsys.readouterr().out.splitlines()
    dates = sorted(r["observed_at"][:10] for r in shipped_rows if r["provider"] in slugs)
    banner = f"no provider is live: serving recorded data observed {dates[0]} to {dates[-1]}"
    assert banner == (
        "no provider is live: serving recorded data observed 2026-01-09 to 2026-09-01"
    )
    summary = out.index("3 providers: 0 live ok, 3 failed, 0 skipped; 0 of 3 providers live")
    assert out[summary + 1] == banner

    paths = Paths(tmp_path / "home")
    with TestClient(create_app(paths.published)) as client:
        health = client.get("/health").json()
        statuses = {p["provider"]: p for p in client.get("/providers").json()["items"]}
    assert (health["live_providers"], health["scraped_providers"]) == (0, 3)
    assert health["banner"] == banner
    for slug in slugs:
        status = statuses[slug]
        assert status["last_status"] == "failed" and status["last_success_at"] is None
        assert status["last_recorded_load_at"] is not None  # the shipped offers, loaded
        assert status["last_failure_at"] is not None and status["live"] is False
    # Lambda's recorded prices (2026-01-09) are past 180 days by December 2026
    as_of = datetime.fromisoformat(health["as_of"])
    assert statuses["lambda"]["stale"] is (as_of >= datetime(2026, 7, 8, tzinfo=UTC))

    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["status", "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0] == banner
    assert table.splitlines()[1].startswith("0 of 3 providers live")
    assert "(resolved)" not in table
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()}
    for slug in slugs:  # last run, last live: never "0 h ago"
        assert rows[slug][1] == "failed" and rows[slug][4] == "never", rows[slug]
    assert "lambda: fetch failed: GET https://lambda.ai/pricing" in " ".join(table.split())


def test_a_second_offline_run_loads_nothing_new(tmp_path, no_network):
    paths = Paths(tmp_path / "home")
    for _ in range(2):
        report = run_ingest(
            paths, replay_dir=None, providers=["vultr"], instance=dg.DagsterInstance.ephemeral()
        )
    [line] = report.providers
    # 7 listed, not offered; GH200 in ewr, atl and man
    assert line.status == "FAILED" and line.offers == 22
    assert "-> last good data (observed 2026-04-01)" in line.detail


def test_the_main_job_command_without_captures_beside_it(tmp_path, no_network, monkeypatch, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home" / "dagster"))  # the CLI sets it
    code = cli.main(
        ["ingest", "--fallback-replay", str(tmp_path / "no-shared"), "--provider", "vultr"]
    )
    out, err = capsys.readouterr()
    assert code == cli.EXIT_PROVIDER_FAILED  # published, but a provider failed live
    assert "note: no captures at" in err
    assert out.splitlines()[0].startswith("vultr   22  live failed: api.vultr.com:")
    assert "1 providers: 0 live ok, 1 failed, 0 skipped" in out
    assert "published snapshot" in out and "22 recorded" in out


def test_recorded_fallback_can_be_turned_off(tmp_path, no_network):
    paths = Paths(tmp_path / "home")
    report = run_ingest(
        paths,
        replay_dir=None,
        providers=["vultr"],
        recorded_fallback=False,
        instance=dg.DagsterInstance.ephemeral(),
    )
    [line] = report.providers
    assert line.offers == 0 and line.detail.endswith("-> no data")


def _in_provider_step() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "_asset" and frame.f_code.co_filename.endswith("providers.py"):
            return True
        frame = frame.f_back
    return False


def test_a_live_provider_step_opens_the_warehouse_once(
    tmp_path, no_network, monkeypatch, seeded_template
):
    """Once its fetch is done (prefetched), a live provider step waits on no network: its load,
    fallback and retention share one DuckDB connection (docs/performance.md), where each stage
    opened and checkpointed the file (three opens a provider)."""
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    opens: list[str] = []
    connect = warehouse_db.duckdb.connect

    def counted(database, *args, **kwargs):
        if _in_provider_step():
            opens.append(str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(warehouse_db.duckdb, "connect", counted)
    slugs = ["vultr", "hetzner"]  # both fail live and load their recorded offers
    report = run_ingest(
        paths, replay_dir=None, providers=slugs, instance=dg.DagsterInstance.ephemeral()
    )
    assert [p.offers > 0 for p in report.providers] == [True, True]
    assert opens == [str(paths.warehouse)] * len(slugs)
