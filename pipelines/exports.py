"""Exports that other tools read, written from a published snapshot's current offers.

``gpuhunt``: dstack's gpuhunt catalog format (``gpuhunt._internal.storage``, v2 columns), one
``<provider>.csv`` per provider. The directory works two ways with gpuhunt's own ``query()``:

- ``GPUHUNT_CATALOG_DIR=DIR`` makes gpuhunt read ``DIR/<provider>.csv`` for its offline
  providers instead of its published catalog;
- ``GPUHUNT_CATALOG_URL=file://DIR`` makes gpuhunt *load* its catalog from DIR too (the v3
  layout it downloads: ``<provider>/version`` and ``<provider>/<version>/catalog.zip``). gpuhunt
  loads a catalog before every first query, so without network access it needs both. Pass
  ``provider=`` to ``query()`` there: without it gpuhunt also calls its online providers' APIs.

gpuhunt only reads files named after its offline providers (``lambdalabs``, ``runpod``, ...); a
header-only file is written for each of those we have no offers for, because gpuhunt opens every
one. Offers of other providers are written in the same format under our slug.

``skypilot``: SkyPilot's catalog schema v8, ``DIR/<cloud>/vms.csv``: one row per instance type
and region, with the on-demand price in ``Price`` and the spot price in ``SpotPrice``. Copy a
cloud's file to ``~/.sky/catalogs/v8/<cloud>/vms.csv`` to make SkyPilot use it.

Names: providers and GPUs are written in each tool's own vocabulary (``interop_names.csv``, one
cited row per name); a GPU the tool has no name for keeps our canonical id. Prices are USD per
instance-hour. Every offer a format cannot carry is left out and counted by reason, never dropped
silently: serverless tiers, reserved terms, fractional GPUs, unresolved GPUs, and (gpuhunt only)
offers whose source states no vCPU or RAM figure.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import duckdb

from warehouse.publish import SnapshotInfo, load_into_memory

NAMES_CSV = Path(__file__).with_name("interop_names.csv")

# gpuhunt's catalog v2 columns, in order (gpuhunt._internal.storage.CATALOG_V2_FIELDS).
GPUHUNT_COLUMNS = (
    "instance_name",
    "location",
    "price",
    "cpu",
    "memory",
    "gpu_count",
    "gpu_name",
    "gpu_memory",
    "spot",
    "disk_size",
    "gpu_vendor",
    "flags",
    "cpu_arch",
    "provider_data",
)
GPUHUNT_VENDORS = frozenset({"nvidia", "amd", "google", "intel", "tenstorrent"})
# SkyPilot catalog schema v8 vms.csv columns, in the order of the v8 AWS catalog.
SKYPILOT_COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
    "Arch",
)
SKYPILOT_ARCH = {"arm": "arm64"}
BYTES_PER_GIB = Decimal(2**30)
BYTES_PER_GB = Decimal(10**9)

OFFERS_SQL = """
    select offer_id, provider, instance_type, region, pricing, gpu_id, gpu_vendor, gpu_count,
           vram_gb_per_gpu, vcpus, ram_gb, storage_gb, price, currency, price_unit, price_per,
           price_per_hour_usd, serverless, source_url, observed_at, price_status
    from current_offers
    order by provider, instance_type, region, pricing, offer_id
"""


@dataclass(frozen=True)
class ToolNames:
    """One tool's vocabulary: our provider slug / canonical GPU id -> the tool's name."""

    providers: dict[str, str]
    online_providers: dict[str, str]
    unmatched_providers: tuple[str, ...]  # the tool's providers we have no data for
    gpus: dict[str, str]
    arm_gpus: frozenset[str]

    @classmethod
    def load(cls, tool: str, path: Path = NAMES_CSV) -> ToolNames:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if r["tool"] == tool]
        if not rows:
            raise KeyError(f"no names for {tool!r} in {path}")
        return cls(
            providers={
                r["gpuprices_id"]: r["tool_name"]
                for r in rows
                if r["kind"] == "provider" and r["gpuprices_id"]
            },
            online_providers={
                r["gpuprices_id"]: r["tool_name"] for r in rows if r["kind"] == "online_provider"
            },
            unmatched_providers=tuple(
                r["tool_name"] for r in rows if r["kind"] == "provider" and not r["gpuprices_id"]
            ),
            gpus={r["gpuprices_id"]: r["tool_name"] for r in rows if r["kind"] == "gpu"},
            arm_gpus=frozenset(
                r["gpuprices_id"] for r in rows if r["kind"] == "gpu" and r["cpu_arch"] == "arm"
            ),
        )

    def provider(self, slug: str) -> str:
        return self.providers.get(slug) or self.online_providers.get(slug) or slug


@dataclass
class ExportReport:
    """What an export wrote (rows per file) and left out (offers per provider and reason)."""

    format: str
    out_dir: Path
    snapshot_id: str
    files: dict[str, int] = field(default_factory=dict)
    excluded: Counter[tuple[str, str]] = field(default_factory=Counter)

    @property
    def rows(self) -> int:
        return sum(self.files.values())

    def lines(self) -> list[str]:
        out = [f"{name}: {n} rows" for name, n in sorted(self.files.items())]
        out += [
            f"left out {n} {provider} offer{'s' if n != 1 else ''}: {reason}"
            for (provider, reason), n in sorted(self.excluded.items())
        ]
        return out


def _num(value: Decimal | int | float | None) -> str:
    """Plain decimal text without exponent or trailing zeros (``23.920000`` -> ``23.92``)."""
    if value is None:
        return ""
    text = format(Decimal(str(value)).normalize(), "f")
    return text


def _integral(value: Decimal | None) -> bool:
    return value is not None and value == value.to_integral_value()


def _offers(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    result = con.execute(OFFERS_SQL)
    columns = [d[0] for d in result.description or []]
    return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def _common_exclusion(offer: dict[str, Any]) -> str | None:
    if offer["serverless"]:
        return "serverless tier (the format lists instances)"
    if offer["pricing"] == "reserved":
        return "reserved term (the format has on-demand and spot prices only)"
    if offer["pricing"] == "dynamic":
        return "dynamic (daily re-set) price (the format has on-demand and spot prices only)"
    if offer["price_status"] != "ok":
        return "suspect price (plausibility screen)"
    if offer["gpu_id"] is None:
        return "GPU not resolved to the canonical GPU table"
    if not _integral(offer["gpu_count"]) or offer["gpu_count"] < 1:
        return "fractional GPU share"
    return None


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _csv_bytes(columns: Iterable[str], rows: Iterable[dict[str, str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def gpuhunt_row(offer: dict[str, Any], names: ToolNames) -> dict[str, str] | str:
    """One offer as a gpuhunt catalog row, or the reason it cannot be one."""
    reason = _common_exclusion(offer)
    if reason is None and (offer["vcpus"] is None or offer["ram_gb"] is None):
        reason = "no vCPU or RAM figure in the source (gpuhunt requires both)"
    if reason is None and not _integral(offer["vcpus"]):
        reason = "fractional vCPU count (gpuhunt counts whole CPUs)"
    vendor = (offer["gpu_vendor"] or "").lower()
    if reason is None and vendor not in GPUHUNT_VENDORS:
        reason = f"GPU vendor {offer['gpu_vendor']!r} unknown to gpuhunt"
    if reason is not None:
        return reason
    gpu_id: str = offer["gpu_id"]
    vcpus = cast(Decimal, offer["vcpus"])  # checked above: present and whole
    provider_data = {
        "gpuprices_offer_id": offer["offer_id"],
        "gpuprices_gpu_id": offer["gpu_id"],
        "price_as_quoted": _num(offer["price"]),
        "currency": offer["currency"],
        "price_unit": offer["price_unit"],
        "price_per": offer["price_per"],
        "source_url": offer["source_url"],
        "observed_at": offer["observed_at"].isoformat(),
    }
    return {
        "instance_name": offer["instance_type"],
        "location": offer["region"],
        "price": _num(offer["price_per_hour_usd"]),
        "cpu": str(int(vcpus)),
        "memory": _num(offer["ram_gb"]),
        "gpu_count": str(int(offer["gpu_count"])),
        "gpu_name": names.gpus.get(gpu_id, gpu_id),
        "gpu_memory": _num(offer["vram_gb_per_gpu"]),
        "spot": str(offer["pricing"] == "spot"),
        "disk_size": _num(offer["storage_gb"]),
        "gpu_vendor": vendor,
        "flags": "",
        # Empty = gpuhunt's default (x86); we only know better for Grace-based superchips.
        "cpu_arch": "arm" if gpu_id in names.arm_gpus else "",
        "provider_data": json.dumps(provider_data, sort_keys=True),
    }


def export_gpuhunt(
    con: duckdb.DuckDBPyConnection, out_dir: Path, snapshot_id: str, names: ToolNames | None = None
) -> ExportReport:
    """Write DIR/<provider>.csv plus gpuhunt's downloadable layout. Rows sorted by price, as
    gpuhunt merges providers assuming each file is cheapest-first."""
    names = names or ToolNames.load("gpuhunt")
    report = ExportReport("gpuhunt", out_dir, snapshot_id)
    by_file: dict[str, list[dict[str, str]]] = {}
    for offer in _offers(con):
        row = gpuhunt_row(offer, names)
        if isinstance(row, str):
            report.excluded[(offer["provider"], row)] += 1
        else:
            by_file.setdefault(names.provider(offer["provider"]), []).append(row)
    for name in (*names.providers.values(), *names.unmatched_providers):
        by_file.setdefault(name, [])  # gpuhunt opens a file for each of its offline providers
    for name, rows in sorted(by_file.items()):
        rows.sort(key=lambda r: (Decimal(r["price"]), r["instance_name"], r["location"], r["spot"]))
        data = _csv_bytes(GPUHUNT_COLUMNS, rows)
        _write_atomic(out_dir / f"{name}.csv", data)
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"{name}.csv", data)
        _write_atomic(out_dir / name / snapshot_id / "catalog.zip", archive.getvalue())
        _write_atomic(out_dir / name / "version", snapshot_id.encode("ascii"))
        report.files[f"{name}.csv"] = len(rows)
    return report


def _gib(gb: Decimal | None) -> str:
    # SkyPilot counts host memory in GiB; our figures are GB (10^9 bytes).
    return "" if gb is None else _num(round(gb * BYTES_PER_GB / BYTES_PER_GIB, 2))


def _skypilot_gpu_info(name: str, count: Decimal, vram_gb: Decimal | None, vendor: str) -> str:
    # SkyPilot's own fetchers write nominal GB x 1024 as MiB, single-quoted (a Python literal).
    per_gpu_mib = int(vram_gb * 1024) if vram_gb is not None else 0
    info = {
        "Gpus": [
            {
                "Name": name,
                "Manufacturer": vendor,
                "Count": float(count),
                "MemoryInfo": {"SizeInMiB": per_gpu_mib},
            }
        ],
        "TotalGpuMemoryInMiB": int(per_gpu_mib * count),
    }
    return json.dumps(info).replace('"', "'")


def export_skypilot(
    con: duckdb.DuckDBPyConnection, out_dir: Path, snapshot_id: str, names: ToolNames | None = None
) -> ExportReport:
    """Write DIR/<cloud>/vms.csv (SkyPilot catalog v8), one row per instance type and region."""
    names = names or ToolNames.load("skypilot")
    report = ExportReport("skypilot", out_dir, snapshot_id)
    rows: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    for offer in _offers(con):
        reason = _common_exclusion(offer)
        if reason is not None:
            report.excluded[(offer["provider"], reason)] += 1
            continue
        per_cloud = rows.setdefault(names.provider(offer["provider"]), {})
        gpu_id: str = offer["gpu_id"]
        accelerator = names.gpus.get(gpu_id, gpu_id)
        key = (offer["instance_type"], offer["region"])
        row = per_cloud.setdefault(
            key,
            {
                "InstanceType": offer["instance_type"],
                "AcceleratorName": accelerator,
                "AcceleratorCount": _num(offer["gpu_count"]),
                "vCPUs": _num(offer["vcpus"]),
                "MemoryGiB": _gib(offer["ram_gb"]),
                "GpuInfo": _skypilot_gpu_info(
                    accelerator,
                    offer["gpu_count"],
                    offer["vram_gb_per_gpu"],
                    offer["gpu_vendor"] or "",
                ),
                "Price": "",
                "SpotPrice": "",
                "Region": offer["region"],
                "AvailabilityZone": "",
                "Arch": SKYPILOT_ARCH["arm"] if gpu_id in names.arm_gpus else "",
            },
        )
        row["SpotPrice" if offer["pricing"] == "spot" else "Price"] = _num(
            offer["price_per_hour_usd"]
        )
    for cloud, per_cloud in sorted(rows.items()):
        ordered = [per_cloud[k] for k in sorted(per_cloud)]
        _write_atomic(out_dir / cloud / "vms.csv", _csv_bytes(SKYPILOT_COLUMNS, ordered))
        report.files[f"{cloud}/vms.csv"] = len(ordered)
    return report


Exporter = Callable[[duckdb.DuckDBPyConnection, Path, str], ExportReport]
FORMATS: dict[str, Exporter] = {"gpuhunt": export_gpuhunt, "skypilot": export_skypilot}


def export(fmt: str, snapshot: SnapshotInfo, out_dir: Path) -> ExportReport:
    """Write ``fmt`` (a key of FORMATS) from ``snapshot`` into ``out_dir``.

    Raises KeyError for an unknown format and duckdb/OS errors for an unreadable snapshot or an
    unwritable directory. Files are replaced one by one (each atomically).
    """
    exporter = FORMATS[fmt]
    con = load_into_memory(snapshot)
    try:
        return exporter(con, out_dir, snapshot.snapshot_id)
    finally:
        con.close()
