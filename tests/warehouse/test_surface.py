"""The offer-query surface is declared once (``warehouse/queries/surface.py``): README's list is
its output, GET /instances' parameters and ``gpuprices query``'s options are its filters, and no
other module of the surface writes a filter's name again."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from api.app import create_app
from pipelines import cli_query
from tests.conftest import REPO
from warehouse.queries import FILTERS, INSTANCE_COLUMNS, filters_table
from warehouse.vocabulary import INSTANCE_SORT_KEYS, SORTS

README = (REPO / "README.md").read_text(encoding="utf-8")
SURFACE = REPO / "warehouse" / "queries" / "surface.py"
# Where the offer query is read, normalised, answered and documented: GET /instances (its
# handler, its fast route and parser, its pre-encoded rows, the parameter helpers), the read
# package and `gpuprices query`.
SURFACE_MODULES = sorted(
    {
        *(REPO / "warehouse" / "queries").glob("*.py"),
        *(REPO / "api" / "instances").glob("*.py"),
        REPO / "api" / "offers.py",
        REPO / "api" / "params.py",
        REPO / "api" / "app.py",
        REPO / "pipelines" / "cli_query.py",
    }
    - {SURFACE}
)
# A string naming a column of the items (current_offers) is a column, not a filter: `provider`
# is both.
ITEM_COLUMNS = frozenset(re.findall(r"(\w+)\s*(?:,|$)", INSTANCE_COLUMNS.strip()))


def test_readme_lists_the_declared_filters() -> None:
    marker = "<!-- generated: warehouse.queries.filters_table()"
    table = README.split(marker, 1)[1].split("-->\n", 1)[1]
    table = table.split("\n<!-- end of generated table -->", 1)[0]
    assert table == filters_table(), (
        "README's filter table is out of date: paste the output of "
        "uv run python -c 'from warehouse.queries import filters_table; print(filters_table())'"
    )
    assert len(FILTERS) == 20


def _declarations(path: Path) -> list[tuple[str, int, str]]:
    """(filter name, line, form) of every place ``path`` writes a filter's name: a parameter,
    a keyword argument, a class field, a CLI option, or a string (a column's excepted)."""
    names = {**{n: n for n in FILTERS}, **{f.flag: n for n, f in FILTERS.items()}}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.arg) and node.arg in names:
            found.append((node.arg, node.lineno, "parameter"))
        elif isinstance(node, ast.keyword) and node.arg in names:
            found.append((node.arg, node.value.lineno, "keyword argument"))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id in names:
                found.append((node.target.id, node.lineno, "field"))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in names
            and node.value not in ITEM_COLUMNS
        ):
            found.append((names[node.value], node.lineno, "string"))
    return found


def test_each_filter_name_is_declared_once() -> None:
    """A new filter is one FilterSpec: no module of the surface lists the filters by name."""
    # the scan finds them where they are declared
    assert {name for name, _, _ in _declarations(SURFACE)} >= set(FILTERS) - ITEM_COLUMNS
    elsewhere = [
        f"{path.relative_to(REPO)}:{line}: {name} ({form})"
        for path in SURFACE_MODULES
        for name, line, form in _declarations(path)
    ]
    assert elsewhere == []


# GET /instances' own filters, whose names mean nothing else in the source (the others are
# also columns, economics or export parameters, or another figure's name: min_gpus of a model)
ONLY_FILTERS = ("min_vram", "min_total_vram", "max_price", "max_price_per_gpu", "min_vcpus")
ONLY_FILTERS += ("min_ram_gb",)


def _names_in_code(path: Path) -> set[str]:
    """Every name the code of ``path`` uses: identifiers, attributes, parameters, keywords and
    whole strings (not words inside a docstring or a description)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return found


def test_the_instances_own_filters_are_named_nowhere_else_in_the_source() -> None:
    """Not even as an attribute: only their FilterSpec names them in code."""
    assert all(n in FILTERS for n in ONLY_FILTERS)
    flags = {FILTERS[n].flag for n in ONLY_FILTERS}
    files = [p for pkg in ("api", "warehouse", "pipelines") for p in (REPO / pkg).rglob("*.py")]
    written = sorted(
        (name, path.relative_to(REPO).as_posix())
        for path in files
        if path != SURFACE
        for name in _names_in_code(path) & (set(ONLY_FILTERS) | flags)
    )
    assert written == []


def test_the_instances_parameters_are_the_declared_filters(tmp_path) -> None:
    app = create_app(tmp_path / "published")
    handler = app.route_handler_method_map["/instances"]["GET"]
    declared = list(handler.parsed_fn_signature.parameters)
    filters = [n for n in declared if n in FILTERS]
    assert filters == list(FILTERS)
    document = app.openapi_schema.to_schema()
    parameters = {
        p["name"]: p["schema"] for p in document["paths"]["/instances"]["get"]["parameters"]
    }
    assert [v for p in [parameters["sort"]] for v in p["enum"]] == list(INSTANCE_SORT_KEYS)
    for name, spec in FILTERS.items():  # (Litestar writes no minimum of 0)
        assert parameters[name].get("maximum") == spec.le, name
        assert parameters[name].get("minimum") == (spec.ge or None), name


def test_the_cli_options_are_the_declared_filters() -> None:
    parser = argparse.ArgumentParser()
    cli_query.register(parser.add_subparsers())
    query = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        "query"
    ]
    options = {o for a in query._actions for o in a.option_strings}
    assert {f.flag for f in FILTERS.values()} <= options
    assert set(query._option_string_actions["--sort"].choices or ()) == set(SORTS)
    args = query.parse_args(["--min-vram", "80", "--gpu", "H100", "--include-expired"])
    f = cli_query.filter_from_args(args)
    assert f.as_dict() == {"min_vram": 80.0, "gpu": ("h100",), "include_expired": True}
