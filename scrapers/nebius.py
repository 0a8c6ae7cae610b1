"""Nebius: GPU prices from the public pricing page https://nebius.com/prices.

Known layouts (tables are found by their column headings, not by their titles, because a
capture's excerpt can start after the title):

- **Configuration table** (2024, ``div.pc-table`` with ``pc-table__row``/``pc-table__cell``):
  columns GPU ("8 × H200 SXM"), vRAM GB, RAM GB and vCPUs for the whole instance, then "On
  demand" and "Reserve" prices per instance-hour. vRAM per GPU = instance vRAM / GPU count.
- **GPU instances table** (2026, ``pc-highlight-table-block``): columns Item, vCPUs, RAM GB,
  "Preemptible, GPU-hour" and "On-demand, GPU-hour": one row per GPU type, prices per GPU-hour
  (preemptible -> spot), with the vCPUs/RAM that come with one GPU.
- **Announced prices** (seen 2026-09): the GPU instances table adds "GPU-hour (Effective
  October 1, 2026)" beside "On-demand, GPU-hour", and preemptible prices move to their own
  "Preemptible NVIDIA GPU Instances" table (Item, vCPUs, RAM GB, "Spot price, GPU-hour*").

Documented rules:

- **Reserve / commitment prices are not emitted.** The page prints a "Reserve" column and "as
  low as" commitment cards, but states only that commitments range "from 3 months to 3 years":
  no price is tied to a term, so there is no honest ``reserved_term_months``.
- A price cell that says "Contact us" (``parsing.NO_PRICE_MARKERS``) or holds only dashes
  ("––") has no public price: that row/pricing pair is not an offer (e.g. GB200 NVL72).
- "from $1.82" with a vCPU/RAM range ("16-192", "96-1152"): the price is that of the smallest
  configuration, so the lower bounds of the ranges are attached to it.
- **Effective-date columns.** A column headed "<base> (Effective <Month D, YYYY>)" is a
  scheduled price for the role its base names ("GPU-hour" and "On-demand, GPU-hour" ->
  on-demand, "Preemptible, GPU-hour" -> spot); the table must also have that role's plain
  column. For each role the column in force on the observation date (``fetched_at``, as a UTC
  date) is the offer's price: the one with the latest effective date on or before it, else the
  plain (current) column. The next column not yet in force (the earliest effective date after
  it) is the offer's announced price (``announced_price``, ``announced_from`` = that date at
  00:00 UTC): the warehouse stores it as the offer's next price interval. An announced cell
  equal to the price in force announces nothing (RTX PRO 6000 "$1.80" in both columns); one
  with no public or readable price, or a price that is not positive, announces nothing and is
  counted (``announced contact us``, ``announced dashes``, ``announced_unparsed_price``); the
  offer keeps its price. Columns further out are not read (the warehouse keeps one
  announcement per offer; the next scrape after the first date reads the second). An
  effective column with an unknown base or an unreadable date is ``SchemaDriftError``.
- **Dynamic spot prices** ("Spot price, GPU-hour*"): the page's footnote * says spot prices
  are dynamic (shown only in the console, capped one cent below on-demand), so a "from $0.79"
  in that column is the floor of a changing price, not the price in force: not an offer.
  Cells marked ** are offers: footnote ** exempts those (L40S) preemptible instances from spot
  pricing and bills them at a flat rate; they become spot offers, "from" taking the smallest
  configuration as above. Any other text in that column is drift.

Prices are USD per hour (the page's cards and column titles say "/ hour", "GPU-hour").

Exclusion rules (counted by ``parse_with_exclusions``, keyed by rule). One row the parser
cannot read never fails the provider; the rest of the page is still published:

- ``unknown_gpu <item>``: a GPU row whose item ("NVIDIA HGX B300", "8 × H200 SXM") names none
  of ``KNOWN_GPU_MODELS`` (the models seen on the captures, whole words, case-insensitively).
  The row is left out and reported once per page, though the on-demand and the preemptible
  table both list it.
- ``contact us`` (``parsing.NO_PRICE_MARKERS``) and ``dashes``: a price cell with no public
  price; the row's other prices are still offers.
- ``dynamic_spot_floor``: a "from $X" cell of the dynamic spot column (see above).
- ``unparsed_price``: any other price cell without a readable amount ("TBD"), or a dynamic spot
  cell that is neither "from $X" nor a flat rate. An amount that reads as zero or negative
  ("$0.00", "$-9.50", "-$9.50") is not unreadable: it is emitted as printed, so the loader
  rejects the whole scrape (``prices_positive``) instead of publishing the rest.
- ``unnamed_row``: a row without an item name.
- ``unparsed_row``: a row whose cells do not match the columns, whose GPU cell is not
  "N × GPU" (2024) or whose vRAM / RAM / vCPU figures are not numbers.

``SchemaDriftError`` is kept for the page's structure: no GPU table (or none with an on-demand
column), an unknown or repeated column heading, an effective-date column with an unknown base or
unreadable date, a table without its item/vCPU/RAM or price columns, a duplicated offer, and no
offer at all (the message lists the exclusions).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import httpx

from scrapers import http
from scrapers.kit import (
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    RowExcluded,
    SchemaDriftError,
    distinct_bodies,
    ensure_unique,
    first_number,
    html_body,
    money,
    no_price_marker,
    node_text,
    offers_from_rows,
    unknown_row,
)
from scrapers.parsing import known_names_pattern

PRICING_URL = "https://nebius.com/prices"
HOMEPAGE = "https://nebius.com"
TOKEN_ENV = None
# Offer identity (``Offer.product_key``): the 2024 page's 1-GPU presets -> the 2026 page's
# per-GPU rows (the key: the current spelling). Read off ../shared/snapshots/nebius: the
# 2024-11-15 "1 x H100 SXM" (80 GB vRAM, 16 vCPUs, 200 GB RAM; the page's "H100 NVLink") and
# the 2026-07-12 "NVIDIA HGX H100" (16 vCPUs, 200 GB RAM per GPU): one GPU, same vCPUs and RAM,
# on-demand, $2.95 -> $3.85 per GPU-hour; H200 likewise (141 GB, 16 vCPUs, 200 GB RAM; $3.50 ->
# $4.50). Not keyed: the 2024 8-GPU presets (the 2026 rows are one GPU), and "1 x L40s PCIe"
# (8 vCPUs, 32 GB): the 2026 page lists two L40S rows and swaps their "Intel CPU" / "AMD CPU"
# labels between July (8-40 vCPUs is AMD) and September (8-40 vCPUs is Intel).
PRODUCT_KEYS: dict[str, str] = {
    "1x H100 SXM": "NVIDIA HGX H100",
    "1x H200 SXM": "NVIDIA HGX H200",
}

# 2024 configuration table.
CONFIG_TABLE = "div.pc-table"
CONFIG_ROW = "div.pc-table__row"
CONFIG_CELL = "div.pc-table__cell"
# 2026 GPU instances table.
HIGHLIGHT_TABLE = "div.pc-highlight-table-block__table"
HIGHLIGHT_HEAD_ROW = "div.pc-highlight-table-block__head div.pc-highlight-table-block__row"
HIGHLIGHT_BODY_ROW = "div.pc-highlight-table-block__body div.pc-highlight-table-block__row"
HIGHLIGHT_CELL = "div.pc-highlight-table-block__cell"

_EFFECTIVE = re.compile(r"^(?P<base>.+?)\s*\(Effective (?P<date>[A-Za-z]+ \d{1,2}, \d{4})\)$")
FLAT_RATE_MARK = "**"  # the page's footnote for flat-rate (not dynamic) preemptible prices
_INSTANCE = re.compile(r"^(?P<count>\d+)\s*[×x]\s*(?P<gpu>\S.*)$")
_RANGE = re.compile(r"^\s*(?P<low>\d[\d,]*(?:\.\d+)?)\s*[-–]\s*\d[\d,]*(?:\.\d+)?\s*$")
_DASHES = re.compile(r"^[-–—\s]+$")
# ``parsing.money``'s amount with its sign: "-$3.64" and "$-3.64" are -3.64, not 3.64 and not
# unreadable (a minus counts when it touches the symbol or the digits, so the "-" of "Price -
# 3.64 USD" is not one). A negative (or zero) price is a wrong price: it is emitted as read so
# the loader rejects the scrape (``prices_positive``), never left out as an unreadable cell.
# The GPU models the page's rows name (every capture, priced or "Contact us"). A row naming none
# of them is reported as ``unknown_gpu``; adding a model here is how a new GPU gets published.
KNOWN_GPU_MODELS = (
    "GB300",
    "GB200",
    "B300",
    "B200",
    "H200",
    "H100",
    "RTX PRO 6000",
    "L40S",
)
_KNOWN_GPU = known_names_pattern(KNOWN_GPU_MODELS)


def fetch(client: httpx.Client, token: str | None) -> list[RawResponse]:
    """Live fetch: GET the pricing page. Raises ``FetchError`` when it fails."""
    return [http.get(client, PRICING_URL)]


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from either known table layout; USD per hour.

    Raises ``SchemaDriftError`` when no GPU table (or none with an on-demand column) is found, a
    GPU table has an unknown column or unreadable effective date, or no offer results; rows and
    cells that cannot be read are left out (and counted). Effective-date
    columns are chosen by each response's ``fetched_at`` (see the module docstring).

    Returns the offers, and how many rows/cells each documented exclusion rule left out.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        tree = html_body(response)
        found = _config_tables(tree) + _highlight_tables(tree)
        if not found:
            raise SchemaDriftError(f"{response.url}: no GPU price table (2024 or 2026 layout)")
        unknown: set[str] = set()  # a GPU's rows in two tables are one unknown row
        for headings, rows, reader in found:
            offers.extend(reader(headings, rows, response, excluded, unknown))
        if not any(_ON_DEMAND_HEADINGS.intersection(headings) for headings, _, _ in found):
            # e.g. only the preemptible table left: its few flat-rate rows are not the page.
            raise SchemaDriftError(f"{response.url}: no GPU table with an on-demand column")
        excluded.update(unknown_row("gpu", name) for name in unknown)
    if not offers:
        left_out = f"; excluded: {dict(excluded)}" if excluded else ""
        raise SchemaDriftError(f"no GPU offers found{left_out}")
    return ensure_unique(offers), excluded


def _config_tables(tree: Any) -> list[tuple[list[str], list[list[str]], Any]]:
    tables = []
    for table in tree.css(CONFIG_TABLE):
        rows = [[node_text(c) for c in row.css(CONFIG_CELL)] for row in table.css(CONFIG_ROW)]
        if rows and rows[0] and rows[0][0] == "GPU":
            tables.append((rows[0], rows[1:], _parse_config_rows))
    return tables


def _highlight_tables(tree: Any) -> list[tuple[list[str], list[list[str]], Any]]:
    tables = []
    for table in tree.css(HIGHLIGHT_TABLE):
        head = table.css_first(HIGHLIGHT_HEAD_ROW)
        if head is None:
            continue
        headings = [node_text(c) for c in head.css(HIGHLIGHT_CELL)]
        if not any("GPU-hour" in h for h in headings):
            continue  # CPU-only, storage and network tables share the layout
        rows = [
            [node_text(c) for c in r.css(HIGHLIGHT_CELL)] for r in table.css(HIGHLIGHT_BODY_ROW)
        ]
        tables.append((headings, rows, _parse_highlight_rows))
    return tables


def _columns(headings: list[str], known: dict[str, str]) -> dict[str, int]:
    """Heading -> role for every column; an unknown heading is drift."""
    columns: dict[str, int] = {}
    for index, heading in enumerate(headings):
        role = known.get(heading)
        if role is None:
            raise SchemaDriftError(f"unknown GPU table column {heading!r} in {headings!r}")
        columns[role] = index
    return columns


def _price(text: str) -> tuple[Decimal, str]:
    """(price, currency), negative or zero as printed; ``RowExcluded`` for a cell with no
    public price or no readable amount."""
    marker = no_price_marker(text)
    if marker is not None:
        raise RowExcluded(marker)
    if _DASHES.match(text):
        raise RowExcluded("dashes")
    try:
        return money(text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_price") from None


def _figure(text: str) -> Decimal:
    """A vCPU/RAM/vRAM figure, the lower bound of a range ("16-192"); ``RowExcluded`` if none."""
    match = _RANGE.match(text)
    try:
        return first_number(match["low"]) if match else first_number(text)
    except SchemaDriftError:
        raise RowExcluded("unparsed_row") from None


def _known_gpu(name: str) -> bool:
    """Whether the row's item names one of ``KNOWN_GPU_MODELS`` (as a whole word)."""
    return _KNOWN_GPU.search(name) is not None


_CONFIG_COLUMNS = {
    "GPU": "gpu",
    "vRAM, GB": "vram",
    "RAM, GB": "ram",
    "vCPUS": "vcpus",
    "vCPUs": "vcpus",
    "On demand": "on_demand",
    "Reserve": "reserve",
}


def _parse_config_rows(
    headings: list[str],
    rows: list[list[str]],
    response: RawResponse,
    excluded: Counter[str],
    unknown: set[str],
) -> list[Offer]:
    col = _columns(headings, _CONFIG_COLUMNS)
    for role in ("gpu", "vram", "ram", "vcpus", "on_demand"):
        if role not in col:
            raise SchemaDriftError(f"GPU table without a {role!r} column: {headings!r}")

    def read_row(cells: list[str]) -> Offer | None:
        if len(cells) != len(headings):
            raise RowExcluded("unparsed_row")
        item = cells[col["gpu"]]
        if not item:
            raise RowExcluded("unnamed_row")
        if not _known_gpu(item):
            unknown.add(item)
            return None
        match = _INSTANCE.match(item)
        if match is None:  # not "N × GPU"
            raise RowExcluded("unparsed_row")
        vram, vcpus, ram = (_figure(cells[col[role]]) for role in ("vram", "vcpus", "ram"))
        price, currency = _price(cells[col["on_demand"]])
        count = Decimal(match["count"])
        return Offer(
            provider="nebius",
            instance_type=f"{match['count']}x {match['gpu']}",
            gpu_name=match["gpu"],
            gpu_count=count,
            vram_gb_reported=vram / count,
            vcpus=vcpus,
            ram_gb=ram,
            pricing=PricingModel.ON_DEMAND,
            price=price,
            currency=currency,
            price_unit=PriceUnit.HOUR,
            price_per=PricePer.INSTANCE,
            source_url=PRICING_URL,
            observed_at=response.fetched_at,
        )

    return offers_from_rows(rows, read_row, excluded)


_HIGHLIGHT_COLUMNS = {
    "Item": "gpu",
    "vCPUs": "vcpus",
    "RAM, GB": "ram",
    "Preemptible, GPU-hour": "spot",
    "On-demand, GPU-hour": "on_demand",
    "Spot price, GPU-hour*": "dynamic_spot",
}
# Base of an "<base> (Effective <date>)" heading -> the role whose price it replaces then.
_EFFECTIVE_BASES = {
    "GPU-hour": "on_demand",
    "On-demand, GPU-hour": "on_demand",
    "Preemptible, GPU-hour": "spot",
}
_ON_DEMAND_HEADINGS = frozenset(
    heading
    for known in (_CONFIG_COLUMNS, _HIGHLIGHT_COLUMNS)
    for heading, role in known.items()
    if role == "on_demand"
)
_HIGHLIGHT_PRICINGS = {
    "on_demand": PricingModel.ON_DEMAND,
    "spot": PricingModel.SPOT,
    "dynamic_spot": PricingModel.SPOT,
}


def _effective_date(heading: str, text: str) -> date:
    try:
        return datetime.strptime(text, "%B %d, %Y").date()
    except ValueError:
        raise SchemaDriftError(f"unreadable effective date {text!r} in {heading!r}") from None


def _columns_in_force(
    headings: list[str], observed: date
) -> tuple[dict[str, int], dict[str, tuple[date, int]]]:
    """Role -> column index, taking for each role the column in force on ``observed``; and
    role -> (effective date, column index) of the next column announced after ``observed``.

    Plain headings map through ``_HIGHLIGHT_COLUMNS``; "<base> (Effective <date>)" headings are
    candidates for their base's role and win over the plain column once their date has come
    (the latest such date wins); the earliest one still to come is the announcement. Unknown or
    repeated headings are drift.
    """
    columns: dict[str, int] = {}
    announced: dict[str, tuple[date, int]] = {}
    scheduled: dict[str, list[tuple[date, int]]] = {}
    for index, heading in enumerate(headings):
        effective = _EFFECTIVE.match(heading)
        if effective:
            role = _EFFECTIVE_BASES.get(effective["base"])
            if role is None:
                raise SchemaDriftError(f"unknown GPU table column {heading!r} in {headings!r}")
            when = _effective_date(heading, effective["date"])
            scheduled.setdefault(role, []).append((when, index))
            continue
        role = _HIGHLIGHT_COLUMNS.get(heading)
        if role is None or role in columns:
            raise SchemaDriftError(f"unknown GPU table column {heading!r} in {headings!r}")
        columns[role] = index
    for role, candidates in scheduled.items():
        if role not in columns:
            raise SchemaDriftError(
                f"effective-date column for {role!r} without a current column: {headings!r}"
            )
        if len({when for when, _ in candidates}) != len(candidates):
            raise SchemaDriftError(f"two {role!r} columns with one effective date: {headings!r}")
        in_force = [(when, index) for when, index in candidates if when <= observed]
        if in_force:
            columns[role] = max(in_force)[1]
        to_come = [(when, index) for when, index in candidates if when > observed]
        if to_come:
            announced[role] = min(to_come)
    return columns, announced


def _announced(text: str, price: Decimal, currency: str, excluded: Counter[str]) -> Decimal | None:
    """The announced price of an effective-date cell, or None when it announces nothing: the
    price in force again, or a cell without a positive price in ``currency`` (counted as
    ``announced <reason>``; the offer keeps its price)."""
    try:
        announced, announced_currency = _price(text)
    except RowExcluded as exc:
        reason = exc.reason
        excluded[f"announced{'_' if reason.startswith('unparsed') else ' '}{reason}"] += 1
        return None
    if announced <= 0 or announced_currency != currency:
        excluded["announced_unparsed_price"] += 1
        return None
    return None if announced == price else announced


def _dynamic_spot_price(text: str) -> tuple[Decimal, str]:
    """A flat-rate cell of the dynamic spot column as a price; ``RowExcluded`` for anything else."""
    if text.endswith(FLAT_RATE_MARK):
        return _price(text.removesuffix(FLAT_RATE_MARK))
    if text.startswith("from "):
        _price(text)  # still a readable amount, or the cell is unparsed
        raise RowExcluded("dynamic_spot_floor")
    if no_price_marker(text) or _DASHES.match(text):
        return _price(text)  # raises under the marker's reason
    raise RowExcluded("unparsed_price")  # neither "from $X" nor a flat rate


def _parse_highlight_rows(
    headings: list[str],
    rows: list[list[str]],
    response: RawResponse,
    excluded: Counter[str],
    unknown: set[str],
) -> list[Offer]:
    observed = response.fetched_at.astimezone(UTC).date()
    col, announced = _columns_in_force(headings, observed)
    for role in ("gpu", "vcpus", "ram"):
        if role not in col:
            raise SchemaDriftError(f"GPU table without a {role!r} column: {headings!r}")
    if not any(role in col for role in _HIGHLIGHT_PRICINGS):
        raise SchemaDriftError(f"GPU table without a price column: {headings!r}")
    priced = [(role, pricing) for role, pricing in _HIGHLIGHT_PRICINGS.items() if role in col]

    def read_row(cells: list[str]) -> list[Offer] | None:
        if len(cells) != len(headings):
            raise RowExcluded("unparsed_row")
        gpu = cells[col["gpu"]]
        if not gpu:
            raise RowExcluded("unnamed_row")
        if not _known_gpu(gpu):
            unknown.add(gpu)
            return None
        vcpus, ram = _figure(cells[col["vcpus"]]), _figure(cells[col["ram"]])

        def read_price(column: tuple[str, PricingModel]) -> Offer:
            role, pricing = column
            text = cells[col[role]]
            price, currency = _dynamic_spot_price(text) if role == "dynamic_spot" else _price(text)
            announcement = announced.get(role)
            announced_price, announced_from = None, None
            if announcement is not None:
                when, index = announcement
                announced_price = _announced(cells[index], price, currency, excluded)
                if announced_price is not None:
                    announced_from = datetime(when.year, when.month, when.day, tzinfo=UTC)
            return Offer(
                provider="nebius",
                instance_type=gpu,
                gpu_name=gpu,
                gpu_count=Decimal(1),
                vcpus=vcpus,
                ram_gb=ram,
                pricing=pricing,
                price=price,
                currency=currency,
                price_unit=PriceUnit.HOUR,
                price_per=PricePer.GPU,
                source_url=PRICING_URL,
                observed_at=response.fetched_at,
                announced_price=announced_price,
                announced_from=announced_from,
            )

        # one price that cannot be read leaves out that price; the row's others are kept
        return offers_from_rows(priced, read_price, excluded)

    return offers_from_rows(rows, read_row, excluded)


PROVIDER = Provider(
    slug="nebius",
    name="Nebius",
    homepage=HOMEPAGE,
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
)
