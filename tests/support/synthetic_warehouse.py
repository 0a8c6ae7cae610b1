"""A warehouse of many generated current offers over the real GPU seed, built through the
loader (``start_scrape`` -> ``prepare`` -> ``commit_scrape``) and ``derive.rebuild``, and the
per-token estimates measured over it (``benchmarks/hostile_input.py`` (b) at 50,000 offers;
``tests/warehouse/test_estimates_table.py`` at 300)."""

from __future__ import annotations

import random
import resource
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

PROVIDERS = 3  # offers are spread over this many generated providers (each one scrape)
# (GPU name as providers spell it, GB per GPU, USD per GPU-hour)
GPUS = (
    ("NVIDIA H100 SXM", 80, 2.99),
    ("NVIDIA H100 PCIe", 80, 2.49),
    ("NVIDIA A100 SXM4 80GB", 80, 1.79),
    ("NVIDIA A10", 24, 0.75),
    ("NVIDIA L40S", 48, 1.10),
    ("NVIDIA GeForce RTX 4090", 24, 0.45),
    ("NVIDIA RTX A6000", 48, 0.80),
    ("NVIDIA L4", 24, 0.60),
)
COUNTS = (1, 2, 4, 8)


def build(home: Path, offers: int, seed: int = 15) -> float:
    """A warehouse under ``home`` with ``offers`` current offers; returns the seconds taken."""
    from warehouse.db import Warehouse, transaction
    from warehouse.derive import rebuild
    from warehouse.load import commit_scrape, prepare, start_scrape
    from warehouse.records import ScrapedOffer
    from warehouse.seeding import load_seeds

    rng = random.Random(seed)
    observed_at = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
    started = time.perf_counter()
    with Warehouse(home / "warehouse.duckdb").connect() as con:
        with transaction(con):
            load_seeds(con)
        for p in range(PROVIDERS):
            provider = f"flood{p}"
            share = offers // PROVIDERS + (1 if p < offers % PROVIDERS else 0)
            listing = []
            for i in range(share):
                name, vram, usd = GPUS[i % len(GPUS)]
                count = COUNTS[(i // len(GPUS)) % len(COUNTS)]
                listing.append(
                    ScrapedOffer(
                        provider=provider,
                        instance_type=f"{count}x-{i}",
                        region=f"r{i % 7}",
                        gpu_name=name,
                        gpu_count=Decimal(count),
                        vram_gb_reported=Decimal(vram),
                        pricing="on_demand",
                        price=Decimal(str(round(usd * rng.uniform(0.9, 1.1), 3))),
                        currency="USD",
                        price_per="gpu",
                        source_url=f"https://example.invalid/{provider}",
                        observed_at=observed_at,
                    )
                )
            sid = f"flood-{p}"
            start_scrape(
                con,
                scrape_id=sid,
                provider=provider,
                run_id="bench",
                mode="replay",
                source="generated",
                fetches=[],
            )
            rows, validation = prepare(con, listing)
            if not validation.ok:
                raise RuntimeError("; ".join(validation.problems()))
            commit_scrape(con, scrape_id=sid, provider=provider, observed_at=observed_at, rows=rows)
        rebuild(con)
    return time.perf_counter() - started


def measure_estimates(home: Path) -> dict:
    """``rebuild_token_estimates`` over the warehouse under ``home`` (run in a fresh process)."""
    from warehouse.db import Warehouse
    from warehouse.estimates import rebuild_token_estimates

    with Warehouse(home / "warehouse.duckdb").connect() as con:
        offers = con.execute(
            "select count(*) from current_offers where gpu_id is not null and price_status = 'ok'"
        ).fetchall()[0][0]
        before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        started, cpu = time.perf_counter(), time.process_time()
        rows = rebuild_token_estimates(con)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "offers_estimated": int(offers),
        "rows": rows,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),  # the wall time on a shared machine is mostly waiting
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "rss_before_mb": round(before_mb),
    }
