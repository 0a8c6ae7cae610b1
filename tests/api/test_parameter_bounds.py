"""No value of any numeric or date parameter of any endpoint gives a 500 (issue 15).

The parameters come from the app's own OpenAPI schema, so a new endpoint or parameter is
covered without editing this file. Each one gets every value of its type's edge list (zero,
signs, the smallest subnormal, the largest double, inf/nan, 64-bit overflow, the first and last
representable days, ...) and then Hypothesis combines several at once. Required parameters get
a known-good value. Schemathesis (test_schemathesis.py) fuzzes the same schema at random;
these lists aim at the boundaries it rarely draws (``/history?to=9999-12-31`` was a 500).
"""

from __future__ import annotations

from datetime import UTC, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from api.app import create_app
from tests.support.openapi import schema_only_paths

NUMBERS = [
    "0", "-0", "1", "-1", "0.5", "5e-324", "-5e-324", "1e-300", "1e308", "-1e308",
    "1.7976931348623157e308", "inf", "-inf", "nan", "1e400", str(2**31), str(2**53 + 1),
    str(2**63 - 1), str(2**63), str(-(2**63) - 1), "9" * 40, "-" + "9" * 40,
]  # fmt: skip
DATES = [
    "0001-01-01", "0001-01-05", "1969-12-31", "1970-01-01", "2199-12-31", "2200-01-01",
    "9999-12-31",
]  # fmt: skip
DATETIMES = [
    "0001-01-01T00:00:00", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59",
    "9999-12-31T23:59:59-14:00", "1970-01-01T00:00:00Z", "2199-12-31T23:59:59+14:00",
]  # fmt: skip
# values for required parameters (a model id and an offer id are read from the snapshot)
REQUIRED = {"gpu": "h100", "slug": "lambda", "requests_per_day": "1000"}
MAX_EXAMPLES = 40


def _kind(schema: dict[str, Any]) -> str | None:
    options = schema.get("oneOf") or [schema]
    for option in options:
        kind, fmt = option.get("type"), option.get("format")
        if kind in ("integer", "number"):
            return "number"
        if kind == "string" and fmt in ("date", "date-time"):
            return fmt
    return None


def _operations() -> list[tuple[str, dict[str, str], list[str]]]:
    """(path template, {parameter: kind} of its bounded parameters, required parameters) of
    every GET operation, from the schema alone."""
    found = []
    for path, item in sorted(schema_only_paths().items()):
        operation = item.get("get")
        if operation is None:
            continue
        params = operation.get("parameters", [])
        bounded = {
            p["name"]: kind
            for p in params
            if p["in"] == "query" and (kind := _kind(p["schema"])) is not None
        }
        required = [p["name"] for p in params if p.get("required")]
        if bounded:
            found.append((path, bounded, required))
    return found


OPERATIONS = _operations()
EDGES = {"number": NUMBERS, "date": DATES, "date-time": DATETIMES}


@pytest.fixture(scope="module")
def client(replayed_home):  # replayed_home: tests/conftest.py
    paths, _ = replayed_home
    with TestClient(create_app(paths.published, reload_interval_s=3600)) as test_client:
        ids = {
            "model": test_client.get("/models").json()["items"][0]["model_id"],
            "offer_id": test_client.get("/instances", params={"limit": 1}).json()["items"][0]["id"],
        }
        test_client.required = {**REQUIRED, **ids}  # type: ignore[attr-defined]
        yield test_client


def _request(client: TestClient, path: str, required: list[str], values: dict[str, str]):
    given = dict(values)
    for name in required:
        given.setdefault(name, client.required[name])  # type: ignore[attr-defined]
    if path == "/breakeven" and "gpu_seconds_per_request" not in given:
        given.setdefault("model", client.required["model"])  # type: ignore[attr-defined]
    url = path
    for name in list(given):
        if "{" + name + "}" in url:
            url = url.replace("{" + name + "}", given.pop(name))
    response = client.get(url, params=given)
    assert response.status_code < 500, (url, given, response.text[:500])
    return response


@pytest.mark.parametrize(
    ("path", "bounded", "required"), OPERATIONS, ids=[o[0] for o in OPERATIONS]
)
def test_every_edge_value_of_every_bounded_parameter_is_not_a_500(
    client, path: str, bounded: dict[str, str], required: list[str]
) -> None:
    for name, kind in bounded.items():
        for value in EDGES[kind]:
            _request(client, path, required, {name: value})


def _values(kind: str) -> st.SearchStrategy[str]:
    if kind == "number":
        return st.one_of(
            st.sampled_from(NUMBERS),
            st.integers().map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
        )
    if kind == "date":
        return st.one_of(st.sampled_from(DATES), st.dates().map(lambda d: d.isoformat()))
    zones = st.sampled_from(
        [None, UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-14))]
    )
    return st.one_of(
        st.sampled_from(DATETIMES),
        st.datetimes(timezones=zones).map(lambda d: d.isoformat()),
    )


@pytest.mark.parametrize(
    ("path", "bounded", "required"), OPERATIONS, ids=[o[0] for o in OPERATIONS]
)
def test_combinations_of_bounded_parameters_are_not_a_500(
    client, path: str, bounded: dict[str, str], required: list[str]
) -> None:
    strategy = st.fixed_dictionaries({}, optional={n: _values(k) for n, k in bounded.items()})

    @given(values=strategy)
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def check(values: dict[str, str]) -> None:
        _request(client, path, required, values)

    check()


def test_breakeven_with_a_subnormal_gpu_seconds_per_request_is_not_a_500(client) -> None:
    response = client.get(
        "/breakeven", params={"requests_per_day": "0", "gpu_seconds_per_request": "5e-324"}
    )
    assert response.status_code < 500, response.text[:500]
