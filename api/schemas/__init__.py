"""The response schemas more than one resource uses; every name is importable from
``api.schemas``. A resource's own schemas are its package's ``schemas`` module
(``api.catalog.schemas``, ``api.history.schemas``, ``api.economics.schemas``, ``api.ops.schemas``).

- ``base``: ``Schema`` (every body's base), ``Number`` and ``NumberSchemaPlugin`` (numbers are
  JSON numbers);
- ``fields``, ``provenance``, ``shelf_life``, ``assumptions``: field types with their
  descriptions, and the ``excluded`` object of every answer that lists offers;
- ``errors``: ``ErrorBody``, every error answer's body;
- ``instances``: an offer as GET /instances serves it (``InstanceItem``, ``InstancesPage``),
  here because the snapshot store pre-encodes every offer and the CSV encoder writes the page
  (``api.offers``, ``api.encoding``).

The bodies are encoded from these Structs (``api.encoding.encode_as``) and the OpenAPI document
is generated from them, so the two cannot disagree. Units are in the names: ``*_gb`` = 10^9
bytes, ``*_gbps`` = GB/s, ``*_usd`` = US dollars, ``*_hour`` = per hour. Times are UTC ISO 8601.
"""

from api.schemas.base import Number, NumberSchemaPlugin, Schema, Usd
from api.schemas.errors import ErrorBody
from api.schemas.instances import InstanceItem, InstancesPage, PriceStatusReason, instance_item
from api.schemas.shelf_life import Excluded

__all__ = [
    "ErrorBody",
    "Excluded",
    "InstanceItem",
    "InstancesPage",
    "Number",
    "NumberSchemaPlugin",
    "PriceStatusReason",
    "Schema",
    "Usd",
    "instance_item",
]
