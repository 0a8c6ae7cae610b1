"""Property-based API fuzzing: Schemathesis generates requests from the app's own OpenAPI schema
(in-process, ASGI), valid and invalid ones, for every operation; no response may be a 5xx, and
every answer's status, media type and headers must be documented for its operation, and every
answer to a valid request must match the response schema the document gives for its status
(``response_schema_conformance``): the bodies are encoded from the schemas the document is
generated from (``api.encoding.encode_as``), and this checks the two agree on real answers.

Bounded and reproducible for CI: ``MAX_EXAMPLES`` per operation and mode, derandomized. The app
serves the session's snapshot of every replayed capture (``tests.conftest.replayed_home``).
The operations are listed from the schema at collection time (no data needed for that), so
each one is its own test.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from tests.support.openapi import schema_only_paths

# the file takes about 26 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=26)

MAX_EXAMPLES = 25
SCHEMA_PATH = "/schema/openapi.json"
_METHODS = ("get", "put", "post", "delete", "patch")


def _operations(*, with_parameters: bool = False) -> list[tuple[str, str]]:
    """(METHOD, path) of every operation; ``with_parameters``: only those that take any (an
    invalid request can only be made of parameters)."""
    return sorted(
        (method.upper(), path)
        for path, item in schema_only_paths().items()
        for method in _METHODS
        if method in item and (not with_parameters or item[method].get("parameters") or "{" in path)
    )


@pytest.fixture(scope="module")
def api_schema(replayed_home):  # replayed_home: tests/conftest.py
    paths, _ = replayed_home
    app = create_app(paths.published, reload_interval_s=3600)
    return schemathesis.openapi.from_asgi(SCHEMA_PATH, app)


def test_every_operation_is_fuzzed(api_schema) -> None:
    found = sorted((r.ok().method.upper(), r.ok().path) for r in api_schema.get_all_operations())
    assert found == _operations()


@pytest.mark.parametrize(("method", "path"), _operations())
def test_no_server_errors_on_valid_requests(api_schema, method: str, path: str) -> None:
    _fuzz(api_schema, method, path, GenerationMode.POSITIVE)


@pytest.mark.parametrize(("method", "path"), _operations(with_parameters=True))
def test_no_server_errors_on_invalid_requests(api_schema, method: str, path: str) -> None:
    _fuzz(api_schema, method, path, GenerationMode.NEGATIVE)


def _fuzz(api_schema, method: str, path: str, mode: GenerationMode) -> None:
    operation = api_schema[path][method]
    # every answer, to a valid or an invalid request, is documented: its status, its media
    # type, its headers and (for valid requests) its body (issue 25: 0 conformance failures)
    checks: list[Any] = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
    ]
    if mode == GenerationMode.POSITIVE:
        checks.append(response_schema_conformance)

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),  # iteration skips the deprecated checks
    )
    def fuzz(case: schemathesis.Case) -> None:
        case.call_and_validate(checks=checks)

    fuzz()
