"""Made-up provider answers the hostile-input tests share."""

from __future__ import annotations

import json
import struct
import zlib

_MIB = 1 << 20
_UNIT_MIB = 16  # the repeated unit of gzip_bomb


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


def gzip_bomb(decoded_mib: int) -> bytes:
    """A gzip body that decodes to ``decoded_mib`` MiB of zeros (about 1 KiB per MiB).

    Deflating every MiB at level 9 took ~5.6 s for 1 GiB. After a full flush the compressor
    starts from an empty window, so each further 16 MiB of zeros deflate to the same bytes: two
    such units are compressed and the second one's bytes repeated (~18 bytes of flush per unit,
    0.1 % larger). Header and trailer (CRC-32, size) are those of the whole stream, so it
    decodes, and checks, as a body compressed in one go."""
    if decoded_mib < 1:
        raise ValueError("a gzip bomb decodes to at least 1 MiB")
    zeros = bytes(_MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate

    def deflate(mib: int, mode: int) -> bytes:
        return b"".join(packer.compress(zeros) for _ in range(mib)) + packer.flush(mode)

    unit = min(_UNIT_MIB, decoded_mib)
    units, rest = divmod(decoded_mib, unit)
    first = deflate(unit, zlib.Z_FULL_FLUSH)
    again = deflate(unit, zlib.Z_FULL_FLUSH) if units > 1 else b""
    deflated = first + again * (units - 1) + deflate(rest, zlib.Z_FINISH)
    crc = 0
    for _ in range(decoded_mib):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, no mtime
    return header + deflated + struct.pack("<II", crc, (decoded_mib * _MIB) & 0xFFFFFFFF)
