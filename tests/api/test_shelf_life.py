"""A price is ranked only while it is in force (issue 21, item 1): every answer that lists or
ranks offers leaves expired prices out by default, brings them back with include_expired=true,
takes max_age_days, and says how many offers it left out and why.

The replay of every capture is rebuilt and published at 2026-12-02, the day the issue was
filed (the answers depend on the day: DataCrunch's 2025-08-08 page is then 481 days old, the
September 2026 captures 92 days), so the figures below are the ones a buyer read that day.
"""

from __future__ import annotations

import csv
import json
import shutil
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.cli import main
from pipelines.export_tables import export_tables
from pipelines.exports import export, export_rules
from tests.support.published import get_json, republished_at
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import current

AT = datetime(2026, 12, 2, 0, 0, tzinfo=UTC)
EVERY = {"include_expired": "true"}


@pytest.fixture(scope="module")
def home(replayed_home, tmp_path_factory) -> Paths:  # replayed_home: tests/conftest.py
    return republished_at(replayed_home, tmp_path_factory.mktemp("shelf-life-home"), AT)


@pytest.fixture(scope="module")
def client(home):
    with TestClient(create_app(home.published, reload_interval_s=3600)) as test_client:
        yield test_client


_get = get_json


def _items(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    return _get(client, "/instances", limit=1000, **params)["items"]


def test_cheapest_b200_no_longer_led_by_481_day_old_datacrunch(client):
    answer = _get(client, "/instances", gpu="b200", sort="price_per_gpu", limit=1000)
    assert answer["items"] and not any(i["expired"] for i in answer["items"])
    assert "datacrunch" not in {i["provider"] for i in answer["items"]}
    # DeepInfra's 2026-08-22 Custom LLMs table: B200 180GB $3.69 / GPU-hour (before it was
    # scraped, RunPod's 2026-09-01 1x B200 at $5.98/h led)
    first = answer["items"][0]
    assert (first["provider"], first["price_per_gpu_hour_usd"], first["age_days"]) == (
        "deepinfra",
        3.69,
        102,
    )
    runpod = next(i for i in answer["items"] if i["provider"] == "runpod")
    assert (runpod["price_per_gpu_hour_usd"], runpod["age_days"]) == (5.98, 92)  # 2026-09-01
    every = _get(client, "/instances", gpu="b200", sort="price_per_gpu", limit=1000, **EVERY)
    # what the issue read: four daily re-set (dynamic) prices of 2025-08-08 first, $2.68 per
    # GPU-hour (its $0.80 spot prices are suspect, left out either way)
    led = every["items"][:4]
    assert {(i["provider"], i["pricing"], i["age_days"]) for i in led} == {
        ("datacrunch", "dynamic", 481)
    }
    assert {i["price_per_gpu_hour_usd"] for i in led} == {2.6775, 2.68}
    datacrunch = [i for i in every["items"] if i["provider"] == "datacrunch"]
    assert len(datacrunch) == 8 and all(i["expired"] for i in datacrunch)
    assert {i["expires_at"][:10] for i in datacrunch} == {"2025-08-10", "2026-02-04"}
    # the default answer says what it left out and why, per kind of price (suspect ones
    # included: an expired price is counted as expired, whatever else it is)
    everything = _items(
        client, gpu="b200", include_suspect="true", include_unavailable="true", **EVERY
    )
    expired = [i for i in everything if i["expired"]]
    assert answer["excluded"]["expired"]["count"] == len(expired)
    by_kind: dict[str, int] = {}
    for item in expired:
        by_kind[item["price_kind"]] = by_kind.get(item["price_kind"], 0) + 1
    assert answer["excluded"]["expired"]["by_kind"] == by_kind
    assert by_kind["dynamic"] == 4  # DataCrunch's daily re-set B200 prices
    assert every["excluded"]["expired"]["count"] == 0
    # 39 B200 offers (41 before issue 22: Vast's two identical 1x B200 rows are one offer, and
    # CoreWeave's single-GPU B200 price is a property of its 8-GPU offer) and Vultr's listed but
    # not offered 8x B200 on-demand price (a suspect reference); issue 26 added 13 (Civo's three
    # B200 commitment terms, E2E's hourly and monthly, DeepInfra, fal, GMI Cloud, TensorPool's
    # B200 SXM, Massed Compute's B200 SXM6 x8, Together's HGX B200 on demand and
    # reserved 1/3 months)
    assert len(everything) == answer["total"] + answer["excluded"]["count"] == 53


def test_dynamic_price_expires_after_two_days(home, tmp_path):
    """DataCrunch's dynamic prices were observed 2025-08-08: in force one day later, expired
    two days later, while its on-demand list prices stay in force for 180 days; the shelf life
    is a setting (GPUPRICES_SHELF_LIFE_DAYS_DYNAMIC)."""
    observed = datetime(2025, 8, 8, tzinfo=UTC)
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(home.warehouse, copy)

    def datacrunch(now: datetime, **lives: float) -> dict[str, set[bool]]:
        with Warehouse(copy).connect() as con:
            rebuild(con, now=now, shelf_life_days=lives)
            rows = con.execute(
                "select price_kind, expired, expires_at from current_offers"
                " where provider = 'datacrunch'"
            ).fetchall()
        assert {kind for kind, _, _ in rows} == {"dynamic", "spot", "on_demand"}
        assert {e for k, _, e in rows if k == "dynamic"} == {
            observed + timedelta(days=lives.get("dynamic", 2))
        }
        return {kind: {e for k, e, _ in rows if k == kind} for kind, _, _ in rows}

    day_after = datacrunch(observed + timedelta(days=1))
    assert day_after["dynamic"] == {False} and day_after["spot"] == {False}
    two_days = datacrunch(observed + timedelta(days=2))
    assert two_days["dynamic"] == {True} and two_days["on_demand"] == {False}
    assert datacrunch(observed + timedelta(days=3), dynamic=5)["dynamic"] == {False}
    assert datacrunch(observed + timedelta(days=31))["spot"] == {True}


def test_cheapest_8x_h100_on_demand_is_not_a_508_day_old_page(client):
    query = {"gpu": "h100", "min_gpus": 8, "pricing": "on_demand", "serverless": "false"}
    every = _items(client, sort="price_per_gpu", **query, **EVERY)
    assert every[0]["provider"] == "voltagepark" and every[0]["age_days"] == 508
    assert every[0]["expired"] and every[0]["price_per_gpu_hour_usd"] == 2.49
    default = _items(client, sort="price_per_gpu", **query)
    assert default and not any(i["expired"] for i in default)
    assert max(i["age_days"] for i in default) <= 180
    assert {"voltagepark", "lambda", "digitalocean"}.isdisjoint(i["provider"] for i in default)


def test_estimates_accepts_max_age_days(client):
    answer = _get(client, "/estimates", model="llama-3.1-8b", max_age_days=70, limit=1000)
    assert answer["items"]
    for item in answer["items"]:
        assert AT - datetime.fromisoformat(item["observed_at"]) <= timedelta(days=70)
        assert item["expired"] is False and item["price_kind"]
    assert answer["excluded"]["max_age_days"]["max_age_days"] == 70
    assert answer["excluded"]["max_age_days"]["count"] > 0  # the 92-day-old September pages
    # the same rule as GET /instances: the same offers left out for the same reasons
    offers = _get(client, "/instances", max_age_days=70, limit=1)
    assert answer["excluded"] == offers["excluded"]
    every = _get(client, "/estimates", model="llama-3.1-8b", limit=1000, **EVERY)
    assert any(i["expired"] for i in every["items"]) and every["total"] > answer["total"]
    computed = _get(client, "/estimates", model="llama-3.1-8b", input_tokens=500, max_age_days=70)
    assert computed["source"] == "computed" and computed["excluded"] == answer["excluded"]


def test_estimates_rank_only_offers_within_max_age_and_shelf_life(client):
    """/estimates ranks by USD per million tokens among the prices in force only: DataCrunch's
    481-day-old daily re-set B200 prices would lead it at about half the cost of anything else
    (~$0.049 per million tokens of Llama 3.1 70B; TensorPool's B200 at $4.99/h, the cheapest in
    force, ~$0.092), and max_age_days narrows the same ranking."""
    query = {"model": "llama-3.1-70b", "limit": 1000}
    every = _get(client, "/estimates", **query, **EVERY)
    led = every["items"][:4]
    assert {(i["provider"], i["gpu_id"], i["price_kind"], i["expired"]) for i in led} == {
        ("datacrunch", "b200", "dynamic", True)
    }
    assert {i["observed_at"][:10] for i in led} == {"2025-08-08"}
    assert max(i["usd_per_million_total_tokens"] for i in led) < 0.05
    default = _get(client, "/estimates", **query)
    assert default["source"] == "token_estimates" and default["items"]
    first = default["items"][0]  # DeepInfra's 2026-08-22 page: B200 at $3.69 / GPU-hour
    assert (first["provider"], first["gpu_count"], first["price_per_hour_usd"]) == (
        "deepinfra",
        1.0,
        3.69,
    )
    # the expired DataCrunch prices would still lead it (DeepInfra's $3.69 is 1.4x their $2.68)
    assert first["usd_per_million_total_tokens"] > led[0]["usd_per_million_total_tokens"]
    # the default ranking is the full one with the expired prices taken out, in the same order
    in_force = [i for i in every["items"] if not i["expired"]]
    assert default["items"] == in_force and default["total"] == len(in_force)
    assert default["excluded"]["expired"]["count"] > 0
    assert every["total"] > default["total"]

    young = _get(client, "/estimates", max_age_days=70, **query)
    within = [
        i
        for i in default["items"]
        if AT - datetime.fromisoformat(i["observed_at"]) <= timedelta(days=70)
    ]
    assert young["items"] == within and young["total"] == len(within) < default["total"]
    assert young["items"][0]["provider"] == "gcp"  # RunPod's B200 page is 92 days old
    # the computed path (other request lengths) ranks the same offers under the same rules
    computed = _get(client, "/estimates", max_age_days=70, input_tokens=500, **query)
    assert computed["source"] == "computed" and computed["excluded"] == young["excluded"]
    assert {i["offer_id"] for i in computed["items"]} == {i["offer_id"] for i in within}
    costs = [i["usd_per_million_total_tokens"] for i in computed["items"]]
    assert costs == sorted(costs) and not any(i["expired"] for i in computed["items"])


def test_fit_and_breakeven_take_max_age_days(client):
    fit = _get(client, "/fit", model="llama-3.1-70b", max_age_days=70, limit=1000)
    young = {i["id"] for i in _items(client, max_age_days=70)}
    assert fit["offers"] and {o["offer_id"] for o in fit["offers"]} <= young
    assert fit["excluded"]["max_age_days"]["count"] > 0
    assert not any(o["expired"] for o in _get(client, "/fit", model="llama-3.1-70b")["offers"])
    every = _get(client, "/fit", model="llama-3.1-70b", limit=1000, **EVERY)
    assert any(o["expired"] for o in every["offers"])

    load = {"requests_per_day": 10000, "model": "llama-3.1-8b", "limit": 1000}
    # no dedicated price is younger than 10 days (the newest, GCP's, Azure's and Oracle's, are
    # 62): the serverless tiers have no dedicated offer to compare with, and it says why
    fresh = _get(client, "/breakeven", max_age_days=10, **load)
    assert fresh["cheapest_dedicated"] is None and fresh["excluded"]["max_age_days"]["count"]
    older = _get(client, "/breakeven", max_age_days=70, **load)
    dedicated = older["cheapest_dedicated"]
    assert dedicated is not None and dedicated["offer_id"] in young
    assert dedicated["expired"] is False
    assert not any(i["expired"] for i in _get(client, "/breakeven", **load)["items"])


def test_economics_answers_show_the_age_max_age_days_compares(client):
    """An /estimates, /fit or /breakeven row says how old its price is, the same age_days
    GET /instances gives the offer: a buyer filtering with max_age_days=70 can read that every
    row is within it (DeepInfra's B200 page, which leads /estimates, is 102 days old that day)."""
    ages = {i["id"]: i["age_days"] for i in _items(client, **EVERY)}
    estimates = _get(client, "/estimates", model="llama-3.1-70b", limit=1000)
    first = estimates["items"][0]
    assert first["provider"] == "deepinfra" and round(first["age_days"]) == 102
    young = _get(client, "/estimates", model="llama-3.1-70b", limit=1000, max_age_days=70)
    computed = _get(client, "/estimates", model="llama-3.1-70b", input_tokens=500, max_age_days=70)
    fit = _get(client, "/fit", model="llama-3.1-70b", max_age_days=70, limit=1000)
    load = {"requests_per_day": 10000, "model": "llama-3.1-8b", "max_age_days": 70}
    breakeven = _get(client, "/breakeven", limit=1000, **load)
    rows = [
        *estimates["items"], *young["items"], *computed["items"], *fit["offers"],
        *breakeven["items"], breakeven["cheapest_dedicated"],
    ]  # fmt: skip
    assert all(row["age_days"] == ages[row["offer_id"]] for row in rows)
    assert max(row["age_days"] for row in rows[len(estimates["items"]) :]) <= 70


def test_default_answer_holds_no_expired_price(client, home, tmp_path, monkeypatch, capsys):
    every_offer = _items(client, include_suspect="true", include_unavailable="true", **EVERY)
    expired = {i["id"] for i in every_offer if i["expired"]}
    assert len(expired) > 300
    listings = {
        "/instances": ("items", {"limit": 1000}),
        "/instances cheapest_per_gpu": ("items", {"limit": 1000, "cheapest_per_gpu": "true"}),
        "/estimates": ("items", {"model": "llama-3.1-8b", "limit": 1000}),
        "/fit": ("offers", {"model": "llama-3.1-8b", "limit": 1000}),
        "/breakeven": ("items", {"requests_per_day": 1000, "model": "llama-3.1-8b"}),
    }
    for name, (key, params) in listings.items():
        path = name.split()[0]
        default = _get(client, path, **params)
        every = _get(client, path, **params, **EVERY)
        assert default[key] and not any(i["expired"] for i in default[key]), name
        assert any(i["expired"] for i in every[key]), name
        assert default["excluded"]["expired"]["count"] > 0, name
    csv_answer = client.get("/instances", params={"format": "csv", "limit": 1000})
    rows = list(csv.DictReader(csv_answer.text.splitlines()))
    assert rows and {r["expired"] for r in rows} == {"false"}
    assert int(csv_answer.headers["x-excluded-expired"]) > 300
    assert "spot=" in csv_answer.headers["x-excluded-expired-by-kind"]

    # the CLI and the exports, over the same snapshot
    monkeypatch.setenv("GPUPRICES_HOME", str(home.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["query", "--limit", "1000", "--include-suspect", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["items"] and not {i["id"] for i in cli["items"]} & expired
    assert cli["excluded"]["expired"]["count"] == len(expired)
    assert (
        main(
            [
                "query",
                "--limit",
                "1000",
                "--include-suspect",
                "--include-expired",
                "--include-unavailable",
                "--json",
            ]
        )
        == 0
    )
    assert {i["id"] for i in json.loads(capsys.readouterr().out)["items"]} >= expired
    snapshot = current(home.published)
    assert snapshot is not None
    gpuhunt = export("gpuhunt", snapshot, tmp_path / "gpuhunt")
    exported = set()
    for path in (tmp_path / "gpuhunt").glob("*.csv"):
        with path.open(newline="") as handle:
            for row in csv.DictReader(handle):
                exported.add(json.loads(row["provider_data"])["gpuprices_offer_id"])
    assert exported and not exported & expired
    assert gpuhunt.left_out.expired == len(expired)
    assert any(line.startswith(f"left out {len(expired)} expired") for line in gpuhunt.lines())
    skypilot = export("skypilot", snapshot, tmp_path / "skypilot")
    every_skypilot = export(
        "skypilot", snapshot, tmp_path / "sky-all", export_rules(include_expired=True)
    )
    assert skypilot.left_out.expired == len(expired) and every_skypilot.left_out.expired == 0
    assert skypilot.rows < every_skypilot.rows
    written, _ = export_tables(snapshot, "csv", tmp_path / "tables", "current")
    with written[0][0].open(newline="") as handle:
        assert {r["expired"] for r in csv.DictReader(handle)} == {"false"}


def test_providers_and_status_count_expired_offers_per_provider(client, home, monkeypatch, capsys):
    providers = {p["provider"]: p for p in _get(client, "/providers")["items"]}
    datacrunch = providers["datacrunch"]
    assert datacrunch["expired_offer_count"] == datacrunch["current_offer_count"] == 12
    assert datacrunch["expired_by_kind"] == {"dynamic": 4, "on_demand": 4, "spot": 4}
    assert providers["runpod"]["expired_offer_count"] == 0  # its 2026-09-01 list prices
    assert providers["vast"]["expired_by_kind"] == {
        "marketplace": providers["vast"]["current_offer_count"]
    }
    monkeypatch.setenv("GPUPRICES_HOME", str(home.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["status", "--format", "json"]) == 0
    status = {r["provider"]: r for r in json.loads(capsys.readouterr().out)["items"]}
    assert status["datacrunch"]["expired_offer_count"] == 12
    assert main(["status", "--format", "csv"]) == 0
    rows = {r["provider"]: r for r in csv.DictReader(capsys.readouterr().out.splitlines())}
    assert rows["vast"]["expired_offer_count"] == str(providers["vast"]["current_offer_count"])


def test_every_ranking_endpoint_documents_include_expired_and_max_age_days(client):
    document = _get(client, "/schema/openapi.json")
    for path in ("/instances", "/estimates", "/fit", "/breakeven"):
        parameters = {p["name"]: p for p in document["paths"][path]["get"]["parameters"]}
        assert "shelf life" in parameters["include_expired"]["description"], path
        age = parameters["max_age_days"]
        assert "days" in age["description"], path
        assert age["schema"]["maximum"] == 100_000, path  # bounded: no value is a 500
