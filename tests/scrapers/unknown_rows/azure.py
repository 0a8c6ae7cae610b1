"""Azure: one more item in the newest capture (a bare Items array, or the API envelope), a copy
of a real Linux pay-as-you-go GPU VM item whose ARM size is renamed to one that does not exist
(``Standard_ND96isr_Z100_v9``)."""

from __future__ import annotations

import json

SKU = "Standard_ND96isr_Z100_v9"


def inject(body: bytes) -> tuple[bytes, str]:
    data = json.loads(body)
    items = data if isinstance(data, list) else data["Items"]
    template = next(
        item
        for item in items
        if item.get("type") == "Consumption"
        and "Windows" not in item["productName"]
        and "Low Priority" not in item["meterName"]
        and "Spot" not in item["meterName"]
    )
    items.append({**template, "armSkuName": SKU, "meterName": "ND96isr Z100 v9"})
    return json.dumps(data).encode(), SKU
