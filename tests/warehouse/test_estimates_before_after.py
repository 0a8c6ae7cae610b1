"""benchmarks/estimates_before_after.py: the before/after table of issue 24's closing note."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

SCRIPT = REPO / "benchmarks" / "estimates_before_after.py"


def _worktrees() -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), "worktree", "list"], capture_output=True, text=True, check=True
    ).stdout


def test_a_commit_against_itself_changes_nothing_and_leaves_no_worktree() -> None:
    # two checkouts of HEAD (not the working tree, which may hold edits): every per-GPU
    # median and every grid cell compares equal, and both temporary checkouts are gone after
    before = _worktrees()
    command = [sys.executable, str(SCRIPT), "--rev", "HEAD", "--after-rev", "HEAD"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    gpu_rows = [line.split(" | ") for line in lines if line.startswith(("h100-sxm |", "b200 |"))]
    assert len(gpu_rows) == 4  # both GPUs, all points and MLPerf points
    assert all(row[2] == row[3] for row in gpu_rows)
    summaries = [line.split(": ", 1)[1] for line in lines if line.startswith(("before:", "after:"))]
    assert len(summaries) == 4 and summaries[0] == summaries[1] and summaries[2] == summaries[3]
    grid = [line.split(" | ") for line in lines if line.startswith("h100-sxm/fp8 |")]
    assert grid and grid[0][2:] == ["1.000", "1.00", "1.00"]
    assert _worktrees() == before
