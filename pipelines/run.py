"""Running the Dagster jobs in-process (what ``gpuprices ingest`` does) and reporting on them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import dagster as dg

from pipelines import dagster_storage
from pipelines.defs.providers import GROUP, asset_key
from pipelines.execution import EventCallback, JobRun, execute_ingest
from pipelines.prefetch import DEFAULT_FETCH_CONCURRENCY
from pipelines.run_report import IngestReport, fill_provider_lines
from pipelines.run_retention import RunRetention, prune_runs
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.problems import disk_full


def _run_config(
    paths: Paths,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None,
    verbose: bool,
    recorded_fallback: bool = True,
) -> dict:
    # what the caller resolved; every other field of the resource comes from its settings
    resource: dict[str, str | bool] = {
        "home": str(paths.home),
        "recorded_fallback": recorded_fallback,
    }
    if replay_dir:
        resource["replay_dir"] = str(replay_dir)
    if fallback_replay_dir:
        resource["fallback_replay_dir"] = str(fallback_replay_dir)
    return {
        "resources": {"gpuprices": {"config": resource}},
        "loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}},
    }


def run_ingest(
    paths: Paths,
    *,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None = None,
    recorded_fallback: bool = True,
    providers: Sequence[str] | None = None,
    verbose: bool = False,
    instance: dg.DagsterInstance | None = None,
    parallel: int | None = None,
    on_event: EventCallback | None = None,
    run_retention: RunRetention | None = None,
    fetch_concurrency: int = DEFAULT_FETCH_CONCURRENCY,
) -> IngestReport:
    """Run the ingest job (seeds + selected providers), then the publish job, then prune
    Dagster's run storage (``run_retention``, default ``RunRetention()``: the newest 50 finished
    runs of the last 30 days are kept; see ``pipelines.run_retention``).

    The ingest job runs in-process, or with ``parallel`` > 1 under Dagster's multiprocess
    executor (see ``pipelines.execution``); ``on_event`` follows its events while it runs.
    In-process, a live run fetches ``fetch_concurrency`` providers at once (``pipelines.prefetch``).
    """
    slugs = list(providers) if providers else _default_slugs(replay_dir)
    instance = instance or dagster_instance(verbose)
    try:
        report = _run_jobs(
            paths,
            slugs,
            instance,
            _run_config(paths, replay_dir, fallback_replay_dir, verbose, recorded_fallback),
            live=replay_dir is None,
            parallel=parallel,
            on_event=on_event,
            fetch_concurrency=fetch_concurrency,
        )
        prune_runs(instance, run_retention)
        return report
    except Exception as exc:
        if not disk_full(exc):
            raise
        # the warehouse, the raw archive or Dagster's run storage could not be written: one
        # line instead of Dagster's traceback; nothing new was published
        return IngestReport(
            run_id="",
            live=replay_dir is None,
            publish_error=f"{disk_full_line(exc)} (under {paths.home}); the snapshot published"
            " before is still served",
        )


def _default_slugs(replay_dir: Path | None) -> list[str]:
    """Every registered provider; a replay leaves out those with no capture in ``replay_dir``
    (a provider verified against its docs has none: there is nothing to replay). Named with
    ``providers``, such a provider is run and reported skipped (``no_capture``)."""
    if replay_dir is None or not replay_dir.is_dir():
        return sorted(PROVIDERS)
    captured = discover(replay_dir)
    return sorted(slug for slug in PROVIDERS if slug in captured)


def dagster_instance(verbose: bool, root: Path | None = None) -> dg.DagsterInstance:
    """The Dagster instance of ``root`` (default ``$DAGSTER_HOME``, read through
    ``DagsterInstance.get()``), on Dagster's SQLite files with connections kept open
    (``pipelines.dagster_storage``); without ``verbose``, with Dagster's Python log level at
    INFO. The run's console logger is configured (``_run_config``: CRITICAL unless verbose), but
    each worker process of the multiprocess executor also logs its start at DEBUG through
    Dagster's default console logger, whose level only this instance setting sets
    (``python_logs.python_log_level``, carried to the workers in the instance's ref)."""
    # the CLI passes the DAGSTER_HOME it prepared; opening an instance only to ask it costs
    # a second set-up of every storage
    home = str(root) if root else dg.DagsterInstance.get().root_directory
    overrides: dict[str, Any] = dagster_storage.storage_overrides(home)
    if not verbose:
        overrides["python_logs"] = {"python_log_level": "INFO"}
    # local_temp(dir) is the public way to open the instance of a directory with overrides
    return dg.DagsterInstance.local_temp(home, overrides=overrides)


def disk_full_line(exc: BaseException) -> str:
    """``disk full: <the OS's words>`` for an exception that ``warehouse.problems.disk_full``
    recognises (the first line of the innermost error that says so)."""
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, OSError) or "space" in str(current).lower():
            text = str(current).strip().splitlines()
            return f"disk full: {text[0] if text else type(current).__name__}"
        current = current.__cause__ or current.__context__
    return "disk full"


def _run_jobs(
    paths: Paths,
    slugs: list[str],
    instance: dg.DagsterInstance,
    config: dict,
    *,
    live: bool,
    parallel: int | None,
    on_event: EventCallback | None,
    fetch_concurrency: int,
) -> IngestReport:
    with _held_warehouse(paths, live=live, parallel=parallel):
        return _run_both_jobs(
            paths,
            slugs,
            instance,
            config,
            live=live,
            parallel=parallel,
            on_event=on_event,
            fetch_concurrency=fetch_concurrency,
        )


def _held_warehouse(
    paths: Paths, *, live: bool, parallel: int | None
) -> AbstractContextManager[object]:
    """For a replay run in this process, one warehouse connection (and its file lock) held
    through both jobs, which every step's ``Warehouse.connect()`` reuses: each open of the
    DuckDB file replays its WAL and each close checkpoints it, ~27 times a run otherwise (a
    replay waits on no network, so holding the lock costs nobody). Steps in other processes
    (``parallel``) and live runs open it per step, as under ``dagster dev``."""
    if live or (parallel is not None and parallel > 1):
        return nullcontext()
    return Warehouse(paths.warehouse).held()


def _run_both_jobs(
    paths: Paths,
    slugs: list[str],
    instance: dg.DagsterInstance,
    config: dict,
    *,
    live: bool,
    parallel: int | None,
    on_event: EventCallback | None,
    fetch_concurrency: int,
) -> IngestReport:
    from pipelines.definitions import defs

    ingest = execute_ingest(
        config,
        instance,
        [dg.AssetKey(["seeds"]), dg.AssetKey(["fx_rates"]), *(asset_key(s) for s in slugs)],
        parallel=parallel,
        on_event=on_event,
        prefetch=[PROVIDERS[s] for s in slugs] if live else (),
        fetch_concurrency=fetch_concurrency,
    )
    report = IngestReport(run_id=ingest.run_id, live=live)
    publish = defs.resolve_job_def("publish").execute_in_process(
        run_config=config,
        instance=instance,
        raise_on_error=False,
    )
    if publish.success:
        snapshot = publish.asset_materializations_for_node("derived__published_snapshot")
        if snapshot:
            report.snapshot_id = str(snapshot[-1].metadata["snapshot_id"].value)
    else:
        failures = [
            _error_line(e.event_specific_data.error)  # type: ignore[union-attr]
            for e in publish.all_events
            if e.is_step_failure
        ]
        report.publish_error = "; ".join(failures) or "publish job failed"
    if not ingest.success and not any(
        e.is_step_success for e in ingest.all_events if e.step_key == "seeds"
    ):
        failures = [
            e.event_specific_data.error.message.strip().splitlines()[0]  # type: ignore[union-attr]
            for e in ingest.all_events
            if e.is_step_failure and e.step_key == "seeds"
        ]
        report.publish_error = "seeding failed: " + "; ".join(failures)
    fill_provider_lines(report, paths, slugs, _step_failures(ingest))
    return report


def _error_line(error: Any) -> str:
    """One line for a failed step's ``SerializableErrorInfo``: the innermost cause (a user-code
    exception is wrapped in ``DagsterExecutionStepExecutionError``), said plainly when the disk
    is full."""
    while error is not None and error.cause is not None:
        error = error.cause
    if error is None:
        return "failed"
    lines = error.message.strip().splitlines()
    line = lines[0] if lines else error.cls_name or "failed"
    if re.search(r"no space left on device|database or disk is full", line, re.IGNORECASE):
        return f"disk full: {line}; the snapshot published before is still served"
    return line


def _step_failures(run: JobRun) -> dict[str, str]:
    """Provider slug -> the first line of its step's failure (``dg.Failure`` description:
    ``<slug>: <source>: <error>``, reduced to the error), for steps that failed."""
    prefix = f"{GROUP}__"
    failed: dict[str, str] = {}
    for event in run.all_events:
        if not (event.is_step_failure and event.step_key and event.step_key.startswith(prefix)):
            continue
        slug = event.step_key[len(prefix) :]
        error = event.event_specific_data.error  # type: ignore[union-attr]
        lines = error.message.strip().splitlines() if error is not None else []
        line = lines[0] if lines else "failed"
        line = re.sub(r"^(?:dagster\._core\.definitions\.events\.)?Failure: ", "", line)
        line = re.sub(rf"^{re.escape(slug)}: (?:[^:]*: )?", "", line)
        # the first failed scrape stands for the rest (a full disk fails every one alike)
        failed[slug] = re.split(rf"; (?={re.escape(slug)}/|live: |recorded offers )", line)[0]
    return failed
