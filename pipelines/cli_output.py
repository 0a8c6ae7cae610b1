"""How the read commands (``query``, ``status``, ``sql``) print: a table sized to the terminal
for a person, plain CSV / TSV / JSON for a pipe or a script.

The format is ``--format`` when given (``--json`` is short for ``--format json``), else
``table`` when stdout is a terminal and ``csv`` when it is not, so ``gpuprices query | ...``
gets something the csv module, a spreadsheet or ``cut`` reads, never box-drawing characters.
A table shows a few wide columns by default, so it stays readable at 80 columns (rich sizes it
to ``$COLUMNS`` or the terminal); ``--wide`` shows every column. CSV and TSV always carry every
column of the table as plain values (ISO 8601 times, no thousands separators); with ``--wide``
every field the API serves.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal, TextIO

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from warehouse.csv_cells import inert

FORMATS = ("table", "csv", "tsv", "json")
Justify = Literal["left", "right"]
Row = Any  # what a Column's cell reads: a mapping of field names (or a tuple, for `sql`)


@dataclass(frozen=True)
class Column:
    """One table column: its heading, its cell (plain text or styled ``Text``, never markup:
    provider names and SQL results may hold ``[``), whether the default (narrow) table shows
    it, and whether its text may wrap over lines (free text) or stays on one line."""

    header: str
    cell: Callable[[Row], str | Text]
    justify: Justify = "left"
    narrow: bool = True
    wrap: bool = False
    wide: bool = True  # shown by --wide (False: a short form that --wide replaces)
    min_width: int | None = None  # a wrapping column is never squeezed below this


def add_format_arguments(
    parser: argparse.ArgumentParser, *, json_body: str, wide: bool = True
) -> None:
    """``--format``, ``--json`` and (if ``wide``) ``--wide``; ``json_body`` says what the
    JSON holds."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help=f"table (for a person), csv, tsv, or json ({json_body}); default: table on a "
        "terminal, csv when stdout is a pipe or a file",
    )
    parser.add_argument(
        "--json",
        action="store_const",
        dest="format",
        const="json",
        help="same as --format json",
    )
    if not wide:
        return
    parser.add_argument(
        "--wide",
        action="store_true",
        help="table: every column, however wide the terminal (default: the key columns, "
        "readable at 80 columns); csv/tsv: every field, not only the table's columns",
    )


def resolve_format(requested: str | None, stream: TextIO | None = None) -> str:
    """``requested``, else ``table`` on a terminal and ``csv`` anywhere else."""
    if requested:
        return requested
    stream = stream or sys.stdout
    isatty = getattr(stream, "isatty", None)
    return "table" if isatty is not None and isatty() else "csv"


def print_table(
    rows: Iterable[Row],
    columns: Sequence[Column],
    *,
    title: str | None = None,
    wide: bool = False,
    caption: str | None = None,
) -> None:
    """A table that fits the console width: the narrow columns unless ``wide``."""
    console = Console(highlight=False)
    shown = [c for c in columns if (c.wide if wide else c.narrow)]
    table = Table(
        title=title,
        title_justify="left",
        caption=caption,
        caption_justify="left",
        # no vertical rules, no padding: columns are one space (the blank rule) apart
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=0,
    )
    for column in shown:
        table.add_column(
            column.header,
            justify=column.justify,
            no_wrap=not column.wrap,
            overflow="fold" if column.wrap else "ellipsis",
            min_width=column.min_width,
        )
    for row in rows:
        cells = [column.cell(row) for column in shown]
        table.add_row(*(c if isinstance(c, Text) else Text(c) for c in cells))
    console.print(table)


def print_lines(lines: Sequence[Text], *, title: str) -> None:
    """``title`` and an indented, wrapped line per item (nothing when there are none)."""
    if not lines:
        return
    console = Console(highlight=False)
    console.print(Text(title))
    for line in lines:
        console.print(Padding(line, (0, 0, 0, 2)))


def plain(value: Any) -> str:
    """A value as one CSV/TSV cell: empty for null, ISO 8601 times, ``true``/``false``,
    decimals without exponent or grouping, lists joined by ``;``, objects as JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ";".join(plain(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, default=json_default, sort_keys=True)
    return str(value)


def write_delimited(
    rows: Iterable[Mapping[str, Any]],
    fields: Sequence[str],
    fmt: str,
    stream: TextIO | None = None,
    *,
    header: Sequence[str] | None = None,
) -> None:
    """Rows as CSV (RFC 4180, comma) or TSV (tab; tabs and newlines in a value become spaces,
    so every line is one row), under a header line (``header``, default the field names)."""
    out: TextIO = stream or sys.stdout
    header = list(header if header is not None else fields)
    if fmt == "tsv":
        out.write("\t".join(" ".join(h.split()) for h in header) + "\n")
        for row in rows:
            cells = (inert(plain(row.get(f))) for f in fields)
            out.write("\t".join(" ".join(c.split()) if c else c for c in cells) + "\n")
        return
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:  # formula injection: text cells made inert (warehouse.csv_cells)
        writer.writerow([inert(plain(row.get(f))) for f in fields])


def json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def print_json(body: Any) -> None:
    print(json.dumps(body, default=json_default, indent=1))


def error(message: str) -> None:
    """One line on stderr: ``error: <message>`` (newlines in the message become spaces)."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
