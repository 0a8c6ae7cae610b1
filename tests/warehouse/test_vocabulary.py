"""The read surface's words are written once (``warehouse.vocabulary``); the copies that cannot
import it, the migrations' SQL check constraints and the scrapers' ``PricingModel`` (scrapers
import no warehouse module), say the same."""

from __future__ import annotations

import re
from pathlib import Path

from scrapers.base import PricingModel
from warehouse.vocabulary import FIXED_PRICING, PRICING_KINDS

MIGRATIONS = Path(__file__).resolve().parents[2] / "warehouse" / "migrations"
_PRICING_CHECK = re.compile(r"check\s*\(\s*pricing\s+in\s*\(([^)]*)\)\s*\)", re.I)


def _pricing_checks() -> list[tuple[str, tuple[str, ...]]]:
    """(migration file, the values its ``check (pricing in (...))`` allows), in migration order."""
    found = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        for values in _PRICING_CHECK.findall(path.read_text("utf-8")):
            found.append((path.name, tuple(v.strip().strip("'") for v in values.split(","))))
    return found


def test_the_newest_pricing_check_allows_exactly_the_pricing_kinds() -> None:
    checks = _pricing_checks()
    assert checks, "no migration states the pricing check"
    name, allowed = checks[-1]
    assert allowed == PRICING_KINDS, name


def test_the_first_pricing_check_allowed_the_fixed_kinds() -> None:
    # 0001 predates "dynamic" (added by 0005); it is history, kept as it ran
    assert _pricing_checks()[0] == ("0001_init.sql", FIXED_PRICING)


def test_scrapers_pricing_models_are_the_pricing_kinds() -> None:
    assert tuple(m.value for m in PricingModel) == PRICING_KINDS
