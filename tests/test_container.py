"""The Dockerfile (issue 25: a container image for the API and the pipeline) parses and names
only what exists: files it copies, the console script and subcommands it runs, the health route.
It is not built here (no registry access); this keeps it from rotting while the code moves."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import tomllib

from dockerfile_parse import DockerfileParser

from pipelines.cli import build_parser
from tests.conftest import REPO

DOCKERFILE = REPO / "Dockerfile"


def _parser() -> DockerfileParser:
    parser = DockerfileParser(path=str(DOCKERFILE.parent))  # reads, never writes, the file
    parser.content  # noqa: B018 (parsed once here: a missing file fails now)
    return parser


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _runs_gpuprices(argv: list[str]) -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert argv[0] in scripts, argv
    command, *options = argv[1:]
    sub = _subcommands()[command]
    sub.parse_args(options)  # every option it passes exists and its value is valid


def test_dockerfile_parses_and_builds_on_python_311() -> None:
    parser = _parser()
    assert parser.baseimage.startswith("python:3.11")
    froms = [i["value"] for i in parser.structure if i["instruction"] == "FROM"]
    assert all(f.startswith("python:3.11") for f in froms) and len(froms) == 2
    runs = " ".join(i["value"] for i in parser.structure if i["instruction"] == "RUN")
    assert "uv sync --frozen --no-dev" in runs  # the lock file, runtime dependencies only


def test_dockerfile_copies_only_files_that_exist() -> None:
    for item in _parser().structure:
        if item["instruction"] != "COPY" or "--from=" in item["value"]:
            continue
        *sources, _target = shlex.split(item["value"])
        for source in sources:
            assert (REPO / source).exists(), f"COPY {source}: no such file in the repo"


def test_dockerfile_runs_existing_entry_points() -> None:
    parser = _parser()
    cmd = next(i["value"] for i in parser.structure if i["instruction"] == "CMD")
    _runs_gpuprices(json.loads(cmd))
    assert parser.envs["GPUPRICES_HOME"] == "/data"
    # the commands its header documents run real subcommands with real options
    documented = re.findall(
        r"^# +docker run .*? gpuprices (gpuprices [^#\n]*?)\s*(?:#|$)",
        DOCKERFILE.read_text(),
        flags=re.M,
    )
    assert len(documented) >= 2
    for line in documented:
        _runs_gpuprices(shlex.split(line))


def test_dockerfile_healthcheck_asks_the_health_route() -> None:
    check = next(i["value"] for i in _parser().structure if i["instruction"] == "HEALTHCHECK")
    assert "http://127.0.0.1:8000/health" in check
