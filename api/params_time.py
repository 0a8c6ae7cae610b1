"""Time parameters of the history endpoints: a plain date (``2026-01-01``) or an RFC 3339
timestamp (``2026-01-01T00:00:00Z``), each meaning what a reader expects of it.

``since`` names an instant: a date is its first instant, midnight UTC; a timestamp without an
offset is UTC. ``from`` / ``to`` name UTC days (inclusive): a timestamp names the UTC day it
falls on. A value that is neither is a 400 naming the parameter and both accepted forms.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from litestar.exceptions import ClientException

# A date, optionally followed by a time and an offset (RFC 3339; a space for the T, seconds,
# fractions and the offset are optional, as ISO 8601 allows).
DATE_OR_TIMESTAMP_PATTERN = (
    r"^\d{4}-\d{2}-\d{2}"
    r"([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?$"
)
_PATTERN = re.compile(DATE_OR_TIMESTAMP_PATTERN)
FORMS = "a date (2026-01-01) or an RFC 3339 timestamp (2026-01-01T00:00:00Z)"


def _parse(text: str, name: str) -> date | datetime:
    value = text.strip()
    if not _PATTERN.match(value):
        raise ClientException(f"{name}: {text!r} is not {FORMS}")
    try:
        if len(value) == 10:
            return date.fromisoformat(value)
        # fromisoformat reads 'Z' from Python 3.11 on; up to 6 fraction digits
        fixed = re.sub(r"(\.\d{6})\d+", r"\1", value.replace("z", "Z").replace("t", "T"))
        return datetime.fromisoformat(fixed)
    except ValueError:
        raise ClientException(f"{name}: {text!r} is not {FORMS}") from None


def parse_instant(text: str | None, name: str) -> datetime | None:
    """``text`` as an aware instant (a date: midnight UTC; no offset: UTC), or None."""
    if text is None:
        return None
    value = _parse(text, name)
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def parse_day(text: str | None, name: str) -> date | None:
    """``text`` as a UTC day (a timestamp: the UTC day it falls on), or None."""
    if text is None:
        return None
    value = _parse(text, name)
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is None:
        return value.date()
    try:
        return value.astimezone(UTC).date()
    except OverflowError:  # 0001-01-01T00:00+05:00 is before the calendar's first day in UTC
        raise ClientException(f"{name}: {text!r} is outside the calendar in UTC") from None
