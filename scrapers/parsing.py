"""Small, strict helpers for reading numbers and money out of provider text.

They raise ``SchemaDriftError`` instead of guessing: a price cell that no longer looks like a
price means the page changed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial
from html.parser import HTMLParser
from typing import Any, Protocol, TypeVar

import ijson
from selectolax.lexbor import LexborHTMLParser

from scrapers.base import (
    Offer,
    PageOverBudget,
    PageTooLarge,
    RawResponse,
    SchemaDriftError,
    check_parse_deadline,
)

# Table rows one HTML page may hold before it is refused while being read (issue 15: a 31.5 MB
# page of 200k rows took 63 s to parse before the offer cap refused its 600k offers). The
# largest real capture has 38 rows, a full live pricing page a few hundred.
MAX_TABLE_ROWS_PER_PAGE = 5_000
# The HTML parse budget (issue 27: lexbor is quadratic in nesting depth; a 2.2 MB page of 200k
# nested <div> took 191 s, 22 MB ran past 300 s), checked by a linear scan before lexbor runs.
# Depth: Chromium's own parser stops nesting at 512 (kMaximumHTMLParserDOMTreeDepth,
# https://source.chromium.org/chromium/chromium/src/+/main:third_party/blink/renderer/core/html/parser/html_construction_site.h);
# the deepest real capture nests 141 (Modal's rendered page), lexbor parses 512 in under 1 ms.
# Elements: the largest real capture has 4,166. Bytes: the largest real HTML capture is 0.23 MB.
MAX_HTML_DEPTH = 512
MAX_HTML_ELEMENTS = 200_000
MAX_HTML_BYTES = 16 * 1024 * 1024
# The JSON budget (issue 27: json.loads builds the whole document at once; a 60 MB Vast answer of
# 60 KB regions was decoded whole, twice its size, before any offer was refused). Checked before
# decoding: the size at once, the rest by one streaming pass (ijson, yajl's C parser) that keeps
# nothing. Bytes: the largest real JSON capture is 1.8 MB (OVH's catalogue). Strings: the longest
# real one has 358 characters (an Oracle description); an offer keeps at most 256
# (base.MAX_TEXT_CHARS). Items (values and keys): the largest capture has ~130,000; each may cost
# ~70 bytes decoded however short its text (``[{},{},...]``), so they are counted too.
MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_JSON_STRING_CHARS = 16 * 1024
MAX_JSON_ITEMS = 1_000_000
_DEADLINE_EVERY_ITEMS = 65_536
MIB_PER_GB = Decimal(1000) / Decimal("1.048576")  # 1 GB = 1e9 B; 1 MiB = 1.048576e6 B
_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}
# a minus right before the symbol or the digits is the price's sign ("-$3.64", "$-3.64",
# "−$3.64"): a wrong price is read as printed and rejected by the loader, never turned positive
_MONEY = re.compile(
    r"(?P<sign>[-\u2212])?(?:(?P<sym>[$€£])\s*)?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<code>USD|EUR|GBP)?"
)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_Row = TypeVar("_Row")


class RowExcluded(Exception):
    """One row (or one price of a row) left out of a parse; ``reason`` is its exclusion reason
    (raised inside a parser, counted by ``offers_from_rows`` or where it is caught).

    ``once`` names the row when the same row can appear several times in one scrape (a SKU in
    several price lists): ``offers_from_rows`` counts one exclusion per distinct ``once``.
    """

    def __init__(self, reason: str, *, once: Hashable | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.once = once


def offers_from_rows(
    rows: Iterable[_Row],
    read_row: Callable[[_Row], Offer | Iterable[Offer] | None],
    excluded: Counter[str],
    *,
    seen: set[Hashable] | None = None,
) -> list[Offer]:
    """The offers ``read_row`` reads from each of ``rows``, in order: the parse loop of a scraper.

    ``read_row`` returns one offer, several, or None (a row it counted itself, or that holds
    no offer); a row for which it raises ``RowExcluded`` is left out and counted under its
    reason in ``excluded``, and the rows after it are still read. An exclusion that carries a
    ``once`` key is counted the first time that key is met (``seen`` holds the keys met so far,
    shared across calls). ``SchemaDriftError`` and any other error propagate: a layout that is
    gone fails the parse.
    """
    offers: list[Offer] = []
    for row in rows:
        check_parse_deadline("reading rows")
        try:
            read = read_row(row)
            # a generator raises while it is read: the row's offers are all kept or none
            found = [read] if isinstance(read, Offer) else [] if read is None else list(read)
        except RowExcluded as exc:
            if exc.once is not None and seen is not None:
                if exc.once in seen:
                    continue
                seen.add(exc.once)
            excluded[exc.reason] += 1
            continue
        offers.extend(found)
    return offers


class Layout(Protocol):
    """One response layout of a provider package (``scrapers/runpod/layouts/``,
    ``scrapers/lambda_cloud/layouts/``): a module with these three functions."""

    def detect(self, response: RawResponse) -> bool: ...

    def rows(self, response: RawResponse) -> Sequence[Any]: ...

    def read_row(self, row: Any, excluded: Counter[str]) -> Offer | Iterable[Offer] | None: ...


def offers_by_layout(
    response: RawResponse, layouts: Sequence[Layout], excluded: Counter[str], *, expected: str
) -> list[Offer]:
    """The offers of ``response`` read by the first of ``layouts`` whose ``detect`` is true:
    its ``rows``, each read by its ``read_row`` through ``offers_from_rows`` (exclusions counted
    in ``excluded``). Raises ``SchemaDriftError`` "<url>: unknown layout (<expected>)" when no
    layout detects it; ``expected`` says what the layouts look for."""
    for layout in layouts:
        if layout.detect(response):
            read_row = partial(layout.read_row, excluded=excluded)
            return offers_from_rows(layout.rows(response), read_row, excluded)
    raise SchemaDriftError(f"{response.url}: unknown layout ({expected})")


def known_names_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of ``names`` as a whole word (longest first, so
    "RTX PRO 6000" wins over "RTX 6000"): how a parser tells a GPU it knows from a new one."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


def money(text: str, *, default_currency: str | None = None) -> tuple[Decimal, str]:
    """``"$2.99 / GPU / hr"`` -> ``(Decimal("2.99"), "USD")``; ``"-$3.64"`` / ``"$-3.64"`` ->
    ``(Decimal("-3.64"), "USD")`` (signed as printed). Raises on text with no price."""
    match = _MONEY.search(text)
    if match is None or not (match["sym"] or match["code"] or default_currency):
        raise SchemaDriftError(f"expected a price, found {text.strip()[:60]!r}")
    currency = match["code"] or _CURRENCY_SYMBOLS.get(match["sym"] or "", default_currency)
    assert currency is not None
    amount = decimal(match["num"])
    return (-amount if match["sign"] or match["sign2"] else amount), currency


def decimal(text: str | float | int | Decimal) -> Decimal:
    """A Decimal from text such as ``"1,234.50"``; floats go through ``repr`` (no binary noise)."""
    try:
        if isinstance(text, Decimal):
            return text
        if isinstance(text, float):
            return Decimal(repr(text))
        if isinstance(text, int):
            return Decimal(text)
        return Decimal(text.replace(",", "").strip())
    except (InvalidOperation, AttributeError):
        raise SchemaDriftError(f"expected a number, found {text!r}") from None


def first_number(text: str) -> Decimal:
    match = _NUMBER.search(text)
    if match is None:
        raise SchemaDriftError(f"expected a number in {text.strip()[:60]!r}")
    return decimal(match.group())


def gb_from_mib(mib: Decimal | int | float) -> Decimal:
    """MiB (as GPU APIs report VRAM) to decimal GB, rounded to 0.1 GB."""
    return (decimal(mib) / MIB_PER_GB).quantize(Decimal("0.1"))


def json_body(response: RawResponse) -> Any:
    """The body decoded as JSON, within the JSON budget (``check_json_budget``).

    Raises ``PageOverBudget`` past the budget, ``SchemaDriftError`` for a body that is not
    UTF-8 JSON."""
    check_parse_deadline(response.url)
    check_json_budget(response)
    try:
        return json.loads(response.body)
    except json.JSONDecodeError as exc:
        raise SchemaDriftError(f"{response.url}: body is not JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise SchemaDriftError(f"{response.url}: body is not UTF-8 JSON ({exc.reason})") from None


def check_json_budget(response: RawResponse) -> None:
    """Raise ``PageOverBudget`` for a body json.loads should not be given: over
    ``MAX_JSON_BYTES``, holding a string (or key) over ``MAX_JSON_STRING_CHARS`` characters, or
    more than ``MAX_JSON_ITEMS`` values and keys. A few C-speed scans clear most bodies (every
    real capture); the others get one streaming pass that keeps nothing and stops at the first
    bound passed (the parse deadline checked as it goes). A body yajl cannot read (``NaN``, a
    byte-order mark, broken JSON) is left to json.loads, which names the error, once its items'
    upper bound is within the limit."""
    body = response.body
    if len(body) > MAX_JSON_BYTES:
        raise PageOverBudget(
            f"{response.url}: JSON answer of {len(body) / 1e6:.1f} MB, more than"
            f" {MAX_JSON_BYTES // (1024 * 1024)} MB, refused before decoding"
        )
    if _plainly_within_json_budget(body):
        return
    items = 0
    try:
        for event, value in ijson.basic_parse(body, use_float=True):
            if event == "end_map" or event == "end_array":
                continue
            items += 1
            if items > MAX_JSON_ITEMS:
                raise _too_many_items(response)
            if (event == "string" or event == "map_key") and len(value) > MAX_JSON_STRING_CHARS:
                raise PageOverBudget(
                    f"{response.url}: JSON string of more than {MAX_JSON_STRING_CHARS:,}"
                    " characters, refused before decoding"
                )
            if items % _DEADLINE_EVERY_ITEMS == 0:
                check_parse_deadline(response.url)
    except ijson.JSONError:
        if _items_at_most(body) > MAX_JSON_ITEMS:
            raise _too_many_items(response) from None


def _items_at_most(body: bytes) -> int:
    """An upper bound of the values and keys of a JSON text: each but the first comes right
    after a comma, a colon, or the bracket of its container (those inside strings count too)."""
    return 1 + sum(body.count(c) for c in (b",", b":", b"[", b"{"))


def _plainly_within_json_budget(body: bytes) -> bool:
    """True when ``body`` (as JSON) cannot hold a string over ``MAX_JSON_STRING_CHARS`` nor
    more than ``MAX_JSON_ITEMS`` items, from a few C-speed scans (~5 ms for 1.8 MB, the
    streaming pass ~80 ms): the items' upper bound is within the limit, no string holds an
    escaped quote, and every half-limit block of bytes holds a quote, so no run between two
    quotes (a string's text) is as long as the limit. False means: count exactly."""
    if _items_at_most(body) > MAX_JSON_ITEMS or b'\\"' in body:
        return False
    block = MAX_JSON_STRING_CHARS // 2
    return all(
        body.find(b'"', at, at + block) != -1 for at in range(0, len(body) - block + 1, block)
    )


def _too_many_items(response: RawResponse) -> PageOverBudget:
    return PageOverBudget(
        f"{response.url}: more than {MAX_JSON_ITEMS:,} JSON values and keys in one answer,"
        " refused before decoding"
    )


# Elements whose content is text (a script's "a<b" is no tag), comments, and tags. Elements that
# never nest in an HTML tree (void ones, and those whose end tag is implied by the next: a <p>
# or <li> closes the one before it) count as elements but not as depth.
_TOKEN = re.compile(
    rb"<!--.*?(?:-->|\Z)"
    rb"|<(script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)\b[^>]*>"
    rb".*?(?:</\1\s*>|\Z)"
    rb"|<(/?)([a-zA-Z][^\s/>]*)[^>]*>",
    re.S | re.I,
)
_FLAT = frozenset(
    b"area base br col embed hr img input link meta param source track wbr"
    b" p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rp"
    b" html head body".split()
)


def check_html_budget(response: RawResponse) -> None:
    """Raise ``PageOverBudget`` for a page lexbor should not be given: over ``MAX_HTML_BYTES``,
    nesting deeper than ``MAX_HTML_DEPTH`` or holding more than ``MAX_HTML_ELEMENTS`` elements.
    One linear pass over the tags (stopping at the first bound passed); the depth counted is an
    upper bound of the tree's (a stray end tag is not matched to its start)."""
    body = response.body
    if len(body) > MAX_HTML_BYTES:
        raise PageOverBudget(
            f"{response.url}: HTML page of {len(body) / 1e6:.1f} MB, more than"
            f" {MAX_HTML_BYTES // (1024 * 1024)} MB, refused before parsing"
        )
    depth = elements = 0
    for match in _TOKEN.finditer(body):
        if match.group(1) is not None:  # a text-only element: one element, no depth
            elements += 1
        elif match.group(3) is not None:
            name = match.group(3).lower()
            if match.group(2):  # an end tag
                if name not in _FLAT and depth:
                    depth -= 1
                continue
            elements += 1
            if name not in _FLAT and not match.group(0).endswith(b"/>"):
                depth += 1
                if depth > MAX_HTML_DEPTH:
                    raise PageOverBudget(
                        f"{response.url}: HTML nested more than {MAX_HTML_DEPTH} elements deep,"
                        " refused before parsing"
                    )
        if elements > MAX_HTML_ELEMENTS:
            raise PageOverBudget(
                f"{response.url}: more than {MAX_HTML_ELEMENTS:,} HTML elements on one page,"
                " refused before parsing"
            )


def html_body(response: RawResponse) -> LexborHTMLParser:
    """The page as a selectolax (lexbor) tree, within the HTML budget (``check_html_budget``,
    then the parse deadline); ``PageTooLarge`` when it holds more than
    ``MAX_TABLE_ROWS_PER_PAGE`` table rows (counted in C right after parsing, before any row is
    read in Python)."""
    check_parse_deadline(response.url)
    check_html_budget(response)
    tree = LexborHTMLParser(response.body.decode("utf-8", errors="replace"))
    check_parse_deadline(response.url)
    rows = len(tree.css("tr"))
    if rows > MAX_TABLE_ROWS_PER_PAGE:
        raise _too_many_rows(response, f"{rows:,} table rows")
    return tree


def _too_many_rows(response: RawResponse, found: str) -> PageTooLarge:
    return PageTooLarge(
        f"{response.url}: {found} on one page (at most {MAX_TABLE_ROWS_PER_PAGE:,} are read;"
        " no real pricing page has nearly as many), refused while parsing"
    )


def require(value: Any, what: str) -> Any:
    """``value`` unless it is None/empty, else a schema-drift error naming ``what``."""
    if value is None or value == "" or value == [] or value == {}:
        raise SchemaDriftError(f"missing {what}")
    return value


# --- HTML page helpers (appended for the HTML pricing-page scrapers) -------------------------

# Cell texts that mean "no public price here". Matched whole (case- and space-insensitive):
# a cell that merely contains one of these words next to a number is not a marker.
NO_PRICE_MARKERS = frozenset({"contact sales", "contact us", "coming soon", "n/a", "sold out"})


def node_text(node: Any) -> str:
    """The text of a selectolax node, inline pieces joined by one space, whitespace collapsed."""
    return " ".join(node.text(separator=" ").split())


def no_price_marker(text: str) -> str | None:
    """The normalised marker (``"contact sales"``) when ``text`` is a no-price cell, else None."""
    normalised = " ".join(text.split()).lower()
    return normalised if normalised in NO_PRICE_MARKERS else None


def usd_or_excluded(text: str, excluded: Counter[str]) -> Decimal | None:
    """The USD amount a price cell prints, or None with the reason counted in ``excluded``: its
    no-price marker (``"contact sales"``), or ``unparsed_price`` for no price or another
    currency."""
    marker = no_price_marker(text)
    if marker is not None:
        excluded[marker] += 1
        return None
    try:
        amount, currency = money(text)
    except SchemaDriftError:
        excluded["unparsed_price"] += 1
        return None
    if currency != "USD":
        excluded["unparsed_price"] += 1
        return None
    return amount


def is_document_tail(node: Any) -> bool:
    """True when no text follows ``node`` in document order.

    Captures are often excerpts cut at a text marker, so their last row can stop after its name.
    A row that is the very end of the document is such a cut edge; anywhere else, a short row
    is drift.
    """
    current = node
    while current is not None and not current.is_document_node:
        sibling = current.next
        while sibling is not None:
            if sibling.text(deep=True).strip():
                return False
            sibling = sibling.next
        current = current.parent
    return True


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell read by ``html_tables``: its tag (``th``/``td``) and collapsed text."""

    tag: str
    text: str


class _TableTokens(HTMLParser):
    """Tokenises ``<table>/<tr>/<th>/<td>`` without HTML5 tree building (see ``html_tables``)."""

    def __init__(self, response: RawResponse) -> None:
        super().__init__(convert_charrefs=True)
        self._response = response
        self._rows = 0
        self.tables: list[list[list[Cell]]] = [[]]
        self._row: list[Cell] | None = None
        self._cell: list[str] | None = None
        self._cell_tag = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._end_table()
        elif tag == "tr":
            self._end_row()
            self._row = []
        elif tag in ("td", "th"):
            self._end_cell()
            if self._row is None:
                self._row = []
            self._cell, self._cell_tag = [], tag
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr":
            self._end_row()
        elif tag == "table":
            self._end_table()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def close(self) -> None:
        super().close()
        self._end_table()

    def _end_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row.append(Cell(self._cell_tag, " ".join("".join(self._cell).split())))
        self._cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self._row:
            self._rows += 1
            if self._rows > MAX_TABLE_ROWS_PER_PAGE:  # stops the tokeniser: the rest is unread
                raise _too_many_rows(
                    self._response, f"more than {MAX_TABLE_ROWS_PER_PAGE:,} table rows"
                )
            self.tables[-1].append(self._row)
        self._row = None

    def _end_table(self) -> None:
        self._end_row()
        if self.tables[-1]:
            self.tables.append([])


def html_tables(response: RawResponse) -> list[list[list[Cell]]]:
    """Every table of an HTML body as rows of cells, in document order.

    Reads the tags as a token stream instead of building an HTML5 tree, because a tree builder
    drops ``<th>``/``<td>`` that are not inside a ``<table>`` -- which is what a capture cut out
    of the middle of a table looks like. A whole page and such an excerpt read the same. Nested
    tables are not supported (their cells would be merged into the outer row). Raises
    ``PageTooLarge`` at the first row past ``MAX_TABLE_ROWS_PER_PAGE``, without reading further.
    """
    check_parse_deadline(response.url)
    check_html_budget(response)
    tokens = _TableTokens(response)
    tokens.feed(response.body.decode("utf-8", errors="replace"))
    tokens.close()
    return [table for table in tokens.tables if table]


GIB_IN_GB = Decimal("1.073741824")  # 1 GiB = 1024^3 B = 1.073741824e9 B


def gb_from_gib(gib: Decimal | int | float | str) -> Decimal:
    """GiB (as cloud spec sheets state RAM) to decimal GB, rounded to 0.1 GB.

    Raises ``SchemaDriftError`` when ``gib`` is not a number.
    """
    value = gib if isinstance(gib, Decimal) else decimal(gib)
    return (value * GIB_IN_GB).quantize(Decimal("0.1"))


_SIZE = re.compile(r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>[MGT]i?B)\b")
_BYTES_PER_SIZE_UNIT = {
    "MB": Decimal(10) ** 6,
    "GB": Decimal(10) ** 9,
    "TB": Decimal(10) ** 12,
    "MiB": Decimal(2) ** 20,
    "GiB": Decimal(2) ** 30,
    "TiB": Decimal(2) ** 40,
}


def gb_from_size(text: str) -> Decimal:
    """``"1800 GiB"``, ``"22 TiB SSD"``, ``"1.8 TB"`` -> decimal GB (1e9 bytes), rounded to 0.1 GB.

    Decimal (MB/GB/TB) and binary (MiB/GiB/TiB) units are told apart, as providers mix both on
    one page. Raises ``SchemaDriftError`` when the text holds no number followed by such a unit.
    """
    match = _SIZE.search(text)
    if match is None:
        found = text.strip()[:60]
        raise SchemaDriftError(f"expected a size like '80 GB' or '1 TiB', found {found!r}")
    size_bytes = decimal(match["num"]) * _BYTES_PER_SIZE_UNIT[match["unit"]]
    return (size_bytes / _BYTES_PER_SIZE_UNIT["GB"]).quantize(Decimal("0.1"))


# --- Response and offer helpers (appended for the API scrapers) -------------------------------


def distinct_bodies(responses: Sequence[RawResponse]) -> list[RawResponse]:
    """The responses whose body was not already seen earlier in ``responses``, in order.

    In replay every request of a scrape is answered with the same capture file, so a scraper
    that sends several requests (an API plus a second endpoint, several pages) gets the same
    bytes more than once; parsing every copy would emit each offer several times.
    """
    seen: set[bytes] = set()
    kept = []
    for response in responses:
        if response.body not in seen:
            seen.add(response.body)
            kept.append(response)
    return kept


def ensure_unique(offers: Sequence[Offer]) -> list[Offer]:
    """``offers`` unchanged, or ``SchemaDriftError`` naming the first duplicated offer key.

    The key is the offer's identity, (product_key, region, cloud_tier, pricing,
    reserved_term_months): two
    rows with the same key in one scrape mean the source listed a configuration twice or the
    scraper's naming is ambiguous (two products given one product key); either way loading
    both would be wrong.
    """
    seen: set[tuple[str, str, str | None, str, int | None]] = set()
    for offer in offers:
        key = (
            offer.product_key,
            offer.region,
            offer.cloud_tier,
            offer.pricing.value,
            offer.reserved_term_months,
        )
        if key in seen:
            raise SchemaDriftError(f"duplicate offer {key!r}")
        seen.add(key)
    return list(offers)


def collapse_listings(offers: Sequence[Offer]) -> list[Offer]:
    """``offers`` with exact duplicates collapsed: one offer per distinct offer, its
    ``listings`` the sum of theirs, in first-seen order.

    For a source whose rows are listings (a marketplace listing each host as a row): two rows
    equal in every field an offer has (name, region, GPU, count, memory, vCPUs, RAM, storage,
    pricing, term, price, currency, unit, basis, flags, source, time) are rentable units the
    source publishes nothing to tell apart, so they are one offer listed N times, never N
    offers. Rows that differ in any field, the name included (a listing's own id), stay apart.
    A parser whose page may print one row twice (desktop and mobile markup) must not use it:
    a repeated row there is the same listing, and ``ensure_unique`` still rejects it.
    """
    found: dict[Offer, int] = {}
    for offer in offers:
        key = offer.model_copy(update={"listings": 1})
        found[key] = found.get(key, 0) + offer.listings
    return [
        offer if n == 1 else offer.model_copy(update={"listings": n}) for offer, n in found.items()
    ]


def money_at(text: str, where: str) -> tuple[Decimal, str]:
    """``money(text)``, with ``where`` (URL, row, column) prefixed to the drift message."""
    try:
        return money(text)
    except SchemaDriftError as exc:
        raise SchemaDriftError(f"{where}: {exc}") from None
