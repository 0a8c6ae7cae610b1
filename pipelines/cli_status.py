"""``gpuprices status``: per-provider freshness, last error and offer counts of the current
published snapshot (the rows of GET /providers), printed through ``pipelines.cli_output``: a
table that fits 80 columns on a terminal, CSV when piped, or ``--format csv|tsv|json``.

Above the table: how many providers are live (``warehouse.queries.Liveness``: prices from
a live scrape, within their shelf life) and, when none is, the banner ``GET /health`` carries.
"last live" is the last live success: loading recorded data is never one. Below the table: the
rows each provider's parser did not know (unknown SKUs, named), then the last errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.text import Text

from pipelines import cli_output
from pipelines.cli_output import Column
from pipelines.cli_snapshot import open_snapshot
from warehouse.queries import PROVIDERS_SQL, liveness

MAX_ERROR_LIST_CHARS = 240  # `status` lists errors below its table, wrapped, up to this long
# CSV/TSV columns of `status` (--wide: every field of GET /providers)
STATUS_FIELDS = (
    "provider",
    "last_status",
    "last_attempt_at",
    "live",
    "stale",
    "last_success_at",
    "last_recorded_load_at",
    "last_failure_at",
    "data_observed_at",
    "data_origin",
    "newest_price_age_days",
    "shelf_life_days",
    "current_offer_count",
    "suspect_offer_count",
    "stale_offer_count",
    "expired_offer_count",
    "benign_row_count",
    "unknown_row_count",
    "unknown_rows",
    "skipped_part_count",
    "last_error",
)


def _since(when: datetime | None, now: datetime) -> str:
    if when is None:
        return "never"
    hours = (now - when).total_seconds() / 3600
    return f"{hours:.0f} h ago" if hours < 48 else f"{hours / 24:.0f} d ago"


def _last_error(row: dict[str, Any], limit: int | None) -> Text:
    """The last error, dimmed and marked ``(resolved)`` when a live success came after it
    (recorded data loaded after a failed live fetch resolves nothing)."""
    error = " ".join((row["last_error"] or "").split())
    if limit is not None and len(error) > limit:
        error = error[:limit] + "…"
    resolved = (
        error
        and row["last_failure_at"]
        and row["last_success_at"]
        and row["last_success_at"] > row["last_failure_at"]
    )
    return Text(f"(resolved) {error}", style="dim") if resolved else Text(error)


def _days(days: float | None) -> str:
    return "" if days is None else f"{days:g} d"


def _unknown_rows(row: dict[str, Any]) -> str:
    """``unknown_sku X (1), unknown_gpu Y (2)``: the rows the provider's parser did not know."""
    return ", ".join(f"{reason} ({n})" for reason, n in sorted(row["unknown_rows"].items()))


def _state(row: dict[str, Any]) -> Text:
    """live (a live scrape's prices, within their shelf life), stale (past it), else recorded."""
    if row["live"]:
        return Text("live", style="green")
    if row["stale"]:
        return Text("stale", style="yellow")
    return Text(row["data_origin"] or "")


def _status_columns(now: datetime) -> tuple[Column, ...]:
    def status(row: dict[str, Any]) -> Text:
        text = row["last_status"] or "never run"
        return Text(text, style="red" if text == "failed" else "")

    def observed(row: dict[str, Any]) -> str:
        when = row["newest_price_observed_at"] or row["data_observed_at"]
        return f"{when:%Y-%m-%d}" if when else "never"

    def count(key: str) -> Callable[[dict[str, Any]], str]:
        return lambda row: str(row[key] if row[key] is not None else "")

    return (
        Column("provider", lambda r: r["provider"]),
        Column("last run", status),
        Column("data from", observed),
        Column("data", _state),
        Column("origin", lambda r: r["data_origin"] or "", narrow=False),
        Column("last live", lambda r: _since(r["last_success_at"], now)),
        Column("recorded load", lambda r: _since(r["last_recorded_load_at"], now), narrow=False),
        Column("shelf life", lambda r: _days(r["shelf_life_days"]), "right", narrow=False),
        Column("offers", count("current_offer_count"), "right"),
        Column("suspect", count("suspect_offer_count"), "right"),
        Column("expired", count("expired_offer_count"), "right"),
        Column("excluded", count("benign_row_count"), "right", narrow=False),
        Column("unknown", count("unknown_row_count"), "right", narrow=False),
        Column("parts skipped", count("skipped_part_count"), "right", narrow=False),
        Column("last error", lambda r: _last_error(r, None), narrow=False, wrap=True),
    )


def run_status(args: argparse.Namespace) -> int:
    """Print one row per provider: last status, data age, last error, current offers."""
    opened = open_snapshot()
    if opened is None:
        return 1
    info, con = opened
    try:
        result = con.execute(PROVIDERS_SQL)
        fields = [d[0] for d in result.description or []]
        rows = [dict(zip(fields, row, strict=True)) for row in result.fetchall()]
        live = liveness(con)
    finally:
        con.close()
    fmt = cli_output.resolve_format(args.format)
    if fmt == "json":
        cli_output.print_json({"snapshot_id": info.snapshot_id, "as_of": info.as_of, "items": rows})
    elif fmt in ("csv", "tsv"):
        for row in rows:  # one cell: `unknown_sku X (1), ...`
            row["unknown_rows"] = _unknown_rows(row)
        cli_output.write_delimited(rows, fields if args.wide else STATUS_FIELDS, fmt)
    else:
        now = datetime.now(UTC)
        console = Console(highlight=False)
        if live.banner:
            console.print(Text(live.banner, style="bold yellow"))
        console.print(Text(f"{live.line} (prices from a live scrape, within their shelf life)"))
        cli_output.print_table(
            rows,
            _status_columns(now),
            wide=args.wide,
            title=f"snapshot {info.snapshot_id}, published {_since(info.as_of, now)}",
            caption=None
            if args.wide
            else "data from: when the newest served price was observed; data: live (a live "
            "scrape's prices, within the provider's shelf life), recorded, or stale (past it); "
            "last live: the last live success, never a load of recorded data; expired: offers "
            "past the shelf life of their kind of price, left out of answers. --wide: origin, "
            "excluded and unknown rows, skipped parts, whole errors",
        )
        unknown = [(r["provider"], _unknown_rows(r)) for r in rows if r["unknown_rows"]]
        cli_output.print_lines(
            [Text(f"{slug}: {names}") for slug, names in unknown],
            title="rows not recognised (unknown SKUs, GPUs, cells), by provider:",
        )
        if not args.wide:
            # at 80 columns an error column would be a few letters wide: one line each below
            errors = [(r["provider"], _last_error(r, MAX_ERROR_LIST_CHARS)) for r in rows]
            cli_output.print_lines(
                [Text.assemble(f"{slug}: ", text) for slug, text in errors if text.plain],
                title="last errors:",
            )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``status`` to the ``gpuprices`` parser."""
    status = sub.add_parser(
        "status",
        help="per-provider freshness, last error, offer counts",
        description="One row per provider of the published snapshot: its last run, when its "
        "served prices were observed and where they came from (live, recorded, curated), "
        "whether they are stale (past the provider's shelf life), its last live success, its "
        "current, suspect and expired offers, the rows its parser did not know (named), and "
        "its last error; above them, how many providers are live.",
    )
    cli_output.add_format_arguments(status, json_body="GET /providers' body")
    status.set_defaults(func=run_status)
