"""Per provider: captures parsed, offers and exclusions of the newest capture (issue 11 table).

    uv run python benchmarks/provider_table.py [../shared/snapshots]

Reads the read-only captures through each provider's live code path (replay transport ->
fetch -> parse_report) and prints a Markdown table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scrapers import http
from scrapers.base import ScraperError
from scrapers.registry import PROVIDERS
from scrapers.replay import REPLAY_TOKEN, ReplayTransport, discover

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "snapshots"


def main(snapshots: Path = DEFAULT) -> int:
    found = discover(snapshots)
    # files PROVENANCE.md marks as another tool's output are not responses: never replayed
    print(
        "| provider | parsed / replayable / files | newest capture | offers | exclusions (newest) |"
    )
    print("| --- | --- | --- | --- | --- |")
    for slug, provider in sorted(PROVIDERS.items()):
        files = [p for p in (snapshots / slug).iterdir() if p.is_file()]
        parsed, last = 0, None
        for capture in found.get(slug, []):
            token = REPLAY_TOKEN if provider.token_required else None
            try:
                with http.make_client(ReplayTransport(capture)) as client:
                    responses, _ = provider.fetch_report(client, token)
                last = (capture, *provider.parse_report(responses))
                parsed += 1
            except ScraperError as exc:
                print(f"{slug}: {capture.path.name}: {exc}", file=sys.stderr)
        if last is None:
            print(f"| {slug} | 0 / {len(found.get(slug, []))} / {len(files)} | - | 0 | - |")
            continue
        capture, offers, excluded = last
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(excluded.items())) or "none"
        print(
            f"| {slug} | {parsed} / {len(found[slug])} / {len(files)} |"
            f" {capture.captured_at:%Y-%m-%d} | {len(offers)} |"
            f" {reasons} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
