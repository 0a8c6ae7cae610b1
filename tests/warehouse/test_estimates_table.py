"""token_estimates and the fact seeds in the warehouse: built from current_offers at the standard
settings, equal to warehouse.economics called directly, rebuilt idempotently, and published."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.conftest import REPO
from tests.support.seeded import seeded_warehouse
from warehouse import economics, estimates
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.estimates import (
    CONFIDENCE_COLUMNS,
    STANDARD_INPUT_TOKENS,
    STANDARD_OUTPUT_TOKENS,
    confidence_fields,
    rebuild_token_estimates,
)
from warehouse.facts import model_from_row
from warehouse.load import commit_scrape, offer_id, prepare, start_scrape
from warehouse.publish import load_into_memory, publish
from warehouse.records import ScrapedOffer

SEEDS = REPO / "warehouse" / "seeds"
WHEN = datetime(2026, 1, 9, 10, 39, tzinfo=UTC)


def _offer(instance_type: str, gpu: str, count: str, price: str, vram: str | None = "80") -> dict:
    return {
        "provider": "lambda", "instance_type": instance_type, "region": "global",
        "gpu_name": gpu, "gpu_count": Decimal(count),
        "vram_gb_reported": Decimal(vram) if vram else None, "vcpus": None, "ram_gb": None,
        "storage_gb": None, "pricing": "on_demand", "reserved_term_months": None,
        "price": Decimal(price), "currency": "USD", "price_unit": "hour", "price_per": "gpu",
        "serverless": False, "source_url": "https://lambda.ai/pricing", "observed_at": WHEN,
    }  # fmt: skip


OFFERS = [
    _offer("gpu_8x_h100_sxm5", "NVIDIA H100 SXM", "8", "2.99"),
    _offer("gpu_1x_a100_sxm4_80gb", "NVIDIA A100 SXM4 80GB", "1", "1.79"),
    _offer("gpu_half_a10", "NVIDIA A10", "0.5", "0.40", vram="24"),
]


def _csv(name: str) -> list[dict[str, str]]:
    with (SEEDS / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def con(tmp_path_factory, seeded_template):
    path = tmp_path_factory.mktemp("estimates") / "w.duckdb"
    with seeded_warehouse(seeded_template, path).connect() as c:
        assert start_scrape(
            c,
            scrape_id="s1",
            provider="lambda",
            run_id="r",
            mode="replay",
            source="test",
            fetches=[],
        )
        rows, validation = prepare(c, [ScrapedOffer(**o) for o in OFFERS])
        assert validation.ok, validation.problems()
        commit_scrape(c, scrape_id="s1", provider="lambda", observed_at=WHEN, rows=rows)
        rebuild(c)
        rebuild_token_estimates(c)
        yield c


def _row(con, instance_type: str, model_id: str) -> dict:
    result = con.execute(
        "select * from token_estimates where offer_id = ? and model_id = ?",
        [offer_id("lambda", instance_type, "global", "on_demand", None), model_id],
    )
    columns = [d[0] for d in result.description]
    return dict(zip(columns, result.fetchone(), strict=True))


def test_fact_seeds_are_loaded_with_every_row(con):
    for table, name in [
        ("provider_facts", "provider_facts.csv"),
        ("models", "models.csv"),
        ("serverless_platforms", "serverless_platforms.csv"),
        ("serverless_tiers", "serverless_tiers.csv"),
    ]:
        assert con.execute(f"select count(*) from {table}").fetchone()[0] == len(_csv(name))
    aws = con.execute(
        "select billing_granularity_s, minimum_charge_s, egress_usd_per_gb,"
        " spot_available from provider_facts where provider = 'aws'"
    ).fetchone()
    assert aws == (Decimal(1), Decimal(60), Decimal("0.09"), True)


def test_one_row_per_current_offer_with_a_gpu_and_model(con):
    offers = con.execute("select count(*) from current_offers where gpu_id is not null").fetchone()[
        0
    ]
    models = len(_csv("models.csv"))
    assert con.execute("select count(*) from token_estimates").fetchone()[0] == offers * models
    assert (
        con.execute(
            "select count(*) from token_estimates where input_tokens <> ? or output_tokens <> ?",
            [STANDARD_INPUT_TOKENS, STANDARD_OUTPUT_TOKENS],
        ).fetchone()[0]
        == 0
    )


def test_row_matches_economics_called_directly(con):
    row = _row(con, "gpu_8x_h100_sxm5", "llama-3.1-70b")
    model = model_from_row(
        dict(
            zip(
                [d[0] for d in con.execute("select * from models").description],
                con.execute("select * from models where model_id = 'llama-3.1-70b'").fetchone(),
                strict=True,
            )
        )
    )
    gpu_result = con.execute("select * from gpus where gpu_id = 'h100-sxm'")
    gpu = economics.gpu_spec_from_row(
        dict(zip([d[0] for d in gpu_result.description], gpu_result.fetchone(), strict=True))
    )
    direct = economics.estimate_throughput(model, "fp8", gpu, 8, 1000, 1000)
    cost = economics.cost_per_million_tokens(
        Decimal("23.92"), round(direct.output_tokens_per_s, 3), round(direct.total_tokens_per_s, 3)
    )
    assert row["fits"] and row["precision_requested"] == "fp8" and row["precision_native"]
    assert row["gpus_used"] == direct.tensor_parallel * direct.data_parallel == 8
    assert row["output_tokens_per_s"] == pytest.approx(direct.output_tokens_per_s, abs=1e-3)
    assert row["price_per_hour_usd"] == Decimal("23.92")
    assert row["usd_per_million_output_tokens"] == cost.usd_per_million_output_tokens
    assert row["usd_per_million_total_tokens"] == cost.usd_per_million_total_tokens
    # USD per 1M total tokens = hourly price / (total tokens/s x 3600) x 1e6
    expected = Decimal("23.92") / Decimal(repr(row["total_tokens_per_s"])) / 3600 * 1_000_000
    assert row["usd_per_million_total_tokens"] == expected.quantize(Decimal("0.000001"))


def _gpu(con, gpu_id: str) -> economics.GpuSpec:
    result = con.execute("select * from gpus where gpu_id = ?", [gpu_id])
    return economics.gpu_spec_from_row(
        dict(zip([d[0] for d in result.description], result.fetchone(), strict=True))
    )


def test_gpu_rows_carry_the_generation_the_bands_use(con):
    assert _gpu(con, "h100-sxm").generation == "hopper"
    assert _gpu(con, "b200").generation == "blackwell" and _gpu(con, "b200").memory_type == "HBM3e"
    assert _gpu(con, "rtx-pro-6000").generation == "blackwell-gddr"


def test_estimate_row_gets_a_confidence_band_around_its_numbers(con):
    row = _row(con, "gpu_8x_h100_sxm5", "llama-3.1-70b")
    band = confidence_fields(
        _gpu(con, "h100-sxm"),
        row["precision_requested"],
        row["output_tokens"],
        row["output_tokens_per_s"],
        row["usd_per_million_total_tokens"],
    )
    assert set(band) == set(CONFIDENCE_COLUMNS)
    assert band["confidence"] in ("high", "medium", "low")
    assert band["confidence_basis"].startswith("hopper/") and band["confidence_points"] >= 3
    rate, cost = row["output_tokens_per_s"], row["usd_per_million_total_tokens"]
    assert band["output_tokens_per_s_low"] < rate < band["output_tokens_per_s_high"]
    assert (
        band["usd_per_million_total_tokens_low"] < cost < band["usd_per_million_total_tokens_high"]
    )
    # the same band as economics.confidence_band gives
    direct = economics.confidence_band(_gpu(con, "h100-sxm"), "fp8", STANDARD_OUTPUT_TOKENS)
    assert band["output_tokens_per_s_high"] == pytest.approx(rate / direct.ratio_low, abs=1e-3)
    # without a price there is no cost band
    bare = confidence_fields(_gpu(con, "b200"), "fp4", 4096, 1000.0)
    assert bare["usd_per_million_total_tokens_low"] is None
    # no Blackwell fp4 long-output point: the band is borrowed, so never "high"
    assert bare["confidence_basis"] == "blackwell/fp4/*" and bare["confidence"] != "high"


def test_standard_precision_is_fp8_where_supported_else_16_bit(con):
    a100 = _row(con, "gpu_1x_a100_sxm4_80gb", "llama-3.1-8b")
    assert (a100["precision_requested"], a100["compute_precision"]) == ("bf16", "bf16")
    assert a100["precision_native"] and a100["fallback_reason"] is None
    # gpt-oss ships MXFP4: it stays fp4, which Hopper runs as 4-bit weights with 16-bit compute.
    oss = _row(con, "gpu_8x_h100_sxm5", "gpt-oss-120b")
    assert oss["precision_requested"] == "fp4" and not oss["precision_native"]
    assert "no FP4 tensor cores" in oss["fallback_reason"]


def test_models_that_do_not_fit_and_gpu_shares_have_a_reason_and_no_price(con):
    big = _row(con, "gpu_1x_a100_sxm4_80gb", "llama-3.1-405b")
    assert not big["fits"] and "does not fit 1 x a100-80gb-sxm" in big["not_estimated_reason"]
    assert big["usd_per_million_total_tokens"] is None and big["output_tokens_per_s"] == 0
    share = _row(con, "gpu_half_a10", "llama-3.1-8b")
    assert not share["fits"] and "fractional GPU share" in share["not_estimated_reason"]


def test_curated_serverless_tiers_are_current_offers_and_get_estimates(con):
    # Every tier whose source names no end before the snapshot instant (set by rebuild).
    tiers = con.execute(
        "select count(*) from serverless_tiers where ends_on is null"
        " or timezone('UTC', ends_on::timestamp) > getvariable('as_of')::timestamptz"
    ).fetchone()[0]
    served = con.execute(
        "select count(*) from current_offers where price_source = 'curated' and serverless"
    ).fetchone()[0]
    assert served == tiers  # lambda is the only scraped provider here
    row = con.execute(
        "select price, price_unit, price_per_hour_usd, billing_granularity_s from current_offers"
        " where provider = 'runpod-serverless' and instance_type = 'flex H200 PRO 141 GB'"
    ).fetchone()
    assert row == (Decimal("0.00155"), "second", Decimal("5.58"), Decimal(1))
    assert (
        con.execute(
            "select count(*) from token_estimates where provider = 'runpod-serverless' and fits"
        ).fetchone()[0]
        > 0
    )


def test_offers_carry_provider_facts(con):
    row = con.execute(
        "select billing_granularity, billing_granularity_s, egress_usd_per_gb, spot_available"
        " from current_offers where instance_type = 'gpu_8x_h100_sxm5'"
    ).fetchone()
    lam = next(r for r in _csv("provider_facts.csv") if r["provider"] == "lambda")
    assert row[0] == lam["billing_granularity"]
    assert row[1] == Decimal(lam["billing_granularity_s"])
    assert row[2] == Decimal(lam["egress_usd_per_gb"])
    assert row[3] == (lam["spot_available"] == "true")


def test_rebuild_is_idempotent(con):
    before = con.execute("select * from token_estimates order by offer_id, model_id").fetchall()
    assert rebuild_token_estimates(con) == len(before)
    assert (
        con.execute("select * from token_estimates order by offer_id, model_id").fetchall()
        == before
    )


def test_estimates_written_in_chunks_equal_the_whole_table(con, monkeypatch):
    # issue 15: rebuild streams offers in chunks so memory does not grow with their number;
    # a chunk of one offer must write exactly the rows of the unchunked computation
    whole = con.execute("select * from token_estimates order by offer_id, model_id").fetchall()
    monkeypatch.setattr(estimates, "CHUNK_OFFERS", 1)
    assert rebuild_token_estimates(con) == len(whole)
    assert (
        con.execute("select * from token_estimates order by offer_id, model_id").fetchall() == whole
    )


def test_bad_precision_is_refused_before_any_row_is_made(con):
    est = estimates.load_estimator(con)
    with pytest.raises(ValueError, match="unknown precision"):
        estimates.iter_estimate_rows([], est, [], precision="fp3")


def test_published_snapshot_carries_estimates_models_and_facts(con, tmp_path):
    info = publish(con, tmp_path / "published")
    snap = load_into_memory(info)
    for table in (
        "token_estimates",
        "models",
        "provider_facts",
        "serverless_platforms",
        "serverless_tiers",
    ):
        in_snapshot = snap.execute(f"select count(*) from {table}").fetchone()
        in_warehouse = con.execute(f"select count(*) from {table}").fetchone()
        assert in_snapshot and in_warehouse and in_snapshot[0] == in_warehouse[0] > 0


def test_estimates_benchmark_runs_small(tmp_path):
    # benchmarks/hostile_input.py (b) at 300 generated offers: every offer with a canonical GPU
    # and an ok price gets one row per reference model
    from tests.support.synthetic_warehouse import build, measure_estimates

    build(tmp_path, 300)
    result = measure_estimates(tmp_path)
    with Warehouse(tmp_path / "warehouse.duckdb").connect() as c:
        models = c.execute("select count(*) from models").fetchall()[0][0]
    assert result["offers_estimated"] >= 300
    assert result["rows"] == result["offers_estimated"] * models


def test_distinct_query_shapes_do_not_grow_the_estimator_without_bound(con, monkeypatch):
    # issue 27: the API keeps one estimator per snapshot and memoised every distinct
    # (input, output) shape a client asked for: memory grew with each distinct /estimates query
    import warehouse.estimator

    monkeypatch.setattr(warehouse.estimator, "MEMO_ENTRIES", 50)
    est = estimates.load_estimator(con)
    gpu_id = next(iter(est.gpus))
    model_id = next(iter(est.models))
    first = est.throughput(model_id, gpu_id, 1, "standard", 1000, 1000)
    for n in range(300):
        est.throughput(model_id, gpu_id, 1, "standard", 1001 + n, 1000)
    assert est.memo_entries() == 50
    assert est.throughput(model_id, gpu_id, 1, "standard", 1000, 1000) == first  # recomputed
