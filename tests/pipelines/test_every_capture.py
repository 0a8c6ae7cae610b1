"""A full replay serves each provider from its newest capture (issue 11: "a provider's newest
capture publishes offers after a full replay").

That every capture file under ../shared/snapshots/ (all dates) parses through the live code
path is the scraper contract: tests/scrapers/test_contract.py.
"""

from __future__ import annotations

from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from warehouse.db import Warehouse


def test_a_full_replay_serves_every_provider_from_its_newest_capture(replayed_home):
    paths, _ = replayed_home
    # every provider we scrape; captures that wait for their scraper (issue 26) are not replayed
    newest = {
        slug: found[-1].captured_at
        for slug, found in discover(SNAPSHOTS).items()
        if slug in PROVIDERS
    }
    with Warehouse(paths.warehouse).connect() as con:
        served = dict(
            con.execute(
                "select provider, max(observed_at) from current_offers"
                " where price_source = 'scrape' group by provider"
            ).fetchall()
        )
    assert served == newest
