"""``gpuprices backfill``: imports the public history datasets into the warehouse and publishes a
snapshot (none when nothing changed and the current snapshot already holds the imports).
"""

from __future__ import annotations

import argparse
import sys

from pipelines.backfill import HISTORY_DIR_ENV, history_dir, run_backfill
from pipelines.cli_snapshot import load_settings
from warehouse.importers import IMPORTERS, DatasetError


def _backfill(args: argparse.Namespace) -> int:
    settings = load_settings()
    if settings is None:
        return 2
    folder = history_dir(args.dir or settings.history_dir)
    if not folder.is_dir():
        print(
            f"error: history directory {folder} does not exist (--dir or ${HISTORY_DIR_ENV})",
            file=sys.stderr,
        )
        return 2
    try:
        report = run_backfill(
            settings.paths(),
            folder,
            args.dataset,
            publish_snapshot=not args.no_publish,
            settings=settings,
        )
    except (KeyError, DatasetError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``backfill`` to the ``gpuprices`` parser (``export`` lives in cli_exports)."""
    parser = sub.add_parser(
        "backfill",
        help="import public price-history datasets into the warehouse",
        description="Imports " + ", ".join(IMPORTERS) + " from DIR/<dataset>/ (rows marked "
        "source='import:<dataset>'; importing twice changes nothing), then rebuilds the "
        "derived tables and publishes a snapshot, unless nothing changed and the current "
        "snapshot already holds the imports. Per dataset it prints what became of every row "
        "read: GPU resolved to a model, only to a family (gpu_family), unresolved, excluded.",
    )
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help=f"datasets folder (default: ${HISTORY_DIR_ENV}, else ../shared/history)",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        choices=sorted(IMPORTERS),
        help="only this dataset (repeatable)",
    )
    parser.add_argument(
        "--no-publish",
        action="store_true",
        help="import only; the next `gpuprices ingest` publishes",
    )
    parser.set_defaults(func=_backfill)
    return parser
