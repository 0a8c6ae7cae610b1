"""What a buyer reads first, measured on a published snapshot (issue 10's figures).

Prints, for the snapshot ``$GPUPRICES_HOME/published/CURRENT`` names (default: replay every
capture in ../shared/snapshots into a temporary home first):

- suspect offers per reason and per provider (the plausibility screen),
- fractional offers (GPU shares), memory reports off the datasheet, stale offers,
- the top 10 of ``GET /instances?min_vram=80&fp8=true`` under every sort, as the API answers.

    uv run python benchmarks/trust_report.py            # replay all captures, then report
    GPUPRICES_HOME=~/.local/share/gpuprices uv run python benchmarks/trust_report.py --existing
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from litestar.testing import TestClient  # noqa: E402

from api.app import create_app  # noqa: E402
from pipelines.cli_snapshot import current_snapshot  # noqa: E402
from warehouse.paths import Paths  # noqa: E402
from warehouse.publish import load_into_memory  # noqa: E402
from warehouse.settings import Settings  # noqa: E402

SNAPSHOTS = REPO.parent / "shared" / "snapshots"
SORTS = ("price", "price_per_gpu", "price_per_vram_gb", "vram")
REASONS_SQL = """
    select r.code, provider, count(*) as offers
    from current_offers,
         unnest(from_json(price_status_reasons, '[{"code": "VARCHAR", "detail": "VARCHAR"}]'))
             as t(r)
    group by all order by 1, 2
"""
COUNTS_SQL = """
    select count(*) as offers,
           count(*) filter (where price_status = 'suspect') as suspect,
           count(*) filter (where gpu_fraction < 1) as fractional,
           count(*) filter (where vram_report_mismatch) as vram_report_off_datasheet,
           count(*) filter (where stale) as stale,
           count(*) filter (where not stale) as fresh,
           count(*) filter (where gpu_candidates is not null) as pooled_serverless_tiers
    from current_offers
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--existing", action="store_true", help="report on $GPUPRICES_HOME")
    args = parser.parse_args()
    if args.existing:
        paths = Settings.load().paths()
    else:
        import dagster as dg

        from pipelines.run import run_ingest

        paths = Paths(Path(tempfile.mkdtemp(prefix="trust-report-")))
        os.environ["GPUPRICES_HOME"] = str(paths.home)
        run_ingest(paths, replay_dir=SNAPSHOTS, instance=dg.DagsterInstance.ephemeral())
    info = current_snapshot(Settings.load(home=paths.home))
    if isinstance(info, str):
        print(f"error: {info}", file=sys.stderr)
        return 1
    con = load_into_memory(info)
    counts = con.execute(COUNTS_SQL).fetchone()
    names = [d[0] for d in con.description]
    print(f"snapshot {info.snapshot_id}")
    print("  " + ", ".join(f"{n}={v}" for n, v in zip(names, counts or (), strict=True)))
    print("suspect offers by reason and provider:")
    for code, provider, n in con.execute(REASONS_SQL).fetchall():
        print(f"  {code:26} {provider:18} {n}")
    con.close()
    with TestClient(create_app(paths.published)) as client:
        for sort in SORTS:
            body = client.get(
                "/instances", params={"min_vram": 80, "fp8": "true", "sort": sort, "limit": 10}
            ).json()
            print(f"top 10 of /instances?min_vram=80&fp8=true&sort={sort} ({body['total']}):")
            for i in body["items"]:
                print(
                    f"  {i['provider']:11} {i['instance_type'][:44]:44} {i['region'][:13]:13}"
                    f" {i['gpu_count']:g}x {i['gpu_id']:18} {i['vram_gb_usable']:>5g} GB"
                    f" {i['pricing']:9} ${i['price_per_hour_usd']:>8.2f}/h"
                    f" ${i['price_per_gpu_hour_usd']:>6.3f}/GPU-h"
                    f" {i['observed_at'][:10]} ({i['age_days']:.0f} d)"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
