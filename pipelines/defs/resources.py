"""Dagster resources: where the data lives and how providers are fetched.

Both are configured from the environment when the run starts (never at import time):
``GPUPRICES_HOME`` (default ``~/.local/share/gpuprices``) and ``GPUPRICES_REPLAY_DIR``
(unset = fetch the live sites), ``GPUPRICES_FALLBACK_REPLAY_DIR`` (replay a provider's
captures when its live fetch fails), ``GPUPRICES_RECORDED_FALLBACK`` (``0`` turns off loading
the recorded offers that ship with the project when a live fetch fails and no captures stand
in), ``GPUPRICES_PUBLISH_URL`` (also publish snapshots to this
fsspec URL, e.g. object storage for API replicas elsewhere). Provider tokens are read from
each provider's own variable (e.g. ``RUNPOD_API_KEY``) at fetch time, stripped of surrounding
whitespace, and never logged or archived.

Bounds on hostile input (docs/reliability.md, "Hostile input"), read by ``pipelines.ingest`` when a
provider's ingest starts: ``GPUPRICES_MAX_RESPONSE_MB`` (decoded MB per response, default 64),
``GPUPRICES_REQUEST_DEADLINE_S`` (wall clock per exchange, 60), ``GPUPRICES_PROVIDER_DEADLINE_S``
(all of one provider's requests, 300), ``GPUPRICES_MAX_OFFERS_PER_SCRAPE`` (20000),
``GPUPRICES_CLOCK_SKEW_S`` (300), and the raw-archive retention ``GPUPRICES_RAW_KEEP_SCRAPES``
(20 per provider), ``GPUPRICES_RAW_KEEP_DAYS`` (30) and ``GPUPRICES_RAW_MAX_MB`` (1024).
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
from pydantic import Field

from warehouse.db import Warehouse
from warehouse.paths import Paths

REPLAY_ENV = "GPUPRICES_REPLAY_DIR"
FALLBACK_REPLAY_ENV = "GPUPRICES_FALLBACK_REPLAY_DIR"
RECORDED_FALLBACK_ENV = "GPUPRICES_RECORDED_FALLBACK"
PUBLISH_URL_ENV = "GPUPRICES_PUBLISH_URL"  # same name as warehouse.remote.PUBLISH_URL_ENV


class GpupricesResource(dg.ConfigurableResource):
    """Settings shared by every asset. Empty fields fall back to the environment at run time."""

    home: str = Field(default="", description="Data directory; default $GPUPRICES_HOME")
    replay_dir: str = Field(
        default="", description="Replay recorded responses from this directory, not the live sites"
    )

    fallback_replay_dir: str = Field(
        default="",
        description="After a live fetch fails, replay this directory's captures for that provider",
    )

    recorded_fallback: str = Field(
        default="",
        description="'1' / '0': after a live fetch fails and no captures stand in, load the "
        "recorded offers that ship with the project (scrapers/recorded/offers.csv, dated); "
        "default $GPUPRICES_RECORDED_FALLBACK, else on",
    )

    publish_url: str = Field(
        default="",
        description="Also publish snapshots to this fsspec URL (s3://bucket/prefix, file:///dir); "
        "default $GPUPRICES_PUBLISH_URL, unset = local only",
    )

    def paths(self) -> Paths:
        if self.home:
            return Paths(Path(self.home).expanduser().resolve())
        return Paths.from_env()

    def replay(self) -> Path | None:
        value = self.replay_dir or os.environ.get(REPLAY_ENV, "")
        return Path(value).expanduser().resolve() if value else None

    def fallback_replay(self) -> Path | None:
        value = self.fallback_replay_dir or os.environ.get(FALLBACK_REPLAY_ENV, "")
        return Path(value).expanduser().resolve() if value else None

    def recorded_fallback_enabled(self) -> bool:
        value = self.recorded_fallback or os.environ.get(RECORDED_FALLBACK_ENV, "") or "1"
        return value.strip().lower() not in ("0", "false", "no", "off")

    def remote_publish_url(self) -> str | None:
        return self.publish_url or os.environ.get(PUBLISH_URL_ENV) or None

    def warehouse(self) -> Warehouse:
        return Warehouse(self.paths().warehouse)
