"""Check our gpuhunt and SkyPilot exports with the real tools, installed into a throwaway venv.

    .venv/bin/python benchmarks/interop_check.py                       # temp dir, removed after
    .venv/bin/python benchmarks/interop_check.py --work /tmp/interop   # keep (and reuse) the venv
    .venv/bin/python benchmarks/interop_check.py --home $GPUPRICES_HOME  # export that home instead

Steps (docs/interop.md says what the results mean):

1. A venv under the work dir with ``gpuhunt[all]==GPUHUNT``, ``skypilot==SKYPILOT`` and pytest
   (uv when it is on PATH, else venv + pip). Nothing is installed into the project's venv.
2. gpuhunt's sdist (``pip download --no-binary :all: --no-deps gpuhunt==GPUHUNT``): its
   ``src/integrity_tests`` are gpuhunt's own checks of a published catalog directory.
3. A full replay (``gpuprices ingest --replay SNAPSHOTS`` into a fresh GPUPRICES_HOME), then
   ``gpuprices export --format gpuhunt`` and ``--format skypilot``.
4. gpuhunt's catalog-file integrity tests (every ``test_*.py`` whose class is a
   ``CatalogFileIntegrityTests``) with ``CATALOG_DIR`` = our export; the result per provider,
   and each failing test with its first error line.
5. For every cloud directory of the SkyPilot export that SkyPilot knows: the catalog placed
   where SkyPilot reads it (``$SKY_RUNTIME_DIR/.sky/catalogs/v8/<cloud>/vms.csv``), then, in a
   fresh interpreter per cloud, SkyPilot's own catalog functions (``sky.catalog``):
   list_accelerators (every listed price must be one of our rows' prices), get_hourly_cost per
   row and pricing (must equal ours), instance_type_exists, get_vcpus_mem_from_instance_type,
   get_accelerators_from_instance_type, get_region_zones_for_instance_type,
   validate_region_zone, get_instance_type_for_accelerator per accelerator and count, and, for
   a layout with accelerator rows (GCP), machine + accelerator cost = our price.

Exit status 0 when every SkyPilot check passes and every failing integrity test is one that
docs/interop.md lists (by its pytest id); 1 otherwise. Needs PyPI (package installs) only.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

from tests.support.archives import extract_members  # noqa: E402

SNAPSHOTS = REPO.parent / "shared" / "snapshots"
DOC = REPO / "docs" / "interop.md"
GPUHUNT = "0.1.34"
SKYPILOT = "0.14.1"
TEST_ID = re.compile(r"test_\w+\.py::\w+::[\w\[\]\-.]+")
# a SkyPilot check that docs/interop.md explains for one cloud: `skypilot <cloud> <function>`
SKY_LIMIT = re.compile(r"`skypilot (\w+) (\w+)`")

# Runs in the tools venv, one process per cloud (SkyPilot caches a catalog per process).
SKY_PROBE = r"""
import csv, importlib, json, math, sys
from pathlib import Path

cloud, ours_csv = sys.argv[1], Path(sys.argv[2])
out = {"cloud": cloud, "checks": 0, "errors": [], "accelerators": [], "listed": 0}
from sky.utils import registry
try:
    registry.CLOUD_REGISTRY.from_str(cloud)
except ValueError:
    out["skypilot_cloud"] = False
    json.dump(out, sys.stdout)
    sys.exit(0)
out["skypilot_cloud"] = True
from sky import catalog
module = importlib.import_module(f"sky.catalog.{cloud}_catalog")
rows = list(csv.DictReader(ours_csv.open(newline="")))
by_key = {(r["InstanceType"], r["Region"]): r for r in rows if r["InstanceType"]}


def check(what, fn):
    out["checks"] += 1
    try:
        return fn()
    except Exception as exc:  # every failure is reported, none stops the others
        out["errors"].append(f"{what}: {type(exc).__name__}: {exc}".splitlines()[0][:300])
        return None


def close(got, want):
    return math.isclose(got, want, rel_tol=1e-9) or (math.isnan(got) and math.isnan(want))


def ours(row, column):
    return float(row[column]) if row[column] else math.nan


def listed_like_ours(name, info):
    row = by_key.get((info.instance_type, info.region))
    if row is None:
        raise AssertionError(f"{info.instance_type} in {info.region} is not one of our rows")
    for got, column in ((info.price, "Price"), (info.spot_price, "SpotPrice")):
        if not close(got, ours(row, column)):
            raise AssertionError(f"{info.instance_type} {column} {got} != ours {row[column]}")


def hourly(row, spot):
    got = catalog.get_hourly_cost(
        row["InstanceType"], use_spot=spot, region=row["Region"], zone=None, clouds=cloud
    )
    if not close(got, ours(row, "SpotPrice" if spot else "Price")):
        raise AssertionError(f"{got} != ours")


def machine_plus_accelerator(row, accelerators, spot):
    [(name, count)] = accelerators.items()
    got = catalog.get_hourly_cost(
        row["InstanceType"], use_spot=spot, region=row["Region"], zone=None, clouds=cloud
    ) + catalog.get_accelerator_hourly_cost(
        name, count, use_spot=spot, region=row["Region"], zone=None, clouds=cloud
    )
    if not close(got, ours(row, "SpotPrice" if spot else "Price")):
        raise AssertionError(f"{name}:{count} {got} != ours")


def is_true(value):
    if not value:
        raise AssertionError(repr(value))
    return value


accelerators = check("list_accelerators", lambda: catalog.list_accelerators(clouds=cloud)) or {}
out["accelerators"] = sorted(accelerators)
out["listed"] = sum(len(v) for v in accelerators.values())
for name, infos in accelerators.items():
    for info in infos:
        what = f"list_accelerators {name} {info.instance_type}"
        check(what, lambda: listed_like_ours(name, info))
    for count in sorted({int(i.accelerator_count) for i in infos if i.accelerator_count >= 1}):
        check(
            f"get_instance_type_for_accelerator {name}:{count}",
            lambda: is_true(
                catalog.get_instance_type_for_accelerator(name, count, clouds=cloud)[0]
            ),
        )
        if hasattr(module, "get_region_zones_for_accelerators"):
            check(
                f"get_region_zones_for_accelerators {name}:{count}",
                lambda: is_true(
                    catalog.get_region_zones_for_accelerators(name, count, False, clouds=cloud)
                ),
            )
for row in rows:
    it = row["InstanceType"]
    if not it:
        continue  # an accelerator row (GCP layout): read through the machine-type rows
    for spot, column in ((False, "Price"), (True, "SpotPrice")):
        if row[column]:
            check(f"get_hourly_cost {it} {row['Region']} {column}", lambda: hourly(row, spot))
    check(f"instance_type_exists {it}",
          lambda: is_true(catalog.instance_type_exists(it, clouds=cloud)))
    check(f"get_vcpus_mem_from_instance_type {it}",
          lambda: catalog.get_vcpus_mem_from_instance_type(it, clouds=cloud))
    accs = check(f"get_accelerators_from_instance_type {it}",
                 lambda: is_true(catalog.get_accelerators_from_instance_type(it, clouds=cloud)))
    if accs and not row["AcceleratorName"]:  # a machine-type row: SkyPilot adds the GPU row
        for spot, column in ((False, "Price"), (True, "SpotPrice")):
            if row[column]:
                check(f"machine + accelerator cost {it} {column}",
                      lambda: machine_plus_accelerator(row, accs, spot))
    spot_only = not row["Price"]
    check(f"get_region_zones_for_instance_type {it}",
          lambda: is_true(catalog.get_region_zones_for_instance_type(it, spot_only, clouds=cloud)))
    check(f"validate_region_zone {row['Region']}",
          lambda: catalog.validate_region_zone(row["Region"], None, clouds=cloud))
json.dump(out, sys.stdout)
"""


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; raise with its output tail when it fails."""
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{tail}")
    return done


def tools_venv(work: Path, gpuhunt: str, skypilot: str) -> Path:
    """The venv's python, with gpuhunt, SkyPilot and pytest installed (reused when present)."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    stamp = venv / f".installed-gpuhunt-{gpuhunt}-skypilot-{skypilot}"
    if stamp.exists():
        return python
    uv = shutil.which("uv")
    packages = [f"gpuhunt[all]=={gpuhunt}", f"skypilot=={skypilot}", "pytest"]
    if uv:
        run([uv, "venv", "--seed", "-q", "-p", sys.executable, str(venv)])
        run([uv, "pip", "install", "-q", "--python", str(python), *packages])
    else:
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", *packages])
    stamp.touch()
    return python


def integrity_tests(work: Path, python: Path, gpuhunt: str) -> Path:
    """gpuhunt's integrity_tests package from its sdist, copied to WORK/integrity/."""
    target = work / "integrity"
    if (target / "integrity_tests").is_dir():
        return target
    download = work / "sdist"
    run(
        [
            *(str(python), "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps"),
            *(f"gpuhunt=={gpuhunt}", "-d", str(download)),
        ]
    )
    [archive] = download.glob(f"gpuhunt-{gpuhunt}.tar.gz")
    prefix = f"gpuhunt-{gpuhunt}/src/integrity_tests/"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        for member in members:
            member.name = "integrity_tests/" + member.name[len(prefix) :]
        extract_members(tar, str(target), members)
    return target


def replay_and_export(work: Path, home: Path | None, snapshots: Path) -> tuple[Path, Path]:
    """(gpuhunt dir, SkyPilot dir) exported from ``home``, or from a fresh full replay."""
    cli = "import sys; from pipelines.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {k: v for k, v in os.environ.items() if k != "GPUPRICES_SNAPSHOT_URL"}
    if home is None:
        home = work / "home"
        shutil.rmtree(home, ignore_errors=True)
        env["GPUPRICES_HOME"] = str(home)
        run([sys.executable, "-c", cli, "ingest", "--replay", str(snapshots)], cwd=REPO, env=env)
    env["GPUPRICES_HOME"] = str(home)
    out = {}
    for fmt in ("gpuhunt", "skypilot"):
        out[fmt] = work / "export" / fmt
        shutil.rmtree(out[fmt], ignore_errors=True)
        # every offer, expired or not: this checks the format, not which prices are in force
        export = ["export", "--format", fmt, str(out[fmt]), "--include-expired"]
        run([sys.executable, "-c", cli, *export], cwd=REPO, env=env)
    return out["gpuhunt"], out["skypilot"]


def run_integrity(python: Path, tests: Path, catalog: Path) -> list[dict[str, str]]:
    """One dict per test: provider (catalog name), id, outcome, message."""
    files = sorted(
        p.name
        for p in (tests / "integrity_tests").glob("test_*.py")
        if "(CatalogFileIntegrityTests)" in p.read_text(encoding="utf-8")
    )
    report = tests / "results.xml"
    env = dict(os.environ, CATALOG_DIR=str(catalog))
    subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        + [f"integrity_tests/{f}" for f in files],
        cwd=tests,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    results = []
    for case in ET.parse(report).getroot().iter("testcase"):
        module, cls = case.get("classname", "").rsplit(".", 1)
        test_id = f"{module.rsplit('.', 1)[-1]}.py::{cls}::{case.get('name')}"
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        message = "" if problem is None else (problem.get("message") or "").splitlines()[0]
        results.append(
            {
                "provider": module.rsplit(".", 1)[-1].removeprefix("test_"),
                "id": test_id,
                "outcome": "passed" if problem is None else "failed",
                "message": message[:160],
            }
        )
    return results


def run_skypilot(python: Path, work: Path, export_dir: Path) -> list[dict]:
    runtime = work / "sky-runtime"
    shutil.rmtree(runtime, ignore_errors=True)
    catalogs = runtime / ".sky" / "catalogs" / "v8"
    probe = work / "sky_probe.py"
    probe.write_text(SKY_PROBE, encoding="utf-8")
    for vms in sorted(export_dir.glob("*/vms.csv")):
        (catalogs / vms.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(vms, catalogs / vms.parent.name / "vms.csv")
    env = dict(os.environ, SKY_RUNTIME_DIR=str(runtime), HOME=str(runtime))
    results = []
    for vms in sorted(catalogs.glob("*/vms.csv")):
        cloud = vms.parent.name
        with vms.open(newline="") as handle:
            rows = sum(1 for _ in csv.DictReader(handle))
        done = subprocess.run(
            [str(python), str(probe), cloud, str(vms)],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            result = {"cloud": cloud, "skypilot_cloud": True, "checks": 0, "listed": 0}
            result |= {"accelerators": [], "errors": [f"crashed: {last[:300]}"]}
        else:
            result = json.loads(done.stdout)
        result["rows"] = rows
        results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--work", type=Path, help="work dir to keep and reuse (default: temp)")
    parser.add_argument("--home", type=Path, help="export this GPUPRICES_HOME (default: replay)")
    parser.add_argument("--snapshots", type=Path, default=SNAPSHOTS)
    parser.add_argument("--gpuhunt", default=GPUHUNT, help=f"gpuhunt version ({GPUHUNT})")
    parser.add_argument("--skypilot", default=SKYPILOT, help=f"SkyPilot version ({SKYPILOT})")
    args = parser.parse_args(argv)

    temp = None if args.work else tempfile.TemporaryDirectory(prefix="interop-")
    work = args.work if temp is None else Path(temp.name)
    work.mkdir(parents=True, exist_ok=True)
    try:
        python = tools_venv(work, args.gpuhunt, args.skypilot)
        tests = integrity_tests(work, python, args.gpuhunt)
        gpuhunt_dir, skypilot_dir = replay_and_export(work, args.home, args.snapshots)
        integrity = run_integrity(python, tests, gpuhunt_dir)
        skypilot = run_skypilot(python, work, skypilot_dir)
    finally:
        if temp is not None:
            temp.cleanup()
    return report(integrity, skypilot, args)


def report(integrity: list[dict[str, str]], skypilot: list[dict], args: argparse.Namespace) -> int:
    doc = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    documented = set(TEST_ID.findall(doc))
    sky_limits = set(SKY_LIMIT.findall(doc))
    print(f"gpuhunt {args.gpuhunt} integrity tests (catalog files) on our export")
    print(f"{'provider':<12} {'passed':>6} {'failed':>6}")
    by_provider: dict[str, Counter[str]] = {}
    for r in integrity:
        by_provider.setdefault(r["provider"], Counter())[r["outcome"]] += 1
    for provider, counts in sorted(by_provider.items()):
        print(f"{provider:<12} {counts['passed']:>6} {counts['failed']:>6}")
    total = Counter(r["outcome"] for r in integrity)
    print(f"{'total':<12} {total['passed']:>6} {total['failed']:>6}")
    undocumented = [r for r in integrity if r["outcome"] == "failed" and r["id"] not in documented]
    print("\nfailing (why: docs/interop.md):")
    for r in integrity:
        if r["outcome"] == "failed":
            mark = "" if r["id"] in documented else "  <- NOT IN docs/interop.md"
            print(f"  {r['id']}: {r['message']}{mark}")

    print(f"\nSkyPilot {args.skypilot} catalog functions on our export")
    print(f"{'cloud':<12} {'rows':>5} {'checks':>6} {'errors':>6} {'listed':>6}  accelerators")
    # errors: failing checks not explained in docs/interop.md; listed: list_accelerators rows
    sky_errors = 0
    for r in skypilot:
        if not r.get("skypilot_cloud"):
            print(f"{r['cloud']:<12} {r['rows']:>5}  not a SkyPilot cloud (no reader)")
            continue
        known = [e for e in r["errors"] if (r["cloud"], e.split(" ", 1)[0]) in sky_limits]
        new = [e for e in r["errors"] if e not in known]
        sky_errors += len(new)
        print(
            f"{r['cloud']:<12} {r['rows']:>5} {r['checks']:>6} {len(new):>6} "
            f"{r['listed']:>6}  {' '.join(r['accelerators'])}"
        )
        for function, n in sorted(Counter(e.split(" ", 1)[0] for e in known).items()):
            print(f"    {n} x {function}: documented limitation (docs/interop.md)")
        for error in new[:10]:
            print(f"    {error}")
    print(
        f"\nintegrity: {total['passed']} passed, {total['failed']} failed "
        f"({len(undocumented)} not documented); SkyPilot: {sky_errors} errors"
    )
    return 0 if not undocumented and sky_errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
