"""The rows the write side handles, one record type per table (or per staged input), and the
column lists derived from them.

A scraper's offer (``scrapers.base.Offer``, which the warehouse does not import) satisfies
:class:`OfferLike`; ``warehouse.load.prepare`` turns it into an :class:`Observation` (the row of
``observations``) with the ``warehouse.units`` conversions applied once, and the loader inserts
``Observation`` fields as they are. The column list of each insert is ``columns(Record)``:
adding a column means adding a field here (and a migration); no hand-kept list can drift.
``tests/warehouse/test_records.py`` checks every record against its table in the migrated
schema, and :class:`ScrapedOffer` against ``scrapers.base.Offer``.

Records are ``msgspec.Struct`` (fast to build, typed, no per-row validation: the values are
validated where they come from, the scraper's pydantic model or the seed readers).
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Protocol

import msgspec

# offer_history.source: scraped intervals, or "import:<dataset>" for imported history
SCRAPE_SOURCE = "scrape"
IMPORT_PREFIX = "import:"


def columns(record: type[msgspec.Struct]) -> tuple[str, ...]:
    """The column names of ``record`` (its field names, in table order)."""
    return record.__struct_fields__


def values(record: msgspec.Struct) -> tuple[Any, ...]:
    """The field values of ``record`` in :func:`columns` order."""
    return msgspec.structs.astuple(record)


def offer_id(
    provider: str,
    product_key: str,
    region: str,
    pricing: str,
    term: int | None,
    cloud_tier: str | None = None,
) -> str:
    """Stable id of an offer: the same (provider, product key, region, pricing, term, cloud
    tier) keeps it.

    The product key is the scraper's (``OfferLike.product_key``; ``identity_key``): one
    product stated in two spellings (an API's id, a web page's display name) is one offer, so
    its history is one series. The default key is the instance type itself, and a tier is
    hashed only where there is one, so the ids of offers whose scraper sets neither are the
    hash they always were (docs/history.md, "Offer identity")."""
    parts = [provider, product_key, region, pricing, str(term or "")]
    if cloud_tier is not None:
        parts.append(f"tier={cloud_tier}")
    key = "\x1f".join(parts)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def identity_key(offer: OfferLike) -> str:
    """The key an offer's id hashes: its scraper's product key, else its instance type."""
    return offer.product_key or offer.instance_type


class OfferLike(Protocol):
    """What the loader reads of an offer: the fields of ``scrapers.base.Offer``.

    Enum fields (pricing, price unit, price basis) may be ``StrEnum`` members or plain strings.
    """

    @property
    def provider(self) -> str: ...
    @property
    def instance_type(self) -> str: ...
    @property
    def product_key(self) -> str: ...
    @property
    def region(self) -> str: ...
    @property
    def cloud_tier(self) -> str | None: ...
    @property
    def country(self) -> str | None: ...
    @property
    def gpu_name(self) -> str: ...
    @property
    def gpu_count(self) -> Decimal: ...
    @property
    def vram_gb_reported(self) -> Decimal | None: ...
    @property
    def vcpus(self) -> Decimal | None: ...
    @property
    def ram_gb(self) -> Decimal | None: ...
    @property
    def storage_gb(self) -> Decimal | None: ...
    @property
    def pricing(self) -> str: ...
    @property
    def reserved_term_months(self) -> int | None: ...
    @property
    def price(self) -> Decimal: ...
    @property
    def currency(self) -> str: ...
    @property
    def price_unit(self) -> str: ...
    @property
    def price_per(self) -> str: ...
    @property
    def serverless(self) -> bool: ...
    @property
    def offered(self) -> bool | None: ...
    @property
    def source_url(self) -> str: ...
    @property
    def observed_at(self) -> datetime: ...
    @property
    def announced_price(self) -> Decimal | None: ...
    @property
    def announced_from(self) -> datetime | None: ...
    @property
    def available(self) -> bool | None: ...
    @property
    def available_until(self) -> datetime | None: ...
    @property
    def gpu_form_factor(self) -> str | None: ...
    @property
    def listings(self) -> int: ...
    @property
    def single_gpu_price(self) -> Decimal | None: ...


class ScrapedOffer(msgspec.Struct, frozen=True, kw_only=True):
    """An offer as a provider states it, when it does not come from a scraper's model (a batch
    table, a generated market): the fields of ``scrapers.base.Offer``, defaults included."""

    provider: str
    instance_type: str
    product_key: str = ""  # "": the instance type (identity_key)
    region: str = "global"
    cloud_tier: str | None = None
    country: str | None = None
    gpu_name: str
    gpu_count: Decimal
    vram_gb_reported: Decimal | None = None
    vcpus: Decimal | None = None
    ram_gb: Decimal | None = None
    storage_gb: Decimal | None = None
    pricing: str
    reserved_term_months: int | None = None
    price: Decimal
    currency: str
    price_unit: str = "hour"
    price_per: str = "instance"
    serverless: bool = False
    offered: bool | None = None
    available: bool | None = None
    available_until: datetime | None = None
    source_url: str
    observed_at: datetime
    announced_price: Decimal | None = None
    announced_from: datetime | None = None
    gpu_form_factor: str | None = None
    listings: int = 1
    single_gpu_price: Decimal | None = None


class Observation(msgspec.Struct, kw_only=True):
    """One row of ``observations``: one offer seen by one scrape, prices normalised.

    ``price_per_hour`` is the whole instance per hour in ``currency``, ``price_per_hour_usd``
    the same in USD at ``usd_per_unit`` (rate of ``fx_rate_date``), ``price_per_gpu_hour_usd``
    one GPU per hour in USD (null only for ``gpu_count`` 0), all rounded to 6 decimals
    (``warehouse.units``: each computed once, there)."""

    scrape_id: str
    offer_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    reserved_term_months: int | None
    gpu_name_provider: str
    gpu_id: str | None
    gpu_count: Decimal
    vram_gb_reported: Decimal | None
    vcpus: Decimal | None
    ram_gb: Decimal | None
    storage_gb: Decimal | None
    price: Decimal
    currency: str
    price_unit: str
    price_per: str
    serverless: bool
    source_url: str
    observed_at: datetime
    price_per_hour: Decimal
    usd_per_unit: Decimal
    fx_rate_date: date | None
    price_per_hour_usd: Decimal
    offered: bool | None
    price_per_gpu_hour_usd: Decimal | None
    # a price the source announces from ``announced_from`` on (all null: none), as quoted and
    # converted like ``price`` (same currency, unit and basis; the observation's exchange rate)
    announced_price: Decimal | None = None
    announced_from: datetime | None = None
    announced_price_per_hour: Decimal | None = None
    announced_price_per_hour_usd: Decimal | None = None
    announced_price_per_gpu_hour_usd: Decimal | None = None
    # whether the source says the offer can be bought now (null: it does not say) and the end
    # of service it announces (migration 0018; current_offers applies the end at as_of)
    available: bool | None = None
    available_until: datetime | None = None
    # the GPU family of a row no canonical GPU fits alone (gpu_id null; warehouse.gpus
    # family_from_facts, migration 0019); null when gpu_id is set or nothing is known
    gpu_family: str | None = None
    # the provider's product tier (part of the id) and the country the row itself names
    # (migration 0022); null: none
    cloud_tier: str | None = None
    country: str | None = None
    # how many identical source rows this offer stands for (migration 0023), and a price for
    # one GPU the source prints beside the instance price, as quoted and in USD per GPU-hour
    listings: int = 1
    single_gpu_price: Decimal | None = None
    single_gpu_price_per_hour_usd: Decimal | None = None


class HistoryObservation(msgspec.Struct, kw_only=True):
    """The observation-shaped rows ``warehouse.history.apply_batch`` reads (a subset of
    :class:`Observation`; the history importers stage them too)."""

    scrape_id: str
    offer_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    reserved_term_months: int | None
    gpu_name_provider: str
    gpu_id: str | None
    gpu_count: Decimal
    price: Decimal
    currency: str
    price_per_hour_usd: Decimal
    serverless: bool
    price_per_gpu_hour_usd: Decimal | None
    price_unit: str
    price_per: str
    price_per_hour: Decimal
    cloud_tier: str | None = None  # migration 0022


class Announcement(msgspec.Struct, kw_only=True):
    """The announced price of an observation, as ``warehouse.announcements`` reads it (the
    observations of a batch whose ``announced_from`` is set; a subset of :class:`Observation`)."""

    scrape_id: str
    offer_id: str
    announced_from: datetime
    announced_price: Decimal
    announced_price_per_hour: Decimal
    announced_price_per_hour_usd: Decimal
    announced_price_per_gpu_hour_usd: Decimal | None


class AnnouncementWithdrawal(msgspec.Struct, kw_only=True):
    """One row of ``announcement_withdrawals``: an announced interval a later scrape before its
    date no longer showed (or showed changed), taken out of ``offer_history``."""

    offer_id: str
    provider: str
    source: str
    announced_from: datetime
    price: Decimal
    currency: str
    price_per_hour_usd: Decimal
    price_per_gpu_hour_usd: Decimal | None
    announced_by_scrape_id: str | None
    withdrawn_by_scrape_id: str | None
    withdrawn_at: datetime


class BatchScrape(msgspec.Struct, kw_only=True):
    """One scrape of a batch load (``warehouse.batch.commit_batch``'s scrapes table)."""

    scrape_id: str
    provider: str
    run_id: str | None
    mode: str
    source: str
    observed_at: datetime
    status: str  # 'success' or 'failed'
    error: str | None
    coverage: str  # 'full' or 'partial' (scrapes.coverage, migration 0016)
    coverage_reason: str | None


class Fetch(msgspec.Struct, kw_only=True):
    """One row of ``fetches``: a request of a scrape and the archived body's sha256."""

    scrape_id: str
    seq: int
    method: str
    url: str
    status: int
    fetched_at: datetime
    sha256: str


class ScrapeExclusion(msgspec.Struct, kw_only=True):
    """One row of ``scrape_exclusions``: rows the parser left out of a scrape, per reason."""

    scrape_id: str
    provider: str
    reason: str
    row_count: int


class ScrapeSkippedPart(msgspec.Struct, kw_only=True):
    """One row of ``scrape_skipped_parts``: a request of a scrape that failed alone."""

    scrape_id: str
    provider: str
    part: str
    error: str


class ServerlessTier(msgspec.Struct, kw_only=True):
    """One row of ``serverless_tiers`` (``warehouse.facts.tier_rows``)."""

    offer_id: str
    platform: str
    tier: str
    instance_type: str
    gpu_id: str | None
    gpu_candidates: list[str] | None
    vram_gb_guaranteed: Decimal | None
    gpu_count: Decimal
    price: Decimal
    currency: str
    price_unit: str
    price_per_hour: Decimal
    price_per_hour_usd: Decimal
    source_date: date | None  # None: an undated third-party source (observed_basis undated)
    source_date_basis: str | None
    ends_on: date | None
    source_url: str | None
    notes: str | None
    always_on: bool
    price_per_gpu_hour_usd: Decimal | None
    gpu_family: str | None = None  # a tier naming only a family ("A100"), gpu_id null
    source_kind: str  # provider | third_party (warehouse.facts.SOURCE_KINDS)
    observed_basis: str  # published | captured | retrieved | undated (facts.OBSERVED_BASES)
    capture_file: str | None  # the stored capture (../shared/snapshots path) when captured


class EstimateOffer(msgspec.Struct, kw_only=True):
    """What a token estimate reads of a ``current_offers`` row (identity, hardware, USD price
    per instance-hour)."""

    offer_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    serverless: bool
    gpu_id: str
    gpu_count: Decimal
    price_per_hour_usd: Decimal
    observed_at: datetime


class TokenEstimate(msgspec.Struct, kw_only=True):
    """One row of ``token_estimates``: an offer x reference model at one setting."""

    offer_id: str
    model_id: str
    provider: str
    instance_type: str
    region: str
    pricing: str
    serverless: bool
    gpu_id: str
    gpu_count: Decimal
    input_tokens: int
    output_tokens: int
    precision_requested: str
    weight_precision: str
    compute_precision: str
    kv_precision: str
    precision_native: bool
    fallback_reason: str | None
    fits: bool
    not_estimated_reason: str | None
    gpus_used: int
    tensor_parallel: int
    data_parallel: int
    batch_per_replica: int
    output_tokens_per_s: float
    total_tokens_per_s: float
    price_per_hour_usd: Decimal
    usd_per_million_output_tokens: Decimal | None
    usd_per_million_total_tokens: Decimal | None
    observed_at: datetime
    # what the estimate assumes (migration 0018, economics.assumption_fields); null without one
    engine_class: str | None
    batch_cap_per_replica: int | None
    batch_limited_by: str | None  # kv_cache | batch_cap | concurrency
    kv_cache_gb_per_replica: float | None
    hbm_bandwidth_fraction: float | None
    limiting_regime: str | None  # memory_bound_decode | compute_bound | kv_capacity_bound
    sustained_compute_fraction: float | None  # migration 0026
    kv_admission: str | None  # max_utilization | guaranteed_no_evict (migration 0027)


OBSERVATION_COLUMNS = columns(Observation)
HISTORY_OBSERVATION_COLUMNS = columns(HistoryObservation)
ANNOUNCEMENT_COLUMNS = columns(Announcement)
ANNOUNCEMENT_WITHDRAWAL_COLUMNS = columns(AnnouncementWithdrawal)
SCRAPED_OFFER_COLUMNS = columns(ScrapedOffer)
BATCH_SCRAPE_COLUMNS = columns(BatchScrape)
ESTIMATE_OFFER_COLUMNS = columns(EstimateOffer)
TOKEN_ESTIMATE_COLUMNS = columns(TokenEstimate)
SERVERLESS_TIER_COLUMNS = columns(ServerlessTier)


class OfferIdMerge(msgspec.Struct, kw_only=True):
    """One row of ``offer_id_merges``: an offer id re-keyed to its product key's id
    (``warehouse.identity``), with the spelling it was stored under."""

    old_offer_id: str
    offer_id: str
    provider: str
    instance_type: str
    product_key: str
    merged_at: datetime
