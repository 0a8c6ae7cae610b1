"""Oracle: one more item in the newest price list capture, a copy of a real GPU-hour item whose
part number and name are renamed to a part that does not exist (``B99999``, "GPU - Z100")."""

from __future__ import annotations

import json

PART = "B99999"


def inject(body: bytes) -> tuple[bytes, str]:
    data = json.loads(body)
    template = next(
        item
        for item in data["items"]
        if item.get("metricName") == "GPU Per Hour"
        and "Cloud@Customer" not in item.get("displayName", "")
    )
    data["items"].append({**template, "partNumber": PART, "displayName": "Compute - GPU - Z100"})
    return json.dumps(data).encode(), PART
