"""``skypilot``: SkyPilot's catalog schema v8, ``DIR/<cloud>/vms.csv``: one row per instance type
and region, with the on-demand price in ``Price`` and the spot price in ``SpotPrice``. Copy a
cloud's file to ``~/.sky/catalogs/v8/<cloud>/vms.csv`` to make SkyPilot use it. A cloud with the
``accelerator_rows`` layout (GCP) is written as SkyPilot's GCP catalog is: machine-type rows
without accelerator columns, plus one row per accelerator, count and region with an empty
``InstanceType``, which SkyPilot adds to the machine type's price. Our source prices the machine
type as a whole, GPUs included, so the machine-type row carries the whole price and the
accelerator row 0; ``AvailabilityZone`` (which SkyPilot's GCP reader pairs them by) repeats the
region, since the source names no zone. A cloud with an ``instance_name`` template (RunPod) gets
SkyPilot's own instance type names (``1x_H100-SXM_SECURE``: its cloud tier, upper case).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from pipelines.export_common import (
    DEFAULT_RULES,
    ExportReport,
    ToolNames,
    common_exclusion,
    csv_bytes,
    current_offers,
    left_out,
    plain_number,
    write_atomic,
)
from warehouse.queries import OfferFilter

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
ACCELERATOR_ROWS = "accelerator_rows"
ZONE_COLUMN = "zone_column"
BYTES_PER_GIB = Decimal(2**30)
BYTES_PER_GB = Decimal(10**9)


def _gib(gb: Decimal | None) -> str:
    # SkyPilot counts host memory in GiB; our figures are GB (10^9 bytes).
    return "" if gb is None else plain_number(round(gb * BYTES_PER_GB / BYTES_PER_GIB, 2))


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
        gpu_count=plain_number(offer["gpu_count"]),
        gpu=accelerator,
        region=offer["region"],
        region_upper=offer["region"].upper(),
        cloud_tier=offer["cloud_tier"] or "",
        cloud_tier_upper=(offer["cloud_tier"] or "").upper(),
    )


def skypilot_rows(
    offers: Iterable[dict[str, Any]], names: ToolNames, report: ExportReport
) -> dict[str, list[dict[str, str]]]:
    """vms.csv rows per SkyPilot cloud, sorted; offers left out are counted in ``report``."""
    rows: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    gpu_of: dict[tuple[str, str, str], str] = {}
    for offer in offers:
        reason = common_exclusion(offer)
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
                "AcceleratorCount": plain_number(offer["gpu_count"]),
                "vCPUs": plain_number(offer["vcpus"]),
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
        row["SpotPrice" if offer["pricing"] == "spot" else "Price"] = plain_number(
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
    con: duckdb.DuckDBPyConnection,
    out_dir: Path,
    snapshot_id: str,
    names: ToolNames | None = None,
    rules: OfferFilter = DEFAULT_RULES,
) -> ExportReport:
    """Write DIR/<cloud>/vms.csv (SkyPilot catalog v8), one row per instance type and region
    (plus accelerator rows for a cloud with the ``accelerator_rows`` layout), of the offers
    ``rules`` let through (``export_common.export_rules``: no expired price by default)."""
    names = names or ToolNames.load("skypilot")
    report = ExportReport("skypilot", out_dir, snapshot_id, left_out=left_out(con, rules))
    for cloud, rows in sorted(skypilot_rows(current_offers(con, rules), names, report).items()):
        columns = skypilot_columns(cloud, rows, names)
        data = csv_bytes(columns, [{c: r[c] for c in columns} for r in rows])
        write_atomic(out_dir / cloud / "vms.csv", data)
        report.files[f"{cloud}/vms.csv"] = len(rows)
    return report
