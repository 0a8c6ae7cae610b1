"""Data-quality gates that run before a scrape is committed, and freshness settings.

Price jumps: a scrape in which any offer's USD price per hour is ``jump_factor`` times (or
1/``jump_factor`` of) the price of its current open history interval is quarantined as a whole:
nothing of it is committed, each offending offer is recorded in ``quarantined_offers`` with its
old and new values, and the scrape fails with the problem ``PRICE_JUMP``. The default
factor is 10 (``GPUPRICES_PRICE_JUMP_FACTOR``): real GPU prices move by tens of percent, while
parser and unit bugs (cents read as dollars, a monthly price read as hourly: 730x, a per-second
price read as hourly: 1/3600x) move them by one or more orders of magnitude. A real 10x change
stays quarantined until an operator raises the factor for one run. The reference is never a
price the plausibility screen judged suspect when its interval opened (``price_screens``: a
provider's "not offered" placeholder, e.g. $0.50 for a GPU its cloud does not rent): an offer
whose current price is suspect is not judged (the real price that follows a placeholder under
the same offer id is no misread, nor is the placeholder seen again), and a suspect price is in
no GPU median.

Staleness, three questions with three answers:

- an *offer* is stale when its price is older than ``GPUPRICES_STALE_AFTER_DAYS`` (default 30)
  days at the snapshot instant, measured from its ``observed_at`` (a capture's date, not the time
  it was loaded): a 2023 price replayed today is three years old, whatever the scrape did;
- a *provider* is stale (``provider_status.stale``) when its newest price is older than its
  shelf life (``warehouse.shelf_life``: the longest among its prices' kinds), whatever the scrape
  did;
- a provider is overdue (``provider_status.overdue``) when no *live* scrape of it succeeded in
  the last ``GPUPRICES_STALE_AFTER_HOURS`` (default 24) hours: the pipeline has stopped
  refreshing it.

Bounds on what one scrape may claim, checked before anything of it is stored (and by
``warehouse.recovery`` on scrapes stored before the bounds existed):

- at most ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` offers (default 20,000; the largest real provider,
  Vast.ai's marketplace, lists a few hundred): one oversized answer (a page of 200k rows) would
  otherwise be stored and then exhaust memory in every later run's derived models;
- observed no later than now plus ``GPUPRICES_CLOCK_SKEW_S`` seconds (default 300): a scrape
  dated in the future (a capture named 2099-...) would stay the provider's newest, and so its
  current data, until that date.

The values are parameters (defaults: ``warehouse.settings``); the pipeline passes what its
settings say.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from statistics import median
from typing import Any

import duckdb

from warehouse.db import transaction
from warehouse.problems import Problem, ProblemCode
from warehouse.records import SCRAPE_SOURCE, Observation
from warehouse.settings import (
    DEFAULT_CLOCK_SKEW_S,
    DEFAULT_MAX_OFFERS_PER_SCRAPE,
    DEFAULT_PRICE_JUMP_FACTOR,
    DEFAULT_STALE_AFTER_HOURS,
)

PRICE_JUMP_FACTOR_ENV = "GPUPRICES_PRICE_JUMP_FACTOR"
STALE_AFTER_ENV = "GPUPRICES_STALE_AFTER_HOURS"
OFFER_STALE_AFTER_ENV = "GPUPRICES_STALE_AFTER_DAYS"
MAX_OFFERS_ENV = "GPUPRICES_MAX_OFFERS_PER_SCRAPE"
CLOCK_SKEW_ENV = "GPUPRICES_CLOCK_SKEW_S"
_RATIO_CAP = Decimal("999999999999")  # fits decimal(18, 6)


def latest_plausible_observation(
    now: datetime | None = None, clock_skew_s: float = DEFAULT_CLOCK_SKEW_S
) -> datetime:
    """The latest observation time accepted: now plus ``clock_skew_s`` (``GPUPRICES_CLOCK_SKEW_S``,
    default 300 s; clocks of servers and of this machine disagree by a little, never by days)."""
    return (now or datetime.now(UTC)) + timedelta(seconds=clock_skew_s)


def too_many_offers(count: int, limit: int = DEFAULT_MAX_OFFERS_PER_SCRAPE) -> Problem | None:
    """Why a scrape of ``count`` offers is refused (more than ``limit``,
    ``GPUPRICES_MAX_OFFERS_PER_SCRAPE``): ``TOO_MANY_OFFERS``; or None."""
    if count <= limit:
        return None
    return Problem(
        ProblemCode.TOO_MANY_OFFERS,
        f"rejected: {count} offers in one scrape, more than {MAX_OFFERS_ENV}={limit}"
        " (no real provider lists nearly as many); nothing of it is stored",
    )


def future_observation(observed_at: datetime, latest: datetime | None = None) -> Problem | None:
    """Why a scrape observed at ``observed_at`` is refused (``FUTURE_OBSERVATION``), or None
    (``latest`` default: ``latest_plausible_observation()`` with the default skew)."""
    latest = latest_plausible_observation() if latest is None else latest
    if observed_at <= latest:
        return None
    return Problem(
        ProblemCode.FUTURE_OBSERVATION,
        f"rejected: observed at {observed_at.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}, in the future"
        f" (later than now plus {CLOCK_SKEW_ENV}); nothing of it is stored",
    )


def stale_before(now: datetime | None = None, hours: float = DEFAULT_STALE_AFTER_HOURS) -> datetime:
    """The cut-off: a provider whose last live success finished before this instant
    (``hours``, ``GPUPRICES_STALE_AFTER_HOURS``, before ``now``) is overdue."""
    now = now or datetime.now(UTC)
    return now - timedelta(hours=hours)


@dataclass(frozen=True)
class PriceJump:
    """One offer whose new USD price per hour is implausibly far from its reference: its own
    open interval (``basis`` "offer") or, for a new offer, the median of the provider's current
    offers of the same GPU and pricing, scaled to its GPU count (``basis`` "gpu_median")."""

    offer_id: str
    instance_type: str
    region: str
    pricing: str
    basis: str
    old_price: Decimal
    old_currency: str
    old_price_per_hour_usd: Decimal
    old_scrape_id: str | None
    new_price: Decimal
    new_currency: str
    new_price_per_hour_usd: Decimal

    @property
    def ratio(self) -> Decimal:
        return min(self.new_price_per_hour_usd / self.old_price_per_hour_usd, _RATIO_CAP)

    def describe(self) -> str:
        against = "" if self.basis == "offer" else " (vs the median of its GPU)"
        return (
            f"{self.instance_type} {self.region} {self.pricing}: "
            f"{self.old_price_per_hour_usd.normalize():f} -> "
            f"{self.new_price_per_hour_usd.normalize():f} USD/h{against}, {self.ratio:.4g}x"
        )


def price_jumps(
    con: duckdb.DuckDBPyConnection,
    provider: str,
    rows: Sequence[Observation],
    factor: Decimal | None = None,
) -> list[PriceJump]:
    """Offers of ``rows`` (prepared by ``warehouse.load.prepare``) whose ``price_per_hour_usd``
    is at least ``factor`` times, or at most 1/``factor`` of, its reference (see ``PriceJump``):
    the offer's newest interval, open or closed (an offer listed again after a gap is compared
    with its last known price), else the median of the provider's open same-GPU offers.

    The GPU-median rule exists because some offers have no stable identity (a marketplace
    listing keyed by its own values gets a new id when its price changes). Across every
    recorded capture, same-GPU offers of one provider spread by at most ~3x, well inside 10x.
    A provider's first scrape has no reference and never jumps. A suspect price (``price_screens``)
    is left out of the medians, and a move away from an offer's own suspect price is a jump only
    when it is a jump from the median too. Reads only.
    """
    factor = factor if factor is not None else DEFAULT_PRICE_JUMP_FACTOR
    current: dict[str, tuple[Any, ...]] = {}
    per_gpu_hour: dict[tuple[str, str], list[Decimal]] = defaultdict(list)
    for (
        offer_id,
        price,
        currency,
        usd,
        scrape_id,
        gpu_id,
        usd_per_gpu,
        pricing,
        suspect,
        is_open,
    ) in con.execute(
        # each offer's newest interval, open or not: an offer back after a gap (not listed
        # for a while, or "not offered") is compared with its last known price
        "select offer_id, price, currency, price_per_hour_usd, scrape_id, gpu_id,"
        " price_per_gpu_hour_usd, pricing, exists (select 1 from price_screens as s"
        " where s.scrape_id = h.scrape_id and s.offer_id = h.offer_id"
        " and s.price_status = 'suspect'), valid_to is null from offer_history as h"
        " where provider = ? and source = ? and price_per_hour_usd > 0"
        " qualify row_number() over (partition by offer_id order by valid_from desc) = 1",
        [provider, SCRAPE_SOURCE],
    ).fetchall():
        current[offer_id] = (Decimal(price), currency, Decimal(usd), scrape_id, suspect)
        # the medians are of today's market: open intervals only
        if is_open and gpu_id is not None and usd_per_gpu is not None and not suspect:
            per_gpu_hour[(gpu_id, pricing)].append(Decimal(usd_per_gpu))
    medians = {key: median(values) for key, values in per_gpu_hour.items()}

    def median_usd(row: Observation) -> Decimal | None:
        reference = medians.get((row.gpu_id, str(row.pricing))) if row.gpu_id else None
        if reference is None:
            return None
        return (reference * Decimal(row.gpu_count)).quantize(Decimal("0.000001"))

    def jumped(new: Decimal, old: Decimal) -> bool:
        return new >= old * factor or new * factor <= old

    jumps = []
    for row in rows:
        # a price that reached 0 (or below) after rounding is the largest jump there is: it is
        # compared like any other (prepare rejects it too, this guard must not wave it through)
        new_usd = max(Decimal(row.price_per_hour_usd), Decimal(0))
        old = current.get(row.offer_id)
        if old is not None:
            basis = "offer"
            old_price, old_currency, old_usd, old_scrape, suspect = old
            # moving away from a price the screen judged suspect (a partial capture leaves one
            # open long after the provider corrected it) jumps only if it is far from the
            # median of its GPU's plausible prices as well
            fine = median_usd(row)
            if suspect and fine is not None and fine > 0 and not jumped(new_usd, fine):
                continue
        else:
            reference = median_usd(row)
            if reference is None:
                continue
            basis, old_currency, old_scrape = "gpu_median", "USD", None
            old_usd = old_price = reference
            if old_usd <= 0:
                continue
        if jumped(new_usd, old_usd):
            jumps.append(
                PriceJump(
                    row.offer_id,
                    row.instance_type,
                    row.region,
                    str(row.pricing),
                    basis,
                    old_price,
                    old_currency,
                    old_usd,
                    old_scrape,
                    Decimal(row.price),
                    row.currency,
                    Decimal(new_usd),
                )
            )
    return jumps


_QUARANTINE_COLUMNS = (
    "scrape_id",
    "provider",
    "offer_id",
    "instance_type",
    "region",
    "pricing",
    "basis",
    "old_price",
    "old_currency",
    "old_price_per_hour_usd",
    "old_scrape_id",
    "new_price",
    "new_currency",
    "new_price_per_hour_usd",
    "ratio",
    "quarantined_at",
)


def quarantine(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    jumps: Sequence[PriceJump],
    factor: Decimal | None = None,
) -> Problem:
    """Record ``jumps`` in ``quarantined_offers``; the scrape's problem (``PRICE_JUMP``)."""
    factor = factor if factor is not None else DEFAULT_PRICE_JUMP_FACTOR
    now = datetime.now(UTC)
    with transaction(con):
        con.execute("delete from quarantined_offers where scrape_id = ?", [scrape_id])
        con.executemany(
            f"insert into quarantined_offers ({', '.join(_QUARANTINE_COLUMNS)})"
            f" values ({', '.join('?' for _ in _QUARANTINE_COLUMNS)})",
            [
                [
                    scrape_id,
                    provider,
                    j.offer_id,
                    j.instance_type,
                    j.region,
                    j.pricing,
                    j.basis,
                    j.old_price,
                    j.old_currency,
                    j.old_price_per_hour_usd,
                    j.old_scrape_id,
                    j.new_price,
                    j.new_currency,
                    j.new_price_per_hour_usd,
                    j.ratio.quantize(Decimal("0.000001")),
                    now,
                ]
                for j in jumps
            ],
        )
    shown = "; ".join(j.describe() for j in jumps[:3])
    more = f"; and {len(jumps) - 3} more" if len(jumps) > 3 else ""
    return Problem(
        ProblemCode.PRICE_JUMP,
        f"quarantined: {len(jumps)} offer(s) moved {factor.normalize():f}x or more against "
        f"the current price ({shown}{more}); nothing of this scrape is published",
    )
