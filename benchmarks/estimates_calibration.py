"""Throughput estimates against published measurements: the ratio table and its summary.

    uv run python benchmarks/estimates_calibration.py            # table + summary
    uv run python benchmarks/estimates_calibration.py --markdown # the rows docs/estimates.md shows
    uv run python benchmarks/estimates_calibration.py --bands    # warehouse.economics band table

Every point of ``docs/estimates_calibration.csv`` (a published max-throughput measurement with its
source URL and settings) is estimated with ``warehouse.economics.estimate_throughput`` on the
canonical GPU seed (``warehouse/seeds/gpus.csv``); ratio = estimate / measured output tokens/s.
The summary gives, for the whole set and split by GPU generation, precision and output length,
the share of points within 1.25x / 1.5x / 2x of the measurement (either side) and the median
and geometric-mean ratio. ``--bands`` prints the per-regime residual table that
``warehouse.economics.CALIBRATION_BANDS`` must equal (tests/warehouse/test_economics.py checks).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# run as a script: the project first (site-packages holds another package named "tests")
sys.path.insert(0, str(REPO))

from tests.support.calibration import (  # noqa: E402
    MARKDOWN_HEADER,
    bands,
    markdown_row,
    report,
    results,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--markdown", action="store_true", help="print the docs/estimates.md rows")
    mode.add_argument("--bands", action="store_true", help="print the CALIBRATION_BANDS literal")
    args = parser.parse_args(argv)
    found = results()
    if args.markdown:
        print(MARKDOWN_HEADER)
        for r in found:
            print(markdown_row(r))
        return 0
    if args.bands:
        print("CALIBRATION_BANDS: dict[tuple[str, str, str], tuple[int, float, float, float]] = {")
        for key, value in bands(found).items():
            quoted = ", ".join(f'"{part}"' for part in key)
            print(f"    ({quoted}): {value!r},")
        print("}")
        return 0
    print(report(found), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
