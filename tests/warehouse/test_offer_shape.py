"""What one offer is, on a full replay of the real captures (issue 22, item 6): the instance's
interconnect, exact duplicates as one offer with ``listings``, a derived column as a property
of its offer; and, over history, the derived-column offers of before ending cleanly."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal

import duckdb
import httpx
import pytest

from pipelines.ingest import scrape_provider
from scrapers import coreweave
from scrapers.base import Offer, PricePer, RawResponse
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse.analysis import create_views
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import current, load_into_memory

COREWEAVE_2026 = SNAPSHOTS / "coreweave" / "c2026-09_pricing_page_scripts-stripped.html"
OLD_SUFFIX = " (Inference Single GPU)"  # how the derived column was named as its own offer


@pytest.fixture(scope="module")
def con(replayed_home):  # tests/conftest.py: every capture replayed, published
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    connection = load_into_memory(info)
    yield connection
    connection.close()


def test_single_gpu_offer_interconnect_is_none(con) -> None:
    """142 single-GPU offers said NVLink (124 nvlink, 14 nvlink_bridge, 4 nvlink_c2c): the GPU
    model's fabric, which one GPU does not use. One GPU, or a share of one, has none."""
    single = dict(
        con.execute(
            "select coalesce(interconnect, 'null'), count(*) from current_offers"
            " where gpu_count <= 1 group by all"
        ).fetchall()
    )
    assert list(single) == ["none"] and single["none"] > 300
    # e.g. RunPod's 1x H100 SXM and Vast's 1x H100 NVL, no longer nvlink / nvlink_bridge
    assert con.execute(
        "select distinct interconnect from current_offers"
        " where gpu_id in ('h100-sxm', 'h100-nvl', 'gh200') and gpu_count = 1"
    ).fetchall() == [("none",)]
    # several GPUs: the GPU model's (the part the source names)
    multi = dict(
        con.execute(
            "select instance_type, interconnect from current_offers"
            " where provider = 'aws' and region = 'us-east-1'"
            " and instance_type in ('p5.48xlarge', 'g6e.48xlarge', 'p5.4xlarge')"
        ).fetchall()
    )
    assert multi == {"p5.48xlarge": "nvlink", "g6e.48xlarge": "pcie", "p5.4xlarge": "none"}


def test_vast_exact_duplicates_are_one_served_offer_with_listings(con) -> None:
    """The reduced Vast capture's 138 rows: 119 offers, 16 of them listed 2 or 3 times."""
    total, rows, listed = con.execute(
        "select count(*), sum(listings), count(*) filter (where listings > 1)"
        " from current_offers where provider = 'vast'"
    ).fetchone()
    assert (total, rows, listed) == (119, 138, 16)
    # Served offers that agree in every field but their name and id: two Hetzner auction
    # servers, which the source names apart (its server ids; their CPUs differ, i7-6700 and
    # i7-7700, which no offer field carries), so they stay two offers; and Shadeform's
    # H200_sxm5x8_NVLINK and H200_sxm5x8_NVLINK_eu of excesssupply ($36.13, 8x H200), two
    # Shade instance types the source lists apart, in each of their three regions.
    alike = con.execute(
        "with g as (select * exclude (offer_id, scrape_id, instance_type) from current_offers)"
        " select any_value(g.provider), count(*) from g group by g having count(*) > 1"
        " order by 1"
    ).fetchall()
    assert alike == [("hetzner", 2)] + [("shadeform", 2)] * 3  # before: 16 of Vast's besides
    # 1x L40S at $0.8014814814814815: three identical host rows
    assert con.execute(
        "select listings from current_offers where provider = 'vast' and gpu_id = 'l40s'"
        " and gpu_count = 1 and round(price, 6) = 0.801481"
    ).fetchall() == [(3,)]


def test_coreweave_inference_column_is_served_on_its_offer(con) -> None:
    """CoreWeave's 2026 page: 34 offers (43 before: 9 were the Inference Single GPU column)."""
    assert con.execute(
        "select count(*) from current_offers where provider = 'coreweave'"
    ).fetchone() == (34,)
    rows = con.execute(
        "select instance_type, gpu_count, price_per_hour_usd, single_gpu_price,"
        " single_gpu_price_per_hour_usd from current_offers where provider = 'coreweave'"
        " and region = 'north-america' and pricing = 'on_demand' and single_gpu_price is not null"
    ).fetchall()
    assert len(rows) == 9
    by_name = {name: rest for name, *rest in rows}
    assert by_name["NVIDIA HGX H100"] == [8, Decimal("49.24"), Decimal("6.16"), Decimal("6.16")]
    assert by_name["NVIDIA GB200 NVL72"][1:] == [
        Decimal("42.00"),
        Decimal("10.50"),
        Decimal("10.50"),
    ]


def _as_before(offers: list[Offer]) -> list[Offer]:
    """The offers as the parser emitted them before issue 22: each single-GPU price an extra
    1-GPU offer priced per GPU, without the instance's vCPUs, RAM and storage."""
    extra = [
        o.model_copy(
            update={
                "instance_type": o.instance_type + OLD_SUFFIX,
                "product_key": o.instance_type + OLD_SUFFIX,
                "gpu_count": Decimal(1),
                "price": o.single_gpu_price,
                "price_per": PricePer.GPU,
                "vcpus": None,
                "ram_gb": None,
                "storage_gb": None,
                "single_gpu_price": None,
            }
        )
        for o in offers
        if o.single_gpu_price is not None
    ]
    return [o.model_copy(update={"single_gpu_price": None}) for o in offers] + extra


def _old_parse(responses: Sequence[RawResponse]):
    offers, excluded = coreweave.parse_with_exclusions(responses)
    return _as_before(offers), excluded


def test_coreweave_inference_offers_of_before_end_cleanly_in_history(
    tmp_path, seeded_template
) -> None:
    """A warehouse that holds the 9 old 1-GPU inference offers: the first scrape that reads the
    column as a property closes them (an end, not a price change), and every instance offer's
    series goes on unchanged."""
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    body = COREWEAVE_2026.read_bytes()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, content=body, headers={"content-type": "text/html"})
    )
    old = dataclasses.replace(coreweave.PROVIDER, parse_with_exclusions=_old_parse)
    for provider in (old, coreweave.PROVIDER):
        [outcome] = scrape_provider(provider, paths=paths, replay_dir=None, transport=transport)
        assert outcome.status == "success"
    second = outcome.observed_at
    with duckdb.connect(str(paths.warehouse)) as db:
        rebuild(db)
        create_views(db)
        ended = db.execute(
            "select count(*), count(*) filter (where valid_to = ?) from offer_history"
            " where provider = 'coreweave' and instance_type like '%(Inference Single GPU)'",
            [second],
        ).fetchone()
        instance_intervals = db.execute(
            "select count(*), count(*) filter (where valid_to is null) from offer_history"
            " where provider = 'coreweave' and instance_type not like '%(Inference%'"
        ).fetchone()
        changes = db.execute(
            "select count(*) from price_changes where provider = 'coreweave'"
        ).fetchone()
        served = db.execute(
            "select count(*), count(single_gpu_price) from current_offers"
            " where provider = 'coreweave'"
        ).fetchone()
    assert ended == (9, 9)
    assert instance_intervals == (34, 34)  # one open interval each: nothing changed
    assert changes == (0,)
    assert served == (34, 9)
