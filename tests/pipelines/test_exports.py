"""Exports read by the real tools: gpuhunt's own query() over our catalog, SkyPilot's v8 vms.csv."""

from __future__ import annotations

import ast
import csv
import json
import os
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.cli import main
from pipelines.exports import NAMES_CSV, export, export_rules
from scrapers.registry import PROVIDERS
from tests.conftest import REPO
from warehouse.publish import current, load_into_memory

# The format tests read every offer the replay holds, expired or not (Lambda's 2026-01 page is
# past the 180 days of a list price in December 2026); the default is tested on its own.
EVERY = export_rules(include_expired=True)
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

def raw_cells(provider):
    # what gpuhunt's own storage reads, cell by cell (cpu_arch must not rely on its default)
    import csv
    path = os.path.join(os.environ["GPUHUNT_CATALOG_DIR"], provider + ".csv")
    return sorted({r["cpu_arch"] for r in csv.DictReader(open(path))})

out = {
    "h100": dump(gpuhunt.query(provider="lambdalabs", gpu_name="H100", min_gpu_count=8)),
    "verda_spot": dump(gpuhunt.query(provider=["verda"], spot=True, min_gpu_count=8,
                                     gpu_name="B200")),
    "lambdalabs_all": len(gpuhunt.query(provider="lambdalabs")),
    "runpod_all": len(gpuhunt.query(provider="runpod")),
    "g4_shares": dump(gpuhunt.query(provider="gcp", gpu_name="RTXPRO6000", max_gpu_memory=48)),
    "lambda_cpu_arch": raw_cells("lambdalabs"),
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
    report = export("gpuhunt", snapshot, out, EVERY)
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
    assert h100["cpu_arch"] == "x86" and result["lambda_cpu_arch"] == ["x86"]
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
    # GCP's G4 shares as gpuhunt's own GCP catalog has them: one GPU with the share's memory
    shares = {(i["instance_name"], i["gpu_count"], i["gpu_memory"]) for i in result["g4_shares"]}
    assert {("g4-standard-6", 1, 12.0), ("g4-standard-12", 1, 24.0)} <= shares
    assert ("g4-standard-24", 1, 48.0) in shares
    # RunPod's API gives no vCPU/RAM per GPU type: gpuhunt needs both, so none are written,
    # and the report says so instead of dropping them silently.
    assert result["runpod_all"] == 0
    runpod = sum(o["provider"] == "runpod" for o in offers)
    assert runpod > 0
    reasons = {reason: n for (slug, reason), n in report.excluded.items() if slug == "runpod"}
    assert sum(reasons.values()) == runpod
    assert reasons["no vCPU or RAM figure in the source (gpuhunt requires both)"] > 0


def test_gpuhunt_export_has_the_downloadable_layout(snapshot, tmp_path):
    export("gpuhunt", snapshot, tmp_path, EVERY)
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
        report = export(fmt, snapshot, tmp_path / fmt, EVERY)
        left_out = sum(n for (_, reason), n in report.excluded.items() if "serverless" in reason)
        assert left_out == serverless


def test_skypilot_vms_csv_has_v8_columns_and_our_prices(snapshot, tmp_path):
    report = export("skypilot", snapshot, tmp_path, EVERY)
    with (tmp_path / "lambda" / "vms.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        # like SkyPilot's own Lambda catalog, no zone column: SkyPilot skips a row with an
        # empty zone when it lists the regions an instance type can launch in
        assert reader.fieldnames == [c for c in SKYPILOT_V8 if c != "AvailabilityZone"]
        rows = {r["InstanceType"]: r for r in reader}
    with (tmp_path / "aws" / "vms.csv").open(newline="") as handle:
        assert csv.DictReader(handle).fieldnames == SKYPILOT_V8  # SkyPilot's AWS reader needs it
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
    slugs = set(PROVIDERS)
    rows = list(csv.DictReader(NAMES_CSV.open(newline="")))
    assert {r["tool"] for r in rows} == {"gpuhunt", "skypilot"}
    kinds = {"provider", "online_provider", "gpu", "instance_name", "layout", "instance_gpu"}
    for row in rows:
        assert row["source_url"].startswith("https://github.com/"), row
        assert row["kind"] in kinds, row
        assert row["cpu_arch"] in ("", "arm"), row
        if row["kind"] == "gpu":
            assert row["gpuprices_id"] in gpu_ids, row
        if row["kind"] in ("instance_name", "layout", "instance_gpu"):
            assert row["provider"], row  # these only make sense for one provider
        if row["provider"]:
            assert row["provider"] in slugs, row
    keys = [
        (r["tool"], r["kind"], r["provider"], r["gpuprices_id"])
        for r in rows
        if r["gpuprices_id"] or r["provider"]
    ]
    assert len(keys) == len(set(keys)), "one name per tool, kind, provider and id"


def test_cli_export_writes_both_formats(replayed_home, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(replayed_home[0].home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    every = ["--include-expired"]
    assert main(["export", "--format", "skypilot", str(tmp_path / "sky"), *every]) == 0
    assert main(["export", "--format", "gpuhunt", str(tmp_path / "gh"), *every]) == 0
    out = capsys.readouterr().out
    assert "lambda/vms.csv: " in out and "lambdalabs.csv: " in out
    assert "left out" in out and "runpod" in out and "expired" not in out
    assert (tmp_path / "sky" / "lambda" / "vms.csv").is_file()


def test_cli_export_without_a_snapshot_fails_clearly(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path / "empty"))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["export", "--format", "gpuhunt", str(tmp_path / "out")]) == 1
    assert "no snapshot published yet" in capsys.readouterr().err
    assert not Path(tmp_path / "out").exists()


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def gpuhunt_dir(snapshot, tmp_path_factory):
    out = tmp_path_factory.mktemp("gpuhunt")
    report = export("gpuhunt", snapshot, out, EVERY)
    return out, report


@pytest.fixture(scope="module")
def skypilot_dir(snapshot, tmp_path_factory):
    out = tmp_path_factory.mktemp("skypilot")
    report = export("skypilot", snapshot, out, EVERY)
    return out, report


def test_gpuhunt_cpu_arch_is_written_for_every_row(gpuhunt_dir, offers):
    """gpuhunt's integrity tests require the cell (an empty one only reads as x86)."""
    out, _ = gpuhunt_dir
    arch = {}
    for path in out.glob("*.csv"):
        for row in _rows(path):
            arch[json.loads(row["provider_data"])["gpuprices_gpu_id"], row["cpu_arch"]] = path.name
    assert {a for _, a in arch} == {"x86", "arm"}
    # arm exactly for the Grace superchips (CoreWeave GH200 and GB200 NVL72, Vultr GH200)
    assert "gh200" in {g for g, a in arch if a == "arm"} <= {"gh200", "gb200", "gb300"}
    assert not {g for g, a in arch if a == "x86"} & {"gh200", "gb200", "gb300"}


def test_gpuhunt_locations_are_our_regions_never_guessed(gpuhunt_dir, offers):
    out, _ = gpuhunt_dir
    by_id = {o["offer_id"]: o for o in offers}
    seen = {}
    for path in out.glob("*.csv"):
        for row in _rows(path):
            offer = by_id[json.loads(row["provider_data"])["gpuprices_offer_id"]]
            assert row["location"] == offer["region"] != ""
            seen.setdefault(path.stem, set()).add(row["location"])
    assert "us-east-1" in seen["aws"] and "eastus" in seen["azure"]
    assert seen["gcp"] == {"us-central1"}  # the pricing page's region; it names no zone
    # the Lambda and DataCrunch pages quote one price per instance type and name no region
    assert seen["lambdalabs"] == seen["verda"] == {"global"}


def test_gcp_g4_shares_are_one_gpu_with_the_shares_memory_in_gpuhunt(gpuhunt_dir):
    out, report = gpuhunt_dir
    rows = {(r["instance_name"], r["spot"]): r for r in _rows(out / "gcp.csv")}
    for name, memory, fraction in (
        ("g4-standard-6", "12", "0.125"),
        ("g4-standard-12", "24", "0.25"),
        ("g4-standard-24", "48", "0.5"),
    ):
        row = rows[(name, "False")]
        assert (row["gpu_name"], row["gpu_count"], row["gpu_memory"]) == ("RTXPRO6000", "1", memory)
        assert json.loads(row["provider_data"])["gpuprices_gpu_fraction"] == fraction
    assert rows[("g4-standard-48", "False")]["gpu_memory"] == "96"
    assert ("gcp", "fractional GPU share") not in report.excluded


def test_runpod_without_vcpu_ram_stays_out_of_gpuhunt_and_is_counted(gpuhunt_dir, offers):
    """RunPod's captures (gpuTypes answers) name no location, vCPU or RAM: gpuhunt needs all
    three, so offline the file is header-only and every offer is counted by reason. (Live, the
    location queries add them: test_runpod_live_location_offers_are_gpuhunt_rows.)"""
    out, report = gpuhunt_dir
    assert _rows(out / "runpod.csv") == []
    runpod = [o for o in offers if o["provider"] == "runpod"]
    assert {(o["region"], o["cloud_tier"]) for o in runpod} == {
        ("global", "secure"),
        ("global", "community"),
    }
    assert all(o["vcpus"] is None for o in runpod)
    left_out = {r: n for (slug, r), n in report.excluded.items() if slug == "runpod"}
    assert sum(left_out.values()) == len(runpod)


def test_skypilot_runpod_uses_skypilots_instance_names_one_per_tier(skypilot_dir, offers):
    out, _ = skypilot_dir
    rows = _rows(out / "runpod" / "vms.csv")
    by_type = {r["InstanceType"]: r for r in rows}
    assert len(by_type) == len(rows)  # SkyPilot reads vCPUs per instance type
    h100 = [o for o in offers if o["provider"] == "runpod" and o["gpu_id"] == "h100-sxm"]
    for offer in (o for o in h100 if o["pricing"] == "on_demand"):
        row = by_type[f"1x_H100-SXM_{offer['cloud_tier'].upper()}"]
        assert (row["AcceleratorName"], row["Region"]) == ("H100-SXM", offer["region"])
        assert Decimal(row["Price"]) == offer["price_per_hour_usd"]
    for row in rows:
        count, gpu, tier = row["InstanceType"].split("_")
        assert (count, gpu, tier) in {
            (f"{row['AcceleratorCount']}x", row["AcceleratorName"], "SECURE"),
            (f"{row['AcceleratorCount']}x", row["AcceleratorName"], "COMMUNITY"),
        }
        assert row["Arch"] == "x86_64"


def test_skypilot_gcp_has_machine_type_rows_and_accelerator_rows(skypilot_dir, offers):
    """SkyPilot's GCP layout: machine types without accelerator columns, accelerators as their
    own rows with an empty InstanceType; SkyPilot adds the two prices."""
    out, report = skypilot_dir
    rows = _rows(out / "gcp" / "vms.csv")
    machines = [r for r in rows if r["InstanceType"]]
    accelerators = {
        (r["AcceleratorName"], r["AcceleratorCount"], r["Region"]): r
        for r in rows
        if not r["InstanceType"]
    }
    assert machines and accelerators
    assert all(r["AcceleratorName"] == r["GpuInfo"] == "" for r in machines)
    assert all(r["AvailabilityZone"] == r["Region"] == "us-central1" for r in rows)
    by_type = {r["InstanceType"]: r for r in machines}
    a2 = by_type["a2-highgpu-1g"]  # $3.673385 on demand, $2.20401 spot: the whole machine
    assert (a2["Price"], a2["SpotPrice"], a2["vCPUs"]) == ("3.673385", "2.20401", "12")
    a100 = accelerators[("A100", "1", "us-central1")]
    assert (a100["Price"], a100["SpotPrice"]) == ("0", "0")
    assert ast.literal_eval(a100["GpuInfo"])["Gpus"][0]["MemoryInfo"]["SizeInMiB"] == 40 * 1024
    # SkyPilot's names for GCP machine types: a3-megagpu-8g carries H100-MEGA, G4 RTXPRO6000
    assert ("H100-MEGA", "8", "us-central1") in accelerators
    assert ("H100", "8", "us-central1") in accelerators
    assert ("RTXPRO6000", "1", "us-central1") in accelerators
    # a4-highgpu-8g has spot and reserved prices only: its accelerator row has no on-demand
    b200 = accelerators[("B200", "8", "us-central1")]
    assert (b200["Price"], b200["SpotPrice"]) == ("", "0")
    # G4 shares (g4-standard-6/12/24): SkyPilot counts GCP accelerators in whole GPUs
    assert not {"g4-standard-6", "g4-standard-12", "g4-standard-24"} & set(by_type)
    assert report.excluded[("gcp", "fractional GPU share")] == 6
    gcp_types = {o["instance_type"] for o in offers if o["provider"] == "gcp"}
    assert set(by_type) <= gcp_types


def test_skypilot_digitalocean_is_written_where_skypilot_reads_it(skypilot_dir):
    out, _ = skypilot_dir
    assert (out / "do" / "vms.csv").is_file() and not (out / "digitalocean").exists()


# --- RunPod live: gpuhunt's per-location queries --------------------------------------------------

RUNPOD_GPUHUNT_SCRIPT = """
import json, sys
import gpuhunt
items = gpuhunt.query(provider="runpod")
json.dump([[i.instance_name, i.location, i.price, i.cpu, i.memory, i.spot, i.gpu_name,
            i.gpu_count, i.gpu_memory] for i in items], sys.stdout)
"""


@pytest.fixture(scope="module")
def runpod_live(tmp_path_factory, seeded_template):
    """RunPod's real fetch on the live code path, answered in the shape of gpuhunt's queries
    (``tests/scrapers/test_runpod.py``: the 2025-06-19 capture's prices, the 2023 capture's
    lowestPrice vCPU/RAM/stock figures, data centres and countries named as gpuhunt's own
    RunPod test names them), loaded into a fresh warehouse, and its gpuhunt export."""
    from pipelines.exports import export_gpuhunt
    from pipelines.ingest import scrape_provider
    from scrapers import runpod
    from tests.scrapers.test_runpod import gpuhunt_shaped_transport
    from tests.support.seeded import seeded_warehouse
    from warehouse.db import Warehouse
    from warehouse.derive import rebuild
    from warehouse.paths import Paths

    paths = Paths(tmp_path_factory.mktemp("runpod-live-home"))
    seeded_warehouse(seeded_template, paths.warehouse)
    requests: list = []
    [outcome] = scrape_provider(
        runpod.PROVIDER,
        paths=paths,
        replay_dir=None,
        env={},
        transport=gpuhunt_shaped_transport(requests),
    )
    assert outcome.status == "success", outcome
    assert len(requests) == 6  # per tier, locations, 2 data centres, 2 countries
    out = tmp_path_factory.mktemp("runpod-live-gpuhunt")
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con)
        report = export_gpuhunt(con, out, "runpod-live")  # live prices: in force
        result = con.execute("select * from current_offers where provider = 'runpod'")
        columns = [d[0] for d in result.description or []]
        offers = [dict(zip(columns, row, strict=True)) for row in result.fetchall()]
    return out, report, offers


def test_runpod_live_location_offers_are_gpuhunt_rows(runpod_live, tmp_path):
    out, report, offers = runpod_live
    rows = _rows(out / "runpod.csv")
    located = [o for o in offers if o["region"] != "global"]
    assert located and all(o["vcpus"] is not None and o["ram_gb"] is not None for o in located)
    # fetched now, after RunPod ended spot Pods (2026-09-11): its spot offers are not on sale,
    # so they are not exported (gpuhunt dropped them too)
    spot = [o for o in located if o["pricing"] == "spot"]
    assert spot and {o["available"] for o in spot} == {False}
    exportable = [
        o
        for o in located
        if o["price_status"] == "ok" and o["gpu_id"] is not None and o["available"] is not False
    ]
    assert len(rows) == len(exportable) > 0
    assert {r["location"] for r in rows} == {"EU-RO-1", "US-OR-1", "CA", "RO"}
    h100 = {
        (r["location"], r["spot"]): r
        for r in rows
        if r["instance_name"] == "1x NVIDIA H100 80GB HBM3"
    }
    assert set(h100) == {(loc, "False") for loc in ("EU-RO-1", "US-OR-1", "CA", "RO")}
    secure = h100[("EU-RO-1", "False")]  # securePrice 2.99; 2023 lowestPrice 28 vCPUs, 251 GB
    assert (secure["price"], secure["cpu"], secure["memory"]) == ("2.99", "28", "251")
    assert (secure["gpu_name"], secure["gpu_count"], secure["gpu_memory"]) == ("H100", "1", "80")
    assert (secure["gpu_vendor"], secure["cpu_arch"]) == ("nvidia", "x86")
    assert h100[("CA", "False")]["price"] == "2.69"  # communityPrice
    data = json.loads(secure["provider_data"])
    assert data["gpuprices_offer_id"] in {
        o["offer_id"] for o in located if o["region"] == "EU-RO-1"
    }

    # Every other RunPod offer is counted by reason: the per-tier ones have no vCPU/RAM.
    left_out = {r: n for (slug, r), n in report.excluded.items() if slug == "runpod"}
    assert sum(left_out.values()) + report.left_out.unavailable + len(rows) == len(offers)
    no_specs = [
        o
        for o in offers
        if o["region"] == "global"
        and o["pricing"] != "reserved"
        and o["price_status"] == "ok"
        and o["gpu_id"] is not None
        and o["available"] is not False  # spot offers: past RunPod's end of spot Pods
    ]
    assert left_out["no vCPU or RAM figure in the source (gpuhunt requires both)"] == len(no_specs)

    # gpuhunt's own query() reads them, at their locations.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUNT_")}
    env.update(GPUHUNT_CATALOG_DIR=str(out), GPUHUNT_CATALOG_URL=out.as_uri())
    done = subprocess.run(
        [sys.executable, "-c", RUNPOD_GPUHUNT_SCRIPT],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    items = json.loads(done.stdout)
    assert len(items) == len(rows)
    assert ["1x NVIDIA H100 80GB HBM3", "EU-RO-1", 2.99, 28, 251.0, False, "H100", 1, 80.0] in items
