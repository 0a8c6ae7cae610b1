"""GET /instances' one executor: a page of the snapshot's in-memory offers (``api.offers``:
the ``OfferTable`` and every row's pre-encoded bytes) as the JSON body, both ways in
(``api.instances.controller``) call it.

Off the event loop: a table larger than ``INLINE_ROWS`` offers is queried in a worker thread
(``anyio.to_thread``), so a burst of large queries never holds the loop, and ``/health`` and
other requests are still answered between them; a small table answers inline (a thread hop
costs more than the query). No response cache: an in-memory query costs less than a cache of
every query would.
"""

from __future__ import annotations

from typing import NamedTuple

import anyio.to_thread

from api.encoding import encode
from api.paging import next_offset
from api.store import NoSnapshot, Snapshot
from warehouse.queries import OfferQuery

INLINE_ROWS = 10_000  # tables up to this many offers are queried on the event loop


class Answer(NamedTuple):
    body: bytes  # the JSON page
    total: int  # the offers that matched (for the Link header)


def _null_or(value: int | None) -> bytes:
    return b"null" if value is None else b"%d" % value


def instances_body(snapshot: Snapshot, query: OfferQuery) -> Answer:
    """GET /instances' JSON body for ``query`` on ``snapshot``, from its in-memory offers (the
    ``OfferTable`` and pre-encoded rows: the one executor of the endpoint). ``NoSnapshot``
    (503) for a snapshot without ``current_offers``."""
    offers = snapshot.offers
    if offers is None:
        raise NoSnapshot(f"snapshot {snapshot.info.snapshot_id} holds no current offers")
    found = offers.table.page(query)
    following = next_offset(query.offset, query.limit, found.total)
    body = b"".join(
        [
            b'{"items":',
            *offers.item_parts(found.rows, found.groups),
            b',"total":%d,"excluded":' % found.total,
            offers.excluded_json(query.filter),
            b',"limit":%d,"offset":%d,"next_offset":' % (query.limit, query.offset),
            _null_or(following),
            b',"as_of":',
            encode(snapshot.as_of),
            b"}",
        ]
    )
    return Answer(body, found.total)


async def answer(snapshot: Snapshot, query: OfferQuery) -> Answer:
    """:func:`instances_body`, in a worker thread when the table is large (see module doc)."""
    offers = snapshot.offers
    if offers is not None and len(offers.table) <= INLINE_ROWS:
        return instances_body(snapshot, query)
    return await anyio.to_thread.run_sync(instances_body, snapshot, query)
