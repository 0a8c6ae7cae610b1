"""Issue 27 (low): a home the CLI cannot write (a permission error) and SQLite's "disk I/O
error" under a full disk ended ``gpuprices`` in a traceback (85 lines for the SQLite one). Both
are one line on stderr and exit code 3."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from pipelines import cli
from tests.conftest import REPO, SNAPSHOTS
from warehouse.problems import storage_failure

CLI = (sys.executable, "-m", "pipelines.cli")


def test_unwritable_home_is_one_line_not_a_permission_error_traceback(tmp_path) -> None:
    env = {**os.environ, "GPUPRICES_HOME": "/sys/gpuprices-test-home"}  # EPERM even for root
    env["DAGSTER_HOME"] = str(tmp_path / "dagster")
    done = subprocess.run(
        [*CLI, "ingest", "--replay", str(SNAPSHOTS), "--provider", "hetzner"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 3
    assert done.stderr.strip().splitlines()[-1] == (
        "error: cannot use GPUPRICES_HOME: Operation not permitted: /sys/gpuprices-test-home"
    )
    assert "Traceback" not in done.stderr


def test_sqlite_disk_io_error_under_a_full_disk_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(args) -> int:
        try:
            raise sqlite3.OperationalError("disk I/O error")
        except sqlite3.OperationalError as exc:
            raise RuntimeError(
                "(sqlite3.OperationalError) disk I/O error\n[SQL: insert ...]"
            ) from exc

    parser = cli.build_parser  # any command whose storage fails like this: here `status`
    monkeypatch.setattr(cli, "build_parser", lambda: _with_func(parser(), failing))
    assert cli.main(["status"]) == 3
    assert capsys.readouterr().err == (
        "error: cannot use GPUPRICES_HOME: (sqlite3.OperationalError) disk I/O error\n"
    )


def _with_func(parser, func):
    original = parser.parse_args

    def parse_args(argv=None):
        args = original(argv)
        args.func = func
        return args

    parser.parse_args = parse_args
    return parser


def test_storage_failure_names_only_file_system_causes() -> None:
    assert storage_failure(PermissionError(13, "Permission denied", "/x")) == (
        "Permission denied: /x"
    )
    assert storage_failure(ValueError("a bug")) is None
