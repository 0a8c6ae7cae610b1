"""Time ``gpuprices ingest --replay`` of every capture as a whole CLI process, and say where the
time goes.

    .venv/bin/python benchmarks/replay_ingest.py                 # 3 timed runs + 1 profiled run
    .venv/bin/python benchmarks/replay_ingest.py --runs 5 --top 15
    .venv/bin/python benchmarks/replay_ingest.py --no-profile    # timed runs only

Each run is a fresh subprocess, ``python -m pipelines.cli ingest --replay ../shared/snapshots``,
into its own empty temporary ``GPUPRICES_HOME`` (a cold start: empty warehouse, raw archive and
Dagster storage, so every capture is parsed, archived and loaded, and the snapshot published),
exactly what a user types. Reported per run: wall time, the child's CPU time (user + sys: on a
shared machine wall time also measures the neighbours, CPU time much less so), peak RSS and the
1-minute load average before and after; then the minimum and median over the runs.

The profiled run is the same command under pyinstrument (wall-clock stack samples of the main
thread every 1 ms; about 10 % slower than a plain run) with ``-X importtime``. Each sample is put
in one bucket by its stack:

- ``imports``: inside an import (module-level code included), wherever it happens;
- ``dagster: run storage``: Dagster code writing or reading its run and event storage (SQLite
  under ``$GPUPRICES_HOME/dagster``), ``dagster: execution`` any other Dagster code (planning,
  events, checks, logging, resources); our own code called back from Dagster is not Dagster's;
- then by the Dagster step the sample is in (the asset functions in ``pipelines/defs``):
  ``seeds & FX``, a provider step's ``fetch (read captures)`` (``scrapers/http.py``,
  ``scrapers/replay.py``), ``parse`` (any other ``scrapers/`` code) and ``load`` (the rest of the
  step: archive, normalise, validate, screen, commit, history), ``derive`` (derived models and
  token estimates) and ``publish`` (the snapshot);
- ``CLI, report, other``: the rest (argument parsing, instance set-up, the report, run
  retention, the progress lines).

Exit status 1 when a run fails, or when even the fastest run is slower than ``--target-s``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO.parent / "shared" / "snapshots"
TARGET_S = 15.0
BUCKETS = (
    "imports",
    "dagster: execution",
    "dagster: run storage",
    "seeds & FX",
    "fetch (read captures)",
    "parse",
    "load",
    "derive",
    "publish",
    "CLI, report, other",
)
# the Dagster steps, by the asset function the sample is in (pipelines/defs/*.py)
STEP_BUCKETS = {
    ("derived.py", "seeds"): "seeds & FX",
    ("fx.py", "fx_rates"): "seeds & FX",
    ("derived.py", "current_offers"): "derive",
    ("derived.py", "token_estimates"): "derive",
    ("derived.py", "published_snapshot"): "publish",
}
FETCH_FILES = ("scrapers/http.py", "scrapers/replay.py")


@dataclass
class Run:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    load_before: float
    load_after: float
    returncode: int
    stdout: str
    stderr: str


def _command(snapshots: Path, profile_to: Path | None = None) -> list[str]:
    cli = ["-m", "pipelines.cli", "ingest", "--replay", str(snapshots)]
    if profile_to is None:
        return [sys.executable, *cli]
    return [
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "pyinstrument",
        "--interval",
        "0.001",
        "-r",
        "pyisession",
        "-o",
        str(profile_to),
        *cli,
    ]


def run_once(command: list[str], home: Path, *, no_bytecode: bool = False) -> Run:
    """Run ``command`` with ``GPUPRICES_HOME=home`` from the repository; time it. With
    ``no_bytecode``, Python looks for .pyc files in an empty folder (``PYTHONPYCACHEPREFIX``),
    so every module is compiled from source, as in an environment without them."""
    env = {**os.environ, "GPUPRICES_HOME": str(home)}
    env.pop("DAGSTER_HOME", None)  # the CLI makes its own under GPUPRICES_HOME
    if no_bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(home.parent / "no-pycache")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_mb=after.ru_maxrss / 1024,  # Linux: KiB; the largest child so far
        load_before=load_before,
        load_after=os.getloadavg()[0],
        returncode=done.returncode,
        stdout=done.stdout,
        stderr=done.stderr,
    )


def _frames(stack: list[str]) -> list[tuple[str, str]]:
    """(function, file) of each frame of a pyinstrument sample, outermost first."""
    frames = []
    for identifier in stack:
        function, _, rest = identifier.partition("\x00")
        file = rest.partition("\x00")[0]
        frames.append((function, file))
    return frames


def bucket(frames: list[tuple[str, str]]) -> str:
    """The bucket of one sample's stack (module docstring)."""
    if any(f == "_find_and_load" and "importlib" in path for f, path in frames):
        return "imports"
    for _, path in reversed(frames):  # the innermost frame that is Dagster's or ours
        if "/site-packages/dagster/" in path:
            storage = "/dagster/_core/storage/" in path
            return "dagster: run storage" if storage else "dagster: execution"
        if _ours(path):
            break
    for function, path in frames:
        if not _ours(path) or "/pipelines/defs/" not in path:
            continue
        step = STEP_BUCKETS.get((Path(path).name, function))
        if step:
            return step
        if Path(path).name == "providers.py" and function == "_asset":
            inner = [p for _, p in frames if _ours(p) and "/scrapers/" in p]
            if any(p.endswith(FETCH_FILES) for p in inner):
                return "fetch (read captures)"
            return "parse" if inner else "load"
    return "CLI, report, other"


def _ours(path: str) -> bool:
    return path.startswith(str(REPO)) and "/.venv/" not in path and "/benchmarks/" not in path


def breakdown(session_file: Path) -> tuple[dict[str, float], float, float]:
    """(seconds per bucket, wall s, CPU s) of a saved pyinstrument session."""
    from pyinstrument.session import Session

    session = Session.load(str(session_file))
    seconds: dict[str, float] = defaultdict(float)
    for stack, sample_s in session.frame_records:
        seconds[bucket(_frames(stack))] += sample_s
    return seconds, session.duration, session.cpu_time


def top_imports(stderr: str, n: int) -> list[tuple[str, float]]:
    """The ``n`` distributions whose modules took longest to import (``-X importtime``: each
    module's own time, without the modules it imports, summed by top-level package name)."""
    per_package: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \| \s*(\S+)", line)
        if match and match.group(2).split(".")[0] != "pyinstrument":
            per_package[match.group(2).split(".")[0]] += int(match.group(1)) / 1e6
    return sorted(per_package.items(), key=lambda item: -item[1])[:n]


def _figures(values: list[float]) -> str:
    return f"min {min(values):5.1f} s, median {statistics.median(values):5.1f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--snapshots", type=Path, default=SNAPSHOTS, help="captures to replay")
    parser.add_argument("--runs", type=int, default=3, help="timed runs (default 3)")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiled run")
    parser.add_argument("--top", type=int, default=8, help="slowest imports to list (default 8)")
    parser.add_argument(
        "--target-s",
        type=float,
        default=TARGET_S,
        help=f"fail when the fastest run takes longer (default {TARGET_S:g} s)",
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="compile every module from source, ignoring installed .pyc files",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes")
    args = parser.parse_args(argv)
    if not args.snapshots.is_dir():
        print(f"error: no captures at {args.snapshots}", file=sys.stderr)
        return 2
    snapshots = args.snapshots.resolve()
    root = Path(tempfile.mkdtemp(prefix="gpuprices-replay-bench-"))
    print(
        f"gpuprices ingest --replay {snapshots}: a fresh GPUPRICES_HOME per run, "
        f"{os.cpu_count()} CPUs, git {_git_head()}, {_bytecode(args.no_bytecode)}"
    )
    runs: list[Run] = []
    failed = False
    for i in range(args.runs):
        run = run_once(_command(snapshots), root / f"run-{i + 1}", no_bytecode=args.no_bytecode)
        runs.append(run)
        print(
            f"run {i + 1}: wall {run.wall_s:5.1f} s, CPU {run.cpu_s:5.1f} s, "
            f"load {run.load_before:.1f} -> {run.load_after:.1f}, exit {run.returncode}"
        )
        failed |= _failed(run)
    if runs:
        print(f"wall  {_figures([r.wall_s for r in runs])}   (target {args.target_s:g} s)")
        print(f"CPU   {_figures([r.cpu_s for r in runs])}")
        print(f"peak RSS {max(r.peak_rss_mb for r in runs):.0f} MB")
        summary = next((line for line in runs[-1].stdout.splitlines() if "published" in line), "")
        print(summary)
    if not args.no_profile:
        profile_file = root / "replay.pyisession"
        run = run_once(
            _command(snapshots, profile_file), root / "profiled", no_bytecode=args.no_bytecode
        )
        failed |= _failed(run)
        seconds, wall, cpu = breakdown(profile_file)
        print(
            f"\nwhere the time goes (one run under pyinstrument: wall {wall:.1f} s, "
            f"CPU {cpu:.1f} s, load {run.load_before:.1f} -> {run.load_after:.1f})"
        )
        total = sum(seconds.values())
        for name in BUCKETS:
            print(f"  {name:24s} {seconds[name]:6.2f} s  {seconds[name] / total:4.0%}")
        print(f"  {'total (main thread)':24s} {total:6.2f} s")
        imports = ", ".join(f"{p} {s:.2f}" for p, s in top_imports(run.stderr, args.top))
        print(f"slowest imports (-X importtime, s, inflated by it): {imports}")
    if args.keep:
        print(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    too_slow = bool(runs) and min(r.wall_s for r in runs) > args.target_s
    return 1 if failed or too_slow else 0


def _failed(run: Run) -> bool:
    if run.returncode == 0:
        return False
    print(f"  FAILED (exit {run.returncode}): {run.stderr.strip().splitlines()[-1:]}")
    return True


def _bytecode(disabled: bool) -> str:
    if disabled:
        return "no .pyc (--no-bytecode)"
    spec = importlib.util.find_spec("dagster")  # located, not imported
    origin = Path(spec.origin) if spec and spec.origin else REPO
    cached = any((origin.parent / "__pycache__").glob("*.pyc"))
    return "installed packages' .pyc present" if cached else "no .pyc installed"


def _git_head() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
