"""The one list of providers. Adding a provider = its module, its tests and one line here."""

from __future__ import annotations

from scrapers.base import Provider

_PROVIDERS: list[Provider] = []
# (registry lines are appended below, one per provider module)

PROVIDERS: dict[str, Provider] = {p.slug: p for p in _PROVIDERS}


def get(slug: str) -> Provider:
    try:
        return PROVIDERS[slug]
    except KeyError:
        known = ", ".join(sorted(PROVIDERS))
        raise KeyError(f"unknown provider {slug!r}; known: {known}") from None
