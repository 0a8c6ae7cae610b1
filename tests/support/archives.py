"""Extracting chosen members of a tar archive on every Python 3.11 (for benchmarks/interop_check).

``TarFile.extractall(filter=...)`` exists from Python 3.11.4; Debian 12 ships 3.11.2, where the
keyword is a TypeError. There the members are checked by hand: regular files and directories
whose paths stay under the target (what the ``data`` filter would also refuse otherwise)."""

from __future__ import annotations

import tarfile
from collections.abc import Sequence
from pathlib import PurePosixPath


class UnsafeArchive(Exception):
    """A member that would land outside the target, or is not a plain file or directory."""


def extract_members(tar: tarfile.TarFile, target: str, members: Sequence[tarfile.TarInfo]) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(target, members=members, filter="data")
        return
    for member in members:
        path = PurePosixPath(member.name)
        if path.is_absolute() or ".." in path.parts or not (member.isfile() or member.isdir()):
            raise UnsafeArchive(f"refusing {member.name!r}: not a plain file under the target")
    tar.extractall(target, members=members)
