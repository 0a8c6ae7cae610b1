"""What one scrape came to: a status from a closed set and the problems found, each with a code.

Made in one place, ``warehouse.scrape.Scrape.outcome``, from the state the scrape's lifecycle
reached. Decisions (the Dagster asset checks in ``pipelines.defs.providers``, the failure of a
provider's asset) read ``status`` and the problems' codes; ``error`` is the one-line message
people read (stored in ``scrapes.error``, shown by the CLI and ``GET /providers``) and may be
reworded freely.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime

from warehouse.problems import Problem, ProblemCode


class ScrapeStatus(enum.StrEnum):
    SUCCESS = "success"
    FAILED = "failed"
    SKIPPED = "skipped"  # not attempted: no token, no capture to replay
    UNCHANGED = "unchanged"  # this exact scrape (same bytes, same time) is already loaded


@dataclass
class ScrapeOutcome:
    provider: str
    source: str
    status: ScrapeStatus
    offer_count: int = 0
    error: str | None = None  # one line for people, from ``problems``; never branch on it
    scrape_id: str | None = None
    observed_at: datetime | None = None
    history: dict[str, int] = field(default_factory=dict)
    fallback: bool = False  # replayed because the live fetch failed
    unresolved_gpus: list[str] = field(default_factory=list)  # loaded with gpu_id null
    vram_mismatches: list[str] = field(default_factory=list)  # served at datasheet memory
    # plausibility screen (warehouse.plausibility): offer description -> reason codes
    suspect: dict[str, list[str]] = field(default_factory=dict)
    # rows the parser recognised as not offers, per reason (stored in scrape_exclusions)
    excluded: dict[str, int] = field(default_factory=dict)
    # parts of a multi-request fetch that failed alone: part -> one-line error (the rest loaded)
    skipped_parts: dict[str, str] = field(default_factory=dict)
    # what was wrong, with codes (a failed or skipped scrape has at least one)
    problems: list[Problem] = field(default_factory=list)

    @property
    def codes(self) -> set[ProblemCode]:
        return {p.code for p in self.problems}
