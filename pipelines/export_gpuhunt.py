"""``gpuhunt``: dstack's gpuhunt catalog format (``gpuhunt._internal.storage``, v2 columns), one
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
"""

from __future__ import annotations

import io
import json
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import duckdb

from pipelines.export_common import (
    DEFAULT_RULES,
    ExportReport,
    ToolNames,
    common_exclusion,
    csv_bytes,
    current_offers,
    is_integral,
    left_out,
    plain_number,
    write_atomic,
)
from warehouse.queries import OfferFilter

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


def gpuhunt_row(offer: dict[str, Any], names: ToolNames) -> dict[str, str] | str:
    """One offer as a gpuhunt catalog row, or the reason it cannot be one.

    A share of one GPU is one GPU with the share's memory (gpuhunt's GCP G4 rows: 1/8 of a 96 GB
    RTX PRO 6000 is ``gpu_count`` 1, ``gpu_memory`` 12); the share is kept in provider_data.
    """
    reason = common_exclusion(offer, shares=True)
    if reason is None and (offer["vcpus"] is None or offer["ram_gb"] is None):
        reason = "no vCPU or RAM figure in the source (gpuhunt requires both)"
    if reason is None and not is_integral(offer["vcpus"]):
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
        "price_as_quoted": plain_number(offer["price"]),
        "currency": offer["currency"],
        "price_unit": offer["price_unit"],
        "price_per": offer["price_per"],
        "source_url": offer["source_url"],
        "observed_at": offer["observed_at"].isoformat(),
    }
    if share:
        provider_data["gpuprices_gpu_fraction"] = plain_number(offer["gpu_count"])
    return {
        "instance_name": offer["instance_type"],
        "location": offer["region"],
        "price": plain_number(offer["price_per_hour_usd"]),
        "cpu": str(int(vcpus)),
        "memory": plain_number(offer["ram_gb"]),
        "gpu_count": "1" if share else str(int(offer["gpu_count"])),
        "gpu_name": names.gpu(offer),
        "gpu_memory": plain_number(offer["vram_gb_usable"] if share else offer["vram_gb_per_gpu"]),
        "spot": str(offer["pricing"] == "spot"),
        "disk_size": plain_number(offer["storage_gb"]),
        "gpu_vendor": vendor,
        "flags": "",
        "cpu_arch": names.cpu_arch(gpu_id),
        "provider_data": json.dumps(provider_data, sort_keys=True),
    }


def export_gpuhunt(
    con: duckdb.DuckDBPyConnection,
    out_dir: Path,
    snapshot_id: str,
    names: ToolNames | None = None,
    rules: OfferFilter = DEFAULT_RULES,
) -> ExportReport:
    """Write DIR/<provider>.csv plus gpuhunt's downloadable layout, of the offers ``rules`` let
    through (``export_common.export_rules``: no expired price by default). Rows sorted by
    price, as gpuhunt merges providers assuming each file is cheapest-first."""
    names = names or ToolNames.load("gpuhunt")
    report = ExportReport("gpuhunt", out_dir, snapshot_id, left_out=left_out(con, rules))
    by_file: dict[str, list[dict[str, str]]] = {}
    for offer in current_offers(con, rules):
        row = gpuhunt_row(offer, names)
        if isinstance(row, str):
            report.excluded[(offer["provider"], row)] += 1
        else:
            by_file.setdefault(names.provider(offer["provider"]), []).append(row)
    for name in (*names.providers.values(), *names.unmatched_providers):
        by_file.setdefault(name, [])  # gpuhunt opens a file for each of its offline providers
    for name, rows in sorted(by_file.items()):
        rows.sort(key=lambda r: (Decimal(r["price"]), r["instance_name"], r["location"], r["spot"]))
        data = csv_bytes(GPUHUNT_COLUMNS, rows)
        write_atomic(out_dir / f"{name}.csv", data)
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"{name}.csv", data)
        write_atomic(out_dir / name / snapshot_id / "catalog.zip", archive.getvalue())
        write_atomic(out_dir / name / "version", snapshot_id.encode("ascii"))
        report.files[f"{name}.csv"] = len(rows)
    return report
