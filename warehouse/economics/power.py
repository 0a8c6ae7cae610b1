"""Board power as a limit on tensor throughput: a lower-power board built on the same die as a
higher-power one cannot run its tensor cores at the clocks its datasheet peak is quoted at.

A datasheet's dense TFLOPS are SMs x ops per clock x boost clock. Under a sustained GEMM the
board sits at its power limit, and at the bottom of the voltage-frequency curve (where a
power-capped dense GEMM runs) power grows in proportion to active SMs x clock. So two boards of
one die sustain tensor rates in proportion to their board power. The reference is the die's
highest-power board in ``gpus.csv``, the one whose rate the compute efficiencies are measured
on (an SXM/OAM module, or the GeForce card of an Ada die): a board of the same die sustains at
most ``reference rate x own power / reference power``, and its share of its own datasheet
peak is that over its peak, capped at 1.

The rate compared is the dense INT8 tensor rate, the one every board of a die runs at full
speed (GeForce cards halve FP8/FP16 with FP32 accumulation, not INT8), falling back to FP8 and
then twice the 16-bit rate. Dies come from ``seeds/gpu_dies.csv`` (a cited die per board);
a GPU that shares no die with a higher-power board in the table keeps 1.0.

Examples from the table: H100 NVL (400 W) sustains 0.68 of its listed 1,670 FP8 TFLOPS and
H100 PCIe (350 W) 0.65 of 1,513, against H100 SXM at 700 W; MI300X (750 W) 0.75 against
MI325X (1,000 W); L40S (350 W, 142 SMs) 0.70 against the RTX 4090 (450 W, 128 SMs at the same
2,520 MHz boost). docs/estimates.md section 2 gives the public runs behind the rule.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from warehouse.gpus import SEEDS_DIR, GpuSpec, load_gpus

GPU_DIES_CSV = SEEDS_DIR / "gpu_dies.csv"


def _tensor_rate(gpu: GpuSpec) -> float | None:
    """The dense tensor rate boards of one die are compared on (INT8, else FP8, else 2 x 16-bit)."""
    for rate, scale in (
        (gpu.int8_tops_dense, 1.0),
        (gpu.fp8_tflops_dense, 1.0),
        (gpu.bf16_tflops_dense or gpu.fp16_tflops_dense, 2.0),
    ):
        if rate:
            return rate * scale
    return None


def load_dies(path: Path = GPU_DIES_CSV) -> dict[str, str]:
    """``gpu_id -> die`` from ``seeds/gpu_dies.csv``. Raises ValueError on a bad header, an
    empty die or source, a duplicate row or a gpu_id ``gpus.csv`` does not define."""
    known = load_gpus(path.parent)
    dies: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != ("gpu_id", "die", "source_url"):
            raise ValueError(f"{path.name}: header must be gpu_id,die,source_url")
        for line, row in enumerate(reader, start=2):
            gpu_id, die = row["gpu_id"].strip(), row["die"].strip()
            if gpu_id not in known or not die or not row["source_url"].startswith("https://"):
                raise ValueError(f"{path.name}:{line}: bad row {row}")
            if gpu_id in dies:
                raise ValueError(f"{path.name}:{line}: duplicate gpu_id {gpu_id!r}")
            dies[gpu_id] = die
    return dies


@cache
def sustained_compute_fractions(path: Path = GPU_DIES_CSV) -> dict[str, float]:
    """``gpu_id -> share of its datasheet tensor peak the board sustains`` for every GPU that
    shares a die with a higher-power board (the others are absent: 1.0)."""
    gpus = load_gpus(path.parent)
    by_die: dict[str, list[GpuSpec]] = {}
    for gpu_id, die in load_dies(path).items():
        by_die.setdefault(die, []).append(gpus[gpu_id])
    fractions: dict[str, float] = {}
    for boards in by_die.values():
        rated = [g for g in boards if g.tdp_watts and _tensor_rate(g)]
        if len(rated) < 2:
            continue
        reference = max(rated, key=lambda g: (g.tdp_watts or 0.0, _tensor_rate(g) or 0.0))
        reference_rate = _tensor_rate(reference) or 0.0
        reference_watts = reference.tdp_watts or 0.0
        for gpu in rated:
            own_rate, own_watts = _tensor_rate(gpu) or 0.0, gpu.tdp_watts or 0.0
            sustained = reference_rate * own_watts / reference_watts
            if sustained < own_rate:
                fractions[gpu.gpu_id] = round(sustained / own_rate, 4)
    return fractions


def sustained_compute_fraction(gpu: GpuSpec) -> float:
    """Share of ``gpu``'s datasheet tensor peak its board power sustains (1.0 unless a
    higher-power board of the same die shows it is power limited). See the module docstring."""
    return sustained_compute_fractions().get(gpu.gpu_id, 1.0)
