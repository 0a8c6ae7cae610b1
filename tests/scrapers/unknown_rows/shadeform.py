"""Shadeform homepage: a copy of the first instance type of the embedded ``instance_types``
list (its escaped flight-data text, ``{\\"cloud\\":...}`` up to the next type), its ``gpu_type``
renamed to a made-up "Z100", inserted after the original."""

from __future__ import annotations

import re

MADE_UP_GPU = "Z100"
_TYPE = b'{\\"cloud\\":'
_GPU_TYPE = re.compile(rb'(\\"gpu_type\\":\\")[^\\]+(\\")')


def inject(body: bytes) -> tuple[bytes, str]:
    start = body.index(_TYPE)
    end = body.index(b"," + _TYPE, start)
    blob = body[start:end]
    renamed = _GPU_TYPE.sub(rb"\g<1>" + MADE_UP_GPU.encode() + rb"\g<2>", blob)
    assert renamed != blob, "no gpu_type in the first instance type"
    return body[:end] + b"," + renamed + body[end:], MADE_UP_GPU
