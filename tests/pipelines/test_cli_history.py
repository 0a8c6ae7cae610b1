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
        assert con.execute("select count(*) from imported_daily_prices").fetchone() == (275,)
        assert (con.execute("select count(*) from price_changes").fetchone() or (0,))[0] > 0
    finally:
        con.close()
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS, "--no-publish"]) == 0
    assert "gpu-hunt-site: unchanged" in capsys.readouterr().out


def test_a_rerun_with_unchanged_files_publishes_no_snapshot(home, capsys):
    # issue 12 point 8: a re-run printed "unchanged" and "wrote 275 rows" in one line, and
    # published a new snapshot although nothing had changed
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    capsys.readouterr()
    first = current(home / "published")
    assert first is not None
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line in lines[:2]:
        assert ": unchanged (" in line and "wrote nothing" in line
        assert "; wrote 2" not in line and "; wrote 6" not in line
    assert "the warehouse keeps that import's 275 imported_daily_prices rows" in lines[0]
    assert lines[2] == (
        f"nothing changed: snapshot {first.snapshot_id} already holds these imports;"
        " no new snapshot published"
    )
    assert current(home / "published") == first
    assert [p.name for p in (home / "published").glob("snapshot-*.duckdb")] == [first.path.name]


def test_a_rerun_publishes_when_the_snapshot_lacks_the_imports(home, capsys):
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS, "--no-publish"]) == 0
    assert "not published (--no-publish)" in capsys.readouterr().out
    assert current(home / "published") is None
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    out = capsys.readouterr().out
    assert "nothing imported, but the current snapshot did not hold these imports" in out
    assert current(home / "published") is not None


def test_backfill_counts_every_row_once_and_h100_family_rows_reach_the_snapshot(home, capsys):
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    out = capsys.readouterr().out
    assert (
        "14074 rows read: 774 to a GPU model, 13300 to a GPU family only (h100 x12512, a100 x788;"
        " gpu_id null, gpu_family set), 0 unresolved, 0 excluded; wrote 275 imported_daily_prices"
        " rows" in out
    )
    # 1968 + 351 + 59 + 9886 = 12264
    assert "12264 rows read: 1968 to a GPU model, 351 to a GPU family only" in out
    assert "59 unresolved" in out and "9886 excluded" in out
    info = current(home / "published")
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        # a user asking for H100 history: gpuhunt's catalog rows, labelled family-level
        assert con.execute(
            "select sum(offer_count), count(gpu_id), count(distinct provider)"
            " from imported_daily_prices where gpu_family = 'h100'"
        ).fetchone() == (12512, 0, 11)
        # and gpu-hunt.com's H100 servers of unknown variant, per GPU-hour
        assert con.execute(
            "select count(distinct offer_id), count(gpu_id) from daily_offer_prices"
            " where gpu_family = 'h100'"
        ).fetchone() == (9, 0)
    finally:
        con.close()


def test_backfill_rejects_a_missing_folder(home, capsys):
    assert main(["backfill", "--dir", str(home / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_export_writes_parquet_and_csv_from_the_snapshot(home, capsys):
    assert main(["backfill", "--dir", str(HISTORY), *DATASETS]) == 0
    info = current(home / "published")
    assert info is not None
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
