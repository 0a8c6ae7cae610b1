"""Time, peak memory and outcome of each hostile input of issues 15 and 27, each in a fresh process.

Issue 27 (default): every part builds its hostile input, runs it through the ingest path the way
a run does (``scrape_provider`` over an httpx transport or a replay directory, in a fresh temp
home), and prints one line: seconds, peak RSS of the process (MB), and what came of it.

- ``nested``: Lambda's pricing page as 200,000 nested ``<div>`` (2.2 MB; lexbor is quadratic in
  nesting depth: 191 s before). A part still running after ``--timeout`` seconds is killed and
  reported as such.
- ``pagination``: an Azure retail-prices answer that always links a next page, ``--pages``
  pages of ``--page-mb`` MB each, streamed (60 pages of 64 MB reached 4.0 GB before).
- ``vast60``: one 60 MB Vast.ai answer inside every per-response limit: 1,000 offers with 60 KB
  regions (4.75 GB of ingest before).
- ``huge``: a Vast.ai capture with ``num_gpus = 1e9`` or a price of 2e9 (DECIMAL overflow).
- ``formula``: a Vast.ai answer whose regions start with ``= + - @`` and a tab; the CSV of
  ``gpuprices sql`` and of ``gpuprices export`` then counts the cells that start with them.
- ``clock``: Lambda (every capture) and a live Vast scrape stored, then one run's recovery,
  raw retention and derived models with the clock 18 months / 2.4 days back and 18 months
  ahead, then with the clock fixed: stored scrapes and served Lambda + Vast offers each time.

Issue 15 (``--issue15``): the 200k-row DataCrunch refusal and per-token estimates over
``--offers`` generated offers (see ``tests/pipelines/test_hostile_input.py``).

    uv run python benchmarks/hostile_input.py [--parts nested,pagination,...] [--timeout 120]
    uv run python benchmarks/hostile_input.py --issue15 [--offers 50000] [--skip-refusal]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

TESTS = "tests/pipelines/test_hostile_input.py"
SNAPSHOTS = REPO.parent / "shared" / "snapshots"  # --snapshots elsewhere
PARTS = ("nested", "pagination", "vast60", "huge", "formula", "clock")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# --- issue 15 ------------------------------------------------------------------------------------


def refusal() -> int:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-n", "0", TESTS, "-k", "200k"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        if " rows (" in line:  # "<rows> rows (<markup>): {page_mb, status, seconds, peak_rss_mb}"
            print(f"(a) {line}")
    return done.returncode


def estimates(offers: int) -> int:
    from tests.support.synthetic_warehouse import build

    with tempfile.TemporaryDirectory(prefix="estimates-bench-") as tmp:
        home = Path(tmp)
        built_s = build(home, offers)
        print(f"(b) {offers:,} offers loaded and derived in {built_s:.1f} s; estimating ...")
        done = subprocess.run(
            [sys.executable, __file__, "--measure-estimates", str(home)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(done.stderr[-3000:])
            return done.returncode
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"(b) token estimates over {offers:,} offers: {result}")
    return 0


# --- issue 27: the hostile inputs ----------------------------------------------------------------


def _home(tmp: Path):
    from pipelines.ingest import ensure_seeded
    from warehouse.db import Warehouse
    from warehouse.paths import Paths

    paths = Paths(tmp / "home")
    ensure_seeded(Warehouse(paths.warehouse))
    return paths


def _quiet_http() -> None:
    from scrapers import http as scraper_http

    scraper_http.pause = lambda seconds: None  # type: ignore[assignment]
    scraper_http.MIN_INTERVAL_PER_HOST_S = 0.0


def _streamed(body_of):
    """A transport answering ``body_of(request) -> (bytes, content type)`` as a 64 KiB stream."""
    import httpx

    class Stream(httpx.SyncByteStream):
        def __init__(self, body: bytes) -> None:
            self.body = body

        def __iter__(self):
            for i in range(0, len(self.body), 65536):
                yield self.body[i : i + 65536]

    def answer(request: httpx.Request) -> httpx.Response:
        body, kind = body_of(request)
        return httpx.Response(200, stream=Stream(body), headers={"content-type": kind})

    return httpx.MockTransport(answer)


def _outcomes(outcomes) -> str:
    return "; ".join(
        f"{o.status}" + (f" ({(o.error or '')[:160]})" if o.error else f", {o.offer_count} offers")
        for o in outcomes
    )


def _scrape(slug: str, tmp: Path, transport=None, replay: Path | None = None) -> str:
    from pipelines.ingest import scrape_provider
    from scrapers.registry import PROVIDERS

    _quiet_http()
    paths = _home(tmp)
    outcomes = scrape_provider(
        PROVIDERS[slug], paths=paths, replay_dir=replay, env={}, transport=transport
    )
    return _outcomes(outcomes)


def nested_page(depth: int = 200_000) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"x" + b"</div>" * depth + b"</body></html>"


def part_nested(tmp: Path) -> str:
    page = nested_page()
    return _scrape("lambda", tmp, _streamed(lambda r: (page, "text/html")))


def part_pagination(tmp: Path, pages: int, page_mb: int) -> str:
    items = json.loads(
        (SNAPSHOTS / "azure" / "c2026-10_retail_prices_api_gpu_items_sample.json").read_bytes()
    )
    items = items.get("Items", items) if isinstance(items, dict) else items
    pad = "x" * (page_mb * 1024 * 1024)
    served = []

    def page(request) -> tuple[bytes, str]:
        n = int(request.url.params.get("page", "1"))
        served.append(n)
        link = f"https://prices.azure.com/api/retail/prices?page={n + 1}" if n < pages else None
        body = {"BillingCurrency": "USD", "Items": items, "NextPageLink": link, "Pad": pad}
        return json.dumps(body).encode(), "application/json"

    result = _scrape("azure", tmp, _streamed(page))
    return f"{len(served)} pages served; {result}"


def vast_offers(count: int, region: str) -> bytes:
    offers = [
        {
            "id": i,
            "machine_id": i,
            "gpu_name": "H100 SXM",
            "num_gpus": 1,
            "gpu_ram": 81559,
            "cpu_cores_effective": 16,
            "cpu_ram": 129000,
            "disk_space": 500,
            "dph_total": 2.25 + i / 10_000,
            "geolocation": region,
            "rentable": True,
            "rented": False,
        }
        for i in range(count)
    ]
    return json.dumps({"offers": offers}).encode()


def part_vast60(tmp: Path) -> str:
    body = vast_offers(1000, "R" * 60_000)
    return f"{len(body) / 1e6:.1f} MB answer; " + _scrape(
        "vast", tmp, _streamed(lambda r: (body, "application/json"))
    )


def _vast_replay(tmp: Path, mutate) -> Path:
    name = "c2026-09_bundles_offers_reduced_4fields.json"
    rows = json.loads((SNAPSHOTS / "vast" / name).read_bytes())
    mutate(rows[0])
    folder = tmp / "replay" / "vast"
    folder.mkdir(parents=True)
    (folder / name).write_text(json.dumps(rows), encoding="utf-8")
    return folder.parent


def part_huge(tmp: Path) -> str:
    from warehouse.db import Warehouse

    out = []
    for label, field, value in (("num_gpus 1e9", "num_gpus", 1e9), ("price 2e9", "dph_total", 2e9)):
        case = tmp / field
        replay = _vast_replay(case, lambda row, f=field, v=value: row.update({f: v}))
        result = _scrape("vast", case, replay=replay)
        with Warehouse(case / "home" / "warehouse.duckdb").connect() as con:
            stored = con.execute("select status, problem_codes from scrapes").fetchall()
        out.append(f"{label}: {result}; stored {stored}")
    return " | ".join(out)


def _cells_starting_with_formula(text: str) -> int:
    import csv
    import io

    return sum(
        1
        for row in csv.reader(io.StringIO(text))
        for cell in row
        if cell[:1] in FORMULA_STARTS and not _is_number(cell)
    )


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def part_formula(tmp: Path) -> str:
    from pipelines.ingest import scrape_provider
    from scrapers.registry import PROVIDERS
    from warehouse.db import Warehouse
    from warehouse.derive import rebuild
    from warehouse.publish import publish

    _quiet_http()
    paths = _home(tmp)
    regions = ['=HYPERLINK("http://x.invalid","a")', "+1+cmd", "-2+3", "@SUM(A1)", "\t=1"]
    offers = json.loads(vast_offers(len(regions), "x"))
    for offer, region in zip(offers["offers"], regions, strict=True):
        offer["geolocation"] = region
    body = json.dumps(offers).encode()
    outcomes = scrape_provider(
        PROVIDERS["vast"],
        paths=paths,
        replay_dir=None,
        env={},
        transport=_streamed(lambda r: (body, "application/json")),
    )
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con)
        publish(con, paths.published)
    env = {"GPUPRICES_HOME": str(paths.home), "PATH": "/usr/bin:/bin"}
    cli = [sys.executable, "-m", "pipelines.cli"]
    sql = subprocess.run(
        [*cli, "sql", "select region, price_per_hour_usd from current_offers", "--format", "csv"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    out = tmp / "export"
    for fmt in ("csv", "gpuhunt", "skypilot"):
        subprocess.run(
            [*cli, "export", "--format", fmt, "--out", str(out / fmt)],
            cwd=REPO,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    exported = sum(
        _cells_starting_with_formula(p.read_text(encoding="utf-8")) for p in out.rglob("*.csv")
    )
    return (
        f"{_outcomes(outcomes)}; formula cells: sql --format csv"
        f" {_cells_starting_with_formula(sql.stdout)}, export csv {exported}"
    )


def part_clock(tmp: Path) -> str:
    import httpx

    from pipelines.ingest import scrape_provider
    from scrapers.registry import PROVIDERS
    from scrapers.replay import discover
    from warehouse.db import Warehouse
    from warehouse.derive import rebuild
    from warehouse.recovery import recover
    from warehouse.retention import prune_raw

    _quiet_http()
    body = discover(SNAPSHOTS, ["vast"])["vast"][-1].path.read_bytes()
    live = httpx.MockTransport(
        lambda r: httpx.Response(200, content=body, headers={"content-type": "application/json"})
    )
    out = []
    for label, skew in (
        ("18 months back", -timedelta(days=548)),
        ("2.4 days back", -timedelta(days=2.4)),
        ("18 months ahead", timedelta(days=548)),
    ):
        case = tmp / label.replace(" ", "-")
        case.mkdir()
        paths = _home(case)
        scrape_provider(PROVIDERS["lambda"], paths=paths, replay_dir=SNAPSHOTS)
        scrape_provider(PROVIDERS["vast"], paths=paths, replay_dir=None, env={}, transport=live)

        def state(now: datetime, paths=paths) -> str:
            with Warehouse(paths.warehouse).connect() as con:
                rebuild(con, now=now)
                ok = con.execute("select count(*) from scrapes where status = 'success'").fetchone()
                served = con.execute(
                    "select count(*) from current_offers where provider in ('lambda', 'vast')"
                ).fetchone()
            raw = len(list(paths.raw.glob("*/*.gz")))
            scrapes, offers = ok[0] if ok else 0, served[0] if served else 0
            return f"{scrapes} scrapes ok, {offers} offers, {raw} raw"

        real = datetime.now(UTC)
        before = state(real)
        # what a run does first and last, at the skewed clock: recovery, then raw retention
        with Warehouse(paths.warehouse).connect() as con:
            recover(con, paths.raw, now=real + skew)
            prune_raw(con, paths.raw, now=real + skew)
        skewed = state(real + skew)
        fixed = state(datetime.now(UTC))
        out.append(f"{label}: before {before} -> skewed {skewed} -> fixed {fixed}")
    return " | ".join(out)


def run_part(name: str, tmp: Path, args: argparse.Namespace) -> str:
    if name == "pagination":
        return part_pagination(tmp, args.pages, args.page_mb)
    return {
        "nested": part_nested,
        "vast60": part_vast60,
        "huge": part_huge,
        "formula": part_formula,
        "clock": part_clock,
    }[name](tmp)


def measure(name: str, args: argparse.Namespace) -> dict:
    """One part in this process: its seconds, this process's peak RSS, and its outcome."""
    with tempfile.TemporaryDirectory(prefix=f"hostile-{name}-") as tmp:
        start = time.perf_counter()
        try:
            outcome = run_part(name, Path(tmp), args)
        except Exception as exc:  # what the attack did is the figure
            outcome = f"raised {type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(peak), "outcome": outcome}


def hostile(args: argparse.Namespace) -> int:
    for name in args.parts.split(","):
        command = [sys.executable, __file__, "--measure", name, "--pages", str(args.pages)]
        command += ["--page-mb", str(args.page_mb), "--snapshots", str(args.snapshots)]
        start = time.perf_counter()
        try:
            done = subprocess.run(
                command, cwd=REPO, capture_output=True, text=True, timeout=args.timeout, check=False
            )
        except subprocess.TimeoutExpired:
            print(f"{name}: still running after {args.timeout:g} s (killed)")
            continue
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            took = time.perf_counter() - start
            print(f"{name}: exit {done.returncode} after {took:.1f} s: {tail}")
            continue
        result = json.loads(lines[-1])
        print(
            f"{name}: {result['seconds']} s, peak RSS {result['peak_rss_mb']} MB:"
            f" {result['outcome']}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per part")
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--page-mb", type=int, default=4)
    parser.add_argument("--snapshots", type=Path, default=REPO.parent / "shared" / "snapshots")
    parser.add_argument("--issue15", action="store_true")
    parser.add_argument("--offers", type=int, default=50_000)
    parser.add_argument("--skip-refusal", action="store_true")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--measure-estimates", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    globals()["SNAPSHOTS"] = args.snapshots  # the parts read it
    if args.measure_estimates is not None:
        from tests.support.synthetic_warehouse import measure_estimates

        print(json.dumps(measure_estimates(args.measure_estimates)))
        return 0
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args)))
        return 0
    if args.issue15:
        code = 0 if args.skip_refusal else refusal()
        return code or estimates(args.offers)
    return hostile(args)


if __name__ == "__main__":
    raise SystemExit(main())
