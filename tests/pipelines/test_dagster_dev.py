"""`gpuprices dagster-dev` on a fresh home (issue 12 §3): DAGSTER_HOME is created with the
project's dagster.yaml (telemetry off) and `dagster dev` starts from it on our definitions."""

from __future__ import annotations

import os
import threading

import pytest
import yaml

from pipelines import cli
from warehouse.paths import Paths


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


def test_concurrent_ingests_never_read_a_dagster_yaml_without_telemetry_off(tmp_path):
    # issue 27: one of 23 concurrent ingests ran with telemetry on; each process copied the
    # project's dagster.yaml over DAGSTER_HOME's in place (truncate, then write), and a process
    # that read it in between got an empty file, whose default is telemetry on
    paths = Paths(tmp_path / "home")
    target = paths.dagster_home / "dagster.yaml"
    cli._prepare_dagster_home(paths)
    stop = threading.Event()
    seen: list[str] = []

    def read() -> None:
        while not stop.is_set():
            seen.append(target.read_text(encoding="utf-8"))

    def rewrite(n: int) -> None:
        stale = target.with_name(f"stale-{n}")
        for _ in range(300):
            # an older copy (put in place whole), which each run then brings up to date
            stale.write_text("telemetry:\n  enabled: true\n", encoding="utf-8")
            os.replace(stale, target)
            cli._prepare_dagster_home(paths)

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=rewrite, args=(n,)) for n in range(2)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    texts = set(seen)
    assert "" not in texts  # never a truncated file
    assert len(texts) == 2  # the stale copy and the project's, whole
    assert yaml.safe_load(target.read_text())["telemetry"]["enabled"] is False
    assert not list(paths.dagster_home.glob(".*.tmp"))
