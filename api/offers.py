"""A snapshot's current offers ready to serve: the ``OfferTable`` and every row's JSON bytes.

Each row is encoded once per snapshot as its schema (:func:`encode_row`:
``api.schemas.instance_item``, the one place that turns an offer row into its bytes), so a page
of GET /instances is its rows' bytes joined: no encoding per request. The bytes are exactly what
encoding the page's InstanceItems would give (``tests/api/test_instances_pinned.py``).
"""

from __future__ import annotations

from typing import Any

from api.encoding import as_schema, encode
from api.schemas import Excluded, instance_item
from warehouse.queries import OfferFilter, OfferTable

MAX_EXCLUDED_KEYS = 4096  # filters come from requests: the cache of their `excluded` is bounded

_GROUP = b'"offers_in_group":'
_NULL = _GROUP + b"null"


def encode_row(item: dict[str, Any]) -> bytes:
    """One offer (``OfferTable.items[i]``, offers_in_group None) as its JSON object."""
    return encode(instance_item(item))


class EncodedOffers:
    """The OfferTable of a snapshot and each item's JSON bytes, whole and cut around its
    ``offers_in_group`` value (so a group count can be spliced in; the schema's field order,
    not the query's, decides where it sits)."""

    def __init__(self, table: OfferTable) -> None:
        self.table = table
        self._excluded: dict[OfferFilter, bytes] = {}
        self.rows: list[bytes] = []
        self.heads: list[bytes] = []
        self.tails: list[bytes] = []
        for item in table.items:
            body = encode_row(item)
            head, found, tail = body.partition(_NULL)
            if not found or _GROUP in tail:  # a key appears once: quotes in text are escaped
                raise ValueError(f"unexpected encoding of offer {item.get('id')!r}")
            self.rows.append(body)
            self.heads.append(head + _GROUP)
            self.tails.append(tail)

    def item_parts(self, rows: list[int], groups: list[int | None]) -> list[bytes]:
        """The JSON array of these rows as pieces to join (``[``, rows and commas, ``]``):
        joined once with the rest of the page, the body is copied once."""
        if not rows:
            return [b"[]"]
        parts = [b","] * (2 * len(rows) + 1)
        parts[0], parts[-1] = b"[", b"]"
        if all(g is None for g in groups):
            whole = self.rows
            parts[1::2] = [whole[i] for i in rows]
        else:
            heads, tails = self.heads, self.tails
            parts[1::2] = [
                heads[i] + (b"null" if g is None else b"%d" % g) + tails[i]
                for i, g in zip(rows, groups, strict=True)
            ]
        return parts

    def excluded_json(self, f: OfferFilter) -> bytes:
        """The ``excluded`` object of an answer filtered by ``f`` (``OfferTable.exclusions``),
        encoded as its schema; kept per filter (a repeated query costs a dict lookup)."""
        found = self._excluded.get(f)
        if found is None:
            found = encode(as_schema(Excluded, self.table.exclusions(f).as_dict()))
            if len(self._excluded) >= MAX_EXCLUDED_KEYS:
                self._excluded.clear()
            self._excluded[f] = found
        return found

    def items_json(self, rows: list[int], groups: list[int | None]) -> bytes:
        """The JSON array of these rows, as encoding their InstanceItems would give it."""
        return b"".join(self.item_parts(rows, groups))
