"""Example responses of providers verified against their documentation (``verified="docs"``).

Layout as under ``../shared/snapshots``: ``<slug>/<date>_<what>.<ext>``, the date being the
day the example was read. Each is the provider's own published API reference or pricing-page
example (its URL cited in the provider's test), or the layout ``gpuprices new-provider`` writes
for a scaffold; never a capture's markup. The contract and unknown-row tests read a provider's
examples where it has no capture (``examples_for``).
"""

from __future__ import annotations

from pathlib import Path

from scrapers.base import RawResponse
from scrapers.replay import Capture, discover
from tests.conftest import raw_from_capture

EXAMPLES = Path(__file__).resolve().parent


def examples_for(slug: str) -> list[Capture]:
    """The provider's examples as replayable captures, oldest first ([] when it has none)."""
    return discover(EXAMPLES, [slug]).get(slug, [])


def example_response(slug: str, url: str) -> RawResponse:
    """The provider's newest example as the response a live fetch of ``url`` would give."""
    found = examples_for(slug)
    assert found, f"no example under {EXAMPLES / slug}"
    return raw_from_capture(found[-1].path, url=url)
