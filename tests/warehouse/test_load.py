"""Loader and history semantics: atomic scrapes, change intervals, not-seen-is-not-gone."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.support.seeded import seeded_warehouse
from warehouse import units
from warehouse.derive import rebuild
from warehouse.load import (
    LoadError,
    archive_body,
    commit_scrape,
    fail_scrape,
    offer_id,
    prepare,
    read_body,
    start_scrape,
)
from warehouse.records import ScrapedOffer

T0 = datetime(2026, 1, 9, 10, 39, tzinfo=UTC)
T1 = datetime(2026, 2, 9, tzinfo=UTC)
T2 = datetime(2026, 3, 9, tzinfo=UTC)


def offer(
    instance_type: str,
    price: str,
    *,
    provider: str = "lambda",
    gpu: str = "NVIDIA H100 SXM",
    count: int = 8,
    when: datetime = T0,
    currency: str = "USD",
    unit: str = "hour",
    per: str = "gpu",
) -> dict:
    return {
        "provider": provider,
        "instance_type": instance_type,
        "region": "global",
        "gpu_name": gpu,
        "gpu_count": Decimal(count),
        "vram_gb_reported": Decimal(80),
        "vcpus": None,
        "ram_gb": None,
        "storage_gb": None,
        "pricing": "on_demand",
        "reserved_term_months": None,
        "price": Decimal(price),
        "currency": currency,
        "price_unit": unit,
        "price_per": per,
        "serverless": False,
        "source_url": "https://lambda.ai/pricing",
        "observed_at": when,
    }


@pytest.fixture()
def con(tmp_path, seeded_template):
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as c:
        yield c


def scrape(con, sid: str, when: datetime, offers: list[dict], provider: str = "lambda") -> dict:
    assert start_scrape(
        con, scrape_id=sid, provider=provider, run_id="r", mode="replay", source="test", fetches=[]
    )
    rows, validation = prepare(con, [ScrapedOffer(**o) for o in offers])
    assert validation.ok, validation.problems()
    return commit_scrape(con, scrape_id=sid, provider=provider, observed_at=when, rows=rows)


def history(con) -> list[tuple]:
    return con.execute(
        "select instance_type, price, valid_from, valid_to from offer_history"
        " order by instance_type, valid_from"
    ).fetchall()


def test_offer_id_is_stable_and_distinguishes_pricing():
    a = offer_id("lambda", "gpu_8x_h100_sxm", "global", "on_demand", None)
    assert a == offer_id("lambda", "gpu_8x_h100_sxm", "global", "on_demand", None)
    assert a != offer_id("lambda", "gpu_8x_h100_sxm", "global", "reserved", 12)
    assert len(a) == 16


def test_normalised_prices(con):
    rows, validation = prepare(con, [ScrapedOffer(**offer("8x", "2.99"))])
    assert validation.ok
    assert rows[0].gpu_id == "h100-sxm"
    assert rows[0].price_per_hour_usd == Decimal("23.920000")


def test_a_per_gpu_quote_is_stored_per_gpu_and_per_instance_with_no_division(con, monkeypatch):
    # Voltage Park's HGX H100 (pricing page): 8 GPUs at $2.49 per GPU-hour
    def no_division(*args):
        raise AssertionError("a per-GPU quote was divided by its GPU count")

    monkeypatch.setattr(units, "share_per_gpu_usd", no_division)
    voltage = offer(
        "On-demand, 3200 Gbps Infiniband", "2.49", provider="voltagepark", gpu="HGX H100"
    )
    rows, validation = prepare(con, [ScrapedOffer(**voltage)])
    assert validation.ok, validation.problems()
    assert str(rows[0].price_per_gpu_hour_usd) == "2.490000"
    assert str(rows[0].price_per_hour_usd) == "19.920000"
    assert start_scrape(
        con, scrape_id="vp", provider="voltagepark", run_id="r", mode="replay", source="t",
        fetches=[],
    )  # fmt: skip
    commit_scrape(con, scrape_id="vp", provider="voltagepark", observed_at=T0, rows=rows)
    for table in ("observations", "offer_history"):
        stored = con.execute(
            f"select price_per_gpu_hour_usd::varchar, price_per_hour_usd::varchar from {table}"
        ).fetchall()
        assert stored == [("2.490000", "19.920000")], table


def test_a_per_instance_quote_is_stored_per_gpu_divided_once(con):
    rows, _ = prepare(con, [ScrapedOffer(**offer("2x", "4.561301", count=2, per="instance"))])
    # 4.561301 / 2 = 2.2806505, a tie rounded as SQL rounded it before migration 0012
    assert rows[0].price_per_gpu_hour_usd == Decimal("2.280651")


def test_eur_prices_are_converted_with_a_dated_rate(con):
    rows, _ = prepare(
        con,
        [
            ScrapedOffer(
                **offer(
                    "auction-1",
                    "730",
                    provider="hetzner",
                    gpu="RTX 4090",
                    count=1,
                    currency="EUR",
                    unit="month",
                    per="instance",
                )
            )
        ],
    )
    row = rows[0]
    assert row.price_per_hour == Decimal("1.000000")
    assert row.usd_per_unit > 1  # EUR was worth more than a dollar at every seeded date
    assert row.price_per_hour_usd == (Decimal(1) * row.usd_per_unit).quantize(Decimal("0.000001"))
    assert row.fx_rate_date is not None and row.fx_rate_date <= T0.date()


def test_validation_reports_unresolved_gpus_and_bad_prices(con):
    _, validation = prepare(
        con,
        [ScrapedOffer(**offer("a", "0")), ScrapedOffer(**offer("b", "1", gpu="Quantum Flux 9000"))],
    )
    assert not validation.ok
    problems = " ".join(validation.problems())
    assert "price <= 0" in problems and "Quantum Flux 9000" in problems


def test_two_prices_for_one_offer_in_one_scrape_is_an_error(con):
    with pytest.raises(LoadError, match="two different prices"):
        prepare(con, [ScrapedOffer(**offer("8x", "2.99")), ScrapedOffer(**offer("8x", "3.99"))])


def test_unchanged_rescrape_writes_no_history(con):
    scrape(con, "s0", T0, [offer("8x", "2.99"), offer("1x", "3.29", count=1)])
    before = history(con)
    scrape(con, "s1", T1, [offer("8x", "2.99", when=T1), offer("1x", "3.29", count=1, when=T1)])
    assert history(con) == before
    assert len(before) == 2


def test_price_change_closes_and_opens_an_interval(con):
    scrape(con, "s0", T0, [offer("8x", "2.99")])
    scrape(con, "s1", T1, [offer("8x", "3.49", when=T1)])
    rows = history(con)
    assert [(r[1], r[2], r[3]) for r in rows] == [
        (Decimal("2.990000"), T0, T1),
        (Decimal("3.490000"), T1, None),
    ]


def test_offer_missing_from_a_successful_scrape_is_closed(con):
    scrape(con, "s0", T0, [offer("8x", "2.99"), offer("1x", "3.29", count=1)])
    scrape(con, "s1", T1, [offer("8x", "2.99", when=T1)])
    closed = [r for r in history(con) if r[0] == "1x"]
    assert closed == [("1x", Decimal("3.290000"), T0, T1)]


def test_failed_scrape_keeps_intervals_open_and_last_good_data_current(con):
    scrape(con, "s0", T0, [offer("8x", "2.99")])
    assert start_scrape(
        con, scrape_id="s1", provider="lambda", run_id="r", mode="live", source="live", fetches=[]
    )
    fail_scrape(con, "s1", "parse failed: layout changed")
    assert history(con)[0][3] is None
    rebuild(con)
    current = con.execute(
        "select instance_type, price_per_hour_usd from current_offers where provider = 'lambda'"
    ).fetchall()  # + curated serverless tiers
    assert current == [("8x", Decimal("23.920000"))]
    status = con.execute("select last_status, last_error from provider_status").fetchone()
    assert status == ("failed", "parse failed: layout changed")


def test_a_successful_scrape_is_not_loaded_twice(con):
    scrape(con, "s0", T0, [offer("8x", "2.99")])
    assert not start_scrape(
        con,
        scrape_id="s0",
        provider="lambda",
        run_id="r2",
        mode="replay",
        source="test",
        fetches=[],
    )


def test_raw_bodies_are_stored_once(con, tmp_path):
    raw = tmp_path / "raw"
    a = archive_body(con, raw, b"<html>same</html>", "text/html", T0)
    b = archive_body(con, raw, b"<html>same</html>", "text/html", T1)
    assert a == b
    assert con.execute("select count(*) from raw_responses").fetchone()[0] == 1
    assert read_body(raw, a) == b"<html>same</html>"


def test_ambiguous_gpu_name_resolves_to_family_never_nothing(con):
    """A row whose name fits several models even with its facts loads with gpu_id null and the
    family those facts allow, never with nothing: the real CoreWeave 2026 row as printed
    ("NVIDIA A100", 80 GB, 8 GPUs; the form factor left out) is the 80 GB SXM or PCIe A100, so
    gpu_family a100-80gb; without a memory size "A100" is family a100; "H100 NVLink" h100. A
    form word of the instance type is a fact of the row too, and a name the seed does not
    know stays unresolved (and reported)."""
    base = offer("8x", "21.60", gpu="NVIDIA A100", count=8, per="instance")
    cases = {
        "8x": base,
        "unsized": {**base, "instance_type": "A100", "vram_gb_reported": None},
        "h100": {**base, "instance_type": "h100", "gpu_name": "H100 NVLink"},
        "sxm4-node": {**base, "instance_type": "gpu_8x_a100_80gb_sxm4"},
        "pcie-stated": {**base, "instance_type": "pcie-stated", "gpu_form_factor": "PCIe"},
        "clash": {**base, "instance_type": "a100 sxm4", "gpu_form_factor": "PCIe"},
        "unknown": {**base, "instance_type": "unknown", "gpu_name": "Quantum Widget 9000"},
    }
    rows, validation = prepare(con, [ScrapedOffer(**o) for o in cases.values()])
    got = {r.instance_type: (r.gpu_id, r.gpu_family) for r in rows}
    assert got == {
        "8x": (None, "a100-80gb"),
        "A100": (None, "a100"),
        "h100": (None, "h100"),
        "gpu_8x_a100_80gb_sxm4": ("a100-80gb-sxm", None),
        "pcie-stated": ("a100-80gb-pcie", None),
        "a100 sxm4": (None, "a100-80gb"),  # two statements that disagree state nothing
        "unknown": (None, None),
    }
    assert sorted(validation.unresolved_gpus) == sorted(
        ["NVIDIA A100", "NVIDIA A100", "H100 NVLink", "NVIDIA A100", "Quantum Widget 9000"]
    )


def test_conversion_error_at_insert_is_a_range_problem_not_the_rollbacks_error(tmp_path) -> None:
    """Issue 27: a value DuckDB cannot cast at insert (past every check) failed the scrape with
    "TransactionException: Current transaction is aborted"; it is a VALUE_OUT_OF_RANGE load
    error naming the value, and the connection works on."""
    import duckdb as _duckdb

    from warehouse.db import transaction
    from warehouse.load import LoadError
    from warehouse.problems import ProblemCode
    from warehouse.ranges import CONVERSION_ERRORS, conversion_problem

    con = _duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("create table t (x decimal(10, 4))")
    with pytest.raises(CONVERSION_ERRORS) as raised, transaction(con):
        con.execute("insert into t values (?::decimal(38, 4))", [10**12])
    problem = conversion_problem(raised.value)
    assert problem.code is ProblemCode.VALUE_OUT_OF_RANGE
    assert problem.detail.startswith("value out of range: Conversion Error:")
    assert isinstance(LoadError(problem.detail, problem.code), Exception)
    with transaction(con):
        con.execute("insert into t values (1)")
    assert con.execute("select count(*) from t").fetchone() == (1,)
