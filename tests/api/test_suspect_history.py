"""Suspect prices in history: GET /instances/{id}/history states the plausibility screen's
verdict per interval, and GET /changes leaves out a change from or to a suspect price unless
include_suspect=true, counting it in ``excluded``.

On the replayed captures, RunPod's B200 community tier is listed from 2025-06-15 at $0.50 per
GPU-hour with ``communityCloud: false`` (the tier is not sold; the same $0.50 stands for nine
GPU models from 6 to 192 GB in that capture), then at $5.98 on 2025-09-09. That is no price
change a buyer saw; the secure tier's $6.39 -> $5.99 the same day is one."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import pytest
from litestar.testing import TestClient

from api.app import create_app
from tests.support.published import published_copy

B200_COMMUNITY = "37f390e918aa14bc"  # runpod, 1x B200, community, on_demand, global
CHANGES = {"provider": "runpod", "gpu": "b200", "since": "2025-01-01"}


@pytest.fixture(scope="module")
def client(replayed_published, tmp_path_factory):  # replayed_published: tests/conftest.py
    published = published_copy(replayed_published, tmp_path_factory.mktemp("suspect") / "p")
    with TestClient(create_app(published, reload_interval_s=3600)) as test_client:
        yield test_client


def test_offer_history_marks_the_placeholder_interval_suspect(client):
    body = client.get(f"/instances/{B200_COMMUNITY}/history").json()
    first, second = body["items"][:2]
    assert (first["valid_from"][:10], first["price"]) == ("2025-06-15", 0.5)
    assert first["price_status"] == "suspect"
    assert {r["code"] for r in first["price_status_reasons"]} == {"not_offered", "repeated_price"}
    assert (second["valid_from"][:10], second["price"]) == ("2025-09-09", 5.98)
    assert (second["price_status"], second["price_status_reasons"]) == ("ok", [])


def test_changes_leave_out_a_change_from_a_suspect_price(client):
    body = client.get("/changes", params=CHANGES).json()
    changed = [
        (i["changed_at"][:10], i["cloud_tier"], i["old_price"], i["new_price"])
        for i in body["items"]
    ]
    assert ("2025-09-09", "community", 0.5, 5.98) not in changed
    assert ("2025-09-09", "secure", 6.39, 5.99) in changed  # a real change the same day stays
    assert body["total"] == len(body["items"]) == 5
    assert body["excluded"] == {"count": 1, "suspect": {"count": 1}}
    assert {i["old_price_status"] for i in body["items"]} == {"ok"}
    assert {i["new_price_status"] for i in body["items"]} == {"ok"}


def test_include_suspect_lists_it_with_its_verdicts(client):
    body = client.get("/changes", params={**CHANGES, "include_suspect": "true"}).json()
    suspect = [i for i in body["items"] if i["id"] == B200_COMMUNITY and i["old_price"] == 0.5]
    assert len(suspect) == 1
    assert (suspect[0]["old_price_status"], suspect[0]["new_price_status"]) == ("suspect", "ok")
    assert body["total"] == 6
    assert body["excluded"] == {"count": 0, "suspect": {"count": 0}}


def test_the_csv_form_counts_the_left_out_changes_in_headers(client):
    response = client.get("/changes", params={**CHANGES, "format": "csv"})
    assert response.status_code == 200
    assert response.headers["x-total-count"] == "5"
    assert response.headers["x-excluded-suspect"] == "1"
    assert "old_price_status" in response.text.splitlines()[0]


def test_the_views_carry_the_verdict_as_sql_users_read_it(replayed_published):
    snapshot = sorted(replayed_published.glob("snapshot-*.duckdb"))[-1]
    with duckdb.connect(str(snapshot), read_only=True) as con:  # the file docs/sql.md queries
        rows = con.execute(
            "select old_price, new_price, old_price_status, new_price_status, suspect"
            " from price_changes"
            " where offer_id = ? and changed_at::date = date '2025-09-09'",
            [B200_COMMUNITY],
        ).fetchall()
        suspect_changes = con.execute(
            "select count(*) filter (suspect), count(*) filter (not suspect),"
            " count(*) filter (suspect is null) from price_changes"
        ).fetchone()
    assert rows == [(Decimal("0.5"), Decimal("5.98"), "suspect", "ok", True)]
    # the API's default (GET /changes since the first day: 166 listed, 11 left out) is
    # `where not suspect`; unscreened (imported) changes are not suspect, never null
    assert suspect_changes == (11, 166, 0)
