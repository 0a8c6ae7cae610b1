"""Issue 15 (low): URL-encoded or JSON-escaped echoes of a token must not reach ``raw/``.

Real tokens hold ``+``, ``/`` and ``=``; a server that quotes the request back (an error page, a
JSON error object) prints them percent-encoded, form-encoded or JSON-escaped, which a search for
the verbatim token misses. Vast's real scraper runs live against a mock that rejects the
credential with a 401 body quoting it in every such form; every archived body under ``raw/``
(decompressed) is searched for every form.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx

from pipelines.ingest import scrape_provider
from scrapers import http as scraper_http
from scrapers import vast
from tests.support.seeded import seeded_warehouse
from warehouse.paths import Paths

TOKEN = 'SECRET+vast/7f3a=9c2e\\51"x'  # a placeholder, not a credential


def _echo(request: httpx.Request) -> httpx.Response:
    sent = request.headers.get("authorization", "").partition(" ")[2]
    body = json.dumps({"error": f"invalid key {sent}", "url": str(request.url)})
    body += f" key={quote(sent, safe='')} form={quote_plus(sent)} repr={sent!r}"
    return httpx.Response(401, text=body, headers={"content-type": "application/json"})


def test_url_encoded_and_json_escaped_echoes_of_a_token_are_scrubbed_from_raw(
    tmp_path: Path, monkeypatch, seeded_template: Path
) -> None:
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    [outcome] = scrape_provider(
        vast.PROVIDER,
        paths=paths,
        replay_dir=None,
        env={vast.TOKEN_ENV: TOKEN},
        transport=httpx.MockTransport(_echo),
    )
    assert outcome.status == "failed"
    bodies = [
        gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
        for p in sorted(paths.raw.rglob("*"))
        if p.is_file()
    ]
    assert bodies, "the 401 answer is archived"
    archived = b"\n".join(bodies).decode("utf-8", errors="replace")
    assert scraper_http.REDACTED in archived
    forms = {TOKEN, json.dumps(TOKEN)[1:-1], quote(TOKEN, safe=""), quote_plus(TOKEN), repr(TOKEN)}
    assert [f for f in forms if f in archived] == []


def _echo_encoded(request: httpx.Request) -> httpx.Response:
    sent = request.headers.get("authorization", "").partition(" ")[2]
    body = json.dumps({"error": f"invalid key {sent.upper()}"})
    body += f" b64={base64.b64encode(sent.encode()).decode()}"
    body += f" basic={base64.b64encode(f'{sent}:'.encode()).decode()}"
    body += " slashed=" + json.dumps(sent)[1:-1].replace("/", "\\/")
    return httpx.Response(401, text=body, headers={"content-type": "application/json"})


def test_base64_upper_case_and_slash_escaped_echoes_of_a_token_are_scrubbed_from_raw(
    tmp_path: Path, monkeypatch, seeded_template: Path
) -> None:
    """Issue 27 (low): a server quoting the key base64-encoded (alone or as Basic auth's
    ``user:``), upper-cased, or JSON-escaped with ``\\/`` left it in ``raw/``."""
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    [outcome] = scrape_provider(
        vast.PROVIDER,
        paths=paths,
        replay_dir=None,
        env={vast.TOKEN_ENV: TOKEN},
        transport=httpx.MockTransport(_echo_encoded),
    )
    assert outcome.status == "failed"
    archived = b"\n".join(
        gzip.decompress(p.read_bytes()) for p in sorted(paths.raw.rglob("*.gz"))
    ).decode("utf-8", errors="replace")
    assert archived.count(scraper_http.REDACTED) >= 4
    forms = {
        TOKEN.upper(),
        base64.b64encode(TOKEN.encode()).decode(),
        base64.b64encode(f"{TOKEN}:".encode()).decode(),
        json.dumps(TOKEN)[1:-1].replace("/", "\\/"),
    }
    assert [f for f in forms if f in archived] == []
    assert TOKEN.upper() not in (outcome.error or "").upper()
