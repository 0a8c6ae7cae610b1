"""Filter values: the normalisation of list values (repeats, comma lists, case), GPU values as
filter terms (:func:`gpu_filter`: ids, families and every spelling of the alias table), pricing
models in any spelling, and the error of an unknown value with the closest valid one
(:func:`unknown_values_error`, difflib), which ``warehouse.queries.vocabulary`` also raises for
values unknown to a snapshot. ``warehouse.queries.filters`` builds ``OfferFilter`` from them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from warehouse.gpus import alias_table, load_gpus, resolve, strip_vendor_words
from warehouse.vocabulary import MAX_LIST_VALUES, PRICING_KINDS


class FilterError(ValueError):
    """A filter value that cannot be used (the API answers 400 with the message). ``extra``:
    one entry per bad value (key, message, valid values, did_you_mean), for the 400's body."""

    def __init__(self, message: str, extra: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.extra = extra


# --- value normalisation ----------------------------------------------------------------------


def split_values(
    values: Iterable[str] | None, name: str, *, lower: bool = False
) -> tuple[str, ...] | None:
    """Repeated and comma-separated values of one list filter, stripped, deduplicated and
    sorted; ``None`` when none is given. ``lower`` folds case.

    Raises ``FilterError`` for more than ``MAX_LIST_VALUES`` values."""
    if not values:
        return None
    found = {
        part.strip().lower() if lower else part.strip() for v in values for part in v.split(",")
    }
    found.discard("")
    if len(found) > MAX_LIST_VALUES:
        raise FilterError(f"{name}: at most {MAX_LIST_VALUES} values, got {len(found)}")
    return tuple(sorted(found)) or None


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def hyphenated(value: str) -> str:
    """``"H100 SXM"`` / ``"h100_sxm"`` / ``"H100--SXM"`` -> ``"h100-sxm"``."""
    return "-".join(_NON_ALNUM.sub(" ", value.lower()).split())


def _unambiguous(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """{key: value} without the keys that pair with two different values."""
    found: dict[str, str | None] = {}
    for key, value in pairs:
        found[key] = value if found.get(key, value) == value else None
    return {k: v for k, v in found.items() if v is not None}


def family_terms(ids: Iterable[str]) -> frozenset[str]:
    """Every id and each run of its leading segments (``a100``, ``a100-80gb``, ``a100-80gb-sxm``
    of ``a100-80gb-sxm``): the GPU filter terms that match something."""
    return frozenset(
        "-".join(parts[:n])
        for gpu_id in ids
        for parts in [gpu_id.split("-")]
        for n in range(1, len(parts) + 1)
    )


def known_gpu_terms() -> frozenset[str]:
    """The filter terms of the GPU seed (ids and families)."""
    return _gpu_vocabulary()[1]


@cache
def _gpu_vocabulary() -> tuple[frozenset[str], frozenset[str], dict[str, str], dict[str, str]]:
    """(canonical ids, family terms, {compact term: term}, {compact alias: gpu_id}).

    A family term is a run of an id's leading segments (``a100``, ``a100-80gb`` of
    ``a100-80gb-sxm``): the filter matches the id itself and every id starting with it plus '-'.
    Compact = without separators, the way gpuhunt and SkyPilot write names (``rtx4090``)."""
    ids = frozenset(load_gpus())
    terms = family_terms(ids)
    compact_terms = _unambiguous((t.replace("-", ""), t) for t in terms)
    compact_aliases = _unambiguous(
        (spelling.replace(" ", ""), gpu_id)
        for key, gpu_id in alias_table().items()
        for spelling in {key, strip_vendor_words(key)}
    )
    return ids, terms, compact_terms, compact_aliases


@cache
def gpu_filter(value: str) -> str:
    """A GPU value as a filter term: a canonical id (``rtx-4090``) or a family (``h100``,
    ``a100-80gb``), matched as that id or any id starting with it plus '-'.

    Tried in order: the value as an id, then as a family, in any case and punctuation
    (``H100_SXM`` -> ``h100-sxm``, ``A100-80GB`` -> ``a100-80gb``); any spelling of the alias
    table (``NVIDIA GeForce RTX 4090``, ``H200-SXM``); an id or family written without
    separators (``RTX4090``, ``RTX6000Ada``, ``H100NVL``); an alias written without separators
    (``RTXPRO6000S``, ``GTX1660S``). A value that is none of these is returned hyphenated and
    matches no offer. Never raises."""
    ids, terms, compact_terms, compact_aliases = _gpu_vocabulary()
    term = hyphenated(value)
    if term in ids or term in terms:
        return term
    if (gpu_id := resolve(value)) is not None:
        return gpu_id
    compact = term.replace("-", "")
    for table in (compact_terms, compact_aliases):
        if compact in table:
            return table[compact]
    return term


def gpu_terms(values: Iterable[str] | None, name: str) -> tuple[str, ...] | None:
    """GPU values of parameter ``name`` (comma lists and repeats) as sorted filter terms
    (:func:`gpu_filter`)."""
    found = split_values(values, name)
    return tuple(sorted({gpu_filter(v) for v in found})) if found else None


def gpu_prefix_pattern(term: str) -> str | None:
    """The LIKE pattern of a family term's members (``h100`` -> ``h100-%``), or None for a
    canonical id, which matches itself only (``rtx-3090`` is not ``rtx-3090-ti``)."""
    if term in load_gpus():
        return None
    return term.replace("_", "\\_").replace("%", "\\%") + "-%"


def unknown_values_error(
    key: str,
    unknown: Sequence[str],
    valid: Iterable[str],
    what: str = "value",
    candidates: Iterable[str] | None = None,
    aliases: dict[str, str] | None = None,
) -> FilterError:
    """The error of values of ``key`` that are none of ``valid``: each with the closest of
    ``candidates`` (default: ``valid``) or of the ``aliases``' names (a country's name: its
    code), by difflib, as the 400 of an unknown query parameter names one."""
    choices = sorted(set(valid))
    names = aliases or {}
    near = sorted(set(candidates if candidates is not None else choices) | set(names))
    hints = {
        v: [names.get(m, m) for m in difflib.get_close_matches(v, near, n=1, cutoff=0.6)]
        for v in unknown
    }
    named = ", ".join(
        repr(v) + (f" (did you mean {hints[v][0]!r}?)" if hints[v] else "") for v in unknown
    )
    shown = ", ".join(choices) if len(choices) <= 20 else f"one of {len(choices)} known values"
    return FilterError(
        f"{key}: unknown {what}{'s' if len(unknown) > 1 else ''} {named}; valid values: {shown}",
        [
            {
                "key": key,
                "source": "query",
                "value": v,
                "message": f"unknown {what}",
                "valid": choices,
                **({"did_you_mean": hints[v][0]} if hints[v] else {}),
            }
            for v in unknown
        ],
    )


def check_values(
    key: str, values: Iterable[str], valid: Iterable[str], what: str = "value"
) -> None:
    """Raise :func:`unknown_values_error` for the ``values`` not in ``valid``."""
    allowed = set(valid)
    if unknown := sorted(set(values) - allowed):
        raise unknown_values_error(key, unknown, allowed, what)


def pricing_models(values: Iterable[str] | None, name: str) -> tuple[str, ...] | None:
    """Pricing values of parameter ``name`` (repeats, comma lists, any case, ``on-demand`` for
    ``on_demand``) as sorted models; ``FilterError`` (with suggestions) for one that is not a
    model."""
    found = split_values(values, name, lower=True)
    if not found:
        return None
    models = tuple(sorted({hyphenated(v).replace("-", "_") for v in found}))
    check_values(name, models, PRICING_KINDS, "pricing model")
    return models
