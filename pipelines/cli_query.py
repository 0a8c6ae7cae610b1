"""``gpuprices query``: the API's /instances filters over the current published snapshot
(``gpuprices status`` is in ``pipelines.cli_status``).

``query`` builds the same ``warehouse.queries.OfferQuery`` as GET /instances (its options are
``warehouse.queries.FILTERS``) and answers it by the SQL the API's in-memory table is tested
against (``warehouse.queries``; nothing here imports ``api``).
It prints through ``pipelines.cli_output``: a table that fits 80 columns on a terminal,
CSV when piped, or ``--format csv|tsv|json``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from rich.text import Text

from pipelines import cli_output
from pipelines.cli_output import Column
from pipelines.cli_snapshot import open_snapshot
from warehouse.queries import (
    FILTERS,
    FilterError,
    FilterSpec,
    FilterVocabulary,
    OfferFilter,
    OfferQuery,
    exclusions_sql,
    item_columns,
    query_offers_sql,
)
from warehouse.vocabulary import DEFAULT_SORT, SORTS

# CSV/TSV columns of `query` (API field names; --wide: every field of the API's items)
QUERY_FIELDS = (
    "provider",
    "instance_type",
    "region",
    "cloud_tier",
    "country",
    "continent",
    "gpu_count",
    "gpu_id",
    "vram_gb_usable",
    "vram_gb_per_gpu",
    "vram_gb_total",
    "fp8",
    "bf16",
    "pricing",
    "reserved_term_months",
    "serverless",
    "price_per_hour_usd",
    "price_per_gpu_hour_usd",
    "price_per_vram_gb_hour_usd",
    "observed_at",
    "observed_precision",
    "age_days",
    "stale",
    "price_kind",
    "expires_at",
    "expired",
    "available",
    "data_origin",
    "source_kind",
    "observed_basis",
    "price_status",
    "id",
)


def _money(value: Decimal | float | None, places: int = 2) -> str:
    return "" if value is None else f"{Decimal(str(value)):,.{places}f}"


def _num(value: Decimal | float | None) -> str:
    return "" if value is None else format(Decimal(str(value)).normalize(), "f")


def filter_from_args(args: argparse.Namespace) -> OfferFilter:
    """The /instances filter of the arguments (``OfferFilter.build``, as the API builds it)."""
    return OfferFilter.build(**{name: getattr(args, name) for name in FILTERS})


# --- query -------------------------------------------------------------------------------------


def _gpus(item: dict[str, Any]) -> str:
    return f"{_num(item['gpu_count'])}x {item['gpu_id'] or item['gpu_name_provider']}"


def _pricing(item: dict[str, Any]) -> str:
    """``on-demand``, ``spot``, ``reserved 1y`` (or ``reserved 18mo``), ``serverless`` (an
    on-demand serverless tier): at most 11 characters, so the column never wraps."""
    text = item["pricing"].replace("_", "-")
    months = item.get("reserved_term_months")
    if months:
        text += f" {months // 12}y" if months % 12 == 0 else f" {months}mo"
    if item["serverless"]:
        text = "serverless" if text == "on-demand" else f"{text} srvless"
    return text


def _days(days: float | None, unit_sep: str = " ") -> str:
    if days is None:
        return ""
    return f"{days * 24:.0f}{unit_sep}h" if days < 1 else f"{days:.0f}{unit_sep}d"


def _styled(item: dict[str, Any], text: str, suspect: str = " SUSPECT") -> Text:
    """Stale prices yellow; a suspect one (shown with --include-suspect) says so."""
    if item["price_status"] == "suspect":
        text += suspect
    return Text(text, style="yellow" if item["stale"] else "")


ORIGIN_SHORT = {"live": "live", "recorded": "rec", "curated": "cur"}


def _age(item: dict[str, Any]) -> Text:
    """``91d rec``: the price's age and where it came from (live, rec(orded), cur(ated))."""
    if item["observed_at"] is None:
        return Text("")
    origin = item["data_origin"] or ""
    short = ORIGIN_SHORT.get(origin, origin)
    return _styled(item, f"{_days(item['age_days'], '')} {short}", suspect=" !")


def _observed(item: dict[str, Any]) -> Text:
    """``2026-09 (91 d, recorded)``: the date at its precision, the age, live/recorded/curated."""
    when = item["observed_at"]
    if when is None:
        return Text("")
    shown = f"{when:%Y-%m}" if item["observed_precision"] == "month" else f"{when:%Y-%m-%d}"
    return _styled(item, f"{shown} ({_days(item['age_days'])}, {item['data_origin']})")


QUERY_COLUMNS = (
    Column("provider", lambda i: i["provider"], wrap=True, min_width=8),
    Column("instance", lambda i: i["instance_type"], wrap=True, min_width=12),
    Column("region", lambda i: i["region"] or "", narrow=False, wrap=True, min_width=8),
    Column("GPUs", _gpus, wrap=True, min_width=10),
    Column("VRAM", lambda i: _num(i["vram_gb_usable"]), justify="right"),
    Column("pricing", _pricing),
    Column("$/h", lambda i: _money(i["price_per_hour_usd"]), "right", narrow=False),
    Column("$/GPU-h", lambda i: _money(i["price_per_gpu_hour_usd"], 3), justify="right"),
    Column("$/GB-h", lambda i: _money(i["price_per_vram_gb_hour_usd"], 4), "right", False),
    Column("age", _age, wide=False),
    Column("observed", _observed, narrow=False, wrap=True, min_width=10),
)


def run_query(args: argparse.Namespace) -> int:
    """Print matching offers, cheapest first by ``--sort``; 1 if there is no snapshot."""
    try:
        query = OfferQuery(filter_from_args(args), args.sort, args.limit, args.offset)
    except FilterError as exc:
        cli_output.error(str(exc))
        return 2
    opened = open_snapshot()
    if opened is None:
        return 1
    info, con = opened
    try:
        FilterVocabulary.load(con).check(query.filter)  # a typo: the closest known value
    except FilterError as exc:
        con.close()
        cli_output.error(str(exc))
        return 2
    try:
        # one query per process: by SQL (loading the API's OfferTable would cost more than it;
        # tests/warehouse/test_queries.py holds the two to the same answers)
        items, total = query_offers_sql(con, query)
        excluded = exclusions_sql(con, query.filter)
        fields = item_columns(con)
    finally:
        con.close()
    fmt = cli_output.resolve_format(args.format)
    if fmt == "json":
        cli_output.print_json(
            {
                "items": items,
                "total": total,
                "excluded": excluded.as_dict(),
                "limit": args.limit,
                "offset": args.offset,
                "next_offset": args.offset + args.limit
                if args.offset + args.limit < total
                else None,
                "as_of": info.as_of,
            }
        )
    elif fmt in ("csv", "tsv"):
        cli_output.write_delimited(items, fields if args.wide else QUERY_FIELDS, fmt)
        for line in excluded.lines():  # the rows are the data: what was left out goes aside
            print(f"note: {line}", file=sys.stderr)
    else:
        cli_output.print_table(
            items,
            QUERY_COLUMNS,
            wide=args.wide,
            title=f"{len(items)} of {total} offers, snapshot of {info.as_of:%Y-%m-%d %H:%M} UTC"
            + (f" ({info.snapshot_id})" if args.wide else ""),
            caption=None
            if args.wide
            else "USD; VRAM: usable GB per GPU; age: of the price, and whether it is live, "
            "rec(orded) or cur(ated); yellow: stale"
            + ("; !: suspect" if any(i["price_status"] == "suspect" for i in items) else "")
            + ". --wide: $/h, region, $/GB-h, dates",
        )
        cli_output.print_lines([Text(line) for line in excluded.lines()], title="not listed:")
    return 0


# --- arguments ---------------------------------------------------------------------------------


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


def _bounded(spec: FilterSpec) -> Callable[[str], float]:
    """A number within the filter's bounds (the API's 400 is argparse's usage error here)."""

    def parse(text: str) -> float:
        value = float(text)
        if (spec.ge is not None and value < spec.ge) or (spec.le is not None and value > spec.le):
            low = "" if spec.ge is None else f"{spec.ge:g}"
            high = "" if spec.le is None else f"{spec.le:g}"
            raise argparse.ArgumentTypeError(f"must be within {low}..{high}")
        return value

    return parse


def add_filter_option(parser: argparse.ArgumentParser, spec: FilterSpec) -> None:
    """The option of one offer filter (``warehouse.queries.FILTERS``): ``--min-vram GB``,
    ``--fp8/--no-fp8``, ``--gpu ID`` (repeatable), ``--include-expired``; help = its doc."""
    doc = spec.doc.replace("%", "%%")
    if spec.kind == "number":
        parser.add_argument(spec.flag, type=_bounded(spec), metavar=spec.metavar, help=doc)
    elif spec.kind == "flag":
        parser.add_argument(
            spec.flag, action=argparse.BooleanOptionalAction, default=None, help=doc
        )
    elif spec.kind == "list":
        parser.add_argument(spec.flag, action="append", metavar=spec.metavar, help=doc)
    else:
        parser.add_argument(spec.flag, action="store_true", help=doc)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``query`` to the ``gpuprices`` parser."""
    query = sub.add_parser(
        "query",
        help="current offers, filtered like GET /instances",
        description="Current offers of the published snapshot, filtered like GET /instances. "
        "Prices are USD; GB = 10^9 bytes. Prints a table on a terminal, CSV when piped.",
    )
    for spec in FILTERS.values():
        add_filter_option(query, spec)
    query.add_argument(
        "--sort",
        choices=sorted(SORTS),
        default=DEFAULT_SORT,
        help="order, ascending: "
        + ", ".join(f"{s.key} = {s.doc}" for s in SORTS.values())
        + f" (default {DEFAULT_SORT})",
    )
    query.add_argument(
        "--limit", type=_count(1), default=50, metavar="N", help="rows to show (default 50)"
    )
    query.add_argument(
        "--offset",
        type=_count(0),
        default=0,
        metavar="N",
        help="skip the first N matching rows (default 0)",
    )
    cli_output.add_format_arguments(query, json_body="GET /instances' body")
    query.set_defaults(func=run_query)
