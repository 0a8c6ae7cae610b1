"""README's "Verified by docs" list names registered providers verified by their docs.

A subset check, not equality: a provider the kit just scaffolded is ``verified="docs"`` and
must pass CI as generated (CONTRIBUTING.md, "Add a provider") before anyone edits README.
"""

from __future__ import annotations

import re
from pathlib import Path

from scrapers.registry import PROVIDERS

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_only_providers_verified_by_their_docs() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    match = re.search(r"Verified by docs: (?P<list>.*?)\. ", text)
    assert match, "README: no 'Verified by docs: ...' sentence"
    listed = set(re.findall(r"`([a-z0-9]+)` \(", match["list"]))
    assert listed, "the sentence names no provider"
    assert listed <= {slug for slug, p in PROVIDERS.items() if p.verified == "docs"}
