"""Serving speed for queries nobody asked before: distinct /instances query strings against a
static body, served by the same stack (issue 13).

    .venv/bin/python benchmarks/uncached_queries.py                 # builds a snapshot first
    .venv/bin/python benchmarks/uncached_queries.py --home ~/.local/share/gpuprices --rounds 3

Starts the API (``api.app``) and ``benchmarks/static_app.py`` (the API's own body for
``GET /instances?min_vram=80&fp8=true``, precomputed) under uvicorn, 1 worker each, as
``benchmarks/serving.py`` does. Query strings are drawn with a fixed seed (filters, sort,
limit, offset, cheapest_per_gpu), deduplicated, and never reused within a run: every round
gets its own, and each wrk thread its own slice of them (a Lua script hands them out in
order). Each round drives the API with the distinct queries, then the static app, with 16
connections; the median ratio over the rounds is printed with requests/s and p50/p99. Then
one client alone (one wrk connection) times new queries against one query repeated. Needs
``wrk`` (Debian package ``wrk``). Exit status 1 when the ratio is below ``TARGET_RATIO`` or a
request failed.
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
if str(REPO) not in sys.path:  # run as a script: benchmarks/ is not a package on the path
    sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from benchmarks.harness import SNAPSHOTS, api_server, direct_ingest  # noqa: E402
from benchmarks.serving import QUERY, Load, wrk  # noqa: E402

CONNECTIONS = 16
TARGET_RATIO = 0.3
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
    base: str, paths: list[str], duration_s: float, connections: int, threads: int
) -> Load:
    """wrk over ``paths`` (each once, in order, per thread slice)."""
    with tempfile.TemporaryDirectory(prefix="gpuprices-uncached-") as tmp:
        script, listing = Path(tmp) / "distinct.lua", Path(tmp) / "paths.txt"
        script.write_text(LUA, encoding="utf-8")
        listing.write_text("\n".join(paths) + "\n", encoding="utf-8")
        return wrk(
            base + "/",
            duration_s,
            connections,
            threads,
            extra=["-s", str(script), "--", str(listing), str(threads)],
        )


def single_client(base: str, fresh: list[str], repeat: str, duration_s: float) -> tuple[Load, Load]:
    """(new queries, one query repeated) driven by one wrk connection: latency without a
    Python client's own cost in it."""
    new = drive_distinct(base, fresh, duration_s, 1, 1)
    again = wrk(base + repeat, duration_s, 1, 1)
    return new, again


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="GPUPRICES_HOME with a published snapshot")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; median kept")
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument(
        "--per-round", type=int, default=60_000, help="distinct queries prepared per round"
    )
    parser.add_argument(
        "--single", type=float, default=3.0, help="seconds of each single-client measurement"
    )
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    drawn = queries(SEED)
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
                    paths = [next(drawn) for _ in range(args.per_round)]
                    load = drive_distinct(api, paths, args.duration, args.connections, args.threads)
                    if load.requests > len(paths):
                        print(f"warning: {load.requests} requests > {len(paths)} distinct")
                    base = wrk(static + QUERY, args.duration, args.connections, args.threads)
                    api_loads.append(load)
                    static_loads.append(base)
                    ratios.append(load.requests_per_s / base.requests_per_s)
            fresh = [next(drawn) for _ in range(args.per_round)]
            new, again = single_client(api, fresh, QUERY, args.single)
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
        f"({new.requests} queries), repeat of {QUERY} p50 {again.p50_ms:.2f} ms"
    )
    failed = any(load.errors for load in [*api_loads, *static_loads, new, again])
    return 0 if ratio >= TARGET_RATIO and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
