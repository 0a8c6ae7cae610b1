"""Issue 25 "expected and missing": GET /version and GET /metrics (Prometheus)."""

from __future__ import annotations

import re

import duckdb
import pytest
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from api.app import create_app
from api.metrics import UNMATCHED, RouteLabels


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home  # replayed_home: tests/conftest.py
    with TestClient(create_app(paths.published, reload_interval_s=3600)) as test_client:
        yield test_client


def _samples(client) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def test_version_names_the_package_and_the_snapshot(client) -> None:
    body = client.get("/version").json()
    health = client.get("/health").json()
    assert body["snapshot_id"] == health["snapshot_id"]
    assert body["duckdb"] == duckdb.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", body["version"])
    assert body["api_version"] == client.get("/schema/openapi.json").json()["info"]["version"]


def test_metrics_count_requests_by_route_template_and_status(client) -> None:
    before = _samples(client)
    client.get("/providers/lambda")
    client.get("/instances", params={"limit": 1})
    client.get("/instances", params={"bogus": 1})  # 400, answered before any handler
    client.get("/no/such/page")
    after = _samples(client)

    def grew(route: str, status: str) -> float:
        key = (
            "gpuprices_http_requests_total",
            (("method", "GET"), ("route", route), ("status", status)),
        )
        return after.get(key, 0) - before.get(key, 0)

    assert grew("/providers/{slug}", "200") == 1
    assert grew("/instances", "200") == 1  # the fast route is counted too
    assert grew("/instances", "400") == 1
    assert grew(UNMATCHED, "404") == 1
    count = ("gpuprices_http_request_duration_seconds_count", (("route", "/instances"),))
    assert after[count] - before.get(count, 0) == 2
    assert not any(name.endswith("_created") for name, _ in after)


def test_metrics_report_the_served_snapshot(client) -> None:
    samples = _samples(client)
    health = client.get("/health").json()
    assert samples[("gpuprices_snapshot_loaded", ())] == 1
    assert samples[("gpuprices_offers", (("state", "all"),))] == health["offers"]
    assert samples[("gpuprices_offers", (("state", "expired"),))] == health["expired_offers"]
    assert samples[("gpuprices_providers", ())] == health["providers"]
    assert samples[("gpuprices_snapshot_age_seconds", ())] > 0


def test_metrics_without_a_snapshot_say_none_is_loaded(tmp_path) -> None:
    with TestClient(create_app(tmp_path / "published", reload_interval_s=3600)) as client:
        samples = _samples(client)
    assert samples[("gpuprices_snapshot_loaded", ())] == 0
    assert ("gpuprices_offers", (("state", "all"),)) not in samples


def test_scanned_paths_and_methods_do_not_grow_the_series(client) -> None:
    labels = RouteLabels(["/gpus", "/providers/{slug:str}", "/charts/{offer_id:str}/history.svg"])
    assert labels("/providers/lambda") == "/providers/{slug}"
    assert labels("/charts/abc/history.svg") == "/charts/{offer_id}/history.svg"
    assert labels("/gpus/") == "/gpus"
    assert labels("/wp-admin/x.php") == UNMATCHED
    client.get("/random-0")
    client.request("FOO", "/gpus")
    _samples(client)  # GET /metrics has its own series too
    before = set(_samples(client))
    for i in range(1, 20):
        client.get(f"/random-{i}")
        client.request("FOO", "/gpus")
    assert set(_samples(client)) == before  # the same series, only their values grew
