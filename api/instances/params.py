"""GET /instances' query string read by the fast route (``api.instances.controller``) exactly
as Litestar's validation reads it, or not at all: :func:`parse_query`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from warehouse.queries import FILTERS, FilterError, OfferFilter, OfferQuery
from warehouse.vocabulary import (
    DEFAULT_LIMIT,
    DEFAULT_SORT,
    INSTANCE_SORT_KEYS,
    MAX_LIMIT,
    MAX_LIST_VALUES,
    MAX_OFFSET,
)

_NUMBER = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
_INTEGER = re.compile(r"0|[1-9][0-9]{0,6}")
# the filters by kind (warehouse.queries.FILTERS); rules are true/false flags too
_FLOATS = frozenset(name for name, f in FILTERS.items() if f.kind == "number")
_FLAGS = frozenset(name for name, f in FILTERS.items() if f.kind in ("flag", "rule"))
_LISTS = frozenset(name for name, f in FILTERS.items() if f.kind == "list")
_PAGE_FLAGS = frozenset({"cheapest_per_gpu"})
_PLAIN = re.compile(rb"[A-Za-z0-9_.,&=%+-]*")


def parse_query(query_string: bytes) -> OfferQuery | None:
    """The OfferQuery of ``query_string`` when it is read here exactly as Litestar's validation
    reads it; None for anything else (an error, ``format=csv``, an unusual spelling): the
    handler then answers, with its own 400s. Never raises."""
    if not _PLAIN.fullmatch(query_string):
        return None
    text = query_string.decode("ascii")
    if "%" in text or "+" in text:
        try:
            pairs = parse_qsl(text, keep_blank_values=True, errors="strict")
        except ValueError:
            return None
    else:
        pairs = [part.partition("=")[::2] for part in text.split("&")] if text else []
    scalars: dict[str, Any] = {}
    lists: dict[str, list[str]] = {}
    page: dict[str, Any] = {}
    for name, value in pairs:
        if not name or not value or "=" in value:
            return None
        if name in _LISTS:
            values = lists.setdefault(name, [])
            values.append(value)
            if len(values) > MAX_LIST_VALUES:
                return None  # pricing's spellings and comma lists: OfferFilter.build
            continue
        if name in scalars or name in page:
            return None  # a repeat of a single-valued parameter: Litestar's answer
        if name in _FLOATS:
            if not _NUMBER.fullmatch(value):
                return None
            number, spec = float(value), FILTERS[name]
            if (spec.ge is not None and number < spec.ge) or (
                spec.le is not None and number > spec.le
            ):
                return None
            scalars[name] = number
        elif name in _FLAGS or name in _PAGE_FLAGS:
            if value not in ("true", "false"):
                return None
            (page if name in _PAGE_FLAGS else scalars)[name] = value == "true"
        elif name in ("limit", "offset"):
            if not _INTEGER.fullmatch(value):
                return None
            page[name] = int(value)
        elif name == "sort":
            if value not in INSTANCE_SORT_KEYS:
                return None
            page[name] = value
        elif name == "format":
            if value != "json":
                return None
            page[name] = value
        else:
            return None
    limit, offset = page.get("limit", DEFAULT_LIMIT), page.get("offset", 0)
    if not 1 <= limit <= MAX_LIMIT or offset > MAX_OFFSET:
        return None
    try:
        return OfferQuery(
            OfferFilter.build(**lists, **scalars),
            sort=page.get("sort", DEFAULT_SORT),
            limit=limit,
            offset=offset,
            cheapest_per_gpu=page.get("cheapest_per_gpu", False),
        )
    except FilterError:
        return None
