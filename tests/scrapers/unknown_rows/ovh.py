"""OVHcloud: a copy of a real GPU plan, renamed, whose GPU addons name a made-up model."""

from __future__ import annotations

import copy
import json
from typing import Any

MODEL = "nvidia-z100-96g"
PLAN_CODE = "z9xgpu01-v1-us"


def _default(plan: dict[str, Any], family: str) -> str:
    return next(f["default"] for f in plan["addonFamilies"] if f["name"] == family)


def _model(plan: dict[str, Any]) -> str:
    """The model part of the default GPU addon: "gpu-<n>x<model>-<tail shared with the RAM>"."""
    gpu, ram = _default(plan, "gpu").split("-"), _default(plan, "memory").split("-")
    shared = 0
    while gpu[-1 - shared] == ram[-1 - shared]:
        shared += 1
    return "-".join(gpu[: len(gpu) - shared]).split("x", 1)[1]


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    plans = document["plans"] if isinstance(document, dict) else document
    real = next(
        p for p in plans if any(f.get("name") == "gpu" for f in p.get("addonFamilies") or [])
    )
    made_up = copy.deepcopy(real)
    made_up["planCode"] = made_up["product"] = PLAN_CODE
    model = _model(real)
    gpu = next(f for f in made_up["addonFamilies"] if f["name"] == "gpu")
    gpu["default"] = gpu["default"].replace(model, MODEL)
    gpu["addons"] = [addon.replace(model, MODEL) for addon in gpu["addons"]]
    plans.append(made_up)
    return json.dumps(document, indent=1).encode(), MODEL
