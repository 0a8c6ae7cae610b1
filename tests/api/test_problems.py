"""Issue 25: every error answer is an RFC 9457 problem (``application/problem+json`` with
type, title, status, detail, instance), keeping ``status_code``/``extra`` for one release."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient

from api.app import create_app

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home  # replayed_home: tests/conftest.py
    with TestClient(create_app(paths.published, reload_interval_s=3600)) as test_client:
        yield test_client


def _problem(response, status: int, title: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == "about:blank" and body["title"] == title
    assert body["status"] == body["status_code"] == status
    assert isinstance(body["detail"], str) and body["detail"]
    return body


@pytest.mark.parametrize(
    ("path", "status", "title", "says"),
    [
        ("/instances?min_vram=lots", 400, "Bad Request", "min_vram"),  # Litestar's validation
        ("/instances?min_vrm=80", 400, "Bad Request", "did you mean 'min_vram'"),  # middleware
        ("/providers/no-such-cloud", 404, "Not Found", "no-such-cloud"),
        ("/no/such/page", 404, "Not Found", "Not Found"),
        ("/instances?as_of=2001-01-01T00:00:00Z", 410, "Gone", "2001-01-01T00:00:00"),
        ("/estimates?model=no-such-model", 400, "Bad Request", "unknown model"),
    ],
)
def test_errors_are_rfc9457_problems(client, path, status, title, says) -> None:
    body = _problem(client.get(path), status, title)
    assert says in body["detail"]
    assert body["instance"] == path  # the request target: which request it was


def test_parameter_problems_keep_extra_for_one_release(client) -> None:
    body = _problem(client.get("/instances?min_vrm=80"), 400, "Bad Request")
    assert body["extra"][0]["key"] == "min_vrm" and body["extra"][0]["did_you_mean"] == "min_vram"


def test_405_is_a_problem_with_allow(client) -> None:
    response = client.post("/instances")
    _problem(response, 405, "Method Not Allowed")
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"


def test_414_problem_names_the_path_not_the_query(client) -> None:
    body = _problem(client.get("/instances?region=" + "x" * 9000), 414, "URI Too Long")
    assert body["instance"] == "/instances"


def test_admin_refusals_are_problems(client) -> None:
    _problem(client.post("/admin/refresh"), 403, "Forbidden")


def test_no_snapshot_is_a_503_problem(tmp_path) -> None:
    with TestClient(create_app(tmp_path / "published", reload_interval_s=3600)) as client:
        body = _problem(client.get("/instances"), 503, "Service Unavailable")
    assert body["instance"] == "/instances"


def test_error_schema_documents_the_problem_members(client) -> None:
    spec = client.get("/schema/openapi.json").json()
    schema = spec["components"]["schemas"]["ErrorBody"]
    assert {"type", "title", "status", "detail", "instance"} <= set(schema["properties"])
