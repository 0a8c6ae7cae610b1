"""Canonical GPU table and provider-name resolution.

Two seed files under ``warehouse/seeds/`` (see ``seeds/README.md`` for units and rules):

- ``gpus.csv``: one row per GPU model, keyed by ``gpu_id`` (``h100-sxm``, ``mi300x`` ...).
- ``gpu_aliases.csv``: ``alias,gpu_id``, every spelling a provider uses for a GPU.

Scrapers emit the provider's own spelling in ``Offer.gpu_name``; :func:`resolve` turns it into a
``gpu_id``. Matching is on :func:`normalise_gpu_name` of both sides, so punctuation and case never
matter ("H100-SXM" == "h100 sxm"). A leading vendor word ("NVIDIA", "AMD", "Intel") and then a
leading brand word ("GeForce", "Tesla") are tried both as written and removed, so the alias table
lists the shortest unambiguous spelling once instead of every vendor-prefixed variant.

Spellings that name several products (plain "A100", "NVIDIA H100") are deliberately absent from
the alias table and resolve to ``None``. When only the memory size is missing ("A100 SXM4" with
80 GB), pass ``vram_gb`` and the resolver tries "<name> <N>GB" for the marketed sizes near it.

Failing that, the row's facts decide (:func:`resolve_from_facts`): the models a name can mean
are those whose aliases have the same words once memory sizes and form-factor words are left
out ("NVIDIA A100 HGX", "A100" and "A100 80GB SXM4" all say "a100"); the memory per GPU and the
form factor the row states keep the models that agree with the seed, and exactly one left is
the answer. A form factor is stated by a word of the name (``HGX``/``DGX``/``SXMn`` = SXM:
NVIDIA's HGX baseboards and DGX systems carry SXM modules; ``PCIe``) or by the row beside it
(``form_factor``: a word of the instance type, or what the provider documents for the product,
``scrapers.base.Offer.gpu_form_factor``); two statements that disagree state nothing. It is
never guessed: when the name's models come in several form factors and the row states none, no
model is chosen ("NVIDIA A100" with 80 GB: the 80 GB SXM or the 80 GB PCIe card; "V100 32GB").
Neither "NVLink" (the SXM parts and the bridged PCIe cards both have it) nor the GPU count
decides: NVIDIA's datasheets list the PCIe cards in partner systems of 1-8 GPUs and the HGX
A100 with 4, 8 or 16 (A100 datasheet, "Server Options": https://www.nvidia.com/content/dam/
en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf), so
an 8-GPU A100 node may be either, and one GPU of an HGX board is rented too.

A row that stays ambiguous is still placed: :func:`family_from_facts` gives the family its
facts allow (the longest run of id segments the remaining models share: "NVIDIA A100" + 80 GB
-> ``a100-80gb``, without VRAM ``a100``), stored as ``gpu_family`` with ``gpu_id`` null, the
level the API's ``gpu=a100`` filter matches.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SEEDS_DIR = Path(__file__).resolve().parent / "seeds"
GPUS_CSV = SEEDS_DIR / "gpus.csv"
ALIASES_CSV = SEEDS_DIR / "gpu_aliases.csv"

# A provider's VRAM figure may be GiB or usable-after-ECC memory (A100 80GB -> 81920 MiB = 85.9 GB;
# H100 NVL 94 GB -> 95830 MiB = 100.5 GB), so the hint matches marketed sizes within 10 %.
VRAM_HINT_TOLERANCE = 0.10

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VENDOR_PREFIX = re.compile(r"^(?:nvidia|amd|intel) ")
_BRAND_PREFIX = re.compile(r"^(?:geforce|tesla) ")
_SIZE_WORD = re.compile(r"^\d+(?:\.\d+)?gb$")
# Words that state a form factor, as the seed's form_factor spells it. HGX is NVIDIA's SXM
# baseboard, DGX its system built on one. A name stating both is the PCIe card ("A100 80GB
# PCIe NVLink" is bridged PCIe).
_FORM_WORDS = (("PCIe", re.compile(r"^pcie$")), ("SXM", re.compile(r"^(?:hgx|dgx|sxm\d*)$")))
_NEUTRAL_WORDS = frozenset({"nvlink"})


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One GPU model of the canonical table (a row of ``gpus.csv``): datasheet values, dense =
    without structured sparsity. Units are in the field names; ``None`` means empty in the CSV.

    TFLOPS/TOPS are dense tensor-core throughput per GPU (a missing or zero rate: no such
    tensor unit); bandwidths are GB/s (10^9 bytes/s) per GPU; ``interconnect_bandwidth_gbps`` is
    the vendor's bidirectional total per GPU. The fields the economics model reads come first;
    the descriptive ones after them have defaults, so a spec built by hand (a test, a tier's
    guaranteed minimum) needs only the figures. ``vendor`` may be empty; AMD parts are also
    recognised by an ``infinity_fabric`` link.
    """

    gpu_id: str
    vram_gb: float
    memory_bandwidth_gbps: float
    bf16_tflops_dense: float | None
    fp16_tflops_dense: float | None
    fp8_tflops_dense: float | None
    int8_tops_dense: float | None
    fp4_tflops_dense: float | None
    fp8_support: bool
    bf16_support: bool
    interconnect: str  # nvlink | pcie | infinity_fabric | nvlink_c2c | roce
    interconnect_bandwidth_gbps: float | None
    vendor: str = ""
    architecture: str = ""  # the seed's vendor architecture name: Hopper, Blackwell, CDNA 3 ...
    memory_type: str = ""  # HBM3e, HBM3, GDDR7 ...
    name: str = ""
    form_factor: str = ""
    tdp_watts: float | None = None
    source_url: str = ""

    @property
    def is_amd(self) -> bool:
        return self.vendor.lower() == "amd" or self.interconnect == "infinity_fabric"

    @property
    def generation(self) -> str:
        """GPU generation the calibration is grouped by: blackwell, blackwell-gddr, hopper, ada,
        ampere, cdna, gaudi or other. From ``architecture`` (Blackwell Ultra counts as
        blackwell; the GDDR7 PCIe cards, RTX PRO and GeForce 50, are blackwell-gddr: the HBM3e
        B200/GB200 calibration says little about them). A spec without an architecture is
        classified by what it has (an FP4 rate: blackwell; FP8 with >= 3 TB/s: hopper; FP8:
        ada; BF16: ampere)."""
        arch = self.architecture.lower()
        for prefix, name in _GENERATION_PREFIXES:
            if arch.startswith(prefix):
                gddr = name == "blackwell" and self.memory_type.upper().startswith("GDDR")
                return "blackwell-gddr" if gddr else name
        if arch:
            return "other"
        if self.is_amd:
            return "cdna"
        if self.fp4_tflops_dense:
            return "blackwell"
        if self.fp8_tflops_dense:
            return "hopper" if self.memory_bandwidth_gbps >= 3000 else "ada"
        return "ampere" if self.bf16_tflops_dense else "other"


_GENERATION_PREFIXES = (
    ("blackwell", "blackwell"), ("hopper", "hopper"), ("ada", "ada"), ("ampere", "ampere"),
    ("cdna", "cdna"), ("gaudi", "gaudi"),
)  # fmt: skip

# The columns of gpus.csv, in its order: every field of GpuSpec (tests/warehouse/test_gpu_seed.py).
GPU_COLUMNS: tuple[str, ...] = (
    "gpu_id", "name", "vendor", "architecture", "vram_gb", "memory_type",
    "memory_bandwidth_gbps", "fp16_tflops_dense", "bf16_tflops_dense", "fp8_tflops_dense",
    "int8_tops_dense", "fp4_tflops_dense", "fp8_support", "bf16_support", "form_factor",
    "interconnect", "interconnect_bandwidth_gbps", "tdp_watts", "source_url",
)  # fmt: skip
_REQUIRED_NUMBERS = {"vram_gb", "memory_bandwidth_gbps"}
_OPTIONAL_NUMBERS = {
    "fp16_tflops_dense",
    "bf16_tflops_dense",
    "fp8_tflops_dense",
    "int8_tops_dense",
    "fp4_tflops_dense",
    "interconnect_bandwidth_gbps",
    "tdp_watts",
}
_BOOLEANS = {"fp8_support", "bf16_support"}


def normalise_gpu_name(name: str) -> str:
    """Lowercase, every run of non-alphanumeric characters -> one space, trimmed.

    ``"NVIDIA A100-SXM4-80GB"`` -> ``"nvidia a100 sxm4 80gb"``. Vendor words are kept here;
    :func:`resolve` decides when to drop them. Never raises; ``""`` for a name with no letters or
    digits.
    """
    return _NON_ALNUM.sub(" ", name.lower()).strip()


def true_false(raw: str | None, where: str) -> bool:
    """A required yes/no cell of a seed CSV: ``true`` or ``false`` (surrounding blanks
    ignored); ValueError naming ``where`` for anything else, an empty cell included."""
    text = (raw or "").strip()
    if text not in ("true", "false"):
        raise ValueError(f"{where} must be true/false, got {text!r}")
    return text == "true"


def _parse_row(row: dict[str, str], where: str) -> GpuSpec:
    values: dict[str, object] = {}
    for column in GPU_COLUMNS:
        raw = (row.get(column) or "").strip()
        if column in _BOOLEANS:
            values[column] = true_false(raw, f"{where}: {column}")
        elif column in _REQUIRED_NUMBERS or column in _OPTIONAL_NUMBERS:
            if not raw and column in _OPTIONAL_NUMBERS:
                values[column] = None
                continue
            try:
                values[column] = float(raw)
            except ValueError:
                raise ValueError(f"{where}: {column} is not a number: {raw!r}") from None
        elif raw:
            values[column] = raw
        else:
            raise ValueError(f"{where}: {column} is empty")
    return GpuSpec(**values)  # type: ignore[arg-type]


@cache
def load_gpus(seeds_dir: Path = SEEDS_DIR) -> dict[str, GpuSpec]:
    """All rows of ``<seeds_dir>/gpus.csv`` by ``gpu_id`` (cached per directory).

    Raises ``ValueError`` on a header that differs from :data:`GPU_COLUMNS`, a malformed value or
    a duplicate ``gpu_id``: the seed is hand-edited, so a typo must fail loudly.
    """
    path = seeds_dir / GPUS_CSV.name
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != GPU_COLUMNS:
            raise ValueError(f"{path.name}: header {reader.fieldnames} != {list(GPU_COLUMNS)}")
        gpus: dict[str, GpuSpec] = {}
        for line, row in enumerate(reader, start=2):
            spec = _parse_row(row, f"{path.name}:{line}")
            if spec.gpu_id in gpus:
                raise ValueError(f"{path.name}:{line}: duplicate gpu_id {spec.gpu_id!r}")
            gpus[spec.gpu_id] = spec
    return gpus


@cache
def alias_table(seeds_dir: Path = SEEDS_DIR) -> dict[str, str]:
    """``<seeds_dir>/gpu_aliases.csv`` as {normalised alias: gpu_id} (cached per directory).

    This is what the warehouse stores as ``gpu_aliases(alias_key, gpu_id)``. Raises
    ``ValueError`` when two spellings normalise to one key with different gpu_ids, or an alias
    points at a gpu_id that ``gpus.csv`` does not define.
    """
    known = load_gpus(seeds_dir)
    path = seeds_dir / ALIASES_CSV.name
    aliases: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != ("alias", "gpu_id"):
            raise ValueError(f"{path.name}: header must be alias,gpu_id")
        for line, row in enumerate(reader, start=2):
            key, gpu_id = normalise_gpu_name(row["alias"]), row["gpu_id"].strip()
            if not key or gpu_id not in known:
                raise ValueError(f"{path.name}:{line}: bad alias row {row}")
            if aliases.setdefault(key, gpu_id) != gpu_id:
                raise ValueError(
                    f"{path.name}:{line}: {row['alias']!r} maps to {gpu_id!r} "
                    f"but another spelling maps it to {aliases[key]!r}"
                )
    return aliases


def strip_vendor_words(key: str) -> str:
    """A normalised name without its leading vendor word and then its leading brand word.

    ``"nvidia geforce rtx 4090"`` -> ``"rtx 4090"``; ``"amd instinct mi300x"`` is unchanged
    apart from ``"amd "`` (``"instinct mi300x"``). Expects :func:`normalise_gpu_name` output.
    """
    without_vendor = _VENDOR_PREFIX.sub("", key, count=1)
    return _BRAND_PREFIX.sub("", without_vendor, count=1)


def _candidates(key: str) -> list[str]:
    """The normalised name as written, then with vendor/brand words removed (the loader's order)."""
    stripped = strip_vendor_words(key)
    return [key] if stripped == key else [key, stripped]


def _gb_label(value: float) -> str:
    return f"{int(value)}gb" if value.is_integer() else f"{value:g}gb"


def _form_factor(words: list[str]) -> str | None:
    for form, pattern in _FORM_WORDS:
        if any(pattern.match(word) for word in words):
            return form
    return None


def _base(words: list[str]) -> str:
    """The words that name the GPU: without memory sizes and form-factor words."""
    return " ".join(
        w
        for w in words
        if not _SIZE_WORD.match(w)
        and w not in _NEUTRAL_WORDS
        and not any(p.match(w) for _, p in _FORM_WORDS)
    )


@cache
def _models_by_base(seeds_dir: Path = SEEDS_DIR) -> dict[str, frozenset[str]]:
    """{base words: the gpu_ids with an alias (as written or without vendor words) of them}."""
    found: dict[str, set[str]] = {}
    for key, gpu_id in alias_table(seeds_dir).items():
        for candidate in _candidates(key):
            found.setdefault(_base(candidate.split()), set()).add(gpu_id)
    return {base: frozenset(ids) for base, ids in found.items() if base}


def stated_form_factor(text: str) -> str | None:
    """The form factor ``text``'s words state (``"SXM"``, ``"PCIe"``; a name stating both is the
    PCIe card), or None. "gpu_8x_a100_80gb_sxm4" -> SXM. Never raises."""
    return _form_factor(normalise_gpu_name(text).split())


def _agreeing(
    name: str, vram_gb: float | None, form_factor: str | None
) -> Iterator[tuple[frozenset[str], set[str], str | None]]:
    """(named, agreeing, form stated) per spelling of ``name`` (as written, then without vendor
    words): the gpu_ids its words name, those of them agreeing with ``vram_gb`` (10 %) and the
    stated form factor (the name's own form word, else ``form_factor``; two that disagree
    state none), and that form factor."""
    gpus, by_base = load_gpus(), _models_by_base()
    for candidate in _candidates(normalise_gpu_name(name)):
        words = candidate.split()
        own = _form_factor(words)
        form = form_factor if own is None else (own if form_factor in (None, own) else None)
        named = by_base.get(_base(words), frozenset())
        models = {
            gpu_id
            for gpu_id in named
            if (form is None or gpus[gpu_id].form_factor == form)
            and (
                vram_gb is None
                or abs(gpus[gpu_id].vram_gb - vram_gb) <= VRAM_HINT_TOLERANCE * gpus[gpu_id].vram_gb
            )
        }
        yield named, models, form


def resolve_from_facts(
    name: str, vram_gb: float | None = None, form_factor: str | None = None
) -> str | None:
    """The one canonical GPU that ``name``'s words, the form factor the row states (its name's
    words, else ``form_factor``: ``"SXM"``/``"PCIe"``, as the seed spells it) and ``vram_gb``
    (GB per GPU, within 10 %) agree on, or ``None`` when no fact is given, none agrees or
    several do, or the name's models differ in form factor and the row states none. "NVIDIA
    A100 HGX" + 80 -> ``a100-80gb-sxm``; "NVIDIA A100" + 80 -> ``None``; "NVIDIA A100" + 80 +
    SXM -> ``a100-80gb-sxm``. Never raises for an unknown name."""
    gpus = load_gpus()
    for named, models, form in _agreeing(name, vram_gb, form_factor):
        if form is None and (vram_gb is None or vram_gb <= 0):
            return None
        if form is None and len({gpus[g].form_factor for g in named}) > 1:
            continue  # several form factors and none stated: not guessed
        if len(models) == 1:
            return next(iter(models))
    return None


def family_from_facts(
    name: str, vram_gb: float | None = None, form_factor: str | None = None
) -> str | None:
    """The GPU family of a row no model fits alone: the longest run of leading id segments that
    names a GPU number (has a digit), is no canonical id itself, and every model agreeing with
    the row's facts shares (:func:`resolve_from_facts`; when the VRAM agrees with none, the
    models of the name's words). "NVIDIA A100" + 80 -> ``a100-80gb``; "NVIDIA A100" ->
    ``a100``; "H100 NVLink" -> ``h100``. ``None`` for a name whose words name no model, or
    models with no such common run ("RTX 6000": rtx-6000-ada and quadro-rtx-6000...). It is a
    filter term: ``gpu=a100`` matches it. Never raises."""
    gpus = load_gpus()
    for named, models, _ in _agreeing(name, vram_gb, form_factor):
        ids = sorted(models or named)
        if not ids:
            continue
        shared = ids[0].split("-")
        for gpu_id in ids[1:]:
            parts = gpu_id.split("-")
            n = 0
            while n < min(len(shared), len(parts)) and shared[n] == parts[n]:
                n += 1
            shared = shared[:n]
        while shared and "-".join(shared) in gpus:
            shared.pop()
        family = "-".join(shared)
        if any(c.isdigit() for c in family):
            return family
    return None


def resolve(name: str, vram_gb: float | None = None, form_factor: str | None = None) -> str | None:
    """The canonical ``gpu_id`` for a provider's GPU spelling, or ``None`` if unknown/ambiguous:
    :func:`resolve_spelling`, else :func:`resolve_from_facts` (``form_factor``: what the row
    states beside the name). Never raises for an unknown name; raises ``ValueError`` only if
    the seed files are broken."""
    return resolve_spelling(name, vram_gb) or resolve_from_facts(name, vram_gb, form_factor)


def resolve_spelling(name: str, vram_gb: float | None = None) -> str | None:
    """The ``gpu_id`` the alias table gives ``name``, as written or with "<N>GB" added.

    ``vram_gb`` (GB per GPU, optional) only helps names that are ambiguous in memory size alone
    ("A100 SXM4" + 85.9 -> ``a100-80gb-sxm``): it is tried as "<name> <N>GB" for every marketed
    size N within 10 % of it, nearest first, and accepted only if that GPU really has N GB.
    """
    aliases = alias_table()
    candidates = _candidates(normalise_gpu_name(name))
    for candidate in candidates:
        if candidate in aliases:
            return aliases[candidate]
    if vram_gb is None or vram_gb <= 0:
        return None
    gpus = load_gpus()
    sizes = sorted({spec.vram_gb for spec in gpus.values()}, key=lambda size: abs(size - vram_gb))
    for size in sizes:
        if abs(size - vram_gb) > VRAM_HINT_TOLERANCE * size:
            continue
        for candidate in candidates:
            gpu_id = aliases.get(f"{candidate} {_gb_label(size)}")
            if gpu_id is not None and gpus[gpu_id].vram_gb == size:
                return gpu_id
    return None
