"""``gpuprices query`` answers like GET /instances; ``gpuprices status`` like GET /providers."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.cli import main

PROVIDERS = ("lambda", "datacrunch", "runpod", "modal", "nebius")


@pytest.fixture
def home(replayed_home, monkeypatch):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    monkeypatch.setenv("GPUPRICES_HOME", str(paths.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # rich sizes tables to the terminal width
    return paths


def test_query_json_matches_the_api(home, capsys):
    args = ["--gpu", "H100", "--min-gpus", "8", "--sort", "price_per_gpu", "--limit", "20"]
    assert main(["query", *args, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    with TestClient(create_app(home.published)) as client:
        api = client.get(
            "/instances",
            params={"gpu": "H100", "min_gpus": 8, "sort": "price_per_gpu", "limit": 20},
        ).json()
    assert cli["total"] == api["total"] > 0
    assert [i["id"] for i in cli["items"]] == [i["id"] for i in api["items"]]
    lambda_h100 = next(i for i in cli["items"] if i["provider"] == "lambda")
    assert lambda_h100["price_per_hour_usd"] == pytest.approx(23.92)
    assert lambda_h100["price_per_gpu_hour_usd"] == pytest.approx(2.99)


def test_query_prints_a_table(home, capsys):
    assert main(["query", "--provider", "lambda", "--gpu", "h100-sxm"]) == 0
    out = capsys.readouterr().out
    assert "8x h100-sxm" in out
    assert "23.92" in out and "2.990" in out
    assert "of 1 offers" in out or "1 of 1" in out


def test_query_filters_serverless_and_pricing(home, capsys):
    assert main(["query", "--serverless", "--json", "--limit", "1000"]) == 0
    serverless = json.loads(capsys.readouterr().out)["items"]
    assert serverless and all(i["serverless"] for i in serverless)
    assert main(["query", "--no-serverless", "--pricing", "spot", "--json", "--limit", "1000"]) == 0
    spot = json.loads(capsys.readouterr().out)["items"]
    assert spot and all(i["pricing"] == "spot" and not i["serverless"] for i in spot)


def test_query_rejects_a_bad_limit(home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["query", "--limit", "0"])
    assert exc.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_status_lists_every_provider_with_counts(home, capsys):
    assert main(["status", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    by_provider = {r["provider"]: r for r in body["items"]}
    assert set(PROVIDERS) <= set(by_provider)
    with TestClient(create_app(home.published)) as client:
        api = {r["provider"]: r for r in client.get("/providers").json()["items"]}
    for slug in PROVIDERS:
        assert by_provider[slug]["current_offer_count"] == api[slug]["current_offer_count"]
        assert by_provider[slug]["last_status"] == api[slug]["last_status"]
    assert by_provider["lambda"]["current_offer_count"] > 0

    assert main(["status"]) == 0
    table = capsys.readouterr().out
    for slug in PROVIDERS:
        assert slug in table
    assert "snapshot " in table


def test_status_without_a_snapshot_fails_clearly(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["status"]) == 1
    assert "no snapshot published yet" in capsys.readouterr().err
