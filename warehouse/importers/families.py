"""GPU names that name a family, not a model: "H100" (SXM, PCIe or NVL), "NVIDIA A100".

``gpus.resolve`` deliberately returns None for them: guessing a variant would put an H100 PCIe
price into the H100 SXM series. Public history datasets use such names for most of their rows
(gpuhunt's catalog: 13,300 of 14,074), so the importers keep those rows at family level
instead: ``gpu_id`` null and ``gpu_family`` set (migration 0010).

``gpu_families.csv`` (beside this module) maps a spelling to a family id, matched like
``gpus.resolve`` matches aliases (normalised; a leading vendor and brand word may be left off,
so "H100" also matches "NVIDIA H100" and "V100" matches "Tesla V100"). A family's members are
the canonical GPUs whose ``gpu_id`` is the family id or starts with it plus '-' (h100 ->
h100-sxm, h100-pcie, h100-nvl): the rule the API's ``gpu=h100`` filter uses, so a family id is
always something a user can ask for.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from warehouse.gpus import load_gpus, normalise_gpu_name, resolve, strip_vendor_words

FAMILIES_CSV = Path(__file__).resolve().parent / "gpu_families.csv"


def members(family: str) -> list[str]:
    """The canonical gpu_ids of ``family`` (sorted); empty for an unknown family."""
    return sorted(g for g in load_gpus() if g == family or g.startswith(family + "-"))


@cache
def family_table(path: Path = FAMILIES_CSV) -> dict[str, str]:
    """``gpu_families.csv`` as {normalised spelling: family id} (cached).

    Raises ValueError for a bad header or row, a family with fewer than two canonical members
    (then it is a model and belongs in gpu_aliases.csv), a spelling that ``gpus.resolve``
    already resolves to a model, or two spellings that normalise alike but name two families.
    """
    table: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != ("alias", "gpu_family"):
            raise ValueError(f"{path.name}: header must be alias,gpu_family")
        for line, row in enumerate(reader, start=2):
            alias, family = row["alias"].strip(), row["gpu_family"].strip()
            key = normalise_gpu_name(alias)
            if not key or len(members(family)) < 2:
                raise ValueError(f"{path.name}:{line}: {family!r} is not a family of 2+ GPUs")
            if resolve(alias) is not None:
                raise ValueError(f"{path.name}:{line}: {alias!r} names a model ({resolve(alias)})")
            if table.setdefault(key, family) != family:
                raise ValueError(f"{path.name}:{line}: {alias!r} is already {table[key]!r}")
    return table


def resolve_family(name: str) -> str | None:
    """The family id a GPU spelling names, or None. Call it only when ``gpus.resolve`` found no
    model: a model name is never a family. Never raises for an unknown name."""
    table = family_table()
    key = normalise_gpu_name(name)
    for candidate in (key, strip_vendor_words(key)):
        if candidate in table:
            return table[candidate]
    return None
