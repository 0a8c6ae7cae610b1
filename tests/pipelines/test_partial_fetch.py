"""A part of a multi-request fetch that fails alone is reported, not fatal (issue 11 §1).

The provider here is Hetzner's real scraper answering from its newest capture, with a fetch
that also reports one part as failed (what AWS does for a region answering 404): the answered
part is published, the failed one is stored with the scrape, goes to ``fetch_complete``
(yellow), ``/providers/{slug}`` and the ingest line, with credentials scrubbed.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from decimal import Decimal

import dagster as dg
import httpx
import pytest

from pipelines.defs.providers import _check_results
from pipelines.ingest import scrape_provider
from scrapers import aws, hetzner, http
from scrapers.base import RawResponse
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths

SECRET = "partial-fetch-secret-123"  # a placeholder, not a credential
PART = "region fsn2"
ERROR = f"HTTP 404 for https://example.invalid/fsn2?key={SECRET}"


def _fetch_with_skips(client: httpx.Client, token: str | None) -> tuple[list[RawResponse], dict]:
    return hetzner.fetch(client, token), {PART: ERROR}


@pytest.fixture(scope="module")
def scraped(tmp_path_factory, seeded_template):
    paths = Paths(tmp_path_factory.mktemp("partial-home"))
    seeded_warehouse(seeded_template, paths.warehouse)
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


# --- a skipped region keeps its last good offers (issue 22, item 7) -------------------------

AWS_CAPTURE = SNAPSHOTS / "aws" / "c2026-09_ec2-ondemand-pricing-page_json_gpu_7regions.json"
OHIO = "US East (Ohio)"
VIRGINIA = "US East (N. Virginia)"


def _aws_transport(*, failing: str | None, p5_virginia: str) -> httpx.MockTransport:
    """Each region's URL answered with that region's part of the real 7-region capture (a
    region the capture lacks: an empty price file), Virginia's p5.48xlarge at ``p5_virginia``;
    ``failing`` answers HTTP 503 every time."""
    capture = json.loads(AWS_CAPTURE.read_bytes())
    bodies: dict[str, bytes] = {}
    for name in aws.REGIONS:
        part = copy.deepcopy(capture.get(name, {"regions": {name: {}}}))
        if name == VIRGINIA:
            for entry in part["regions"][name].values():
                if entry["Instance Type"] == "p5.48xlarge":
                    entry["price"] = p5_virginia
        bodies[aws.region_url(name)] = json.dumps({name: part}).encode()

    def handler(request: httpx.Request) -> httpx.Response:
        if failing is not None and str(request.url) == aws.region_url(failing):
            return httpx.Response(503, text="Service Unavailable")
        return httpx.Response(
            200, content=bodies[str(request.url)], headers={"content-type": "application/json"}
        )

    return httpx.MockTransport(handler)


def test_aws_skipped_region_keeps_last_good_offers(tmp_path, monkeypatch, seeded_template) -> None:
    """Issue 22: a live AWS scrape whose Ohio price file fails was a plain success, and the 8
    Ohio offers of the capture silently left the served data. Now the scrape is partial (its
    region named), Ohio's last good offers stay current, dated by their own scrape, and the
    other regions update (Virginia's p5.48xlarge $55.04 -> $55.60)."""
    monkeypatch.setattr(http, "pause", lambda seconds: None)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)

    def scrape(failing: str | None, p5_virginia: str):
        [outcome] = scrape_provider(
            aws.PROVIDER,
            paths=paths,
            replay_dir=None,
            transport=_aws_transport(failing=failing, p5_virginia=p5_virginia),
        )
        with Warehouse(paths.warehouse).connect() as con:
            rebuild(con)
            offers = con.execute(
                "select region, instance_type, price, scrape_id from current_offers"
                " where provider = 'aws'"
            ).fetchall()
            status = con.execute(
                "select last_status, skipped_parts, kept_offer_count, current_offer_count"
                " from provider_status where provider = 'aws'"
            ).fetchone()
            open_ohio = con.execute(
                "select count(*) from offer_history where provider = 'aws'"
                " and region = 'us-east-2' and valid_to is null"
            ).fetchone()
            coverage = con.execute(
                "select coverage, coverage_reason from scrapes where scrape_id = ?",
                [outcome.scrape_id],
            ).fetchone()
        assert status is not None and coverage is not None
        return outcome, offers, status, open_ohio, coverage

    first, offers, status, _, coverage = scrape(None, "55.0400000000")
    assert first.status == "success" and len(offers) == 51 and coverage == ("full", None)
    assert sum(region == "us-east-2" for region, *_ in offers) == 8
    assert status[0] == "success" and status[2] == 0

    second, offers, status, open_ohio, coverage = scrape(OHIO, "55.6000000000")
    assert second.status == "success" and second.offer_count == 43  # Ohio's 8 not fetched
    assert list(second.skipped_parts) == ["region us-east-2"]
    assert coverage == ("partial", "skipped parts: region us-east-2")
    # all 51 served: Ohio's 8 from the first scrape, the other 43 from the second
    assert len(offers) == 51
    by_scrape = Counter((region == "us-east-2", sid) for region, _, _, sid in offers)
    assert by_scrape == {(True, first.scrape_id): 8, (False, second.scrape_id): 43}
    prices = {(region, it): Decimal(price) for region, it, price, _ in offers}
    assert prices[("us-east-1", "p5.48xlarge")] == Decimal("55.60")
    assert prices[("us-east-2", "p5.48xlarge")] == Decimal("55.04")  # Ohio, as last seen
    last_status, parts, kept, current = status
    assert (last_status, kept, current) == ("partial", 8, 51)
    assert "region us-east-2" in parts and "HTTP 503" in parts
    assert open_ohio == (8,)  # history keeps them open too

    # every region answers again: all 51 from the newest scrape, nothing kept
    third, offers, status, _, coverage = scrape(None, "55.6000000000")
    assert coverage == ("full", None) and len(offers) == 51
    assert {row[3] for row in offers} == {third.scrape_id}
    assert status[0] == "success" and status[2] == 0
