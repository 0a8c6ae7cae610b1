"""The recorded offers that ship with the project: what a first run serves when nothing answers.

``scrapers/recorded/offers.csv`` holds, for every registered provider, the offers its own parser
reads from its newest real capture (every capture of that instant) in the read-only
``../shared/snapshots``: facts only (provider, instance, GPU, price, unit, ...), each row
labelled with the capture it came from, its capture date (``observed_at``) and the live URL the
capture is of (``source_url``). No markup or page text is copied. A fresh clone with no internet
and no captures beside it still ingests these, labelled as recorded with their dates
(``data_origin = 'recorded'``, stale by age), and a live fetch that succeeds always wins.

Rebuild after a parser change (a test compares the file with a fresh build)::

    uv run python -m scrapers.recorded ../shared/snapshots
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import cache
from pathlib import Path

from scrapers.base import Offer, Provider
from scrapers.replay import REPLAY_TOKEN, ReplayTransport, capture_precision, discover

PATH = Path(__file__).resolve().parent / "recorded" / "offers.csv"
# the capture each row was read from (``<provider>/<file name>`` under the snapshots), then the
# Offer record's own fields, in its declared order
CAPTURE_COLUMN = "capture"
COLUMNS = [CAPTURE_COLUMN, *Offer.model_fields]


def build(snapshots: Path, providers: Iterable[Provider]) -> list[dict[str, str]]:
    """The rows: each provider's newest replayable capture, fetched through the replay transport
    (so ``source_url`` is the live URL) and parsed by the provider's own parser. Captures of
    one provider stamped with the same newest instant are the parts of one scrape (the pages
    of a paged API, saved one file each): each is read, in file-name order. A per-exchange
    (``.har``) capture holds a whole scrape, every page and zone, in one file."""
    from scrapers import http

    captures = discover(snapshots)
    rows: list[dict[str, str]] = []
    for provider in sorted(providers, key=lambda p: p.slug):
        if provider.slug not in captures:
            continue
        newest = captures[provider.slug][-1].captured_at
        for capture in (c for c in captures[provider.slug] if c.captured_at == newest):
            with http.make_client(ReplayTransport(capture)) as client:
                token = REPLAY_TOKEN if provider.token_required else None
                responses, _ = provider.fetch_report(client, token)
            offers, _ = provider.parse_report(responses)
            label = f"{capture.provider}/{capture.path.name}"
            rows.extend(_row(label, offer) for offer in offers)
    return rows


def _cell(value: object) -> str:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _row(capture: str, offer: Offer) -> dict[str, str]:
    values = offer.model_dump(mode="json")
    return {CAPTURE_COLUMN: capture, **{k: _cell(values[k]) for k in Offer.model_fields}}


def render(rows: Iterable[Mapping[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


@cache
def _read() -> tuple[dict[str, str], ...]:
    if not PATH.is_file():
        return ()
    with PATH.open(encoding="utf-8", newline="") as handle:
        return tuple(csv.DictReader(handle))


def providers_with_rows() -> set[str]:
    return {row["provider"] for row in _read()}


def offers(provider: str) -> list[Offer]:
    """The provider's recorded offers as the records its parser produced."""
    return [
        Offer.model_validate({k: v for k, v in row.items() if k != CAPTURE_COLUMN and v != ""})
        for row in _read()
        if row["provider"] == provider
    ]


def parse_report(provider: str) -> tuple[list[Offer], Counter[str]]:
    """The provider's recorded offers as a parse report (``Provider.parse_report``'s shape):
    the recorded rows are offers only, so nothing is excluded."""
    return offers(provider), Counter()


def capture_of(provider: str) -> str | None:
    """The capture (``<provider>/<file>``) the provider's recorded rows were read from."""
    return next((row[CAPTURE_COLUMN] for row in _read() if row["provider"] == provider), None)


def precision_of(provider: str) -> str:
    """How precisely the capture is dated ("month", "day", "minute"), from its file name."""
    capture = capture_of(provider) or ""
    return capture_precision(capture.rpartition("/")[2]) or "day"


def fingerprint(provider: str) -> str:
    """A content hash of the provider's rows: loading the same rows again is a no-op."""
    rows = [row for row in _read() if row["provider"] == provider]
    return hashlib.sha256(render(rows).encode()).hexdigest()


def captured_at(provider: str) -> datetime | None:
    found = offers(provider)
    return min((o.observed_at for o in found), default=None)


def main(argv: list[str] | None = None) -> int:
    from scrapers.registry import PROVIDERS

    parser = argparse.ArgumentParser(
        prog="python -m scrapers.recorded", description="Rebuild scrapers/recorded/offers.csv"
    )
    parser.add_argument("snapshots", type=Path, help="the captures (../shared/snapshots)")
    args = parser.parse_args(argv)
    if not args.snapshots.is_dir():
        print(f"error: {args.snapshots} is not a directory", file=sys.stderr)
        return 2
    rows = build(args.snapshots, PROVIDERS.values())
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(render(rows), encoding="utf-8")
    print(f"wrote {len(rows)} offers of {len({r['provider'] for r in rows})} providers to {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
