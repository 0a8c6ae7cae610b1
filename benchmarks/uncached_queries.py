"""Serving speed for queries nobody asked before: distinct /instances query strings against a
static body served by the same stack, at today's size and at 50,000 offers (issue 13); the
server's memory after 5,000 distinct large queries and /health under 200 connections of
uncached queries (issue 15).

    .venv/bin/python benchmarks/uncached_queries.py                 # builds a snapshot first
    .venv/bin/python benchmarks/uncached_queries.py --home ~/.local/share/gpuprices --rounds 5

Starts the API (``api.app``) and ``benchmarks/static_app.py`` (the API's own body for
``GET /instances?min_vram=80&fp8=true``, precomputed) under uvicorn, 1 worker each, as
``benchmarks/serving.py`` does. Query strings are drawn with a fixed seed (filters, sort,
limit, offset, cheapest_per_gpu), deduplicated, and never reused within a run: every round
gets its own, and each wrk thread its own slice of them (a Lua script hands them out in
order). Each round drives the API with the distinct queries, then the static app, with 16
connections; the median ratio over the rounds is printed with requests/s and p50/p99. Then
one client alone (one wrk connection) times new queries. Then the server's resident memory
before and after 5,000 distinct ``limit=1000`` URLs, and ``/health`` latency from one client
while 200 connections send distinct queries.

Then the same at internet scale: a synthetic snapshot of ``--offers`` current offers
(replicated from the real ones with distinct ids, ``benchmarks/synthetic_offers.py``): one
client's new-query latency, ``/instances?min_vram=80&fp8=true`` over HTTP, gpuhunt's own
in-process ``query(min_gpu_memory=80)`` over our gpuhunt export of the same offers, and
``/health`` under 200 connections. Needs ``wrk`` (Debian package ``wrk``). Exit status 1 when
a target is missed or a request failed.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from benchmarks.serving import QUERY, Load, wrk  # noqa: E402
from benchmarks.synthetic_offers import (  # noqa: E402
    gpuhunt_query_ms,
    health_under_load,
    server_rss_mb,
    synthetic_home,
)
from tests.support.harness import SNAPSHOTS, api_server, direct_ingest  # noqa: E402

CONNECTIONS = 16
TARGET_RATIO = 0.3
TARGET_NEW_MS = 1.0  # one client, a new query, today's size
TARGET_NEW_LARGE_MS = 5.0  # the same at SYNTHETIC_OFFERS
SYNTHETIC_OFFERS = 50_000
HEALTH_CONNECTIONS = 200
LARGE_QUERIES = 5000
SEED = 13
# Handed out in order, each thread its own slice (thread n takes lines n, n + threads, ...).
LUA = """
local paths = {}
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  local file, threads, n = args[1], tonumber(args[2]), 0
  for line in io.lines(file) do
    if n % threads == id then paths[#paths + 1] = line end
    n = n + 1
  end
  i = 0
end
function request()
  i = i + 1
  if i > #paths then i = 1 end  -- ran out: wrapped (reported as repeats by the script)
  return wrk.format("GET", paths[i])
end
"""

GPUS = ["h100", "h100-sxm", "a100", "a100-80gb", "h200", "l40s", "rtx-4090", "a10g", "l4", "b200"]
PROVIDERS = ["lambda", "runpod", "vast", "aws", "gcp", "azure", "datacrunch", "vultr", "modal"]


def queries(seed: int) -> Iterator[str]:
    """Endless distinct /instances query strings, drawn from ``seed``."""
    rng = random.Random(seed)
    seen: set[str] = set()
    while True:
        params: list[tuple[str, str]] = []
        if rng.random() < 0.4:
            params.append(("min_vram", str(rng.choice([16, 24, 40, 48, 80, 94, 141]))))
        if rng.random() < 0.2:
            params.append(("min_total_vram", str(rng.choice([80, 160, 320, 640]))))
        for flag in ("fp8", "bf16", "serverless"):
            if rng.random() < 0.15:
                params.append((flag, rng.choice(["true", "false"])))
        if rng.random() < 0.3:
            params.append(("gpu", ",".join(rng.sample(GPUS, rng.randint(1, 2)))))
        if rng.random() < 0.3:
            for slug in rng.sample(PROVIDERS, rng.randint(1, 3)):
                params.append(("provider", slug))
        if rng.random() < 0.2:
            params.append(("pricing", rng.choice(["on_demand", "spot", "reserved"])))
        if rng.random() < 0.2:
            params.append(("max_price_per_gpu", str(rng.choice([1, 1.5, 2, 3, 5]))))
        if rng.random() < 0.1:
            params.append(("max_price", str(rng.choice([5, 10, 30]))))
        if rng.random() < 0.2:
            params.append(("min_gpus", str(rng.choice([1, 2, 4, 8]))))
        if rng.random() < 0.1:
            params.append(("max_age_days", str(rng.choice([7, 30, 365]))))
        if rng.random() < 0.2:
            params.append(("cheapest_per_gpu", "true"))
        params.append(
            (
                "sort",
                rng.choice(["", "-"])
                + rng.choice(["price", "price_per_gpu", "price_per_vram_gb", "vram"]),
            )
        )
        params.append(("limit", str(rng.randint(1, 200))))
        params.append(("offset", str(rng.choice([0, 0, 0, rng.randint(0, 100)]))))
        rng.shuffle(params)
        query = "/instances?" + urlencode(params)
        if query not in seen:
            seen.add(query)
            yield query


def drive_distinct(
    base: str,
    paths: list[str],
    duration_s: float,
    connections: int,
    threads: int,
    timeout_s: float = 2.0,
) -> Load:
    """wrk over ``paths`` (each once, in order, per thread slice); a request unanswered after
    ``timeout_s`` counts as an error (wrk's own default: 2 s)."""
    with tempfile.TemporaryDirectory(prefix="gpuprices-uncached-") as tmp:
        script, listing = Path(tmp) / "distinct.lua", Path(tmp) / "paths.txt"
        script.write_text(LUA, encoding="utf-8")
        listing.write_text("\n".join(paths) + "\n", encoding="utf-8")
        return wrk(
            base + "/",
            duration_s,
            connections,
            threads,
            extra=[
                "--timeout",
                f"{timeout_s:g}s",
                "-s",
                str(script),
                "--",
                str(listing),
                str(threads),
            ],
        )


def large_queries(count: int) -> list[str]:
    """``count`` distinct URLs answering every offer, 1,000 to a page (about 1 MB each)."""
    return [
        f"/instances?limit=1000&include_suspect=true&max_price={100_000 + n / 1000:.3f}"
        for n in range(count)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="GPUPRICES_HOME with a published snapshot")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; median kept")
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument(
        "--per-round", type=int, default=60_000, help="distinct queries prepared per round"
    )
    parser.add_argument(
        "--single", type=float, default=3.0, help="seconds of each single-client measurement"
    )
    parser.add_argument("--offers", type=int, default=SYNTHETIC_OFFERS, help="synthetic size")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    drawn = queries(SEED)

    def fresh(count: int = args.per_round) -> list[str]:
        return [next(drawn) for _ in range(count)]

    def crowd(base: str) -> Load:
        # 200 connections queue behind each other: a 10 s wait is slow, not an error
        return drive_distinct(
            base, fresh(), args.duration, HEALTH_CONNECTIONS, args.threads, timeout_s=10.0
        )

    with tempfile.TemporaryDirectory(prefix="gpuprices-uncached-") as tmp:
        home = args.home
        if home is None:
            from scrapers.registry import PROVIDERS as REGISTERED

            home = Path(tmp) / "home"
            direct_ingest(home, SNAPSHOTS, sorted(REGISTERED))
        ratios, api_loads, static_loads = [], [], []
        with api_server(home, reload_interval_s=1.0) as api:
            body = httpx.get(api + QUERY).raise_for_status().content
            static_file = Path(tmp) / "static.json"
            static_file.write_bytes(body)
            with api_server(
                None,
                app="benchmarks.static_app:create_app",
                env={"STATIC_BODY_FILE": str(static_file)},
                ready_path="/",
            ) as static:
                for _ in range(args.rounds):
                    paths = fresh()
                    load = drive_distinct(api, paths, args.duration, args.connections, args.threads)
                    if load.requests > len(paths):
                        print(f"warning: {load.requests} requests > {len(paths)} distinct")
                    base = wrk(static + QUERY, args.duration, args.connections, args.threads)
                    api_loads.append(load)
                    static_loads.append(base)
                    ratios.append(load.requests_per_s / base.requests_per_s)
            new = drive_distinct(api, fresh(), args.single, 1, 1)
            rss_before = server_rss_mb(api)
            large = drive_distinct(api, large_queries(LARGE_QUERIES), 2 * args.duration, 4, 2)
            rss_after = server_rss_mb(api)
            crowded, health = health_under_load(api, lambda: crowd(api))
        synthetic, catalog, exported = synthetic_home(home, Path(tmp) / "synthetic", args.offers)
        with api_server(synthetic, reload_interval_s=3600.0, timeout_s=900) as big:
            new_big = drive_distinct(big, fresh(), args.single, 1, 1)
            fixed_big = wrk(big + QUERY, args.single, 1, 1)
            crowded_big, health_big = health_under_load(big, lambda: crowd(big))
        gpuhunt_ms, gpuhunt_rows = gpuhunt_query_ms(catalog, min_gpu_memory=80)
    ratio = statistics.median(ratios)
    middle = sorted(range(len(ratios)), key=ratios.__getitem__)[len(ratios) // 2]
    print(
        f"distinct GET /instances queries (seed {SEED}, none repeated), {args.connections} "
        f"connections, {args.duration:g} s per run, {args.rounds} alternating rounds"
    )
    print(api_loads[middle].line("api"))
    print(static_loads[middle].line("static"))
    print(
        f"ratio api/static per round: {', '.join(f'{r:.3f}' for r in ratios)}; "
        f"median {ratio:.3f} (target >= {TARGET_RATIO})"
    )
    print(
        f"one client (1 wrk connection): new query p50 {new.p50_ms:.2f} ms "
        f"({new.requests} queries; target <= {TARGET_NEW_MS:g} ms)"
    )
    print(
        f"server memory: {rss_before:.0f} MB before, {rss_after:.0f} MB after "
        f"{large.requests} requests over {LARGE_QUERIES} distinct limit=1000 URLs "
        f"({large.requests_per_s:.0f} req/s)"
    )
    print(f"{HEALTH_CONNECTIONS} connections of distinct queries: {crowded.line('api')}")
    print("  " + health.line())
    print(f"synthetic snapshot of {args.offers} current offers (replicated, distinct ids):")
    print(
        f"  one client: new query p50 {new_big.p50_ms:.2f} ms ({new_big.requests} queries; "
        f"target <= {TARGET_NEW_LARGE_MS:g} ms)"
    )
    print(
        f"  GET {QUERY} over HTTP, one client: p50 {fixed_big.p50_ms:.2f} ms "
        f"(a page of 100 of the matches)"
    )
    print(
        f"  gpuhunt query(min_gpu_memory=80) in-process over our gpuhunt export of the same "
        f"offers ({exported} rows): median {gpuhunt_ms:.2f} ms ({gpuhunt_rows} rows returned)"
    )
    print(f"  {HEALTH_CONNECTIONS} connections of distinct queries: {crowded_big.line('api')}")
    print("  " + health_big.line())
    failed = any(
        load.errors for load in [*api_loads, *static_loads, new, large, new_big, fixed_big]
    ) or bool(health.failures or health_big.failures)
    missed = (
        ratio < TARGET_RATIO
        or new.p50_ms > TARGET_NEW_MS
        or new_big.p50_ms > TARGET_NEW_LARGE_MS
        or fixed_big.p50_ms > gpuhunt_ms
    )
    return 1 if failed or missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
