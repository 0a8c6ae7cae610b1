"""`gpuprices dagster-dev` on a fresh home (issue 12 §3): DAGSTER_HOME is created with the
project's dagster.yaml (telemetry off) and `dagster dev` starts from it on our definitions."""

from __future__ import annotations

import pytest
import yaml

from pipelines import cli


def test_a_fresh_home_gets_a_dagster_home_and_dagster_dev_starts_from_it(tmp_path, monkeypatch):
    home = tmp_path / "never-created"
    monkeypatch.setenv("GPUPRICES_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    # the command sets these for the process it becomes: restored after the test
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "before"))
    monkeypatch.setenv("PYTHONWARNINGS", "")
    started: list[tuple[str, list[str]]] = []

    class Exec(Exception):
        pass

    def fake_execv(path: str, argv: list[str]) -> None:
        started.append((path, argv))
        raise Exec

    monkeypatch.setattr(cli.os, "execv", fake_execv)
    with pytest.raises(Exec):
        cli.main(["dagster-dev", "--port", "3999"])
    [(path, argv)] = started
    assert path.endswith("/dagster")
    assert argv[:4] == ["dagster", "dev", "-m", "pipelines.definitions"]
    assert argv[-2:] == ["--port", "3999"]
    dagster_home = home / "dagster"
    config = yaml.safe_load((dagster_home / "dagster.yaml").read_text())
    assert config["telemetry"]["enabled"] is False
    assert cli.os.environ["DAGSTER_HOME"] == str(dagster_home)
    assert cli.os.getcwd() == str(dagster_home)  # no "dagster.yaml in the current folder" warning
