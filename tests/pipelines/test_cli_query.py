"""``gpuprices query`` answers like GET /instances; ``gpuprices status`` like GET /providers;
both stay readable at 80 columns and print CSV / TSV / JSON for pipes (issue 12 point 5)."""

from __future__ import annotations

import csv
import io
import json
import shutil

import duckdb
import pytest
from litestar.testing import TestClient

from api.app import create_app
from pipelines.cli import main
from warehouse.publish import POINTER, current

PROVIDERS = ("lambda", "datacrunch", "runpod", "modal", "nebius")
# Lambda's page (2026-01) and every spot price are past their shelf life in December 2026:
# the format tests list them with --include-expired (the default is tests/api/test_shelf_life)
EXPIRED = "--include-expired"


@pytest.fixture
def home(replayed_home, monkeypatch):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    monkeypatch.setenv("GPUPRICES_HOME", str(paths.home))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # rich sizes tables to the terminal width
    return paths


def test_query_json_matches_the_api(home, capsys):
    args = ["--gpu", "H100", "--min-gpus", "8", "--sort", "price_per_gpu", "--limit", "20"]
    assert main(["query", *args, EXPIRED, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    with TestClient(create_app(home.published)) as client:
        api = client.get(
            "/instances",
            params={
                "gpu": "H100",
                "min_gpus": 8,
                "sort": "price_per_gpu",
                "limit": 20,
                "include_expired": "true",
            },
        ).json()
    assert cli["total"] == api["total"] > 0 and cli["excluded"] == api["excluded"]
    assert [i["id"] for i in cli["items"]] == [i["id"] for i in api["items"]]
    lambda_h100 = next(i for i in cli["items"] if i["provider"] == "lambda")
    assert lambda_h100["price_per_hour_usd"] == pytest.approx(23.92)
    assert lambda_h100["price_per_gpu_hour_usd"] == pytest.approx(2.99)


def test_query_prints_a_table(home, capsys):
    args = ["query", "--provider", "lambda", "--gpu", "h100-sxm", EXPIRED, "--format", "table"]
    args.append("--wide")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "8x h100-sxm" in out
    assert "23.92" in out and "2.990" in out
    assert "of 1 offers" in out or "1 of 1" in out


def test_query_filters_serverless_and_pricing(home, capsys):
    assert main(["query", "--serverless", "--json", "--limit", "1000"]) == 0
    serverless = json.loads(capsys.readouterr().out)["items"]
    assert serverless and all(i["serverless"] for i in serverless)
    spot_args = ["--no-serverless", "--pricing", "spot", EXPIRED, "--json", "--limit", "1000"]
    assert main(["query", *spot_args]) == 0
    spot = json.loads(capsys.readouterr().out)["items"]
    assert spot and all(i["pricing"] == "spot" and not i["serverless"] for i in spot)


def test_query_rejects_a_bad_limit(home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["query", "--limit", "0"])
    assert exc.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_status_lists_every_provider_with_counts(home, capsys):
    assert main(["status", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    by_provider = {r["provider"]: r for r in body["items"]}
    assert set(PROVIDERS) <= set(by_provider)
    with TestClient(create_app(home.published)) as client:
        api = {r["provider"]: r for r in client.get("/providers").json()["items"]}
    for slug in PROVIDERS:
        assert by_provider[slug]["current_offer_count"] == api[slug]["current_offer_count"]
        assert by_provider[slug]["last_status"] == api[slug]["last_status"]
    assert by_provider["lambda"]["current_offer_count"] > 0

    assert main(["status", "--format", "table"]) == 0
    table = capsys.readouterr().out
    for slug in PROVIDERS:
        assert slug in table
    assert "snapshot " in table


def test_status_without_a_snapshot_fails_clearly(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    assert main(["status"]) == 1
    assert "no snapshot published yet" in capsys.readouterr().err


# --- terminals and pipes (issue 12 point 5) -----------------------------------------------------

QUERY_KEY_COLUMNS = ("provider", "instance", "GPUs", "VRAM", "$/GPU-h")
STATUS_KEY_COLUMNS = ("provider", "last run", "data from", "data", "last live", "offers")


def _header_line(out: str, first: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(first))


def _assert_fits(out: str, width: int) -> None:
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert not too_wide, f"{len(too_wide)} lines wider than {width}: {too_wide[:3]}"


@pytest.mark.parametrize(
    "filters",
    [
        [],
        ["--gpu", "h100", "--sort", "price_per_gpu"],
        ["--include-suspect", "--sort", "vram"],
        ["--serverless"],
        ["--pricing", "reserved"],
    ],
)
def test_query_table_was_unreadable_at_80_columns(home, capsys, monkeypatch, filters):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["query", "--format", "table", "--limit", "200", *filters]) == 0
    out = capsys.readouterr().out
    _assert_fits(out, 80)
    header = _header_line(out, "provider")
    for column in QUERY_KEY_COLUMNS:
        assert column in header.split(), (column, header)
    assert "instanc" not in out.replace("instance", "")  # no heading broken over lines


def _rows_of(out: str, provider: str) -> str:
    return "\n".join(line for line in out.splitlines() if line.startswith(provider + " "))


def test_query_table_at_80_columns_shows_the_lambda_h100(home, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    args = ["--format", "table", "--provider", "lambda", "--gpu", "h100-sxm", EXPIRED]
    assert main(["query", *args]) == 0
    out = capsys.readouterr().out
    _assert_fits(out, 80)
    row = _rows_of(out, "lambda")
    assert "8x h100-sxm" in row and "80" in row and "2.990" in row and "on-demand" in row


def test_query_wide_shows_every_column(home, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["query", "--format", "table", "--wide", "--provider", "lambda", EXPIRED]) == 0
    out = capsys.readouterr().out
    header = _header_line(out, "provider")
    for column in ("region", "$/h", "$/GPU-h", "$/GB-h", "observed"):
        assert column in header.split(), (column, header)
    assert "23.92" in out  # the instance price, only in the wide table


def test_status_table_was_unreadable_at_80_columns(home, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["status", "--format", "table"]) == 0
    out = capsys.readouterr().out
    _assert_fits(out, 80)
    header = _header_line(out, "provider")
    for column in STATUS_KEY_COLUMNS:
        assert column in header, (column, header)
    for slug in PROVIDERS:
        assert _rows_of(out, slug), slug


def test_a_pipe_gets_csv_that_the_csv_module_reads(home, capsys):
    # capsys' stdout is not a terminal: what `gpuprices query | ...` gets
    assert main(["query", "--gpu", "h100", "--sort", "price_per_gpu", "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "─" not in out and "│" not in out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 20
    for key in ("provider", "instance_type", "price_per_gpu_hour_usd"):
        assert all(row[key] for row in rows), key
    prices = [float(row["price_per_gpu_hour_usd"]) for row in rows]
    assert prices == sorted(prices)
    assert all(row["gpu_id"].startswith("h100") for row in rows if row["gpu_id"])
    # the rows without a model are family-level offers whose source states no form factor:
    # Massed Compute's "H100 (80GB)" card, Latitude.sh's g3.h100.small ("NVIDIA H100 80GB") and
    # GMI Cloud's "NVIDIA H100 GPU" card (its page names neither SXM nor PCIe)
    family_level = {"massedcompute", "latitude", "gmicloud"}
    assert {row["provider"] for row in rows if not row["gpu_id"]} <= family_level
    assert {row["data_origin"] for row in rows} <= {"live", "recorded", "curated"}
    assert all(row["observed_at"][:4].isdigit() for row in rows)  # ISO 8601


def test_csv_tsv_and_json_carry_the_same_offers(home, capsys):
    args = ["query", "--provider", "lambda", "--limit", "100", EXPIRED]
    assert main([*args, "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert main([*args, "--format", "csv"]) == 0
    csv_rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main([*args, "--format", "tsv"]) == 0
    tsv_rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out), delimiter="\t"))
    ids = [i["id"] for i in body["items"]]
    assert ids and [r["id"] for r in csv_rows] == ids == [r["id"] for r in tsv_rows]
    h100 = next(r for r in tsv_rows if r["gpu_id"] == "h100-sxm" and r["gpu_count"] == "8")
    assert float(h100["price_per_hour_usd"]) == pytest.approx(23.92)
    assert h100["vram_gb_usable"] == "80"


def test_wide_csv_has_every_api_field(home, capsys):
    assert main(["query", "--provider", "lambda", EXPIRED, "--format", "csv", "--wide"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main(["query", "--provider", "lambda", EXPIRED, "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert list(rows[0]) == list(items[0])


def test_status_pipe_formats_parse(home, capsys):
    assert main(["status"]) == 0  # not a terminal: CSV
    rows = {r["provider"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert set(PROVIDERS) <= set(rows)
    assert int(rows["lambda"]["current_offer_count"]) > 0
    assert rows["lambda"]["data_origin"] in {"live", "recorded", "curated"}
    assert main(["status", "--format", "tsv"]) == 0
    tsv = list(csv.DictReader(io.StringIO(capsys.readouterr().out), delimiter="\t"))
    assert [r["provider"] for r in tsv] == list(rows)
    assert main(["status", "--format", "json"]) == 0
    assert [r["provider"] for r in json.loads(capsys.readouterr().out)["items"]] == list(rows)


def test_status_lists_long_errors_below_the_table_at_80_columns(
    replayed_home, tmp_path, monkeypatch, capsys
):
    # a copy of the replayed snapshot in which lambda's last run failed with a long error
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    published = tmp_path / "published"
    published.mkdir()
    shutil.copyfile(info.path, published / info.path.name)
    shutil.copyfile(paths.published / POINTER, published / POINTER)
    error = "fetch failed: GET https://lambda.ai/pricing: " + "name resolution failed " * 8
    con = duckdb.connect(str(published / info.path.name))
    con.execute(
        "update provider_status set last_status = 'failed', last_error = ?, "
        "last_failure_at = last_recorded_load_at + interval 1 hour where provider = 'lambda'",
        [error],
    )
    con.close()
    monkeypatch.setenv("GPUPRICES_HOME", str(tmp_path))
    monkeypatch.delenv("GPUPRICES_SNAPSHOT_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["status", "--format", "table"]) == 0
    out = capsys.readouterr().out
    _assert_fits(out, 80)
    assert "failed" in _rows_of(out, "lambda")
    listed = out.split("last errors:", 1)[1]
    assert " ".join(listed.split()).startswith("lambda: fetch failed: GET https://lambda.ai/")
    assert main(["status", "--format", "csv"]) == 0
    rows = {r["provider"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["lambda"]["last_error"] == error and rows["lambda"]["last_status"] == "failed"
