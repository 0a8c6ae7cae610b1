"""Dagster resources: where the data lives and how providers are fetched.

``GpupricesResource`` carries the pipeline's settings (``warehouse.settings.Settings``, README
"Settings"). ``pipelines.definitions`` wires ``home`` to ``dg.EnvVar("GPUPRICES_HOME")``, the
variable every entry point sets (``gpuprices ingest`` and ``gpuprices dagster-dev`` export the
home they resolved); a deployment pins any other field the same way
(``publish_url=dg.EnvVar("GPUPRICES_PUBLISH_URL")``) or in a run's config. A field left unset
(None) takes its ``GPUPRICES_*`` variable, or the default, through ``Settings`` when the resource
is first used in a run, never at import. A bad value fails the run with one line naming the
variable.

Provider tokens are read from each provider's own variable (e.g. ``RUNPOD_API_KEY``) at fetch time
(``pipelines.ingest.token_for``), stripped of surrounding whitespace, and never logged or
archived.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dagster as dg
from pydantic import Field, PrivateAttr

from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.settings import SettingError, Settings, env_var

_UNSET = "; unset = ${var}, else its default (README 'Settings')"


def _field(description: str, name: str) -> Any:
    return Field(default=None, description=description + _UNSET.replace("{var}", env_var(name)))


def _setting_field(name: str) -> Any:
    """``_field`` with the description ``Settings`` gives the field."""
    return _field(Settings.model_fields[name].description or name, name)


class GpupricesResource(dg.ConfigurableResource):
    """The pipeline's settings. Unset fields come from ``GPUPRICES_*`` when a run starts."""

    home: str | None = _field("Data directory", "home")
    replay_dir: str | None = _field(
        "Replay recorded responses from this directory, not the live sites", "replay_dir"
    )
    fallback_replay_dir: str | None = _field(
        "After a live fetch fails, replay this directory's captures for that provider",
        "fallback_replay_dir",
    )
    recorded_fallback: bool | None = _field(
        "After a live fetch fails and no captures stand in, load the recorded offers that ship "
        "with the project (scrapers/recorded/offers.csv, dated)",
        "recorded_fallback",
    )
    publish_url: str | None = _field(
        "Also publish snapshots to this fsspec URL (s3://bucket/prefix, file:///dir)",
        "publish_url",
    )
    history_dir: str | None = _field("Folder of the public history datasets", "history_dir")
    max_response_mb: float | None = _field(
        "Largest decoded response body, megabytes", "max_response_mb"
    )
    request_deadline_s: float | None = _field(
        "Wall clock per HTTP exchange, seconds", "request_deadline_s"
    )
    provider_deadline_s: float | None = _field(
        "Wall clock for all of one provider's requests, seconds", "provider_deadline_s"
    )
    max_offers_per_scrape: int | None = _field(
        "Most offers one scrape may hold", "max_offers_per_scrape"
    )
    clock_skew_s: float | None = _field(
        "How far in the future an observation may be dated, seconds", "clock_skew_s"
    )
    price_jump_factor: str | None = _field(
        "Price ratio (> 1, a decimal) that quarantines a scrape", "price_jump_factor"
    )
    raw_keep_scrapes: int | None = _field(
        "Newest scrapes per provider whose raw bodies are kept", "raw_keep_scrapes"
    )
    raw_keep_days: float | None = _field(
        "Raw bodies of scrapes started this recently are kept, days", "raw_keep_days"
    )
    raw_max_mb: float | None = _field("Cap on the raw archive, megabytes", "raw_max_mb")
    stale_after_days: float | None = _field(
        "An offer observed longer ago than this is stale, days", "stale_after_days"
    )
    stale_after_hours: float | None = _field(
        "A provider not scraped live for this long is overdue, hours", "stale_after_hours"
    )
    # the shelf lives' descriptions are the settings' own (warehouse.shelf_life)
    shelf_life_days_dynamic: float | None = _setting_field("shelf_life_days_dynamic")
    shelf_life_days_spot: float | None = _setting_field("shelf_life_days_spot")
    shelf_life_days_marketplace: float | None = _setting_field("shelf_life_days_marketplace")
    shelf_life_days_on_demand: float | None = _setting_field("shelf_life_days_on_demand")
    shelf_life_days_reserved: float | None = _setting_field("shelf_life_days_reserved")
    shelf_life_days_serverless: float | None = _setting_field("shelf_life_days_serverless")

    _settings: Settings | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        # Read once when the run starts: a replay's steps ask for paths, directories and limits
        # ~130 times, and each read parses the environment again. A bad value is left for the
        # first step to raise (one line, as before), not turned into a resource-init failure.
        try:
            self._settings = self._load_settings()
        except SettingError:
            self._settings = None

    def settings(self) -> Settings:
        """``Settings`` with this resource's fields (an empty string counts as unset) over the
        environment, as read when the run started. Raises ``warehouse.settings.SettingError``."""
        return self._settings if self._settings is not None else self._load_settings()

    def _load_settings(self) -> Settings:
        given = {name: getattr(self, name) for name in type(self).model_fields}
        return Settings.load(**{k: v for k, v in given.items() if v != ""})

    def paths(self) -> Paths:
        return self.settings().paths()

    def replay(self) -> Path | None:
        value = self.settings().replay_dir
        return value.expanduser().resolve() if value else None

    def fallback_replay(self) -> Path | None:
        value = self.settings().fallback_replay_dir
        return value.expanduser().resolve() if value else None

    def recorded_fallback_enabled(self) -> bool:
        return self.settings().recorded_fallback

    def remote_publish_url(self) -> str | None:
        return self.settings().publish_url or None

    def warehouse(self) -> Warehouse:
        return Warehouse(self.paths().warehouse)
