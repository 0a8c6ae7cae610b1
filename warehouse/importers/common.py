"""What every history importer shares: the result record, fingerprints, bookkeeping.

An import replaces all rows of its ``source`` ('import:<dataset>') in one transaction, so the
outcome depends only on the input files: importing twice changes nothing. When the files and
the importer version are unchanged (same fingerprint in ``history_imports``) nothing is
written at all.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse.history import IMPORT_PREFIX


class DatasetError(RuntimeError):
    """The dataset's files are missing or not in a layout the importer knows."""


@dataclass
class ImportResult:
    """What one import read, wrote, left out (with reasons) and could not resolve."""

    dataset: str
    status: str = "imported"  # imported | unchanged
    files: int = 0
    rows_read: int = 0
    rows_written: dict[str, int] = field(default_factory=dict)
    excluded: Counter[str] = field(default_factory=Counter)
    unresolved_gpus: Counter[str] = field(default_factory=Counter)
    first_observed_at: datetime | None = None
    last_observed_at: datetime | None = None

    @property
    def source(self) -> str:
        return IMPORT_PREFIX + self.dataset

    def summary(self) -> str:
        """One line for the CLI and the asset log."""
        written = ", ".join(f"{n} {t}" for t, n in self.rows_written.items()) or "nothing"
        parts = [
            f"{self.dataset}: {self.status}",
            f"{self.files} files",
            f"{self.rows_read} rows read",
            f"wrote {written}",
        ]
        if self.excluded:
            parts.append(
                "excluded " + ", ".join(f"{n} {why}" for why, n in sorted(self.excluded.items()))
            )
        if self.unresolved_gpus:
            rows = sum(self.unresolved_gpus.values())
            names = ", ".join(f"{name!r} x{n}" for name, n in self.unresolved_gpus.most_common(8))
            more = len(self.unresolved_gpus) - 8
            parts.append(
                f"{rows} rows with unresolved GPU names (kept, gpu_id null): {names}"
                + (f" and {more} more" if more > 0 else "")
            )
        if self.first_observed_at and self.last_observed_at:
            parts.append(
                f"{self.first_observed_at:%Y-%m-%d %H:%M} .. "
                f"{self.last_observed_at:%Y-%m-%d %H:%M} UTC"
            )
        return "; ".join(parts)


def fingerprint(paths: Sequence[Path], version: int) -> str:
    """sha256 over the importer version and every file's name and bytes."""
    digest = hashlib.sha256(f"v{version}".encode())
    for path in sorted(paths):
        digest.update(path.name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def previous(con: duckdb.DuckDBPyConnection, dataset: str, fp: str) -> ImportResult | None:
    """The recorded result if ``dataset`` was imported with fingerprint ``fp``, else None."""
    row = con.execute(
        "select files, rows_read, rows_written, excluded, unresolved_gpus, first_observed_at,"
        " last_observed_at from history_imports where source = ? and fingerprint = ?",
        [IMPORT_PREFIX + dataset, fp],
    ).fetchone()
    if row is None:
        return None
    return ImportResult(
        dataset,
        "unchanged",
        row[0],
        row[1],
        {"rows": int(row[2])},
        Counter(json.loads(row[3])),
        Counter(json.loads(row[4])),
        row[5],
        row[6],
    )


def record(con: duckdb.DuckDBPyConnection, result: ImportResult, fp: str) -> None:
    """Store the result (inside the import's transaction)."""
    con.execute("delete from history_imports where source = ?", [result.source])
    con.execute(
        "insert into history_imports values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            result.source,
            fp,
            result.files,
            result.rows_read,
            sum(result.rows_written.values()),
            json.dumps(dict(sorted(result.excluded.items()))),
            json.dumps(dict(sorted(result.unresolved_gpus.items()))),
            result.first_observed_at,
            result.last_observed_at,
            datetime.now(UTC),
        ],
    )


def require_files(folder: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` in ``folder``, sorted; DatasetError if there are none."""
    if not folder.is_dir():
        raise DatasetError(f"dataset folder {folder} does not exist")
    found = sorted(p for p in folder.glob(pattern) if p.is_file())
    if not found:
        raise DatasetError(f"no {pattern} files in {folder}")
    return found
