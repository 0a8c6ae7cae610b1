"""The README stays true: its commands are the ones CI runs and its API examples answer."""

from __future__ import annotations

import re
import shlex
from urllib.parse import urlsplit

from litestar.testing import TestClient

from api.app import create_app
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _quickstart_blocks() -> list[str]:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)


def test_quickstart_has_exactly_two_commands_and_ci_runs_the_test_command():
    blocks = _quickstart_blocks()
    assert len(blocks) == 2
    assert all("\n" not in b for b in blocks)
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert blocks[1] in ci.splitlines()


def test_main_command_ingests_with_fallback_and_serves():
    main = _quickstart_blocks()[0]
    assert "gpuprices ingest" in main and "gpuprices serve" in main and "uv sync --frozen" in main


def test_dagster_dev_does_not_install_dev_packages_into_the_no_dev_environment():
    """The quickstart syncs with ``--no-dev``; a plain ``uv run`` re-syncs the default groups
    (19 dev packages). Every runtime command the README gives runs with ``--no-sync``."""
    runs = re.findall(r"uv run(?: --[\w-]+)* gpuprices [\w-]+", README)
    assert any("dagster-dev" in run for run in runs)
    assert [run for run in runs if "--no-sync" not in run] == []


def test_gpuhunt_recipe_names_both_catalog_variables():
    """Offline, gpuhunt needs GPUHUNT_CATALOG_URL as well as GPUHUNT_CATALOG_DIR (it loads its
    catalog before the first query); tests/pipelines/test_exports.py runs gpuhunt with both."""
    recipe = README.split("`export --format gpuhunt DIR`", 1)[1].split("`--format skypilot`")[0]
    assert "GPUHUNT_CATALOG_DIR=DIR" in recipe
    assert "GPUHUNT_CATALOG_URL=file://$PWD/DIR" in recipe
    assert "query(provider=" in recipe


def test_api_examples_answer(replayed_home):
    paths, _ = replayed_home
    urls = [shlex.split(line)[1] for line in README.splitlines() if line.startswith("curl ")]
    assert len(urls) >= 5
    with TestClient(create_app(paths.published)) as client:
        for url in urls:
            parts = urlsplit(url)
            response = client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
            assert response.status_code == 200, (url, response.text)
            body = response.json()
            if "items" in body and parts.path == "/instances":
                assert body["items"], f"{url} returned no offers"


def test_readme_test_command_says_it_needs_chromium_and_how_to_install_it():
    # issue 25: without Chromium tests/api/test_web_page.py errored 8 times; only .ci/run
    # installed it and the README never said so. The command itself installs it when missing
    assert "apt-get install -y -qq --no-install-recommends chromium" in _quickstart_blocks()[1]
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    after_test_command = section.split(_quickstart_blocks()[1], 1)[1]
    assert "tests/api/test_web_page.py" in after_test_command
    assert "`apt-get install -y chromium`" in after_test_command
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get install" in ci and "chromium" in ci


def test_ci_runs_the_checks_contributing_lists():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    checks = [
        "uv run ruff check .",
        "uv run ruff format --check .",
        "uv run pyright",
        "uv run lint-imports",
        "uv run dagster definitions validate",
    ]
    assert [line for line in ci if line in checks] == checks
    test_command = ci.index(_quickstart_blocks()[1])
    assert all(ci.index(check) > test_command for check in checks)  # after the README command
