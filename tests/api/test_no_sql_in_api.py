"""Every SQL statement the API runs is in ``warehouse/queries/`` (issue 23): no module of ``api/``
holds SQL text. A string constant that reads as a statement (it starts with a SQL keyword and
goes on like one) fails here; an OpenAPI description quoting SQL for the reader starts with
prose, so it does not."""

from __future__ import annotations

import ast
import re

from tests.conftest import REPO

STATEMENT = re.compile(
    r"^\s*(select\s.+\sfrom\s|with\s+\w+\s+as\s*\(|insert\s+into\s|update\s+\w+\s+set\s"
    r"|delete\s+from\s|create\s+(or\s+replace\s+)?(temp\s+)?(table|view|macro)\s)",
    flags=re.I | re.S,
)


def test_the_api_holds_no_sql() -> None:
    found = sorted(
        f"{path.relative_to(REPO).as_posix()}:{node.lineno}"
        for path in (REPO / "api").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and STATEMENT.match(node.value)
    )
    assert found == []


def test_the_check_finds_a_statement() -> None:
    assert STATEMENT.match("\n    select * from gpus order by vendor, gpu_id\n")
    assert STATEMENT.match("with offers as (select 1) select * from offers")
    assert not STATEMENT.match("The same answer in SQL: `select * from market_history(...)`")
