"""Price-jump quarantine rules, interrupted-run recovery, and the run-time settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import msgspec
import pytest

from tests.support.seeded import seeded_warehouse
from warehouse.load import commit_scrape, prepare, start_scrape
from warehouse.problems import ProblemCode
from warehouse.quality import (
    PRICE_JUMP_FACTOR_ENV,
    STALE_AFTER_ENV,
    price_jumps,
    quarantine,
    stale_before,
)
from warehouse.records import ScrapedOffer
from warehouse.recovery import INTERRUPTED, recover
from warehouse.settings import SettingError, Settings

T0 = datetime(2026, 1, 9, tzinfo=UTC)
T1 = datetime(2026, 2, 9, tzinfo=UTC)


def offer(instance_type: str, price: str, *, count: int = 8, gpu: str = "NVIDIA H100 SXM") -> dict:
    return {
        "provider": "lambda",
        "instance_type": instance_type,
        "region": "global",
        "gpu_name": gpu,
        "gpu_count": Decimal(count),
        "vram_gb_reported": Decimal(80),
        "vcpus": None,
        "ram_gb": None,
        "storage_gb": None,
        "pricing": "on_demand",
        "reserved_term_months": None,
        "price": Decimal(price),
        "currency": "USD",
        "price_unit": "hour",
        "price_per": "gpu",
        "serverless": False,
        "source_url": "https://lambda.ai/pricing",
        "observed_at": T1,
    }


@pytest.fixture()
def con(tmp_path, seeded_template):
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as c:
        assert start_scrape(
            c,
            scrape_id="s0",
            provider="lambda",
            run_id="r",
            mode="replay",
            source="test",
            fetches=[],
        )
        offers = [offer("8x H100", "2.99"), offer("1x H100", "3.29", count=1)]
        rows, validation = prepare(c, [ScrapedOffer(**o) for o in offers])
        assert validation.ok
        commit_scrape(c, scrape_id="s0", provider="lambda", observed_at=T0, rows=rows)
        yield c


def jumps_for(con, *offers: dict) -> list:
    rows, validation = prepare(con, [ScrapedOffer(**o) for o in offers])
    assert validation.ok
    return price_jumps(con, "lambda", rows, Decimal(10))


def test_ordinary_price_changes_pass(con) -> None:
    assert jumps_for(con, offer("8x H100", "2.49"), offer("1x H100", "9.99", count=1)) == []


@pytest.mark.parametrize(
    ("price", "ratio"), [("29.90", 10), ("299.00", 100), ("0.299", 0.1), ("0.0299", 0.01)]
)
def test_tenfold_moves_either_way_are_jumps(con, price: str, ratio: float) -> None:
    (jump,) = jumps_for(con, offer("8x H100", price), offer("1x H100", "3.29", count=1))
    assert jump.basis == "offer" and jump.instance_type == "8x H100"
    assert float(jump.ratio) == pytest.approx(ratio)
    assert jump.old_price == Decimal("2.99") and jump.old_scrape_id == "s0"


def test_a_new_offer_is_compared_with_its_gpu_median(con) -> None:
    # a listing without a stable id: new offer id, same GPU, priced 100x per GPU-hour
    (jump,) = jumps_for(con, offer("2x H100", "310", count=2))
    assert jump.basis == "gpu_median" and jump.old_currency == "USD"
    assert jump.old_scrape_id is None and float(jump.ratio) > 90
    assert jumps_for(con, offer("2x H100", "3.10", count=2)) == []
    assert jumps_for(con, offer("1x A100", "300", count=1, gpu="NVIDIA A100 SXM4 80GB")) == []


def test_a_providers_first_scrape_has_nothing_to_jump_from(con) -> None:
    other = msgspec.structs.replace(ScrapedOffer(**offer("8x H100", "299")), provider="other")
    rows, _ = prepare(con, [other])
    assert price_jumps(con, "other", rows, Decimal(10)) == []


def test_quarantine_records_old_and_new_values(con) -> None:
    jumps = jumps_for(con, offer("8x H100", "299"))
    problem = quarantine(con, scrape_id="s1", provider="lambda", jumps=jumps, factor=Decimal(10))
    assert problem.code is ProblemCode.PRICE_JUMP
    error = problem.detail
    assert error.startswith("quarantined: 1 offer(s) moved 10x or more")
    assert "8x H100 global on_demand: 23.92 -> 2392 USD/h" in error and "\n" not in error
    row = con.execute(
        "select old_price, new_price, old_price_per_hour_usd, new_price_per_hour_usd, ratio"
        " from quarantined_offers where scrape_id = 's1'"
    ).fetchone()
    assert row == (
        Decimal("2.99"),
        Decimal("299"),
        Decimal("23.92"),
        Decimal("2392"),
        Decimal("100"),
    )


def test_settings_are_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # the settings are read when an entry point builds them (warehouse.settings), and the
    # warehouse takes them as parameters
    monkeypatch.delenv(PRICE_JUMP_FACTOR_ENV, raising=False)
    monkeypatch.delenv(STALE_AFTER_ENV, raising=False)
    s = Settings.load()
    assert s.price_jump_factor == 10 and s.stale_after_hours == 24
    monkeypatch.setenv(PRICE_JUMP_FACTOR_ENV, "50")
    monkeypatch.setenv(STALE_AFTER_ENV, "6")
    s = Settings.load()
    assert s.price_jump_factor == 50 and s.stale_after_hours == 6
    now = datetime(2026, 3, 1, tzinfo=UTC)
    assert stale_before(now, s.stale_after_hours) == now - timedelta(hours=6)
    assert stale_before(now) == now - timedelta(hours=24)  # the default
    for bad in ("1", "0.5", "x", "nan"):
        monkeypatch.setenv(PRICE_JUMP_FACTOR_ENV, bad)
        with pytest.raises(SettingError, match=PRICE_JUMP_FACTOR_ENV):
            Settings.load()
    monkeypatch.delenv(PRICE_JUMP_FACTOR_ENV)
    for bad in ("-1", "soon", "inf"):
        monkeypatch.setenv(STALE_AFTER_ENV, bad)
        with pytest.raises(SettingError, match=STALE_AFTER_ENV):
            Settings.load()


def test_recover_marks_running_scrapes_failed_and_removes_temp_files(con, tmp_path) -> None:
    assert start_scrape(
        con, scrape_id="s2", provider="lambda", run_id="r", mode="live", source="live", fetches=[]
    )
    raw = tmp_path / "raw"
    (raw / "ab").mkdir(parents=True)
    (raw / "ab" / "abcd.gz.tmp4242").write_bytes(b"half a body")
    (raw / "ab" / "abcd.gz").write_bytes(b"kept")
    recovered = recover(con, raw)
    assert recovered.interrupted_scrapes == 1 and recovered.temp_files_removed == 1
    assert [p.name for p in (raw / "ab").iterdir()] == ["abcd.gz"]
    assert con.execute("select status, error from scrapes where scrape_id = 's2'").fetchone() == (
        "failed",
        INTERRUPTED,
    )
