"""RunPod: one more gpu type in the newest capture (the GraphQL ``data.gpuTypes`` envelope), a
copy of its first priced item with ``id`` and ``displayName`` renamed to a GPU RunPod does not
list."""

from __future__ import annotations

import json

MADE_UP_ID = "NVIDIA Z100 80GB HBM3"
MADE_UP_DISPLAY_NAME = "Z100 SXM"


def inject(body: bytes) -> tuple[bytes, str]:
    payload = json.loads(body)
    items = payload["data"]["gpuTypes"]
    priced = next(i for i in items if i.get("securePrice") or i.get("communityPrice"))
    items.insert(1, {**priced, "id": MADE_UP_ID, "displayName": MADE_UP_DISPLAY_NAME})
    return json.dumps(payload).encode(), MADE_UP_ID
