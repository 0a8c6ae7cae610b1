"""Progress bars for ``gpuprices ingest``: one line per provider, fed by the run's Dagster events.

A provider's line pulses while its step runs, shows the newest thing its step logged (one line
per scrape: ``lambda [lambda/2026-01-09_...]: success, 5 offers``), and ends as ``done`` or
``FAILED``. An overall bar counts finished providers. Nothing is drawn when stdout is not a
terminal (CI logs, pipes): the report printed after the run says the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Column

from pipelines.defs.providers import GROUP

MAX_DETAIL = 90


def _slug(step_key: str | None) -> str | None:
    # Provider assets are keyed ["providers", slug]; their step key is "providers__<slug>".
    prefix = f"{GROUP}__"
    if step_key and step_key.startswith(prefix):
        return step_key[len(prefix) :]
    return None


class IngestProgress:
    """Use as a context manager around the run; pass the instance as ``on_event``."""

    def __init__(self, slugs: Sequence[str], console: Console | None = None) -> None:
        self.console = console or Console()
        self.enabled = self.console.is_terminal
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.fields[slug]}", table_column=Column(width=12, no_wrap=True)),
            BarColumn(bar_width=20),
            TextColumn("{task.fields[state]}", table_column=Column(width=7, no_wrap=True)),
            TimeElapsedColumn(),
            TextColumn(
                "[dim]{task.description}",
                table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
            ),
            console=self.console,
            disable=not self.enabled,
            transient=False,
            expand=True,
        )
        self.overall: TaskID = self.progress.add_task(
            "", total=len(slugs), slug="providers", state=""
        )
        self.tasks: dict[str, TaskID] = {
            slug: self.progress.add_task("waiting", total=1, start=False, slug=slug, state="")
            for slug in slugs
        }

    def __enter__(self) -> IngestProgress:
        self.progress.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.progress.stop()

    def __call__(self, entry: dg.EventLogEntry) -> None:
        slug = _slug(entry.step_key)
        task = self.tasks.get(slug) if slug else None
        if task is None:
            return
        event = entry.dagster_event
        if event is None:
            lines = (entry.user_message or "").strip().splitlines()
            if lines:
                # "<slug> [<capture>]: success, 5 offers": the slug is already on the line.
                text = lines[0].removeprefix(f"{slug} ")[:MAX_DETAIL]
                self.progress.update(task, description=escape(text))
            return
        if event.event_type == dg.DagsterEventType.STEP_START:
            self.progress.start_task(task)
            self.progress.update(task, state="running", total=None)
        elif event.event_type in (
            dg.DagsterEventType.STEP_SUCCESS,
            dg.DagsterEventType.STEP_FAILURE,
        ):
            ok = event.event_type == dg.DagsterEventType.STEP_SUCCESS
            self.progress.update(task, total=1, completed=1, state="done" if ok else "[red]FAILED")
            self.progress.stop_task(task)
            self.progress.advance(self.overall)
