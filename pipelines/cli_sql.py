"""``gpuprices sql "select ..."``: one read-only query over the current published snapshot.

The snapshot file is opened read-only with DuckDB's external access off and the configuration
locked, so a query can neither change the snapshot nor write, read or attach any other file
(``COPY ... TO``, ``ATTACH``, ``read_csv('/etc/...')``, ``INSTALL`` all fail); temporary tables
live in memory and vanish with the command. The snapshot's views and macros (docs/sql.md) are
there as in the DuckDB CLI. Times are shown in UTC.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import duckdb
from rich.text import Text

from pipelines import cli_output
from pipelines.cli_output import Column
from pipelines.cli_snapshot import current_snapshot
from warehouse.publish import SnapshotInfo

EXIT_BAD_QUERY = 1
READ_ONLY_CONFIG = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def connect_read_only(info: SnapshotInfo) -> duckdb.DuckDBPyConnection:
    """The snapshot file, opened so that nothing can be written anywhere (see module doc)."""
    con = duckdb.connect(str(info.path), read_only=True, config=dict(READ_ONLY_CONFIG))
    try:
        # TimeZone is not a connect-time option (the ICU extension defines it); locking the
        # configuration afterwards keeps a query from turning external access back on
        con.execute("set timezone = 'UTC'")
        con.execute("set lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def run_sql(info: SnapshotInfo, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of the last statement of ``sql``. Raises ``duckdb.Error``."""
    con = connect_read_only(info)
    try:
        result = con.execute(sql)
        if result.description is None:  # a statement without a result (e.g. pragma)
            return [], []
        return [d[0] for d in result.description], result.fetchall()
    finally:
        con.close()


def _first_line(exc: duckdb.Error) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _numeric(rows: list[tuple[Any, ...]], index: int) -> bool:
    values = [row[index] for row in rows if row[index] is not None]
    return bool(values) and all(
        isinstance(v, int | float | Decimal) and not isinstance(v, bool) for v in values
    )


def _cell(index: int) -> Callable[[tuple[Any, ...]], Text]:
    def cell(row: tuple[Any, ...]) -> Text:
        value = row[index]
        return Text("NULL", style="dim") if value is None else Text(cli_output.plain(value))

    return cell


def _main(args: argparse.Namespace) -> int:
    sql = args.query
    if sql is None or sql == "-":
        if sql is None and sys.stdin.isatty():
            cli_output.error('give a query: gpuprices sql "select ..." (or - to read stdin)')
            return 2
        sql = sys.stdin.read()
    if not sql.strip():
        cli_output.error("the query is empty")
        return 2
    found = current_snapshot()
    if isinstance(found, str):
        cli_output.error(found)
        return 1
    try:
        columns, rows = run_sql(found, sql)
    except duckdb.Error as exc:
        cli_output.error(_first_line(exc))
        return EXIT_BAD_QUERY
    fmt = cli_output.resolve_format(args.format)
    if fmt == "json":
        cli_output.print_json(
            {
                "snapshot_id": found.snapshot_id,
                "as_of": found.as_of,
                "columns": columns,
                "items": [dict(zip(columns, row, strict=True)) for row in rows],
            }
        )
    elif fmt in ("csv", "tsv"):
        if columns:
            # keyed by position: a query may name two columns alike
            keys = [str(i) for i in range(len(columns))]
            records = [dict(zip(keys, row, strict=True)) for row in rows]
            cli_output.write_delimited(records, keys, fmt, header=columns)
    elif columns:
        cli_output.print_table(
            rows,
            [
                Column(name, _cell(i), "right" if _numeric(rows, i) else "left", wrap=True)
                for i, name in enumerate(columns)
            ],
            title=None,
            wide=True,
            caption=f"{len(rows)} row{'' if len(rows) == 1 else 's'}, snapshot {found.snapshot_id}",
        )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``sql`` to the ``gpuprices`` parser."""
    parser = sub.add_parser(
        "sql",
        help="run a read-only SQL query on the current snapshot",
        description="Run DuckDB SQL on the current published snapshot (tables and views: "
        "docs/sql.md), read-only: nothing can be written, and no other file read. Prints a "
        "table on a terminal, CSV when piped. A query DuckDB rejects prints one line "
        "`error: ...` and exits 1.",
    )
    parser.add_argument(
        "query",
        nargs="?",
        metavar="SQL",
        help='the query, e.g. "select * from daily_gpu_prices limit 5"; - (or nothing, '
        "from a pipe) reads it from stdin; with several statements, the last one's rows print",
    )
    cli_output.add_format_arguments(parser, json_body="columns and rows", wide=False)
    parser.set_defaults(func=_main)
