"""API limits and the token-protected admin endpoint."""

from __future__ import annotations

import logging

import pytest
from litestar.testing import TestClient

from api.app import CORS_ENV, create_app
from api.limits import MAX_QUERY_BYTES
from api.ops.admin import ADMIN_REQUESTS_PER_MINUTE, ADMIN_TOKEN_ENV
from tests.support.published import published_copy
from warehouse.db import Warehouse
from warehouse.publish import publish

# the file takes about 17 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=17)

TOKEN = "admin-test-token-8f2c"  # a placeholder, not a credential


@pytest.fixture()
def published(replayed_published, tmp_path):  # replayed_published: tests/conftest.py
    """A private published directory holding one snapshot of the replayed warehouse."""
    return published_copy(replayed_published, tmp_path / "published")


def test_query_string_over_the_limit_is_414_with_a_clear_message(published) -> None:
    with TestClient(create_app(published)) as client:
        ok = client.get("/instances", params={"region": "r" * (MAX_QUERY_BYTES - 20)})
        too_long = client.get("/instances", params={"region": "r" * (MAX_QUERY_BYTES + 1)})
    # under the limit the query is read (an unknown region: a 400 that names it), over it not
    assert ok.status_code == 400 and "region" in ok.json()["detail"]
    assert too_long.status_code == 414
    assert too_long.json()["detail"].endswith(f"at most {MAX_QUERY_BYTES} are accepted")


def test_page_size_and_list_lengths_are_bounded(published) -> None:
    with TestClient(create_app(published)) as client:
        assert client.get("/instances", params={"limit": 1001}).status_code == 400
        many = [("provider", f"p{i}") for i in range(51)]
        assert client.get("/instances", params=many).status_code == 400
        assert client.get("/instances", params={"limit": 1000}).status_code == 200


def test_sort_and_filters_cannot_inject_sql(published) -> None:
    with TestClient(create_app(published)) as client:
        bad_sort = client.get("/instances", params={"sort": "price; drop table current_offers"})
        quoted = client.get("/instances", params={"provider": "x' or '1'='1"})
        after = client.get("/instances", params={"limit": 1})
    assert bad_sort.status_code == 400 and "sort" in bad_sort.json()["detail"]
    # a value, never SQL: an unknown provider, named in the 400 like any other
    assert quoted.status_code == 400 and "x' or '1'='1" in quoted.json()["detail"]
    assert after.json()["total"] > 0


def test_admin_refresh_is_disabled_without_a_server_token(published, monkeypatch) -> None:
    monkeypatch.delenv(ADMIN_TOKEN_ENV, raising=False)
    with TestClient(create_app(published)) as client:
        response = client.post("/admin/refresh", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 403 and "disabled" in response.json()["detail"]


@pytest.mark.parametrize(
    "header", [None, "Bearer wrong-token", f"Basic {TOKEN}", "Bearer", f"Bearer {TOKEN}x"]
)
def test_admin_refresh_needs_the_right_bearer_token(published, monkeypatch, header) -> None:
    monkeypatch.setenv(ADMIN_TOKEN_ENV, TOKEN)
    with TestClient(create_app(published)) as client:
        response = client.post(
            "/admin/refresh", headers={"Authorization": header} if header else {}
        )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert TOKEN not in response.text


def test_admin_refresh_loads_a_new_snapshot_at_once(replayed_home, published, monkeypatch) -> None:
    monkeypatch.setenv(ADMIN_TOKEN_ENV, TOKEN)
    paths, _ = replayed_home
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(create_app(published, reload_interval_s=3600)) as client:
        first = client.get("/health").json()["snapshot_id"]
        with Warehouse(paths.warehouse).connect() as con:
            newer = publish(con, published)
        assert client.get("/health").json()["snapshot_id"] == first  # not polled for an hour
        response = client.post("/admin/refresh", headers=auth)
        assert response.status_code == 200
        assert response.json()["swapped"] is True
        assert response.json()["snapshot_id"] == newer.snapshot_id
        assert client.get("/health").json()["snapshot_id"] == newer.snapshot_id
        again = client.post("/admin/refresh", headers=auth).json()
    assert again["swapped"] is False


def test_admin_is_a_bearer_operation_in_the_openapi_schema(published) -> None:
    with TestClient(create_app(published)) as client:
        spec = client.get("/schema/openapi.json").json()
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": f"${ADMIN_TOKEN_ENV} of the server",
    }
    assert spec["paths"]["/admin/refresh"]["post"]["security"] == [{"bearer": []}]


def test_cors_is_off_by_default_and_configurable(published, monkeypatch) -> None:
    monkeypatch.delenv(CORS_ENV, raising=False)
    with TestClient(create_app(published)) as client:
        plain = client.get("/health", headers={"Origin": "https://example.org"})
    monkeypatch.setenv(CORS_ENV, "https://example.org")
    with TestClient(create_app(published)) as client:
        allowed = client.get("/health", headers={"Origin": "https://example.org"})
        other = client.get("/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in plain.headers
    assert allowed.headers["access-control-allow-origin"] == "https://example.org"
    assert "access-control-allow-origin" not in other.headers


def test_cors_answers_keep_vary_accept_encoding(published, monkeypatch) -> None:
    # issue 27: Litestar's CORS layer replaced Vary with "Origin", so a shared cache could give
    # a gzip body (or CSV) to a browser that asked for none
    monkeypatch.setenv(CORS_ENV, "https://example.org")
    gzip = {"Accept-Encoding": "gzip"}
    with TestClient(create_app(published)) as client:
        browser = client.get("/gpus", headers={**gzip, "Origin": "https://example.org"})
        plain = client.get("/gpus", headers=gzip)
        missing = client.get("/no-such-path", headers={"Origin": "https://example.org"})
    for answer in (browser, plain):
        varied = [v.strip().lower() for v in answer.headers["vary"].split(",")]
        assert answer.headers.get_list("vary") == [answer.headers["vary"]]  # one header
        assert sorted(varied) == ["accept", "accept-encoding", "origin"]
    assert browser.headers["content-encoding"] == "gzip"
    assert missing.headers["vary"] == "Origin"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_admin_token_guessing_is_rate_limited_and_logged(published, monkeypatch) -> None:
    # issue 27: the admin endpoint took 2,612 guesses a second, none logged
    monkeypatch.setenv(ADMIN_TOKEN_ENV, TOKEN)
    seen = _Records()
    with TestClient(create_app(published)) as client:
        logging.getLogger("gpuprices.api").addHandler(seen)  # the app configured it: after
        statuses = [
            client.post("/admin/refresh", headers={"Authorization": f"Bearer guess-{n}"})
            for n in range(ADMIN_REQUESTS_PER_MINUTE + 5)
        ]
        right = client.post("/admin/refresh", headers={"Authorization": f"Bearer {TOKEN}"})
    logging.getLogger("gpuprices.api").removeHandler(seen)
    codes = [r.status_code for r in statuses]
    assert codes == [401] * ADMIN_REQUESTS_PER_MINUTE + [429] * 5
    limited = statuses[-1]
    assert limited.headers["content-type"].startswith("application/problem+json")
    assert int(limited.headers["retry-after"]) > 0
    assert right.status_code == 429  # the limit is per client, whatever the token
    refused = [r for r in seen.records if "admin request refused (401)" in r.getMessage()]
    assert len(refused) == ADMIN_REQUESTS_PER_MINUTE
    assert "testclient" in refused[0].getMessage()
