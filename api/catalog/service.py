"""The catalog's reads over one snapshot that more than one answer shares: a curated-facts row
(none in a snapshot published before the facts existed) and serverless platforms with their
tiers (GET /providers/{slug}, GET /serverless)."""

from __future__ import annotations

from typing import Any

import msgspec

from api.encoding import encode_as
from api.store import Snapshot
from warehouse.queries.catalog import PLATFORM_TIERS_SQL

# the curated tables a snapshot published before the facts existed lacks
FACT_TABLES = frozenset({"provider_facts", "serverless_platforms", "serverless_tiers"})


def cached_list(snapshot: Snapshot, name: str, schema: type[msgspec.Struct], sql: str) -> bytes:
    """The encoded ``{"items": <every row of sql>, "as_of"}`` answer of ``schema``, built once
    per snapshot (GET /gpus, GET /providers)."""
    return snapshot.cached(
        (name,),
        lambda: encode_as(schema, {"items": snapshot.query(sql), "as_of": snapshot.as_of}),
    )


def first_row(snapshot: Snapshot, sql: str, params: list[Any], table: str) -> dict[str, Any] | None:
    """The first row ``sql`` selects, or None (also when ``table`` is not in the snapshot)."""
    if table not in snapshot.tables:  # a snapshot published before the facts existed
        return None
    rows = snapshot.query(sql, params)
    return rows[0] if rows else None


def with_tiers(snapshot: Snapshot, platforms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each platform row with its ``tiers`` (PLATFORM_TIERS_SQL), in the platforms' order."""
    tiers = snapshot.query(PLATFORM_TIERS_SQL, [[p["platform"] for p in platforms]])
    by_platform: dict[str, list[dict[str, Any]]] = {}
    for tier in tiers:
        by_platform.setdefault(tier["platform"], []).append(tier)
    return [{**p, "tiers": by_platform.get(p["platform"], [])} for p in platforms]
