"""Response schemas, one module per resource; every name is importable from ``api.schemas``.

The bodies are encoded from these Structs (``api.encoding.encode_as``) and the OpenAPI document
is generated from them, so the two cannot disagree. Units are in the names: ``*_gb`` = 10^9
bytes, ``*_gbps`` = GB/s, ``*_usd`` = US dollars, ``*_hour`` = per hour. Times are UTC ISO 8601.
"""

from api.schemas.base import Number, NumberSchemaPlugin, Schema, Usd
from api.schemas.catalog import (
    ErrorBody,
    Gpu,
    GpuList,
    Health,
    OriginCounts,
    ProviderList,
    ProviderStatus,
    RefreshResult,
)
from api.schemas.history import (
    CatalogDay,
    CatalogHistory,
    GpuLevel,
    MarketBucket,
    MarketHistory,
    OfferHistory,
    OfferInterval,
    PriceChange,
    PriceChangesPage,
)
from api.schemas.instances import InstanceItem, InstancesPage, PriceStatusReason, instance_item
from api.schemas.shelf_life import Excluded

__all__ = [
    "CatalogDay",
    "CatalogHistory",
    "ErrorBody",
    "Excluded",
    "Gpu",
    "GpuLevel",
    "GpuList",
    "Health",
    "InstanceItem",
    "InstancesPage",
    "MarketBucket",
    "MarketHistory",
    "Number",
    "NumberSchemaPlugin",
    "OfferHistory",
    "OfferInterval",
    "OriginCounts",
    "PriceChange",
    "PriceChangesPage",
    "PriceStatusReason",
    "ProviderList",
    "ProviderStatus",
    "RefreshResult",
    "Schema",
    "Usd",
    "instance_item",
]
