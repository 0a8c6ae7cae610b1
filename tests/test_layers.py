"""The layer rules of pyproject's ``[tool.importlinter]`` contracts hold (``lint-imports``):
pipelines may import scrapers and warehouse, api imports warehouse only, scrapers and warehouse
import neither each other nor anything above them, and no package's modules import in a cycle."""

from __future__ import annotations

import re
import shutil
import subprocess

from tests.conftest import REPO


def test_import_contracts_are_kept() -> None:
    lint = shutil.which("lint-imports")
    assert lint is not None, "import-linter is a dev dependency: uv sync --frozen"
    done = subprocess.run(
        [lint, "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout


def test_no_test_imports_benchmarks() -> None:
    # issue 23: 5 test files imported benchmarks/ scripts; the code both use is tests/support/
    # (the benchmarks are command lines over it)
    importing = sorted(
        path.relative_to(REPO).as_posix()
        for path in (REPO / "tests").rglob("*.py")
        if re.search(r"^\s*(from|import) benchmarks\b", path.read_text("utf-8"), flags=re.M)
    )
    assert importing == []
