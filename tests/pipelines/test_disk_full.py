"""A full disk ends the ingest in one clear line, and the snapshot published before is still
served (issue 15: it ended in an 80-line Dagster traceback).

The disk fills where an ingest writes: the raw archive (a provider's scrape), the snapshot
(the publish job) and Dagster's own run storage under ``$GPUPRICES_HOME/dagster``. Each is
simulated by making that write raise ``OSError(ENOSPC)``; ``gpuprices ingest`` is run as a user
runs it.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from pipelines.cli import EXIT_NOTHING_PUBLISHED, EXIT_PROVIDER_FAILED, main
from pipelines.defs import derived
from tests.conftest import SNAPSHOTS
from warehouse import scrape
from warehouse.paths import Paths

HOME_ENV = "GPUPRICES_HOME"

ARGV = ["ingest", "--replay", str(SNAPSHOTS), "--provider", "lambda"]


def _disk_full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one good snapshot published."""
    home = tmp_path_factory.mktemp("disk-full") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(HOME_ENV, str(home))
        assert main(ARGV) == 0
    return home


def _ingest_on_a_full_disk(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    publishes: bool = False,
) -> tuple[int, list[str]]:
    monkeypatch.setenv(HOME_ENV, str(home))
    current = (Paths(home).published / "CURRENT").read_bytes()
    capsys.readouterr()
    code = main(ARGV)
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "Traceback" not in out and 'File "' not in out
    if not publishes:  # the old snapshot is still the one served
        assert (Paths(home).published / "CURRENT").read_bytes() == current
    # the report's lines (piped, the progress rows "[1/1] lambda ..." come first, on stderr)
    report = [line for line in out.splitlines() if not line.startswith(("[", "ingest: "))]
    return code, [line for line in report if "disk full" in line]


def test_full_disk_while_archiving_a_scrape_is_one_line_per_provider(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(scrape, "archive_body", _disk_full)
    # only the archive is full here: the snapshot is published again, with lambda's old data
    code, lines = _ingest_on_a_full_disk(home, monkeypatch, capsys, publishes=True)
    assert code == EXIT_PROVIDER_FAILED
    assert len(lines) == 1, lines
    assert lines[0].startswith("lambda ") and "replay failed: disk full: No space left" in lines[0]
    assert lines[0].endswith("-> last good data (observed 2026-01-09)")


def test_full_disk_while_publishing_is_one_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(derived, "publish", _disk_full)
    code, lines = _ingest_on_a_full_disk(home, monkeypatch, capsys)
    assert code == EXIT_NOTHING_PUBLISHED
    assert lines == [
        "nothing published: disk full: OSError: [Errno 28] No space left on device; the"
        " snapshot published before is still served"
    ]


def test_full_disk_in_dagster_run_storage_is_one_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(SqliteEventLogStorage, "store_event", _disk_full)
    code, lines = _ingest_on_a_full_disk(home, monkeypatch, capsys)
    assert code == EXIT_NOTHING_PUBLISHED
    assert lines == [
        f"nothing published: disk full: [Errno 28] No space left on device (under {home});"
        " the snapshot published before is still served"
    ]
