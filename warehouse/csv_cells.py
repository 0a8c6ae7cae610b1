"""CSV cells made inert against formula injection (issue 27), one rule for every CSV we write:
the API's ``format=csv`` (``api.encoding``), ``gpuprices`` CSV/TSV output
(``pipelines.cli_output``) and every export (``pipelines.export_common``,
``pipelines.export_tables``).

OWASP's rule (https://owasp.org/www-community/attacks/CSV_Injection): a cell that begins with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by spreadsheet software as a
formula; prepending a single quote makes it text (the csv writers quote the cell where its
content needs it). The rule is for text cells: a cell that is a plain number (``-3.64``,
``+1e3``) is left as it is, so negative figures stay numbers. Region names, instance types and
every other text a provider's answer controls go through it.
"""

from __future__ import annotations

import re

FORMULA_STARTS = frozenset("=+-@\t\r")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER)


def inert(cell: str) -> str:
    """``cell`` as a spreadsheet reads it as text: with a leading ``'`` when it starts with one
    of ``FORMULA_STARTS`` and is not a plain number."""
    if cell[:1] in FORMULA_STARTS and not _NUMBER_RE.fullmatch(cell):
        return "'" + cell
    return cell


def inert_sql(column: str) -> str:
    """The same rule as a DuckDB expression over the varchar expression ``column`` (a quoted
    identifier from an allow-list; RE2 reads ``\\t`` and ``\\r`` in the pattern)."""
    return (
        f"case when regexp_matches({column}, '^[=+\\-@\\t\\r]')"
        f" and not regexp_full_match({column}, '{_NUMBER}')"
        f" then '''' || {column} else {column} end"
    )
