"""Whether an observation's figures fit the warehouse's columns, checked before anything is
inserted (issue 27).

``num_gpus = 1e9`` (``gpu_count`` is ``decimal(10, 4)``) or a price of 2e9 (``price`` is
``decimal(18, 9)``) made DuckDB's insert fail mid-transaction, and the rollback's error hid the
cause. The bounds are read from the table's own column types (``information_schema``), so a
migration that widens a column widens the check with it: a value fits when its magnitude,
rounded to the column's scale, is below 10^(precision - scale); an integer column holds 32 bits.
A value that does not fit is a ``VALUE_OUT_OF_RANGE`` problem: the scrape fails loudly and the
provider's last good data stays current. A conversion error DuckDB raises anyway (a column this
check does not know) is the same problem (``conversion_problem``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import duckdb

from warehouse.problems import Problem, ProblemCode

INTEGER_MAX = 2**31 - 1
# DuckDB's errors when a value does not fit a column's type
CONVERSION_ERRORS = (duckdb.ConversionException, duckdb.OutOfRangeException)


def column_limits(
    con: duckdb.DuckDBPyConnection, table: str = "observations"
) -> dict[str, tuple[Decimal, int]]:
    """Numeric column -> (the first magnitude it cannot hold, its scale) of ``table``."""
    rows = con.execute(
        "select column_name, data_type, numeric_precision, numeric_scale"
        " from information_schema.columns where table_schema = 'main' and table_name = ?",
        [table],
    ).fetchall()
    limits: dict[str, tuple[Decimal, int]] = {}
    for name, kind, precision, scale in rows:
        if str(kind).startswith("DECIMAL") and precision is not None:
            limits[name] = (Decimal(10) ** (int(precision) - int(scale or 0)), int(scale or 0))
        elif kind == "INTEGER":
            limits[name] = (Decimal(INTEGER_MAX + 1), 0)
    return limits


def out_of_range(
    values: Mapping[str, Any], limits: Mapping[str, tuple[Decimal, int]]
) -> str | None:
    """The first of ``values`` (column -> value) its column cannot hold, as ``name value``; None
    when all fit. Booleans and nulls are not numbers here; NaN and infinities never fit."""
    for name, (limit, scale) in limits.items():
        value = values.get(name)
        if value is None or isinstance(value, bool) or not isinstance(value, int | float | Decimal):
            continue
        try:
            number = Decimal(value)
            fits = number.is_finite() and abs(number.quantize(Decimal(1).scaleb(-scale))) < limit
        except InvalidOperation:  # too many digits to quantize: far past any column
            fits = False
        if not fits:
            return f"{name} {value}"
    return None


def range_problem(found: list[str]) -> Problem:
    return Problem(
        ProblemCode.VALUE_OUT_OF_RANGE,
        f"{len(found)} offers with a value the warehouse cannot hold: " + ", ".join(found[:5]),
    )


def conversion_problem(exc: BaseException) -> Problem:
    """A DuckDB conversion error (``CONVERSION_ERRORS``) as one line."""
    lines = str(exc).strip().splitlines()
    return Problem(
        ProblemCode.VALUE_OUT_OF_RANGE, f"value out of range: {lines[0] if lines else ''}"
    )
