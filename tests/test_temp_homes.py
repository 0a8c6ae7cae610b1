"""The suite writes nothing outside temporary directories (issue 12 point 9: it wrote Dagster's
telemetry files under ~/.dagster). The session fixture ``temp_homes`` in conftest.py points
HOME, the XDG folders, DAGSTER_HOME and GPUPRICES_HOME into a temporary root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from tests.conftest import REPO, TEMP_HOME_VARS, dagster_home
from tests.support.harness import newest_captures
from warehouse.settings import Settings

# the file takes about 20 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=20)

# The Dagster runs the suite makes: the project's ingest job on the persistent instance at
# $DAGSTER_HOME (what `gpuprices ingest` uses, telemetry off in our dagster.yaml) and an
# ephemeral materialisation (what most tests use).
_RUNS = """
import sys
from pathlib import Path

import dagster as dg
import pytest

from pipelines.run import run_ingest
from warehouse.paths import Paths

report = run_ingest(
    Paths(Path(sys.argv[1])), replay_dir=Path(sys.argv[2]), providers=["lambda"],
    instance=dg.DagsterInstance.get(),
)
assert report.ok, report.lines()

@dg.asset
def one() -> int:
    return 1

assert dg.materialize([one], instance=dg.DagsterInstance.ephemeral()).success
"""


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.slow
def test_dagster_runs_write_nothing_under_an_empty_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    dagster = dagster_home(tmp_path / "dagster-home")
    env = {**os.environ, "HOME": str(home), "DAGSTER_HOME": str(dagster)}
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env.pop(name, None)  # so that anything writing "the user's folders" would use HOME
    # Lambda's newest capture only (issue 23: the suite under 5 minutes): what a run writes
    # where does not depend on how many captures it replays
    replay = newest_captures(tmp_path / "replay", ["lambda"])
    done = subprocess.run(
        [sys.executable, "-c", _RUNS, str(tmp_path / "gpuprices"), str(replay)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _files(home) == []  # no ~/.dagster, no ~/.local/share/gpuprices
    # the run history is kept in DAGSTER_HOME, but no telemetry: no logs/, no .telemetry/
    written = _files(dagster)
    assert "storage" in written and "dagster.yaml" in written
    assert not [f for f in written if f.startswith(("logs", ".telemetry", ".logs_queue"))]


def test_the_session_points_every_home_into_a_temporary_root(temp_homes, tmp_path_factory):
    root = tmp_path_factory.getbasetemp().resolve()
    assert set(temp_homes) == set(TEMP_HOME_VARS)
    for name in TEMP_HOME_VARS:
        assert Path(os.environ[name]).resolve().is_relative_to(root), name
    # where Dagster's telemetry goes when DAGSTER_HOME is unset or ignored, and our default
    assert Path(os.path.expanduser("~/.dagster")).resolve().is_relative_to(root)
    assert Settings.load().paths().home.is_relative_to(root)
    assert Settings.load({}).paths().home.is_relative_to(root)  # HOME default


def test_a_local_temp_instance_logs_telemetry_only_inside_the_temporary_root(
    temp_homes, tmp_path, tmp_path_factory
):
    # local_temp(dir) reads dir's own dagster.yaml, so telemetry is on for it; its files must
    # land under the session's DAGSTER_HOME and HOME, both temporary
    @dg.asset
    def one() -> int:
        return 1

    with dg.DagsterInstance.local_temp(str(tmp_path)) as instance:
        assert instance.telemetry_enabled
        assert dg.materialize([one], instance=instance).success
    user_dir = Path(temp_homes["HOME"]) / ".dagster" / ".telemetry"
    assert (user_dir / "user_id.yaml").is_file()
    # (a test that ran `gpuprices ingest` may have pointed DAGSTER_HOME at its own temp home)
    dagster_home = Path(os.environ["DAGSTER_HOME"])
    assert dagster_home.resolve().is_relative_to(tmp_path_factory.getbasetemp().resolve())
    assert (dagster_home / "logs" / "event.log").is_file()
