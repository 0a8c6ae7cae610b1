"""Lambda (lambda.ai, formerly lambdalabs.com): GPU instance prices from the public pricing page,
plus the Cloud API's instance types when an API key is set.

The package: ``fetch`` (the live requests: the pricing page always, the API with
``LAMBDA_API_KEY``), ``common`` (the URLs, the GPUs known, renamed products, how cells are read
and an offer is built) and one module per layout under ``layouts/``, each recognised from the
response content (``detect``), split into rows (``rows``) and read one row at a time
(``read_row``, through ``scrapers.parsing.offers_from_rows``). The layouts, oldest first;
anything else raises ``SchemaDriftError``:

- ``on_demand_and_reserved``: lambdalabs.com/service/gpu-cloud with an on-demand table (per
  instance-hour) and a reserved-cluster table with a Term column (2023-09);
- ``flat_table``: the same URL, one table whose rows are named "On-demand 8x NVIDIA H100 SXM" /
  "Reserved ...", priced per GPU-hour (2024-11);
- ``tabs``: lambda.ai/pricing, one tab panel per GPU count (8x/4x/2x/1x), priced per GPU-hour
  (2026-01, and live);
- ``instance_types``: the Cloud API's ``{"data": {<name>: {"instance_type": {...},
  "regions_with_capacity_available": [...]}}}`` (live with a key; the documented shape).

Exclusions (counted by ``parse_with_exclusions``, keyed by reason; each layout's module lists
its own). One row never fails the page: the rows of unknown kinds are reported by name
(``scrapers.base.unknown_row``: ``unknown_gpu``, ``unknown_tab``, ``unknown_plan``,
``unknown_sku``, ``unknown_unit``, ``unknown_term``) and the known rows published;
``Provider.parse_report`` fails the scrape only when no known row is left or more than half of
the rows are unknown. Rows of known kinds whose cells do not parse: ``unparsed_price`` (a price
cell of a known row that holds no price at all, e.g. "from $2"; a negative price is not an odd
cell but a broken source: ``SchemaDriftError``), ``unparsed_spec``, ``reserved_without_term``,
``unpriced_cell``, a no-price marker (``parsing.NO_PRICE_MARKERS``) under its own name,
``no_gpu`` (an API instance type without GPUs).

Still ``SchemaDriftError`` (the layout itself changed): no known layout, a table whose headers
changed, a row whose cells are not the header's columns, a panel without its table, an API
response without ``data`` or an instance type missing a documented key or with non-integer
price/gpus/vcpus (the API is typed: that is a schema change, not one odd row), a response with
no offer, a duplicate offer.

Units: RAM and storage are printed in GiB/TiB (and once in TB) and stored as decimal GB; VRAM is
stored as printed (GB). Prices stay as printed: per GPU-hour or per instance-hour, USD. The API's
``price_cents_per_hour`` is divided by 100 (cents are not a currency code).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scrapers.kit import (
    Layout,
    Offer,
    Provider,
    RawResponse,
    SchemaDriftError,
    distinct_bodies,
    ensure_unique,
    offers_by_layout,
    unknown_rows,
)
from scrapers.lambda_cloud.common import (
    API_URL,
    KNOWN_GPUS,
    LEGACY_PRICING_URL,
    PRICING_URL,
    PRODUCT_KEYS,
    SLUG,
)
from scrapers.lambda_cloud.fetch import TOKEN_ENV, fetch
from scrapers.lambda_cloud.layouts import flat_table, instance_types, on_demand_and_reserved, tabs

__all__ = [
    "API_URL",
    "KNOWN_GPUS",
    "LEGACY_PRICING_URL",
    "PRICING_URL",
    "PRODUCT_KEYS",
    "PROVIDER",
    "TOKEN_ENV",
    "fetch",
    "parse_with_exclusions",
]

# The layouts, tried in this order: the first whose ``detect`` is true reads the response (the
# flat table last: its ``detect`` looks for PRICE/GPU/HR in the text, which the tab panels'
# headers also read).
LAYOUTS: tuple[Layout, ...] = (instance_types, tabs, on_demand_and_reserved, flat_table)
# what the layouts look for, as the unknown-layout error says it
EXPECTED = "no pricing tab panels, no 2023 on-demand table, no PRICE/GPU/HR table"


def parse_with_exclusions(responses: Sequence[RawResponse]) -> tuple[list[Offer], Counter[str]]:
    """Offers from recorded pricing-page and API responses; each layout is detected from content.

    Prices are USD per hour, per GPU or per instance as the layout prints them. Raises
    ``SchemaDriftError`` for an unknown layout, changed table headers or row cells, an API
    instance type missing a documented key, a duplicate offer, or a response that yields no
    offers; rows of an unknown GPU, plan, unit or term are left out and counted instead (see
    the module docstring). Byte-identical bodies are parsed
    once: replay answers every request of one scrape with the same capture.

    Returns the offers, and how many rows/cells each documented exclusion rule dropped.
    """
    offers: list[Offer] = []
    excluded: Counter[str] = Counter()
    for response in distinct_bodies(responses):
        parsed = offers_by_layout(response, LAYOUTS, excluded, expected=EXPECTED)
        if not parsed:
            unknown = ", ".join(sorted(unknown_rows(excluded)))
            detail = f" (unknown rows: {unknown})" if unknown else ""
            raise SchemaDriftError(f"{response.url}: no offers found{detail}")
        offers.extend(parsed)
    return ensure_unique(offers), excluded


PROVIDER = Provider(
    slug=SLUG,
    name="Lambda",
    homepage="https://lambda.ai",
    fetch=fetch,
    parse_with_exclusions=parse_with_exclusions,
    token_env=TOKEN_ENV,
    kind="cloud",
    product_keys=PRODUCT_KEYS,
    notes="Pricing page always; Cloud API instance types too when LAMBDA_API_KEY is set.",
)
