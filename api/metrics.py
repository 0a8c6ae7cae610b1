"""Prometheus metrics of one API process: requests, latency, the served snapshot's age and size.

``metrics(app, store)`` wraps the whole ASGI app (outside the fast ``/instances`` route, so every
answer is counted, 304s and errors too) and returns the registry ``GET /metrics`` renders.
Routes are labelled by their template (``/providers/{slug}``), never by the raw path, so a
scanner of random URLs cannot grow the series without bound: a path no route matches is
``unmatched``. Each uvicorn worker keeps its own registry (Prometheus scrapes one process per
connection); docs/deploy.md says how to scrape several.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from api.store import NoSnapshot, SnapshotStore
from warehouse.queries.health import HEALTH_SQL

UNMATCHED = "unmatched"
# Prometheus text exposition 0.0.4 (what generate_latest writes; Litestar adds the charset)
MEDIA_TYPE = "text/plain; version=0.0.4"
# seconds; a cached answer takes well under a millisecond, an uncached estimate up to seconds
METHODS = frozenset({"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"})
LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template.rstrip("/") or "/")
    body = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts if p)
    return re.compile(f"^{body}/?$")


class RouteLabels:
    """The route template a request path belongs to, from the app's own routes."""

    def __init__(self, templates: Iterable[str]) -> None:
        # "{slug:str}" -> "{slug}"; static templates before parametrised ones
        names = {re.sub(r"\{(\w+):\w+\}", r"{\1}", t) for t in templates}
        ordered = sorted(names, key=lambda t: ("{" in t, -len(t)))
        self._patterns = [(t, _template_pattern(t)) for t in ordered]

    def __call__(self, path: str) -> str:
        for template, pattern in self._patterns:
            if pattern.match(path):
                return template
        return UNMATCHED


class _SnapshotCollector(Collector):
    """Gauges read from the served snapshot at scrape time (nothing to keep in step)."""

    def __init__(self, store: SnapshotStore) -> None:
        self._store = store

    def collect(self) -> Iterator[GaugeMetricFamily]:
        loaded = GaugeMetricFamily(
            "gpuprices_snapshot_loaded", "1 while a published snapshot is served, else 0"
        )
        try:
            snapshot = self._store.get()
        except NoSnapshot:
            loaded.add_metric([], 0)
            yield loaded
            return
        loaded.add_metric([], 1)
        yield loaded
        age = GaugeMetricFamily(
            "gpuprices_snapshot_age_seconds", "Seconds since the served snapshot was published"
        )
        age.add_metric([], (datetime.now(UTC) - snapshot.as_of).total_seconds())
        yield age
        counts = snapshot.query(HEALTH_SQL)[0]
        offers = GaugeMetricFamily(
            "gpuprices_offers", "Current offers in the served snapshot", labels=["state"]
        )
        offers.add_metric(["all"], counts["offers"])
        offers.add_metric(["expired"], counts["expired_offers"])
        yield offers
        providers = GaugeMetricFamily(
            "gpuprices_providers", "Providers with a current offer in the served snapshot"
        )
        providers.add_metric([], counts["providers"])
        yield providers


class Metrics:
    def __init__(self, store: SnapshotStore, templates: Iterable[str]) -> None:
        disable_created_metrics()  # no *_created series: a counter's start is not news
        self.registry = CollectorRegistry()
        self._route = RouteLabels(templates)
        self._requests = Counter(
            "gpuprices_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "gpuprices_http_request_duration_seconds",
            "Seconds from the request to the last byte of its answer, by route template",
            ["route"],
            buckets=LATENCY_BUCKETS_S,
            registry=self.registry,
        )
        self.registry.register(_SnapshotCollector(store))

    def wrap(self, app: ASGIApp) -> ASGIApp:
        async def measured(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            start = time.perf_counter()
            status = 500  # an exception before the answer started

            async def send_status(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                await send(message)

            try:
                await app(scope, receive, send_status)
            finally:
                route = self._route(scope["path"])
                method = scope["method"] if scope["method"] in METHODS else "other"
                self._requests.labels(method, route, str(status)).inc()
                self._latency.labels(route).observe(time.perf_counter() - start)

        return measured
