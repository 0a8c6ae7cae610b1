"""Exports read by the real tools: gpuhunt's own query() over our catalog, SkyPilot's v8 vms.csv."""

from __future__ import annotations

import ast
import csv
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pipelines.cli import main
from pipelines.exports import NAMES_CSV, export
from tests.conftest import REPO
from warehouse.publish import current, load_into_memory

LAMBDA_H100 = "8x NVIDIA H100 SXM (80 GB)"  # "NVIDIA H100 SXM | 80 GB | 208 | 1800 GiB | $2.99"
DATACRUNCH_B200 = "8B200.240V"  # on demand $29.10/h, spot $6.43/h, 240 vCPUs, 1472 GB RAM
# SkyPilot catalog schema v8 (catalogs/v8/aws/vms.csv header in skypilot-org/skypilot-catalog).
SKYPILOT_V8 = [
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
]

# Runs in a fresh interpreter: gpuhunt caches its default catalog for the process lifetime.
GPUHUNT_SCRIPT = """
import dataclasses, json, os, sys
import gpuhunt

def dump(items):
    return [dict(dataclasses.asdict(i), gpu_vendor=i.gpu_vendor and i.gpu_vendor.value,
                 cpu_arch=i.cpu_arch.value) for i in items]

out = {
    "h100": dump(gpuhunt.query(provider="lambdalabs", gpu_name="H100", min_gpu_count=8)),
    "verda_spot": dump(gpuhunt.query(provider=["verda"], spot=True, min_gpu_count=8,
                                     gpu_name="B200")),
    "lambdalabs_all": len(gpuhunt.query(provider="lambdalabs")),
    "runpod_all": len(gpuhunt.query(provider="runpod")),
}
# The flat directory alone, with a catalog that does not try to download anything first.
os.environ.pop("GPUHUNT_CATALOG_URL")
catalog = gpuhunt.Catalog(auto_reload=False)
out["dir_only"] = dump(catalog.query(provider="lambdalabs", gpu_name="h100"))
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def snapshot(replayed_home):  # tests/conftest.py: every capture replayed, once per session
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    return info


@pytest.fixture(scope="module")
def offers(snapshot):
    con = load_into_memory(snapshot)
    try:
        rows = con.execute("select * from current_offers").fetchall()
        columns = [d[0] for d in con.description]
    finally:
        con.close()
    return [dict(zip(columns, r, strict=True)) for r in rows]


def test_gpuhunt_query_returns_our_lambda_h100(snapshot, offers, tmp_path):
    out = tmp_path / "gpuhunt"
    report = export("gpuhunt", snapshot, out)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUNT_")}
    env.update(GPUHUNT_CATALOG_DIR=str(out), GPUHUNT_CATALOG_URL=out.as_uri())
    done = subprocess.run(
        [sys.executable, "-c", GPUHUNT_SCRIPT],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)

    ours = next(
        o for o in offers if o["provider"] == "lambda" and o["instance_type"] == LAMBDA_H100
    )
    [h100] = result["h100"]
    assert h100["provider"] == "lambdalabs"
    assert h100["instance_name"] == LAMBDA_H100
    assert h100["price"] == 23.92  # $2.99 per GPU-hour x 8
    assert (h100["cpu"], h100["gpu_count"], h100["gpu_name"], h100["gpu_memory"]) == (
        208,
        8,
        "H100",
        80.0,
    )
    assert h100["memory"] == pytest.approx(1932.7, abs=0.1)  # 1800 GiB in GB
    assert h100["spot"] is False and h100["gpu_vendor"] == "nvidia"
    assert h100["provider_data"]["gpuprices_offer_id"] == ours["offer_id"]
    assert h100["provider_data"]["price_as_quoted"] == "2.99"

    # DataCrunch's B200 spot ($0.80 per GPU-hour, a fifth of the other providers' B200 spot
    # median) is suspect on the plausibility screen: not exported, and the report says so.
    assert result["verda_spot"] == []
    assert report.excluded[("datacrunch", "suspect price (plausibility screen)")] >= 4
    assert (
        result["lambdalabs_all"]
        == report.files["lambdalabs.csv"]
        == sum(o["provider"] == "lambda" for o in offers)
    )
    assert [i["instance_name"] for i in result["dir_only"]] == [LAMBDA_H100]
    # RunPod's API gives no vCPU/RAM per GPU type: gpuhunt needs both, so none are written,
    # and the report says so instead of dropping them silently.
    assert result["runpod_all"] == 0
    runpod = sum(o["provider"] == "runpod" for o in offers)
    assert runpod > 0
    reasons = {reason: n for (slug, reason), n in report.excluded.items() if slug == "runpod"}
    assert sum(reasons.values()) == runpod
    assert reasons["no vCPU or RAM figure in the source (gpuhunt requires both)"] > 0


def test_gpuhunt_export_has_the_downloadable_layout(snapshot, tmp_path):
    export("gpuhunt", snapshot, tmp_path)
    version = (tmp_path / "lambdalabs" / "version").read_text()
    assert version == snapshot.snapshot_id
    with zipfile.ZipFile(tmp_path / "lambdalabs" / version / "catalog.zip") as zf:
        assert zf.read("lambdalabs.csv") == (tmp_path / "lambdalabs.csv").read_bytes()
    # every gpuhunt offline provider has a file (gpuhunt opens each one), ours or empty
    for name in ("aws", "azure", "gcp", "oci", "verda", "nebius", "runpod", "cloudrift"):
        assert (tmp_path / f"{name}.csv").read_text().startswith("instance_name,location,price,")


def test_serverless_tiers_are_counted_not_exported(snapshot, offers, tmp_path):
    serverless = sum(o["serverless"] for o in offers)
    for fmt in ("gpuhunt", "skypilot"):
        report = export(fmt, snapshot, tmp_path / fmt)
        left_out = sum(n for (_, reason), n in report.excluded.items() if "serverless" in reason)
        assert left_out == serverless


def test_skypilot_vms_csv_has_v8_columns_and_our_prices(snapshot, tmp_path):
    report = export("skypilot", snapshot, tmp_path)
    with (tmp_path / "lambda" / "vms.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == SKYPILOT_V8
        rows = {r["InstanceType"]: r for r in reader}
    h100 = rows[LAMBDA_H100]
    assert (h100["AcceleratorName"], h100["AcceleratorCount"], h100["vCPUs"]) == (
        "H100",
        "8",
        "208",
    )
    assert (h100["Price"], h100["SpotPrice"], h100["Region"]) == ("23.92", "", "global")
    assert float(h100["MemoryGiB"]) == pytest.approx(1800, abs=0.1)
    info = ast.literal_eval(h100["GpuInfo"])  # SkyPilot reads it as a Python literal
    assert info["Gpus"][0]["Name"] == "H100" and info["Gpus"][0]["Count"] == 8.0
    assert info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] == 80 * 1024
    assert info["TotalGpuMemoryInMiB"] == 8 * 80 * 1024

    with (tmp_path / "verda" / "vms.csv").open(newline="") as handle:
        verda = {r["InstanceType"]: r for r in csv.DictReader(handle)}
    b200 = verda[DATACRUNCH_B200]  # on-demand and spot offers share one row
    # its spot price (6.43) is suspect on the plausibility screen, so the row has none
    assert (b200["Price"], b200["SpotPrice"], b200["AcceleratorName"]) == ("29.1", "", "B200")
    # the dynamic (daily re-set) price is its own pricing kind, which the format cannot hold
    assert f"{DATACRUNCH_B200} dynamic" not in verda
    assert report.files["lambda/vms.csv"] == len(rows)


def test_interop_names_name_canonical_gpus_and_cite_sources():
    gpu_ids = {r["gpu_id"] for r in csv.DictReader((REPO / "warehouse/seeds/gpus.csv").open())}
    rows = list(csv.DictReader(NAMES_CSV.open(newline="")))
    assert {r["tool"] for r in rows} == {"gpuhunt", "skypilot"}
    for row in rows:
        assert row["source_url"].startswith("https://github.com/"), row
        if row["kind"] == "gpu":
            assert row["gpuprices_id"] in gpu_ids, row
    keys = [(r["tool"], r["kind"], r["gpuprices_id"]) for r in rows if r["gpuprices_id"]]
    assert len(keys) == len(set(keys)), "one name per tool and id"


def test_cli_export_writes_both_formats(replayed_home, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(replayed_home[0].home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["export", "--format", "skypilot", str(tmp_path / "sky")]) == 0
    assert main(["export", "--format", "gpuhunt", str(tmp_path / "gh")]) == 0
    out = capsys.readouterr().out
    assert "lambda/vms.csv: " in out and "lambdalabs.csv: " in out
    assert "left out" in out and "runpod" in out
    assert (tmp_path / "sky" / "lambda" / "vms.csv").is_file()


def test_cli_export_without_a_snapshot_fails_clearly(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "empty"))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["export", "--format", "gpuhunt", str(tmp_path / "out")]) == 1
    assert "no snapshot published yet" in capsys.readouterr().err
    assert not Path(tmp_path / "out").exists()
