"""The provider kit (``gpuprices new-provider``, issue 26): CONTRIBUTING.md's "Add a provider"
followed end to end in a copy of the tree, both scaffold kinds passing lint, types and the tests
that cover every registered provider; and the registry as the one source of a provider's name
and kind (the facts seed's columns are derived from it)."""

from __future__ import annotations

import csv
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines import kit
from pipelines.cli import main
from tests.conftest import REPO, SHARED

# the file takes about 40 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=40)

BIN = Path(sys.executable).parent
# how CONTRIBUTING's `uv run X` runs here: this environment's tools, never a new one
TOOLS = {
    "gpuprices": [sys.executable, "-m", "pipelines.cli"],
    "ruff": [sys.executable, "-m", "ruff"],
    "pyright": [str(BIN / "pyright")],
    "pytest": [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0"],
}
_SKIP = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache")


def _tree(tmp_path: Path) -> Path:
    """A copy of the repository beside a link to ../shared, as a checkout sits."""
    root = tmp_path / "repo"
    shutil.copytree(REPO, root, ignore=_SKIP)
    (tmp_path / "shared").symlink_to(SHARED)
    (root / ".venv").symlink_to(REPO / ".venv")  # pyright finds the environment as configured
    return root


def _run(root: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(root)}
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def _contributing_commands() -> list[list[str]]:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text[text.index("## Add a provider") :]
    block = re.search(r"```sh\n(?P<body>.*?)```", section, re.S)
    assert block is not None, "CONTRIBUTING's 'Add a provider' lost its commands"
    commands = []
    for line in block["body"].splitlines():
        for part in line.split("&&"):
            words = shlex.split(part)
            assert words[:2] == ["uv", "run"], part
            commands.append(TOOLS[words[2]] + words[3:])
    return commands


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tree(tmp_path_factory.mktemp("kit"))


def test_contributing_add_a_provider_passes_as_written(tree: Path) -> None:
    commands = _contributing_commands()
    assert commands[0][:4] == [*TOOLS["gpuprices"], "new-provider"]
    for argv in commands:
        done = _run(tree, argv)
        assert done.returncode == 0, f"{shlex.join(argv[2:])}:\n{done.stdout}\n{done.stderr}"
    registry = (tree / "scrapers/registry.py").read_text(encoding="utf-8")
    assert "    acme,\n" in registry and "    acme.PROVIDER,\n" in registry
    rows = {r["provider"]: r for r in csv.DictReader((tree / kit.FACTS_SEED).open())}
    assert (rows["acme"]["name"], rows["acme"]["kind"], rows["acme"]["verified"]) == (
        "Acme GPU",
        "cloud",
        "docs",
    )


def test_an_html_page_scaffold_of_a_marketplace_passes_too(tree: Path) -> None:
    scaffold = [*TOOLS["gpuprices"], "new-provider", "zeta", "--kind", "html-page"]
    done = _run(tree, [*scaffold, "--provider-kind", "marketplace", "--name", "Zeta Market"])
    assert done.returncode == 0, done.stderr
    files = [line for line in done.stdout.splitlines() if line.endswith(".py")]
    assert files == [
        "scrapers/zeta.py",
        "tests/scrapers/test_zeta.py",
        "tests/scrapers/unknown_rows/zeta.py",
        "scrapers/registry.py",
    ]
    for argv in (
        [*TOOLS["ruff"], "check", *files],
        [*TOOLS["ruff"], "format", "--check", *files],
        [*TOOLS["pyright"], *files],
        [*TOOLS["pytest"], "tests/scrapers/test_zeta.py", "tests/scrapers/test_unknown_rows.py",
         "tests/scrapers/test_contract.py", "-k", "zeta or registry or folder or docs"],
    ):  # fmt: skip
        run = _run(tree, argv)
        assert run.returncode == 0, f"{shlex.join(argv[2:])}:\n{run.stdout}\n{run.stderr}"


def test_a_bad_slug_is_a_one_line_error_and_writes_nothing(tmp_path: Path, capsys) -> None:
    root = _tree(tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())
    for argv in (
        ["new-provider", "Bad-Slug", "--kind", "json-api"],
        ["new-provider", "hetzner", "--kind", "json-api"],  # its files exist
        ["new-provider", "acme", "--kind", "json-api", "--homepage", "http://a.example"],
    ):
        assert main([*argv, "--root", str(root)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
    assert sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file()) == before


def test_the_registry_is_the_one_source_of_each_providers_name_and_kind() -> None:
    # Hetzner was a "marketplace" in Dagster and a "cloud" in the API (issue 26); the facts
    # seed's name and kind are derived (`gpuprices new-provider --sync-facts`)
    rows = {r["provider"]: r for r in csv.DictReader((REPO / kit.FACTS_SEED).open())}
    for slug, derived in kit.registered_names().items():
        assert tuple(rows[slug][c] for c in kit.DERIVED_COLUMNS) == derived, (
            f"{slug}: run `uv run gpuprices new-provider --sync-facts`"
        )


def test_sync_facts_sets_name_and_kind_from_the_registry_and_nothing_else(tmp_path) -> None:
    seed = tmp_path / kit.FACTS_SEED
    seed.parent.mkdir(parents=True)
    original = (REPO / kit.FACTS_SEED).read_text(encoding="utf-8")
    wrong = original.replace("hetzner,Hetzner,marketplace,capture,", "hetzner,Hetzner,cloud,docs,")
    assert wrong != original
    seed.write_text(wrong)
    assert kit.sync_facts(kit.registered_names(), tmp_path) == ["hetzner"]
    assert seed.read_text(encoding="utf-8") == original
    assert kit.sync_facts(kit.registered_names(), tmp_path) == []
