"""Latitude.sh pricing flight data: a copy of the first plan object (escaped as in the page,
``{\\"id\\":\\"plan_...`` up to the next plan), its id and name changed and its GPU type renamed
to a made-up "NVIDIA Z100", inserted after the original."""

from __future__ import annotations

import re

MADE_UP_GPU = "NVIDIA Z100"
_PLAN = b'{\\"id\\":\\"plan_'
_GPU_TYPE = re.compile(rb'(\\"gpu\\":\{\\"count\\":\d+,\\"type\\":\\")[^\\]+(\\")')


def inject(body: bytes) -> tuple[bytes, str]:
    start = body.index(_PLAN)
    end = body.index(b"," + _PLAN, start)
    plan = body[start:end].replace(_PLAN, _PLAN + b"MADEUP", 1)
    plan = plan.replace(b'\\"name\\":\\"', b'\\"name\\":\\"z100.', 1)
    renamed = _GPU_TYPE.sub(rb"\g<1>" + MADE_UP_GPU.encode() + rb"\g<2>", plan)
    assert renamed != plan, "no GPU type in the first plan"
    return body[:end] + b"," + renamed + body[end:], MADE_UP_GPU
