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
one. Offers of other providers are written in the same format under our slug. ``cpu_arch`` is
always written: ``arm`` for the GPUs ``interop_names.csv`` marks (NVIDIA Grace superchips, the
rule of gpuhunt's own lambdalabs/vultr/oci providers), ``x86`` otherwise (what gpuhunt reads an
empty cell as). A share of one GPU (GCP G4 ``g4-standard-6``: 1/8 of an RTX PRO 6000) is written
the way gpuhunt writes it: one GPU whose ``gpu_memory`` is the share's memory. The location is
our region unchanged: ``global`` where the source quotes one price for the provider and names no
region (gpuhunt needs a location; we never guess one). docs/interop.md lists what gpuhunt's own
integrity tests say about the result.

``skypilot``: SkyPilot's catalog schema v8, ``DIR/<cloud>/vms.csv``: one row per instance type
and region, with the on-demand price in ``Price`` and the spot price in ``SpotPrice``. Copy a
cloud's file to ``~/.sky/catalogs/v8/<cloud>/vms.csv`` to make SkyPilot use it. A cloud with the
``accelerator_rows`` layout (GCP) is written as SkyPilot's GCP catalog is: machine-type rows
without accelerator columns, plus one row per accelerator, count and region with an empty
``InstanceType``, which SkyPilot adds to the machine type's price. Our source prices the machine
type as a whole, GPUs included, so the machine-type row carries the whole price and the
accelerator row 0; ``AvailabilityZone`` (which SkyPilot's GCP reader pairs them by) repeats the
region, since the source names no zone. A cloud with an ``instance_name`` template (RunPod) gets
SkyPilot's own instance type names (``1x_H100-SXM_SECURE``).

Names: providers and GPUs are written in each tool's own vocabulary (``interop_names.csv``, one
cited row per name; a row with a ``provider`` applies to that provider only); a GPU the tool has
no name for keeps our canonical id. Prices are USD per instance-hour. Every offer a format cannot
carry is left out and counted by reason, never dropped silently: serverless tiers, reserved
terms, unresolved GPUs, fractional GPUs (SkyPilot), and (gpuhunt only) offers whose source states
no vCPU or RAM figure.
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
SKYPILOT_ARCH = {"arm": "arm64", "x86": "x86_64"}  # the values of SkyPilot's AWS catalog
DEFAULT_CPU_ARCH = "x86"  # gpuhunt reads an empty cpu_arch as x86 (storage.item_from_row)
ACCELERATOR_ROWS = "accelerator_rows"
ZONE_COLUMN = "zone_column"
BYTES_PER_GIB = Decimal(2**30)
BYTES_PER_GB = Decimal(10**9)

OFFERS_SQL = """
    select offer_id, provider, instance_type, region, pricing, gpu_id, gpu_vendor,
           gpu_count, vram_gb_per_gpu, vram_gb_usable, vcpus, ram_gb, storage_gb, price, currency,
           price_unit, price_per, price_per_hour_usd, serverless, source_url, observed_at,
           price_status
    from current_offers
    order by provider, instance_type, region, pricing, offer_id
"""


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


def _common_exclusion(offer: dict[str, Any], *, shares: bool = False) -> str | None:
    """The reason ``offer`` fits no catalog format, or None. ``shares``: the format can hold a
    share of one GPU (0 < gpu_count < 1)."""
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
    count = offer["gpu_count"]
    if shares and 0 < count < 1:
        return None
    if not _integral(count) or count < 1:
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
    """One offer as a gpuhunt catalog row, or the reason it cannot be one.

    A share of one GPU is one GPU with the share's memory (gpuhunt's GCP G4 rows: 1/8 of a 96 GB
    RTX PRO 6000 is ``gpu_count`` 1, ``gpu_memory`` 12); the share is kept in provider_data.
    """
    reason = _common_exclusion(offer, shares=True)
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
    share = offer["gpu_count"] < 1
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
    if share:
        provider_data["gpuprices_gpu_fraction"] = _num(offer["gpu_count"])
    return {
        "instance_name": offer["instance_type"],
        "location": offer["region"],
        "price": _num(offer["price_per_hour_usd"]),
        "cpu": str(int(vcpus)),
        "memory": _num(offer["ram_gb"]),
        "gpu_count": "1" if share else str(int(offer["gpu_count"])),
        "gpu_name": names.gpu(offer),
        "gpu_memory": _num(offer["vram_gb_usable"] if share else offer["vram_gb_per_gpu"]),
        "spot": str(offer["pricing"] == "spot"),
        "disk_size": _num(offer["storage_gb"]),
        "gpu_vendor": vendor,
        "flags": "",
        "cpu_arch": names.cpu_arch(gpu_id),
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


def _skypilot_instance_type(offer: dict[str, Any], names: ToolNames, accelerator: str) -> str:
    template = names.instance_names.get(offer["provider"])
    if template is None:
        return offer["instance_type"]
    return template.format(
        gpu_count=_num(offer["gpu_count"]),
        gpu=accelerator,
        region=offer["region"],
        region_upper=offer["region"].upper(),
    )


def skypilot_rows(
    offers: Iterable[dict[str, Any]], names: ToolNames, report: ExportReport
) -> dict[str, list[dict[str, str]]]:
    """vms.csv rows per SkyPilot cloud, sorted; offers left out are counted in ``report``."""
    rows: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    gpu_of: dict[tuple[str, str, str], str] = {}
    for offer in offers:
        reason = _common_exclusion(offer)
        if reason is not None:
            report.excluded[(offer["provider"], reason)] += 1
            continue
        cloud = names.provider(offer["provider"])
        per_cloud = rows.setdefault(cloud, {})
        gpu_id: str = offer["gpu_id"]
        accelerator = names.gpu(offer)
        instance_type = _skypilot_instance_type(offer, names, accelerator)
        key = (instance_type, offer["region"])
        seen = gpu_of.setdefault((cloud, *key), gpu_id)
        if seen != gpu_id:  # two GPUs under one name: the tool could not tell them apart
            report.excluded[(offer["provider"], f"SkyPilot name {instance_type!r} is taken")] += 1
            continue
        row = per_cloud.setdefault(
            key,
            {
                "InstanceType": instance_type,
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
                "Arch": SKYPILOT_ARCH[names.cpu_arch(gpu_id)],
            },
        )
        row["SpotPrice" if offer["pricing"] == "spot" else "Price"] = _num(
            offer["price_per_hour_usd"]
        )
    out: dict[str, list[dict[str, str]]] = {}
    for cloud, per_cloud in rows.items():
        ordered = [per_cloud[k] for k in sorted(per_cloud)]
        if names.layout(cloud) == ACCELERATOR_ROWS:
            ordered = _accelerator_rows_layout(ordered)
        out[cloud] = ordered
    return out


def skypilot_columns(cloud: str, rows: list[dict[str, str]], names: ToolNames) -> list[str]:
    """The vms.csv header for ``cloud``: without ``AvailabilityZone`` when no row has a zone.

    SkyPilot drops a row whose zone is empty from the regions it can launch in
    (``common.get_region_zones``), and most of its own catalogs (Azure, Lambda, RunPod's
    regions...) have no zone column. AWS's reader needs the column (it maps zone ids), so a
    ``zone_column`` layout keeps it.
    """
    if names.layout(cloud) == ZONE_COLUMN or any(r["AvailabilityZone"] for r in rows):
        return list(SKYPILOT_COLUMNS)
    return [c for c in SKYPILOT_COLUMNS if c != "AvailabilityZone"]


def _accelerator_rows_layout(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """SkyPilot's GCP layout: machine-type rows without accelerator columns, then one row per
    accelerator, count and region with an empty InstanceType.

    SkyPilot prices a GPU machine as its machine-type row plus the accelerator row (SkyPilot's
    fetch_gcp.py). Our price is the whole machine's, so the machine-type row keeps all of it
    and the accelerator row is 0 (a price column stays empty where no machine type of that
    accelerator has one). The zone repeats the region: the source names none, and SkyPilot's
    GCP reader pairs the two rows by zone.
    """
    hosts: list[dict[str, str]] = []
    accelerators: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rows:
        zone = row["Region"]
        hosts.append(
            dict(row, AcceleratorName="", AcceleratorCount="", GpuInfo="", AvailabilityZone=zone)
        )
        key = (row["AcceleratorName"], row["AcceleratorCount"], row["Region"])
        accelerator = accelerators.setdefault(
            key,
            {
                "InstanceType": "",
                "AcceleratorName": row["AcceleratorName"],
                "AcceleratorCount": row["AcceleratorCount"],
                "vCPUs": "",
                "MemoryGiB": "",
                "GpuInfo": row["GpuInfo"],
                "Price": "",
                "SpotPrice": "",
                "Region": row["Region"],
                "AvailabilityZone": zone,
                "Arch": "",
            },
        )
        for column in ("Price", "SpotPrice"):
            if row[column]:
                accelerator[column] = "0"
    order = sorted(accelerators, key=lambda k: (k[0], Decimal(k[1]), k[2]))
    return hosts + [accelerators[k] for k in order]


def export_skypilot(
    con: duckdb.DuckDBPyConnection, out_dir: Path, snapshot_id: str, names: ToolNames | None = None
) -> ExportReport:
    """Write DIR/<cloud>/vms.csv (SkyPilot catalog v8), one row per instance type and region
    (plus accelerator rows for a cloud with the ``accelerator_rows`` layout)."""
    names = names or ToolNames.load("skypilot")
    report = ExportReport("skypilot", out_dir, snapshot_id)
    for cloud, rows in sorted(skypilot_rows(_offers(con), names, report).items()):
        columns = skypilot_columns(cloud, rows, names)
        data = _csv_bytes(columns, [{c: r[c] for c in columns} for r in rows])
        _write_atomic(out_dir / cloud / "vms.csv", data)
        report.files[f"{cloud}/vms.csv"] = len(rows)
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
