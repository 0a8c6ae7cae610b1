"""``gpuprices backfill`` and ``gpuprices export --format csv|parquet`` end to end."""

from __future__ import annotations

import csv

import duckdb
import pytest

from pipelines.cli import main
from tests.conftest import HISTORY
from warehouse.publish import current

DATASETS = ["--dataset", "gpuhunt-h100-h200-mi300x", "--dataset", "gpu-hunt-site"]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    return tmp_path


def test_backfill_imports_and_publishes_then_changes_nothing(home, capsys):
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    out = capsys.readouterr().out
    assert "gpuhunt-h100-h200-mi300x: imported; 25 files" in out
    assert "gpu-hunt-site: imported" in out and "published snapshot" in out
    info = current(home / "published")
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        assert con.execute("select count(*) from imported_daily_prices").fetchone()[0] == 275
        assert con.execute("select count(*) from price_changes").fetchone()[0] > 0
    finally:
        con.close()
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS, "--no-publish"]) == 0
    assert "gpu-hunt-site: unchanged" in capsys.readouterr().out


def test_backfill_rejects_a_missing_folder(home, capsys):
    assert main(["backfill", "--dir", str(home / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_export_writes_parquet_and_csv_from_the_snapshot(home, capsys):
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    info = current(home / "published")
    out = home / "out"
    assert main(["export", "--format", "parquet", "--out", str(out), "--what", "history"]) == 0
    assert (out / "offer_history.parquet").is_file()
    assert not (out / "current_offers.parquet").exists()
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        for table in ("offer_history", "imported_daily_prices", "daily_provider_prices"):
            exported = con.execute(
                "select count(*) from read_parquet(?)", [str(out / f"{table}.parquet")]
            ).fetchone()
            assert exported == con.execute(f"select count(*) from {table}").fetchone()
    finally:
        con.close()
    assert main(["export", "--format", "csv", "--out", str(out), "--what", "current"]) == 0
    with (out / "current_offers.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert {"offer_id", "provider", "price_per_hour_usd"} <= set(header)
    assert "exported current (csv)" in capsys.readouterr().out


def test_export_without_a_snapshot_fails(home, capsys):
    assert main(["export", "--format", "parquet", "--out", str(home / "out")]) == 1
    assert "no snapshot" in capsys.readouterr().err
