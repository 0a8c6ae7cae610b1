"""Where a curated fact comes from and how its date is known (seeds/FACTS.md, "Provenance").

Every row of a curated seed that carries a price or a dated fact (provider facts, serverless
platforms, serverless tiers) says:

- ``source_kind``: ``provider`` when everything the row states rests on the provider's own page,
  docs, API or repository; ``third_party`` when any of it rests on someone else's page (a blog,
  a transcription, a Q&A answer);
- ``observed_basis``: how the row's date is known: ``published`` (a date printed on the source),
  ``captured`` (the time of a stored capture, whose file the row names), ``retrieved`` (the day a
  first-party page was read, without a stored copy) or ``undated`` (a third-party source that
  prints no date: the row has no date).

The rules (:func:`check_provenance`): a third-party row is dated by its source's own date, never
by the day it was read (``retrieved`` is first-party only); ``undated`` rows have no date and
every other row has one; ``captured`` rows name their capture, other rows name none. A price
without a date has no age: ``current_offers`` serves it as expired (``max_age_days`` never
returns it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

SOURCE_KINDS = ("provider", "third_party")
OBSERVED_BASES = ("published", "captured", "retrieved", "undated")


@dataclass(frozen=True)
class Provenance:
    source_kind: str
    observed_basis: str
    captures: tuple[str, ...]


def _capture_name(name: str) -> str:
    """A capture is named by its path under the snapshots folder: ``<provider>/<file>``."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or len(path.parts) != 2:
        raise ValueError(f"capture {name!r} is not <folder>/<file> under the snapshots folder")
    return name


def check_provenance(
    source_kind: str | None,
    observed_basis: str | None,
    has_date: bool,
    captures: str | None,
) -> Provenance:
    """The row's provenance, validated. ``captures`` is space-separated capture names.

    Raises ValueError (the caller adds file and line) for a value outside the vocabulary, a
    third-party row dated by the day it was read, a date on an undated row or none on a dated
    one, or a capture named on a row that is not ``captured`` (or none on one that is).
    """
    kind, basis = (source_kind or "").strip(), (observed_basis or "").strip()
    if kind not in SOURCE_KINDS:
        raise ValueError(f"source_kind {kind!r} not in {list(SOURCE_KINDS)}")
    if basis not in OBSERVED_BASES:
        raise ValueError(f"observed_basis {basis!r} not in {list(OBSERVED_BASES)}")
    if kind == "third_party" and basis == "retrieved":
        raise ValueError(
            "a third-party source is dated by its own published date (published), or is "
            "undated, never by the day it was read (retrieved)"
        )
    if basis == "undated" and has_date:
        raise ValueError("observed_basis undated but the row has a date")
    if basis != "undated" and not has_date:
        raise ValueError(f"observed_basis {basis} but the row has no date (undated?)")
    files = tuple(_capture_name(c) for c in (captures or "").split())
    if basis == "captured" and not files:
        raise ValueError("observed_basis captured names no capture file")
    if basis != "captured" and files:
        raise ValueError(f"capture file named but observed_basis is {basis}, not captured")
    return Provenance(kind, basis, files)
