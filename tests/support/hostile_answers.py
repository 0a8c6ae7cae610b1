"""Made-up provider answers the hostile-input tests share."""

from __future__ import annotations

import json


def vast_answer(count: int, region: str) -> bytes:
    """A Vast.ai bundles answer of ``count`` H100 SXM offers, each with ``region`` as its
    ``geolocation`` (a long one makes the answer large within every per-offer bound)."""
    offers = [
        {
            "id": i,
            "machine_id": i,
            "gpu_name": "H100 SXM",
            "num_gpus": 1,
            "gpu_ram": 81559,
            "dph_total": 2.25,
            "geolocation": region,
        }
        for i in range(count)
    ]
    return json.dumps({"offers": offers}).encode()
