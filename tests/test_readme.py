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
