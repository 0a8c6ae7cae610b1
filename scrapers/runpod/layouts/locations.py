"""``locations`` (live, query 2 of ``fetch``): ``{"data": {"countryCodes": [...],
"dataCenters": [...], "gpuTypes": [...]}}``. No prices, so no offers of its own: its
``secureCloud``/``communityCloud`` flags are the ``offered`` of the located offers
(``layouts.location``). Drift: one of the three lists missing, a gpu type without an id."""

from __future__ import annotations

from typing import Any, cast

from scrapers.base import RawResponse, SchemaDriftError
from scrapers.parsing import json_body
from scrapers.runpod.common import FLAG_FIELDS
from scrapers.runpod.gpu_types import is_json

Flags = dict[str, dict[str, bool | None]]  # gpu type id -> tier -> its flag (None: not a bool)


def detect(response: RawResponse) -> bool:
    """A JSON object whose ``data`` holds ``dataCenters`` (raises as ``json_body`` does for a
    ``{`` body that is not JSON)."""
    if not is_json(response, b"{"):
        return False
    payload = json_body(response)
    data = payload.get("data") if isinstance(payload, dict) else None
    return isinstance(data, dict) and "dataCenters" in data


def flags(response: RawResponse) -> Flags:
    """gpu type id -> tier -> its secureCloud/communityCloud flag (None when not a bool)."""
    data: dict[str, Any] = json_body(response)["data"]
    lists = {key: data.get(key) for key in ("countryCodes", "dataCenters", "gpuTypes")}
    broken = [key for key, value in lists.items() if not isinstance(value, list)]
    if broken:
        raise SchemaDriftError(f"locations response: {broken} not lists")
    found: Flags = {}
    for item in cast(list[Any], lists["gpuTypes"]):  # a list: checked above
        gpu_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(gpu_id, str) or not gpu_id:
            raise SchemaDriftError("locations response: a gpu type without an id")
        found[gpu_id] = {
            tier: value if isinstance(value := item.get(key), bool) else None
            for tier, key in FLAG_FIELDS.items()
        }
    return found
