"""The scraper contract: records, errors and the provider descriptor.

Every provider module exposes a module-level ``PROVIDER = Provider(...)``. ``fetch`` does the
I/O through an ``httpx.Client`` that is passed in (live, or answered by the replay transport)
and returns the raw responses; ``parse_with_exclusions`` is a pure function of those recorded
bytes (the offers, and the rows left out per reason). ``Provider.parse_report`` adds the drift
rule (``check_structure``) and keys every offer by the provider's product keys
(``Provider.product_key``); ``Provider.parse`` is its offers.
"""

from __future__ import annotations

import enum
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class ScraperError(Exception):
    """Base class for errors a scraper raises on purpose (never a bare traceback to users)."""


class FetchError(ScraperError):
    """The provider could not be reached or answered with an error status after retries."""


class SchemaDriftError(ScraperError):
    """The response does not have a layout this scraper knows: a page or API changed shape."""


class PageTooLarge(ScraperError):
    """A page with more table rows than any real pricing page has (hostile or broken): refused
    while it is read, before its rows become offers (``parsing.MAX_TABLE_ROWS_PER_PAGE``)."""


class PageOverBudget(PageTooLarge):
    """A response past the parse budget (``scrapers.parsing``: bytes, nesting depth and elements
    of an HTML page, checked by a linear scan before it is parsed; the parse deadline): refused
    with one line, the provider's last good data kept (issue 27)."""


# Seconds one provider's parse may take (``Provider.parse_report``); the parse helpers check it
# between steps (``check_parse_deadline``), and the HTML budget bounds each step in C.
PARSE_DEADLINE_S = 30.0
_parse_deadline: ContextVar[tuple[float, float] | None] = ContextVar("parse_deadline", default=None)


def check_parse_deadline(where: str) -> None:
    """Raise ``PageOverBudget`` when the running parse is past its deadline (a no-op outside
    ``Provider.parse_report``). ``where``: what was being read, for the message."""
    deadline = _parse_deadline.get()
    if deadline is not None and time.monotonic() > deadline[0]:
        raise PageOverBudget(
            f"{where}: parse deadline of {deadline[1]:g} s passed, refused while parsing"
        )


class MissingTokenError(ScraperError):
    """A provider needs an API token that is not set; the provider is skipped, not failed."""


class PricingModel(enum.StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED = "reserved"
    # A price the provider says changes from day to day (e.g. DataCrunch "dynamic" pricing):
    # neither a fixed on-demand rate nor an interruptible spot one.
    DYNAMIC = "dynamic"


class PriceUnit(enum.StrEnum):
    """The unit of time the provider quotes the price in (its native unit)."""

    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    MONTH = "month"


class PricePer(enum.StrEnum):
    """What one quoted price buys: the whole instance, or one GPU of it."""

    INSTANCE = "instance"
    GPU = "gpu"


@dataclass(frozen=True, slots=True)
class RawResponse:
    """One recorded HTTP exchange: what ``parse`` reads and what the warehouse archives."""

    url: str
    method: str
    status: int
    content_type: str
    body: bytes
    fetched_at: datetime

    @classmethod
    def from_httpx(cls, response: httpx.Response, fetched_at: datetime) -> RawResponse:
        return cls(
            url=str(response.request.url),
            method=response.request.method,
            status=response.status_code,
            content_type=response.headers.get("content-type", ""),
            body=response.content,
            fetched_at=fetched_at,
        )


def normalise_product_key(text: str) -> str:
    """A product key as identity compares it: surrounding whitespace dropped, every run of
    whitespace (tabs, newlines, non-breaking spaces of a web page) one space. Case is kept:
    every stored offer id hashes its instance type's case, so folding it would give every
    provider new ids; a provider whose spelling varies in case says so in its
    ``Provider.product_keys`` or ``Provider.product_key_rule``."""
    return " ".join(text.split())


# Text an offer may carry, characters (issue 27: 1,000 Vast offers with 60 KB regions, a 60 MB
# answer within every per-response limit, drove ingest to 4.75 GB). The longest real value is
# 62 characters (an instance type), the longest source URL 385.
MAX_TEXT_CHARS = 256
MAX_URL_CHARS = 2048


class Offer(BaseModel):
    """One rentable GPU configuration at one price, as the provider states it.

    Prices stay in the provider's currency and unit here; conversion to USD per hour happens
    in exactly one place (``scrapers.units`` / the warehouse), never per provider.

    ``product_key`` is the offer's identity within its provider (with region, pricing and term):
    the warehouse's offer id is a hash of them, so two spellings of one product (an API's id and
    a web page's display name) must get one key, and two products one capture lists apart must
    never share one. Default: the instance type (``normalise_product_key``); a provider that
    spells one product several ways declares them (``Provider.product_keys``,
    ``Provider.product_key_rule``) and ``Provider.parse_report`` keys its offers by them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    instance_type: str = Field(
        min_length=1, max_length=MAX_TEXT_CHARS, description="Instance type, SKU or tier name"
    )
    product_key: str = Field(
        default="",
        max_length=MAX_TEXT_CHARS,
        description="The product's stable key within the provider, whatever the spelling of the"
        " layout it was read from (default: the instance type); whitespace-normalised",
    )
    region: str = Field(
        default="global",
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="The provider's own region id (a data centre, a zone, a country code"
        " where the source locates by country), 'global' where it names none; never a"
        " product tier (that is `cloud_tier`)",
    )
    cloud_tier: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="The provider's product tier the price belongs to, where it sells one GPU"
        " in several tiers (e.g. a secure vs a community cloud); part of the offer's identity."
        " None: the provider has no tiers",
    )
    country: str | None = Field(
        default=None,
        pattern=r"^[A-Z]{2}$",
        description="ISO 3166-1 alpha-2 country the row itself names (a host's location, a"
        " country-code region); None: the row names none (the warehouse's region seed"
        " places a region id)",
    )
    gpu_name: str = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="The provider's spelling of the GPU model",
    )
    gpu_count: Decimal = Field(gt=0, description="GPUs per instance (fractional for shared GPUs)")
    vram_gb_reported: Decimal | None = Field(
        default=None,
        ge=0,
        description="GB of memory per whole GPU as the provider states it (served beside the"
        " datasheet figure, never instead of it)",
    )
    vcpus: Decimal | None = Field(default=None, ge=0)
    ram_gb: Decimal | None = Field(default=None, ge=0)
    storage_gb: Decimal | None = Field(default=None, ge=0)
    pricing: PricingModel
    reserved_term_months: int | None = Field(default=None, gt=0)
    price: Decimal = Field(description="Price in `currency` per `price_unit` per `price_per`")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    price_unit: PriceUnit = PriceUnit.HOUR
    price_per: PricePer = PricePer.INSTANCE
    serverless: bool = False
    offered: bool | None = Field(
        default=None,
        description="The provider's own flag for whether this price is actually offered "
        "(False: listed but flagged unavailable, e.g. a placeholder); None: the response "
        "carries no flag",
    )
    available: bool | None = Field(
        default=None,
        description="Whether the source says this offer can be bought now: True (in stock, "
        "deployable somewhere, a live listing), False (no location to deploy in, sold out, "
        "'contact sales', flagged not offered, or past `available_until`); None: the source "
        "does not say",
    )
    available_until: datetime | None = Field(
        default=None,
        description="The end of service the provider announces for this offer (UTC): from "
        "then on it is not available, whatever its stock says; None: no end announced",
    )
    source_url: str = Field(max_length=MAX_URL_CHARS)
    observed_at: datetime
    announced_price: Decimal | None = Field(
        default=None,
        gt=0,
        description="A price the provider announces for later (an 'Effective <date>' column, "
        "'new pricing from ...'), in the offer's `currency` per `price_unit` per `price_per`; "
        "None: nothing announced. Set together with `announced_from`",
    )
    announced_from: datetime | None = Field(
        default=None,
        description="When `announced_price` takes effect (UTC, after `observed_at`)",
    )
    gpu_form_factor: str | None = Field(
        default=None,
        pattern=r"^(?:SXM|PCIe)$",
        description="The GPU's form factor (SXM or PCIe, as the GPU seed spells it) where the"
        " provider states it beside `gpu_name`, e.g. in its documentation of the product; None:"
        " not stated (the warehouse then reads only the name's and instance type's words)",
    )
    listings: int = Field(
        default=1,
        ge=1,
        description="How many of the source's rows this offer stands for: a marketplace row"
        " repeated exactly (same GPU, count, price, region, specs; nothing the source publishes"
        " tells the rows apart) is one offer with listings N (``parsing.collapse_listings``)",
    )
    single_gpu_price: Decimal | None = Field(
        default=None,
        gt=0,
        description="A price for one GPU of this instance's model that the source prints beside"
        " the instance price (a derived column of the same row, e.g. an 'Inference Single GPU'"
        " column), in the offer's `currency` per `price_unit`; a property of this offer, never"
        " an offer of its own. None: the source prints none",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_product_key(cls, data: object) -> object:
        if isinstance(data, dict) and not data.get("product_key"):
            return {**data, "product_key": data.get("instance_type") or ""}
        return data

    @field_validator("product_key")
    @classmethod
    def _normalised_key(cls, value: str) -> str:
        key = normalise_product_key(value)
        if not key:
            raise ValueError("product_key must not be blank")
        return key

    @field_validator("observed_at", "announced_from", "available_until")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError(
                "observed_at, announced_from and available_until must be timezone-aware (UTC)"
            )
        return value

    @model_validator(mode="after")
    def _availability(self) -> Offer:
        """The general rules of availability: a price the provider flags as not offered is not
        available, and neither is an offer observed on or after its end of service."""
        ended = self.available_until is not None and self.observed_at >= self.available_until
        if (self.offered is False or ended) and self.available is not False:
            object.__setattr__(self, "available", False)  # frozen model: set once, here
        return self

    @model_validator(mode="after")
    def _term_matches_pricing(self) -> Offer:
        if self.pricing is PricingModel.RESERVED and self.reserved_term_months is None:
            raise ValueError("reserved offers need reserved_term_months")
        if self.pricing is not PricingModel.RESERVED and self.reserved_term_months is not None:
            raise ValueError("only reserved offers carry reserved_term_months")
        if (self.announced_price is None) != (self.announced_from is None):
            raise ValueError("announced_price and announced_from go together")
        if self.announced_from is not None and self.announced_from <= self.observed_at:
            # a price already in force on the page is the offer's price, not an announcement
            raise ValueError("announced_from must be after observed_at")
        return self


# Exclusion reasons for rows the parser does not know start with this prefix, then the kind
# and the provider's name for the row: "unknown_family g9x", "unknown_sku 1x Z100", ...
UNKNOWN_ROW_PREFIX = "unknown"


def unknown_row(kind: str, name: str) -> str:
    """The exclusion reason for a row of unknown ``kind`` (family, sku, gpu, ...) named ``name``."""
    return f"{UNKNOWN_ROW_PREFIX}_{kind} {name}"


def unknown_rows(excluded: Counter[str] | dict[str, int]) -> dict[str, int]:
    """The exclusions that are rows this parser does not know, by reason."""
    return {r: n for r, n in excluded.items() if r.startswith(UNKNOWN_ROW_PREFIX)}


# a row of a known kind whose cell did not read ("unparsed_price", "unparsed_memory", ...)
UNPARSED_ROW_PREFIX = "unparsed"


def unrecognised_rows(excluded: Counter[str] | dict[str, int]) -> dict[str, int]:
    """Unknown rows plus rows with a cell that did not read: what a person should look at
    (the other reasons are known kinds of non-offer: "contact sales", CPU-only items, ...)."""
    prefixes = (UNKNOWN_ROW_PREFIX, UNPARSED_ROW_PREFIX)
    return {r: n for r, n in excluded.items() if r.startswith(prefixes)}


def check_structure(offers: Iterable[Offer], excluded: Counter[str]) -> None:
    """The drift rule: one unknown row never fails a provider; its page's structure being gone does.

    Raises ``SchemaDriftError`` when no known offer is left, or when more than half of the GPU rows
    are unknown or unreadable. Rows are counted at the grain the parser reads them: a known row is
    one distinct (instance type, region, cloud tier) among the offers (its on-demand and spot
    prices are one
    row), an unrecognised row is one count of an ``unknown_*`` or ``unparsed_*`` exclusion.
    (Missing tables or JSON keys raise in the parser itself, before this rule.)
    """
    known = len({(offer.instance_type, offer.region, offer.cloud_tier) for offer in offers})
    unknown = unrecognised_rows(excluded)
    unknown_count = sum(unknown.values())
    names = ", ".join(sorted(unknown)[:10])
    if known == 0:
        detail = f"; {unknown_count} unknown rows: {names}" if unknown else ""
        raise SchemaDriftError(f"no known offer in the response{detail}")
    if unknown_count > known:
        raise SchemaDriftError(
            f"{unknown_count} of {unknown_count + known} GPU rows are unknown or unreadable"
            " (more than half):"
            f" {names}"
        )


Verified = Literal["capture", "docs"]
FetchFn = Callable[[httpx.Client, "str | None"], list[RawResponse]]
# fetch, plus the parts of a multi-request fetch that failed on their own (one region, one page
# after the first): part name -> one-line error. The rest is published; the parts are reported.
PartialFetchFn = Callable[[httpx.Client, "str | None"], tuple[list[RawResponse], dict[str, str]]]
# The offers, and the rows left out per reason ("contact for pricing", "no_gpu", ...).
ExclusionParseFn = Callable[[Sequence[RawResponse]], tuple[list[Offer], Counter[str]]]


@dataclass(frozen=True)
class Provider:
    """A registered provider: its slug (= folder name under the snapshots), fetch and parse."""

    slug: str
    name: str
    homepage: str
    fetch: FetchFn
    # the offers, and the rows it recognised as not offers counted per reason (the pipeline
    # stores the counts per scrape); raises SchemaDriftError for a layout it does not know
    parse_with_exclusions: ExclusionParseFn
    token_env: str | None = None
    token_required: bool = False  # fetch raises MissingTokenError without it
    kind: str = "cloud"  # "cloud", "marketplace" or "serverless"
    # what the parser is checked against: "capture", real recorded responses of the provider
    # (../shared/snapshots/<slug>/); "docs", the provider's own published API reference or
    # pricing-page example (tests/scrapers/examples/<slug>/, its URL cited in the test)
    verified: Verified = "capture"
    notes: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    # fetch, also listing the parts that failed on their own (see PartialFetchFn); a module
    # without one fails the whole fetch on any failed request
    fetch_with_skips: PartialFetchFn | None = None
    # offer identity: instance types (as the parser states them) that name a product another
    # spelling also names -> that product's key (``Offer.product_key``). Every other instance
    # type is its own key. The pipeline also re-keys stored offers by it (``product_key``), so
    # a spelling added here merges the history already kept under it.
    product_keys: Mapping[str, str] = field(default_factory=dict)
    # a provider-wide spelling rule applied after ``product_keys`` (stated name or its mapped
    # key -> key), for a provider that spells every name inconsistently (case, vendor prefix);
    # it must keep apart every two products one capture lists (tests/scrapers/test_contract.py)
    product_key_rule: Callable[[str], str] | None = None
    # offer identity across a change of place: a stored (region, cloud tier) -> the (region,
    # cloud tier) this module states that place as now (e.g. a tier once stored as the region);
    # the pipeline re-keys stored offers by it (``place``), so their history stays one series
    place_rule: Callable[[str, str | None], tuple[str, str | None]] | None = None

    def fetch_report(
        self, client: httpx.Client, token: str | None
    ) -> tuple[list[RawResponse], dict[str, str]]:
        """The responses, and the parts skipped because they failed alone (the pipeline's entry)."""
        if self.fetch_with_skips is not None:
            return self.fetch_with_skips(client, token)
        return self.fetch(client, token), {}

    def parse_report(self, responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
        """Offers plus the rows left out per reason (the pipeline's entry point).

        Raises what ``parse_with_exclusions`` raises (``PageTooLarge`` naming the provider;
        ``PageOverBudget`` past ``PARSE_DEADLINE_S`` seconds, checked between steps), and
        ``SchemaDriftError`` under the drift rule of ``check_structure`` (no known offer, or more
        than half of the GPU rows unknown).
        """
        token = _parse_deadline.set((time.monotonic() + PARSE_DEADLINE_S, PARSE_DEADLINE_S))
        try:
            offers, excluded = self.parse_with_exclusions(responses)
        except PageTooLarge as exc:  # the table readers know the page, not the provider
            raise type(exc)(f"{self.name}: {exc}") from None
        finally:
            _parse_deadline.reset(token)
        check_structure(offers, excluded)
        return [self._keyed(offer) for offer in offers], excluded

    def product_key(self, instance_type: str) -> str:
        """The product key of an offer stated as ``instance_type`` (``Offer.product_key``):
        its ``product_keys`` entry (else the instance type itself), then ``product_key_rule``
        when the provider has one, whitespace-normalised."""
        key = self.product_keys.get(instance_type, instance_type)
        if self.product_key_rule is not None:
            key = self.product_key_rule(key)
        return normalise_product_key(key)

    def place(self, region: str, cloud_tier: str | None) -> tuple[str, str | None]:
        """The (region, cloud tier) an offer stored at ``region`` / ``cloud_tier`` has now
        (``place_rule``; unchanged for a provider without one)."""
        if self.place_rule is None:
            return region, cloud_tier
        return self.place_rule(region, cloud_tier)

    def _keyed(self, offer: Offer) -> Offer:
        """The offer under its provider's key: a module's parse states what it read (its key
        defaults to the instance type), the provider's declared keys apply here, so every
        offer the pipeline loads has ``product_key == self.product_key(instance_type)``."""
        key = self.product_key(offer.instance_type)
        return offer if offer.product_key == key else offer.model_copy(update={"product_key": key})

    def parse(self, responses: Sequence[RawResponse]) -> list[Offer]:
        """The offers of ``parse_report`` (same failures: drift raises ``SchemaDriftError``)."""
        return self.parse_report(responses)[0]
