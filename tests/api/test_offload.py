"""Computed answers are built off the event loop (issue 27: distinct /estimates and /fit queries
ran on the loop; 200 connections gave 34 requests/s and /health failed 8 of 10 probes)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from litestar.testing import TestClient

import api.offload
from api.app import create_app
from api.economics.service import EconomicsService
from tests.support.published import published_copy


@pytest.fixture(scope="module")
def published(replayed_published, tmp_path_factory) -> Path:  # tests/conftest.py
    return published_copy(replayed_published, tmp_path_factory.mktemp("offload") / "published")


def _on_a_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _recording(monkeypatch, name: str) -> list[bool]:
    """Wrap ``EconomicsService.<name>`` to record, per call, whether it ran on an event loop."""
    threads: list[bool] = []
    original = getattr(EconomicsService, name)

    def wrapped(self, *args, **kwargs):
        threads.append(_on_a_loop())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(EconomicsService, name, wrapped)
    return threads


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("estimates", "/estimates?model=llama-3.1-8b&input_tokens=1234&limit=3"),
        ("fit", "/fit?model=llama-3.1-70b&context=5000&limit=3"),
        ("breakeven", "/breakeven?requests_per_day=777&model=llama-3.1-8b&limit=3"),
    ],
)
def test_distinct_computed_queries_are_built_off_the_event_loop(
    published, monkeypatch, name, query
) -> None:
    threads = _recording(monkeypatch, name)
    with TestClient(app=create_app(published, reload_interval_s=0)) as client:
        first = client.get(query)
        again = client.get(query)  # a hit: answered on the loop, not built again
    assert first.status_code == 200 and again.content == first.content
    assert threads == [False]


def test_a_full_queue_of_computed_queries_answers_503_with_retry_after(
    published, monkeypatch
) -> None:
    monkeypatch.setattr(api.offload, "MAX_WAITING", 0)
    with TestClient(app=create_app(published, reload_interval_s=0)) as client:
        refused = client.get("/fit?model=llama-3.1-8b&context=6000")
        cached = client.get("/models")  # not computed off the loop: answered
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "already waiting" in refused.json()["detail"]
    assert cached.status_code == 200
