"""The comparison page at / in a real browser (Debian's headless Chromium), over a replayed
snapshot served by uvicorn, plus the SVG price-history endpoint it embeds.

Needs the ``chromium`` binary (Debian: ``apt-get install -y chromium``). The screenshot is saved
under the test's temporary directory, and to ``docs/screenshots/web.png`` when
``GPUPRICES_UPDATE_SCREENSHOT=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient
from selectolax.lexbor import LexborHTMLParser

from api.app import create_app
from tests.conftest import REPO
from tests.servers import start_api, wait_until

SCREENSHOT = REPO / "docs" / "screenshots" / "web.png"
LAMBDA_H100 = "8x NVIDIA H100 SXM (80 GB)"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--window-size=1400,1000",
    # Let the page's fetches finish before dumping or capturing (virtual time runs ahead).
    "--virtual-time-budget=15000",
)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("the web page test needs Debian's chromium: apt-get install -y chromium")


@pytest.fixture(scope="module")
def server(replayed_home, tmp_path_factory):  # tests/conftest.py: every capture replayed
    paths, _ = replayed_home
    log = tmp_path_factory.mktemp("uvicorn") / "uvicorn.log"
    # the page must come from this home, not from a snapshot URL set in the environment
    proc, base = start_api({"GPUPRICES_HOME": str(paths.home), "GPUPRICES_SNAPSHOT_URL": ""}, log)
    wait_until(proc, base, log, lambda r: r.status_code == 200, "came up")
    yield base
    proc.terminate()
    proc.wait(timeout=10)


def _browse(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _dom(url: str, profile: Path) -> LexborHTMLParser:
    done = _browse(url, profile, "--dump-dom")
    assert done.returncode == 0 and done.stdout, done.stderr[-2000:]
    return LexborHTMLParser(done.stdout)


def _rows(dom: LexborHTMLParser, table: str) -> list[list[str]]:
    return [[td.text(strip=True) for td in tr.css("td")] for tr in dom.css(f"#{table} tbody tr")]


def test_page_renders_every_offer_and_serverless_tier(server, tmp_path):
    api = httpx.get(f"{server}/instances", params={"serverless": "false", "limit": 1000}).json()
    serverless = httpx.get(
        f"{server}/instances", params={"serverless": "true", "limit": 1000}
    ).json()
    dom = _dom(f"{server}/", tmp_path / "profile")
    body = dom.css_first("body")
    assert body is not None and body.attributes.get("data-state") == "done", dom.html[:500]

    rows = _rows(dom, "offers")
    assert len(rows) == min(api["total"], 1000) > 0
    h100 = [r for r in rows if r[0] == "lambda" and r[1] == LAMBDA_H100]
    assert h100, "Lambda's 8x H100 SXM is in the table"
    assert h100[0][6] == "23.92" and h100[0][7] == "2.990"
    assert any(r[3].startswith("8x h100") for r in rows)
    # default order: cheapest instance-hour first
    prices = [float(r[6]) for r in rows]
    assert prices == sorted(prices)

    tiers = _rows(dom, "serverless")
    assert len(tiers) == min(serverless["total"], 1000)
    assert {r[0] for r in tiers} >= {"modal"}
    assert "serverless tiers" in dom.css_first("#serverless-count").text()


def test_filters_in_the_url_narrow_the_table(server, tmp_path):
    api = httpx.get(
        f"{server}/instances", params={"gpu": "h100", "min_gpus": 8, "serverless": "false"}
    ).json()
    dom = _dom(f"{server}/?gpu=h100&min_gpus=8", tmp_path / "profile")
    rows = _rows(dom, "offers")
    assert len(rows) == api["total"] > 0
    assert all(r[3].startswith("8x h100") for r in rows)
    field = dom.css_first("input[name=gpu]")
    assert field is not None  # the form shows the filter it was opened with (set by script)


def test_offer_link_shows_its_price_history_chart(server, tmp_path):
    api = httpx.get(f"{server}/instances", params={"provider": "lambda", "gpu": "h100-sxm"}).json()
    offer_id = api["items"][0]["id"]
    dom = _dom(f"{server}/#offer={offer_id}", tmp_path / "profile")
    section = dom.css_first("#history")
    assert section is not None and "hidden" not in section.attributes
    assert section.attributes.get("data-offer") == offer_id
    svg = dom.css_first("#chart svg")
    assert svg is not None and "lambda" in svg.text()
    selected = dom.css_first("#offers tr.selected")
    assert selected is not None and selected.attributes.get("data-id") == offer_id


def test_screenshot(server, tmp_path):
    shot = tmp_path / "web.png"
    done = _browse(f"{server}/", tmp_path / "profile", f"--screenshot={shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a rendered page, not blank
    if os.environ.get("GPUPRICES_UPDATE_SCREENSHOT") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)


def test_page_loads_nothing_from_elsewhere(replayed_home):
    with TestClient(create_app(replayed_home[0].published)) as client:
        response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    html = response.text
    assert re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html) is None
    assert "<link" not in html and "@import" not in html


def test_history_svg_is_a_step_chart_of_usd_per_hour(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as client:
        offers = client.get("/instances", params={"provider": "runpod", "limit": 1000}).json()
        charts = {}
        for item in offers["items"]:
            response = client.get(f"/charts/{item['id']}/history.svg")
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("image/svg+xml")
            charts[item["id"]] = response.text
        missing = client.get("/charts/no-such-offer/history.svg")
    assert missing.status_code == 404 and "no price history" in missing.json()["detail"]
    ns = {"svg": "http://www.w3.org/2000/svg"}
    # RunPod was replayed from several captures: some offers changed price over time.
    steps = 0
    for text in charts.values():
        root = ET.fromstring(text)
        path = root.find("svg:path", ns)
        assert path is not None and path.attrib["d"].startswith("M")
        steps = max(steps, len(root.findall("svg:circle", ns)))
    assert steps >= 2
