"""Throughput estimates of an earlier commit against today's: per-GPU calibration medians and grid.

    uv run python benchmarks/estimates_before_after.py                # against f96db3c^
    uv run python benchmarks/estimates_before_after.py --rev 9c48ee4  # any other commit
    uv run python benchmarks/estimates_before_after.py --rev A --after-rev B  # two commits

The earlier commit is checked out in a temporary ``git worktree`` (removed afterwards) and both
sides run in their own interpreter with their own ``tests.support.calibration`` harness, on
today's points (``docs/estimates_calibration.csv``: each point estimated with the settings its
source states). Printed: per GPU, the median ratio estimate / measured before and after, for all
points and for the MLPerf reference rows, the spread of those medians and the points within
1.5x; then, on a grid of served estimates (8B TP1, 70B TP1-8, 405B TP4/8 over eleven
input/output shapes, the default layout and scheduler), the median after / before per GPU and
precision, also for long outputs (>= 2,000 tokens) and for the 8B model alone. The default
``f96db3c^`` is the last commit before issue 24's estimate work.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
POINTS = REPO / "docs" / "estimates_calibration.csv"
SHAPES = ((128, 128), (128, 2048), (128, 4096), (500, 2000), (1000, 1000), (1000, 2000),
          (1024, 2048), (2048, 128), (2048, 2048), (5000, 500), (20000, 2000))  # fmt: skip
GRID_MODELS = {"llama-3.1-8b": (1,), "llama-3.1-70b": (1, 2, 4, 8), "llama-3.1-405b": (4, 8)}
GRID_GPUS = (("h100-sxm", "fp8"), ("h200", "fp8"), ("b200", "fp4"), ("gb200", "fp4"),
             ("b200", "fp8"))  # fmt: skip


def child(root: Path, points_csv: Path) -> dict[str, dict[str, float | None]]:
    """Estimates of the checkout at ``root``: ratio per point id, output tok/s per grid cell."""
    sys.path.insert(0, str(root))
    from tests.support import calibration  # the checkout's own harness and economics
    from warehouse import economics

    gpus, models = calibration.gpu_specs(), calibration.models()
    ratios: dict[str, float | None] = {}
    for point in calibration.load_points(points_csv):
        known = point.gpu_id in gpus and point.model_id in models
        ratios[point.point_id] = (
            calibration.estimated_rate(point) / point.measured if known else None
        )
    grid: dict[str, float | None] = {}
    for gpu_id, precision in GRID_GPUS:
        for model_id, tps in GRID_MODELS.items():
            for tp in tps:
                for inp, out in SHAPES:
                    found = economics.estimate_throughput(
                        models[model_id], precision, gpus[gpu_id], tp, inp, out, tensor_parallel=tp
                    )
                    key = f"{gpu_id}|{precision}|{model_id}|{inp}/{out}|tp{tp}"
                    grid[key] = found.output_tokens_per_s if found.fits else None
    return {"ratios": ratios, "grid": grid}


def run_side(root: Path, points_csv: Path) -> dict[str, dict[str, float | None]]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(root)]
    done = subprocess.run(
        [*command, "--points", str(points_csv)], capture_output=True, text=True, cwd=root
    )
    if done.returncode:
        raise SystemExit(f"estimates at {root} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def _estimates_at(rev: str, checkout: Path, points_csv: Path) -> dict:
    """``run_side`` on a temporary ``git worktree`` of ``rev``, removed afterwards."""
    git = ["git", "-C", str(REPO), "worktree"]
    subprocess.run([*git, "add", "--detach", "--quiet", str(checkout), rev], check=True)
    try:
        return run_side(checkout, points_csv)
    finally:
        subprocess.run([*git, "remove", "--force", str(checkout)], check=True)


def _within(ratios: Sequence[float], factor: float) -> int:
    return sum(max(r, 1 / r) <= factor + 1e-9 for r in ratios)


def calibration_table(before: dict, after: dict, rows: list[dict[str, str]], kind: str) -> None:
    chosen = [r for r in rows if kind == "all" or r["source_kind"] == kind]
    print(f"\n{kind} points: gpu | n | median before | median after")
    medians: dict[str, list[float]] = {"before": [], "after": []}
    for gpu_id in sorted({r["gpu_id"] for r in chosen}):
        ids = [r["point_id"] for r in chosen if r["gpu_id"] == gpu_id]
        old = [before[i] for i in ids if before.get(i)]
        new = [after[i] for i in ids if after.get(i)]
        cells = [f"{statistics.median(xs):.2f}" if xs else "-" for xs in (old, new)]
        print(f"{gpu_id} | {len(ids)} | {cells[0]} | {cells[1]}")
        for side, xs in (("before", old), ("after", new)):
            if xs:
                medians[side].append(statistics.median(xs))
    for side, ratios in (("before", before), ("after", after)):
        found = [ratios[r["point_id"]] for r in chosen if ratios.get(r["point_id"])]
        spread = max(medians[side]) / min(medians[side])
        print(
            f"{side}: per-GPU medians {min(medians[side]):.2f}-{max(medians[side]):.2f} "
            f"({spread:.2f}x apart); within 1.5x {_within(found, 1.5)}/{len(found)}"
        )


def grid_table(before: dict, after: dict) -> None:
    groups: dict[str, list[float]] = {}
    for key, new in after.items():
        old = before.get(key)
        if not (old and new):
            continue
        gpu_id, precision, model_id, shape, _ = key.split("|")
        output_tokens = int(shape.split("/")[1])
        labels = [f"{gpu_id}/{precision}"]
        labels += [f"{gpu_id}/{precision} long output"] if output_tokens >= 2000 else []
        labels += [f"{gpu_id}/{precision} 8b"] if model_id.endswith("-8b") else []
        for label in labels:
            groups.setdefault(label, []).append(new / old)
    print("\nserved grid: gpu/precision | cells | median after/before | min | max")
    for label, xs in groups.items():
        print(f"{label} | {len(xs)} | {statistics.median(xs):.3f} | {min(xs):.2f} | {max(xs):.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--rev", default="f96db3c^", help="the earlier commit (default f96db3c^)")
    parser.add_argument("--after-rev", help="compare with this commit, not the working tree")
    parser.add_argument("--points", type=Path, default=POINTS, help="calibration points CSV")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.points)))
        return 0
    with args.points.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with tempfile.TemporaryDirectory(prefix="estimates-before-after-") as tmp:
        before = _estimates_at(args.rev, Path(tmp) / "before", args.points)
        if args.after_rev is None:
            after = run_side(REPO, args.points)
        else:
            after = _estimates_at(args.after_rev, Path(tmp) / "after", args.points)
    after_label = args.after_rev or "the working tree"
    print(f"before = {args.rev}, after = {after_label}; points: {args.points.name}")
    for kind in ("all", "mlperf"):
        calibration_table(before["ratios"], after["ratios"], rows, kind)
    grid_table(before["grid"], after["grid"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
