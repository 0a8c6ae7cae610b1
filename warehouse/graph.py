"""The warehouse build graph, read from the headers of the ``.sql`` files themselves.

Every derived object is one file (``models/``, ``views/``, ``rollups/``; file name = object
name), and every table they read or a snapshot carries that the build does not create is
declared by a header-only file in ``sources/``. The header is the leading ``--`` comment::

    -- <name>: what it is (the first line; a macro may write name(args):).
    -- Kind: model | view | macro | table macro | rollup | python | source
    -- Grain: one row per ...
    -- Depends on: a, b, c; any remark after a ';' or '.'.   (or: nothing.)
    -- Published: yes | no

``Depends on`` lists object names, continuing on the next line while the list ends with a
comma. The graph orders the build (``graphlib.TopologicalSorter``) and says what a published
snapshot carries: the tables of published objects (models, rollups, python-built tables and
sources), and the published views and macros, created inside it (so each may read only
published objects). A header that names an unknown object, forms a cycle, lacks a field or
gives a bad value is a ``GraphError``: one line that names the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
# Where the build looks for objects: each folder's .sql files (the seam a test widens).
SQL_DIRS: tuple[Path, ...] = tuple(
    PACKAGE_DIR / name for name in ("sources", "models", "views", "rollups")
)

# Kinds the build runs, cheapest first: among objects whose dependencies are done, views and
# macros (nothing is computed) are created before models, and models built before rollups, so
# a rollup reads the plausibility verdicts written after current_offers (warehouse.derive).
BUILD_RANK: dict[str, int] = {"macro": 0, "table macro": 0, "view": 0, "model": 1, "rollup": 2}
# Declared, not built by the SQL walk: python (a table written by Python code, named in the
# header) and source (a stored table: migrations, ingest, seeds).
DECLARED_KINDS = frozenset({"python", "source"})
KINDS = frozenset(BUILD_RANK) | DECLARED_KINDS
# Created (not copied) in a snapshot: they bind to its own tables.
VIEW_KINDS = frozenset({"macro", "table macro", "view"})
REQUIRED_FIELDS = ("Kind", "Grain", "Depends on", "Published")

_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_FIELD = re.compile(r"^(Kind|Grain|Depends on|Published):\s*(.*)$")
_FIRST_LINE = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(?P<purpose>.*)$")


class GraphError(ValueError):
    """A bad header or graph: one line, naming the file."""


@dataclass(frozen=True)
class SqlObject:
    name: str
    kind: str
    depends_on: tuple[str, ...]
    published: bool
    purpose: str
    grain: str
    path: Path
    sql: str  # the file's text (a source's is its header alone)

    @property
    def is_table(self) -> bool:
        """Stored as a table (copied into a snapshot when published)."""
        return self.kind not in VIEW_KINDS

    @property
    def label(self) -> str:
        """``<folder>/<file>``: how errors name the file."""
        return f"{self.path.parent.name}/{self.path.name}"


def _label(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _header(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    return lines


def _depends_on(label: str, value: str) -> tuple[str, ...]:
    listed = re.split(r"[.;]", value, maxsplit=1)[0].strip()
    if re.match(r"(nothing|none)\b", listed):  # a remark may follow: "nothing (its arguments)"
        return ()
    names = tuple(part.strip() for part in listed.split(","))
    bad = [n for n in names if not _NAME.fullmatch(n)]
    if bad:
        raise GraphError(
            f"{label}: 'Depends on:' must list object names separated by commas (then '.' or"
            f" ';' and any remark), or 'nothing'; {bad[0][:60]!r} is not a name"
        )
    return names


def parse(path: Path) -> SqlObject:
    """The object a ``.sql`` file declares. Raises ``GraphError`` for a bad header."""
    label = _label(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphError(f"{label}: unreadable ({type(exc).__name__})") from None
    header = _header(text)
    first = _FIRST_LINE.match(header[0]) if header else None
    if first is None or first["name"] != path.stem:
        raise GraphError(f"{label}: the header's first line must be '-- {path.stem}: <purpose>'")
    fields: dict[str, str] = {}
    lines = iter(header[1:])
    for line in lines:
        match = _FIELD.match(line)
        if match is None:
            continue
        key, value = match.groups()
        if key in fields:
            raise GraphError(f"{label}: header field '{key}:' given twice")
        while key == "Depends on" and value.rstrip().endswith(","):
            value = f"{value.rstrip()} {next(lines, '')}"
        fields[key] = value.strip()
    missing = [f for f in REQUIRED_FIELDS if not fields.get(f)]
    if missing:
        raise GraphError(f"{label}: header lacks '{missing[0]}:'")
    kind = fields["Kind"].rstrip(".").strip().lower()
    if kind not in KINDS:
        raise GraphError(f"{label}: Kind {kind!r} is not one of {', '.join(sorted(KINDS))}")
    published = fields["Published"].rstrip(".").strip().lower()
    if published not in ("yes", "no"):
        raise GraphError(f"{label}: Published must be yes or no, not {published!r}")
    has_body = any(line.strip() and not line.startswith("--") for line in text.splitlines())
    if has_body == (kind in DECLARED_KINDS):
        need = "holds no SQL (a header only)" if has_body else "needs its SQL below the header"
        raise GraphError(f"{label}: a {kind} {need}")
    depends_on = _depends_on(label, fields["Depends on"])
    if path.stem in depends_on:
        raise GraphError(f"{label}: depends on itself")
    return SqlObject(
        name=path.stem,
        kind=kind,
        depends_on=depends_on,
        published=published == "yes",
        purpose=first["purpose"].strip(),
        grain=fields["Grain"],
        path=path,
        sql=text,
    )


class Graph:
    """The objects of ``SQL_DIRS`` and their order. Raises ``GraphError`` when invalid."""

    def __init__(self, objects: Iterable[SqlObject]) -> None:
        self.objects: dict[str, SqlObject] = {}
        for obj in objects:
            if obj.name in self.objects:
                other = self.objects[obj.name].label
                raise GraphError(f"{obj.label}: object {obj.name!r} is also declared by {other}")
            self.objects[obj.name] = obj
        for obj in self.objects.values():
            for dep in obj.depends_on:
                if dep not in self.objects:
                    raise GraphError(
                        f"{obj.label}: unknown dependency {dep!r} (no .sql file declares it;"
                        " a stored table is declared in sources/)"
                    )
                if obj.published and obj.kind in VIEW_KINDS and not self.objects[dep].published:
                    raise GraphError(
                        f"{obj.label}: published, but depends on {dep!r}, which is not"
                        " (a published view or macro is created inside the snapshot)"
                    )
        self.order: tuple[str, ...] = self._order()

    def _order(self) -> tuple[str, ...]:
        sorter = TopologicalSorter({o.name: o.depends_on for o in self.objects.values()})
        try:
            sorter.prepare()
        except CycleError as exc:
            cycle = list(exc.args[1])
            raise GraphError(
                f"{self.objects[cycle[0]].label}: dependency cycle {' -> '.join(cycle)}"
            ) from None
        order: list[str] = []
        ready: list[str] = []
        while sorter.is_active():
            ready.extend(sorter.get_ready())
            # one at a time, the cheapest kind first (BUILD_RANK), then by name: deterministic
            ready.sort(key=lambda n: (BUILD_RANK.get(self.objects[n].kind, -1), n))
            name = ready.pop(0)
            order.append(name)
            sorter.done(name)
        return tuple(order)

    def __getitem__(self, name: str) -> SqlObject:
        return self.objects[name]

    def __iter__(self) -> Iterator[SqlObject]:
        """Every object, in build order."""
        return (self.objects[name] for name in self.order)

    def of_kind(self, *kinds: str) -> tuple[SqlObject, ...]:
        return tuple(o for o in self if o.kind in kinds)

    def built(self) -> tuple[SqlObject, ...]:
        """What the SQL build runs, in order: views, macros, models, rollups."""
        return tuple(o for o in self if o.kind in BUILD_RANK)

    def views(self, *, published: bool = False) -> tuple[SqlObject, ...]:
        """Views and macros in creation order (only the published ones, if asked)."""
        return tuple(o for o in self.of_kind(*VIEW_KINDS) if o.published or not published)

    def published_tables(self) -> tuple[str, ...]:
        """The tables a published snapshot carries, in build order."""
        return tuple(o.name for o in self if o.published and o.is_table)

    def upstream(self, name: str) -> tuple[SqlObject, ...]:
        """Every object ``name`` reads, directly or not, in build order."""
        seen: set[str] = set()
        todo = list(self.objects[name].depends_on)
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(self.objects[dep].depends_on)
        return tuple(o for o in self if o.name in seen)


def load(dirs: Iterable[Path] = SQL_DIRS) -> Graph:
    """Parse every ``.sql`` file of ``dirs`` into a graph (uncached)."""
    return Graph(parse(path) for folder in dirs for path in sorted(folder.glob("*.sql")))


@cache
def _cached(dirs: tuple[Path, ...]) -> Graph:
    return load(dirs)


def graph() -> Graph:
    """The graph of ``SQL_DIRS``, parsed once per set of folders."""
    return _cached(tuple(SQL_DIRS))
