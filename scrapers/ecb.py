"""ECB euro foreign exchange reference rates: the daily XML feed, parsed into dated rates.

Not a GPU provider (no ``PROVIDER``): the pipeline uses these rates to convert EUR and GBP
prices to USD. The ECB publishes one reference rate per currency, quoted as units of that
currency per 1 EUR, once per working day around 16:00 CET.

Known layout (``eurofxref-daily.xml``): a ``gesmes:Envelope`` whose outer ``Cube`` holds one
``Cube time="YYYY-MM-DD"``, which holds one ``Cube currency="USD" rate="1.0705"`` per
currency. The ``Cube`` elements live in the eurofxref vocabulary namespace.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

import httpx

from scrapers import http
from scrapers.base import RawResponse, SchemaDriftError

DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
EUROFXREF_NS = "http://www.ecb.int/vocabulary/2002-08-01/eurofxref"
GESMES_NS = "http://www.gesmes.org/xml/2002-08-01"

_CUBE = f"{{{EUROFXREF_NS}}}Cube"
_ENVELOPE = f"{{{GESMES_NS}}}Envelope"
_CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True)
class FxRates:
    """One day of ECB reference rates.

    ``units_per_eur`` maps an ISO currency code to the units of that currency one euro buys
    (the ECB's own quotation, e.g. ``{"USD": Decimal("1.0705")}``). EUR itself is implied (1).
    """

    rate_date: date
    units_per_eur: Mapping[str, Decimal]
    source_url: str = DAILY_URL

    def usd_per(self, currency: str) -> Decimal:
        """USD for one unit of ``currency`` on ``rate_date``, via the euro cross rate.

        EUR -> the USD rate itself; USD -> 1; any other currency -> USD rate / its rate
        (e.g. GBP: USD-per-EUR / GBP-per-EUR). Raises ``KeyError`` for a currency the ECB did
        not quote that day. Full Decimal precision; rounding is the caller's choice.
        """
        code = currency.upper()
        usd = self.units_per_eur["USD"]
        if code == "USD":
            return Decimal(1)
        if code == "EUR":
            return usd
        if code not in self.units_per_eur:
            raise KeyError(f"no ECB reference rate for {code} on {self.rate_date.isoformat()}")
        return usd / self.units_per_eur[code]


def fetch(client: httpx.Client) -> RawResponse:
    """GET the daily reference-rate XML (no auth, no pagination); ``FetchError`` on failure."""
    return http.get(client, DAILY_URL)


def fetch_rates(client: httpx.Client) -> FxRates:
    """Live fetch and parse of today's rates. ``FetchError`` / ``SchemaDriftError`` on failure."""
    return parse_rates(fetch(client))


def parse_rates(raw: RawResponse) -> FxRates:
    """Pure: the recorded ``eurofxref-daily.xml`` bytes -> ``FxRates``.

    Raises ``SchemaDriftError`` when the body is not that layout: not XML, a DTD in the body,
    no dated ``Cube``, more than one dated ``Cube`` (that is the history file, not the daily
    one), a bad ``time``, a currency ``Cube`` without a well-formed code or a positive rate,
    a currency listed twice, or no USD rate.
    """
    # The feed never carries a DTD; refusing one keeps entity-expansion tricks out of the parser.
    if b"<!DOCTYPE" in raw.body[:4096].upper():
        raise SchemaDriftError(f"{raw.url}: unexpected DOCTYPE in the ECB rates XML")
    try:
        root = ET.fromstring(raw.body)
    except ET.ParseError as exc:
        raise SchemaDriftError(f"{raw.url}: body is not XML ({exc})") from None
    if root.tag != _ENVELOPE:
        raise SchemaDriftError(f"{raw.url}: root element is {root.tag!r}, not gesmes:Envelope")

    dated = [cube for cube in root.iter(_CUBE) if "time" in cube.attrib]
    if not dated:
        raise SchemaDriftError(f"{raw.url}: missing Cube with a time attribute")
    if len(dated) > 1:
        raise SchemaDriftError(
            f"{raw.url}: {len(dated)} dated Cubes, expected the daily file's one"
        )
    day_cube = dated[0]
    try:
        rate_date = date.fromisoformat(day_cube.attrib["time"])
    except ValueError:
        raise SchemaDriftError(f"{raw.url}: bad Cube time {day_cube.attrib['time']!r}") from None

    rates: dict[str, Decimal] = {}
    for cube in day_cube.findall(_CUBE):
        code = cube.attrib.get("currency", "")
        if not _CURRENCY_CODE.match(code):
            raise SchemaDriftError(f"{raw.url}: currency Cube without an ISO code: {cube.attrib}")
        rates[code] = _rate(cube.attrib.get("rate"), code, rates, raw.url)
    if "USD" not in rates:
        raise SchemaDriftError(f"{raw.url}: no USD rate in the Cube of {rate_date.isoformat()}")
    return FxRates(rate_date=rate_date, units_per_eur=MappingProxyType(rates), source_url=raw.url)


def _rate(text: str | None, code: str, seen: Mapping[str, Decimal], url: str) -> Decimal:
    if code in seen:
        raise SchemaDriftError(f"{url}: currency {code} listed twice")
    try:
        value = Decimal(text or "")
    except InvalidOperation:
        raise SchemaDriftError(f"{url}: rate for {code} is not a number: {text!r}") from None
    if not value.is_finite() or value <= 0:
        raise SchemaDriftError(f"{url}: rate for {code} is not positive: {text!r}")
    return value
