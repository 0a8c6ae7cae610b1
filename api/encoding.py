"""Encoding responses from their schemas: a handler hands the warehouse rows and figures of an
answer to :func:`encode_as` with the answer's response schema (``api.schemas``, the msgspec
Structs the OpenAPI document is generated from); the body is that Struct's encoding, so it has
exactly the schema's fields, in its order, each of its type.

Numbers are plain JSON numbers in their shortest exact decimal form (:func:`plain_number`): a
warehouse DECIMAL's scale is storage, not meaning, so ``1.0000`` GPUs is written ``1``, a
``0.047000000`` USD price ``0.047``, a float ``2.0`` ``2``, ``1E+1`` ``10``, ``1e-6``
``0.000001``. Decimals are never turned into floats on the way (no 0.047000000000000003):
the digits written are the digits stored, less trailing zeros. JSON bodies and CSV cells alike.

Every data handler answers through :func:`json_response`. An answer that holds a list (``items``,
or the list its schema names in ``CSV_LIST``) is served as CSV instead when the request asks for
it (``format=csv``, or an Accept header that prefers ``text/csv``): one row per list item, one
column per item field in the order of the response schema, nested values JSON-encoded; what
the answer left out (its ``excluded`` object) travels as ``X-Excluded-*`` headers. The
conversion runs when Litestar turns the response into ASGI messages, so compression and the
response cache (``api.cache``) see the CSV bytes.
"""

from __future__ import annotations

import csv
import io
import re
import typing
from datetime import datetime
from decimal import Decimal
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import msgspec
from litestar import Response
from litestar.datastructures import Accept
from litestar.enums import MediaType
from litestar.exceptions import ClientException

from api.paging import next_offset
from api.schemas import InstancesPage
from warehouse.csv_cells import inert

if TYPE_CHECKING:
    from litestar import Litestar, Request
    from litestar.response.base import ASGIResponse

_ENCODER = msgspec.json.Encoder(decimal_format="number")
# numbers keep their JSON text (already plain) as Decimals in the CSV
_DECODER = msgspec.json.Decoder(float_hook=Decimal)
CSV_MEDIA_TYPE = "text/csv"  # Litestar adds "; charset=utf-8" to text/* types
_NEGOTIATED = [MediaType.JSON.value, "text/csv"]


S = TypeVar("S", bound=msgspec.Struct)


def plain_decimal(value: Decimal) -> str:
    """``value`` in its shortest exact positional form: no trailing zeros after the point, no
    exponent, no sign on zero (``Decimal("1.0000")`` -> ``"1"``, ``Decimal("1E+2")`` ->
    ``"100"``, ``Decimal("1E-6")`` -> ``"0.000001"``). Exact at any size (no rounding to a
    context's precision). Raises ``ValueError`` for NaN and infinities, which JSON has no
    number for."""
    if not value.is_finite():
        raise ValueError(f"{value} is not a JSON number")
    if value.is_zero():
        return "0"
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def plain_number(text: str) -> str:
    """A JSON number's text (``1.0000``, ``1E+1``, ``-1e-6``) in its shortest exact positional
    form (:func:`plain_decimal`)."""
    return plain_decimal(Decimal(text))


@lru_cache(maxsize=8192)  # answers repeat their numbers (1.0000 GPUs, the same prices)
def _plain_raw(text: str) -> msgspec.Raw:
    return msgspec.Raw(plain_number(text).encode())


# Non-integer numbers (with a point or an exponent) as written by the encoder are read back as
# their plain text; integers, strings (escapes included) and key order come back as they were,
# so re-encoding changes the numbers' spelling and nothing else.
_PLAIN_DECODER = msgspec.json.Decoder(float_hook=_plain_raw)
# what a number that is not yet plain contains (also matches inside strings: then the body is
# re-read for nothing, never changed wrongly)
_NOT_PLAIN = re.compile(rb"[0-9][eE]|\.[0-9]*0(?![0-9])")


def plain_numbers(body: bytes) -> bytes:
    """A JSON ``body`` with every number in its shortest exact form (:func:`plain_number`);
    everything else byte for byte as it was."""
    if _NOT_PLAIN.search(body) is None:
        return body
    return _ENCODER.encode(_PLAIN_DECODER.decode(body))


def encode(value: Any) -> bytes:
    """JSON of a value already in its response shape (a schema Struct, or a part of one),
    numbers plain (:func:`plain_numbers`)."""
    return plain_numbers(_ENCODER.encode(value))


def as_schema(schema: type[S], value: Any) -> S:
    """``value`` (an answer as dicts of warehouse rows and figures, or an object with the
    schema's fields as attributes, e.g. a result dataclass) as the response schema ``schema``.

    Raises ``msgspec.ValidationError`` when it does not fit: a field missing, one the schema does
    not have (schemas forbid unknown fields), or a value of another type. That is a bug of the
    handler, answered 500; a body that disagrees with the documented schema is never served."""
    return msgspec.convert(value, schema, from_attributes=True)


def encode_as(schema: type[msgspec.Struct], value: Any) -> bytes:
    """The body of an answer: ``value`` as the response schema ``schema`` (:func:`as_schema`),
    encoded (numbers as plain JSON numbers, :func:`plain_numbers`)."""
    return encode(as_schema(schema, value))


def page_body(
    items: list[Any],
    *,
    total: int,
    excluded: dict[str, Any],
    limit: int,
    offset: int,
    as_of: datetime,
) -> bytes:
    """GET /instances' body: ``items`` are instance rows (dicts with the InstanceItem fields),
    ``excluded`` what the query's rules left out (``warehouse.queries.Exclusions.as_dict``)."""
    return encode_as(
        InstancesPage,
        {
            "items": items,
            "total": total,
            "excluded": excluded,
            "limit": limit,
            "offset": offset,
            "next_offset": next_offset(offset, limit, total),
            "as_of": as_of,
        },
    )


def json_response(
    body: bytes, status_code: int = 200, list_format: Literal["json", "csv"] | None = None
) -> Response[bytes]:
    """The JSON ``body`` as a response; ``list_format`` is the request's ``format`` parameter
    (None: negotiated from the Accept header, see :class:`DataResponse`)."""
    return DataResponse(
        content=body, media_type=MediaType.JSON, status_code=status_code, list_format=list_format
    )


def wants_csv(accept: str | None) -> bool:
    """The Accept header ranks text/csv above JSON (``*/*`` and no header mean JSON)."""
    if not accept:
        return False
    return Accept(accept).best_match(_NEGOTIATED, default=_NEGOTIATED[0]) == "text/csv"


class DataResponse(Response[bytes]):
    """A JSON answer that becomes CSV of its list when the request asks for CSV."""

    __slots__ = ("list_format",)

    def __init__(
        self, *args: Any, list_format: Literal["json", "csv"] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.list_format = list_format

    def to_asgi_response(
        self, app: Litestar | None, request: Request, **kwargs: Any
    ) -> ASGIResponse:
        explicit = self.list_format == "csv"
        if (self.status_code or 200) == 200 and (
            explicit or (self.list_format is None and wants_csv(request.headers.get("accept")))
        ):
            converted = csv_of(self.content, request.route_handler, explicit=explicit)
            if converted is not None:
                body, field, total, excluded = converted
                self.content = body
                self.media_type = CSV_MEDIA_TYPE
                name = request.url.path.strip("/").replace("/", "-") or "answer"
                self.headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
                if total is not None:
                    self.headers["X-Total-Count"] = str(total)
                self.headers.update(excluded_headers(excluded))
                self.headers["X-CSV-List"] = field
        return super().to_asgi_response(app, request, **kwargs)


# --- CSV --------------------------------------------------------------------------------------


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _struct_types(container: Any) -> list[type[msgspec.Struct]]:
    """The msgspec Structs a response spec's data_container names (unions included)."""
    container = _unwrap(container)
    if isinstance(container, type) and issubclass(container, msgspec.Struct):
        return [container]
    return [t for arg in typing.get_args(container) for t in _struct_types(arg)]


def _list_field(struct: type[msgspec.Struct]) -> tuple[str, list[str]] | None:
    """(list field's JSON name, its item fields' JSON names) of a response schema."""
    wanted = getattr(struct, "CSV_LIST", "items")
    for info in msgspec.structs.fields(struct):
        if info.encode_name != wanted:
            continue
        kind = _unwrap(info.type)
        if typing.get_origin(kind) is not list:
            return None
        (item,) = typing.get_args(kind)
        item = _unwrap(item)
        if isinstance(item, type) and issubclass(item, msgspec.Struct):
            return wanted, [f.encode_name for f in msgspec.structs.fields(item)]
        return wanted, []
    return None


@cache
def _list_specs(container: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    specs = []
    for struct in _struct_types(container):
        found = _list_field(struct)
        if found is not None:
            specs.append((found[0], tuple(found[1])))
    return tuple(specs)


def list_specs(handler: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(list field, item columns) of each answer schema of ``handler``'s 200 response that
    holds a list; empty when no answer does."""
    spec = (getattr(handler, "responses", None) or {}).get(200)
    container = getattr(spec, "data_container", None)
    return _list_specs(container) if container is not None else ()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return inert(value)  # formula injection (warehouse.csv_cells)
    if isinstance(value, Decimal):
        return plain_decimal(value)
    if isinstance(value, int):
        return str(value)
    return encode(value).decode()  # nested lists and objects: JSON


EXCLUDED_HEADERS = (
    "X-Excluded-Count",
    "X-Excluded-Expired",
    "X-Excluded-Expired-By-Kind",
    "X-Excluded-Max-Age",
    "X-Excluded-Suspect",
    "X-Excluded-Unavailable",
)


def excluded_headers(excluded: Any) -> dict[str, str]:
    """The ``excluded`` object of an answer (``api.schemas.Excluded``) as the headers of its
    CSV form: ``X-Excluded-Count``, ``X-Excluded-Expired`` and ``X-Excluded-Expired-By-Kind``
    (``kind=n`` comma list), ``X-Excluded-Max-Age`` (when max_age_days was given),
    ``X-Excluded-Suspect``, ``X-Excluded-Unavailable``. Empty when the answer has no
    ``excluded``."""
    if not isinstance(excluded, dict):
        return {}
    expired = excluded.get("expired") or {}
    headers = {
        "X-Excluded-Count": str(excluded.get("count", 0)),
        "X-Excluded-Expired": str(expired.get("count", 0)),
        "X-Excluded-Expired-By-Kind": ",".join(
            f"{kind}={n}" for kind, n in (expired.get("by_kind") or {}).items()
        ),
        "X-Excluded-Suspect": str((excluded.get("suspect") or {}).get("count", 0)),
        "X-Excluded-Unavailable": str((excluded.get("unavailable") or {}).get("count", 0)),
    }
    if excluded.get("max_age_days") is not None:
        headers["X-Excluded-Max-Age"] = str(excluded["max_age_days"]["count"])
    return headers


def csv_of(
    body: bytes, handler: Any, *, explicit: bool
) -> tuple[bytes, str, int | None, Any] | None:
    """(CSV bytes, list field, ``total`` if the answer has one, its ``excluded`` or None) of a
    JSON answer's list.

    None when the answer holds no list and CSV was only preferred in Accept (JSON is served);
    ``ClientException`` (400) when it was asked for with ``format=csv``."""
    answer = _DECODER.decode(body)
    for field, columns in list_specs(handler):
        rows = answer.get(field) if isinstance(answer, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            continue
        names = list(columns)
        seen = set(names)
        for row in rows:  # fields an item has beyond its schema, in first-seen order
            for key in row:
                if key not in seen:
                    seen.add(key)
                    names.append(key)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([_cell(row.get(name)) for name in names])
        total = answer.get("total")
        return (
            out.getvalue().encode(),
            field,
            total if isinstance(total, int) else None,
            answer.get("excluded"),
        )
    if explicit:
        raise ClientException("format=csv: this answer holds no list to write as CSV")
    return None
