"""Progress lines for ``gpuprices ingest``, fed by the run's Dagster event stream."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from rich.console import Console

from pipelines import cli
from pipelines.progress import IngestProgress
from pipelines.run import dagster_instance, run_ingest
from tests.conftest import SNAPSHOTS
from tests.support.harness import newest_captures
from tests.support.offline import go_offline
from tests.support.seeded import seeded_warehouse
from warehouse.paths import Paths

# the file takes about 45 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=45)


@pytest.fixture
def no_network(monkeypatch):
    """Every live request fails as on a machine without network (no token either)."""
    go_offline(monkeypatch)


def _seeded_home(template: Path, home: Path) -> Paths:
    """``home`` holding a copy of the seeded template warehouse: the ingest's seeds step then
    re-seeds in ~0.15 s instead of loading the ECB history (~1 s); these tests are about the
    progress lines, not a first run (tests/pipelines/test_first_run.py)."""
    paths = Paths(home)
    seeded_warehouse(template, paths.warehouse)
    return paths


def _cli_home(monkeypatch, home, template: Path) -> None:
    _seeded_home(template, home)
    monkeypatch.setenv("GPUPRICES_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))  # the CLI sets it; restore it
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)


def _dated(text: str, day: str) -> bool:
    """``text`` is "<day> (<n> d old)", n the days from ``day`` to now (the observation's hour
    of that day may round it either way)."""
    match = re.fullmatch(r"(\S+) \((\d+) d old\)", text)
    days = (datetime.now(UTC).date() - date.fromisoformat(day)).days
    return bool(match) and match[1] == day and abs(int(match[2]) - days) <= 1


def test_progress_follows_each_provider_step_to_its_end(tmp_path, seeded_template):
    out = io.StringIO()
    progress = IngestProgress(
        ["lambda", "datacrunch"], Console(file=out, force_terminal=True, width=160)
    )
    (tmp_path / "dagster").mkdir()
    with dagster_instance(False, tmp_path / "dagster") as instance, progress:
        report = run_ingest(
            _seeded_home(seeded_template, tmp_path / "home"),
            replay_dir=SNAPSHOTS,
            providers=["lambda", "datacrunch"],
            instance=instance,
            on_event=progress,
        )
    assert report.snapshot_id
    tasks = {t.fields["slug"]: t for t in progress.progress.tasks}
    for slug in ("lambda", "datacrunch"):
        assert tasks[slug].finished and tasks[slug].fields["state"] == "[cyan]replayed"
    # the newest capture replayed, and its age: Lambda's of 2026-01-09, DataCrunch's 2025-08-08
    assert _dated(tasks["lambda"].description, "2026-01-09")
    assert _dated(tasks["datacrunch"].description, "2025-08-08")
    assert tasks["providers"].completed == 2
    assert "datacrunch" in out.getvalue() and "replayed" in out.getvalue()


def test_tty_progress_says_recorded_not_failed_for_fallback(tmp_path, seeded_template, no_network):
    """Issue 25: offline, every provider's live fetch fails and its recorded data is loaded
    instead; the rows said FAILED. They say recorded, with the data's day and age."""
    out = io.StringIO()
    slugs = ["lambda", "vultr"]
    progress = IngestProgress(slugs, Console(file=out, force_terminal=True, width=160))
    (tmp_path / "dagster").mkdir()
    with dagster_instance(False, tmp_path / "dagster") as instance, progress:
        # no captures beside it: the recorded offers that ship with gpuprices are loaded
        report = run_ingest(
            _seeded_home(seeded_template, tmp_path / "home"),
            replay_dir=None,
            providers=slugs,
            instance=instance,
            on_event=progress,
        )
    assert [p.status for p in report.providers] == ["FAILED", "FAILED"]  # live failed: exit 1
    tasks = {t.fields["slug"]: t for t in progress.progress.tasks}
    # the shipped offers' capture days (scrapers/recorded/offers.csv)
    for slug, day in (("lambda", "2026-01-09"), ("vultr", "2026-04-01")):
        assert tasks[slug].fields["state"] == "[yellow]recorded"
        assert _dated(tasks[slug].description, day), tasks[slug].description
    drawn = out.getvalue()
    assert "FAILED" not in drawn and " 0 h old" not in drawn


def test_progress_rows_say_failed_when_nothing_was_loaded(tmp_path, seeded_template, no_network):
    out = io.StringIO()
    progress = IngestProgress(["vultr"], Console(file=out, force_terminal=True, width=160))
    (tmp_path / "dagster").mkdir()
    with dagster_instance(False, tmp_path / "dagster") as instance, progress:
        run_ingest(
            _seeded_home(seeded_template, tmp_path / "home"),
            replay_dir=None,
            providers=["vultr"],
            recorded_fallback=False,
            instance=instance,
            on_event=progress,
        )
    [task] = [t for t in progress.progress.tasks if t.fields["slug"] == "vultr"]
    assert task.fields["state"] == "[red]FAILED"
    assert "failed" in task.description  # the step's own line: "[live]: failed, 0 offers (...)"


def _progress(err: str) -> list[str]:
    """The progress lines of stderr: in a test process, earlier tests (the API's) may have left
    log handlers on stderr, whose records a real `gpuprices ingest` process never writes."""
    return [line for line in err.splitlines() if line.startswith(("ingest: ", "["))]


def test_piped_ingest_prints_a_line_per_provider(tmp_path, seeded_template, monkeypatch, capsys):
    """Issue 25: not on a terminal, `gpuprices ingest` printed nothing until the report (34 s
    for every provider). One plain line per provider as it finishes, on stderr, no ANSI."""
    _cli_home(monkeypatch, tmp_path / "home", seeded_template)
    argv = ["ingest", "--replay", str(SNAPSHOTS), "--provider", "lambda"]
    assert cli.main([*argv, "--provider", "datacrunch"]) == 0
    out, err = capsys.readouterr()
    first, *lines = _progress(err)
    assert first == "ingest: 2 providers, a line as each finishes"  # printed as the run starts
    # "[1/2] datacrunch replayed 2025-08-08 (481 d old)", in the order the steps finished
    assert [line[:6] for line in lines] == ["[1/2] ", "[2/2] "]
    rows = sorted(line[6:].split(maxsplit=2) for line in lines)
    assert [row[:2] for row in rows] == [["datacrunch", "replayed"], ["lambda", "replayed"]]
    assert _dated(rows[0][2], "2025-08-08") and _dated(rows[1][2], "2026-01-09")
    assert "\x1b" not in out + err
    assert "2 providers: 2 replay ok, 0 failed, 0 skipped" in out  # the report, as before


def test_progress_is_quiet_under_v(tmp_path, seeded_template, monkeypatch, capsys):
    _cli_home(monkeypatch, tmp_path / "home", seeded_template)
    argv = ["ingest", "--replay", str(SNAPSHOTS), "--provider", "lambda", "-v"]
    assert cli.main(argv) == 0
    assert "replayed 2026-01-09" not in capsys.readouterr().err


@pytest.mark.slow
def test_parallel_ingest_is_quiet_without_v(tmp_path, seeded_template, monkeypatch, capfd):
    """Issue 25: `--parallel` printed Dagster's DEBUG line of every worker process
    ("STEP_WORKER_STARTED - Executing step ... in subprocess") without -v."""
    _cli_home(monkeypatch, tmp_path / "home", seeded_template)
    replay = newest_captures(tmp_path / "replay", ["lambda", "datacrunch"])
    argv = ["ingest", "--replay", str(replay), "--parallel", "2"]
    assert cli.main([*argv, "--provider", "lambda", "--provider", "datacrunch"]) == 0
    out, err = capfd.readouterr()
    assert "DEBUG" not in err and "STEP_WORKER_STARTED" not in err, err
    # stderr holds the progress lines, one per provider
    first, *lines = _progress(err)
    assert first.startswith("ingest: 2 providers")
    assert sorted(line.split()[1] for line in lines) == ["datacrunch", "lambda"]
    assert "2 providers: 2 replay ok" in out
