"""What a row scraper imports, from one place: the offer record and provider entry of
``scrapers.base`` and the row readers of ``scrapers.parsing`` (issue 26: the same ~10-line
``from scrapers.base import (...)`` block stood in every scraper, beside a second one from
``scrapers.parsing``).

A re-export only: each name still lives, and is documented, where it is defined. A scraper
writes ``from scrapers.kit import Offer, Provider, offers_from_rows, ...`` (the provider kit's
templates, ``pipelines/kit_templates/``, generate that form); a name a scraper needs that is
not here (a budget, a rare helper) it imports from its own module.
"""

from __future__ import annotations

from scrapers.base import (
    FetchError,
    MissingTokenError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    Provider,
    RawResponse,
    SchemaDriftError,
    unknown_row,
    unknown_rows,
)
from scrapers.parsing import (
    Cell,
    Layout,
    RowExcluded,
    decimal,
    distinct_bodies,
    ensure_unique,
    first_number,
    gb_from_gib,
    gb_from_size,
    html_body,
    html_tables,
    json_body,
    money,
    money_at,
    no_price_marker,
    node_text,
    offers_by_layout,
    offers_from_rows,
    require,
    usd_or_excluded,
)

__all__ = [
    "Cell",
    "FetchError",
    "Layout",
    "MissingTokenError",
    "Offer",
    "PricePer",
    "PriceUnit",
    "PricingModel",
    "Provider",
    "RawResponse",
    "RowExcluded",
    "SchemaDriftError",
    "decimal",
    "distinct_bodies",
    "ensure_unique",
    "first_number",
    "gb_from_gib",
    "gb_from_size",
    "html_body",
    "html_tables",
    "json_body",
    "money",
    "money_at",
    "no_price_marker",
    "node_text",
    "offers_by_layout",
    "offers_from_rows",
    "require",
    "unknown_row",
    "unknown_rows",
    "usd_or_excluded",
]
