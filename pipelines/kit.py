"""``gpuprices new-provider``: the provider kit.

Writes, from the templates in ``pipelines/kit_templates/``, everything a new provider needs to
pass CI as generated (CONTRIBUTING.md "Add a provider"):

- ``scrapers/<module>.py``: fetch, a parse that reads rows through
  ``scrapers.parsing.offers_from_rows``, and ``PROVIDER = Provider(...)`` (``verified="docs"``
  until a real capture exists);
- ``tests/scrapers/test_<slug>.py``: prices read off the example response;
- ``tests/scrapers/examples/<slug>/<date>_example_<what>.<ext>``: that response, in the layout
  the module reads (replace it with the provider's API reference example, cited, or read a
  real capture instead);
- ``tests/scrapers/unknown_rows/<slug>.py``: the made-up row the unknown-row contract injects;
- a row of ``warehouse/seeds/provider_facts.csv`` (name and kind as the registry states them,
  ``facts_as_of`` the day it was scaffolded; every other fact empty until looked up);
- one line in ``scrapers/registry.py``.

A provider's name and kind have one source, its ``Provider(...)`` in the registry: the facts
seed's ``name``/``kind``/``verified`` columns are derived from it (``sync_facts``, run by
``gpuprices new-provider --sync-facts``; ``tests/pipelines/test_kit.py`` keeps them equal).
Templates are ``string.Template`` files (``$$`` is a literal dollar sign).
"""

from __future__ import annotations

import argparse
import csv
import io
import keyword
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from string import Template
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = Path(__file__).resolve().parent / "kit_templates"
MAX_NAME = 40  # the templates' docstring lines hold it within the line length
KINDS = ("json-api", "html-page")  # the scaffold's layout
PROVIDER_KINDS = ("cloud", "marketplace", "serverless")  # Provider.kind
EXAMPLE_SUFFIX = {"json-api": ".json", "html-page": ".html"}
FACTS_SEED = Path("warehouse/seeds/provider_facts.csv")
REGISTRY = Path("scrapers/registry.py")
EXAMPLES = Path("tests/scrapers/examples")
# a slug is the provider's folder name under ../shared/snapshots: lowercase letters and digits
_SLUG = re.compile(r"^[a-z][a-z0-9]{0,23}$")  # short enough for the templates' lines
_IMPORT_BLOCK = re.compile(r"^from scrapers import \(\n(?P<names>(?:    \w+,\n)+)\)$", re.M)
_LIST_BLOCK = re.compile(
    r"^_PROVIDERS: list\[Provider\] = \[\n(?P<items>(?:    \w+\.PROVIDER,\n)+)\]$", re.M
)


class KitError(ValueError):
    """A scaffold that cannot be written (bad slug, provider already there): one line."""


@dataclass(frozen=True)
class Scaffold:
    slug: str
    kind: str  # json-api or html-page
    name: str
    homepage: str
    prices_url: str
    provider_kind: str = "cloud"
    today: date | None = None

    @property
    def module(self) -> str:
        """The module's name: the slug, or ``<slug>_cloud`` where the slug is a Python keyword
        (``lambda`` -> ``lambda_cloud``, STYLE.md)."""
        return f"{self.slug}_cloud" if keyword.iskeyword(self.slug) else self.slug

    def day(self) -> date:
        return self.today or datetime.now(UTC).date()

    def example_path(self) -> Path:
        what = "api" if self.kind == "json-api" else "pricing_page"
        name = f"{self.day().isoformat()}_example_{what}{EXAMPLE_SUFFIX[self.kind]}"
        return EXAMPLES / self.slug / name

    def substitutions(self) -> dict[str, str]:
        return {
            "slug": self.slug,
            "module": self.module,
            "name": self.name,
            "homepage": self.homepage,
            "prices_url": self.prices_url,
            "kind": self.provider_kind,
            "scrapers_imports": ", ".join(sorted([self.module, "http"])),
        }


def _check(scaffold: Scaffold, root: Path) -> None:
    if not _SLUG.match(scaffold.slug):
        raise KitError(f"slug {scaffold.slug!r} is not 1-24 lowercase letters and digits")
    if not 0 < len(scaffold.name) <= MAX_NAME or '"' in scaffold.name or "\\" in scaffold.name:
        raise KitError(f"name {scaffold.name!r}: 1-{MAX_NAME} characters, no quote or backslash")
    if scaffold.kind not in KINDS:
        raise KitError(f"kind {scaffold.kind!r} is not one of {', '.join(KINDS)}")
    if scaffold.provider_kind not in PROVIDER_KINDS:
        raise KitError(f"provider kind {scaffold.provider_kind!r} not in {PROVIDER_KINDS}")
    for url in (scaffold.homepage, scaffold.prices_url):
        if urlsplit(url).scheme != "https" or not urlsplit(url).netloc:
            raise KitError(f"{url!r} is not an https URL")
    if not (root / REGISTRY).is_file():
        raise KitError(f"{root} is not a gpuprices tree (no {REGISTRY})")
    for path in _targets(scaffold):
        if (root / path).exists():
            raise KitError(f"{path} already exists: {scaffold.slug} is scaffolded")
    if any(row["provider"] == scaffold.slug for row in _facts(root)[1]):
        raise KitError(f"{FACTS_SEED} already has a row for {scaffold.slug}")


def _targets(scaffold: Scaffold) -> dict[Path, str]:
    """Each written file -> its template."""
    return {
        Path("scrapers") / f"{scaffold.module}.py": f"{scaffold.kind}.scraper.py.tmpl",
        Path("tests/scrapers") / f"test_{scaffold.slug}.py": f"{scaffold.kind}.test.py.tmpl",
        Path("tests/scrapers/unknown_rows")
        / f"{scaffold.slug}.py": f"{scaffold.kind}.unknown_rows.py.tmpl",
        scaffold.example_path(): f"{scaffold.kind}.example.tmpl",
    }


def scaffold_provider(scaffold: Scaffold, root: Path = REPO) -> list[Path]:
    """Write the provider's files under ``root`` (the repository) and add its facts row and
    registry line; returns the paths written or changed, relative to ``root``.

    Raises ``KitError`` (one line) before writing anything when the slug is malformed, a file
    it would write exists, or the facts seed already has the slug.
    """
    _check(scaffold, root)
    values = scaffold.substitutions()
    texts = {
        path: Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(values)
        for path, template in _targets(scaffold).items()
    }
    for path, text in texts.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    _add_facts_row(scaffold, root)
    _add_registry_line(scaffold.module, root)
    return [*texts, FACTS_SEED, REGISTRY]


def _facts(root: Path) -> tuple[list[str], list[dict[str, str]]]:
    with (root / FACTS_SEED).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _csv_line(header: list[str], row: Mapping[str, str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([row.get(column, "") for column in header])
    return out.getvalue()


def _add_facts_row(scaffold: Scaffold, root: Path) -> None:
    header, _ = _facts(root)
    row = {
        "provider": scaffold.slug,
        "name": scaffold.name,
        "kind": scaffold.provider_kind,
        "verified": "docs",
        "facts_as_of": scaffold.day().isoformat(),
        "source_kind": "provider",
        "observed_basis": "retrieved",
        "source_urls": scaffold.homepage,
        "notes": f"Scaffolded by gpuprices new-provider on {scaffold.day().isoformat()}: only "
        "the name and kind are known; billing granularity, egress, storage and spot were not "
        "looked up yet.",
    }
    path = root / FACTS_SEED
    text = path.read_text(encoding="utf-8")
    separator = "" if text.endswith("\n") else "\n"
    path.write_text(text + separator + _csv_line(header, row), encoding="utf-8")


def _add_registry_line(module: str, root: Path) -> None:
    path = root / REGISTRY
    text = path.read_text(encoding="utf-8")
    imports, providers = _IMPORT_BLOCK.search(text), _LIST_BLOCK.search(text)
    if imports is None or providers is None:
        raise KitError(f"{REGISTRY}: the import block or the _PROVIDERS list was not found")
    names = sorted({*re.findall(r"\w+", imports["names"]), module})
    items = sorted({*re.findall(r"(\w+)\.PROVIDER", providers["items"]), module})
    text = (
        text[: providers.start("items")]
        + "".join(f"    {name}.PROVIDER,\n" for name in items)
        + text[providers.end("items") :]
    )
    text = (
        text[: imports.start("names")]
        + "".join(f"    {name},\n" for name in names)
        + text[imports.end("names") :]
    )
    path.write_text(text, encoding="utf-8")


DERIVED_COLUMNS = ("name", "kind", "verified")  # the facts seed's columns the registry states


def sync_facts(registered: Mapping[str, tuple[str, ...]], root: Path = REPO) -> list[str]:
    """Rewrite the facts seed's ``DERIVED_COLUMNS`` of every registered provider from
    ``registered`` (slug -> (name, kind, verified), the registry's); returns the slugs changed.
    Rows of curated-only providers (no scraper) keep theirs."""
    header, rows = _facts(root)
    changed = []
    for row in rows:
        derived = registered.get(row["provider"])
        if derived is not None and tuple(row[c] for c in DERIVED_COLUMNS) != derived:
            row.update(zip(DERIVED_COLUMNS, derived, strict=True))
            changed.append(row["provider"])
    if changed:
        lines = [_csv_line(header, {c: c for c in header}), *(_csv_line(header, r) for r in rows)]
        (root / FACTS_SEED).write_text("".join(lines), encoding="utf-8")
    return changed


def registered_names() -> dict[str, tuple[str, ...]]:
    """slug -> (name, kind, verified) of every registered provider: their one source."""
    from scrapers.registry import PROVIDERS  # only the commands need the registry

    return {slug: (p.name, p.kind, p.verified) for slug, p in PROVIDERS.items()}


def _run(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    if args.sync_facts:
        changed = sync_facts(registered_names(), root)
        print(f"{FACTS_SEED}: {'/'.join(DERIVED_COLUMNS)} of {len(changed)} provider(s) set")
        return 0
    if args.slug is None or args.kind is None:
        print("error: new-provider needs SLUG and --kind (or --sync-facts)", file=sys.stderr)
        return 2
    scaffold = Scaffold(
        slug=args.slug,
        kind=args.kind,
        name=args.name or args.slug.capitalize(),
        homepage=args.homepage or f"https://www.{args.slug}.com",
        prices_url=args.url or args.homepage or f"https://www.{args.slug}.com/pricing",
        provider_kind=args.provider_kind,
    )
    try:
        written = scaffold_provider(scaffold, root)
    except KitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``new-provider`` to the ``gpuprices`` parser."""
    parser = sub.add_parser(
        "new-provider",
        help="scaffold a provider: scraper, tests, example, facts row, registry line",
        description="Write scrapers/<slug>.py, its test, an example response, its "
        "unknown-row injector, its provider_facts.csv row and its registry line from a "
        "template; the result passes the test suite as written (CONTRIBUTING.md, 'Add a "
        "provider'). --sync-facts instead sets the facts seed's name and kind from the "
        "registry, their one source.",
    )
    parser.add_argument("slug", nargs="?", help="the provider's folder name under the snapshots")
    parser.add_argument("--kind", choices=KINDS, help="what the scraper reads")
    parser.add_argument("--name", help="display name (default: the slug, capitalised)")
    parser.add_argument("--homepage", metavar="URL", help="https homepage")
    parser.add_argument("--url", metavar="URL", help="the price API or page the scraper GETs")
    parser.add_argument(
        "--provider-kind",
        choices=PROVIDER_KINDS,
        default="cloud",
        help="what the provider sells: cloud (default), marketplace or serverless",
    )
    parser.add_argument("--root", default=str(REPO), help="repository to write into")
    parser.add_argument(
        "--sync-facts", action="store_true", help="derive the facts seed's name/kind"
    )
    parser.set_defaults(func=_run)
    return parser
