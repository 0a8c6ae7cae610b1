"""Every ```sql block of docs/sql.md returns rows, in a published snapshot and in the warehouse,
both built from the replayed captures plus the imported history datasets."""

from __future__ import annotations

import re
import shutil

import duckdb
import pytest

from tests.conftest import HISTORY, REPO
from warehouse.analysis import VIEW_ORDER, VIEW_TABLES
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.importers import import_all
from warehouse.publish import PUBLISHED_TABLES, publish

DOC = REPO / "docs" / "sql.md"
BLOCKS = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


@pytest.fixture(scope="module")
def files(replayed_home, tmp_path_factory):
    """(warehouse, snapshot) files: a copy of the replayed warehouse plus every dataset."""
    paths, _ = replayed_home
    home = tmp_path_factory.mktemp("sql-examples")
    warehouse = home / "warehouse.duckdb"
    shutil.copyfile(paths.warehouse, warehouse)
    with Warehouse(warehouse).connect() as con:
        import_all(con, HISTORY)
        rebuild(con)
        info = publish(con, home / "published")
    return warehouse, info.path


def test_the_doc_has_at_least_five_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("target", ["snapshot", "warehouse"])
def test_every_example_returns_rows(files, target):
    path = files[1] if target == "snapshot" else files[0]
    con = duckdb.connect(str(path), read_only=True)
    try:
        con.execute("set timezone = 'UTC'")
        for sql in BLOCKS:
            rows = con.execute(sql).fetchall()
            assert rows, f"no rows from:\n{sql}"
    finally:
        con.close()


def test_the_snapshot_holds_every_view_and_the_tables_they_read(files):
    con = duckdb.connect(str(files[1]), read_only=True)
    try:
        tables = {
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_type = 'BASE TABLE'"
            ).fetchall()
        }
        views = {
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_type = 'VIEW'"
            ).fetchall()
        }
        macros = {
            r[0]
            for r in con.execute(
                "select function_name from duckdb_functions() where function_type = 'table_macro'"
            ).fetchall()
        }
    finally:
        con.close()
    assert set(VIEW_TABLES) | set(PUBLISHED_TABLES) <= tables
    assert set(VIEW_ORDER) - {"offers_as_of"} <= views
    assert "offers_as_of" in macros


def test_views_read_the_snapshot_even_when_attached_elsewhere(files, tmp_path):
    # a view bound to the warehouse's tables would fail here: the snapshot is attached under
    # another name, beside an empty database
    con = duckdb.connect(str(tmp_path / "other.duckdb"))
    try:
        con.execute("attach ? as snap (read_only)", [str(files[1])])
        assert con.execute("select count(*) from snap.daily_gpu_prices").fetchone()[0] > 0
    finally:
        con.close()
