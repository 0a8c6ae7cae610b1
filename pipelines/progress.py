"""Progress of ``gpuprices ingest``: one row per provider, fed by the run's Dagster events.

On a terminal, a provider's row pulses while its step runs, shows the newest thing its step
logged (one line per scrape: ``lambda [lambda/2026-01-09_...]: success, 5 offers``), and ends
saying what the run ended serving (the step's ``served_from`` metadata,
``pipelines.outcomes.Served``): ``live``, ``recorded`` (the live fetch failed and recorded
captures or the shipped recorded offers were loaded instead), ``replayed`` (a ``--replay``
run), with the data's observation day and age, or ``FAILED`` when nothing was loaded. An
overall bar counts finished providers.

Not on a terminal (CI logs, pipes, cron), nothing is drawn: one plain line per provider is
printed to stderr as its step finishes (no ANSI codes), so a log shows the run advancing; the
report printed after the run (stdout) stays as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TextIO

import dagster as dg
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Column

from pipelines.defs.providers import GROUP
from pipelines.outcomes import Served

MAX_DETAIL = 90
STATE_WIDTH = 8  # "recorded", "replayed"
_STYLE = {"live": "green", "recorded": "yellow", "replayed": "cyan", "FAILED": "red"}


def _slug(step_key: str | None) -> str | None:
    # Provider assets are keyed ["providers", slug]; their step key is "providers__<slug>".
    prefix = f"{GROUP}__"
    if step_key and step_key.startswith(prefix):
        return step_key[len(prefix) :]
    return None


def age(observed_at: datetime, now: datetime) -> str:
    """How old data observed at ``observed_at`` is at ``now``: hours under two days, else days."""
    hours = max((now - observed_at).total_seconds(), 0) / 3600
    return f"{hours:.0f} h old" if hours < 48 else f"{hours / 24:.0f} d old"


def ending(
    metadata: dict[str, str], ok: bool, now: datetime | None = None
) -> tuple[str, str | None]:
    """(state, detail) of a finished provider step from its ``served_from`` and
    ``served_observed_at`` metadata: ``("recorded", "2026-01-09 (327 d old)")``; a step
    that loaded nothing is ``FAILED`` (or ``done`` if it succeeded), detail None."""
    try:
        served = Served(metadata.get("served_from", ""))
    except ValueError:
        served = Served.NOTHING
    observed = metadata.get("served_observed_at") or ""
    if served is Served.NOTHING or not observed:
        return ("done" if ok else "FAILED"), None
    when = datetime.fromisoformat(observed)
    return str(served), f"{when:%Y-%m-%d} ({age(when, now or datetime.now(UTC))})"


def _metadata(entry: dg.EventLogEntry) -> dict[str, str]:
    """The served_* metadata an event carries: a materialization's, or a failure's."""
    event = entry.dagster_event
    values = {}
    if event is not None and event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
        materialization = entry.asset_materialization
        values = dict(materialization.metadata) if materialization else {}
    elif event is not None and event.event_type == dg.DagsterEventType.STEP_FAILURE:
        failure = event.step_failure_data.user_failure_data
        values = dict(failure.metadata) if failure else {}
    return {k: str(v.value) for k, v in values.items() if k.startswith("served_")}


class IngestProgress:
    """Use as a context manager around the run; pass the instance as ``on_event``.

    ``plain`` (default: stderr) receives the one-line-per-provider output when the console is
    not a terminal; ``enabled`` says whether anything is shown at all (the caller turns it off
    under ``-v``, whose Dagster run log says more)."""

    def __init__(
        self,
        slugs: Sequence[str],
        console: Console | None = None,
        plain: TextIO | None = None,
    ) -> None:
        self.console = console or Console()
        self.terminal = self.console.is_terminal
        self.enabled = True
        self.plain = plain
        self.width = max((len(s) for s in slugs), default=8)
        self.done = 0
        self.total = len(slugs)
        self.served: dict[str, dict[str, str]] = {}
        self.last_line: dict[str, str] = {}  # the newest line each step logged, unescaped
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.fields[slug]}", table_column=Column(width=12, no_wrap=True)),
            BarColumn(bar_width=20),
            TextColumn(
                "{task.fields[state]}", table_column=Column(width=STATE_WIDTH, no_wrap=True)
            ),
            TimeElapsedColumn(),
            TextColumn(
                "[dim]{task.description}",
                table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
            ),
            console=self.console,
            disable=not self.terminal,
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
        if self.terminal:
            self.progress.start()
        else:  # at once: the first provider finishes after Dagster's start and the seeds
            noun = "provider" if self.total == 1 else "providers"
            print(
                f"ingest: {self.total} {noun}, a line as each finishes",
                file=self.plain or sys.stderr,
                flush=True,
            )
        return self

    def __exit__(self, *_: object) -> None:
        if self.terminal:
            self.progress.stop()

    def __call__(self, entry: dg.EventLogEntry) -> None:
        slug = _slug(entry.step_key)
        task = self.tasks.get(slug) if slug else None
        if slug is None or task is None:
            return
        event = entry.dagster_event
        if event is None:
            lines = (entry.user_message or "").strip().splitlines()
            if lines:
                # "<slug> [<capture>]: success, 5 offers": the slug is already on the line.
                text = lines[0].removeprefix(f"{slug} ")[:MAX_DETAIL]
                self.last_line[slug] = text
                self.progress.update(task, description=escape(text))
            return
        self.served[slug] = self.served.get(slug, {}) | _metadata(entry)
        if event.event_type == dg.DagsterEventType.STEP_START:
            self.progress.start_task(task)
            self.progress.update(task, state="running", total=None)
        elif event.event_type in (
            dg.DagsterEventType.STEP_SUCCESS,
            dg.DagsterEventType.STEP_FAILURE,
        ):
            ok = event.event_type == dg.DagsterEventType.STEP_SUCCESS
            state, detail = ending(self.served.get(slug, {}), ok)
            shown = f"[{_STYLE[state]}]{state}" if state in _STYLE else state
            self.progress.update(task, total=1, completed=1, state=shown)
            if detail:
                self.progress.update(task, description=escape(detail))
            self.progress.stop_task(task)
            self.progress.advance(self.overall)
            self.done += 1
            if not self.terminal:
                self._plain_line(slug, state, detail or self.last_line.get(slug, ""))

    def _plain_line(self, slug: str, state: str, detail: str) -> None:
        out = self.plain or sys.stderr
        count = f"[{self.done:>{len(str(self.total))}}/{self.total}]"
        print(f"{count} {slug:<{self.width}} {state:<{STATE_WIDTH}} {detail}", file=out, flush=True)
