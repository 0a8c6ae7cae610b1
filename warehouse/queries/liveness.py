"""How many providers are live, and the sentence every surface shows when none is.

A provider is *live* (``provider_status.live``) when the prices it serves come from a live
scrape and are still within their shelf life (``warehouse/models/provider_status.sql``). The
count and the banner are read from ``provider_status`` by one query (``LIVENESS_SQL``) over any
connection holding it (a snapshot, the warehouse) and said the same way by ``GET /health``, the
page header, ``gpuprices status`` and the ingest summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb

LIVENESS_SQL = """
    select
        count(*)::integer as scraped_providers,
        count(*) filter (where live)::integer as live_providers,
        count(*) filter (where stale)::integer as stale_providers,
        coalesce(bool_or(data_origin = 'live'), false) as any_live_origin,
        min(newest_price_observed_at) as data_from,
        max(newest_price_observed_at) as data_to
    from provider_status
"""


@dataclass(frozen=True)
class Liveness:
    """Providers that have been scraped, how many are live and how many stale, and the span of
    the providers' newest served prices (UTC)."""

    scraped_providers: int
    live_providers: int
    stale_providers: int
    any_live_origin: bool
    data_from: datetime | None
    data_to: datetime | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Liveness:
        """From a row of ``LIVENESS_SQL`` (column name -> value)."""
        return cls(**{name: row[name] for name in cls.__dataclass_fields__})

    @property
    def line(self) -> str:
        """``3 of 21 providers live``: the count every surface prints."""
        return f"{self.live_providers} of {self.scraped_providers} providers live"

    @property
    def banner(self) -> str | None:
        """A plain sentence when no provider is live, else None: what is served instead."""
        if self.live_providers:
            return None
        if self.scraped_providers == 0:
            return "no provider is live: no provider has been scraped"
        if self.data_from is None or self.data_to is None:
            return "no provider is live, and no scraped price is served"
        span = f"{self.data_from:%Y-%m-%d}"
        if f"{self.data_to:%Y-%m-%d}" != span:
            span += f" to {self.data_to:%Y-%m-%d}"
        # live prices past their shelf life are old, not recorded
        what = "old data" if self.any_live_origin else "recorded data"
        return f"no provider is live: serving {what} observed {span}"


def liveness(con: duckdb.DuckDBPyConnection) -> Liveness:
    """The liveness of the ``provider_status`` that ``con`` holds."""
    result = con.execute(LIVENESS_SQL)
    names = [d[0] for d in result.description or []]
    row = result.fetchone() or ()  # an aggregate without group by returns one row
    return Liveness.of(dict(zip(names, row, strict=True)))
