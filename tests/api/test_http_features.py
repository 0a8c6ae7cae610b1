"""Issue 12 point 4, the HTTP side: gzip for clients that ask, ETag/Cache-Control tied to the
snapshot (304 on If-None-Match), HEAD on every GET endpoint, CSV of any list (Accept: text/csv
or format=csv), and a /schema viewer that loads nothing from another host."""

from __future__ import annotations

import csv
import gzip
import io
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest
from litestar.testing import TestClient
from selectolax.lexbor import LexborHTMLParser

from api.app import create_app
from api.schemas import InstanceItem
from tests.support.published import published_copy
from warehouse.db import Warehouse
from warehouse.publish import publish

# the file takes about 16 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=16)

IDENTITY = {"Accept-Encoding": "identity"}
# Every GET list endpoint, answerable with these parameters, and the list its CSV writes.
LISTS = [
    ("/instances", {"limit": 50}, "items"),
    ("/gpus", {}, "items"),
    ("/providers", {}, "items"),
    ("/serverless", {}, "items"),
    ("/models", {}, "items"),
    ("/estimates", {"model": "llama-3.1-8b", "limit": 20}, "items"),
    ("/fit", {"model": "llama-3.1-70b", "limit": 20}, "offers"),
    ("/breakeven", {"model": "llama-3.1-8b", "requests_per_day": 1000}, "items"),
    ("/history", {"gpu": "h100", "bucket": "month", "from": "2025-01-01"}, "items"),
    ("/changes", {"since": "2020-01-01T00:00:00Z"}, "items"),
]


def _publish(replayed_home, directory: Path) -> Path:
    paths, _ = replayed_home  # replayed_home: tests/conftest.py
    with Warehouse(paths.warehouse).connect() as con:
        publish(con, directory)
    return directory


@pytest.fixture(scope="module")
def client(replayed_published, tmp_path_factory):  # replayed_published: tests/conftest.py
    published = published_copy(replayed_published, tmp_path_factory.mktemp("http") / "published")
    with TestClient(create_app(published, reload_interval_s=3600)) as test_client:
        yield test_client


# --- gzip -------------------------------------------------------------------------------------


def test_gzip_only_for_clients_that_ask(client) -> None:
    plain = client.get("/instances", params={"limit": 200}, headers=IDENTITY)
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    # read the raw bytes: the test client would otherwise decompress them for us
    with client.stream(
        "GET", "/instances", params={"limit": 200}, headers={"Accept-Encoding": "gzip"}
    ) as zipped:
        raw = b"".join(zipped.iter_raw())
        assert zipped.headers["content-encoding"] == "gzip"
        assert "accept-encoding" in zipped.headers["vary"].lower()
    assert len(raw) < len(plain.content) / 4
    assert json.loads(gzip.decompress(raw)) == plain.json()


# --- ETag / Cache-Control / 304 -----------------------------------------------------------------


def test_etag_and_cache_control_are_tied_to_the_snapshot(client) -> None:
    first = client.get("/instances", params={"limit": 5}, headers=IDENTITY)
    tag = first.headers["etag"]
    snapshot_id = client.get("/health").json()["snapshot_id"]
    assert tag.startswith(f'W/"{snapshot_id}-')
    assert first.headers["cache-control"] == "public, no-cache"
    assert first.headers["last-modified"].endswith(" GMT")
    again = client.get("/instances", params={"limit": 5}, headers=IDENTITY)
    assert again.headers["etag"] == tag
    other = client.get("/instances", params={"limit": 6}, headers=IDENTITY)
    assert other.headers["etag"] != tag  # another question, another validator

    not_modified = client.get(
        "/instances", params={"limit": 5}, headers={**IDENTITY, "If-None-Match": tag}
    )
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified.headers["etag"] == tag
    assert not_modified.headers["cache-control"] == "public, no-cache"
    listed = client.get(
        "/instances", params={"limit": 5}, headers={"If-None-Match": f'"nope", {tag}'}
    )
    assert listed.status_code == 304
    stale = client.get("/instances", params={"limit": 6}, headers={"If-None-Match": tag})
    assert stale.status_code == 200  # the tag of another URL does not match


def test_a_new_snapshot_changes_the_etag_and_answers_in_full(
    replayed_home, replayed_published, tmp_path
) -> None:
    published = published_copy(replayed_published, tmp_path / "published")
    with TestClient(create_app(published, reload_interval_s=0)) as client:
        tag = client.get("/gpus").headers["etag"]
        assert client.get("/gpus", headers={"If-None-Match": tag}).status_code == 304
        _publish(replayed_home, published)
        for _ in range(200):  # the new snapshot is loaded in the background, then swapped in
            after = client.get("/gpus", headers={"If-None-Match": tag})
            if after.status_code != 304:
                break
            time.sleep(0.05)
    assert after.status_code == 200 and after.headers["etag"] != tag


def test_if_modified_since_the_snapshot_is_304(client) -> None:
    first = client.get("/providers")
    again = client.get("/providers", headers={"If-Modified-Since": first.headers["last-modified"]})
    assert again.status_code == 304
    older = client.get("/providers", headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})
    assert older.status_code == 200


def test_errors_carry_no_validator_and_are_not_stored(client) -> None:
    for response in (
        client.get("/instances", params={"limit": 0}),
        client.get("/instances", params={"min_vrm": 1}),
        client.get("/instances/nope/history"),
    ):
        assert response.status_code in (400, 404)
        assert "etag" not in response.headers
        assert response.headers["cache-control"] == "no-store"


def test_if_none_match_does_not_skip_the_unknown_parameter_check(client) -> None:
    assert client.get("/instances", params={"limit": 5}).status_code == 200
    response = client.get(
        "/instances", params={"limit": 5, "min_vrm": 1}, headers={"If-None-Match": "*"}
    )
    assert response.status_code == 400


# --- HEAD -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "params"),
    [
        *((path, params) for path, params, _ in LISTS),
        ("/health", {}),
        ("/providers/lambda", {}),
        ("/", {}),
        ("/schema", {}),
        ("/schema/openapi.json", {}),
    ],
)
def test_head_answers_like_get_without_a_body(client, path: str, params: dict) -> None:
    get = client.get(path, params=params, headers=IDENTITY)
    head = client.head(path, params=params, headers=IDENTITY)
    assert get.status_code == head.status_code == 200, (path, head.text)
    assert head.content == b""
    for name in ("content-type", "content-length", "etag", "cache-control"):
        assert head.headers.get(name) == get.headers.get(name), name


def test_head_keeps_the_errors_of_get(client) -> None:
    assert client.head("/instances", params={"min_vrm": 1}).status_code == 400
    assert client.head("/instances/nope/history").status_code == 404


# --- CSV --------------------------------------------------------------------------------------


def _csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.text)))


def test_instances_as_csv_has_a_column_per_item_field(client) -> None:
    params = {"limit": 40, "include_suspect": "true", "sort": "-price"}
    data = client.get("/instances", params=params).json()
    response = client.get("/instances", params={**params, "format": "csv"})
    rows = _csv(response)
    header = next(csv.reader(io.StringIO(response.text)))
    assert header == [f.encode_name for f in msgspec.structs.fields(InstanceItem)]
    assert response.headers["x-total-count"] == str(data["total"])
    assert 'filename="instances.csv"' in response.headers["content-disposition"]
    assert [r["id"] for r in rows] == [i["id"] for i in data["items"]]
    for row, item in zip(rows, data["items"], strict=True):
        assert row["provider"] == item["provider"]
        assert float(row["price_per_hour_usd"]) == item["price_per_hour_usd"]
        assert row["fp8"] == {True: "true", False: "false", None: ""}[item["fp8"]]
        # nested values are JSON
        assert json.loads(row["price_status_reasons"]) == item["price_status_reasons"]
        assert row["gpu_candidates"] == (
            ""
            if item["gpu_candidates"] is None
            else json.dumps(item["gpu_candidates"], separators=(",", ":"))
        )


def test_accept_text_csv_is_the_same_csv(client) -> None:
    by_param = client.get("/instances", params={"limit": 10, "format": "csv"})
    by_accept = client.get("/instances", params={"limit": 10}, headers={"Accept": "text/csv"})
    assert by_accept.text == by_param.text
    assert "accept" in by_accept.headers["vary"].lower()
    # JSON still wins for */* and when the client ranks it higher
    for accept in ("*/*", "application/json", "application/json, text/csv;q=0.5"):
        response = client.get("/instances", params={"limit": 1}, headers={"Accept": accept})
        assert response.headers["content-type"] == "application/json", accept
    assert (
        client.get(
            "/instances", params={"limit": 1, "format": "json"}, headers={"Accept": "text/csv"}
        ).headers["content-type"]
        == "application/json"
    )


@pytest.mark.parametrize(("path", "params", "field"), LISTS)
def test_every_list_endpoint_serves_csv(client, path: str, params: dict, field: str) -> None:
    data = client.get(path, params=params).json()
    rows = _csv(client.get(path, params={**params, "format": "csv"}))
    assert len(rows) == len(data[field])
    if data[field]:
        assert set(data[field][0]) <= set(rows[0])  # every field of an item is a column
    accepted = client.get(path, params=params, headers={"Accept": "text/csv"})
    assert _csv(accepted) == rows


def test_csv_of_an_answer_without_a_list(client) -> None:
    hardware = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "gpus": 1}
    asked = client.get("/estimates", params={**hardware, "format": "csv"})
    assert asked.status_code == 400 and "not a list" in asked.json()["detail"]
    # Accept is a preference: an answer without a list stays JSON
    preferred = client.get("/estimates", params=hardware, headers={"Accept": "text/csv"})
    assert preferred.status_code == 200 and preferred.json()["gpus"] == 1
    health = client.get("/health", headers={"Accept": "text/csv"})
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert client.get("/health", params={"format": "csv"}).status_code == 400


def test_cached_csv_and_json_never_mix(client) -> None:
    for _ in range(2):
        assert client.get("/gpus").headers["content-type"] == "application/json"
        assert (
            client.get("/gpus", headers={"Accept": "text/csv"})
            .headers["content-type"]
            .startswith("text/csv")
        )


# --- /schema offline ----------------------------------------------------------------------------


def _references(html: str) -> list[str]:
    dom = LexborHTMLParser(html)
    found = []
    for node in dom.css("[src], [href]"):
        for name in ("src", "href"):
            value = node.attributes.get(name)
            if value is not None:
                found.append(value)
    return found


def test_schema_viewer_references_no_external_host(client) -> None:
    page = client.get("/schema", headers=IDENTITY)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "http://" not in page.text and "https://" not in page.text and "//" not in page.text
    references = _references(page.text)
    assert any(r.endswith("swagger-ui-bundle.js") for r in references)
    assert any(r.endswith("swagger-ui.css") for r in references)
    for reference in references:
        parts = urlsplit(reference)
        assert not parts.scheme and not parts.netloc, reference
        assert reference.startswith("/schema/"), reference
        asset = client.get(reference, headers=IDENTITY)
        assert asset.status_code == 200 and asset.content, reference
    # the browser enforces it: scripts, styles and requests from this origin only
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self';" in csp
    assert "connect-src 'self'" in csp and "http" not in csp
    viewer = LexborHTMLParser(page.text).css_first("#swagger-ui")
    assert viewer is not None
    spec_url = viewer.attributes["data-spec-url"]
    assert client.get(spec_url).json()["info"]["title"] == "gpuprices"


def test_schema_viewer_scripts_turn_off_the_online_validator(client) -> None:
    init = client.get("/schema/assets/swagger-init.js")
    assert init.status_code == 200 and "validatorUrl: null" in init.text
    assert init.headers["content-type"].startswith("text/javascript")
    assert client.get("/schema/assets/swagger-editor-bundle.js").status_code == 404
    assert client.get("/schema/assets/..%2Fdocs.py").status_code == 404


# --- issue 25: HTTP conventions ---------------------------------------------------------------


def test_page_content_type_names_its_charset_once(client) -> None:
    response = client.get("/", headers=IDENTITY)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(("method", "path"), [("POST", "/instances"), ("DELETE", "/providers")])
def test_405_names_the_allowed_methods(client, method: str, path: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    assert response.json()["detail"] == "Method Not Allowed"
