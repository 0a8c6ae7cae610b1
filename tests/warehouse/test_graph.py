"""The build graph read from the .sql headers (warehouse.graph): every object is built and
published as its header says, a new .sql file reaches the snapshot with no other edit, and a
bad header is one line naming its file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from warehouse import graph as graph_module
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.graph import SQL_DIRS, VIEW_KINDS, GraphError, graph, load
from warehouse.publish import current, load_into_memory, publish

MACRO_TYPES = {"macro": "macro", "table macro": "table_macro"}


def _catalog(con: duckdb.DuckDBPyConnection) -> tuple[set[str], set[str], set[tuple[str, str]]]:
    """(base tables, views, (macro, type)) of the connection's default database."""
    tables = {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables"
            " where table_type = 'BASE TABLE' and table_schema = 'main'"
            " and table_catalog = current_database()"
        ).fetchall()
    }
    views = {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables"
            " where table_type = 'VIEW' and table_catalog = current_database()"
        ).fetchall()
    }
    macros = {
        (r[0], r[1])
        for r in con.execute(
            "select function_name, function_type from duckdb_functions()"
            " where function_type in ('table_macro', 'macro') and not internal"
            " and database_name = current_database()"
        ).fetchall()
    }
    return tables, views, macros


def _expected(objects) -> tuple[set[str], set[str], set[tuple[str, str]]]:
    objects = list(objects)
    return (
        {o.name for o in objects if o.is_table},
        {o.name for o in objects if o.kind == "view"},
        {(o.name, MACRO_TYPES[o.kind]) for o in objects if o.kind in MACRO_TYPES},
    )


def test_every_sql_object_is_built_as_its_header_says(replayed_home):
    paths, _ = replayed_home
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        tables, views, macros = _catalog(con)
    finally:
        con.close()
    want_tables, want_views, want_macros = _expected(graph())
    assert want_tables <= tables
    assert want_views == views
    assert want_macros <= macros


def test_the_snapshot_carries_the_published_objects_and_nothing_else(replayed_home):
    """The published objects are in the snapshot (tables copied, views and macros created in
    it); unpublished ones (the scrape log, raw observations, the places seeds) are not."""
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    published = [o for o in graph() if o.published]
    want_tables, want_views, want_macros = _expected(published)
    unpublished = {o.name for o in graph() if not o.published}
    assert {"scrapes", "observations", "regions"} <= unpublished
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        assert _catalog(con) == (want_tables | {"snapshot_meta"}, want_views, want_macros)
    finally:
        con.close()
    served = load_into_memory(info)
    try:
        tables, views, macros = _catalog(served)
    finally:
        served.close()
    assert (tables, views) == (want_tables | {"snapshot_meta"}, want_views)
    assert want_macros <= macros


def test_every_header_lists_the_objects_its_sql_reads():
    """Each object its SQL reads (``from``/``join`` a name, or calls it: a macro) is in its
    ``Depends on:``, so the build order and the snapshot's tables follow from the headers."""
    names = set(graph().objects)
    for obj in graph():
        body = "\n".join(line.split("--")[0] for line in obj.sql.splitlines())
        read = set(re.findall(r"\b(?:from|join)\s+([a-z_][a-z0-9_]*)", body))
        read |= set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", body))
        ctes = set(re.findall(r"\b([a-z_][a-z0-9_]*)\s+as\s*\(", body))  # `with x as (`
        missing = (read & names) - ctes - {obj.name} - set(obj.depends_on)
        assert not missing, f"{obj.label} reads {sorted(missing)}"


NEW_MODEL = """-- gpu_offer_counts: how many current offers each GPU model has.
-- Kind: model
-- Grain: one row per gpu_id of current_offers.
-- Depends on: current_offers.
-- Published: yes
create or replace table gpu_offer_counts as
select gpu_id, count(*) as offer_count from current_offers group by gpu_id
"""
NEW_VIEW = """-- busiest_gpus: the GPU models with the most current offers, most first.
-- Kind: view
-- Grain: one row per gpu_id.
-- Depends on: gpu_offer_counts.
-- Published: yes
create or replace view busiest_gpus as
select * from gpu_offer_counts order by offer_count desc, gpu_id
"""


def test_a_new_model_file_reaches_the_published_snapshot_with_no_other_edit(
    replayed_home, tmp_path, monkeypatch
):
    """Issue 23: a model added by the recipe was built (63 rows) but never reached the snapshot,
    which copied a hand-kept list of tables. Now the file's header is the whole recipe."""
    paths, _ = replayed_home
    extra = tmp_path / "models"
    extra.mkdir()
    (extra / "gpu_offer_counts.sql").write_text(NEW_MODEL, encoding="utf-8")
    (extra / "busiest_gpus.sql").write_text(NEW_VIEW, encoding="utf-8")
    monkeypatch.setattr(graph_module, "SQL_DIRS", (*SQL_DIRS, extra))
    warehouse = tmp_path / "warehouse.duckdb"
    shutil.copyfile(paths.warehouse, warehouse)
    with Warehouse(warehouse).connect() as con:
        counts = rebuild(con)
        gpus = con.execute("select count(*) from (select distinct gpu_id from current_offers)")
        gpus = gpus.fetchone()
        info = publish(con, tmp_path / "published")
    assert gpus is not None
    assert counts["gpu_offer_counts"] == gpus[0] > 0
    snap = duckdb.connect(str(info.path), read_only=True)
    try:
        rows = snap.execute("select count(*), sum(offer_count) from gpu_offer_counts").fetchone()
        offers = snap.execute("select count(*) from current_offers").fetchone()
        top = snap.execute("select offer_count from busiest_gpus limit 1").fetchone()
        most = snap.execute("select max(offer_count) from gpu_offer_counts").fetchone()
    finally:
        snap.close()
    assert rows is not None and offers is not None
    assert rows == (gpus[0], offers[0])
    assert top == most
    served = load_into_memory(info)
    try:
        assert served.execute("select count(*) from busiest_gpus").fetchone() == (gpus[0],)
    finally:
        served.close()


def test_a_selected_build_makes_the_model_and_what_it_reads_and_nothing_else(
    replayed_home, tmp_path
):
    """``rebuild(select=...)`` (dbt's ``+name``): the model and its upstream, the same rows as a
    whole build; nothing downstream is built, nothing pruned; an unknown name is refused."""
    paths, _ = replayed_home
    warehouse = tmp_path / "warehouse.duckdb"
    shutil.copyfile(paths.warehouse, warehouse)
    upstream = {o.name for o in graph().upstream("current_offers")}
    with Warehouse(warehouse).connect() as con:
        for obj in graph().of_kind("model"):  # rollups are tables the migrations create
            con.execute(f"drop table if exists {obj.name}")  # names from .sql files
        counts = rebuild(con, select=["current_offers"])
        tables, _, _ = _catalog(con)
        selected = con.execute("select * from current_offers order by all").fetchall()
        with pytest.raises(GraphError, match="no_such_model"):
            rebuild(con, select=["no_such_model"])
        whole = rebuild(con)
        rebuilt = con.execute("select * from current_offers order by all").fetchall()
    models = {o.name for o in graph().of_kind("model")}
    assert set(counts) - {"rollup_rows_refreshed", "observations_pruned", "analysis_views"} == (
        {"current_offers"} | upstream
    ) & (models | {o.name for o in graph().of_kind("rollup")})
    assert counts["observations_pruned"] == 0 and counts["current_offers"] > 0
    assert not (models - upstream - {"current_offers"}) & tables, "a downstream model was built"
    assert selected == rebuilt and whole["current_offers"] == len(selected)


def test_the_rollups_are_built_after_the_models():
    """The daily rollup reads the verdicts the screen writes after current_offers."""
    order = [o.name for o in graph().built()]
    last_model = max(order.index(o.name) for o in graph().of_kind("model"))
    assert all(order.index(o.name) > last_model for o in graph().of_kind("rollup"))
    assert order.index("price_kind") < order.index("current_offers")


def test_each_built_object_is_a_dagster_asset_with_the_graphs_deps():
    from pipelines.defs.derived import graph_key, warehouse_build

    specs = {spec.key: spec for spec in warehouse_build.specs}
    assert set(specs) == {graph_key(o.name) for o in graph().built()}
    for obj in graph().built():
        deps = {dep.asset_key for dep in specs[graph_key(obj.name)].deps}
        assert deps == {graph_key(d) for d in obj.depends_on}


# --- header errors: one line that names the file


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.sql"
    path.write_text(text, encoding="utf-8")
    return path


def _object(name: str, *, kind="view", deps="nothing", published="yes", body=None) -> str:
    if body is None:
        body = "" if kind in ("source", "python") else f"create or replace view {name} as select 1"
    return (
        f"-- {name}: a test object.\n-- Kind: {kind}\n-- Grain: one row.\n"
        f"-- Depends on: {deps}.\n-- Published: {published}\n{body}\n"
    )


def _error(tmp_path: Path) -> str:
    with pytest.raises(GraphError) as caught:
        load([tmp_path / "views", tmp_path / "sources"])
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.fixture
def folders(tmp_path):
    (tmp_path / "views").mkdir()
    (tmp_path / "sources").mkdir()
    return tmp_path


def test_an_unknown_dependency_names_the_file(folders):
    _write(folders / "views", "prices", _object("prices", deps="offer_histroy"))
    assert _error(folders).startswith("views/prices.sql: unknown dependency 'offer_histroy'")


def test_a_dependency_cycle_names_a_file_and_the_cycle(folders):
    _write(folders / "views", "a", _object("a", deps="b"))
    _write(folders / "views", "b", _object("b", deps="a"))
    message = _error(folders)
    assert re.fullmatch(r"views/[ab]\.sql: dependency cycle ([ab]) -> [ab] -> \1", message)


@pytest.mark.parametrize("field", ["Kind", "Grain", "Depends on", "Published"])
def test_a_missing_field_names_the_file_and_the_field(folders, field):
    text = "".join(line for line in _object("a").splitlines(True) if f"-- {field}:" not in line)
    _write(folders / "views", "a", text)
    assert _error(folders) == f"views/a.sql: header lacks '{field}:'"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_object("a", kind="table"), "views/a.sql: Kind 'table' is not one of"),
        (_object("a", published="maybe"), "views/a.sql: Published must be yes or no"),
        (_object("a", deps="gpus and scrapes"), "views/a.sql: 'Depends on:' must list"),
        (_object("b"), "views/a.sql: the header's first line must be '-- a: <purpose>'"),
        (_object("a", kind="model", body=""), "views/a.sql: a model needs its SQL"),
        (_object("a", kind="source", body="select 1"), "views/a.sql: a source holds no SQL"),
        (_object("a", deps="a"), "views/a.sql: depends on itself"),
        ("create view a as select 1\n", "views/a.sql: the header's first line must be"),
    ],
)
def test_a_bad_header_is_one_line_naming_the_file(folders, text, expected):
    _write(folders / "views", "a", text)
    assert _error(folders).startswith(expected)


def test_a_published_view_over_an_unpublished_table_is_refused(folders):
    """It could not be created inside the snapshot, which lacks the table."""
    _write(folders / "sources", "scrape_log", _object("scrape_log", kind="source", published="no"))
    _write(folders / "views", "recent", _object("recent", deps="scrape_log"))
    assert _error(folders).startswith(
        "views/recent.sql: published, but depends on 'scrape_log', which is not"
    )


def test_two_files_declaring_one_object_are_refused(folders):
    _write(folders / "views", "gpus", _object("gpus"))
    _write(folders / "sources", "gpus", _object("gpus", kind="source"))
    assert _error(folders) == "sources/gpus.sql: object 'gpus' is also declared by views/gpus.sql"


def test_a_bad_header_fails_the_cli_with_one_line(
    replayed_home, folders, monkeypatch, capsys, tmp_path
):
    """``gpuprices query`` loads the snapshot with the published views: the graph is read."""
    from pipelines.cli import main

    paths, _ = replayed_home
    home = tmp_path / "home"
    shutil.copytree(paths.published, home / "published")
    _write(folders / "views", "prices", _object("prices", deps="offer_histroy"))
    monkeypatch.setattr(graph_module, "SQL_DIRS", (*SQL_DIRS, folders / "views"))
    monkeypatch.setenv("GPUPRICES_HOME", str(home))
    assert main(["query"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "gpuprices: views/prices.sql: unknown dependency 'offer_histroy' (no .sql file declares"
        " it; a stored table is declared in sources/)"
    )


def test_the_views_are_created_in_dependency_order():
    order = [o.name for o in graph().views()]
    for obj in graph().views():
        for dep in obj.depends_on:
            if graph()[dep].kind in VIEW_KINDS:
                assert order.index(dep) < order.index(obj.name)
