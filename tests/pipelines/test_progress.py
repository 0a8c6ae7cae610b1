"""Progress lines for ``gpuprices ingest``, fed by the run's Dagster event stream."""

from __future__ import annotations

import io

import dagster as dg
from rich.console import Console

from pipelines.progress import IngestProgress
from pipelines.run import run_ingest
from tests.conftest import SNAPSHOTS
from warehouse.paths import Paths


def test_progress_follows_each_provider_step_to_its_end(tmp_path):
    out = io.StringIO()
    progress = IngestProgress(
        ["lambda", "datacrunch"], Console(file=out, force_terminal=True, width=160)
    )
    (tmp_path / "dagster").mkdir()
    with dg.DagsterInstance.local_temp(str(tmp_path / "dagster")) as instance, progress:
        report = run_ingest(
            Paths(tmp_path / "home"),
            replay_dir=SNAPSHOTS,
            providers=["lambda", "datacrunch"],
            instance=instance,
            on_event=progress,
        )
    assert report.snapshot_id
    tasks = {t.fields["slug"]: t for t in progress.progress.tasks}
    for slug in ("lambda", "datacrunch"):
        assert tasks[slug].finished and tasks[slug].fields["state"] == "done"
        # the newest line the step logged: "[<capture>]: <status>, <n> offers"
        assert f"[{slug}/" in tasks[slug].description and "offers" in tasks[slug].description
    assert tasks["providers"].completed == 2
    assert "datacrunch" in out.getvalue()


def test_progress_draws_nothing_when_not_a_terminal():
    out = io.StringIO()
    progress = IngestProgress(["lambda"], Console(file=out, force_terminal=False))
    assert progress.enabled is False
    with progress:
        pass
    assert out.getvalue() == ""
