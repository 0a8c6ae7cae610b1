"""The parameters of the history endpoints: time, a plain date (``2026-01-01``) or an RFC 3339
timestamp (``2026-01-01T00:00:00Z``), each meaning what a reader expects of it (the ``to`` and
``from`` parameters: ``LastDay``, ``first_day``).

``since`` names an instant: a date is its first instant, midnight UTC; a timestamp without an
offset is UTC. ``from`` / ``to`` name UTC days (inclusive): a timestamp names the UTC day it
falls on. A value that is neither is a 400 naming the parameter and both accepted forms.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Annotated, Any

from litestar.exceptions import ClientException
from litestar.params import Parameter, QueryParameter

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


# The time parameters: a plain date or an RFC 3339 timestamp. The pattern is documented in the
# schema and checked by parse_day and parse_instant, whose 400 names both accepted forms (as a
# validation pattern its message would be the regex).
TIME = {"schema_extra": {"pattern": DATE_OR_TIMESTAMP_PATTERN}, "max_length": 40}
# the `to` parameter of the history endpoints
LastDay = Annotated[
    str | None,
    Parameter(
        description="Last day, UTC, inclusive (default: the day the snapshot was published): "
        f"{FORMS}, which names its UTC day",
        **TIME,
    ),
]


def first_day(description: str) -> Any:
    """The `from` parameter of a history endpoint (``from_`` in Python), described."""
    return QueryParameter(name="from", description=f"{description}: {FORMS}", **TIME)
