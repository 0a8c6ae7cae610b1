"""Offers -> observation records: resolve GPUs, convert prices once, validate. Writes nothing.

The one path for both loaders: ``warehouse.load`` (one scrape) and ``warehouse.batch`` (many
scrapes at once) call :func:`normalise`. Everything that depends only on a few distinct values
(offer id, GPU resolution, the ``warehouse.units`` conversion and its exchange rate) is
computed once per distinct value: a scrape or a batch lists many offers that share them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import duckdb
import msgspec

from warehouse.gpus import family_from_facts, load_gpus, resolve, stated_form_factor
from warehouse.problems import Problem, ProblemCode
from warehouse.quality import latest_plausible_observation
from warehouse.ranges import column_limits, out_of_range, range_problem
from warehouse.records import Observation, OfferLike, identity_key, offer_id
from warehouse.units import price_per_gpu_hour_usd, price_per_hour, quantize_money, to_usd

# The least USD per instance-hour that is a price (after rounding to the warehouse's 6
# decimals). The cheapest real offer in every capture is $0.12/h (a RunPod RTX A2000); a parser
# or unit bug (a per-second price read as per-year, $3.64 read as $0.0000001) lands far below.
MIN_PRICE_PER_HOUR_USD = Decimal("0.001")
_PRICE_QUANTUM = Decimal("0.000000001")  # observations.price is decimal(18, 9)
VRAM_REPORT_TOLERANCE = Decimal("0.10")


# (price per instance-hour, USD per unit, rate date, USD per instance-hour, USD per GPU-hour)
_Prices = tuple[Decimal, Decimal, date | None, Decimal, Decimal | None]


class LoadError(RuntimeError):
    """A scrape that cannot be loaded; ``code`` says why (``warehouse.problems``)."""

    def __init__(self, message: str, code: ProblemCode = ProblemCode.LOAD_ERROR) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Validation:
    """What the asset checks look at, computed before anything is committed.

    Empty scrapes, non-positive prices (also one that is positive only before rounding to what
    the warehouse stores, or below ``MIN_PRICE_PER_HOUR_USD`` per instance-hour) and offers
    observed in the future reject the scrape (``ok`` is False). A GPU name the
    canonical table does not know is a warning, not a rejection: the offer's price is still
    right, so it is loaded with ``gpu_id`` null (served without specs) and the provider's
    ``gpus_resolve`` check goes red until the alias or GPU row is added. Rejecting instead would
    freeze a provider's whole price list every time it launches a new GPU.
    """

    offer_count: int = 0
    non_positive_prices: list[str] = field(default_factory=list)
    # observed later than now plus the allowed clock skew (warehouse.quality)
    future_observations: list[str] = field(default_factory=list)
    unresolved_gpus: list[str] = field(default_factory=list)
    # figures a warehouse column cannot hold (warehouse.ranges): rejected
    out_of_range: list[str] = field(default_factory=list)
    # warning: the provider's memory figure is more than VRAM_REPORT_TOLERANCE away from the
    # canonical GPU's datasheet (served: the datasheet figure; kept: vram_gb_reported)
    vram_mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.offer_count > 0
            and not self.non_positive_prices
            and not self.future_observations
            and not self.out_of_range
        )

    def problems(self) -> list[str]:
        return [p.detail for p in self.coded_problems()]

    def coded_problems(self) -> list[Problem]:
        """What is wrong, each with its code (``GPU_UNRESOLVED`` is only a warning)."""
        out = []
        if self.offer_count == 0:
            out.append(Problem(ProblemCode.NO_OFFERS_PARSED, "no offers parsed"))
        if self.non_positive_prices:
            out.append(
                Problem(
                    ProblemCode.NON_POSITIVE_PRICE,
                    f"{len(self.non_positive_prices)} offers with price <= 0 (as stored, or under "
                    f"{MIN_PRICE_PER_HOUR_USD} USD/h): " + ", ".join(self.non_positive_prices[:5]),
                )
            )
        if self.future_observations:
            out.append(
                Problem(
                    ProblemCode.FUTURE_OFFERS,
                    f"{len(self.future_observations)} offers observed in the future: "
                    + ", ".join(self.future_observations[:5]),
                )
            )
        if self.out_of_range:
            out.append(range_problem(self.out_of_range))
        if self.unresolved_gpus:
            out.append(
                Problem(ProblemCode.GPU_UNRESOLVED, unresolved_message(self.unresolved_gpus))
            )
        return out


def unresolved_message(names: list[str]) -> str:
    return "GPU names not in the alias table: " + ", ".join(sorted(set(names))[:10])


def vram_report_mismatch(reported_gb: Decimal, gpu_id: str) -> bool:
    """True if a provider's per-GPU memory figure is more than 10% away from the datasheet
    figure of ``gpu_id`` (MiB read as GB, or CPU and GPU memory added together). The same rule
    as ``current_offers.vram_report_mismatch``."""
    datasheet = Decimal(str(load_gpus()[gpu_id].vram_gb))
    return abs(reported_gb - datasheet) > VRAM_REPORT_TOLERANCE * datasheet


def fx_rate(con: duckdb.DuckDBPyConnection, currency: str, on: date) -> tuple[Decimal, date | None]:
    """USD per unit of ``currency`` and the rate's date: the latest rate on or before ``on``,
    else the earliest. USD is (1, None): no conversion, so no rate date."""
    if currency == "USD":
        return Decimal(1), None
    row = con.execute(
        "select usd_per_unit, rate_date from fx_rates where currency = ?"
        " order by (rate_date <= ?) desc, case when rate_date <= ? then rate_date end desc,"
        " rate_date asc limit 1",
        [currency, on, on],
    ).fetchone()
    if row is None:
        raise LoadError(
            f"no exchange rate for {currency}; add it to warehouse/seeds/fx_rates.csv",
            ProblemCode.NO_FX_RATE,
        )
    return Decimal(row[0]), row[1]


class _Memo:
    """The per-distinct-value parts of normalising (GPU, offer id, price conversion)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.ids: dict[tuple[Any, ...], str] = {}
        self.gpus: dict[tuple[str, Decimal | None, str | None], tuple[str | None, str | None]] = {}
        self.mismatch: dict[tuple[str, Decimal], bool] = {}
        self.days: dict[datetime, date] = {}
        self.fx: dict[tuple[str, date], tuple[Decimal, date | None]] = {}
        self.prices: dict[tuple[Any, ...], _Prices] = {}

    def offer_id(self, o: OfferLike, pricing: str) -> str:
        key = (o.provider, identity_key(o), o.region, pricing, o.reserved_term_months, o.cloud_tier)
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = offer_id(*key)
        return found

    def gpu(self, o: OfferLike) -> tuple[str | None, str | None]:
        """(gpu_id, gpu_family) from the row's facts: its GPU name, VRAM and the form factor it
        states beside the name (the provider's ``gpu_form_factor`` and the instance type's
        words; two that disagree state none). A row no model fits gets its family (gpu_id
        None), or (None, None) when its name names no known GPU."""
        stated = {f for f in (o.gpu_form_factor, stated_form_factor(o.instance_type)) if f}
        form = next(iter(stated)) if len(stated) == 1 else None
        key = (o.gpu_name, o.vram_gb_reported, form)
        if key not in self.gpus:
            vram = float(o.vram_gb_reported) if o.vram_gb_reported is not None else None
            gpu_id = resolve(o.gpu_name, vram, form)
            family = None if gpu_id else family_from_facts(o.gpu_name, vram, form)
            self.gpus[key] = (gpu_id, family)
        return self.gpus[key]

    def vram_mismatch(self, vram: Decimal, gpu_id: str) -> bool:
        key = (gpu_id, vram)
        if key not in self.mismatch:
            self.mismatch[key] = vram_report_mismatch(Decimal(vram), gpu_id)
        return self.mismatch[key]

    def day(self, observed_at: datetime) -> date:
        found = self.days.get(observed_at)
        if found is None:
            found = self.days[observed_at] = observed_at.astimezone(UTC).date()
        return found

    def price(self, price: Decimal, o: OfferLike, unit: str, per: str, day: date) -> _Prices:
        """(price per instance-hour, USD per unit, rate date, USD per instance-hour, USD per
        GPU-hour) of ``price`` quoted as ``o`` quotes (its currency, unit, basis and GPU
        count), each converted once by ``warehouse.units``."""
        key = (price, unit, per, o.gpu_count, o.currency, day)
        found = self.prices.get(key)
        if found is None:
            hourly = price_per_hour(price, unit, per, o.gpu_count)
            if (o.currency, day) not in self.fx:
                self.fx[(o.currency, day)] = fx_rate(self.con, o.currency, day)
            usd_per_unit, rate_date = self.fx[(o.currency, day)]
            hourly_usd = quantize_money(to_usd(hourly, usd_per_unit))
            per_gpu_usd = price_per_gpu_hour_usd(
                price,
                unit,
                per,
                o.gpu_count,
                usd_per_unit=usd_per_unit,
                price_per_hour_usd=hourly_usd,
            )
            found = self.prices[key] = (
                quantize_money(hourly),
                usd_per_unit,
                rate_date,
                hourly_usd,
                per_gpu_usd,
            )
        return found


def _text(value: Any) -> str:
    # StrEnum members (scrapers.base) and plain strings alike: the stored value
    return value.value if hasattr(value, "value") else str(value)


def normalise(
    con: duckdb.DuckDBPyConnection,
    offers: Iterable[tuple[str, OfferLike]],
    *,
    latest_observed_at: datetime | None = None,
    validation: Validation | None = None,
) -> tuple[list[Observation], Validation]:
    """``(scrape_id, offer)`` pairs -> one observation per (scrape, offer id), and what is wrong.

    Prices are judged as stored: rounded to the columns' scale (``price`` 9 decimals, per-hour
    figures 6). An offer observed after ``latest_observed_at`` (default: now plus the allowed
    clock skew, ``warehouse.quality.latest_plausible_observation``) is a validation problem; so
    is a price <= 0 (those offers are left out). Raises ``LoadError`` when one scrape lists one
    offer twice with different prices, or a currency has no exchange rate."""
    latest = latest_observed_at or latest_plausible_observation()
    validation = validation or Validation()
    memo = _Memo(con)
    limits = column_limits(con)
    rows: dict[tuple[str, str], Observation] = {}
    count = 0
    for sid, o in offers:
        count += 1
        pricing, unit, per = _text(o.pricing), _text(o.price_unit), _text(o.price_per)
        oid = memo.offer_id(o, pricing)
        vram = o.vram_gb_reported
        gpu_id, gpu_family = memo.gpu(o)
        if gpu_id is None:
            validation.unresolved_gpus.append(o.gpu_name)
        elif vram is not None and memo.vram_mismatch(vram, gpu_id):
            validation.vram_mismatches.append(
                f"{o.instance_type}: {o.gpu_name} reported {vram} GB, datasheet "
                f"{load_gpus()[gpu_id].vram_gb:g} GB"
            )
        if o.observed_at > latest:
            validation.future_observations.append(
                f"{o.instance_type} {o.observed_at.astimezone(UTC):%Y-%m-%dT%H:%MZ}"
            )
            continue
        if o.price <= 0 or Decimal(o.price).quantize(_PRICE_QUANTUM) <= 0:
            validation.non_positive_prices.append(f"{o.instance_type} {o.price}")
            continue
        day = memo.day(o.observed_at)
        hourly, usd_per_unit, rate_date, hourly_usd, per_gpu_usd = memo.price(
            o.price, o, unit, per, day
        )
        # judged as stored: $3.64/h mis-read as $0.0000001/h rounds to 0.000000 (issue 15)
        if hourly <= 0 or hourly_usd < MIN_PRICE_PER_HOUR_USD:
            validation.non_positive_prices.append(
                f"{o.instance_type} {o.price} ({hourly_usd} USD/h)"
            )
            continue
        row = Observation(
            scrape_id=sid,
            offer_id=oid,
            provider=o.provider,
            instance_type=o.instance_type,
            region=o.region,
            pricing=pricing,
            reserved_term_months=o.reserved_term_months,
            gpu_name_provider=o.gpu_name,
            gpu_id=gpu_id,
            gpu_count=o.gpu_count,
            vram_gb_reported=vram,
            vcpus=o.vcpus,
            ram_gb=o.ram_gb,
            storage_gb=o.storage_gb,
            price=o.price,
            currency=o.currency,
            price_unit=unit,
            price_per=per,
            serverless=o.serverless,
            source_url=o.source_url,
            observed_at=o.observed_at,
            price_per_hour=hourly,
            usd_per_unit=usd_per_unit,
            fx_rate_date=rate_date,
            price_per_hour_usd=hourly_usd,
            offered=o.offered,
            price_per_gpu_hour_usd=per_gpu_usd,
            available=o.available,
            available_until=o.available_until,
            gpu_family=gpu_family,
            cloud_tier=o.cloud_tier,
            country=o.country,
            listings=o.listings,
        )
        if o.single_gpu_price is not None:  # one GPU, quoted like the price (unit, currency)
            row.single_gpu_price = o.single_gpu_price
            row.single_gpu_price_per_hour_usd = memo.price(o.single_gpu_price, o, unit, "gpu", day)[
                4
            ]
        if not _announce(row, o, memo, validation):
            continue
        too_large = out_of_range(msgspec.structs.asdict(row), limits)
        if too_large is not None:
            validation.out_of_range.append(f"{o.instance_type}: {too_large}")
            continue
        previous = rows.get((sid, oid))
        if previous is not None and _history_values(previous) != _history_values(row):
            raise LoadError(
                f"two different prices for one offer: {o.instance_type} {o.region} "
                f"{pricing}: {previous.price} vs {o.price}",
                ProblemCode.DUPLICATE_OFFER,
            )
        rows[(sid, oid)] = row
    validation.offer_count += count
    return list(rows.values()), validation


def _announce(row: Observation, o: OfferLike, memo: _Memo, validation: Validation) -> bool:
    """Fill ``row``'s announced price from the offer's, converted like its price (same unit,
    basis and exchange rate). False (a validation problem, like any price <= 0) when the
    announced price is not positive as stored. Raises ``LoadError`` for an announcement
    without its date or price, or dated at or before the observation (then it is the price)."""
    announced, start = o.announced_price, o.announced_from
    if announced is None and start is None:
        return True
    if announced is None or start is None or start <= o.observed_at:
        raise LoadError(
            f"announced price of {o.instance_type} {o.region} {row.pricing}: needs a price and a"
            f" start after the observation, got {announced} from {start}"
        )
    hourly, _, _, hourly_usd, per_gpu_usd = memo.price(
        announced, o, row.price_unit, row.price_per, memo.day(o.observed_at)
    )
    if Decimal(announced).quantize(_PRICE_QUANTUM) <= 0 or hourly_usd < MIN_PRICE_PER_HOUR_USD:
        validation.non_positive_prices.append(
            f"{o.instance_type} announced {announced} ({hourly_usd} USD/h)"
        )
        return False
    row.announced_price = announced
    row.announced_from = start
    row.announced_price_per_hour = hourly
    row.announced_price_per_hour_usd = hourly_usd
    row.announced_price_per_gpu_hour_usd = per_gpu_usd
    return True


def _history_values(row: Observation) -> tuple[Any, ...]:
    return (
        row.price,
        row.currency,
        row.gpu_id,
        row.gpu_count,
        row.announced_price,
        row.announced_from,
    )


def prepare(
    con: duckdb.DuckDBPyConnection,
    offers: Sequence[OfferLike],
    *,
    latest_observed_at: datetime | None = None,
) -> tuple[list[Observation], Validation]:
    """One scrape's offers as observations (``scrape_id`` filled in by ``load.commit_scrape``);
    see :func:`normalise`."""
    return normalise(con, (("", o) for o in offers), latest_observed_at=latest_observed_at)
