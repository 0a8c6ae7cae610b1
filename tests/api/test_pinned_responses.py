"""The answers to a fixed set of queries, pinned: status, media type and body of ~30 requests
across every data endpoint, on the session's replay of every capture, compared with
``pinned_responses.json``.

Refactors of the read side (issue 13) must leave these answers as they are, and every JSON answer
must match the response schema the app's OpenAPI document gives its status (``jsonschema_rs``,
OpenAPI 3.1 schemas being JSON Schema 2020-12). The few values that
depend on when the replay ran (``as_of``, ``snapshot_id``, ``since``, scrape times, ``*age_days``)
are replaced by placeholders; everything else is compared exactly, CSV column order included
(JSON objects compare by keys, not by key order). Regenerate after an intended change with
``GPUPRICES_UPDATE_PINS=1 GPUPRICES_REPIN=1 uv run pytest tests/api/test_pinned_responses.py
tests/api/test_instances_pinned.py -n 0`` and say why in the commit.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import msgspec
import pytest
from litestar.testing import TestClient

from api.app import create_app

PINS = Path(__file__).with_name("pinned_responses.json")
UPDATE = os.environ.get("GPUPRICES_UPDATE_PINS") == "1"
# when the replay ran, not what it read
_TIMELY = frozenset(
    {
        "as_of",
        "snapshot_id",
        "last_success_at",
        "last_recorded_load_at",
        "last_attempt_at",
        "last_failure_at",
        "since",
    }
)
# {offer} is replaced by the offer of the newest price change (GET /changes, since 2020)
QUERIES = (
    "/health",
    "/gpus",
    "/gpus?format=csv",
    "/providers",
    "/providers/lambda",
    "/providers/runpod-serverless",
    "/providers/no-such-provider",
    "/serverless",
    "/instances?limit=5",
    "/instances?gpu=h100&sort=price_per_gpu&limit=5",
    "/instances?min_vram=80&fp8=true&limit=5&offset=3",
    "/instances?cheapest_per_gpu=true&gpu=a100,h100&sort=-price_per_gpu&limit=6",
    "/instances?serverless=true&sort=-price&limit=5",
    "/instances?provider=lambda,runpod&pricing=spot&pricing=on_demand&limit=5",
    "/instances?include_suspect=true&sort=vram&limit=4",
    "/instances?region=us-east-1&max_price_per_gpu=3.5&sort=price_per_vram_gb&limit=4",
    "/instances?limit=3&format=csv",
    "/instances?min_vram=lots",
    "/instances?sort=cheapest",
    "/instances/{offer}/history",
    "/instances/no-such-offer/history",
    "/changes?since=2020-01-01T00:00:00Z&limit=5",
    "/changes?since=2020-01-01T00:00:00Z&gpu=h100&limit=5",
    "/changes",
    "/history?gpu=h100-sxm&from=2025-06-01&to=2025-06-30",
    "/history?gpu=h100&bucket=week&from=2025-01-01&to=2026-06-30",
    "/history?gpu=a100-80gb-sxm&bucket=month&from=2025-01-01&to=2026-06-30&format=csv",
    "/history/catalog?gpu=h100&to=2026-06-30",
    "/models",
    "/estimates?model=llama-3.1-8b&limit=5",
    "/estimates?model=llama-3.1-70b&gpu=h100-sxm&pricing=on_demand&limit=3",
    "/fit?model=llama-3.1-70b&limit=5",
    "/fit?model=llama-3.1-8b&context=32768&concurrency=4&serverless=true&limit=3",
    "/breakeven?requests_per_day=10000&model=llama-3.1-8b&limit=3",
    "/breakeven?requests_per_day=500&gpu_seconds_per_request=2&gpu=h100-sxm&limit=3",
)


def _scrub(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if value is not None and (key in _TIMELY or key.endswith("age_days")):
        return f"<{key}>"
    if isinstance(value, str):  # an age in a sentence (/health's notice) moves with the clock
        return _AGE_IN_TEXT.sub(r"\1<age_days> days before", value)
    return value


_AGE_IN_TEXT = re.compile(r"(observed )[0-9.]+ days before")


def _operation(document: dict[str, Any], query: str) -> dict[str, Any]:
    """The document's GET operation whose path template matches ``query``'s path."""
    path = query.split("?")[0]
    for template, item in document["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path):
            return item["get"]
    raise AssertionError(f"no operation in the OpenAPI document for {path}")


def _answer(client: TestClient, query: str) -> dict[str, Any]:
    response = client.get(query)
    if response.headers.get("content-type", "").startswith("application/json"):
        _check_against_document(client, query, response.status_code, response.json())
    media_type = response.headers.get("content-type", "").split(";")[0]
    body: Any
    if media_type == "text/csv":
        rows = list(csv.reader(io.StringIO(response.text)))
        aged = {i for i, name in enumerate(rows[0]) if name.endswith("age_days")} if rows else set()
        body = [
            rows[0],
            *(
                [f"<{rows[0][i]}>" if i in aged else c for i, c in enumerate(row)]
                for row in rows[1:]
            ),
        ]
    else:
        body = _scrub(response.json())
    return {"status": response.status_code, "media_type": media_type, "body": body}


_DOCUMENTS: dict[int, dict[str, Any]] = {}


def _check_against_document(client: TestClient, query: str, status: int, body: Any) -> None:
    """A JSON answer must match the schema the app's own OpenAPI document gives its status."""
    document = _DOCUMENTS.get(id(client))
    if document is None:
        document = _DOCUMENTS[id(client)] = client.get("/schema/openapi.json").json()
    responses = _operation(document, query)["responses"]
    assert str(status) in responses, f"{query}: status {status} is not documented"
    schema = responses[str(status)]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.Draft202012Validator({**document, **schema})
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, f"{query}: the answer does not match the document: {errors[:5]}"


@pytest.fixture(scope="module")
def client(replayed_home):  # replayed_home: tests/conftest.py
    paths, _ = replayed_home
    with TestClient(create_app(paths.published, reload_interval_s=3600)) as client:
        yield client


@pytest.fixture(scope="module")
def answers(client) -> dict[str, dict[str, Any]]:
    offer = client.get("/changes?since=2020-01-01T00:00:00Z&limit=1").json()["items"][0]["id"]
    got = {query: _answer(client, query.replace("{offer}", offer)) for query in QUERIES}
    if UPDATE:
        PINS.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return got


def test_every_pinned_query_is_asked(answers) -> None:
    # ``answers`` first: under GPUPRICES_UPDATE_PINS=1 it rewrites the pins this test reads
    assert list(json.loads(PINS.read_text(encoding="utf-8"))) == list(QUERIES)


# GET operations of the document whose answers are not pinned, and why
NOT_PINNED = {
    "/version": "the build's version and commit: changes with every commit",
    "/metrics": "counts of the requests this process has answered",
}


def test_every_json_endpoint_is_pinned(client) -> None:
    """A new endpoint (CONTRIBUTING "Add an endpoint") fails here until a query of QUERIES asks
    it: the list is the app's own OpenAPI document, every GET operation answering JSON."""
    document = client.get("/schema/openapi.json").json()
    asked = {q.split("?")[0] for q in QUERIES}
    missing = []
    for template, item in document["paths"].items():
        ok = item.get("get", {}).get("responses", {}).get("200", {})
        if "application/json" not in ok.get("content", {}) or template in NOT_PINNED:
            continue
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        if not any(re.fullmatch(pattern, path) for path in asked):
            missing.append(template)
    assert not missing, f"add a query of each to QUERIES, then regenerate the pins: {missing}"


@pytest.mark.parametrize("query", QUERIES)
def test_answer_is_unchanged(answers, query: str) -> None:
    pinned = json.loads(PINS.read_text(encoding="utf-8"))[query]
    assert answers[query] == pinned


# a plain JSON number: no exponent, no trailing zero after the point, no "-0"
_PLAIN_NUMBER = re.compile(r"0|-?[1-9][0-9]*(\.[0-9]*[1-9])?|-?0\.[0-9]*[1-9]")
_NUMBER_CELL = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def _json_numbers(body: bytes) -> list[str]:
    """The non-integer numbers of a JSON body as written (strings aside): every number with a
    point or an exponent; integers are plain as JSON writes them."""
    seen: list[str] = []

    def keep(text: str) -> float:
        seen.append(text)
        return 0.0

    msgspec.json.Decoder(float_hook=keep).decode(body)
    return seen


def test_json_numbers_carry_no_decimal_noise(client) -> None:
    # issue 25: "gpu_count":1.0000 and "price":0.047000000 (DECIMAL scales) on the wire
    offer = client.get("/changes?since=2020-01-01T00:00:00Z&limit=1").json()["items"][0]["id"]
    noisy: dict[str, list[str]] = {}
    numbers = 0
    for query in QUERIES:
        url = query.replace("{offer}", offer)
        # /instances without compression is answered by the fast route, with it by Litestar
        for headers in ({}, {"accept-encoding": "identity"}):
            response = client.get(url, headers=headers)
            if response.headers["content-type"].startswith("text/csv"):
                cells = [c for row in csv.reader(io.StringIO(response.text)) for c in row]
                found = [c for c in cells if _NUMBER_CELL.fullmatch(c)]
                bad = [c for c in found if not _PLAIN_NUMBER.fullmatch(c)]
            else:
                found = _json_numbers(response.content)
                bad = [t for t in found if not _PLAIN_NUMBER.fullmatch(t)]
            numbers += len(found)
            if bad:
                noisy[url] = bad[:5]
    assert not noisy, noisy
    assert numbers > 500  # the answers do carry fractional numbers: prices, shares, TFLOPS
    gpu_count = client.get("/instances?limit=50").content
    assert b'"gpu_count":1,' in gpu_count and b'"gpu_count":1.0' not in gpu_count
