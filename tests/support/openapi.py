"""The API's OpenAPI document as the app builds it with no data behind it (what the modules that
parametrize over the operations read at collection time).

Built once per process: every xdist worker collects every test file, and building the app and
its document costs ~0.45 s of CPU (1.1 s while Litestar still made up an example per schema
property, api.openapi.ResponseDoc), which test_schemathesis (twice) and test_parameter_bounds
paid separately in each worker.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from api.app import create_app

_NO_DATA = Path("/nonexistent-gpuprices-schema-only")


@cache
def _document() -> dict[str, Any]:
    return create_app(_NO_DATA).openapi_schema.to_schema()


def schema_only_paths() -> MappingProxyType[str, Any]:
    """The document's ``paths`` (read-only view; the operations' dicts are shared, do not
    change them)."""
    return MappingProxyType(_document()["paths"])
