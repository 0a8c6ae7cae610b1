"""One settings module: README's table is its output, every ``GPUPRICES_*`` name the code and
docs mention is one of its variables, a bad value is one line naming the variable, and the
Dagster resource and the CLI are built from it."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pipelines import cli
from pipelines.defs.resources import GpupricesResource
from scrapers import http as scraper_http
from tests.conftest import REPO
from warehouse.settings import SettingError, Settings, env_var
from warehouse.settings_table import settings_table

README = (REPO / "README.md").read_text(encoding="utf-8")
VARIABLES = {env_var(name) for name in Settings.model_fields} - {"XDG_DATA_HOME"}
# read by the test suite itself, never by gpuprices
TEST_ONLY = {"GPUPRICES_UPDATE_SCREENSHOT"}


def test_readme_table_is_the_settings_class() -> None:
    table = README.split("<!-- generated: warehouse.settings_table.settings_table()", 1)[1]
    table = table.split("-->\n", 1)[1].split("\n<!-- end of generated table -->", 1)[0]
    assert table == settings_table(), (
        "README's settings table is out of date: paste the output of "
        "uv run python -c 'from warehouse.settings_table import settings_table;"
        " print(settings_table())'"
    )
    # 25 + the API server limits and held_snapshots (issue 15) + 6 shelf lives (issue 21)
    assert len(VARIABLES) == 39


def test_every_variable_named_in_code_and_docs_is_a_setting() -> None:
    files = [REPO / "README.md", *(REPO / "docs").glob("*.md")]
    for package in ("scrapers", "pipelines", "warehouse", "api", "benchmarks", "tests/support"):
        files += (REPO / package).rglob("*.py")
    named = {
        (m, path.relative_to(REPO).as_posix())
        for path in files
        for m in re.findall(r"GPUPRICES_[A-Z_]*[A-Z](?![A-Z_*])", path.read_text("utf-8"))
    }
    unknown = sorted((m, where) for m, where in named if m not in VARIABLES | TEST_ONLY)
    assert not unknown


def test_defaults_agree_with_the_fetch_limits() -> None:
    s = Settings.load({})
    assert s.max_response_mb * 1024 * 1024 == scraper_http.MAX_RESPONSE_BYTES
    assert s.request_deadline_s == scraper_http.REQUEST_DEADLINE_S
    assert s.provider_deadline_s == scraper_http.PROVIDER_DEADLINE_S


def test_values_are_typed_and_an_empty_value_is_unset(tmp_path) -> None:
    s = Settings.load(
        {
            "GPUPRICES_HOME": str(tmp_path),
            "GPUPRICES_PRICE_JUMP_FACTOR": "12.5",
            "GPUPRICES_RECORDED_FALLBACK": "0",
            "GPUPRICES_CORS_ORIGINS": "https://a.example, https://b.example,",
            "GPUPRICES_EXECUTOR": "multiprocess",
            "GPUPRICES_MAX_CONCURRENT": "3",
            "GPUPRICES_RAW_MAX_MB": "",
        }
    )
    assert s.paths().home == tmp_path.resolve()
    assert s.price_jump_factor == Decimal("12.5")
    assert s.recorded_fallback is False
    assert s.cors_origins == ("https://a.example", "https://b.example")
    assert s.parallelism() == 3
    assert s.raw_max_mb == 1024
    assert Settings.load({}).parallelism() is None
    assert Settings.load({}, stale_after_days=7).stale_after_days == 7
    assert Settings.load({"XDG_DATA_HOME": str(tmp_path)}).paths().home == tmp_path / "gpuprices"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"GPUPRICES_PRICE_JUMP_FACTOR": "1"}, "GPUPRICES_PRICE_JUMP_FACTOR='1': input should be"),
        ({"GPUPRICES_PRICE_JUMP_FACTOR": "nan"}, "GPUPRICES_PRICE_JUMP_FACTOR='nan'"),
        ({"GPUPRICES_STALE_AFTER_HOURS": "inf"}, "GPUPRICES_STALE_AFTER_HOURS='inf'"),
        ({"GPUPRICES_STALE_AFTER_DAYS": "-1"}, "GPUPRICES_STALE_AFTER_DAYS='-1'"),
        ({"GPUPRICES_EXECUTOR": "celery"}, "'in_process' or 'multiprocess'"),
        ({"GPUPRICES_MAX_CONCURRENT": "0"}, "GPUPRICES_MAX_CONCURRENT='0'"),
        ({"GPUPRICES_MAX_OFFERS_PER_SCRAPE": "1.5"}, "GPUPRICES_MAX_OFFERS_PER_SCRAPE='1.5'"),
        ({"GPUPRICES_RECORDED_FALLBACK": "maybe"}, "GPUPRICES_RECORDED_FALLBACK='maybe'"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(env, expected) -> None:
    with pytest.raises(SettingError) as raised:
        Settings.load(env)
    message = str(raised.value)
    assert expected in message and "\n" not in message


def test_a_secret_is_never_shown() -> None:
    with pytest.raises(SettingError) as raised:
        Settings.load({}, admin_token=12345)  # not a string: the one way a token can be wrong
    assert "admin_token" in str(raised.value) and "12345" not in str(raised.value)
    s = Settings.load({"GPUPRICES_ADMIN_TOKEN": "s3cret"})
    assert "s3cret" not in repr(s) and s.admin_token_value() == "s3cret"


def test_the_resource_carries_every_pipeline_setting(tmp_path, monkeypatch) -> None:
    pipeline = {
        name
        for name, field in Settings.model_fields.items()
        if isinstance(field.json_schema_extra, dict)
        and field.json_schema_extra.get("read_by") in ("pipeline", "all")
    }
    launch = {"executor", "max_concurrent"}  # how `gpuprices ingest` launches the job
    assert set(GpupricesResource.model_fields) == pipeline - launch
    monkeypatch.setenv("GPUPRICES_RAW_KEEP_SCRAPES", "7")
    monkeypatch.setenv("GPUPRICES_PUBLISH_URL", "file:///nowhere")
    resource = GpupricesResource(home=str(tmp_path), raw_keep_scrapes=3, replay_dir="")
    settings = resource.settings()
    assert settings.raw_keep_scrapes == 3  # the field wins over the variable
    assert resource.remote_publish_url() == "file:///nowhere"  # an unset field: the variable
    assert resource.replay() is None and resource.paths().home == tmp_path.resolve()
    monkeypatch.setenv("GPUPRICES_CLOCK_SKEW_S", "soon")
    with pytest.raises(SettingError, match="GPUPRICES_CLOCK_SKEW_S='soon'"):
        resource.settings()


def test_cli_stops_on_a_bad_setting_with_one_line(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GPUPRICES_RESPONSE_CACHE_BYTES", "lots")
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: GPUPRICES_RESPONSE_CACHE_BYTES='lots': ")
    assert err.count("\n") == 1


def test_nothing_below_the_entry_points_reads_the_environment() -> None:
    """The warehouse and the API read no variable; in pipelines only the CLI (which exports the
    home it resolved) and the provider tokens at fetch time (``pipelines.credentials.token_for``,
    whose default the ingest passes on)."""
    allowed = {"pipelines/cli.py", "pipelines/ingest.py", "pipelines/credentials.py"}
    found = []
    for package in ("warehouse", "api", "pipelines", "scrapers"):
        for path in (REPO / package).rglob("*.py"):
            where = path.relative_to(REPO).as_posix()
            text = path.read_text(encoding="utf-8")
            if re.search(r"os\.environ|getenv\(|environ\.get\(", text) and where not in allowed:
                found.append(where)
    assert not found
