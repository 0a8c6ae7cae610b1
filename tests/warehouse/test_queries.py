"""warehouse.queries: the one offer filter, answered by SQL and by the in-memory OfferTable
alike (same rows, order, totals and group counts), and the CLI importing no ``api``."""

from __future__ import annotations

import ast
import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from warehouse.publish import current, load_into_memory
from warehouse.queries import (
    FilterError,
    OfferFilter,
    OfferQuery,
    OfferTable,
    exclusions_sql,
    gpu_filter,
    query_offers_sql,
)
from warehouse.vocabulary import INSTANCE_SORT_KEYS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def con(replayed_home):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    connection = load_into_memory(info)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def table(con) -> OfferTable:
    return OfferTable.load(con)


FIXED = [
    OfferQuery(),
    OfferQuery(OfferFilter.build(min_vram=80, fp8=True)),
    OfferQuery(OfferFilter.build(gpu=["H100"], min_gpus=8), sort="price_per_gpu", limit=20),
    OfferQuery(OfferFilter.build(provider=["Lambda,runpod"]), sort="-price", limit=7, offset=3),
    OfferQuery(OfferFilter.build(pricing=["spot"], max_price_per_gpu=3), sort="-vram"),
    OfferQuery(OfferFilter.build(serverless=True), sort="price_per_gpu"),
    OfferQuery(OfferFilter.build(provider=["vast"]), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(include_suspect=True), sort="-price_per_vram_gb", limit=1000),
    OfferQuery(OfferFilter.build(region=["US-EAST-1"], max_age_days=365)),
    OfferQuery(OfferFilter.build(min_total_vram=640, bf16=True), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(include_expired=True), sort="price_per_gpu", limit=1000),
    OfferQuery(OfferFilter.build(gpu=["b200"], include_expired=True), sort="price_per_gpu"),
    OfferQuery(OfferFilter.build(include_expired=True, max_age_days=100), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(include_expired=True, include_suspect=True, max_age_days=62)),
    OfferQuery(OfferFilter.build(include_expired=True, include_unavailable=True), limit=1000),
    OfferQuery(OfferFilter.build(provider=["vultr"], include_expired=True), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(gpu=["a100"], include_expired=True), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(gpu=["a100-80gb", "h100-sxm"]), sort="price_per_gpu"),
    OfferQuery(OfferFilter.build(continent=["europe"], gpu=["h100"]), sort="price_per_gpu"),
    OfferQuery(OfferFilter.build(country=["de,FI"], include_expired=True), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(continent=["Asia", "middle-east"], country=["jp", "ae"])),
    OfferQuery(OfferFilter.build(min_vcpus=64, min_ram_gb=512), sort="-price_per_gpu"),
    OfferQuery(OfferFilter.build(min_ram_gb=0, include_expired=True), cheapest_per_gpu=True),
    OfferQuery(OfferFilter.build(pricing=["SPOT,on-demand"], min_vcpus=1), limit=50, offset=10),
]


@pytest.mark.parametrize("query", FIXED, ids=lambda q: repr(q.filter.as_dict()) + q.sort)
def test_the_table_answers_a_fixed_query_as_sql_does(con, table, query) -> None:
    assert table.query(query) == query_offers_sql(con, query)
    assert table.exclusions(query.filter) == exclusions_sql(con, query.filter)


def _random_query(rng: random.Random) -> OfferQuery:
    def maybe(p: float, value):
        return value if rng.random() < p else None

    f = OfferFilter.build(
        min_vram=maybe(0.4, rng.choice([0, 12, 24, 40, 48, 80, 141, 192])),
        min_total_vram=maybe(0.2, rng.choice([80, 160, 640])),
        fp8=maybe(0.2, rng.random() < 0.5),
        bf16=maybe(0.2, rng.random() < 0.5),
        gpu=maybe(0.3, rng.sample(["h100", "a100", "rtx-4090", "l40s", "h200", "b200", "a10"], 2)),
        provider=maybe(
            0.3, rng.sample(["lambda", "runpod", "vast", "aws", "modal", "gcp", "vultr"], 2)
        ),
        pricing=maybe(0.2, [rng.choice(["on_demand", "spot", "reserved", "dynamic"])]),
        serverless=maybe(0.2, rng.random() < 0.5),
        max_price=maybe(0.1, rng.choice([1, 2.99, 10, 40])),
        max_price_per_gpu=maybe(0.2, rng.choice([0.5, 1, 2.99, 3])),
        min_gpus=maybe(0.2, rng.choice([0.5, 1, 2, 8])),
        min_vcpus=maybe(0.15, rng.choice([0, 8, 32, 96, 208])),
        min_ram_gb=maybe(0.15, rng.choice([0, 64, 256, 1000, 2000])),
        max_age_days=maybe(0.2, rng.choice([1, 30, 62, 92, 100, 400])),
        include_suspect=rng.random() < 0.3,
        include_expired=rng.random() < 0.3,
        include_unavailable=rng.random() < 0.3,
    )
    return OfferQuery(
        f,
        sort=rng.choice(INSTANCE_SORT_KEYS),
        limit=rng.randint(1, 300),
        offset=rng.choice([0, 0, rng.randint(0, 200)]),
        cheapest_per_gpu=rng.random() < 0.25,
    )


def test_the_table_answers_random_queries_as_sql_does(con, table) -> None:
    rng = random.Random(13)
    for _ in range(300):
        query = _random_query(rng)
        assert table.query(query) == query_offers_sql(con, query), query
        assert table.exclusions(query.filter) == exclusions_sql(con, query.filter), query


def test_what_the_rules_left_out_adds_up_to_the_other_filters_matches(con, table) -> None:
    """total + excluded.count = the offers matching the other filters, whatever the rules."""
    rng = random.Random(21)
    for _ in range(100):
        f = _random_query(rng).filter
        everything = replace(
            f,
            include_expired=True,
            include_suspect=True,
            include_unavailable=True,
            max_age_days=None,
        )
        _, total = table.query(OfferQuery(f))
        _, matching = table.query(OfferQuery(everything))
        assert total + table.exclusions(f).count == matching, f


def test_the_default_leaves_out_every_expired_offer_and_counts_them_per_kind(con, table) -> None:
    items, _ = table.query(OfferQuery(limit=1000))
    assert items and not any(i["expired"] for i in items)
    expired = con.execute(
        "select price_kind, count(*) from current_offers where expired group by all"
    ).fetchall()
    assert table.exclusions(OfferFilter()).expired_by_kind == dict(expired)
    every = OfferFilter.build(include_expired=True, include_suspect=True, include_unavailable=True)
    everything, _ = table.query(OfferQuery(every, limit=1000))
    assert sum(i["expired"] for i in everything) == sum(n for _, n in expired)


def test_filters_normalise_to_one_key() -> None:
    a = OfferFilter.build(provider=["Lambda,runpod"], gpu=["H100-SXM"], region=["US-East-1"])
    b = OfferFilter.build(
        provider=["runpod", "lambda", "LAMBDA"], gpu=["h100_sxm"], region=["us-east-1"]
    )
    assert a == b and hash(a) == hash(b)
    assert a.gpu == (gpu_filter("H100 SXM"),) == ("h100-sxm",)


def test_bad_values_are_filter_errors() -> None:
    with pytest.raises(FilterError, match="pricing"):
        OfferFilter.build(pricing=["hourly"])
    with pytest.raises(FilterError, match="provider: at most 50"):
        OfferFilter.build(provider=[",".join(f"p{i}" for i in range(51))])
    with pytest.raises(FilterError, match="sort"):
        OfferQuery(sort="cheapest")


def test_min_vcpus_and_min_ram_filters(con, table) -> None:
    """min_vcpus / min_ram_gb bound the instance's vCPUs and system RAM, by SQL and in memory
    alike; an offer whose source states no vCPUs or RAM never passes a minimum, not even 0.
    Off GCP's 2026-10 capture: g4-standard-384 (8 x RTX PRO 6000) is the one machine with
    over 300 vCPUs (384, 1546.2 GB, $35.99944/h on demand); over 4000 GB of RAM: AWS's
    p6-b300.48xlarge (4398 GB, 192 vCPUs), GCP's a4-highgpu-8g (4260.6 GB, 224 vCPUs),
    CoreWeave's HGX B300 node (4096 GB, 192 vCPUs) and Scaleway's B300-SXM-8-288G (ram
    4123168604160 bytes = 4123.2 GB, ncpus 224), with expired prices listed."""

    def found(**bounds: Any) -> list[dict]:
        query = OfferQuery(OfferFilter.build(**bounds), sort="-price", limit=1000)
        items, total = table.query(query)
        assert (items, total) == query_offers_sql(con, query)  # the two paths agree
        assert total == len(items)
        return items

    many_cpus = found(min_vcpus=300)
    assert {(i["provider"], i["instance_type"], i["vcpus"], i["ram_gb"]) for i in many_cpus} == {
        ("gcp", "g4-standard-384", 384, Decimal("1546.2"))
    }
    on_demand = [i for i in many_cpus if i["pricing"] == "on_demand"]
    assert [(i["gpu_id"], i["gpu_count"], i["price_per_hour_usd"]) for i in on_demand] == [
        ("rtx-pro-6000", 8, Decimal("35.99944"))
    ]
    big = found(min_ram_gb=4000, include_expired=True)
    assert {(i["provider"], i["instance_type"], i["vcpus"], i["ram_gb"]) for i in big} == {
        ("aws", "p6-b300.48xlarge", 192, 4398),
        ("gcp", "a4-highgpu-8g", 224, Decimal("4260.6")),
        ("coreweave", "NVIDIA HGX B300", 192, 4096),
        ("scaleway", "B300-SXM-8-288G", 224, Decimal("4123.2")),
    }
    # the two over 4000 GB with over 200 vCPUs
    assert {i["instance_type"] for i in found(min_vcpus=200, min_ram_gb=4000)} == {
        "a4-highgpu-8g",
        "B300-SXM-8-288G",
    }
    assert found(min_vcpus=300, min_ram_gb=4000) == []  # 384 vCPUs have 1546.2 GB
    everything = found()
    stated = [i for i in everything if i["vcpus"] is not None]
    assert len(stated) < len(everything)  # some sources state no vCPUs
    assert [i["id"] for i in found(min_vcpus=0)] == [i["id"] for i in stated]
    with_ram = [i["id"] for i in everything if i["ram_gb"] is not None]
    assert [i["id"] for i in found(min_ram_gb=0)] == with_ram


def test_pricing_is_case_insensitive_and_takes_lists() -> None:
    """pricing=ON_DEMAND, on-demand and comma lists read as provider, region and GPU values do;
    a value that is no pricing model is refused with the closest one."""
    want = OfferFilter.build(pricing=["on_demand", "spot"])
    assert want.pricing == ("on_demand", "spot")
    for spelling in (["ON_DEMAND,spot"], ["Spot", "on-demand"], ["spot, On_Demand", "SPOT"]):
        assert OfferFilter.build(pricing=spelling) == want
    with pytest.raises(FilterError, match="did you mean 'on_demand'") as caught:
        OfferFilter.build(pricing=["ondemand"])
    (entry,) = caught.value.extra or []
    assert entry["key"] == "pricing" and entry["did_you_mean"] == "on_demand"
    assert entry["valid"] == ["dynamic", "on_demand", "reserved", "spot"]


def test_sql_binds_every_value() -> None:
    where = OfferFilter.build(provider=["x'); drop table gpus; --"], min_vram=1).where()
    assert "drop" not in where.sql() and "x'); drop table gpus; --" in where.params


def test_the_cli_imports_no_api() -> None:
    for path in (REPO / "pipelines").glob("cli*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n == "api" or n.startswith("api.") for n in names), path


def _gpu_query(con, table, gpu: str) -> list[dict]:
    query = OfferQuery(
        OfferFilter.build(gpu=[gpu], include_expired=True), sort="price_per_gpu", limit=1000
    )
    items, total = table.query(query)
    assert (items, total) == query_offers_sql(con, query)  # the SQL and in-memory paths agree
    assert total == len(items)
    return items


def test_gpu_filter_finds_family_and_model_level_offers(con, table) -> None:
    """``gpu=a100`` lists the rows placed only in the family (Koyeb's curated "A100" tier: no
    memory size or form factor stated, gpu_family a100) beside the model-level ones, among
    them CoreWeave's 2026 8 x 80 GB "NVIDIA A100" node (SXM by CoreWeave's documentation),
    spot $9.65 / 8 = $1.20625 (north-america) and $9.51 / 8 = $1.18875 (europe) per GPU-hour.
    An exact model id matches that model only; a narrower family only rows known to be in it."""
    family = _gpu_query(con, table, "a100")
    koyeb = [o for o in family if o["provider"] == "koyeb"]
    assert [(o["instance_type"], o["gpu_id"], o["gpu_family"]) for o in koyeb] == [
        ("A100", None, "a100")
    ]
    assert koyeb[0]["price_per_gpu_hour_usd"] == 1.6
    coreweave = {
        (o["region"], o["pricing"], o["instance_type"]): (o["gpu_id"], o["price_per_gpu_hour_usd"])
        for o in family
        if o["provider"] == "coreweave"
    }
    assert coreweave[("north-america", "spot", "NVIDIA A100")] == ("a100-80gb-sxm", 1.20625)
    assert coreweave[("europe", "spot", "NVIDIA A100")] == ("a100-80gb-sxm", 1.18875)
    # 2 regions x (on-demand, spot); the NA inference price is its on-demand offer's property
    assert len(coreweave) == 4
    assert {o["gpu_id"] for o in family} - {None} >= {"a100-80gb-sxm", "a100-40gb-pcie"}

    model = _gpu_query(con, table, "a100-80gb-sxm")
    assert {o["gpu_id"] for o in model} == {"a100-80gb-sxm"}
    assert all(o["gpu_family"] is None for o in model)
    assert sum(o["provider"] == "coreweave" for o in model) == 4
    # 'a100' says nothing of the memory: not an a100-80gb row
    assert "koyeb" not in {o["provider"] for o in _gpu_query(con, table, "a100-80gb")}
