"""History across gaps (issue 21): partial captures close nothing they do not list, a change
across a gap is a change, the unobserved span is explicit, and pct_change compares comparable
prices. Figures are read off the real captures in ../shared/snapshots (PROVENANCE.md says which
are excerpts) and off small scrapes whose history is known exactly."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import duckdb
import pytest

from pipelines.ingest import scrape_provider
from scrapers.registry import PROVIDERS
from scrapers.replay import discover, partial_captures
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from tests.warehouse.test_load import T0, T1, T2, offer, scrape
from warehouse.analysis import create_views
from warehouse.history import apply_scrape_history
from warehouse.load import commit_scrape, prepare, start_scrape
from warehouse.paths import Paths
from warehouse.records import ScrapedOffer

RUNPOD_H100 = "1x NVIDIA H100 80GB HBM3"  # RunPod's GraphQL name of its H100 SXM
LAMBDA_8X_H100 = "8x NVIDIA H100 SXM (80 GB)"
LAMBDA_8X_V100 = "8x NVIDIA Tesla V100 (16 GB)"


@pytest.fixture(scope="module")
def replay(replayed_home):
    paths, _ = replayed_home
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    con.execute("set timezone = 'UTC'")
    yield con
    con.close()


def _rows(con, sql: str, params: list | None = None) -> list[dict]:
    result = con.execute(sql, params or [])
    names = [d[0] for d in result.description]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- coverage of a capture ------------------------------------------------------------------


def test_provenance_marks_excerpts_and_subsets_as_partial():
    partial = partial_captures(SNAPSHOTS)
    assert partial["runpod/2025-09-09_wayback_pricing_excerpt.html"] == "PROVENANCE: EXCERPT"
    assert partial["hetzner/2026-04-01T18_server-auction_live_data_sb_EUR_items.json"] == (
        "PROVENANCE: PARTIAL"
    )
    assert partial["azure/c2026-10_retail_prices_api_gpu_items_sample.json"] == (
        "PROVENANCE: SAMPLE"
    )
    assert partial["oracle/2026-10-01_oci_products_api_gpu_items.json"] == "PROVENANCE: FILTERED"
    # "FULL response body" and "full data.gpuTypes array" are full captures
    runpod = {c.path.name: c.partial_reason for c in discover(SNAPSHOTS, ["runpod"])["runpod"]}
    assert runpod["2025-06-19T1914Z_graphql_gpuTypes.json"] is None
    assert runpod["c2026-09_graphql_gpuTypes_response.json"] is None


def test_replayed_scrapes_store_their_coverage(replay):
    rows = _rows(
        replay,
        "select source, coverage, coverage_reason from scrapes"
        " where provider = 'runpod' and status = 'success' order by observed_at",
    )
    coverage = {r["source"].split("/")[1]: (r["coverage"], r["coverage_reason"]) for r in rows}
    assert coverage["2025-06-19T1914Z_graphql_gpuTypes.json"] == ("full", None)
    assert coverage["2025-09-09_wayback_pricing_excerpt.html"] == (
        "partial",
        "PROVENANCE: EXCERPT",
    )
    assert coverage["2026-03-31T22_graphql_gpuTypes_items.json"] == (
        "partial",
        "PROVENANCE: PARTIAL",
    )
    assert coverage["c2026-09_graphql_gpuTypes_response.json"] == ("full", None)


@pytest.fixture(scope="module")
def runpod_around_an_excerpt(tmp_path_factory):
    """runpod's last full 2025 capture, the 2025-09-09 excerpt, then its c2026-09 full capture,
    replayed one step at a time into a fresh home (the capture files are linked, not copied)."""
    names = [
        "2025-06-19T1914Z_graphql_gpuTypes.json",
        "2025-09-09_wayback_pricing_excerpt.html",
        "c2026-09_graphql_gpuTypes_response.json",
    ]
    home = tmp_path_factory.mktemp("runpod-excerpt")
    paths = Paths(home / "home")
    states = []
    for step in range(1, len(names) + 1):
        replay_dir = home / f"replay-{step}"
        (replay_dir / "runpod").mkdir(parents=True)
        (replay_dir / "PROVENANCE.md").symlink_to(SNAPSHOTS / "PROVENANCE.md")
        for name in names[:step]:
            (replay_dir / "runpod" / name).symlink_to(SNAPSHOTS / "runpod" / name)
        outcomes = scrape_provider(PROVIDERS["runpod"], paths=paths, replay_dir=replay_dir)
        assert outcomes[-1].status.value in {"success", "unchanged"}, outcomes[-1].error
        con = duckdb.connect(str(paths.warehouse), read_only=True)
        try:
            states.append(
                _rows(
                    con,
                    "select offer_id, instance_type, pricing, valid_from, valid_to,"
                    " last_seen_at, price from offer_history order by offer_id, valid_from",
                )
            )
        finally:
            con.close()
    return states


def test_partial_capture_never_closes_unlisted_offers(runpod_around_an_excerpt):
    full, after_excerpt, after_next_full = runpod_around_an_excerpt
    june = _at("2025-06-19 19:14")
    open_in_june = {r["offer_id"]: r for r in full if r["valid_to"] is None}
    assert len(open_in_june) == 171
    # the excerpt lists 10 offers under the web page's names (the API's products: one id per
    # product key); those it lists change or stay, and none of the others is closed
    sept = _at("2025-09-09 00:00")
    listed = {r["offer_id"] for r in after_excerpt if sept in (r["valid_from"], r["last_seen_at"])}
    assert len(listed) == 10
    # 5 of them at a new price (a new interval), 5 seen unchanged (last seen in September)
    assert len([r for r in after_excerpt if r["valid_from"] == sept]) == 5
    by_id = {(r["offer_id"], r["valid_from"]): r for r in after_excerpt}
    unlisted = {oid: row for oid, row in open_in_june.items() if oid not in listed}
    assert len(unlisted) >= 161
    for oid, row in unlisted.items():
        kept = by_id[(oid, row["valid_from"])]
        assert kept["valid_to"] is None, kept
        assert kept["last_seen_at"] == june  # and not confirmed by a capture that did not list it
    # the next full capture closes what it no longer lists, at its own time
    closed = [
        r
        for r in after_next_full
        if r["offer_id"] in unlisted and r["valid_to"] == _at("2026-09-01 00:00")
    ]
    assert closed and all(r["last_seen_at"] == june for r in closed)


def test_runpod_secure_h100_change_seen_across_partial_capture(replay):
    [change] = _rows(
        replay,
        "select * from price_changes where provider = 'runpod' and instance_type = ?"
        " and cloud_tier = 'secure' and pricing = 'on_demand' and changed_at >= '2026-01-01'",
        [RUNPOD_H100],
    )
    # the web page of 2026-08-10 (an excerpt) listed it at 2.99; the API's list of September 3.49
    assert (change["old_price"], change["new_price"]) == (Decimal("2.99"), Decimal("3.49"))
    assert change["changed_at"] == _at("2026-09-01 00:00")
    assert change["old_last_seen_at"] == _at("2026-08-10 00:00")
    assert change["gap_days"] == pytest.approx(22.0, abs=0.01)
    assert change["pct_change"] == pytest.approx(16.72)
    assert change["pct_change_basis"] == "price"


def test_runpod_h200_and_h100_pcie_2026_changes_are_seen(replay):
    # secure on-demand, read off the captures: H200 3.79 (2025-09 page) -> 4.39 (2026-08 page)
    # -> 4.59 (API, September); H100 PCIe 2.39 -> 2.89 (2026-08 page), still 2.89 in September
    rows = _rows(
        replay,
        "select gpu_id, changed_at::date as day, old_price, new_price from price_changes"
        " where provider = 'runpod' and cloud_tier = 'secure' and pricing = 'on_demand'"
        " and changed_at >= '2026-01-01' and gpu_id in ('h200', 'h100-pcie') order by 1, 2",
    )
    assert [(r["gpu_id"], str(r["day"]), r["old_price"], r["new_price"]) for r in rows] == [
        ("h100-pcie", "2026-08-10", Decimal("2.39"), Decimal("2.89")),
        ("h200", "2026-08-10", Decimal("3.79"), Decimal("4.39")),
        ("h200", "2026-09-01", Decimal("4.39"), Decimal("4.59")),
    ]


def test_the_unobserved_span_is_no_data_not_the_old_price(replay):
    rows = _rows(
        replay,
        "select valid_from, valid_to, last_seen_at, no_data_from, no_data_until, no_data_days,"
        " price from offer_intervals where provider = 'runpod' and gpu_id = 'h100-sxm'"
        " and cloud_tier = 'secure' and pricing = 'on_demand' and source = 'scrape'"
        " order by valid_from",
    )
    assert [r["price"] for r in rows] == [
        Decimal(p) for p in ("4.49", "2.99", "2.69", "2.99", "3.49")
    ]
    mid = rows[1]  # 2.99 from the API's June 2025 lists, last seen in the newest of them
    assert mid["last_seen_at"] == mid["no_data_from"] == _at("2025-06-19 19:14")
    assert mid["no_data_until"] == rows[2]["valid_from"] == _at("2025-09-09 00:00")
    assert mid["no_data_days"] == pytest.approx(81.2, abs=0.01)
    assert rows[-1]["valid_to"] is None and rows[-1]["no_data_from"] is None


# --- comparable prices ----------------------------------------------------------------------


def _lambda_change(replay, instance_type: str) -> dict:
    [change] = _rows(
        replay,
        "select * from price_changes where provider = 'lambda' and instance_type = ?",
        [instance_type],
    )
    return change


def test_lambda_8x_h100_pct_change_per_gpu_hour_not_per_instance(replay):
    # 2023 page: 20.72 per instance-hour (2.59 per GPU-hour); 2024 page: 2.99 per GPU-hour
    change = _lambda_change(replay, LAMBDA_8X_H100)
    assert (change["old_price_per"], change["new_price_per"]) == ("instance", "gpu")
    assert change["pct_change_basis"] == "price_per_gpu_hour"
    assert change["old_price_per_gpu_hour"] == Decimal("2.59")
    assert change["new_price_per_gpu_hour"] == Decimal("2.99")
    assert change["pct_change"] == pytest.approx(15.44)
    assert change["pct_change_usd"] == pytest.approx(15.44)


def test_8x_v100_no_change_reads_zero(replay):
    change = _lambda_change(replay, LAMBDA_8X_V100)  # 4.40 per instance-hour = 0.55 per GPU-hour
    assert (change["old_price"], change["new_price"]) == (Decimal("4.4"), Decimal("0.55"))
    assert change["pct_change"] == 0
    assert change["pct_change_usd"] == 0


def test_no_pct_change_disagrees_with_the_per_gpu_hour_change_beyond_fx_drift(replay):
    rows = _rows(replay, "select * from price_changes")
    assert len(rows) > 100
    for r in rows:
        old_usd = float(r["old_price_per_gpu_hour_usd"])
        new_usd = float(r["new_price_per_gpu_hour_usd"])
        usd = new_usd / old_usd
        assert float(r["pct_change_usd"]) == pytest.approx(100 * (usd - 1), abs=0.006), r
        if r["pct_change_basis"] == "usd_per_gpu_hour":
            assert r["pct_change"] == r["pct_change_usd"], r
            continue
        old_native = float(r["old_price_per_gpu_hour"])
        new_native = float(r["new_price_per_gpu_hour"])
        native = new_native / old_native
        # the native change is the per-GPU-hour change (rounding of 6-decimal prices aside) ...
        assert float(r["pct_change"]) == pytest.approx(100 * (native - 1), abs=0.01), r
        # ... and differs from the USD one only by the exchange-rate move between the two
        # intervals: none for a USD price, a few percent at most for another currency
        drift = (new_usd / new_native) / (old_usd / old_native)
        if r["currency"] == r["old_currency"] == "USD":
            assert drift == pytest.approx(1, rel=1e-4), r
        else:
            assert 0.8 < drift < 1.25, r
        if r["currency"] == "USD":
            assert r["pct_change"] == pytest.approx(r["pct_change_usd"], abs=0.01), r


# --- last_seen_at on known scrapes ---------------------------------------------------------


@pytest.fixture()
def con(tmp_path, seeded_template):
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as c:
        yield c


def _history(con) -> list[tuple]:
    return con.execute(
        "select offer_id, valid_from, valid_to, last_seen_at, price, price_unit, price_per,"
        " price_per_hour from offer_history order by offer_id, valid_from"
    ).fetchall()


def test_last_seen_advances_on_unchanged_scrapes_and_reapplying_writes_nothing(con):
    scrape(con, "s0", T0, [offer("8x H100", "2.99", when=T0)])
    first = scrape(con, "s1", T1, [offer("8x H100", "2.99", when=T1)])
    none_announced = {"announced": 0, "withdrawn": 0, "announced_confirmed": 0}
    assert first == {"opened": 0, "closed": 0, "confirmed": 1, "out_of_order": 0, **none_announced}
    [(_, valid_from, valid_to, last_seen, price, unit, per, hourly)] = _history(con)
    assert (valid_from, valid_to, last_seen) == (T0, None, T1)
    assert (price, unit, per, hourly) == (Decimal("2.99"), "hour", "gpu", Decimal("23.92"))
    before = _history(con)
    again = apply_scrape_history(con, scrape_id="s1", provider="lambda", observed_at=T1)
    assert again == {"opened": 0, "closed": 0, "confirmed": 0, "out_of_order": 0, **none_announced}
    assert _history(con) == before


def test_a_partial_scrape_opens_and_changes_but_closes_nothing(con):
    scrape(con, "s0", T0, [offer("8x H100", "2.99"), offer("1x H100", "3.29", count=1)])
    assert start_scrape(
        con, scrape_id="s1", provider="lambda", run_id="r", mode="replay", source="t", fetches=[]
    )
    rows, _ = prepare(
        con,
        [
            ScrapedOffer(**offer("8x H100", "3.49", when=T1)),
            ScrapedOffer(**offer("2x H100", "3.19", count=2, when=T1)),
        ],
    )
    changes = commit_scrape(
        con,
        scrape_id="s1",
        provider="lambda",
        observed_at=T1,
        rows=rows,
        partial_reason="PROVENANCE: EXCERPT",
    )
    assert changes["opened"] == 2 and changes["closed"] == 1
    assert con.execute(
        "select coverage, coverage_reason from scrapes where scrape_id = 's1'"
    ).fetchall() == [("partial", "PROVENANCE: EXCERPT")]
    open_rows = con.execute(
        "select instance_type, price, last_seen_at from offer_history where valid_to is null"
        " order by instance_type"
    ).fetchall()
    assert open_rows == [
        ("1x H100", Decimal("3.29"), T0),  # not listed by the partial scrape: open, not confirmed
        ("2x H100", Decimal("3.19"), T1),
        ("8x H100", Decimal("3.49"), T1),
    ]
    # a full scrape later closes the offer it does not list
    closed = scrape(con, "s2", T2, [offer("8x H100", "3.49", when=T2)])
    assert closed["closed"] == 2


def test_a_eur_cut_stays_a_cut_whatever_the_exchange_rate_did(con):
    # the same monthly EUR offer, 100 -> 95 EUR: -5 % whatever USD per EUR did in between
    con.execute(
        "insert into fx_rates (currency, rate_date, usd_per_unit, source) values"
        " ('EUR', '2026-01-09', 1.00, 'test'), ('EUR', '2026-02-09', 1.20, 'test')"
        " on conflict do update set usd_per_unit = excluded.usd_per_unit"
    )
    eur = {"provider": "lambda", "currency": "EUR", "unit": "month", "per": "instance", "count": 1}
    scrape(con, "s0", T0, [offer("1x H100", "100", when=T0, **eur)])
    scrape(con, "s1", T1, [offer("1x H100", "95", when=T1, **eur)])
    create_views(con)
    [(pct, pct_usd, basis)] = con.execute(
        "select pct_change, pct_change_usd, pct_change_basis from price_changes"
    ).fetchall()
    assert (pct, basis) == (-5.0, "price")
    assert pct_usd == pytest.approx(14.0, abs=0.01)  # 0.95 * 1.2 = 1.14


def test_a_live_scrape_with_skipped_parts_is_partial_and_keeps_the_rest_open(con):
    scrape(con, "s0", T0, [offer("8x H100", "2.99"), offer("1x H100", "3.29", count=1)])
    assert start_scrape(
        con, scrape_id="s1", provider="lambda", run_id="r", mode="live", source="live", fetches=[]
    )
    rows, _ = prepare(con, [ScrapedOffer(**offer("8x H100", "2.99", when=T1))])
    commit_scrape(
        con,
        scrape_id="s1",
        provider="lambda",
        observed_at=T1,
        rows=rows,
        skipped_parts={"region us-east-2": "timed out"},
    )
    assert con.execute(
        "select coverage, coverage_reason from scrapes where scrape_id = 's1'"
    ).fetchall() == [("partial", "skipped parts: region us-east-2")]
    assert con.execute(
        "select instance_type, valid_to, last_seen_at from offer_history order by 1"
    ).fetchall() == [("1x H100", None, T0), ("8x H100", None, T1)]


def test_an_undescribed_excerpt_is_partial_by_its_name(tmp_path):
    # a capture of another date that PROVENANCE.md does not (yet) describe: its name says it is
    # an excerpt, so it must not close the offers it does not list; a described file keeps the
    # reason PROVENANCE gives, and an undescribed one without such a word is full
    folder = tmp_path / "runpod"
    folder.mkdir()
    for name in (
        "2025-09-09_wayback_pricing_excerpt.html",
        "2025-06-19T1914Z_graphql_gpuTypes.json",
    ):
        (folder / name).symlink_to(SNAPSHOTS / "runpod" / name)
    (folder / "2025-11-02_wayback_pricing_excerpt.html").symlink_to(
        SNAPSHOTS / "runpod" / "2025-09-09_wayback_pricing_excerpt.html"
    )
    (tmp_path / "PROVENANCE.md").write_text(
        "## runpod\n\n### `runpod/2025-06-19T1914Z_graphql_gpuTypes.json`\n\n"
        "- completeness: FULL response body\n",
        encoding="utf-8",
    )
    found = {c.path.name: c.partial_reason for c in discover(tmp_path)["runpod"]}
    assert found == {
        "2025-06-19T1914Z_graphql_gpuTypes.json": None,
        "2025-09-09_wayback_pricing_excerpt.html": "file name: EXCERPT",
        "2025-11-02_wayback_pricing_excerpt.html": "file name: EXCERPT",
    }
