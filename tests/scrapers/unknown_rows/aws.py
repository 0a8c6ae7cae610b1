"""AWS: one more us-east-1 entry in the merged region capture, a copy of a real GPU entry whose
instance type is renamed to a family that does not exist (``z9x``)."""

from __future__ import annotations

import json

FAMILY = "z9x"


def inject(body: bytes) -> tuple[bytes, str]:
    data = json.loads(body)
    region_name, part = next(iter(data.items()))
    entries = part["regions"][region_name]
    key, entry = next(
        (k, e) for k, e in entries.items() if e.get("Instance Family") == "GPU instance"
    )
    size = entry["Instance Type"].partition(".")[2]
    entries[f"{FAMILY} {key}"] = {**entry, "Instance Type": f"{FAMILY}.{size}"}
    return json.dumps(data).encode(), FAMILY
