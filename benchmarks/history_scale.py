"""Price history at scale: three years of hourly scrapes of 30 providers x 300 offers.

    uv run python benchmarks/history_scale.py [--years 3 --providers 30 --offers 300]

Generates hourly observations with realistic change rates (``tests.support.synthetic_history``)
and ingests them through the warehouse's own code (``tests.support.history_load``): a simulated
day at a time through ``warehouse.batch`` (``prepare_batch`` + ``commit_batch`` ->
``history.apply_batch``, the set-based history code the per-scrape path runs too), and selected
hours through the exact per-scrape pipeline path (``start_scrape`` -> ``prepare`` ->
``commit_scrape``, then ``derive.rebuild`` and ``publish``).
Raw observations are pruned by the retention policy as the pipeline would (migration 0002).

Prints: the warehouse and snapshot sizes; the time of one hourly run early on and at the end
(it must not grow with the length of history); "daily min per GPU model over 3 years"; and a
point-in-time query. Results are in docs/history.md.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

from tests.support.history_load import (  # noqa: E402
    hour_offers,
    load_day_batch,
    load_hour_per_scrape,
    setup,
    stage_day,
)
from tests.support.synthetic_history import Generator, days  # noqa: E402
from warehouse.db import Warehouse, transaction  # noqa: E402
from warehouse.derive import rebuild  # noqa: E402
from warehouse.history import prune_observations, refresh_rollup, retention_days  # noqa: E402
from warehouse.paths import Paths  # noqa: E402
from warehouse.publish import publish  # noqa: E402

DAILY_MIN_SQL = """
select gpu_id, day, min(min_usd_per_gpu_hour) as min_usd_per_gpu_hour
from daily_gpu_prices
group by gpu_id, day
order by gpu_id, day
"""
POINT_IN_TIME_SQL = """
select provider, instance_type, region, pricing, gpu_id, price_per_gpu_hour_usd
from offers_as_of(?::timestamptz)
where gpu_id = 'h100-sxm' and pricing = 'on_demand'
"""


def _timed(fn: Callable[[], list], repeat: int = 5) -> tuple[float, float, list]:
    """(first run ms, median of the following runs ms, last result)."""
    times: list[float] = []
    result: list = []
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times[0], statistics.median(times[1:]), result


def hourly_run(con: duckdb.DuckDBPyConnection, hour: int, paths: Paths, now: datetime) -> dict:
    """One pipeline run for the staged ``hour``: per-scrape loads, derive, publish (seconds)."""
    offers = hour_offers(con, hour)
    t0 = time.perf_counter()
    scrapes = load_hour_per_scrape(con, offers)
    t1 = time.perf_counter()
    rebuild(con, now=now)
    t2 = time.perf_counter()
    publish(con, paths.published, now=now)
    t3 = time.perf_counter()
    return {
        "scrapes": scrapes,
        "ingest_s": t1 - t0,
        "derive_s": t2 - t1,
        "publish_s": t3 - t2,
        "total_s": t3 - t0,
    }


def _mb(path: Path) -> float:
    return path.stat().st_size / 1e6 if path.exists() else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--years", type=float, default=3)
    parser.add_argument("--providers", type=int, default=30)
    parser.add_argument("--offers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--home",
        type=Path,
        default=REPO / "benchmarks" / "out" / "history_scale",
        help="GPUPRICES_HOME for the generated warehouse (recreated)",
    )
    args = parser.parse_args(argv)

    total_days = math.ceil(args.years * 365)
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    gen = Generator(
        providers=args.providers,
        offers=args.offers,
        seed=args.seed,
        start=end - timedelta(days=total_days),
    )
    paths = Paths(args.home)
    if paths.home.exists():
        for old in (paths.warehouse, Path(f"{paths.warehouse}.wal")):
            old.unlink(missing_ok=True)
        for old in paths.published.glob("*"):
            old.unlink()
    paths.home.mkdir(parents=True, exist_ok=True)
    print(
        f"generating {total_days} days x 24 h x {args.providers} providers x {args.offers} offers"
        f" ({total_days * 24 * args.providers:,} scrapes, "
        f"{total_days * 24 * args.providers * args.offers:,} offer-hours) into {paths.home}"
    )
    runs: list[tuple[str, dict]] = []
    # measured days: early, after one and two years, the last (0-based day numbers)
    measured_days = sorted(
        {min(7, total_days - 1), min(364, total_days - 1), min(729, total_days - 1), total_days - 1}
    )
    t_start = time.perf_counter()
    with Warehouse(paths.warehouse).connect() as con:
        setup(con, gen)
        keep_from = end - timedelta(days=retention_days(con) or 0)
        for n, day in enumerate(days(gen, total_days)):
            stage_day(con, day)
            measured = n in measured_days
            load_day_batch(con, range(0, 23) if measured else None, observations_from=keep_from)
            if measured:
                # what the runs of hours 0-22 would have done, then a clean slate on disk so
                # the measured run pays only for its own writes
                with transaction(con):
                    refresh_rollup(con, now=day.start + timedelta(hours=23))
                    prune_observations(con)
                con.execute("checkpoint")
                now = day.start + timedelta(hours=23, minutes=59)
                runs.append((f"day {n + 1}", hourly_run(con, 23, paths, now)))
            # what every pipeline run does after loading (derive.rebuild -> history.maintain);
            # once a simulated day is enough to keep the rollup and retention current
            with transaction(con):
                refresh_rollup(con, now=day.start + timedelta(days=1))
                prune_observations(con)
            if (n + 1) % 30 == 0:
                elapsed = time.perf_counter() - t_start
                print(f"  {n + 1:5d} days loaded, {elapsed:7.1f} s", flush=True)
        load_s = time.perf_counter() - t_start
        digest_sql = (
            "select count(*), sum(hash(day, provider, gpu_id, pricing, source,"
            " min_usd_per_gpu_hour, max_usd_per_gpu_hour, offer_count))"
            " from daily_provider_prices"
        )
        incremental = con.execute(digest_sql).fetchall()
        t0 = time.perf_counter()
        with transaction(con):
            refresh_rollup(con, now=end, full=True)
        full_rollup_s = time.perf_counter() - t0
        rollup_agrees = con.execute(digest_sql).fetchall() == incremental
        con.execute("checkpoint")
        counts = {
            t: con.execute(f"select count(*) from {t}").fetchone()[0]  # type: ignore[index]
            for t in ("scrapes", "observations", "offer_history", "daily_provider_prices")
        }
        changes_per_day = counts["offer_history"] / total_days
        point = gen.start + timedelta(days=total_days * 0.37, hours=5)
        wh = {
            "daily": _timed(lambda: con.execute(DAILY_MIN_SQL).fetchall()),
            "point": _timed(lambda: con.execute(POINT_IN_TIME_SQL, [point]).fetchall()),
        }
        info = publish(con, paths.published, now=end)
    snap = duckdb.connect(str(info.path), read_only=True)
    snap.execute("set timezone = 'UTC'")
    sn = {
        "daily": _timed(lambda: snap.execute(DAILY_MIN_SQL).fetchall()),
        "point": _timed(lambda: snap.execute(POINT_IN_TIME_SQL, [point]).fetchall()),
    }
    snap.close()

    print()
    print(
        f"loaded in {load_s:.0f} s; full rollup rebuild {full_rollup_s:.2f} s"
        f" (equal to the incrementally refreshed rollup: {rollup_agrees})"
    )
    print(
        f"rows: {', '.join(f'{k} {v:,}' for k, v in counts.items())}"
        f" ({changes_per_day:.0f} history rows per day)"
    )
    print(f"warehouse {_mb(paths.warehouse):.1f} MB; published snapshot {_mb(info.path):.1f} MB")
    print()
    print(
        f"one hourly run ({args.providers} scrapes via start_scrape/prepare/commit_scrape,"
        " then derive, publish):"
    )
    for label, run in runs:
        print(
            f"  {label:<10} ingest {run['ingest_s']:.2f} s  derive {run['derive_s']:.2f} s"
            f"  publish {run['publish_s']:.2f} s  total {run['total_s']:.2f} s"
            f"  ({run['scrapes']} scrapes loaded)"
        )
    print()
    rows_daily = len(wh["daily"][2])
    rows_point = len(wh["point"][2])
    for name, where in (("warehouse", wh), ("snapshot", sn)):
        print(
            f"{name}: daily min per GPU model over {args.years:g} years ({rows_daily:,} rows):"
            f" first {where['daily'][0]:.0f} ms, then median {where['daily'][1]:.0f} ms"
        )
        print(
            f"{name}: point-in-time H100 SXM on-demand at {point:%Y-%m-%d %H:%M}"
            f" ({rows_point} rows): first {where['point'][0]:.0f} ms,"
            f" then median {where['point'][1]:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
