"""Every real capture parses, and a full replay serves each provider from its newest capture
(issue 11: "every capture file under ../shared/snapshots/ (all dates) parses, and a provider's
newest capture publishes offers after a full replay")."""

from __future__ import annotations

import pytest

from scrapers import http
from scrapers.registry import PROVIDERS
from scrapers.replay import REPLAY_TOKEN, ReplayTransport, discover
from tests.conftest import SNAPSHOTS
from warehouse.db import Warehouse

CAPTURES = [c for found in discover(SNAPSHOTS).values() for c in found]


def test_every_provider_folder_with_a_real_response_has_a_scraper():
    assert set(discover(SNAPSHOTS)) == set(PROVIDERS)


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: f"{c.provider}/{c.path.name}")
def test_every_capture_parses_through_the_live_code_path(capture):
    provider = PROVIDERS[capture.provider]
    with http.make_client(ReplayTransport(capture)) as client:
        responses, skipped = provider.fetch_report(
            client, REPLAY_TOKEN if provider.token_required else None
        )
    offers, _ = provider.parse_report(responses)
    assert offers and not skipped
    assert {o.observed_at for o in offers} == {capture.captured_at}


def test_a_full_replay_serves_every_provider_from_its_newest_capture(replayed_home):
    paths, _ = replayed_home
    newest = {slug: found[-1].captured_at for slug, found in discover(SNAPSHOTS).items()}
    with Warehouse(paths.warehouse).connect() as con:
        served = dict(
            con.execute(
                "select provider, max(observed_at) from current_offers"
                " where price_source = 'scrape' group by provider"
            ).fetchall()
        )
    assert served == newest
