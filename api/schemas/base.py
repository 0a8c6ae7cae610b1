"""The base of every response schema, and the one numeric type of the bodies."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Union, get_args

import msgspec
from litestar.openapi.spec import OpenAPIType
from litestar.openapi.spec import Schema as OpenAPISchema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

# A JSON number. Warehouse DECIMAL columns arrive as Decimal and keep their digits (1.0000 stays
# 1.0000, in JSON and in CSV cells); DOUBLE columns arrive as float. Documented as "number"
# (NumberSchemaPlugin), which both are on the wire.
# typing.Union, not |: Litestar keys schemas by the annotation's qualified name
Number = Union[float, Decimal]  # noqa: UP007
Usd = Annotated[Number, msgspec.Meta(description="US dollars")]


class Schema(msgspec.Struct, forbid_unknown_fields=True):
    """A response schema: the OpenAPI document is generated from it and bodies are encoded from
    it (``api.encoding.encode_as``). Unknown fields are refused when an answer is converted to
    it, so a column a query adds cannot reach a body without a schema field documenting it."""


_NUMERIC = frozenset({float, Decimal})


class NumberSchemaPlugin(OpenAPISchemaPlugin):
    """OpenAPI for :data:`Number` (and ``Number | None``): a JSON number, as the encoder writes
    Decimals (``decimal_format="number"``); Litestar's default for Decimal is a string."""

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        args = set(get_args(field_definition.annotation)) - {type(None)}
        return Decimal in args and args <= _NUMERIC

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:  # superseded by the field check
        return False

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: Any
    ) -> OpenAPISchema:
        # a fixed example: generated ones would be Decimals, which the document shows as strings
        if type(None) in get_args(field_definition.annotation):
            return OpenAPISchema(
                one_of=[
                    OpenAPISchema(type=OpenAPIType.NUMBER),
                    OpenAPISchema(type=OpenAPIType.NULL),
                ],
                examples=[2.5],
            )
        return OpenAPISchema(type=OpenAPIType.NUMBER, examples=[2.5])
