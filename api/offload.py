"""Answers that take more than a millisecond to build are built off the event loop.

One uvicorn worker runs every request's handler on one event loop; a handler that computes for
50 ms (a distinct /estimates or /fit query, a year of /history) holds every other request,
``/health`` included, for those 50 ms. Issue 27 measured it: 200 connections of distinct
/estimates and /fit queries gave 34 requests/s and ``/health`` failed 8 of 10 probes.

:func:`cached_off_loop` answers a cached body on the loop at once (a dictionary lookup), and
builds a missing one in a worker thread. The threads are few (``HEAVY_THREADS``): a thread that
computes in Python holds the GIL, and the loop gets its turn every switch interval (5 ms) only
while the threads competing with it are few, so a flood of heavy queries queues here instead of
starving the light ones. The queue is bounded too (``MAX_WAITING``): beyond it a request gets
503 with ``Retry-After: 1`` at once rather than holding a connection and its memory.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Hashable

import anyio.to_thread
from anyio import CapacityLimiter
from litestar.exceptions import ServiceUnavailableException

from api.store import Snapshot

HEAVY_THREADS = 2
MAX_WAITING = 64

_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)


def _limiter() -> CapacityLimiter:
    """This event loop's limiter (one per loop: a test client runs its own loop)."""
    loop = asyncio.get_running_loop()
    found = _limiters.get(loop)
    if found is None:
        found = _limiters[loop] = CapacityLimiter(HEAVY_THREADS)
    return found


async def cached_off_loop(snapshot: Snapshot, key: Hashable, build: Callable[[], bytes]) -> bytes:
    """``snapshot.cached(key, build)``, with ``build`` run in a worker thread on a miss.

    Raises ``ServiceUnavailableException`` (503, ``Retry-After: 1``) when ``MAX_WAITING``
    builds already wait for a thread."""
    hit = snapshot.responses.peek(key)
    if hit is not None:
        return hit
    limiter = _limiter()
    if limiter.statistics().tasks_waiting >= MAX_WAITING:
        raise ServiceUnavailableException(
            f"{MAX_WAITING} computed answers are already waiting; try again shortly",
            headers={"Retry-After": "1"},
        )
    return await anyio.to_thread.run_sync(snapshot.cached, key, build, limiter=limiter)


__all__ = ["HEAVY_THREADS", "MAX_WAITING", "cached_off_loop"]
