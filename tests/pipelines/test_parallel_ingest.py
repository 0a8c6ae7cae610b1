"""The ingest job under Dagster's multiprocess executor loads exactly what the in-process run
loads (parallel provider steps serialize their writes on the warehouse file lock)."""

from __future__ import annotations

import dagster as dg
import pytest

from pipelines.cli import main
from pipelines.run import run_ingest
from tests.conftest import SNAPSHOTS
from tests.support.harness import newest_captures
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.settings import Settings

# the file takes about 25 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=25)

PROVIDERS = ["lambda", "datacrunch", "modal", "nebius"]
CURRENT = "select * from current_offers order by offer_id"
HISTORY = (
    "select offer_id, valid_from, valid_to, price, price_per_hour_usd, source, scrape_id "
    "from offer_history order by offer_id, valid_from"
)
SCRAPES = (
    "select scrape_id, provider, mode, source, observed_at, status, error, offer_count "
    "from scrapes order by scrape_id"
)


def _tables(paths: Paths) -> dict[str, list[tuple]]:
    with Warehouse(paths.warehouse).connect() as con:
        return {
            name: con.execute(sql).fetchall()
            for name, sql in (("current", CURRENT), ("history", HISTORY), ("scrapes", SCRAPES))
        }


@pytest.mark.slow
def test_multiprocess_ingest_equals_in_process(tmp_path):
    # each provider's newest capture (issue 23: the suite under 5 minutes): the provider steps
    # still run in parallel worker processes and write to one warehouse; more captures per
    # step only make each step longer
    replay = newest_captures(tmp_path / "replay", PROVIDERS)
    serial = Paths(tmp_path / "serial")
    report = run_ingest(
        serial, replay_dir=replay, providers=PROVIDERS, instance=dg.DagsterInstance.ephemeral()
    )
    assert report.snapshot_id

    parallel = Paths(tmp_path / "parallel")
    events: list[dg.EventLogEntry] = []
    (tmp_path / "dagster").mkdir()
    with dg.DagsterInstance.local_temp(str(tmp_path / "dagster")) as instance:
        parallel_report = run_ingest(
            parallel,
            replay_dir=replay,
            providers=PROVIDERS,
            instance=instance,
            parallel=3,
            on_event=events.append,
        )
        workers = instance.get_records_for_run(
            parallel_report.run_id, of_type=dg.DagsterEventType.STEP_WORKER_STARTED
        ).records
    assert parallel_report.snapshot_id
    # every provider step ran in its own worker process
    assert {r.event_log_entry.step_key for r in workers} >= {f"providers__{p}" for p in PROVIDERS}
    # the event stream (what the progress bars read) saw each provider start and finish
    finished = {
        e.step_key
        for e in events
        if e.dagster_event and e.dagster_event.event_type == dg.DagsterEventType.STEP_SUCCESS
    }
    assert finished >= {f"providers__{p}" for p in PROVIDERS}

    assert [(p.provider, p.status, p.offers) for p in parallel_report.providers] == [
        (p.provider, p.status, p.offers) for p in report.providers
    ]
    serial_tables, parallel_tables = _tables(serial), _tables(parallel)
    assert serial_tables["current"] and serial_tables["history"]
    assert parallel_tables == serial_tables


def test_multiprocess_needs_a_persistent_instance(tmp_path):
    with pytest.raises(ValueError, match="persistent Dagster instance"):
        run_ingest(
            Paths(tmp_path),
            replay_dir=SNAPSHOTS,
            providers=["lambda"],
            instance=dg.DagsterInstance.ephemeral(),
            parallel=2,
        )


def test_executor_from_environment():
    # read by warehouse.settings (pydantic's wording of the errors)
    def parallelism(env):
        return Settings.load(env).parallelism()

    assert parallelism({}) is None
    assert parallelism({"GPUPRICES_EXECUTOR": "in_process"}) is None
    assert parallelism({"GPUPRICES_EXECUTOR": "multiprocess", "GPUPRICES_MAX_CONCURRENT": "4"}) == 4
    assert (parallelism({"GPUPRICES_EXECUTOR": "multiprocess"}) or 0) >= 1
    with pytest.raises(ValueError, match="'in_process' or 'multiprocess'"):
        parallelism({"GPUPRICES_EXECUTOR": "celery"})
    with pytest.raises(ValueError, match="GPUPRICES_MAX_CONCURRENT='0'"):
        parallelism({"GPUPRICES_EXECUTOR": "multiprocess", "GPUPRICES_MAX_CONCURRENT": "0"})


def test_cli_rejects_an_unknown_executor(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))  # the CLI sets it; restore it
    monkeypatch.setenv("GPUPRICES_EXECUTOR", "threads")
    assert main(["ingest", "--replay", str(SNAPSHOTS), "--provider", "lambda"]) == 2
    assert "GPUPRICES_EXECUTOR" in capsys.readouterr().err
