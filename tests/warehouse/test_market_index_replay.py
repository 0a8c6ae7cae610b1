"""market_index on the replayed captures (tests/conftest.py: every capture replayed, published):
it moves on the price changes a person reads off them and on nothing else.

Read off the captures (h100-sxm on-demand, USD per GPU-hour):
- Lambda 8x H100 SXM: $20.72 per instance-hour = $2.59 per GPU-hour on 2023-09-09, "$2.99 / GPU
  / hr" on 2024-11-03 (the only capture of that day); its 1x/2x/4x are new on 2024-11-03.
- RunPod H100 SXM: $4.49 (secure) and $4.09 (community) on 2023-09-29, $2.99 and $2.69 in the
  GraphQL capture of 2025-06-15 10:27; secure $3.49 and community $2.69 on 2026-09-01, the
  secure one unlisted in between (2025-09-09 on).
- Hyperstack H100 SXM: $2.40 on 2025-07-24, $3.20 on c2026-09 (replayed as 2026-09-01).
"""

from __future__ import annotations

import math
import re
from datetime import date

import pytest

from tests.conftest import REPO
from warehouse.publish import current, load_into_memory


@pytest.fixture(scope="module")
def con(replayed_home):
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    connection = load_into_memory(info)
    yield connection
    connection.close()


def _index(con, gpu_id: str = "h100-sxm") -> dict[date, tuple]:
    """day -> (price_index, link_ratio, matched_offer_count) of every day with prices."""
    return {
        r[0]: tuple(r[1:])
        for r in con.execute(
            "select day, price_index, link_ratio, matched_offer_count from market_index"
            " where gpu_id = ? and pricing = 'on_demand' and provider_count > 0",
            [gpu_id],
        ).fetchall()
    }


def _link(con, provider: str, day: str) -> tuple[int, float]:
    """(matched offers, sum of log price relatives) of a provider's h100-sxm on-demand row."""
    row = con.execute(
        "select matched_offer_count, log_price_relative_sum from daily_provider_prices"
        " where gpu_id = 'h100-sxm' and pricing = 'on_demand' and provider = ? and day = ?",
        [provider, date.fromisoformat(day)],
    ).fetchone()
    assert row is not None, (provider, day)
    return int(row[0]), float(row[1])


def _previous_level(index: dict[date, tuple], day: date) -> float:
    return next(v[0] for d, v in sorted(index.items(), reverse=True) if d < day and v[0])


def test_h100_sxm_on_demand_index_moves_on_lambda_runpod_hyperstack_changes(con):
    index = _index(con)
    # Lambda 8x: $2.59 -> $2.99 across a gap of 14 months, the only matched offer that day
    assert _link(con, "lambda", "2024-11-03") == (1, pytest.approx(math.log(2.99 / 2.59), 1e-9))
    lambda_day = date(2024, 11, 3)
    assert index[lambda_day][1] == pytest.approx(2.99 / 2.59, abs=1e-6)
    assert index[lambda_day][0] == pytest.approx(
        _previous_level(index, lambda_day) * 2.99 / 2.59, abs=1e-3
    )
    # RunPod's 2025 cuts: 4.49 -> 2.99 and 4.09 -> 2.69, against the 2023 capture
    assert _link(con, "runpod", "2025-06-15") == (
        2,
        pytest.approx(math.log(2.99 / 4.49) + math.log(2.69 / 4.09), 1e-9),
    )
    runpod_day = date(2025, 6, 15)
    assert index[runpod_day][0] < _previous_level(index, runpod_day) * 0.7
    # 2026-09-01: RunPod secure 2.99 -> 3.49 (community unchanged), Hyperstack 2.40 -> 3.20
    assert _link(con, "hyperstack", "2026-09-01") == (
        1,
        pytest.approx(math.log(3.20 / 2.40), 1e-9),
    )
    runpod_matched, runpod_log = _link(con, "runpod", "2026-09-01")
    assert runpod_log == pytest.approx(math.log(3.49 / 2.99), 1e-9)
    assert runpod_matched >= 2
    september = date(2026, 9, 1)
    level, link, matched = index[september]
    assert link > 1 and level > _previous_level(index, september)
    totals = con.execute(
        "select sum(matched_offer_count), sum(log_price_relative_sum) from daily_provider_prices"
        " where gpu_id = 'h100-sxm' and pricing = 'on_demand' and day = ?",
        [september],
    ).fetchone()
    assert totals is not None and matched == totals[0]
    assert link == pytest.approx(math.exp(float(totals[1]) / matched), abs=1e-6)


def test_replayed_days_without_matched_pairs_are_null_not_100(con):
    index = _index(con)
    values = [v[0] for v in index.values()]
    # the prices are in force on most days, observed on few: the rest are gaps, not 100
    assert values.count(None) > 0.9 * len(values)
    assert index[date(2023, 9, 10)] == (None, None, 0)  # Lambda in force, not observed
    assert index[date(2023, 9, 9)][0] == 100.0  # the base: the first day with prices
    # before this rule, 2024-11-03 read 100.0 like every other day of the series
    assert len({v for v in values if v is not None}) >= 4


def test_history_md_worked_example_is_todays_replay(con):
    # docs/history.md shows the h100-sxm on-demand chain link by link; every linked day of the
    # replay is a row there with its level, so the worked example cannot drift from the code
    text = (REPO / "docs" / "history.md").read_text("utf-8")
    text = text[text.index("Worked example, the replayed captures, `h100-sxm` on-demand") :]
    text = text[: text.index("Before this rule the same series")]
    rows = re.findall(r"^\| (\d{4}-\d{2}-\d{2}) \|.*\| ([\d.]+) \|$", text, flags=re.MULTILINE)
    documented = {date.fromisoformat(day): float(level) for day, level in rows}
    linked = {day: level for day, (level, link, _) in _index(con).items() if link is not None}
    assert linked and set(linked) <= set(documented)
    for day, level in linked.items():
        assert documented[day] == pytest.approx(level, abs=0.006), day
