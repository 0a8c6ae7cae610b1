"""TensorDock: the made-up row of the unknown-row contract.

A copy of the first location's first GPU offering under a made-up GPU, appended to its GPUs.
"""

from __future__ import annotations

import copy
import json

MADE_UP_GPU = "Z100 SXM 80GB"


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    gpus = document["data"]["locations"][0]["gpus"]
    row = copy.deepcopy(gpus[0])
    row["v0Name"], row["displayName"] = "z100-sxm-80gb", MADE_UP_GPU
    gpus.append(row)
    return json.dumps(document, indent=1).encode(), MADE_UP_GPU
