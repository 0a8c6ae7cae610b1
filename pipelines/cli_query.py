"""``gpuprices query`` (the API's /instances filters, as a table) and ``gpuprices status``
(per-provider freshness, last error and offer counts), both over the current published snapshot.

The CLI is the project's composition root (it also starts the API), so ``query`` reuses the
API's filter and SQL builders rather than keeping a second copy that could drift from them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import duckdb
from rich.console import Console
from rich.table import Table

from api.queries import INSTANCE_SORTS, PROVIDERS_SQL, instances_sql, instances_where
from pipelines.cli_exports import current_snapshot
from warehouse.paths import Paths
from warehouse.publish import SnapshotInfo, load_into_memory

PRICING = ("on_demand", "spot", "reserved", "dynamic")
MAX_ERROR_CHARS = 80


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    result = con.execute(sql, params)
    columns = [d[0] for d in result.description or []]
    return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def _money(value: Decimal | float | None, places: int = 2) -> str:
    return "" if value is None else f"{Decimal(str(value)):,.{places}f}"


def _num(value: Decimal | float | None) -> str:
    return "" if value is None else format(Decimal(str(value)).normalize(), "f")


def _open(console: Console) -> tuple[SnapshotInfo, duckdb.DuckDBPyConnection] | None:
    found = current_snapshot(Paths.from_env())
    if isinstance(found, str):
        console.print(f"error: {found}", style="red", highlight=False)
        return None
    return found, load_into_memory(found)


def filters_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The /instances filter dict, built exactly as the API builds it from query parameters."""
    from api.queries import normalise_gpu_filter

    return {
        "min_vram": args.min_vram,
        "min_total_vram": args.min_total_vram,
        "fp8": args.fp8,
        "bf16": args.bf16,
        "gpu": sorted({normalise_gpu_filter(g) for g in args.gpu}) if args.gpu else None,
        "provider": sorted(set(args.provider)) if args.provider else None,
        "pricing": sorted(set(args.pricing)) if args.pricing else None,
        "serverless": args.serverless,
        "max_price": args.max_price,
        "max_price_per_gpu": args.max_price_per_gpu,
        "min_gpus": args.min_gpus,
        "region": sorted(set(args.region)) if args.region else None,
        "max_age_days": args.max_age_days,
        "include_suspect": args.include_suspect or None,
    }


def run_query(args: argparse.Namespace) -> int:
    """Print matching offers, cheapest first by ``--sort``; 1 if there is no snapshot."""
    console = Console(stderr=False)
    opened = _open(Console(stderr=True))
    if opened is None:
        return 1
    info, con = opened
    try:
        where = instances_where(filters_from_args(args))
        page_sql, count_sql = instances_sql(where, args.sort)
        items = _rows(con, page_sql, [*where.params, args.limit, args.offset])
        total = _rows(con, count_sql, where.params)[0]["n"]
    finally:
        con.close()
    if args.json:
        body = {
            "items": items,
            "total": total,
            "limit": args.limit,
            "offset": args.offset,
            "as_of": info.as_of,
        }
        print(json.dumps(body, default=_json_default, indent=1))
        return 0
    table = Table(
        title=f"{len(items)} of {total} offers  (snapshot {info.snapshot_id}, "
        f"as of {info.as_of:%Y-%m-%d %H:%M} UTC)",
        title_justify="left",
    )
    numeric = ("usable GB/GPU", "$/hour", "$/GPU-hour", "$/GB-hour")
    for name in (
        "provider",
        "instance",
        "region",
        "GPUs (canonical id)",
        *numeric[:1],
        "pricing",
        *numeric[1:],
        "observed",
    ):
        table.add_column(
            name, justify="right" if name in numeric else "left", no_wrap=name in numeric
        )
    for item in items:
        gpus = f"{_num(item['gpu_count'])}x {item['gpu_model'] or item['gpu_name_provider']}"
        table.add_row(
            item["provider"],
            item["instance_type"],
            item["region"],
            gpus,
            _num(item["vram_gb_usable"]),
            item["pricing"] + (" (serverless)" if item["serverless"] else ""),
            _money(item["price_per_hour_usd"]),
            _money(item["price_per_gpu_hour_usd"], 3),
            _money(item["price_per_vram_gb_hour_usd"], 4),
            _observed(item),
        )
    console.print(table)
    return 0


def _observed(item: dict[str, Any]) -> str:
    """``2026-09 (91 d, recorded)``: the date at its precision, the age, live/recorded/curated;
    stale prices and suspect ones (shown with --include-suspect) say so."""
    when = item["observed_at"]
    if when is None:
        return ""
    shown = f"{when:%Y-%m}" if item["observed_precision"] == "month" else f"{when:%Y-%m-%d}"
    text = f"{shown} ({item['age_days']:.0f} d, {item['data_origin']})"
    if item["price_status"] != "ok":
        text += " SUSPECT"
    return f"[yellow]{text}" if item["stale"] else text


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _age(when: datetime | None, now: datetime) -> str:
    if when is None:
        return "never"
    hours = (now - when).total_seconds() / 3600
    return f"{hours:.0f} h ago" if hours < 48 else f"{hours / 24:.0f} d ago"


def run_status(args: argparse.Namespace) -> int:
    """Print one line per provider: last status, data age, last error, current offers."""
    console = Console()
    opened = _open(Console(stderr=True))
    if opened is None:
        return 1
    info, con = opened
    try:
        rows = _rows(con, PROVIDERS_SQL, [])
    finally:
        con.close()
    if args.json:
        print(
            json.dumps(
                {"snapshot_id": info.snapshot_id, "as_of": info.as_of, "items": rows},
                default=_json_default,
                indent=1,
            )
        )
        return 0
    now = datetime.now(UTC)
    table = Table(
        title=f"snapshot {info.snapshot_id}, published {_age(info.as_of, now)}",
        title_justify="left",
    )
    counts = ("offers", "suspect", "stale", "excluded", "parts skipped")
    for name in (
        "provider",
        "last run",
        "data observed",
        "origin",
        "last success",
        *counts,
        "last error",
    ):
        table.add_column(name, justify="right" if name in counts else "left")
    for row in rows:
        status = row["last_status"]
        error = row["last_error"] or ""
        if (
            error
            and row["last_failure_at"]
            and row["last_success_at"]
            and row["last_success_at"] > row["last_failure_at"]
        ):
            error = f"[dim](resolved) {error}"
        table.add_row(
            row["provider"],
            f"[red]{status}" if status == "failed" else status,
            f"{row['data_observed_at']:%Y-%m-%d}" if row["data_observed_at"] else "never",
            row["data_origin"] or "",
            _age(row["last_success_at"], now),
            str(row["current_offer_count"]),
            str(row["suspect_offer_count"]),
            str(row["stale_offer_count"]),
            str(row["excluded_row_count"]),
            str(row["skipped_part_count"]),
            error[:MAX_ERROR_CHARS] + ("…" if len(error) > MAX_ERROR_CHARS else ""),
        )
    console.print(table)
    return 0


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``query`` and ``status`` to the ``gpuprices`` parser."""
    query = sub.add_parser(
        "query",
        help="current offers, filtered like GET /instances",
        description="Prices are USD; GB = 10^9 bytes.",
    )
    query.add_argument(
        "--min-vram",
        type=float,
        metavar="GB",
        help="minimum usable GB of VRAM per GPU (a share of a GPU counts with its share)",
    )
    query.add_argument(
        "--min-total-vram", type=float, metavar="GB", help="minimum GB of VRAM per instance"
    )
    query.add_argument(
        "--fp8",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only GPUs with (--fp8) / without (--no-fp8) native FP8",
    )
    query.add_argument(
        "--bf16",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only GPUs with (--bf16) / without (--no-bf16) native BF16",
    )
    query.add_argument(
        "--gpu",
        action="append",
        metavar="ID",
        help="canonical GPU id or family, e.g. h100-sxm or h100 (repeatable)",
    )
    query.add_argument("--provider", action="append", metavar="SLUG", help="(repeatable)")
    query.add_argument("--pricing", action="append", choices=PRICING, help="(repeatable)")
    query.add_argument(
        "--serverless",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only serverless tiers (--serverless) or only instances",
    )
    query.add_argument(
        "--max-price", type=float, metavar="USD", help="maximum USD per instance-hour"
    )
    query.add_argument(
        "--max-price-per-gpu", type=float, metavar="USD", help="maximum USD per GPU-hour"
    )
    query.add_argument("--min-gpus", type=float, metavar="N", help="minimum GPUs per instance")
    query.add_argument(
        "--max-age-days", type=float, metavar="DAYS", help="only prices at most DAYS days old"
    )
    query.add_argument(
        "--include-suspect",
        action="store_true",
        help="also list prices the plausibility screen marks suspect",
    )
    query.add_argument("--region", action="append", metavar="CODE", help="(repeatable)")
    query.add_argument(
        "--sort",
        choices=sorted(INSTANCE_SORTS),
        default="price",
        help="ascending; price = USD/instance-hour (default)",
    )
    query.add_argument("--limit", type=_count(1), default=50, help="rows to show (default 50)")
    query.add_argument("--offset", type=_count(0), default=0)
    query.add_argument("--json", action="store_true", help="print the API's JSON body instead")
    query.set_defaults(func=run_query)

    status = sub.add_parser("status", help="per-provider freshness, last error, offer counts")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=run_status)
