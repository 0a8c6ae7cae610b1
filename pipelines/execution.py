"""How ``gpuprices ingest`` executes the ingest job, and how it watches the run.

In-process (default): every provider step runs one after another in this process; the live
fetches of all of them start at once beforehand on a bounded thread pool (``pipelines.prefetch``:
``fetch_concurrency`` providers at a time, per-host limits shared), so a slow host holds only
its own provider, and each step loads its provider's fetch (DuckDB's one writer at a time).
Multiprocess: Dagster's multiprocess executor runs up to N provider steps at once, each in its
own process (``gpuprices ingest --parallel N``, or ``GPUPRICES_EXECUTOR=multiprocess`` with
``GPUPRICES_MAX_CONCURRENT=N``: ``warehouse.settings.Settings.parallelism``). Fetches overlap;
loads still serialize on the warehouse file lock (``warehouse.db.Warehouse``), which is what
DuckDB's one-writer rule requires anyway. The multiprocess executor needs a persistent Dagster
instance (``DAGSTER_HOME``): child processes report their events through its storage.

Either way the run's events can be followed while it runs (``on_event``): a thread polls the
instance's event log for the run, which works the same for in-process and child-process steps.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import dagster as dg

from pipelines import prefetch as prefetching
from scrapers.base import Provider

INVOCATION_TAG = prefetching.INVOCATION_TAG
POLL_INTERVAL_S = 0.2
# Imported once by the forkserver, inherited by every worker. The storage modules are what a
# worker imports to open the instance; a name that does not import is skipped by Python.
PRELOAD_MODULES = (
    "dagster",
    "pipelines.definitions",
    "dagster._core.storage.event_log",
    "dagster._core.storage.runs",
    "dagster._core.storage.schedules",
)

EventCallback = Callable[[dg.EventLogEntry], None]


def multiprocess_config(max_concurrent: int) -> dict[str, Any]:
    """The run-config ``execution`` block selecting Dagster's multiprocess executor.

    Workers fork from a forkserver that has imported Dagster and our definitions once: a
    freshly spawned worker spends seconds importing them before its step can start.
    """
    return {
        "config": {
            "multiprocess": {
                "max_concurrent": max_concurrent,
                "start_method": {"forkserver": {"preload_modules": list(PRELOAD_MODULES)}},
            }
        }
    }


def ingest_job() -> dg.JobDefinition:
    """The ingest job, resolved; module-level so child processes can reconstruct it."""
    from pipelines.definitions import defs

    return defs.resolve_job_def("ingest")


@dataclass
class JobRun:
    """What the caller needs of a finished run, whichever executor ran it."""

    run_id: str
    success: bool
    all_events: list[dg.DagsterEvent]


class _EventPoller:
    """Feeds the events of the run tagged ``tags`` to ``callback`` from a background thread."""

    def __init__(
        self, instance: dg.DagsterInstance, tags: Mapping[str, str], callback: EventCallback
    ) -> None:
        self.instance = instance
        self.tags = dict(tags)
        self.callback = callback
        self.run_id: str | None = None
        self._cursor: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ingest-events", daemon=True)
        self.error: BaseException | None = None

    def __enter__(self) -> _EventPoller:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(POLL_INTERVAL_S):
                self._drain()
            self._drain()  # whatever arrived between the last poll and the end of the run
        except Exception as exc:  # a display problem must never fail the ingestion
            self.error = exc

    def _drain(self) -> None:
        if self.run_id is None:
            runs = self.instance.get_runs(filters=dg.RunsFilter(tags=self.tags), limit=1)
            if not runs:
                return
            self.run_id = runs[0].run_id
        while True:
            page = self.instance.get_records_for_run(self.run_id, cursor=self._cursor, limit=500)
            for record in page.records:
                self.callback(record.event_log_entry)
            self._cursor = page.cursor
            if not page.has_more:
                return


def execute_ingest(
    run_config: Mapping[str, Any],
    instance: dg.DagsterInstance,
    asset_selection: Sequence[dg.AssetKey],
    *,
    parallel: int | None = None,
    on_event: EventCallback | None = None,
    prefetch: Sequence[Provider] = (),
    fetch_concurrency: int = prefetching.DEFAULT_FETCH_CONCURRENCY,
) -> JobRun:
    """Run the ingest job over ``asset_selection``; never raises for a failed step.

    ``parallel`` > 1 selects the multiprocess executor with that many concurrent steps (needs a
    persistent instance: ValueError otherwise). ``on_event`` receives every event of the run
    while it runs, from another thread. In-process, the live fetches of ``prefetch`` (the
    selected providers of a live run) run ``fetch_concurrency`` at a time ahead of their steps.
    """
    tags = {INVOCATION_TAG: uuid.uuid4().hex}
    multiprocess = parallel is not None and parallel > 1
    if multiprocess and instance.is_ephemeral:
        raise ValueError(
            "the multiprocess executor needs a persistent Dagster instance "
            "(set DAGSTER_HOME, or use DagsterInstance.local_temp())"
        )
    watching = _EventPoller(instance, tags, on_event) if on_event else contextlib.nullcontext()
    with watching:
        if multiprocess and parallel is not None:
            config = {**run_config, "execution": multiprocess_config(parallel)}
            with dg.execute_job(
                dg.reconstructable(ingest_job),
                instance=instance,
                run_config=config,
                tags=tags,
                raise_on_error=False,
                asset_selection=list(asset_selection),
            ) as result:
                return JobRun(result.run_id, result.success, list(result.all_events))
        invocation = tags[INVOCATION_TAG]
        with prefetching.Prefetcher(prefetch, max_workers=fetch_concurrency) as prefetcher:
            prefetching.register(invocation, prefetcher)
            try:
                result = ingest_job().execute_in_process(
                    run_config=dict(run_config),
                    instance=instance,
                    raise_on_error=False,
                    asset_selection=list(asset_selection),
                    tags=tags,
                )
            finally:
                prefetching.unregister(invocation)
        return JobRun(result.run_id, result.success, list(result.all_events))
