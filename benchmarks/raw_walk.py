"""Walking the raw archive: what retention and recovery pay once per provider in every ingest.

    uv run python benchmarks/raw_walk.py [--files 700 5000] [--repeat 50]

Builds an archive of ``--files`` bodies in the archive's own layout (``raw/ab/<sha>.gz``, 256
folders) in a temporary directory, then lists it (name and size of every ``*.gz``) the way
``warehouse.retention.prune_raw`` does (``os.scandir``) and the way it used to (``Path.glob``
per folder, ``is_symlink`` / ``is_file`` / ``stat`` per file). Prints milliseconds per walk.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from warehouse import retention


def _pathlib_files(raw_dir: Path, pattern: str) -> Iterator[Path]:
    """The former walk (before ``os.scandir``), for comparison."""
    for folder in raw_dir.iterdir():
        if folder.is_symlink() or not folder.is_dir():
            continue
        for path in folder.glob(pattern):
            if not path.is_symlink() and path.is_file():
                yield path


def _archive(raw_dir: Path, files: int) -> None:
    for i in range(files):
        digest = hashlib.sha256(str(i).encode()).hexdigest()
        (raw_dir / digest[:2]).mkdir(exist_ok=True)
        (raw_dir / digest[:2] / f"{digest}.gz").write_bytes(b"\x1f\x8b" + bytes(98))


def _time(walk: Callable[[], dict[str, int]], repeat: int) -> tuple[float, int]:
    started = time.perf_counter()
    found = {}
    for _ in range(repeat):
        found = walk()
    return (time.perf_counter() - started) / repeat * 1000, len(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[700, 5000])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    for files in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            raw_dir = Path(tmp)
            _archive(raw_dir, files)
            walks = {
                "scandir (retention)": lambda raw_dir=raw_dir: {
                    e.name: e.stat(follow_symlinks=False).st_size
                    for e in retention._archive_entries(raw_dir, "*.gz")
                },
                "Path.glob (before)": lambda raw_dir=raw_dir: {
                    p.name: p.stat().st_size for p in _pathlib_files(raw_dir, "*.gz")
                },
            }
            for name, walk in walks.items():
                ms, found = _time(walk, args.repeat)
                print(f"{files:>6} files  {name:<20} {ms:8.2f} ms per walk ({found} listed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
