"""Small, strict helpers for reading numbers and money out of provider text.

They raise ``SchemaDriftError`` instead of guessing: a price cell that no longer looks like a
price means the page changed.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from scrapers.base import RawResponse, SchemaDriftError

MIB_PER_GB = Decimal(1000) / Decimal("1.048576")  # 1 GB = 1e9 B; 1 MiB = 1.048576e6 B
_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}
_MONEY = re.compile(r"(?P<sym>[$€£])?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<code>USD|EUR|GBP)?")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def money(text: str, *, default_currency: str | None = None) -> tuple[Decimal, str]:
    """``"$2.99 / GPU / hr"`` -> ``(Decimal("2.99"), "USD")``. Raises on text with no price."""
    match = _MONEY.search(text)
    if match is None or not (match["sym"] or match["code"] or default_currency):
        raise SchemaDriftError(f"expected a price, found {text.strip()[:60]!r}")
    currency = match["code"] or _CURRENCY_SYMBOLS.get(match["sym"] or "", default_currency)
    assert currency is not None
    return decimal(match["num"]), currency


def decimal(text: str | float | int) -> Decimal:
    """A Decimal from text such as ``"1,234.50"``; floats go through ``repr`` (no binary noise)."""
    try:
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
    try:
        return json.loads(response.body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SchemaDriftError(f"{response.url}: body is not JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from None


def html_body(response: RawResponse) -> LexborHTMLParser:
    return LexborHTMLParser(response.body.decode("utf-8", errors="replace"))


def require(value: Any, what: str) -> Any:
    """``value`` unless it is None/empty, else a schema-drift error naming ``what``."""
    if value is None or value == "" or value == [] or value == {}:
        raise SchemaDriftError(f"missing {what}")
    return value
