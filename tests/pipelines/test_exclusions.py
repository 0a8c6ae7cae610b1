"""Rows a parser recognises as not offers are part of the scrape's outcome (issue 11 §1):
stored per scrape, shown by GET /providers and /providers/{slug}, and a WARN check."""

from __future__ import annotations

import dagster as dg
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.defs.providers import _check_results
from warehouse.db import Warehouse


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as test_client:
        yield test_client


def test_contact_sales_cells_of_coreweave_2026_are_counted_and_served(client):
    body = client.get("/providers/coreweave").json()
    assert body["status"]["excluded_rows"] == {"contact sales": 9, "n/a": 8}
    assert body["status"]["excluded_row_count"] == 17


def test_every_provider_reports_its_exclusions_in_the_list(client):
    items = {p["provider"]: p for p in client.get("/providers").json()["items"]}
    assert items["hetzner"]["excluded_rows"] == {"non_gpu": 436}  # the auction's CPU servers
    assert items["runpod"]["excluded_rows"] == {}
    for item in items.values():
        assert item["excluded_row_count"] == sum(item["excluded_rows"].values())


def test_exclusions_are_stored_with_the_scrape_they_belong_to(replayed_home):
    paths, _ = replayed_home
    with Warehouse(paths.warehouse).connect() as con:
        rows = con.execute(
            "select s.provider, e.reason, e.row_count from scrape_exclusions as e"
            " inner join scrapes as s using (scrape_id)"
            " where s.status = 'success' and s.provider = 'crusoe' order by s.observed_at desc"
        ).fetchall()
    assert rows[0] == ("crusoe", "contact sales", 12)  # c2026-09: MI355X and others


def test_an_unknown_family_turns_rows_recognised_yellow_and_lists_it():
    results = {
        r.check_name: r
        for r in _check_results("aws", [], excluded={"unknown_family g9x": 2, "windows": 5})
    }
    check = results["rows_recognised"]
    assert check.passed is False and check.severity == dg.AssetCheckSeverity.WARN
    assert "unknown_family g9x: 2" in check.metadata["by_reason"].value
    known_only = {r.check_name: r for r in _check_results("aws", [], excluded={"windows": 5})}
    assert known_only["rows_recognised"].passed is True
