"""Per-exchange (HAR 1.2) captures: each replayed request gets the response recorded for it.

The captures are built here in a temp dir from facts of the Scaleway catalog capture of
2026-08-22 (fr-par-2: "H100-1-80G" H100-PCIe at 2.8665 EUR/h, "L4-1-24G" L4 at 0.7875 EUR/h);
the test answers nl-ams-1 with the L4 type, to tell the zones' answers apart.
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from pathlib import Path

import pytest

from scrapers import http, scaleway
from scrapers.base import FetchError
from scrapers.replay import HarCaptureError, ReplayTransport, discover

CATALOG = "https://api.scaleway.com/instance/v1/zones/{zone}/products/servers"


def _entry(url: str, body: object, *, status: int = 200, base64_body: bool = False) -> dict:
    text = json.dumps(body)
    content = {"mimeType": "application/json", "size": len(text), "text": text}
    if base64_body:
        content |= {"text": base64.b64encode(text.encode()).decode(), "encoding": "base64"}
    return {
        "startedDateTime": "2026-08-22T10:00:00.000Z",
        "time": 0,
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": []},
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Content-Type", "value": "application/json"},
                {"name": "Content-Encoding", "value": "gzip"},  # the HAR body is decoded
            ],
            "content": content,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
    }


def _write_har(folder: Path, name: str, entries: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    har = {
        "log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": entries}
    }
    path.write_text(json.dumps(har), encoding="utf-8")
    return path


def _type(gpu_name: str, hourly: float) -> dict:
    return {"gpu": 1, "gpu_info": {"gpu_name": gpu_name}, "ncpus": 8, "hourly_price": hourly}


def _page(zone: str, page: int) -> str:
    # recorded with the query in another order than scaleway sends it
    return f"{CATALOG.format(zone=zone)}?page={page}&per_page=1"


def test_each_zone_and_page_of_one_scrape_gets_its_own_answer(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(scaleway, "ZONES", ("fr-par-2", "nl-ams-1"))
    monkeypatch.setattr(scaleway, "PER_PAGE", 1)
    _write_har(
        tmp_path / "scaleway",
        "2026-08-22T1000Z_catalog.har",
        [
            _entry(_page("fr-par-2", 1), {"servers": {"H100-1-80G": _type("H100-PCIe", 2.8665)}}),
            _entry(_page("fr-par-2", 2), {"servers": {}}, base64_body=True),
            _entry(_page("nl-ams-1", 1), {"servers": {"L4-1-24G": _type("L4", 0.7875)}}),
            _entry(_page("nl-ams-1", 2), {"servers": {}}),
        ],
    )
    [capture] = discover(tmp_path)["scaleway"]
    transport = ReplayTransport(capture)
    with http.make_client(transport) as client:
        responses, skipped = scaleway.fetch_with_skips(client, None)
    offers, _ = scaleway.parse_with_exclusions(responses)
    assert skipped == {}
    assert len(transport.requests) == 4
    got = {(o.region, o.instance_type, o.price) for o in offers}
    assert got == {
        ("fr-par-2", "H100-1-80G", Decimal("2.8665")),
        ("nl-ams-1", "L4-1-24G", Decimal("0.7875")),
    }
    assert {o.observed_at.isoformat() for o in offers} == {"2026-08-22T10:00:00+00:00"}


def test_a_request_the_capture_does_not_record_is_a_one_line_error(tmp_path) -> None:
    url = _page("fr-par-2", 1)
    _write_har(tmp_path / "scaleway", "2026-08-22_catalog.har", [_entry(url, {"servers": {}})])
    [capture] = discover(tmp_path)["scaleway"]
    other = CATALOG.format(zone="pl-waw-2")
    with http.make_client(ReplayTransport(capture)) as client:
        assert http.get(client, url).body  # recorded: answered
        with pytest.raises(FetchError) as raised:
            http.get(client, other, params={"page": 1})
    message = str(raised.value)
    assert "\n" not in message
    assert f"records no GET {other}?page=1" in message


def test_a_recorded_error_status_is_replayed_as_such(tmp_path) -> None:
    url = _page("fr-par-2", 1)
    _write_har(tmp_path / "x", "2026-08-22_x.har", [_entry(url, {"message": "no"}, status=503)])
    [capture] = discover(tmp_path)["x"]
    transport = ReplayTransport(capture)
    with http.make_client(transport) as client, pytest.raises(FetchError, match="HTTP 503"):
        http.get(client, url)


def test_a_har_file_that_is_not_one_is_a_one_line_error(tmp_path) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "2026-08-22_x.har").write_text('{"log": {}}', encoding="utf-8")
    [capture] = discover(tmp_path)["x"]
    with pytest.raises(HarCaptureError, match=r"^capture 2026-08-22_x.har: not a HAR 1.2 file"):
        ReplayTransport(capture)


def test_a_single_file_capture_still_answers_every_request_with_its_bytes(tmp_path) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "2026-08-22_x.json").write_text('{"servers": {}}', encoding="utf-8")
    [capture] = discover(tmp_path)["x"]
    with http.make_client(ReplayTransport(capture)) as client:
        bodies = {http.get(client, _page(zone, 1)).body for zone in ("fr-par-2", "nl-ams-1")}
    assert bodies == {b'{"servers": {}}'}
