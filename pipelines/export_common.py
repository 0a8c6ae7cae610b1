"""What the export formats share: each tool's names, the report, the offers they read.

Names: providers and GPUs are written in each tool's own vocabulary (``interop_names.csv``, one
cited row per name; a row with a ``provider`` applies to that provider only); a GPU the tool has
no name for keeps our canonical id. Prices are USD per instance-hour. Every offer a format cannot
carry is left out and counted by reason, never dropped silently: serverless tiers, reserved
terms, unresolved GPUs, fractional GPUs (SkyPilot), and (gpuhunt only) offers whose source states
no vCPU or RAM figure. Offers whose price expired (past the shelf life of its kind) or is older
than a ``max_age_days`` are never read (``export_rules``: the offer filter of GET /instances);
the report counts them per kind (``warehouse.queries.Exclusions``).
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from warehouse.csv_cells import inert
from warehouse.queries import Exclusions, OfferFilter, exclusions_sql

NAMES_CSV = Path(__file__).with_name("interop_names.csv")
DEFAULT_CPU_ARCH = "x86"  # gpuhunt reads an empty cpu_arch as x86 (storage.item_from_row)

OFFERS_SQL = """
    select offer_id, provider, instance_type, region, cloud_tier, pricing, gpu_id, gpu_vendor,
           gpu_count, vram_gb_per_gpu, vram_gb_usable, vcpus, ram_gb, storage_gb, price, currency,
           price_unit, price_per, price_per_hour_usd, serverless, source_url, observed_at,
           price_status, price_kind, expires_at
    from current_offers {where}
    order by provider, instance_type, region, pricing, offer_id
"""


def export_rules(
    *,
    include_expired: bool = False,
    include_unavailable: bool = False,
    max_age_days: float | None = None,
) -> OfferFilter:
    """The offers an export reads: GET /instances' rules on a price's age (expired ones left out
    unless ``include_expired``; ``max_age_days``) and on availability (offers not on sale left
    out unless ``include_unavailable``). Suspect prices are read, and left out by each format
    with its reason (``common_exclusion``)."""
    return OfferFilter.build(
        include_suspect=True,
        include_expired=include_expired,
        include_unavailable=include_unavailable,
        max_age_days=max_age_days,
    )


DEFAULT_RULES = export_rules()


@dataclass(frozen=True)
class ToolNames:
    """One tool's vocabulary: our provider slug / canonical GPU id -> the tool's name.

    Rows of ``interop_names.csv`` with a ``provider`` apply to that provider only: its GPU names
    (``provider_gpus``), the tool's instance-name template for it (``instance_names``), its
    catalog layout (``layouts``) and names of the accelerator a given instance type carries
    (``instance_gpus``).
    """

    providers: dict[str, str]
    online_providers: dict[str, str]
    unmatched_providers: tuple[str, ...]  # the tool's providers we have no data for
    gpus: dict[str, str]
    arm_gpus: frozenset[str]
    provider_gpus: dict[tuple[str, str], str] = field(default_factory=dict)
    instance_names: dict[str, str] = field(default_factory=dict)
    layouts: dict[str, str] = field(default_factory=dict)
    instance_gpus: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def load(cls, tool: str, path: Path = NAMES_CSV) -> ToolNames:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if r["tool"] == tool]
        if not rows:
            raise KeyError(f"no names for {tool!r} in {path}")
        general = [r for r in rows if not r["provider"]]
        scoped = [r for r in rows if r["provider"]]
        return cls(
            providers={
                r["gpuprices_id"]: r["tool_name"]
                for r in general
                if r["kind"] == "provider" and r["gpuprices_id"]
            },
            online_providers={
                r["gpuprices_id"]: r["tool_name"] for r in general if r["kind"] == "online_provider"
            },
            unmatched_providers=tuple(
                r["tool_name"] for r in general if r["kind"] == "provider" and not r["gpuprices_id"]
            ),
            gpus={r["gpuprices_id"]: r["tool_name"] for r in general if r["kind"] == "gpu"},
            arm_gpus=frozenset(
                r["gpuprices_id"] for r in general if r["kind"] == "gpu" and r["cpu_arch"] == "arm"
            ),
            provider_gpus={
                (r["provider"], r["gpuprices_id"]): r["tool_name"]
                for r in scoped
                if r["kind"] == "gpu"
            },
            instance_names={
                r["provider"]: r["tool_name"] for r in scoped if r["kind"] == "instance_name"
            },
            layouts={r["provider"]: r["tool_name"] for r in scoped if r["kind"] == "layout"},
            instance_gpus={
                (r["provider"], r["gpuprices_id"]): r["tool_name"]
                for r in scoped
                if r["kind"] == "instance_gpu"
            },
        )

    def provider(self, slug: str) -> str:
        return self.providers.get(slug) or self.online_providers.get(slug) or slug

    def gpu(self, offer: dict[str, Any]) -> str:
        """The tool's name for the offer's GPU: per instance type, per provider, general, or
        our canonical id when the tool has none."""
        slug: str = offer["provider"]
        gpu_id: str = offer["gpu_id"]
        return (
            self.instance_gpus.get((slug, offer["instance_type"]))
            or self.provider_gpus.get((slug, gpu_id))
            or self.gpus.get(gpu_id, gpu_id)
        )

    def layout(self, cloud: str) -> str | None:
        """The catalog layout of the tool's ``cloud`` (a tool provider name), if it has one."""
        for slug, layout in self.layouts.items():
            if self.provider(slug) == cloud:
                return layout
        return None

    def cpu_arch(self, gpu_id: str) -> str:
        return "arm" if gpu_id in self.arm_gpus else DEFAULT_CPU_ARCH


@dataclass
class ExportReport:
    """What an export wrote (rows per file) and left out (offers per provider and reason)."""

    format: str
    out_dir: Path
    snapshot_id: str
    files: dict[str, int] = field(default_factory=dict)
    excluded: Counter[tuple[str, str]] = field(default_factory=Counter)
    left_out: Exclusions = field(default_factory=Exclusions)  # never read: expired, too old

    @property
    def rows(self) -> int:
        return sum(self.files.values())

    def lines(self) -> list[str]:
        out = [f"{name}: {n} rows" for name, n in sorted(self.files.items())]
        out += [
            f"left out {n} {provider} offer{'s' if n != 1 else ''}: {reason}"
            for (provider, reason), n in sorted(self.excluded.items())
        ]
        return out + self.left_out.lines()


def plain_number(value: Decimal | int | float | None) -> str:
    """Plain decimal text without exponent or trailing zeros (``23.920000`` -> ``23.92``)."""
    if value is None:
        return ""
    text = format(Decimal(str(value)).normalize(), "f")
    return text


def is_integral(value: Decimal | None) -> bool:
    return value is not None and value == value.to_integral_value()


def current_offers(
    con: duckdb.DuckDBPyConnection, rules: OfferFilter = DEFAULT_RULES
) -> list[dict[str, Any]]:
    """The current offers ``rules`` (``export_rules``) let an export read."""
    where = rules.where()
    result = con.execute(OFFERS_SQL.format(where=where.sql()), where.params)
    columns = [d[0] for d in result.description or []]
    return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def left_out(con: duckdb.DuckDBPyConnection, rules: OfferFilter) -> Exclusions:
    """What ``rules`` kept an export from reading, per rule (expired per kind, too old)."""
    return exclusions_sql(con, rules)


def common_exclusion(offer: dict[str, Any], *, shares: bool = False) -> str | None:
    """The reason ``offer`` fits no catalog format, or None. ``shares``: the format can hold a
    share of one GPU (0 < gpu_count < 1)."""
    if offer["serverless"]:
        return "serverless tier (the format lists instances)"
    if offer["pricing"] == "reserved":
        return "reserved term (the format has on-demand and spot prices only)"
    if offer["pricing"] == "dynamic":
        return "dynamic (daily re-set) price (the format has on-demand and spot prices only)"
    if offer["price_status"] == "suspect":
        return "suspect price (plausibility screen)"
    if offer["gpu_id"] is None:
        return "GPU not resolved to the canonical GPU table"
    count = offer["gpu_count"]
    if shares and 0 < count < 1:
        return None
    if not is_integral(count) or count < 1:
        return "fractional GPU share"
    return None


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def csv_bytes(columns: Iterable[str], rows: Iterable[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    # formula injection: text cells made inert (warehouse.csv_cells)
    writer.writerows({k: inert(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows)
    return buffer.getvalue().encode("utf-8")
