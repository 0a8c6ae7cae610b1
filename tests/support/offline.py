"""A machine without network for tests: every live request fails as a DNS lookup does offline,
retries do not wait, and no provider token is set (what a fresh clone without internet sees)."""

from __future__ import annotations

import httpx
import pytest

from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS

OFFLINE_ERROR = "[Errno -3] Temporary failure in name resolution"


def _offline(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError(OFFLINE_ERROR, request=request)


def go_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    live_client = scraper_http.make_client

    def client(transport: httpx.BaseTransport | None = None, **kwargs) -> httpx.Client:
        return live_client(transport or httpx.MockTransport(_offline), **kwargs)

    monkeypatch.setattr(scraper_http, "make_client", client)
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    for provider in PROVIDERS.values():
        if provider.token_env:
            monkeypatch.delenv(provider.token_env, raising=False)
