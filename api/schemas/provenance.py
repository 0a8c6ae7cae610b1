"""Where a served price or curated fact comes from (``warehouse.provenance``), as field types
shared by the offer, tier and facts schemas."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

SourceKind = Annotated[
    Literal["provider", "third_party"],
    msgspec.Meta(
        description="provider: the provider's own page, docs, API or repository (every scraped "
        "price); third_party: the price or a fact of the row rests on someone else's page"
    ),
]
ObservedBasis = Annotated[
    Literal["published", "captured", "retrieved", "undated"],
    msgspec.Meta(
        description="How the date is known: published (a date printed on the source), captured "
        "(a stored capture's time: every scraped price), retrieved (the day a first-party page "
        "was read, no stored copy) or undated (a third-party source with no date: no age, "
        "expired)"
    ),
]
CaptureFiles = Annotated[
    str | None,
    msgspec.Meta(
        description="Space-separated stored captures (paths under the snapshots folder) the "
        "row is dated by; null unless observed_basis is captured"
    ),
]
