"""The ``gpuprices`` command: ingest (runs the Dagster jobs in-process), serve, and friends."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import NoReturn

from pipelines import cli_exports, cli_history, cli_query, cli_sql, cli_status, kit
from pipelines.cli_snapshot import load_settings
from warehouse.graph import GraphError
from warehouse.paths import Paths
from warehouse.problems import disk_full, storage_failure
from warehouse.publish import SNAPSHOT_STORAGE_VERSION
from warehouse.settings import Settings, env_var

# ingest's exit codes (README "Exit codes"): 0 every provider ok; 1 a provider failed (its last
# good or recorded data is served, the snapshot was published); 2 bad arguments; 3 nothing
# was published
EXIT_PROVIDER_FAILED = 1
EXIT_NOTHING_PUBLISHED = 3
REPO_DAGSTER_YAML = Path(__file__).resolve().parents[1] / "dagster.yaml"
# api.server's uvicorn protocol (named, not imported: pipelines and api are independent layers)
SERVER_PROTOCOL = "api.server:GuardedHttpToolsProtocol"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")  # uvicorn's
HOME_ENV = env_var("home")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (``gpuprices serve: error: ... (see ... --help)``)
    instead of the usage block, for every subcommand (subparsers take the parser's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _version() -> str:
    try:
        ours = metadata.version("gpuprices")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        ours = "unknown"
    duckdb_version = metadata.version("duckdb")
    readers = SNAPSHOT_STORAGE_VERSION.removeprefix("v")
    return f"gpuprices {ours} (duckdb {duckdb_version}; snapshots readable by DuckDB >= {readers})"


def _log_level(text: str) -> str:
    level = text.strip().lower()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"unknown log level {text!r}; choose from {', '.join(LOG_LEVELS)}"
        )
    return level


def _port(text: str) -> int:
    """A TCP port, 1-65535: uvicorn takes 99999 and listens on another (99999 mod 65536)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port {text!r} is not a whole number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 1-65535")
    return port


def _workers(text: str) -> int:
    try:
        workers = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"workers {text!r} is not a whole number") from None
    if workers < 1:
        raise argparse.ArgumentTypeError(f"workers must be at least 1, not {workers}")
    return workers


def _export_home(settings: Settings) -> Paths:
    """The home the command resolved, exported as ``$GPUPRICES_HOME``: what the Dagster
    resource's ``dg.EnvVar``, uvicorn's app factory and child processes read."""
    paths = settings.paths()
    os.environ[HOME_ENV] = str(paths.home)
    return paths


def _prepare_dagster_home(paths: Paths) -> Path:
    """DAGSTER_HOME under $GPUPRICES_HOME, holding our dagster.yaml (telemetry disabled)."""
    paths.dagster_home.mkdir(parents=True, exist_ok=True)
    target = paths.dagster_home / "dagster.yaml"
    if REPO_DAGSTER_YAML.is_file():
        wanted = REPO_DAGSTER_YAML.read_text(encoding="utf-8")
    else:
        wanted = "telemetry:\n  enabled: false\n"
    try:
        same = target.read_text(encoding="utf-8") == wanted
    except OSError:
        same = False
    if not same:
        # written aside and renamed: a copy in place (truncate, then write) let a concurrent
        # ingest read an empty dagster.yaml, whose default turned telemetry on (issue 27)
        aside = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        aside.write_text(wanted, encoding="utf-8")
        os.replace(aside, target)
    os.environ["DAGSTER_HOME"] = str(paths.dagster_home)
    return paths.dagster_home


def _ingest(args: argparse.Namespace) -> int:
    from pipelines.progress import IngestProgress
    from pipelines.run import dagster_instance, run_ingest
    from scrapers.registry import PROVIDERS

    unknown = [s for s in args.provider or [] if s not in PROVIDERS]
    if unknown:
        print(
            f"error: unknown provider(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(PROVIDERS))}",
            file=sys.stderr,
        )
        return 2
    settings = load_settings()
    if settings is None:
        return 2
    replay = args.replay or settings.replay_dir
    if replay is not None and not Path(replay).is_dir():
        print(f"error: replay directory {replay} does not exist", file=sys.stderr)
        return 2
    paths = _export_home(settings)
    dagster_home = _prepare_dagster_home(paths)
    recorded_fallback = settings.recorded_fallback and not args.no_recorded_fallback
    fallback = args.fallback_replay or settings.fallback_replay_dir
    if fallback is not None and not Path(fallback).is_dir():
        # a fresh clone without the captures beside it: the live fetches still run, and a
        # provider that fails falls back to the recorded offers that ship with the project
        print(
            f"note: no captures at {fallback}; a provider whose live fetch fails serves the "
            "recorded offers shipped with gpuprices (dated)"
            if recorded_fallback
            else f"note: no captures at {fallback}",
            file=sys.stderr,
        )
        fallback = None
    parallel = args.parallel if args.parallel is not None else settings.parallelism()
    slugs = args.provider or sorted(PROVIDERS)
    # Progress rows on a terminal, a plain line per provider on stderr otherwise; neither
    # under -v, whose Dagster run log says more (and would interleave).
    progress = IngestProgress(slugs)
    progress.enabled = not args.verbose
    instance = dagster_instance(args.verbose, dagster_home)
    with instance, progress if progress.enabled else contextlib.nullcontext():
        report = run_ingest(
            paths,
            instance=instance,
            replay_dir=Path(replay).resolve() if replay else None,
            fallback_replay_dir=Path(fallback).resolve() if fallback else None,
            recorded_fallback=recorded_fallback,
            providers=args.provider or None,
            verbose=args.verbose,
            parallel=parallel,
            on_event=progress if progress.enabled else None,
        )
    for line in report.lines():
        print(line)
    print(report.summary())
    if report.banner:
        print(report.banner)
    if report.snapshot_id:
        origins = ", ".join(f"{n} {origin}" for origin, n in sorted(report.origins.items()))
        print(
            f"published snapshot {report.snapshot_id}: {report.offer_count} current offers"
            f" ({origins}) under {paths.published}"
        )
    else:
        print(f"nothing published: {report.publish_error}", file=sys.stderr)
        return EXIT_NOTHING_PUBLISHED
    return 0 if report.ok else EXIT_PROVIDER_FAILED


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = load_settings()
    if settings is None:
        return 2
    _export_home(settings)
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        # the server limits (docs/deploy.md "The API under hostile clients"): the guarded
        # protocol reads the same settings in each worker; these are uvicorn's own
        http=SERVER_PROTOCOL,
        limit_concurrency=settings.max_connections + 1,
        timeout_keep_alive=settings.keep_alive_timeout_s,
        backlog=settings.backlog,
        h11_max_incomplete_event_size=settings.max_header_bytes,
    )
    return 0


def dagster_dev_command(args: argparse.Namespace) -> list[str]:
    """The ``dagster dev`` command line for this project (pipelines.definitions)."""
    return [
        "dagster",
        "dev",
        "-m",
        "pipelines.definitions",
        "--host",
        args.host,
        "--port",
        str(args.port),
    ]


def _dagster_dev(args: argparse.Namespace) -> int:
    """``dagster dev`` on a ready DAGSTER_HOME: created under $GPUPRICES_HOME on first use,
    holding the project's dagster.yaml (telemetry off), so a fresh home needs no setup."""
    settings = load_settings()
    if settings is None:
        return 2
    paths = _export_home(settings)
    home = _prepare_dagster_home(paths)
    print(f"DAGSTER_HOME={home}; GPUPRICES_HOME={paths.home}", file=sys.stderr)
    command = dagster_dev_command(args)
    executable = shutil.which(command[0])
    if executable is None:
        print("error: the dagster command is not installed (uv sync --frozen)", file=sys.stderr)
        return 2
    # From DAGSTER_HOME, so dagster does not warn about the repo's own dagster.yaml in the
    # working directory (the copy under DAGSTER_HOME is the one in use); the project is
    # installed, so pipelines.definitions imports from anywhere. `dagster dev` still works
    # and `dg` is not installed: its notice that `dg dev` supersedes it is noise here.
    os.chdir(home)
    os.environ["PYTHONWARNINGS"] = "ignore:Function `dev_command` is superseded"
    os.execv(executable, command)  # replaces this process: dagster dev handles Ctrl-C itself


def _completion(args: argparse.Namespace) -> int:
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gpuprices",
        description="Cloud GPU price tracker. Data lives under $GPUPRICES_HOME "
        "(default ~/.local/share/gpuprices). `gpuprices COMMAND --help` explains each option.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser(
        "ingest",
        help="scrape providers (Dagster job, in-process) and publish",
        description="Fetch every provider (or --provider ones), load the warehouse and publish "
        "a new snapshot. Exit codes: 0 every provider ok; 1 a provider failed or was skipped "
        "(its last good or recorded data is published); 2 bad arguments; 3 nothing published.",
    )
    ingest.add_argument(
        "--replay",
        metavar="DIR",
        help="answer every request from recorded responses in DIR/<provider>/ "
        "(default: $GPUPRICES_REPLAY_DIR; unset = live sites); a provider with no capture "
        "there is left out unless named with --provider",
    )
    ingest.add_argument(
        "--fallback-replay",
        metavar="DIR",
        help="fetch live; for a provider whose live fetch fails, replay its "
        "recorded captures from DIR instead (default: $GPUPRICES_FALLBACK_REPLAY_DIR)",
    )
    ingest.add_argument(
        "--no-recorded-fallback",
        action="store_true",
        help="do not load the recorded offers that ship with gpuprices (scrapers/recorded/, "
        "each dated) for a provider whose live fetch fails and has no captures to replay",
    )
    ingest.add_argument(
        "--provider", metavar="SLUG", action="append", help="only this provider (repeatable)"
    )
    ingest.add_argument("-v", "--verbose", action="store_true", help="show Dagster's run log")
    ingest.add_argument(
        "--parallel",
        type=int,
        metavar="N",
        help="run up to N providers at once (Dagster's multiprocess executor; "
        "default: $GPUPRICES_EXECUTOR=multiprocess with $GPUPRICES_MAX_CONCURRENT, "
        "else one at a time in-process)",
    )
    ingest.set_defaults(func=_ingest)

    serve = sub.add_parser(
        "serve",
        help="serve the HTTP API (Litestar under uvicorn)",
        description="Serve the HTTP API and the comparison page over the newest published "
        "snapshot (swapped in without a restart when the pipeline publishes a newer one).",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    serve.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="worker processes, each holding the snapshot in memory (default 1)",
    )
    serve.add_argument(
        "--log-level",
        type=_log_level,
        default="info",
        metavar="LEVEL",
        help=f"uvicorn's log level: {', '.join(LOG_LEVELS)} (default info)",
    )
    serve.set_defaults(func=_serve)

    completion = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or tcsh)",
        description="Print the completion script of every gpuprices command and option for "
        'SHELL. bash: `eval "$(gpuprices completion bash)"` in ~/.bashrc; zsh: '
        '`gpuprices completion zsh > "${fpath[1]}/_gpuprices"`.',
    )
    completion.add_argument(
        "shell", choices=["bash", "zsh", "tcsh"], help="the shell to complete in"
    )
    completion.set_defaults(func=_completion)

    dev = sub.add_parser(
        "dagster-dev",
        help="run `dagster dev` (the Dagster UI) on this project's definitions",
        description="Start the Dagster UI and daemon over pipelines.definitions with "
        "DAGSTER_HOME under $GPUPRICES_HOME (created, telemetry off, on first use). The "
        "ingest_every_6_hours schedule runs while it is up; offline, each run fails its live "
        "fetches per provider and falls back to recorded data, like `gpuprices ingest`.",
    )
    dev.add_argument("--host", default="127.0.0.1", help="address of the UI (default 127.0.0.1)")
    dev.add_argument("--port", type=_port, default=3000, help="port of the UI (default 3000)")
    dev.set_defaults(func=_dagster_dev)

    cli_exports.register(sub)
    cli_query.register(sub)
    cli_status.register(sub)
    cli_history.register(sub)
    cli_sql.register(sub)
    kit.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except GraphError as exc:  # a bad header of a warehouse/*/*.sql file: one line naming it
        print(f"gpuprices: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `gpuprices query | head`: the reader left; say nothing more (Python's advice: point
        # stdout at devnull so the flush at exit does not raise again)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:
        # the file system failed us (a home that cannot be written, SQLite's "disk I/O error"
        # under a full disk): one line, never a traceback (issue 27)
        line = storage_failure(exc)
        if line is None:
            raise
        kind = "disk full" if disk_full(exc) else "cannot use GPUPRICES_HOME"
        print(f"error: {kind}: {' '.join(line.split())}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    raise SystemExit(main())
