"""Query parameters: strict about names, forgiving about values.

Strict: :func:`reject_unknown_parameters` (ASGI middleware, after routing) compares the names in
the query string with the ones the matched route handler declares, read from the same Litestar
kwargs model that parses them, and answers 400 naming the unknown ones and listing the valid
ones (``min_vrm=80`` used to return every offer). It covers every documented endpoint at once
and runs before any handler, so a cached answer (``api.cache``) never skips it.
Handlers left out of the OpenAPI schema (the comparison page, whose query string is its own
form state, and the schema viewer) are not checked. :func:`enum_values` gives the valid values
of an enum parameter for the 400 of a bad value.

Forgiving: list parameters take repeats and comma lists alike (``provider=lambda,runpod`` ==
``provider=lambda&provider=runpod``); provider, platform and region values are matched without
regard to case; a GPU value is an id or family in any case and punctuation, or any spelling of
the alias table (``warehouse/seeds/gpu_aliases.csv``), including gpuhunt's and SkyPilot's
(``RTX4090``, ``A100-80GB``, ``H100-SXM``): :func:`gpu_filter`.
"""

from __future__ import annotations

import difflib
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import parse_qsl

from litestar.exceptions import ClientException
from litestar.params import Parameter, QueryParameter
from litestar.types import ASGIApp, Receive, Scope, Send

from api.encoding import encode
from api.problems import PROBLEM_MEDIA_TYPE, instance_of, problem
from warehouse import queries
from warehouse.queries import gpu_filter
from warehouse.vocabulary import INSTANCE_SORT_KEYS, MAX_LIST_VALUES, SORT_DOC

__all__ = ["gpu_filter"]  # defined in warehouse.queries, used from here

# Declared by every handler whose answer holds a list (items, or FitAnswer's offers); the
# conversion itself is api.encoding.DataResponse.
ListFormat = Annotated[
    Literal["json", "csv"] | None,
    QueryParameter(
        name="format",
        description="json, or csv: the answer's list as CSV, one column per item field (nested "
        "values JSON-encoded). Default: json, or csv when the Accept header prefers text/csv",
    ),
]


# --- list values ------------------------------------------------------------------------------


def split_values(
    values: Iterable[str] | None, name: str, *, lower: bool = False
) -> list[str] | None:
    """Repeated and comma-separated values of one list parameter, stripped, deduplicated and
    sorted (a stable cache key); ``None`` when none is given. ``lower`` folds case.

    Raises ``ClientException`` (400) for more than ``MAX_LIST_VALUES`` values."""
    try:
        found = queries.split_values(values, name, lower=lower)
    except queries.FilterError as exc:
        raise ClientException(str(exc)) from None
    return list(found) if found else None


def slugs(values: Iterable[str] | None, name: str = "provider") -> list[str] | None:
    """Provider or platform slugs: comma lists and repeats, any case (``Lambda`` -> ``lambda``)."""
    return split_values(values, name, lower=True)


def gpu_filters(values: Iterable[str] | None, name: str) -> list[str] | None:
    """GPU values of parameter ``name`` (comma lists and repeats) as filter terms: see
    :func:`gpu_filter`."""
    found = split_values(values, name)
    return sorted({gpu_filter(v) for v in found}) if found else None


def refuse_unknown_values(vocabulary: queries.FilterVocabulary, f: queries.OfferFilter) -> None:
    """400 (``ClientException``, each unknown value with the closest known one in ``extra``)
    for a GPU, provider, region or country value the served snapshot does not know
    (``vocabulary``: ``api.store.Snapshot.vocabulary``)."""
    try:
        vocabulary.check(f)
    except queries.FilterError as exc:
        raise ClientException(str(exc), extra=exc.extra) from None


def filter_parameter(name: str, **extra: Any) -> Any:
    """The Litestar ``Parameter`` of offer filter ``name``: description and bounds from
    ``warehouse.queries.FILTERS``, the one declaration of every offer filter."""
    spec = queries.FILTERS[name]
    bounds = {k: v for k, v in (("ge", spec.ge), ("le", spec.le)) if v is not None}
    return Parameter(description=spec.doc, **bounds, **extra)


_FILTER_TYPES: dict[str, Any] = {
    "number": float | None,
    "flag": bool | None,
    "list": list[str] | None,
    "rule": bool,
}
Sort = typing.cast(Any, Literal)[INSTANCE_SORT_KEYS]  # sort's values, from SORTS
F = TypeVar("F", bound=Callable[..., Any])


def offer_query_parameters(fn: F) -> F:
    """Declare the offer filters and ``sort`` of a handler from ``warehouse.queries`` (FILTERS,
    SORTS): one keyword parameter per filter, in FILTERS' order, in place of ``fn``'s
    ``**filters`` (which receives them), before its first parameter with a default, each
    typed by its kind and bounded as ``Annotated[..., Parameter()]``; ``sort`` as the
    Literal of the sort keys. Litestar reads the signature and annotations set here."""
    signature = inspect.signature(fn)
    annotations = dict(fn.__annotations__)
    annotations.pop("filters", None)
    filters = [
        inspect.Parameter(
            spec.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=spec.default,
        )
        for spec in queries.FILTERS.values()
    ]
    for spec in queries.FILTERS.values():
        extra = {"max_items": MAX_LIST_VALUES} if spec.kind == "list" else {}
        annotations[spec.name] = Annotated[
            _FILTER_TYPES[spec.kind], filter_parameter(spec.name, **extra)
        ]
    annotations["sort"] = Annotated[Sort, Parameter(description=SORT_DOC)]
    params = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    at = next(i for i, p in enumerate(params) if p.default is not p.empty)
    fn.__signature__ = signature.replace(parameters=[*params[:at], *filters, *params[at:]])  # type: ignore[attr-defined]
    fn.__annotations__ = annotations
    return fn


# --- handler declarations ---------------------------------------------------------------------


def _query_fields(handler: Any, path_params: Iterable[str]) -> dict[str, str]:
    """{query name: handler argument name} of every query parameter the handler declares
    (its own arguments, layered parameters and those of its dependencies)."""
    model = handler.create_kwargs_model(path_parameters=dict.fromkeys(path_params))
    return {p.field_alias: p.field_name for p in model.expected_query_params}


_DECLARED: dict[tuple[int, tuple[str, ...]], tuple[Any, dict[str, str]]] = {}


def declared_query_parameters(handler: Any, path_params: Iterable[str] = ()) -> dict[str, str]:
    """Cached :func:`_query_fields` (handlers live as long as the app)."""
    key = (id(handler), tuple(sorted(path_params)))
    hit = _DECLARED.get(key)
    if hit is None or hit[0] is not handler:
        hit = (handler, _query_fields(handler, key[1]))
        _DECLARED[key] = hit
    return hit[1]


def _literals(annotation: Any) -> list[Any]:
    """Every Literal value inside an annotation (``list[Literal[...]] | None`` included)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return list(typing.get_args(annotation))
    if origin in (Annotated,):
        return _literals(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple, set, frozenset, Sequence):
        return [v for arg in typing.get_args(annotation) for v in _literals(arg)]
    return []


def query_name(handler: Any, key: str, path_params: Iterable[str] = ()) -> str:
    """The query name of a parameter Litestar's validation error calls ``key``: errors name the
    handler's argument (``format_``), clients know the query name (``format``)."""
    declared = declared_query_parameters(handler, path_params)
    if key in declared:
        return key
    return next((name for name, field in declared.items() if field == key), key)


def enum_values(handler: Any, name: str, path_params: Iterable[str] = ()) -> list[str]:
    """The valid values of an enum query parameter of ``handler`` (empty if it is not one)."""
    field_name = declared_query_parameters(handler, path_params).get(
        query_name(handler, name, path_params)
    )
    if field_name is None:
        return []
    fields = {**handler.resolve_layered_parameters(), **handler.parsed_fn_signature.parameters}
    for provider in handler.resolve_dependencies().values():  # a parameters dataclass's fields
        signature = getattr(provider, "parsed_fn_signature", None)
        if signature is not None:
            fields = {**signature.parameters, **fields}
    field = fields.get(field_name)
    return [str(v) for v in _literals(field.annotation)] if field is not None else []


# --- the strict check -------------------------------------------------------------------------


def _names(query: bytes) -> list[str]:
    pairs = parse_qsl(query.decode("utf-8", "replace"), keep_blank_values=True)
    return list(dict.fromkeys(name for name, _ in pairs))


def unknown_parameters_error(
    method: str,
    path: str,
    unknown: Sequence[str],
    valid: Sequence[str],
    instance: str | None = None,
) -> dict[str, Any]:
    """The 400 body for query names the endpoint does not take."""
    hints = {n: difflib.get_close_matches(n, valid, n=1, cutoff=0.6) for n in unknown}
    named = ", ".join(
        repr(n) + (f" (did you mean {hints[n][0]!r}?)" if hints[n] else "") for n in unknown
    )
    takes = ", ".join(valid) if valid else "no query parameters"
    return problem(
        400,
        f"unknown query parameter{'s' if len(unknown) > 1 else ''} {named}; "
        f"{method} {path} takes: {takes}",
        instance,
        extra=[
            {
                "key": n,
                "source": "query",
                "message": "unknown parameter",
                "valid": list(valid),
                **({"did_you_mean": hints[n][0]} if hints[n] else {}),
            }
            for n in unknown
        ],
    )


def reject_unknown_parameters(app: ASGIApp) -> ASGIApp:
    """ASGI middleware factory: 400 for a query parameter the matched handler does not declare."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        handler = scope.get("route_handler") if scope["type"] == "http" else None
        query = scope.get("query_string", b"") if handler is not None else b""
        if not query or not handler.resolve_include_in_schema():  # type: ignore[union-attr]
            await app(scope, receive, send)
            return
        path_params = scope.get("path_params") or {}
        declared = declared_query_parameters(handler, path_params)
        unknown = [n for n in _names(query) if n not in declared]
        if not unknown:
            await app(scope, receive, send)
            return
        body = encode(
            unknown_parameters_error(
                scope.get("method", "GET"),
                scope.get("path", ""),
                unknown,
                sorted(declared),
                instance_of(scope),
            )
        )
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return middleware
