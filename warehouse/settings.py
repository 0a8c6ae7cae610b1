"""Every ``GPUPRICES_*`` setting, typed and validated in one place.

This module holds the type only; nothing here runs at import. Entry points build it when they
start: the ``gpuprices`` CLI, the Dagster resource (``pipelines.defs.resources``, when a run
sets it up) and the API factory (``api.app.create_app``). Code below them, the warehouse
included, takes the values it needs as parameters.

``Settings()`` reads the process environment (``GPUPRICES_`` + the field name in upper case; an
empty value counts as unset); ``Settings.from_mapping(env)`` reads a mapping instead, and
``Settings.load(...)`` does either, turning a bad value into one ``SettingError`` line that names
the variable and never shows a secret's value. README "Settings" lists them all: it is
``warehouse.settings_table.settings_table()``'s output, checked by ``tests/test_settings.py``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from warehouse.paths import Paths
from warehouse.shelf_life import DEFAULT_SHELF_LIFE_DAYS, PriceKind

ENV_PREFIX = "GPUPRICES_"

# The fetch limits' defaults are scrapers.http's (MAX_RESPONSE_BYTES, REQUEST_DEADLINE_S,
# PROVIDER_DEADLINE_S); the warehouse imports no scraper, so tests/test_settings.py checks
# that the figures agree.
DEFAULT_MAX_RESPONSE_MB = 64.0
DEFAULT_REQUEST_DEADLINE_S = 60.0
DEFAULT_PROVIDER_DEADLINE_S = 300.0
# Reading CURRENT from object storage costs a request; replicas poll it less often by default.
DEFAULT_RELOAD_INTERVAL_S = 1.0
DEFAULT_REMOTE_RELOAD_INTERVAL_S = 15.0
DEFAULT_RESPONSE_CACHE_BYTES = 64 * 1024 * 1024
DEFAULT_HELD_SNAPSHOTS = 2
# The warehouse's functions take these values as parameters and default to these figures.
DEFAULT_MAX_OFFERS_PER_SCRAPE = 20_000
DEFAULT_CLOCK_SKEW_S = 300.0
DEFAULT_PRICE_JUMP_FACTOR = Decimal(10)
DEFAULT_RAW_KEEP_SCRAPES = 20
DEFAULT_RAW_KEEP_DAYS = 30.0
DEFAULT_RAW_MAX_MB = 1024.0
DEFAULT_STALE_AFTER_DAYS = 30.0
DEFAULT_STALE_AFTER_HOURS = 24.0


class SettingError(ValueError):
    """A setting's value is invalid; the message is one line naming the variable."""


def _setting(default: Any, description: str, read_by: str, **constraints: Any) -> Any:
    """A field with its description (unit included) and who reads it (the README table)."""
    extra: dict[str, Any] = {"read_by": read_by}
    return Field(default, description=description, json_schema_extra=extra, **constraints)


_FINITE: dict[str, Any] = {"allow_inf_nan": False}


def _shelf_life(kind: PriceKind, what: str) -> Any:
    """The shelf-life setting of one kind of price, in days (README "Settings")."""
    description = f"{what} expires this long after it was observed, days"
    return _setting(DEFAULT_SHELF_LIFE_DAYS[kind], description, "pipeline", ge=0, **_FINITE)


class Settings(BaseSettings):
    """Every setting of the pipeline, the CLI and the API (README "Settings")."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,  # VAR= is unset, as it always was
        frozen=True,
        extra="ignore",
        populate_by_name=True,
    )

    # where the data lives
    home: Path | None = _setting(
        None,
        "Data directory (warehouse, raw archive, published snapshots, Dagster home); "
        "default `$XDG_DATA_HOME/gpuprices`, i.e. `~/.local/share/gpuprices`",
        "all",
    )
    xdg_data_home: Path | None = Field(
        None,
        validation_alias=AliasChoices("XDG_DATA_HOME", "xdg_data_home"),
        description="XDG base directory the default home lives under",
        exclude=True,
    )

    # the pipeline: where responses come from, where snapshots go
    replay_dir: Path | None = _setting(
        None,
        "Answer every request from recorded responses in `DIR/<provider>/`; unset = live sites",
        "pipeline",
    )
    fallback_replay_dir: Path | None = _setting(
        None,
        "After a provider's live fetch fails, replay its recorded captures from this directory",
        "pipeline",
    )
    recorded_fallback: bool = _setting(
        True,
        "After a live fetch fails and no captures stand in, load the recorded offers that ship "
        "with the project (dated); `0` turns it off",
        "pipeline",
    )
    publish_url: str | None = _setting(
        None,
        "Also publish snapshots to this fsspec URL (`s3://bucket/prefix`, `file:///dir`); "
        "unset = local only",
        "pipeline",
    )
    history_dir: Path | None = _setting(
        None,
        "Folder of the public price-history datasets `gpuprices backfill` imports; "
        "default `../shared/history`",
        "pipeline",
    )
    executor: Literal["in_process", "multiprocess"] = _setting(
        "in_process",
        "How `gpuprices ingest` runs provider steps: `in_process` (one at a time) or "
        "`multiprocess` (Dagster's multiprocess executor)",
        "pipeline",
    )
    max_concurrent: int | None = _setting(
        None,
        "Provider steps at once under `multiprocess` (count); default the number of CPUs",
        "pipeline",
        ge=1,
    )

    # bounds on hostile input (docs/reliability.md, "Hostile input")
    max_response_mb: float = _setting(
        DEFAULT_MAX_RESPONSE_MB,
        "Largest decoded response body, megabytes",
        "pipeline",
        gt=0,
        **_FINITE,
    )
    request_deadline_s: float = _setting(
        DEFAULT_REQUEST_DEADLINE_S,
        "Wall clock per HTTP exchange, seconds",
        "pipeline",
        gt=0,
        **_FINITE,
    )
    provider_deadline_s: float = _setting(
        DEFAULT_PROVIDER_DEADLINE_S,
        "Wall clock for all of one provider's requests, retries included, seconds",
        "pipeline",
        gt=0,
        **_FINITE,
    )
    max_offers_per_scrape: int = _setting(
        DEFAULT_MAX_OFFERS_PER_SCRAPE, "Most offers one scrape may hold (count)", "pipeline", gt=0
    )
    clock_skew_s: float = _setting(
        DEFAULT_CLOCK_SKEW_S,
        "How far in the future an observation may be dated, seconds",
        "pipeline",
        ge=0,
        **_FINITE,
    )
    price_jump_factor: Decimal = _setting(
        DEFAULT_PRICE_JUMP_FACTOR,
        "A price this many times (or 1/this of) its previous value quarantines the scrape "
        "(ratio, > 1)",
        "pipeline",
        gt=1,
        **_FINITE,
    )

    # raw-archive retention (warehouse.retention)
    raw_keep_scrapes: int = _setting(
        DEFAULT_RAW_KEEP_SCRAPES,
        "Newest scrapes per provider whose raw bodies are kept (count)",
        "pipeline",
        gt=0,
    )
    raw_keep_days: float = _setting(
        DEFAULT_RAW_KEEP_DAYS,
        "Raw bodies of scrapes started this recently are kept, days",
        "pipeline",
        gt=0,
        **_FINITE,
    )
    raw_max_mb: float = _setting(
        DEFAULT_RAW_MAX_MB,
        "Cap on the raw archive (compressed, on disk), megabytes",
        "pipeline",
        gt=0,
        **_FINITE,
    )

    # freshness
    stale_after_days: float = _setting(
        DEFAULT_STALE_AFTER_DAYS,
        "An offer whose price was observed longer ago than this is stale, days",
        "pipeline",
        ge=0,
        **_FINITE,
    )
    stale_after_hours: float = _setting(
        DEFAULT_STALE_AFTER_HOURS,
        "A provider with no live scrape succeeding for longer than this is overdue, hours",
        "pipeline",
        ge=0,
        **_FINITE,
    )

    # shelf life: how long a price stays in force after it was observed (warehouse.shelf_life)
    shelf_life_days_dynamic: float = _shelf_life(
        PriceKind.DYNAMIC, "A price the provider resets daily (`pricing: dynamic`)"
    )
    shelf_life_days_spot: float = _shelf_life(PriceKind.SPOT, "A spot (interruptible) price")
    shelf_life_days_marketplace: float = _shelf_life(
        PriceKind.MARKETPLACE, "A marketplace listing, bid or auction price"
    )
    shelf_life_days_on_demand: float = _shelf_life(PriceKind.ON_DEMAND, "An on-demand list price")
    shelf_life_days_reserved: float = _shelf_life(PriceKind.RESERVED, "A reserved-term list price")
    shelf_life_days_serverless: float = _shelf_life(PriceKind.SERVERLESS, "A serverless list price")

    # readers: the API and the CLI's read commands
    snapshot_url: str | None = _setting(
        None,
        "Read published snapshots from this fsspec URL instead of `$GPUPRICES_HOME/published`",
        "API, CLI",
    )
    snapshot_cache: Path | None = _setting(
        None,
        "Where snapshots downloaded from `GPUPRICES_SNAPSHOT_URL` are kept; "
        "default `$GPUPRICES_HOME/snapshot-cache`",
        "API, CLI",
    )
    reload_interval_s: float | None = _setting(
        None,
        "How often the API checks for a newer snapshot, seconds; default 1, or 15 with "
        "`GPUPRICES_SNAPSHOT_URL`",
        "API",
        ge=0,
        **_FINITE,
    )
    response_cache_bytes: int = _setting(
        DEFAULT_RESPONSE_CACHE_BYTES,
        "Memory for cached API responses, bytes; 0 turns the cache off",
        "API",
        ge=0,
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = _setting(
        (), "Comma-separated origins allowed cross-origin GETs; unset = no CORS headers", "API"
    )
    admin_token: SecretStr | None = _setting(
        None, "Bearer token of the admin endpoints; unset = they answer 403", "API"
    )

    held_snapshots: int = _setting(
        DEFAULT_HELD_SNAPSHOTS,
        "Snapshots the API keeps in memory for requests pinned with `as_of` (count: the "
        "current one and those before it)",
        "API",
        ge=1,
    )

    # the API server's limits (api.server; docs/deploy.md "The API under hostile clients")
    max_header_bytes: int = _setting(
        16 * 1024, "Largest request line + headers, bytes; beyond: 431", "API server", gt=0
    )
    max_body_bytes: int = _setting(
        64 * 1024, "Largest request body, bytes; beyond: 413", "API server", gt=0
    )
    request_timeout_s: float = _setting(
        10.0,
        "From a request's first byte (or the connection) to the whole request read, "
        "seconds; beyond: 408",
        "API server",
        gt=0,
        **_FINITE,
    )
    write_timeout_s: float = _setting(
        15.0,
        "A response the client reads none of for this long is dropped, seconds",
        "API server",
        gt=0,
        **_FINITE,
    )
    keep_alive_timeout_s: int = _setting(
        5, "An idle connection after a response is closed after this, seconds", "API server", gt=0
    )
    max_connections: int = _setting(
        1000,
        "Open connections per worker (count); a new one closes the longest idle, or gets 503",
        "API server",
        gt=0,
    )
    backlog: int = _setting(1024, "Listen queue length (count)", "API server", gt=0)

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(o.strip() for o in value.split(",") if o.strip())
        return value

    # -- building ----------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, env: Mapping[str, str], **overrides: Any) -> Settings:
        """The settings a process with environment ``env`` would get (the real environment is
        not read); ``overrides`` (field names) win. Raises pydantic's ValidationError."""
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            var = env_var(name)
            if var in env and env[var] != "":
                values[name] = env[var]
        return _FromInit(**values, **overrides)

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """``Settings()`` over ``env`` (default: the process environment) with ``overrides``
        (field names, ``None`` = not given); ``SettingError`` with one line per bad value."""
        given = {k: v for k, v in overrides.items() if v is not None}
        try:
            return cls(**given) if env is None else cls.from_mapping(env, **given)
        except ValidationError as exc:
            raise SettingError(describe(exc, set(given))) from None

    # -- derived values ----------------------------------------------------------------------

    def paths(self) -> Paths:
        """``Paths`` under ``home`` (resolved), else under the XDG default."""
        if self.home is not None:
            return Paths(self.home.expanduser().resolve())
        data = self.xdg_data_home or Path.home() / ".local" / "share"
        return Paths(data / "gpuprices")

    def shelf_life_days(self) -> dict[str, float]:
        """Each kind of price's shelf life in days (``warehouse.shelf_life.PriceKind`` names)."""
        return {str(kind): getattr(self, f"shelf_life_days_{kind}") for kind in PriceKind}

    def parallelism(self) -> int | None:
        """Provider steps at once, or None for in-process."""
        if self.executor == "in_process":
            return None
        return self.max_concurrent or os.cpu_count() or 2

    def reload_interval(self, *, remote: bool) -> float:
        """Seconds between checks for a newer snapshot (``remote``: at a snapshot URL)."""
        if self.reload_interval_s is not None:
            return self.reload_interval_s
        return DEFAULT_REMOTE_RELOAD_INTERVAL_S if remote else DEFAULT_RELOAD_INTERVAL_S

    def snapshot_cache_dir(self) -> Path:
        if self.snapshot_cache is not None:
            return self.snapshot_cache.expanduser()
        return self.paths().home / "snapshot-cache"

    def admin_token_value(self) -> str:
        """The admin token as set; "" when unset."""
        return self.admin_token.get_secret_value() if self.admin_token else ""


class _FromInit(Settings):
    """``Settings`` from its keyword arguments only (``Settings.from_mapping``)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def env_var(field: str) -> str:
    """The variable a field is read from."""
    if field == "xdg_data_home":
        return "XDG_DATA_HOME"
    return ENV_PREFIX + field.upper()


SECRET_FIELDS = frozenset(
    name for name, f in Settings.model_fields.items() if "SecretStr" in str(f.annotation)
)


def describe(exc: ValidationError, given: set[str] | None = None) -> str:
    """One line for every invalid value: the variable (or the field, for an override given in
    code), the value unless it is a secret, and what is wrong with it."""
    parts = []
    for error in exc.errors(include_url=False):
        field = str(error["loc"][0]) if error["loc"] else ""
        name = field if field in (given or ()) else env_var(field)
        value = " (value not shown)" if field in SECRET_FIELDS else f"={error.get('input')!r}"
        reason = error["msg"].removeprefix("Value error, ")
        parts.append(f"{name}{value}: {reason[:1].lower()}{reason[1:]}")
    return "; ".join(parts)
