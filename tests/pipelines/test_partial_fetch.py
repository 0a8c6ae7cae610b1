"""A part of a multi-request fetch that fails alone is reported, not fatal (issue 11 §1).

The provider here is Hetzner's real scraper answering from its newest capture, with a fetch
that also reports one part as failed (what AWS does for a region answering 404): the answered
part is published, the failed one is stored with the scrape, goes to ``fetch_complete``
(yellow), ``/providers/{slug}`` and the ingest line, with credentials scrubbed.
"""

from __future__ import annotations

import dataclasses

import dagster as dg
import httpx
import pytest

from pipelines.defs.providers import _check_results
from pipelines.ingest import ensure_seeded, scrape_provider
from scrapers import hetzner
from scrapers.base import RawResponse
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths

SECRET = "partial-fetch-secret-123"  # a placeholder, not a credential
PART = "region fsn2"
ERROR = f"HTTP 404 for https://example.invalid/fsn2?key={SECRET}"


def _fetch_with_skips(client: httpx.Client, token: str | None) -> tuple[list[RawResponse], dict]:
    return hetzner.fetch(client, token), {PART: ERROR}


@pytest.fixture(scope="module")
def scraped(tmp_path_factory):
    paths = Paths(tmp_path_factory.mktemp("partial-home"))
    ensure_seeded(Warehouse(paths.warehouse))
    capture = discover(SNAPSHOTS, ["hetzner"])["hetzner"][-1]
    body = capture.path.read_bytes()
    provider = dataclasses.replace(
        hetzner.PROVIDER, fetch_with_skips=_fetch_with_skips, token_env="PARTIAL_FETCH_TOKEN"
    )
    [outcome] = scrape_provider(
        provider,
        paths=paths,
        replay_dir=None,
        env={"PARTIAL_FETCH_TOKEN": SECRET},
        transport=httpx.MockTransport(
            lambda request: httpx.Response(
                200, content=body, headers={"content-type": "application/json"}
            )
        ),
    )
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con)
        stored = con.execute("select part, error from scrape_skipped_parts").fetchall()
        status = con.execute(
            "select skipped_part_count, skipped_parts, current_offer_count from provider_status"
            " where provider = 'hetzner'"
        ).fetchone()
    return outcome, stored, status


def test_the_answered_part_is_published_and_the_failed_part_reported(scraped):
    outcome, stored, status = scraped
    assert outcome.status == "success" and outcome.offer_count > 0
    assert list(outcome.skipped_parts) == [PART]
    assert stored == [(PART, "HTTP 404 for https://example.invalid/fsn2?key=REDACTED")]
    assert status[0] == 1 and PART in status[1] and status[2] == outcome.offer_count


def test_no_secret_reaches_the_stored_error(scraped):
    outcome, stored, status = scraped
    assert SECRET not in outcome.skipped_parts[PART]
    assert all(SECRET not in error for _, error in stored) and SECRET not in status[1]


def test_a_skipped_part_turns_fetch_complete_yellow_and_lists_it():
    results = {r.check_name: r for r in _check_results("aws", [], skipped_parts={PART: ERROR})}
    check = results["fetch_complete"]
    assert check.passed is False and check.severity == dg.AssetCheckSeverity.WARN
    assert PART in check.metadata["parts"].value
    assert all(r.passed for r in results.values() if r.check_name != "fetch_complete")
    assert {r.check_name: r for r in _check_results("aws", [])}["fetch_complete"].passed
