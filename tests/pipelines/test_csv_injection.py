"""CSV formula injection (issue 27): cells starting with ``= + - @`` (and a tab or a carriage
return, per OWASP) were written verbatim by the API's CSV and every export. A Vast.ai answer
whose regions are formulas is ingested and published; every CSV writer then writes those cells
with a leading ``'`` (text), and a negative number stays a number."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import duckdb
import httpx
import pytest

from api.encoding import _cell
from pipelines.cli_output import write_delimited
from pipelines.export_common import csv_bytes
from pipelines.export_tables import export_tables
from pipelines.ingest import scrape_provider
from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS
from tests.support.seeded import seeded_warehouse
from warehouse.csv_cells import FORMULA_STARTS, inert, inert_sql
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.paths import Paths
from warehouse.publish import publish

FORMULAS = [
    '=HYPERLINK("http://x.invalid","a")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    "=1",  # (a tab or CR first: the parser strips a region; the rule's own test covers them)
]


def _is_formula(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return cell[:1] in FORMULA_STARTS
    return False


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1+cmd", "'+1+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-3.64", "-3.64"),
        ("+1e3", "+1e3"),
        ("us-east-1", "us-east-1"),
        ("", ""),
    ],
)
def test_owasp_rule_escapes_text_cells_and_keeps_numbers(cell: str, written: str) -> None:
    assert inert(cell) == written
    with duckdb.connect() as con:
        assert con.execute(f"select {inert_sql('c')} from (select ? as c)", [cell]).fetchone() == (
            written,
        )


@pytest.fixture
def published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded_template: Path) -> Paths:
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    offers = [
        {
            "id": i,
            "machine_id": i,
            "gpu_name": "H100 SXM",
            "num_gpus": 1,
            "gpu_ram": 81559,
            "dph_total": 2.25 + i / 100,
            "geolocation": region,
        }
        for i, region in enumerate(FORMULAS)
    ]
    body = json.dumps({"offers": offers}).encode()
    transport = httpx.MockTransport(
        lambda r: httpx.Response(200, content=body, headers={"content-type": "application/json"})
    )
    outcomes = scrape_provider(
        PROVIDERS["vast"], paths=paths, replay_dir=None, env={}, transport=transport
    )
    assert [o.status for o in outcomes] == ["success"]
    with Warehouse(paths.warehouse).connect() as con:
        rebuild(con)
        publish(con, paths.published)
    return paths


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def test_formula_regions_are_inert_in_every_csv_written(published: Paths, tmp_path: Path) -> None:
    snapshot = next(published.published.glob("snapshot-*.duckdb"))
    with duckdb.connect(str(snapshot), read_only=True) as con:
        rows = [
            {"region": region, "price": price}
            for region, price in con.execute(
                "select region, price_per_hour_usd from current_offers where provider = 'vast'"
            ).fetchall()
        ]
    assert sorted(r["region"] for r in rows) == sorted(FORMULAS)  # stored as the source said

    # gpuprices ... --format csv (cli_output), the interop exports (export_common), the API
    out = io.StringIO()
    write_delimited(rows, ["region", "price"], "csv", out)
    written = {
        "cli": _cells(out.getvalue()),
        "export": _cells(csv_bytes(["region"], [{"region": r["region"]} for r in rows]).decode()),
        "api": [_cell(r["region"]) for r in rows] + [_cell(-1)],
    }
    # gpuprices export --format csv (export_tables: DuckDB's COPY)
    from warehouse.publish import current

    info = current(published.published)
    assert info is not None
    files, _ = export_tables(info, "csv", tmp_path / "export", "current")
    written["tables"] = [c for path, _ in files for c in _cells(path.read_text(encoding="utf-8"))]
    for writer, cells in written.items():
        assert not [c for c in cells if _is_formula(c)], writer
        assert '\'=HYPERLINK("http://x.invalid","a")' in cells, writer
    assert "-1" in written["api"]  # a number stays a number
