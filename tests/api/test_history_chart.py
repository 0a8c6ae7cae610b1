"""The market history chart and GET /history say who is behind each point: the providers per
bucket, and a new line where that set changes, over the replayed captures (issue 25)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date

from litestar.testing import TestClient

from api.app import create_app
from api.web.charts import market_history_svg

NS = {"svg": "http://www.w3.org/2000/svg"}
WEEK = "2026-10-05"


def _starts(svg: ET.Element, css: str) -> list[float]:
    """The x of each line of class ``css`` (a path's first move)."""
    return [
        float(re.match(r"M([\d.]+),", p.get("d", ""))[1])  # type: ignore[index]
        for p in svg.findall(f"svg:path[@class='{css}']", NS)
    ]


def test_history_chart_breaks_where_the_provider_set_changes(replayed_home):
    """Issue 25: the H100 SXM weekly median jumped in the week of 2026-10-05 with no price
    changed: a provider's prices passed their shelf life and left the median. /history says which
    providers each week has; the chart starts a new line there and marks the count."""
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as client:
        weeks = client.get(
            "/history",
            params={"gpu": "h100-sxm", "bucket": "week", "from": "2026-09-28", "to": "2026-10-18"},
        ).json()["items"]
        chart = client.get(
            "/charts/gpus/h100-sxm/history.svg", params={"bucket": "week", "days": 91}
        )
    assert [w["start"] for w in weeks] == ["2026-09-28", WEEK, "2026-10-12"]
    before, split, after = weeks
    # Vast.ai's last H100 SXM capture is of 2026-09-01 and Hyperbolic's of 2026-08-29 (issue
    # 26): both marketplace prices are past their shelf life by 2026-10-05
    assert set(before["providers"]) - set(split["providers"]) == {"vast", "hyperbolic"}
    assert (
        set(split["providers"]) <= set(before["providers"])
        and after["providers"] == split["providers"]
    )
    assert [w["provider_count"] for w in weeks] == [len(w["providers"]) for w in weeks]
    # 16 and 14 since issue 26: Scaleway's, TensorPool's and Together's H100 SXM prices of
    # 2026-08-22 are within their shelf life in both weeks
    assert (before["provider_count"], split["provider_count"]) == (16, 14)
    assert {"scaleway", "tensorpool", "together"} <= set(split["providers"])
    assert split["median_usd_per_gpu_hour"] != before["median_usd_per_gpu_hour"]
    assert [w["provider_set_changed"] for w in weeks] == [False, True, False]

    assert chart.status_code == 200
    svg = ET.fromstring(chart.text)
    [change] = [
        line
        for line in svg.findall("svg:line[@class='provider-change']", NS)
        if (line.findtext("svg:title", "", NS)).startswith(WEEK)
    ]
    assert (
        change.findtext("svg:title", "", NS)
        == f"{WEEK}: 16 -> 14 providers; left: hyperbolic, vast"
    )
    at = float(change.get("x1", "0"))
    # the median and the cheapest lines end at the break and a new one starts there
    assert any(abs(x - at) < 0.05 for x in _starts(svg, "median"))
    assert any(abs(x - at) < 0.05 for x in _starts(svg, "cheapest"))
    # every bucket's tooltip names its providers; every week is wide enough for its count
    tips = [t.text or "" for t in svg.findall("svg:rect/svg:title", NS)]
    [tip] = [t for t in tips if t.startswith(WEEK)]
    assert "14 providers" in tip and "vast" not in tip and "runpod" in tip
    counts = [t.text for t in svg.findall("svg:text[@class='provider-count']", NS)]
    assert len(counts) == len(tips) and "13" in counts and "14" in counts


def test_history_chart_keeps_one_line_while_the_providers_stay():
    row = {
        "min_usd_per_gpu_hour": 1,
        "median_usd_per_gpu_hour": 2,
        "max_usd_per_gpu_hour": 3,
        "provider_count": 2,
        "offer_count": 4,
        "providers": ["a", "b"],
    }
    same = [
        {**row, "start": date(2026, 1, 5)},
        {**row, "start": date(2026, 1, 12), "median_usd_per_gpu_hour": 2.5},
    ]
    svg = ET.fromstring(market_history_svg("H100", same, "week"))
    assert len(svg.findall("svg:path[@class='median']", NS)) == 1  # a price move: one line
    assert not svg.findall("svg:line[@class='provider-change']", NS)
    joined = [same[0], {**same[1], "providers": ["a", "b", "c"], "provider_count": 3}]
    svg = ET.fromstring(market_history_svg("H100", joined, "week"))
    assert len(svg.findall("svg:path[@class='median']", NS)) == 2
    [change] = svg.findall("svg:line[@class='provider-change']", NS)
    assert change.findtext("svg:title", "", NS) == "2026-01-12: 2 -> 3 providers; joined: c"
