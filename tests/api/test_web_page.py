"""The comparison page at / in a real browser (Debian's headless Chromium), over a replayed
snapshot served by uvicorn, plus the SVG charts it embeds.

One Chromium for the module, driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: no port, no extra package), so the tests can click, type,
download the CSV and take screenshots of each answer. Needs the ``chromium`` binary (Debian:
``apt-get install -y chromium``). Screenshots are saved under the test's temporary directory,
and to ``docs/screenshots/`` when ``GPUPRICES_UPDATE_SCREENSHOT=1``.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import fcntl
import hashlib
import io
import json
import math
import os
import re
import select
import shutil
import struct
import subprocess
import time
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.web.charts import history_svg, market_history_svg
from tests.conftest import REPO
from tests.servers import start_api, wait_until

# the file takes about 27 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=27)

SCREENSHOTS = REPO / "docs" / "screenshots"
UPDATE_SCREENSHOTS = os.environ.get("GPUPRICES_UPDATE_SCREENSHOT") == "1"
LAMBDA_H100 = "8x NVIDIA H100 SXM (80 GB)"
VIEWPORT = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}  # CSS px: a 6.1-inch phone held upright
# The smallest rendered size of every text of an SVG inside `el`, in CSS px: its font size in
# SVG units times the scale the SVG is drawn at.
SVG_TEXT_PX = (
    "(el => Math.min(...[...el.querySelectorAll('svg text')].map(t => "
    "parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)))"
)
# Texts of an SVG inside `el` that stick out of the SVG's box (cut off on screen).
SVG_TEXT_OUTSIDE = (
    "(el => { const box = el.querySelector('svg').getBoundingClientRect(); "
    "return [...el.querySelectorAll('svg text')].filter(t => { "
    "const r = t.getBoundingClientRect(); return r.left < box.left - 1 || "
    "r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1; })"
    ".map(t => t.textContent); })"
)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT_S = 30.0
# Provider text that would run if the page parsed it as markup.
HOSTILE = '<img src=x onerror="window.__xss=1">'
HOSTILE_REGION = '"><script>window.__xss=2</script>'
HOSTILE_FORMULA = '=HYPERLINK("http://example.invalid")'


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("the web page test needs Debian's chromium: apt-get install -y chromium")


class CdpError(RuntimeError):
    pass


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (replies and events out),
    NUL-terminated JSON messages."""

    def __init__(self, profile: Path, log: Path) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        # Move the child's ends above 4 first, so that placing them on 3 and 4 cannot clobber one.
        child_in = fcntl.fcntl(to_child, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_child, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child)
        os.close(from_child)

        def place_pipes() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        with log.open("w") as out:
            self.proc = subprocess.Popen(
                [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                preexec_fn=place_pipes,
                close_fds=False,  # Python's own fds are close-on-exec; 3 and 4 must survive
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.handlers: dict[str, Any] = {}

    def close(self) -> None:
        with contextlib.suppress(CdpError, OSError):
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self._write)
        os.close(self._read)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise CdpError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise CdpError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        if "id" in message:
            self._replies[message["id"]] = message
        elif "method" in message:
            self.events.append(message)
            handler = self.handlers.get(message["method"])
            if handler is not None:
                handler(message)  # may send commands itself: replies are kept by id
        return message

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = TIMEOUT_S,
    ) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        command: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            command["sessionId"] = session
        data = json.dumps(command).encode() + b"\0"
        while data:
            data = data[os.write(self._write, data) :]
        deadline = time.monotonic() + timeout
        while ident not in self._replies:
            self._message(deadline)
        message = self._replies.pop(ident)
        if "error" in message:
            raise CdpError(f"{method}: {message['error']}")
        return message.get("result", {})

    def wait_event(
        self, method: str, match, since: int = 0, timeout: float = TIMEOUT_S
    ) -> dict[str, Any]:
        """The first event ``method`` at or after index ``since`` of ``events`` whose params
        ``match``."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            for event in self.events[seen:]:
                if event["method"] == method and match(event["params"]):
                    return event["params"]
            seen = len(self.events)
            self._message(deadline)

    def page(self) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        return Page(self, target, session["sessionId"])


class Page:
    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser, self.target, self.session = browser, target, session
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {**VIEWPORT, "deviceScaleFactor": 1, "mobile": False},
        )

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def events(self, method: str) -> list[dict[str, Any]]:
        return [
            e["params"]
            for e in self.browser.events
            if e["method"] == method and e.get("sessionId") == self.session
        ]

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (promises awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = TIMEOUT_S) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.js(expression)
            except CdpError:  # e.g. the context of the previous document went away
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"never true: {expression}")
            time.sleep(0.05)

    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait(f"location.href === {json.dumps(url)} && document.readyState !== 'loading'")
        state = self.wait(
            "['done', 'error'].includes(document.body.dataset.state) && document.body.dataset.state"
        )
        assert state == "done", self.js(
            "[...document.querySelectorAll('.error')].map(e => e.textContent)"
        )

    def section_ready(self, section: str) -> None:
        state = self.wait(
            "(s => ['ready', 'error'].includes(s) && s)"
            f"(document.getElementById('{section}').dataset.state)"
        )
        assert state == "ready", self.js(f"document.querySelector('#{section} .error').textContent")

    def rows(self, table: str) -> list[list[str]]:
        return self.js(
            f"[...document.querySelectorAll('#{table} tbody tr')]"
            ".map(tr => [...tr.cells].map(td => td.textContent.trim()))"
        )

    def screenshot(self, selector: str | None, path: Path) -> bytes:
        """A PNG of the element ``selector`` (None: the viewport at the top of the page), saved
        to ``path`` and, with GPUPRICES_UPDATE_SCREENSHOT=1, to docs/screenshots/."""
        params: dict[str, Any] = {"format": "png"}
        if selector is None:
            self.js("window.scrollTo(0, 0)")
        else:
            x, y, width, height = self.js(
                f"(r => [r.left + scrollX, r.top + scrollY, r.width, r.height])"
                f"(document.querySelector('{selector}').getBoundingClientRect())"
            )
            clip = {"x": x, "y": y, "width": width, "height": height, "scale": 1}
            params.update(captureBeyondViewport=True, clip=clip)
        shot = self.send("Page.captureScreenshot", params)
        data = base64.b64decode(shot["data"])
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        path.write_bytes(data)
        if UPDATE_SCREENSHOTS:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, SCREENSHOTS / path.name)
        return data

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})


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


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    root = tmp_path_factory.mktemp("chromium")
    chromium = Browser(root / "profile", root / "chromium.log")
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser, server):
    opened = browser.page()
    yield opened
    # nothing the page did may have failed: no exception, no CSP violation, no console error
    assert opened.events("Runtime.exceptionThrown") == []
    logged = [e["entry"] for e in opened.events("Log.entryAdded")]
    # (a 4xx answer the page shows as its answer is logged by the network source)
    assert [e for e in logged if e["level"] == "error" and e["source"] != "network"] == []
    # and every request stayed on this server (no CDN, no fonts): offline by construction
    urls = [e["request"]["url"] for e in opened.events("Network.requestWillBeSent")]
    assert all(u.startswith((server, "blob:", "data:")) for u in urls), urls
    opened.close()


def _get(server: str, path: str, **params: Any) -> dict[str, Any]:
    response = httpx.get(f"{server}{path}", params=params, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def _money(value: float) -> str:
    return f"{value:.3f}" if value < 1 else f"{value:.2f}"


def _download(browser: Browser, page: Page, button: str, folder: Path) -> list[dict[str, str]]:
    """Click ``button`` and return the CSV file Chromium saved, as rows of dicts."""
    folder.mkdir(parents=True, exist_ok=True)
    browser.send(
        "Browser.setDownloadBehavior",
        {"behavior": "allow", "downloadPath": str(folder), "eventsEnabled": True},
    )
    since = len(browser.events)
    page.js(f"document.getElementById('{button}').click()")
    begin = browser.wait_event("Browser.downloadWillBegin", lambda p: True, since)
    done = browser.wait_event(
        "Browser.downloadProgress",
        lambda p: p["guid"] == begin["guid"] and p["state"] in ("completed", "canceled"),
        since,
    )
    assert done["state"] == "completed", done
    saved = folder / begin["suggestedFilename"]
    assert saved.name.endswith(".csv") and saved.is_file(), begin
    return list(csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8"))))


# --- the page's answers, in Chromium ---------------------------------------------------------


def test_page_header_says_no_provider_is_live(server, page):
    """Issue 22 §4: on a replay no provider is live; the header says how many are and shows
    /health's banner above the data notice."""
    health = _get(server, "/health")
    assert health["live_providers"] == 0 and health["banner"].startswith("no provider is live")
    page.open(f"{server}/")
    meta = page.js("document.getElementById('meta').textContent")
    assert f"0 of {health['scraped_providers']} providers live" in meta
    assert page.js("document.getElementById('live-banner').hidden") is False
    assert page.js("document.getElementById('live-banner').textContent") == health["banner"]


def test_page_renders_every_offer_and_serverless_tier(server, page, tmp_path):
    api = _get(server, "/instances", serverless="false", limit=1000)
    serverless = _get(server, "/instances", serverless="true", limit=1000)
    page.open(f"{server}/")
    rows = page.rows("offers")
    assert len(rows) == min(api["total"], 1000) > 0
    # expired prices (past the shelf life of their kind) are left out, and the page says so
    assert not any("(expired)" in r[10] for r in rows)
    assert not any(r[0] == "lambda" and r[1] == LAMBDA_H100 for r in rows)  # a 2026-01 page
    count = page.js("document.getElementById('offers-count').textContent")
    expired = api["excluded"]["expired"]["count"]
    assert f"{expired:,} expired prices left out" in count and "spot" in count
    # and that every price it shows is recorded, not live
    assert "data: recorded" in page.js("document.getElementById('meta').textContent")
    assert page.js("document.getElementById('data-notice').hidden") is False
    assert "recorded, not live" in page.js("document.getElementById('data-notice').textContent")
    assert any(r[3].startswith("8x h100") for r in rows)
    # nothing the plausibility screen marks suspect is shown by default
    every = _get(server, "/instances", include_suspect="true", limit=1000)["items"]
    suspect = {i["id"] for i in every if i["price_status"] == "suspect"}
    assert suspect, "the replayed captures hold prices the plausibility screen rejects"
    shown = page.js("[...document.querySelectorAll('[data-id]')].map(e => e.dataset.id)")
    assert len(shown) > len(rows) and not suspect & set(shown)
    tiers = page.rows("serverless")
    assert len(tiers) == serverless["total"]
    assert {r[0] for r in tiers} >= {"replicate", "beam"} and "modal" not in {r[0] for r in tiers}
    assert "serverless tiers" in page.js("document.getElementById('serverless-count').textContent")
    page.screenshot(None, tmp_path / "web.png")
    # ticking "Include expired prices" brings them back, marked expired
    page.js("document.querySelector('#page-form input[name=include_expired]').click()")
    page.wait("location.search.includes('include_expired=true')")
    page.wait(
        "[...document.querySelectorAll('#offers tbody tr')].length > "
        f"{len(rows)} && document.getElementById('offers-section').dataset.state === 'ready'"
    )
    every = page.rows("offers")
    h100 = [r for r in every if r[0] == "lambda" and r[1] == LAMBDA_H100]
    assert h100, "Lambda's 8x H100 SXM is in the table with expired prices"
    assert h100[0][6] == "23.92" and h100[0][7] == "2.99" and "(expired)" in h100[0][10]
    page.wait("document.getElementById('serverless-section').dataset.state === 'ready'")
    page.wait(
        "[...document.querySelectorAll('#serverless tbody tr')].some(tr => "
        "tr.cells[0].textContent === 'modal')"
    )  # its 2025-06 page, marked expired


def test_matrix_cell_is_the_cheapest_offer_the_api_gives(server, page, tmp_path):
    cheapest = _get(
        server,
        "/instances",
        gpu="h100-sxm",
        pricing="on_demand",
        serverless="false",
        sort="price_per_gpu",
        limit=1,
    )["items"][0]
    spec = next(g for g in _get(server, "/gpus")["items"] if g["gpu_id"] == "h100-sxm")
    page.open(f"{server}/")
    page.section_ready("matrix-section")
    h100_cell = f"#matrix td[data-gpu=h100-sxm][data-provider={json.dumps(cheapest['provider'])}]"
    cell = page.js(
        "(td => td && {text: td.textContent, value: td.dataset.value, "
        f"best: td.classList.contains('best')}})(document.querySelector('{h100_cell}'))"
    )
    assert cell is not None, f"no cell for h100-sxm x {cheapest['provider']}"
    assert float(cell["value"]) == pytest.approx(cheapest["price_per_gpu_hour_usd"])
    assert cell["text"] == _money(cheapest["price_per_gpu_hour_usd"]) and cell["best"]
    row = page.js(
        "[...document.querySelector('#matrix tr[data-gpu=h100-sxm]').cells].slice(0, 6)"
        ".map(td => td.textContent)"
    )
    assert row[0] == "h100-sxm" and float(row[1]) == spec["vram_gb"] == 80
    assert float(row[2].replace(",", "")) == spec["memory_bandwidth_gbps"]
    assert row[3] == ("yes" if spec["fp8_support"] else "no") == "yes"
    assert row[4] == cell["text"] and row[5] == cheapest["provider"]
    # every provider column of the row is that provider's cheapest on-demand H100 SXM
    per_provider = page.js(
        "Object.fromEntries([...document.querySelectorAll('#matrix td[data-gpu=h100-sxm]"
        "[data-provider]')].map(td => [td.dataset.provider, Number(td.dataset.value)]))"
    )
    grouped = _get(
        server,
        "/instances",
        gpu="h100-sxm",
        pricing="on_demand",
        serverless="false",
        cheapest_per_gpu="true",
        limit=1000,
    )["items"]
    assert per_provider == {
        i["provider"]: pytest.approx(i["price_per_gpu_hour_usd"]) for i in grouped
    }
    # the matrix's own CSV has the same rows
    table = page.js("[...document.querySelectorAll('#matrix tbody tr')].map(tr => tr.dataset.gpu)")
    exported = _download(page.browser, page, "matrix-csv", tmp_path / "downloads")
    assert [r["gpu_id"] for r in exported] == table
    h100 = next(r for r in exported if r["gpu_id"] == "h100-sxm")
    assert float(h100[cheapest["provider"]]) == pytest.approx(cheapest["price_per_gpu_hour_usd"])
    page.screenshot("#matrix-section", tmp_path / "web-matrix.png")

    # a click on the cell lists that GPU's offers at that provider
    page.js(f"document.querySelector('{h100_cell}').click()")
    page.section_ready("offers-section")
    offers = page.rows("offers")
    assert offers and all(r[0] == cheapest["provider"] and "h100-sxm" in r[3] for r in offers)


def test_model_picker_lists_only_offers_with_enough_memory(server, page, tmp_path):
    page.open(f"{server}/")
    page.section_ready("fit-section")
    # choose Llama 3.1 70B with 8k context, as a user does
    page.js(
        """(() => {
        const form = document.getElementById('fit-form');
        form.elements.model.value = 'llama-3.1-70b';
        form.elements.context.value = '8192';
        form.querySelector('button[type=submit]').click();
        })()"""
    )
    page.wait(
        "(s => s.dataset.model === 'llama-3.1-70b' && s.dataset.state !== 'loading')"
        "(document.getElementById('fit-section'))"
    )
    page.section_ready("fit-section")
    rows = page.js(
        "[...document.querySelectorAll('#fit tbody tr')].map(tr => "
        "({id: tr.dataset.id, cells: [...tr.cells].map(td => td.textContent)}))"
    )
    fit = _get(server, "/fit", model="llama-3.1-70b", context=8192, limit=1000)
    estimates = _get(
        server,
        "/estimates",
        model="llama-3.1-70b",
        input_tokens=7192,
        output_tokens=1000,
        limit=1000,
    )
    assert len(rows) == fit["offers_total"] > 0
    assert {r["id"] for r in rows} == {o["offer_id"] for o in fit["offers"]}
    # enough memory: every listed offer's GPUs hold what the model needs at 8k context...
    needs = {g["gpu_id"]: g for g in fit["gpus"]}
    instances = {
        i["id"]: i for i in _get(server, "/instances", limit=1000, serverless="false")["items"]
    }
    for row in rows:
        memory, required = float(row["cells"][6]), float(row["cells"][7])
        assert memory >= required > 70, row  # 70B weights at fp8 alone are 70.6 GB
        if row["id"] in instances:
            offer = instances[row["id"]]
            need = needs[offer["gpu_id"]]
            # GB of 10^9 bytes, as /fit counts them (an 80 GB H100 holds 85.9)
            per_gpu = need["capacity_gb"] / need["gpus_in_breakdown"]
            assert per_gpu * offer["gpu_count"] == pytest.approx(memory, abs=0.05)
            assert need["fits"]
            assert offer["gpu_count"] >= needs[offer["gpu_id"]]["min_gpus"]
    # ...and the offers whose memory cannot hold the weights are not listed
    small = [i for i in instances.values() if i["vram_gb_total"] and i["vram_gb_total"] < 70]
    assert small and not {i["id"] for i in small} & {r["id"] for r in rows}
    # $ per million tokens is /estimates' figure for the offer, cheapest first
    per_offer = {e["offer_id"]: e["usd_per_million_total_tokens"] for e in estimates["items"]}
    shown = [(r["id"], r["cells"][3]) for r in rows]
    assert shown[0][1] and float(shown[0][1]) == pytest.approx(per_offer[shown[0][0]], abs=5e-5)
    priced = [float(v) for _, v in shown if v]
    assert priced == sorted(priced) and len(priced) >= len(rows) - 5
    summary = page.js("document.getElementById('fit-summary').textContent")
    assert "Llama 3.1 70B" in summary and "8,192 tokens" in summary
    exported = _download(page.browser, page, "fit-csv", tmp_path / "downloads")
    assert [r["id"] for r in exported] == [r["id"] for r in rows]
    # each estimate states what it assumes: in the tokens/s tooltip and in the CSV (issue 24)
    first = next(e for e in estimates["items"] if e["offer_id"] == shown[0][0])["assumptions"]
    tooltip = page.js("document.querySelector('#fit tbody tr').cells[5].title")
    assert tooltip.startswith("assumes: in-flight batching server"), tooltip
    assert f"batch {first['batch_per_replica']:,} per replica" in tooltip
    assert first["limiting_regime"].replace("_", " ") in tooltip
    assert f"{first['kv_precision']} KV cache" in tooltip
    assert exported[0]["limiting_regime"] == first["limiting_regime"]
    assert exported[0]["batch_per_replica"] == str(first["batch_per_replica"])
    page.screenshot("#fit-section", tmp_path / "web-model-fit.png")

    # a context longer than the model supports is the API's 400, shown as the answer
    page.js(
        """(() => { const form = document.getElementById('fit-form');
        form.elements.context.value = '200000'; form.requestSubmit(); })()"""
    )
    state = page.wait(
        "(s => s !== 'loading' && s)(document.getElementById('fit-section').dataset.state)"
    )
    assert state == "error"
    assert "131072" in page.js("document.querySelector('#fit-section .error').textContent")
    assert page.rows("fit") == []
    page.js("document.querySelector('#fit-section .error').hidden = true")


def test_price_history_chart_per_gpu_model(server, page, tmp_path):
    as_of = datetime.fromisoformat(_get(server, "/gpus")["as_of"]).date()
    start = (as_of - timedelta(days=729)).isoformat()  # the page's default: 730 days by week
    history = _get(server, "/history", gpu="h100-sxm", bucket="week", **{"from": start})
    page.open(f"{server}/")
    page.section_ready("market-section")
    assert page.js("document.getElementById('market-section').dataset.gpu") == "h100-sxm"
    svg = page.js("document.querySelector('#market-chart svg').outerHTML")
    root = ET.fromstring(svg)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert "H100 SXM" in root.findtext("svg:title", "", ns)
    tips = [t.text or "" for t in root.findall("svg:rect/svg:title", ns)]
    assert len(tips) == len(history["items"]) > 10
    latest = history["items"][-1]
    assert f"cheapest ${latest['min_usd_per_gpu_hour']:,.2f}" in tips[-1]
    # clicking a GPU in the matrix charts that GPU
    page.js("document.querySelector('#matrix td.gpu[data-gpu=\"a100-80gb-sxm\"]').click()")
    page.wait("document.getElementById('market-section').dataset.gpu === 'a100-80gb-sxm'")
    page.section_ready("market-section")
    assert "A100" in page.js("document.querySelector('#market-chart svg title').textContent")
    assert "chart_gpu=a100-80gb-sxm" in page.js("location.search")
    page.screenshot("#market-section", tmp_path / "web-gpu-history.png")


def test_cheapest_per_gpu_toggle_and_csv_of_what_is_shown(server, page, tmp_path):
    page.open(f"{server}/?gpu=h100,a100,l40s")
    everything = page.rows("offers")
    page.js("document.querySelector('#filters input[name=cheapest_per_gpu]').click()")
    page.wait("document.getElementById('offers-section').dataset.view === 'cheapest_per_gpu'")
    page.section_ready("offers-section")
    rows = page.rows("offers")
    gpus = [r[3].split("x ", 1)[1] for r in rows]
    assert len(rows) == len(set(gpus)) < len(everything)  # one row per GPU model
    assert set(gpus) == {r[3].split("x ", 1)[1] for r in everything}
    api = _get(server, "/instances", gpu=["h100", "a100", "l40s"], serverless="false", limit=1000)
    for gpu, row in zip(gpus, rows, strict=True):
        best = min(
            # a row whose source names only the family (GMI Cloud's "NVIDIA H100") is its own
            # row, labelled and grouped by the provider's name for the GPU
            (i for i in api["items"] if (i["gpu_id"] or i["gpu_name_provider"]) == gpu),
            key=lambda i: (i["price_per_gpu_hour_usd"], i["id"]),
        )
        assert (row[0], row[1], row[7]) == (
            best["provider"],
            best["instance_type"],
            _money(best["price_per_gpu_hour_usd"]),
        )
    assert "cheapest_per_gpu=true" in page.js("location.search")

    # the CSV holds the rows the table shows, in its order, with the API's own values
    ids = page.js("[...document.querySelectorAll('#offers tbody tr')].map(tr => tr.dataset.id)")
    exported = _download(page.browser, page, "offers-csv", tmp_path / "downloads")
    assert [r["id"] for r in exported] == ids
    by_id = {i["id"]: i for i in api["items"]}
    for line, row in zip(exported, rows, strict=True):
        offer = by_id[line["id"]]
        assert [line["provider"], line["instance_type"], line["region"]] == row[:3]
        assert float(line["price_per_gpu_hour_usd"]) == pytest.approx(
            offer["price_per_gpu_hour_usd"]
        )
        assert f"{float(line['price_per_hour_usd']):.2f}" == row[6]
    page.screenshot("#offers-section", tmp_path / "web-cheapest-per-gpu.png")

    # off again: every offer is back
    page.js("document.querySelector('#filters input[name=cheapest_per_gpu]').click()")
    page.wait("document.getElementById('offers-section').dataset.view === 'all'")
    page.section_ready("offers-section")
    assert len(page.rows("offers")) == len(everything)


def test_filters_in_the_url_narrow_the_table(server, page):
    api = _get(server, "/instances", gpu="h100", min_gpus=8, serverless="false")
    page.open(f"{server}/?gpu=h100&min_gpus=8")
    rows = page.rows("offers")
    assert len(rows) == api["total"] > 0
    assert all(r[3].startswith("8x h100") for r in rows)
    assert page.js("document.querySelector('#filters input[name=gpu]').value") == "h100"


def test_offer_link_shows_its_price_history_chart(server, page):
    lambda_h100 = _get(
        server, "/instances", provider="lambda", gpu="h100-sxm", include_expired="true"
    )
    offer_id = lambda_h100["items"][0]["id"]
    page.open(f"{server}/?include_expired=true#offer={offer_id}")  # a 2026-01 price: expired
    assert page.js("document.getElementById('history').hidden") is False
    assert page.js("document.getElementById('history').dataset.offer") == offer_id
    assert "lambda" in page.js("document.querySelector('#chart svg').textContent")
    assert page.js("document.querySelector('#offers tr.selected').dataset.id") == offer_id


def test_all_offers_sorted_by_price_per_gpu_hour(server, page):
    """Issue 25: the table sorted by $/hour by default, so an 8-GPU node at $2/GPU-hour came
    after a one-GPU offer at $5/GPU-hour; the comparison people make is per GPU-hour."""
    api = _get(server, "/instances", serverless="false", sort="price_per_gpu", limit=1000)
    page.open(f"{server}/")
    header = page.js("document.querySelector('#offers th[aria-sort]').dataset.key")
    assert header == "price_per_gpu_hour_usd"
    ids = page.js("[...document.querySelectorAll('#offers tbody tr')].map(tr => tr.dataset.id)")
    rows = page.rows("offers")
    per_gpu = [float(r[7]) for r in rows if r[7]]
    assert per_gpu == sorted(per_gpu) and len(per_gpu) > 100
    assert [r[7] for r in rows if not r[7]] == [r[7] for r in rows[len(per_gpu) :]]  # blanks last
    # the first rows are the API's cheapest offers per GPU-hour (ties in any order)
    cheapest = api["items"][0]
    assert rows[0][7] == _money(cheapest["price_per_gpu_hour_usd"])
    assert cheapest["id"] in ids[: sum(r[7] == rows[0][7] for r in rows)]
    # and not by $/hour: the replayed offers hold a cheaper instance-hour further down
    per_hour = [float(r[6]) for r in rows]
    assert per_hour != sorted(per_hour)


def test_matrix_cells_show_price_age(server, page):
    """Issue 25: the matrix's cheapest H100 SXM and MI300X cells were 508- and 513-day-old
    recorded prices with no age shown. Every cell titles its price's age and origin; a price
    that is not a fresh live one shows its age after the price, marked recorded, stale (amber)
    or expired (red)."""
    api = _get(
        server,
        "/instances",
        serverless="false",
        cheapest_per_gpu="true",
        include_expired="true",
        limit=1000,
    )
    assert api["total"] <= 1000
    by_id = {i["id"]: i for i in api["items"]}
    page.open(f"{server}/?include_expired=true")
    page.section_ready("matrix-section")
    cells = page.js(
        "[...document.querySelectorAll('#matrix td[data-id]')].map(td => ({id: td.dataset.id, "
        "text: td.textContent, title: td.title, age: td.dataset.age, classes: [...td.classList], "
        "after: getComputedStyle(td, '::after').content}))"
    )
    assert len(cells) > 50
    kinds = set()
    for cell in cells:
        item = by_id[cell["id"]]
        age = math.floor(item["age_days"] + 0.5)
        assert f"price {age} days old (recorded, a capture dated " in cell["title"], cell
        assert item["data_origin"] == "recorded"  # a replay: nothing is live
        # shown on screen after the price (CSS content), the cell's text stays the price
        assert cell["age"] == f"{age}d" and cell["after"] == f'" {age}d"', cell
        assert cell["text"] == _money(item["price_per_gpu_hour_usd"])
        assert "recorded" in cell["classes"]
        assert ("expired" in cell["classes"]) == item["expired"]
        assert ("aged" in cell["classes"]) == (item["stale"] and not item["expired"])
        if item["expired"]:
            assert f"expired {item['expires_at'][:10]} (past its shelf life)" in cell["title"]
        kinds.add("expired" if item["expired"] else "stale" if item["stale"] else "fresh")
    assert {"expired", "stale"} <= kinds
    # the cheapest H100 SXM with expired prices included: a price over 180 days old, said so
    best = page.js(
        "(td => ({age: td.dataset.age, title: td.title, classes: [...td.classList]}))"
        "(document.querySelector('#matrix tr[data-gpu=h100-sxm]').cells[4])"
    )
    h100 = min(
        (i for i in api["items"] if i["gpu_id"] == "h100-sxm" and i["pricing"] == "on_demand"),
        key=lambda i: (i["price_per_gpu_hour_usd"], i["id"]),
    )
    assert best["age"] == f"{math.floor(h100['age_days'] + 0.5)}d"
    assert ("expired" in best["classes"]) == h100["expired"]
    assert "days old" in best["title"]


def test_matrix_cell_of_a_fresh_live_price_shows_no_age_mark(browser, server):
    """Only prices that are not fresh and live are marked: a live price a few hours old is
    titled with its age and drawn as a plain price."""
    page = browser.page()
    fresh = {"data_origin": "live", "age_days": 0.2, "stale": False, "expired": False}

    def fulfil(event: dict[str, Any]) -> None:
        params = event["params"]
        body = httpx.get(params["request"]["url"], timeout=30).json()
        for item in body.get("items", []):
            item.update(fresh)
        browser.send(
            "Fetch.fulfillRequest",
            {
                "requestId": params["requestId"],
                "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": "application/json"}],
                "body": base64.b64encode(json.dumps(body).encode()).decode(),
            },
            event["sessionId"],
        )

    browser.handlers["Fetch.requestPaused"] = fulfil
    try:
        page.send("Fetch.enable", {"patterns": [{"urlPattern": f"{server}/instances?*"}]})
        page.open(f"{server}/")
        cells = page.js(
            "[...document.querySelectorAll('#matrix td[data-id]')].map(td => ({title: td.title, "
            "age: td.dataset.age, classes: [...td.classList], "
            "after: getComputedStyle(td, '::after').content}))"
        )
        assert cells
        for cell in cells:
            assert cell["title"].endswith("price 0 days old (live)"), cell
            assert cell.get("age") is None and cell["after"] == "none", cell
            assert not {"recorded", "aged", "expired"} & set(cell["classes"]), cell
    finally:
        browser.handlers.pop("Fetch.requestPaused", None)
        page.close()


def test_favicon_is_served(server, page):
    """Issue 25: no favicon, so every visit logged a 404 for /favicon.ico. It is served from
    this server (within the page's Content-Security-Policy: img-src 'self') and decodes."""
    response = httpx.get(f"{server}/favicon.ico", timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/x-icon")
    assert "max-age" in response.headers["cache-control"]
    reserved, kind, count = struct.unpack("<HHH", response.content[:6])
    width, height = response.content[6], response.content[7]
    assert (reserved, kind, count, width, height) == (0, 1, 1, 32, 32)
    page.open(f"{server}/")
    decoded = page.js(
        "new Promise(done => { const icon = new Image(); "
        "icon.onload = () => done([icon.naturalWidth, icon.naturalHeight]); "
        "icon.onerror = () => done(null); icon.src = '/favicon.ico'; })"
    )
    assert decoded == [32, 32]
    statuses = {
        e["response"]["url"]: e["response"]["status"]
        for e in page.events("Network.responseReceived")
    }
    assert statuses[f"{server}/favicon.ico"] == 200
    assert [u for u, status in statuses.items() if status == 404] == []


def test_page_fits_a_390px_phone(browser, server, tmp_path):
    """Issue 25: at 390 px the page was 595 px wide (the GPU select) and the charts' text was
    drawn at about 4 px (a 1000-unit-wide SVG scaled to the screen). On a phone nothing is
    wider than the screen (tables scroll in their own box), the charts are drawn at the width
    they are shown with their text at 12 px, and the model picker and the charts still work."""
    page = browser.page()
    try:
        page.send(
            "Emulation.setDeviceMetricsOverride",
            {**PHONE, "deviceScaleFactor": 2, "mobile": True},
        )
        page.open(f"{server}/")
        page.section_ready("market-section")
        wide = page.js(
            "[...document.querySelectorAll('body *')].filter(e => !e.closest('.wrap') && "
            "e.getBoundingClientRect().right > 391).map(e => e.tagName + '.' + e.className + "
            "'#' + (e.id || e.name || ''))"
        )
        assert wide == []
        assert page.js("document.scrollingElement.scrollWidth") <= PHONE["width"]
        assert page.js("innerWidth") == PHONE["width"]  # the page was not zoomed out to fit
        # the tables scroll inside their own box
        assert page.js("(w => w.scrollWidth > w.clientWidth)(document.querySelector('.wrap'))")
        chart = "document.getElementById('market-chart')"
        svg_width = page.js(f"{chart}.querySelector('svg').getBoundingClientRect().width")
        assert 300 <= svg_width <= PHONE["width"]
        assert page.js(f"{SVG_TEXT_PX}({chart})") >= 10
        assert page.js(f"{SVG_TEXT_OUTSIDE}({chart})") == []
        page.screenshot(None, tmp_path / "web-phone.png")
        page.screenshot("#market-section", tmp_path / "web-phone-gpu-history.png")

        # the history chart follows the GPU picked, still drawn for the phone
        page.js(
            """(() => { const select = document.querySelector('#market-form [name=chart_gpu]');
            select.value = 'a100-80gb-sxm';
            select.dispatchEvent(new Event('change', {bubbles: true})); })()"""
        )
        page.wait("document.getElementById('market-section').dataset.gpu === 'a100-80gb-sxm'")
        page.section_ready("market-section")
        assert "A100" in page.js(f"{chart}.querySelector('svg title').textContent")
        assert page.js(f"{SVG_TEXT_PX}({chart})") >= 10
        assert page.js(f"{SVG_TEXT_OUTSIDE}({chart})") == []

        # the model picker still answers, with its offers table in its own scrolling box
        page.js(
            """(() => { const form = document.getElementById('fit-form');
            form.elements.model.value = 'llama-3.1-70b';
            form.querySelector('button[type=submit]').click(); })()"""
        )
        page.wait(
            "(s => s.dataset.model === 'llama-3.1-70b' && s.dataset.state !== 'loading')"
            "(document.getElementById('fit-section'))"
        )
        page.section_ready("fit-section")
        fit = _get(server, "/fit", model="llama-3.1-70b", context=8192, limit=1000)
        assert len(page.rows("fit")) == fit["offers_total"] > 0
        assert page.js("document.scrollingElement.scrollWidth") <= PHONE["width"]

        # an offer's own price history, drawn for the phone too
        page.js("document.querySelector('#offers tbody tr').click()")
        page.wait("document.querySelector('#chart svg') !== null")
        offer_chart = "document.getElementById('chart')"
        assert page.js(f"{offer_chart}.querySelector('svg').getBoundingClientRect().width") <= 390
        assert page.js(f"{SVG_TEXT_PX}({offer_chart})") >= 10
        assert page.js(f"{SVG_TEXT_OUTSIDE}({offer_chart})") == []
        assert page.js("document.scrollingElement.scrollWidth") <= PHONE["width"]
        assert page.events("Runtime.exceptionThrown") == []
    finally:
        page.close()


def test_provider_text_is_never_markup(browser, server, tmp_path):
    """Hostile text in a provider's fields is shown as text in every table and chart tooltip,
    and kept as text (not a formula) in the CSV."""
    page = browser.page()

    def poison(item: dict[str, Any]) -> None:
        item.update(instance_type=HOSTILE, region=HOSTILE_REGION, gpu_name_provider=HOSTILE)
        item["provider"] = HOSTILE_FORMULA

    def fulfil(event: dict[str, Any]) -> None:
        params = event["params"]
        body = httpx.get(params["request"]["url"], timeout=30).json()
        for item in body.get("items", [])[:3]:
            poison(item)
        for item in body.get("offers", [])[:3]:
            poison(item)
        browser.send(
            "Fetch.fulfillRequest",
            {
                "requestId": params["requestId"],
                "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": "application/json"}],
                "body": base64.b64encode(json.dumps(body).encode()).decode(),
            },
            event["sessionId"],
        )

    browser.handlers["Fetch.requestPaused"] = fulfil
    try:
        page.send(
            "Fetch.enable",
            {
                "patterns": [
                    {"urlPattern": f"{server}/instances?*"},
                    {"urlPattern": f"{server}/fit?*"},
                ]
            },
        )
        page.open(f"{server}/")
        assert page.js("window.__xss") is None
        assert page.js("document.querySelectorAll('img, td *, option *, th *').length") == 0
        assert page.js("document.scripts.length") == 1
        texts = page.js(
            "[...document.querySelectorAll('#offers tbody td, #fit tbody td, "
            "#serverless tbody td')].map(td => td.textContent)"
        )
        assert HOSTILE in texts and HOSTILE_REGION in texts and HOSTILE_FORMULA in texts
        titles = page.js("[...document.querySelectorAll('#matrix td[title]')].map(td => td.title)")
        assert any(HOSTILE in t for t in titles)
        exported = _download(browser, page, "offers-csv", tmp_path / "downloads")
        assert "'" + HOSTILE_FORMULA in [r["provider"] for r in exported]
        assert HOSTILE in [r["instance_type"] for r in exported]
        assert page.js("window.__xss") is None
    finally:
        browser.handlers.pop("Fetch.requestPaused", None)
        page.close()


# --- the page and its charts, without a browser -------------------------------------------


def test_page_loads_nothing_from_elsewhere_and_runs_only_its_own_script(replayed_home):
    with TestClient(create_app(replayed_home[0].published)) as client:
        response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    html = response.text
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html) is None
    assert "<link" not in html and "@import" not in html and " style=" not in html
    assert re.search(r"\son[a-z]+\s*=", html) is None  # no inline event handlers


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


def test_gpu_history_svg_draws_the_market_history(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as client:
        as_of = datetime.fromisoformat(client.get("/gpus").json()["as_of"]).date()
        start = (as_of - timedelta(days=3651)).isoformat()
        api = client.get("/history", params={"gpu": "h100", "bucket": "month", "from": start})
        chart = client.get(
            "/charts/gpus/h100/history.svg", params={"bucket": "month", "days": 3652}
        )
        spot = client.get("/charts/gpus/H100_SXM/history.svg", params={"pricing": "spot"})
        too_long = client.get(
            "/charts/gpus/h100/history.svg", params={"bucket": "day", "days": 900}
        )
        unknown = client.get("/charts/gpus/no-such-gpu/history.svg")
    assert chart.status_code == 200 and chart.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(chart.text)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    assert "every variant" in root.findtext("svg:title", "", ns)
    tips = [t.text or "" for t in root.findall("svg:rect/svg:title", ns)]
    buckets = api.json()["items"]
    assert len(tips) == len(buckets) > 6
    first = buckets[0]
    assert tips[0].startswith(first["start"]) and f"{first['provider_count']} providers" in tips[0]
    assert root.findall("svg:path[@class='cheapest']", ns) and root.findall("svg:polygon", ns)
    assert spot.status_code in (200, 404)
    assert too_long.status_code == 400 and "731" in too_long.json()["detail"]
    assert unknown.status_code == 404 and "no-such-gpu" in unknown.json()["detail"]


def test_chart_texts_are_escaped():
    now = datetime(2026, 1, 2, tzinfo=UTC)
    offer = history_svg(
        HOSTILE, [{"valid_from": now, "valid_to": None, "price_per_hour_usd": "1.5"}], now
    )
    market = market_history_svg(
        HOSTILE,
        [
            {
                "start": date(2026, 1, 1),
                "min_usd_per_gpu_hour": 1,
                "median_usd_per_gpu_hour": 2,
                "max_usd_per_gpu_hour": 3,
                "provider_count": 3,
                "offer_count": 4,
            }
        ],
        "month",
    )
    for svg in (offer, market):
        root = ET.fromstring(svg)  # well-formed: the hostile text is character data
        title = root.findtext("{http://www.w3.org/2000/svg}title", "")
        assert "<img" not in svg and title.startswith(HOSTILE)


def test_charts_draw_at_the_width_asked(replayed_home):
    """The charts' `width` is their viewBox width (so a phone gets 12 px text, issue 25); out
    of bounds is a 400, and a narrow chart moves its legend under the title."""
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as client:
        offer = client.get("/instances", params={"provider": "runpod", "limit": 1}).json()
        offer_id = offer["items"][0]["id"]
        narrow = client.get("/charts/gpus/h100-sxm/history.svg", params={"width": 366})
        wide = client.get("/charts/gpus/h100-sxm/history.svg")
        small_offer = client.get(f"/charts/{offer_id}/history.svg", params={"width": 366})
        too_narrow = client.get("/charts/gpus/h100-sxm/history.svg", params={"width": 100})
        too_wide = client.get(f"/charts/{offer_id}/history.svg", params={"width": 5000})
    ns = {"svg": "http://www.w3.org/2000/svg"}
    for response, width in ((narrow, 366), (wide, 1000), (small_offer, 366)):
        assert response.status_code == 200
        root = ET.fromstring(response.text)
        assert root.attrib["viewBox"].split()[2] == root.attrib["width"] == str(width)
    assert too_narrow.status_code == too_wide.status_code == 400
    # the legend (cheapest/median/min-max) sits on the title's line when wide, under it when narrow
    for response, shift in ((wide, 0), (narrow, 16)):
        group = ET.fromstring(response.text).find("svg:g", ns)
        assert group is not None and group.attrib["transform"].endswith(f",{shift})")
        assert group.findtext("svg:text", "", ns) == "cheapest provider"


def test_favicon_is_an_icon_without_a_browser(replayed_home):
    with TestClient(create_app(replayed_home[0].published)) as client:
        response = client.get("/favicon.ico")
        head = client.head("/favicon.ico")
    assert response.status_code == 200 and head.status_code in (200, 405)
    assert response.headers["content-type"].startswith("image/x-icon")
    # ICONDIR: reserved 0, type 1 (icon), 1 image; its entry: 32x32, 32 bits per pixel
    assert struct.unpack("<HHHBBBBHHII", response.content[:22])[:9] == (
        0,
        1,
        1,
        32,
        32,
        0,
        0,
        1,
        32,
    )
    size, offset = struct.unpack("<II", response.content[14:22])
    assert offset + size == len(response.content)
