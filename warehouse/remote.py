"""Published snapshots on an fsspec URL, so API replicas on other machines can serve them.

Layout at the URL (``s3://bucket/prefix``, ``gs://...``, or ``file:///dir`` in tests): the same
``snapshot-<id>.duckdb`` files and ``CURRENT`` pointer as ``$GPUPRICES_HOME/published``.

Writer (the pipeline, after its local atomic publish): upload the snapshot file first, then
``CURRENT`` last. Object stores replace a whole object atomically on PUT, so a reader sees either
the old pointer or the new one, and whichever it sees names a file that is already complete.

Reader (an API replica): read ``CURRENT``, download the snapshot it names into a local cache
directory (temp file + rename, so replicas sharing the cache never see half a file), and hand
the local copy to ``warehouse.publish.load_into_memory``.

Object stores need their fsspec driver installed (``s3fs``, ``gcsfs``, ``adlfs``); credentials
come from the driver's usual environment (e.g. ``AWS_*``), never from this module.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from datetime import datetime
from pathlib import Path

import fsspec
from fsspec.implementations.local import LocalFileSystem

from warehouse.paths import Paths
from warehouse.publish import POINTER, SnapshotError, SnapshotInfo, current

# The variables (warehouse.settings) whose values callers pass in
PUBLISH_URL_ENV = "GPUPRICES_PUBLISH_URL"  # pipeline: also publish snapshots here
SNAPSHOT_URL_ENV = "GPUPRICES_SNAPSHOT_URL"  # API / CLI: read snapshots from here
CACHE_DIR_ENV = "GPUPRICES_SNAPSHOT_CACHE"  # where downloaded snapshots are kept
KEEP_REMOTE_SNAPSHOTS = 5
KEEP_CACHED_SNAPSHOTS = 3
# The pointer names a file in the same directory; anything else (a path, "..") is refused.
_SNAPSHOT_FILE = re.compile(r"^snapshot-[0-9A-Za-z]+\.duckdb$")


def _fs(url: str) -> tuple[fsspec.AbstractFileSystem, str]:
    fs, root = fsspec.core.url_to_fs(url)
    return fs, root.rstrip("/")


def push(info: SnapshotInfo, url: str) -> str:
    """Upload a published snapshot to ``url``, then point ``url/CURRENT`` at it.

    Returns the remote path of the snapshot. Raises whatever the fsspec driver raises
    (``OSError`` and subclasses for local paths); ``CURRENT`` is only written after the
    snapshot upload succeeded, so a failure leaves readers on the previous snapshot.
    """
    fs, root = _fs(url)
    fs.makedirs(root, exist_ok=True)
    remote = f"{root}/{info.path.name}"
    fs.put_file(str(info.path), remote)
    pointer = json.dumps(
        {"snapshot_id": info.snapshot_id, "file": info.path.name, "as_of": info.as_of.isoformat()}
    ).encode("utf-8")
    if isinstance(fs, LocalFileSystem):
        # A plain local write is not atomic; a rename within the directory is.
        tmp = f"{root}/.{POINTER}.{uuid.uuid4().hex}.tmp"
        fs.pipe_file(tmp, pointer)
        os.replace(tmp, f"{root}/{POINTER}")
    else:
        fs.pipe_file(f"{root}/{POINTER}", pointer)
    _prune_remote(fs, root, keep=info.path.name)
    return remote


def _prune_remote(fs: fsspec.AbstractFileSystem, root: str, keep: str) -> None:
    names = sorted(
        name
        for name in (p.rsplit("/", 1)[-1] for p in fs.ls(root, detail=False))
        if _SNAPSHOT_FILE.match(name)
    )
    # Keep a few older ones: a replica that read the previous pointer may still be downloading.
    for name in names[:-KEEP_REMOTE_SNAPSHOTS]:
        if name != keep:
            fs.rm_file(f"{root}/{name}")


class RemoteSnapshots:
    """The snapshot ``url/CURRENT`` names, downloaded into ``cache_dir`` on first use."""

    def __init__(self, url: str, cache_dir: Path) -> None:
        self.url = url
        self.cache_dir = cache_dir
        self._fs, self._root = _fs(url)

    def current(self) -> SnapshotInfo | None:
        """The current snapshot as a local file, or None if nothing was pushed yet.

        Raises SnapshotError when the pointer is unreadable or the download fails.
        """
        try:
            raw = self._fs.cat_file(f"{self._root}/{POINTER}")
        except FileNotFoundError:
            return None
        except Exception as exc:  # any driver error: network, permissions, throttling
            raise SnapshotError(f"cannot read {self.url}/{POINTER}: {exc}") from None
        try:
            pointer = json.loads(raw)
            snapshot_id, name = str(pointer["snapshot_id"]), str(pointer["file"])
            as_of = datetime.fromisoformat(pointer["as_of"])
        except (ValueError, KeyError, TypeError) as exc:
            raise SnapshotError(
                f"unreadable snapshot pointer {self.url}/{POINTER}: {exc}"
            ) from None
        if not _SNAPSHOT_FILE.match(name):
            raise SnapshotError(f"snapshot pointer {self.url}/{POINTER} names {name!r}")
        local = self.cache_dir / name
        if not local.is_file():
            self._download(name, local)
        return SnapshotInfo(snapshot_id, as_of, local)

    def _download(self, name: str, local: Path) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.cache_dir / f".{name}.{uuid.uuid4().hex}.part"
        try:
            self._fs.get_file(f"{self._root}/{name}", str(tmp))
            os.replace(tmp, local)
        except Exception as exc:
            tmp.unlink(missing_ok=True)
            raise SnapshotError(f"cannot download {self.url}/{name}: {exc}") from None
        cached = sorted(self.cache_dir.glob("snapshot-*.duckdb"))
        for old in cached[:-KEEP_CACHED_SNAPSHOTS]:
            if old != local:
                old.unlink(missing_ok=True)


def locate(paths: Paths, *, snapshot_url: str | None, cache_dir: Path) -> SnapshotInfo | None:
    """The snapshot a reader should use: from ``snapshot_url`` (``$GPUPRICES_SNAPSHOT_URL``)
    through the local ``cache_dir`` when set, else the local ``$GPUPRICES_HOME/published``.
    None if nothing was published. Raises SnapshotError."""
    if snapshot_url:
        return RemoteSnapshots(snapshot_url, cache_dir).current()
    return current(paths.published)
