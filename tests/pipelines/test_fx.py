"""FX rates asset: the bundled ECB history is loaded once (then skipped), the live ECB feed is
stored as dated USD rates on top of it; a feed that cannot be read never fails the run;
providers load only after the rates asset."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import dagster as dg
import httpx
import pytest

from pipelines.defs.derived import seeds
from pipelines.defs.fx import FX_KEY, fx_rates, refresh_history, refresh_rates
from pipelines.defs.providers import PROVIDER_ASSETS
from pipelines.defs.resources import GpupricesResource
from scrapers import http
from tests.scrapers.test_ecb import DOC_SHAPED_DAILY
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.load import fx_rate


@pytest.fixture()
def warehouse(tmp_path, seeded_template):
    return seeded_warehouse(seeded_template, tmp_path / "w.duckdb")


def _client(answer) -> httpx.Client:
    return http.make_client(httpx.MockTransport(answer))


def test_live_rates_are_stored_as_usd_per_unit_with_their_date(warehouse):
    with _client(lambda r: httpx.Response(200, text=DOC_SHAPED_DAILY)) as client:
        metadata, line = refresh_rates(warehouse, client)
    assert metadata["live"] and metadata["rate_date"] == "2024-06-28"
    assert "ECB rates of 2024-06-28 stored" in line
    with warehouse.connect() as con:
        rows = con.execute(
            "select currency, usd_per_unit, source from fx_rates"
            " where rate_date = date '2024-06-28' and source = 'ecb' order by currency"
        ).fetchall()
        assert rows == [
            ("EUR", Decimal("1.07050000"), "ecb"),
            ("GBP", Decimal("1.26479832"), "ecb"),  # 1.0705 / 0.84638
            ("JPY", Decimal("0.00622601"), "ecb"),
        ]
        # the loader converts with it (Saturday 2024-06-29 too); seeded rows are untouched
        assert fx_rate(con, "EUR", date(2024, 6, 29)) == (Decimal("1.0705"), date(2024, 6, 28))
        assert (
            con.execute("select count(*) from fx_rates where source like 'seed:%'").fetchone()[0]
            > 0
        )


def test_storing_the_same_day_twice_changes_nothing(warehouse):
    for _ in range(2):
        with _client(lambda r: httpx.Response(200, text=DOC_SHAPED_DAILY)) as client:
            refresh_rates(warehouse, client)
    with warehouse.connect() as con:
        assert con.execute("select count(*) from fx_rates where source = 'ecb'").fetchone()[0] == 3


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (lambda r: httpx.Response(404, text="gone"), "404"),
        (lambda r: httpx.Response(200, text="<html>maintenance</html>"), "not gesmes:Envelope"),
    ],
)
def test_an_unreadable_feed_falls_back_to_the_stored_rates_without_raising(
    warehouse, answer, reason
):
    table = "select count(*), sum(hash(rate_date, currency, usd_per_unit, source)) from fx_rates"
    with warehouse.connect() as con:
        before = con.execute(table).fetchall()
    with _client(answer) as client:
        metadata, line = refresh_rates(warehouse, client)
    assert metadata["live"] is False and reason in metadata["error"]
    assert line.startswith("fx_rates: live ECB rates unavailable") and "ECB history" in line
    with warehouse.connect() as con:
        assert con.execute(table).fetchall() == before


def test_every_provider_loads_after_the_rates():
    for asset in PROVIDER_ASSETS:
        assert FX_KEY in asset.asset_deps[asset.key], asset.key
    assert dg.AssetKey(["seeds"]) in asset.asset_deps[asset.key]


def test_the_history_is_loaded_once_then_skipped(tmp_path):
    warehouse = Warehouse(tmp_path / "fresh.duckdb")  # migrated, not seeded
    first, line = refresh_history(warehouse)
    assert not first["history_skipped"] and first["history_rows_inserted"] > 150_000
    assert "ECB history rates" in line and "1999-01-04" in line
    again, line = refresh_history(warehouse)
    assert again["history_skipped"] and again["history_rows_inserted"] == 0
    assert again["history_source"] == first["history_source"]
    assert line.endswith("already stored")


def test_a_replay_run_converts_at_the_ecb_history_without_fetching(tmp_path):
    replay_dir = tmp_path / "replay"
    replay_dir.mkdir()
    resource = GpupricesResource(home=str(tmp_path / "home"), replay_dir=str(replay_dir))
    result = dg.materialize([seeds, fx_rates], resources={"gpuprices": resource})
    assert result.success
    (event,) = result.asset_materializations_for_node("fx_rates")
    assert event.metadata["live"] == dg.BoolMetadataValue(False)
    with resource.warehouse().connect() as con:
        assert fx_rate(con, "EUR", date(2026, 4, 1)) == (Decimal("1.1605"), date(2026, 4, 1))
