"""Time and peak memory of a scrape of an oversized DataCrunch page (issue 15), each in a fresh
process: the 200k-row page in live markup (refused while streaming) and 200k rows without markup
(31.5 MB, under the size limit: refused by the table reader's row cap while parsing). The
measuring code is the one the tests run (tests/pipelines/test_hostile_input.py, which asserts
the outcome only); this prints its figures.

    uv run python benchmarks/hostile_input.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = "tests/pipelines/test_hostile_input.py"


def main() -> int:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", TESTS, "-k", "200k"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        if " rows (" in line:  # "<rows> rows (<markup>): {page_mb, status, seconds, peak_rss_mb}"
            print(line)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
