"""Akash Console GPU price list: a copy of the capture's first model (with its price and bids),
renamed to a made-up model of a made-up family ("h100" -> "z100"), appended to ``models``."""

from __future__ import annotations

import copy
import json

MADE_UP_MODEL = "z100"


def inject(body: bytes) -> tuple[bytes, str]:
    document = json.loads(body)
    model = copy.deepcopy(document["models"][0])
    model["model"] = MADE_UP_MODEL
    document["models"].append(model)
    return json.dumps(document, indent=2).encode(), MADE_UP_MODEL
