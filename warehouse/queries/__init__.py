"""The read side of a snapshot, outside ``api`` (the CLI and the API both use it): every SQL
statement the API runs is here, so ``api`` holds none.

- ``surface``: ``FILTERS``, the one declaration of every offer filter (name, kind, bounds,
  column, comparison, doc), from which everything below, the API's parameters, the CLI's
  options and README's list are derived (sorts, pricing kinds and page limits are
  ``warehouse.vocabulary``'s);
- ``filters``: ``OfferFilter`` (its fields, normalisation and bound SQL from ``FILTERS``), and
  ``OfferQuery`` (sort, page, ``cheapest_per_gpu``);
- ``sql``: the page and count queries over any connection holding ``current_offers`` (a
  snapshot file, the warehouse), and the provider status queries;
- ``liveness``: ``Liveness``, how many providers are live (``LIVENESS_SQL`` over
  ``provider_status``) and the banner shown when none is;
- ``excluded``: ``Exclusions``, what a query's rules (expired, max_age_days, suspect) left
  out of its matches and why, by SQL (``exclusions_sql``) or from an ``OfferTable``;
- ``values``: list values, GPU filter terms, pricing models, the unknown-value error;
- ``vocabulary``: ``FilterVocabulary``, the GPUs, providers, regions and countries a snapshot
  knows, refusing a filter value none of them is (with the closest one);
- ``table``: ``OfferTable``, ``current_offers`` of one snapshot as numpy columns with every
  sort order precomputed, answering an ``OfferQuery`` exactly as the SQL does, in microseconds.

The read SQL of the other endpoints, a module per resource, imported from the module itself
(``from warehouse.queries.history import MARKET_HISTORY_SQL``):

- ``catalog``: GET /gpus, /providers/{slug}, /serverless;
- ``health``: the offer counts of GET /health and GET /metrics;
- ``history``: GET /history, /history/catalog, /instances/{id}/history, /changes and the
  history charts;
- ``economics``: GET /models, /economics/estimates, /fit, /breakeven (an estimate item's keys,
  ``ESTIMATE_ITEM_KEYS``, once).

Derived prices (USD per GPU-hour, per GB-of-VRAM-hour) are columns of
``warehouse/models/current_offers.sql``; everything here selects them. Callers import from
``warehouse.queries`` itself.
"""

from warehouse.queries.excluded import (
    PRICE_TIME_COLUMNS,
    Exclusions,
    exclusions_sql,
    shelf_lives,
)
from warehouse.queries.filters import (
    FilterError,
    OfferFilter,
    OfferQuery,
    Where,
    gpu_clause,
    gpu_filter,
    gpu_prefix_pattern,
    gpu_terms,
    hyphenated,
    split_values,
)
from warehouse.queries.liveness import LIVENESS_SQL, Liveness, liveness
from warehouse.queries.sql import (
    INSTANCE_COLUMNS,
    PROVIDER_STATUS_SQL,
    PROVIDERS_SQL,
    cheapest_per_gpu_sql,
    instances_sql,
    item_columns,
    query_offers_sql,
    rows,
)
from warehouse.queries.surface import (
    FILTERS,
    GPU_DOC,
    PROVIDER_DOC,
    SERVERLESS_DOC,
    FilterSpec,
    filters_table,
)
from warehouse.queries.table import OfferTable, Page
from warehouse.queries.values import check_values, pricing_models, unknown_values_error
from warehouse.queries.vocabulary import FilterVocabulary

__all__ = [
    "FILTERS",
    "GPU_DOC",
    "INSTANCE_COLUMNS",
    "LIVENESS_SQL",
    "PRICE_TIME_COLUMNS",
    "PROVIDERS_SQL",
    "PROVIDER_DOC",
    "PROVIDER_STATUS_SQL",
    "SERVERLESS_DOC",
    "Exclusions",
    "FilterError",
    "FilterSpec",
    "FilterVocabulary",
    "Liveness",
    "OfferFilter",
    "OfferQuery",
    "OfferTable",
    "Page",
    "Where",
    "cheapest_per_gpu_sql",
    "check_values",
    "exclusions_sql",
    "filters_table",
    "gpu_clause",
    "gpu_filter",
    "gpu_prefix_pattern",
    "gpu_terms",
    "hyphenated",
    "instances_sql",
    "item_columns",
    "liveness",
    "pricing_models",
    "query_offers_sql",
    "rows",
    "shelf_lives",
    "split_values",
    "unknown_values_error",
]
