"""Every curated fact says where it comes from (issue 22 item 3), on the real seeds.

Before, the fal H100 tier ($1.89/h, the cheapest H100 on demand) was a price copied from an
undated third-party blog and dated by the day it was read (2026-11-29), so it read as three days
old. A row now says ``source_kind`` (provider / third_party) and ``observed_basis`` (published,
captured, retrieved, undated); a third-party price is dated by its own date, and one with none
has no age and is expired.
"""

from __future__ import annotations

import csv
import shutil
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from tests.conftest import REPO
from warehouse.db import migrate
from warehouse.derive import rebuild
from warehouse.facts import SeedError, load_fact_seeds, tier_rows
from warehouse.gpus import load_gpus
from warehouse.queries import OfferFilter
from warehouse.queries.table import OfferTable
from warehouse.seeding import load_seeds

SEEDS = REPO / "warehouse" / "seeds"
NOW = datetime(2026, 12, 2, tzinfo=UTC)  # the day issue 22 was filed
BLOG = "https://singularitybyte.com/tools/fal-ai-serverless-generative-ai-platform.html"


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _seeds_with_fal_h100(tmp_path: Path, **cells: str) -> Path:
    """A copy of the real seeds with the old fal GPU-H100 tier, the blog's, and ``cells``.

    fal's H100 is no longer a curated tier (its list price is scraped off fal's own page,
    ``scrapers/fal.py``), so the row is added back here from its A100 sibling."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    header, rows = _read(seeds / "serverless_tiers.csv")
    a100 = next(r for r in rows if (r["platform"], r["tier"]) == ("fal", "GPU-A100"))
    h100 = {
        **a100, "tier": "GPU-H100", "gpu_ids": "h100-sxm", "vram_gb_guaranteed": "80",
        "price": "1.89", "price_per_hour_usd": "1.89", "source_url": BLOG, "capture_file": "",
    }  # fmt: skip
    h100.update(cells)
    _write(seeds / "serverless_tiers.csv", header, [*rows, h100])
    return seeds


def _build(seeds: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("set timezone = 'UTC'")
    migrate(con)
    con.execute("begin transaction")
    load_seeds(con, seeds)
    con.execute("commit")
    rebuild(con, now=NOW)
    return con


def _offer(con: duckdb.DuckDBPyConnection, provider: str, instance_type: str) -> dict:
    result = con.execute(
        "select * from current_offers where provider = ? and instance_type = ?",
        [provider, instance_type],
    )
    names = [d[0] for d in result.description]
    (row,) = result.fetchall()
    return dict(zip(names, row, strict=True))


@pytest.fixture(scope="module")
def con():
    c = _build(SEEDS)  # no scrape: every platform is served from the seed
    yield c
    c.close()


def test_curated_third_party_price_dated_by_its_source_not_read_day(con, tmp_path):
    rows = con.execute(
        "select provider, instance_type, observed_at, observed_basis from current_offers"
        " where source_kind = 'third_party'"
    ).fetchall()
    assert rows and {r[3] for r in rows} == {"published"}
    # the day the pages were read is nobody's date
    assert datetime(2026, 11, 29, tzinfo=UTC) not in {r[2] for r in rows}
    koyeb = _offer(con, "koyeb", "H100")  # "usage rates as of 2026-08-17"
    assert (koyeb["observed_at"], koyeb["age_days"]) == (datetime(2026, 8, 17, tzinfo=UTC), 107.0)
    fal_a100 = _offer(con, "fal", "GPU-A100")  # workflowlab.dev: "Published 2026-05-12"
    assert fal_a100["observed_at"] == datetime(2026, 5, 12, tzinfo=UTC)
    # the old fal H100 row, a third-party page dated by the day it was read, no longer loads
    seeds = _seeds_with_fal_h100(
        tmp_path, source_kind="third_party", observed_basis="retrieved",
        source_date="2026-11-29", source_date_basis="retrieved",
    )  # fmt: skip
    with pytest.raises(SeedError, match=r"serverless_tiers\.csv:\d+: a third-party source"):
        tier_rows(seeds / "serverless_tiers.csv", load_gpus(SEEDS))


def test_curated_price_without_date_has_no_age_and_is_expired(tmp_path):
    seeds = _seeds_with_fal_h100(
        tmp_path, source_kind="third_party", observed_basis="undated", source_date="",
        source_date_basis="",
    )  # fmt: skip
    con = _build(seeds)
    try:
        row = _offer(con, "fal", "GPU-H100")
        assert (row["observed_at"], row["age_days"], row["expires_at"]) == (None, None, None)
        assert row["expired"] is True and row["stale"] is True
        assert (row["source_kind"], row["observed_basis"]) == ("third_party", "undated")
        table = OfferTable.load(con)
        index = next(i for i, item in enumerate(table.items) if item["id"] == row["offer_id"])
        for f, listed in [
            (OfferFilter.build(), False),
            (OfferFilter.build(include_expired=True, max_age_days=30), False),
            (OfferFilter.build(include_expired=True, max_age_days=100000), False),
            (OfferFilter.build(include_expired=True), True),
        ]:
            where = f.where()
            found = con.execute(
                f"select count(*) from current_offers {where.sql()} and offer_id = ?",
                [*where.params, row["offer_id"]],
            ).fetchone()
            assert found == (int(listed),), f
            assert bool(table.mask(f)[index]) is listed, f  # the API's in-memory path agrees
        # no token estimate is made from a price with no date
        estimates = con.execute(
            "select count(*) from token_estimates where offer_id = ?", [row["offer_id"]]
        ).fetchone()
        assert estimates == (0,)
    finally:
        con.close()


def test_every_curated_item_says_source_kind_and_observed_basis(con):
    served = con.execute(
        "select o.source_kind, o.observed_basis, t.source_kind, t.observed_basis"
        " from current_offers as o join serverless_tiers as t using (offer_id)"
    ).fetchall()
    assert len(served) == 80  # 82 tiers, 2 ended by their source (HF Endpoints)
    assert all(r[0] == r[2] and r[1] == r[3] for r in served)
    kinds = {(r[0], r[1]) for r in served}
    assert kinds == {
        ("provider", "published"), ("provider", "captured"), ("provider", "retrieved"),
        ("third_party", "published"),
    }  # fmt: skip
    for table, key in (("provider_facts", "provider"), ("serverless_platforms", "platform")):
        rows = con.execute(f"select {key}, source_kind, observed_basis from {table}").fetchall()
        assert rows and all(r[1] and r[2] for r in rows), table
    aws = con.execute(
        "select source_kind, observed_basis, facts_as_of from provider_facts where provider = 'aws'"
    ).fetchone()
    assert aws == ("third_party", "undated", None)  # the GitLab MR behind gp3 prints no date
    hetzner = con.execute(
        "select observed_basis, facts_as_of, capture_files from provider_facts"
        " where provider = 'hetzner'"
    ).fetchone()
    assert hetzner[0] == "captured" and str(hetzner[1]) == "2026-04-01"
    assert hetzner[2] == "hetzner/2026-04-01T18_server-auction_live_data_sb_EUR_items.json"


def test_fal_h100_is_no_longer_a_curated_tier_the_scrape_carries_it(con):
    # fal's own page (capture 2026-08-22) lists the H100 at $4.50/h: scrapers/fal.py reads it,
    # so the seed no longer repeats it; the A100, which the page does not list, stays curated
    tiers = con.execute(
        "select tier from serverless_tiers where platform = 'fal' order by tier"
    ).fetchall()
    assert tiers == [("GPU-A100",)]


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ({"source_kind": "blog"}, r"provider_facts\.csv:2: source_kind 'blog' not in"),
        ({"observed_basis": "typed_in"}, r"provider_facts\.csv:2: observed_basis 'typed_in'"),
        ({"observed_basis": "retrieved"}, r"provider_facts\.csv:2: a third-party source"),
        ({"observed_basis": "published", "facts_as_of": ""}, r":2: .*has no date"),
        ({"capture_files": "aws/x.json"}, r":2: capture file named but observed_basis"),
        ({"observed_basis": "undated", "facts_as_of": "2026-01-01"}, r":2: .*undated but"),
        (
            {"source_kind": "provider", "observed_basis": "captured", "facts_as_of": "2026-01-01"},
            r":2: .*names no capture",
        ),
    ],
)
def test_loader_rejects_an_unknown_or_inconsistent_provenance_naming_file_and_row(
    tmp_path, cells, message
):
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    header, rows = _read(seeds / "provider_facts.csv")
    assert rows[0]["provider"] == "aws"  # third_party, undated
    rows[0].update(cells)
    _write(seeds / "provider_facts.csv", header, rows)
    con = duckdb.connect()
    migrate(con)
    with pytest.raises(SeedError, match=message):
        load_fact_seeds(con, seeds)
    con.close()
