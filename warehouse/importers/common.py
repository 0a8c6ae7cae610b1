"""What every history importer shares: the result record, fingerprints, bookkeeping.

An import replaces all rows of its ``source`` ('import:<dataset>') in one transaction, so the
outcome depends only on the input files and the GPU name tables: importing twice changes
nothing. When the files, the name tables and the importer version are unchanged (same
fingerprint in ``history_imports``) nothing is written at all.

Every row an import reads has exactly one outcome, so the counts add up: its GPU resolved to
a model (``gpu_id`` set), or only to a family (``gpu_id`` null, ``gpu_family`` set), or not at
all (both null, counted per spelling), or the row was excluded (counted per reason).
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

from warehouse.gpus import ALIASES_CSV, GPUS_CSV
from warehouse.history import IMPORT_PREFIX
from warehouse.importers.families import FAMILIES_CSV

# What resolves GPU names: a change to any of them changes what an import writes.
NAME_TABLES: tuple[Path, ...] = (GPUS_CSV, ALIASES_CSV, FAMILIES_CSV)
_SHOWN_NAMES = 8


class DatasetError(RuntimeError):
    """The dataset's files are missing or not in a layout the importer knows."""


def _counts(counter: Counter[str], limit: int | None = None) -> str:
    """ "'H100' x12512, 'A100' x788": largest first, ties by name (stable across runs)."""
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{name} x{n}" for name, n in items[:limit])
    more = len(items) - len(items[:limit])
    return shown + (f" and {more} more" if more > 0 else "")


@dataclass
class ImportResult:
    """What one import read, wrote, left out (with reasons) and could not resolve.

    ``status`` is 'imported' (this run wrote the rows) or 'unchanged' (the fingerprint matched
    the import recorded at ``imported_at``; nothing was written and every other field is that
    import's record). ``rows_written`` is per table what the import in effect wrote, which is
    what the warehouse holds of this source.
    """

    dataset: str
    status: str = "imported"  # imported | unchanged
    files: int = 0
    rows_read: int = 0
    rows_written: dict[str, int] = field(default_factory=dict)
    excluded: Counter[str] = field(default_factory=Counter)
    unresolved_gpus: Counter[str] = field(default_factory=Counter)
    first_observed_at: datetime | None = None
    last_observed_at: datetime | None = None
    rows_to_model: int = 0
    rows_to_family: Counter[str] = field(default_factory=Counter)  # gpu_family -> rows
    excluded_parts: Counter[str] = field(default_factory=Counter)  # not rows: see summary()
    fingerprint: str = ""
    imported_at: datetime | None = None

    @property
    def source(self) -> str:
        return IMPORT_PREFIX + self.dataset

    @property
    def wrote(self) -> bool:
        """True when this run wrote rows (status 'imported')."""
        return self.status == "imported"

    def count_gpu(self, spelling: str, gpu_id: str | None, family: str | None, rows: int) -> None:
        """Record the outcome of ``rows`` kept rows naming the GPU ``spelling``."""
        if gpu_id is not None:
            self.rows_to_model += rows
        elif family is not None:
            self.rows_to_family[family] += rows
        else:
            self.unresolved_gpus[spelling] += rows

    def unaccounted(self) -> int:
        """Rows read that got no outcome (0 unless an importer's bookkeeping is broken)."""
        return self.rows_read - (
            self.rows_to_model
            + sum(self.rows_to_family.values())
            + sum(self.unresolved_gpus.values())
            + sum(self.excluded.values())
        )

    def summary(self) -> str:
        """One line for the CLI and the asset log: every row read has one outcome."""
        families = sum(self.rows_to_family.values())
        unresolved = sum(self.unresolved_gpus.values())
        excluded = sum(self.excluded.values())
        outcomes = [
            f"{self.rows_to_model} to a GPU model",
            f"{families} to a GPU family only"
            + (
                f" ({_counts(self.rows_to_family)}; gpu_id null, gpu_family set)"
                if families
                else ""
            ),
            f"{unresolved} unresolved"
            + (
                " (kept, gpu_id null: "
                + _counts(
                    Counter({repr(k): v for k, v in self.unresolved_gpus.items()}), _SHOWN_NAMES
                )
                + ")"
                if unresolved
                else ""
            ),
            f"{excluded} excluded" + (f" ({_counts(self.excluded)})" if excluded else ""),
        ]
        wrote = ", ".join(f"{n} {t} rows" for t, n in self.rows_written.items()) or "no rows"
        if self.wrote:
            parts = [
                f"{self.dataset}: imported",
                f"{self.files} files",
                f"{self.rows_read} rows read: " + ", ".join(outcomes),
                f"wrote {wrote}",
            ]
        else:
            when = f" at {self.imported_at:%Y-%m-%d %H:%M} UTC" if self.imported_at else ""
            parts = [
                f"{self.dataset}: unchanged ({self.files} files, GPU name tables and importer "
                f"version as imported{when})",
                "wrote nothing",
                f"the warehouse keeps that import's {wrote}",
                f"it read {self.rows_read} rows: " + ", ".join(outcomes),
            ]
        if self.unaccounted():
            parts.append(f"{self.unaccounted()} rows unaccounted for (importer bug)")
        if self.excluded_parts:
            parts.append("left out of kept rows: " + _counts(self.excluded_parts))
        if self.first_observed_at and self.last_observed_at:
            parts.append(
                f"{self.first_observed_at:%Y-%m-%d %H:%M} .. "
                f"{self.last_observed_at:%Y-%m-%d %H:%M} UTC"
            )
        return "; ".join(parts)


def fingerprint(paths: Sequence[Path], version: int) -> str:
    """sha256 over the importer version, every file's name and bytes, and the GPU name tables
    (``NAME_TABLES``: a new alias or family changes what the import writes)."""
    digest = hashlib.sha256(f"v{version}".encode())
    for path in sorted(paths):
        digest.update(path.name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for table in NAME_TABLES:
        digest.update(b"names:" + table.name.encode() + b"\0")
        digest.update(hashlib.sha256(table.read_bytes()).digest())
    return digest.hexdigest()


_COLUMNS = (
    "source",
    "fingerprint",
    "files",
    "rows_read",
    "rows_written",
    "excluded",
    "unresolved_gpus",
    "first_observed_at",
    "last_observed_at",
    "imported_at",
    "rows_to_model",
    "rows_to_family",
    "rows_by_table",
    "excluded_parts",
)


def previous(con: duckdb.DuckDBPyConnection, dataset: str, fp: str) -> ImportResult | None:
    """The recorded result if ``dataset`` was imported with fingerprint ``fp``, else None."""
    row = con.execute(
        f"select {', '.join(_COLUMNS)} from history_imports where source = ? and fingerprint = ?",
        [IMPORT_PREFIX + dataset, fp],
    ).fetchone()
    if row is None:
        return None
    r = dict(zip(_COLUMNS, row, strict=True))
    return ImportResult(
        dataset,
        "unchanged",
        files=r["files"],
        rows_read=r["rows_read"],
        rows_written=json.loads(r["rows_by_table"] or "{}") or {"rows": int(r["rows_written"])},
        excluded=Counter(json.loads(r["excluded"])),
        unresolved_gpus=Counter(json.loads(r["unresolved_gpus"])),
        first_observed_at=r["first_observed_at"],
        last_observed_at=r["last_observed_at"],
        rows_to_model=int(r["rows_to_model"] or 0),
        rows_to_family=Counter(json.loads(r["rows_to_family"] or "{}")),
        excluded_parts=Counter(json.loads(r["excluded_parts"] or "{}")),
        fingerprint=fp,
        imported_at=r["imported_at"],
    )


def held_imports(path: Path) -> dict[str, str] | None:
    """Source -> fingerprint of the imports the DuckDB file at ``path`` (a warehouse or a
    published snapshot) holds in ``history_imports``; None when it cannot be read."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        return dict(con.execute("select source, fingerprint from history_imports").fetchall())
    except duckdb.Error:
        return None
    finally:
        con.close()


def record(con: duckdb.DuckDBPyConnection, result: ImportResult, fp: str) -> None:
    """Store the result (inside the import's transaction).

    Raises RuntimeError when a row read got no outcome: the counts must add up.
    """
    if result.unaccounted():
        raise RuntimeError(f"{result.dataset}: {result.unaccounted()} rows without an outcome")
    result.fingerprint = fp
    result.imported_at = datetime.now(UTC)
    con.execute("delete from history_imports where source = ?", [result.source])
    con.execute(
        f"insert into history_imports ({', '.join(_COLUMNS)})"
        f" values ({', '.join('?' for _ in _COLUMNS)})",
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
            result.imported_at,
            result.rows_to_model,
            json.dumps(dict(sorted(result.rows_to_family.items()))),
            json.dumps(result.rows_written),
            json.dumps(dict(sorted(result.excluded_parts.items()))),
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
