"""Live exchange rates: the ECB's daily reference rates, stored before any provider loads.

Providers quoting EUR or GBP are converted to USD at load time with the latest rate on or
before the observation date, so this asset runs between ``seeds`` and the provider assets.
It never fails the run: without the live feed (no network, feed down, layout changed) it logs
one line and the seeded fallback rates (``warehouse/seeds/fx_rates.csv``, each with its date)
are used. Replays skip the live fetch, so a replay converts at the same rates every time.
"""

from typing import Any

import dagster as dg
import httpx

from pipelines.defs.resources import GpupricesResource
from scrapers import ecb
from scrapers import http as scraper_http
from warehouse.db import Warehouse
from warehouse.fx import LIVE_SOURCE, store_rates

FX_KEY = dg.AssetKey(["fx_rates"])


def refresh_rates(warehouse: Warehouse, client: httpx.Client) -> tuple[dict[str, Any], str]:
    """Fetch today's ECB rates through ``client`` and store them as USD per unit.

    Returns (asset metadata, one log line). Any failure to get or read the feed is reported in
    both, never raised: the seeded rates then apply. Database errors do raise.
    """
    try:
        rates = ecb.fetch_rates(client)
        usd = {code: rates.usd_per(code) for code in (*rates.units_per_eur, "EUR")}
    except Exception as exc:  # any feed problem: the seeded rates are the documented fallback
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else type(exc).__name__
        return (
            {"source": "seed", "live": False, "error": reason},
            f"fx_rates: live ECB rates unavailable ({reason}); using the seeded fallback rates",
        )
    with warehouse.connect() as con:
        count = store_rates(con, rates.rate_date, usd, LIVE_SOURCE)
    return (
        {
            "source": LIVE_SOURCE,
            "live": True,
            "rate_date": rates.rate_date.isoformat(),
            "currencies": count,
            "usd_per_eur": float(usd["EUR"]),
        },
        f"fx_rates: {count} ECB rates of {rates.rate_date.isoformat()} stored",
    )


@dg.asset(
    key=FX_KEY,
    group_name="seeds",
    kinds={"xml", "duckdb"},
    deps=[dg.AssetKey(["seeds"])],
    description="ECB daily euro reference rates as USD per unit, dated; the seeded "
    "fallback rates apply when the feed cannot be read (and in replays)",
)
def fx_rates(
    context: dg.AssetExecutionContext, gpuprices: GpupricesResource
) -> dg.MaterializeResult:
    if gpuprices.replay() is not None:
        context.log.info("fx_rates: replay run, live ECB rates not fetched; seeded rates apply")
        return dg.MaterializeResult(metadata={"source": "seed", "live": False})
    with scraper_http.make_client() as client:
        metadata, line = refresh_rates(gpuprices.warehouse(), client)
    (context.log.info if metadata["live"] else context.log.warning)(line)
    return dg.MaterializeResult(metadata=metadata)
