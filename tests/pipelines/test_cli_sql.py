"""SQL users (issue 12 point 6): the README's ``duckdb -readonly ...`` command opens the published
snapshot with the DuckDB CLI from PyPI (``duckdb-cli``, a dev dependency, which lags the Python
package), and ``gpuprices sql`` runs read-only queries on the current snapshot."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.cli import main
from tests.conftest import REPO
from warehouse.publish import current

VENV_BIN = Path(sys.executable).parent


def _duckdb_cli() -> Path:
    found = shutil.which("duckdb", path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        pytest.fail("the duckdb CLI is missing: `uv sync` installs duckdb-cli (dev dependency)")
    return Path(found)


def _duckdb_commands(doc: Path) -> list[str]:
    """The ```sh blocks of ``doc`` that run ``duckdb -readonly``."""
    blocks = re.findall(r"```sh\n(.*?)\n```", doc.read_text(encoding="utf-8"), flags=re.S)
    return [b for b in blocks if "duckdb -readonly" in b]


@pytest.fixture
def home(replayed_home, monkeypatch):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    monkeypatch.setenv("GPUPRICES_HOME", str(paths.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    return paths


@pytest.mark.parametrize("doc", ["README.md", "docs/sql.md"])
def test_readme_duckdb_cli_command_failed_on_the_snapshot_storage_version(home, doc):
    """The PyPI duckdb-cli 1.5.x refused snapshots written in the Python package's newest
    storage format ("Trying to read a database file with version number 69 ...")."""
    cli = _duckdb_cli()
    version = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("v"), version.stdout
    commands = _duckdb_commands(REPO / doc)
    assert commands, f"{doc} has no `duckdb -readonly` command"
    env = {**os.environ, "PATH": f"{cli.parent}{os.pathsep}{os.environ['PATH']}"}
    sql = (
        "select count(*) as offers from current_offers;\n"
        "select count(*) as days from daily_gpu_prices;\n"
        "select count(*) as valid from offers_as_of((select as_of from snapshot_meta));\n"
    )
    for command in commands:
        # the CLI reads statements from stdin when it is not a terminal
        run = subprocess.run(
            ["bash", "-c", command + " -csv"],
            input=sql,
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            timeout=120,
        )
        assert run.returncode == 0, (version.stdout, run.stderr)
        assert "Error" not in run.stderr, run.stderr
        counts = [int(line) for line in run.stdout.split() if line.isdigit()]
        assert len(counts) == 3 and all(n > 0 for n in counts), run.stdout


def test_the_cli_cannot_write_the_snapshot(home):
    info = current(home.published)
    assert info is not None
    run = subprocess.run(
        [_duckdb_cli(), "-readonly", str(info.path), "-c", "create table x as select 1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "read-only" in (run.stdout + run.stderr)


# --- gpuprices sql -------------------------------------------------------------------------


def test_sql_prints_a_table_on_a_terminal(home, capsys):
    query = (
        "select gpu_id, pricing, min_usd_per_gpu_hour, provider_count from daily_gpu_prices "
        "where gpu_id = 'h100-sxm' order by day desc limit 3"
    )
    assert main(["sql", "--format", "table", query]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "min_usd_per_gpu_hour" in out and "h100-sxm" in out
    assert "3 rows, snapshot" in out


def test_sql_prints_csv_when_piped(home, capsys):
    assert main(["sql", "select provider, count(*) as n from current_offers group by 1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by_provider = {r["provider"]: int(r["n"]) for r in rows}
    assert by_provider["lambda"] > 0 and by_provider["runpod"] > 0


def test_sql_tsv_json_and_stdin(home, capsys, monkeypatch):
    assert main(["sql", "--format", "tsv", "select 1 as a, 'x\ty' as b, null as c"]) == 0
    assert capsys.readouterr().out == "a\tb\tc\n1\tx y\t\n"
    assert main(["sql", "--json", "select 42 as answer, [1, 2] as xs"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["columns"] == ["answer", "xs"] and body["items"] == [{"answer": 42, "xs": [1, 2]}]
    assert body["snapshot_id"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("select count(*) as n from gpus"))
    assert main(["sql", "-"]) == 0
    assert int(capsys.readouterr().out.splitlines()[1]) > 0


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("selec 1", "Parser Error"),
        ("select * from no_such_table", "no_such_table"),
        ("create table x as select 1", "read-only"),
        ("insert into gpus select * from gpus", "read-only"),
        ("drop view daily_gpu_prices", "read-only"),
        ("set enable_external_access = true", "locked"),
    ],
)
def test_a_bad_or_writing_query_gets_one_line(home, capsys, query, message):
    assert main(["sql", query]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_sql_cannot_write_or_read_other_files(home, capsys, tmp_path):
    target = tmp_path / "leak.csv"
    attached = tmp_path / "other.duckdb"
    for query in (
        f"copy current_offers to '{target}'",
        f"attach '{attached}' as other",
        "select * from read_csv('/etc/passwd')",
    ):
        assert main(["sql", query]) == 1, query
        assert capsys.readouterr().err.startswith("error: ")
    assert not target.exists() and not attached.exists()


def test_sql_without_a_snapshot_fails_clearly(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["sql", "select 1"]) == 1
    assert "no snapshot published yet" in capsys.readouterr().err
