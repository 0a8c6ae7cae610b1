"""``gpuprices --version``, ``--help`` for every option of every subcommand, and one-line
argument errors (issue 12 point 5: a bad ``serve --log-level`` printed a traceback)."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from importlib import metadata

import pytest

from pipelines.cli import build_parser, main


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"gpuprices {metadata.version('gpuprices')} ")
    assert "duckdb" in out and len(out.splitlines()) == 1


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_help_explains_every_option(command, capsys):
    parser = _subcommands()[command]
    unexplained = [
        "/".join(action.option_strings) or action.dest
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
        and (not action.help or action.help.strip().startswith("("))  # "(repeatable)" alone
    ]
    assert not unexplained, f"{command}: options without help: {unexplained}"
    assert parser.description, f"{command} has no description"
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: gpuprices {command}")


def test_a_bad_log_level_printed_a_traceback():
    # a real process: uvicorn used to raise KeyError('verbose') from its logging config
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "serve", "--log-level", "verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, lines
    assert "verbose" in lines[0] and "debug" in lines[0] and "--help" in lines[0]


def test_log_level_is_case_insensitive():
    args = build_parser().parse_args(["serve", "--log-level", "DEBUG"])
    assert args.log_level == "debug"


@pytest.mark.parametrize(
    "argv",
    [["bogus"], ["query", "--limit", "0"], ["query", "--format", "xml"], ["status", "--what"]],
)
def test_argument_errors_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and ": error: " in err, err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--port", "99999"], "port 99999 is outside 1-65535"),
        (["serve", "--port", "0"], "port 0 is outside 1-65535"),
        (["serve", "--port", "http"], "not a whole number"),
        (["dagster-dev", "--port", "70000"], "port 70000 is outside 1-65535"),
        (["serve", "--workers", "0"], "workers must be at least 1, not 0"),
    ],
)
def test_serve_port_99999_and_workers_0_are_refused(argv, says, capsys):
    # uvicorn listened on 99999 mod 65536 while printing 99999; --workers 0 was accepted
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def _bash_complete(script: str, words: list[str]) -> list[str]:
    line = " ".join(words)
    program = (
        f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
        f"COMP_LINE={shlex.quote(line)}; COMP_POINT={len(line)}; _shtab_gpuprices; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    run = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_shell_completion_completes_commands_and_options(capsys):
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert _bash_complete(script, ["gpuprices", "ing"]) == ["ingest"]
    assert _bash_complete(script, ["gpuprices", "serve", "--po"]) == ["--port"]
    assert "ingest" in _bash_complete(script, ["gpuprices", ""])
    for shell in ("zsh", "tcsh"):
        assert main(["completion", shell]) == 0
        assert "serve" in capsys.readouterr().out
