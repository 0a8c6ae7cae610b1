"""Provider credentials never reach the raw archive, the warehouse, the published snapshot, the
Dagster event log, the run's log output or an error message.

Every provider that takes a token runs live (through ``pipelines.run.run_ingest``, Dagster
logging at DEBUG) against a mock transport, with a recognisable secret in its token variable:
RunPod (Bearer header), GCP (``X-Goog-Api-Key`` header), DataCrunch (OAuth client credentials,
then a Bearer access token), Lambda (HTTP Basic), Hyperstack (``api_key`` header), Vast and
Vultr (Bearer). Two servers: one that accepts the credentials, and one that rejects every
credentialed request with HTTP 401 and an error page quoting the URL and the headers back.

Tokens read from files written on Windows or mounted from Kubernetes secrets end in ``\r`` or
``\n`` (issue 15): sent as they are, h11 refuses the header with ``Illegal header value
b'Bearer <token>\\r'``, an error that quoted the key into the warehouse, the snapshot and
``/providers``. Those runs go through a real HTTP server on 127.0.0.1 (h11 on the wire), not a
mock transport, because the mock never validates a header.
"""

from __future__ import annotations

import base64
import gzip
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dagster as dg
import duckdb
import httpx
import pytest

from pipelines.ingest import scrape_provider
from pipelines.run import dagster_instance, run_ingest
from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse.db import Warehouse
from warehouse.paths import Paths

# the file takes about 90 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=90)

TOKEN_PROVIDERS = sorted(slug for slug, p in PROVIDERS.items() if p.token_env)
ACCESS_TOKEN = "SECRET-oauth-access-9d41c07be2"  # what the mock OAuth server hands out
# The live hosts of the credentialed providers (any other host gets 404, e.g. the ECB feed).
HOSTS = {
    "api.runpod.io": "runpod",
    "cloud.google.com": "gcp",
    "cloudbilling.googleapis.com": "gcp:skus",
    "api.verda.com": "datacrunch",
    "console.vast.ai": "vast",
    "api.vultr.com": "vultr",
    "www.hyperstack.cloud": "hyperstack",
    "infrahub-api.nexgencloud.com": "hyperstack",
    "lambda.ai": "lambda",
    "cloud.lambdalabs.com": "lambda",
    "datacrunch.io": "datacrunch",
    "api.datacrunch.io": "datacrunch",
}
GCP_SKUS_CAPTURE = "2025-06-17_cloudbilling_compute_skus_gpu_only.json"


def secret_for(slug: str) -> str:
    return f"SECRET-{slug}-7f3a9c2e51"


def token_for(slug: str) -> str:
    # DataCrunch's variable holds "<client_id>:<client_secret>"
    return f"client-{slug}:{secret_for(slug)}" if slug == "datacrunch" else secret_for(slug)


def forms(text: str) -> set[str]:
    """A secret as it could appear anywhere: verbatim, or base64 (HTTP Basic credentials)."""
    return {
        text,
        base64.b64encode(text.encode()).decode(),
        base64.b64encode(f"{text}:".encode()).decode(),
    }


SECRETS = sorted(
    {f for slug in TOKEN_PROVIDERS for f in forms(secret_for(slug))} | forms(ACCESS_TOKEN)
)


class CredentialServer:
    """Answers like the providers: their newest captures, and a token for the OAuth exchange.
    ``reject``: every request that carries a credential gets 401 quoting it back."""

    def __init__(self, reject: bool) -> None:
        self.reject = reject
        captures = discover(SNAPSHOTS, TOKEN_PROVIDERS)
        self.bodies = {
            slug: (c[-1].path.read_bytes(), c[-1].content_type) for slug, c in captures.items()
        }
        skus = SNAPSHOTS / "gcp" / GCP_SKUS_CAPTURE
        self.bodies["gcp:skus"] = (skus.read_bytes(), "application/json")
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        credentials = scraper_http.request_credentials(request) or (
            {"body"} if b"client_secret" in request.content else set()
        )
        if self.reject and credentials:
            echoed = f"401 invalid credentials for {request.url}: {dict(request.headers)} " + (
                request.content.decode()
            )
            return httpx.Response(401, text=echoed)
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(
                200, json={"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"}
            )
        key = HOSTS.get(request.url.host)
        if key is None:
            return httpx.Response(404, text="not found")
        body, content_type = self.bodies[key]
        return httpx.Response(200, content=body, headers={"content-type": content_type})


def _files(home: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(home.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            yield path, gzip.decompress(data) if path.suffix == ".gz" else data


def _duckdb_dump(path: Path) -> str:
    """Every row of every table of a DuckDB file, as text (compressed storage hides strings)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables"
                " where table_schema = 'main' and table_type = 'BASE TABLE'"
            ).fetchall()
        ]
        # each row as DuckDB's own text of it ({'col': value, ...}), joined in SQL: 2.5x faster
        # than Python's repr of every fetched tuple (the ECB rates alone are 36 MB)
        dumps = [
            con.execute(f"select string_agg(cast(row as varchar), ', ') from {t} row").fetchone()
            for t in tables  # names: the file's own
        ]
        return "\n".join(f"{t}: {d[0] if d else ''}" for t, d in zip(tables, dumps, strict=True))
    finally:
        con.close()


def _stored_places(
    paths: Paths, instance: dg.DagsterInstance, report, outputs: str, logs: str
) -> dict[str, str]:
    """Everything a run leaves anywhere, as text: outputs, logs, the Dagster event log, the
    report, every file under the home (raw bodies decompressed), every table of the warehouse
    and of each snapshot."""
    events = "\n".join(str(e) for e in instance.all_logs(report.run_id))
    places = {
        "stdout/stderr": outputs,
        "python logging": logs,
        "dagster event log": events,
        "report": "\n".join(report.lines()) + str(report.publish_error),
    }
    for path, data in _files(paths.home):
        places[str(path.relative_to(paths.home))] = data.decode("utf-8", errors="replace")
    with Warehouse(paths.warehouse).connect():
        pass  # checkpoint: the file's tables are complete when dumped below
    places["warehouse tables"] = _duckdb_dump(paths.warehouse)
    for snapshot in sorted(paths.published.glob("snapshot-*.duckdb")):
        places[f"snapshot tables {snapshot.name}"] = _duckdb_dump(snapshot)
    return places


def _leaks(places: dict[str, str], secrets: list[str]) -> list[tuple[str, str]]:
    """(place, secret) for every secret found in a place. One scan per place for all of them
    (~160 M characters a run: 0.5 s, against 3.4 s for a ``secret in text`` per secret); a
    secret that is a prefix of another is still found, as the one or the other."""
    anywhere = re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True)))
    return sorted(
        {(where, m.group()) for where, text in places.items() for m in anywhere.finditer(text)}
    )


def test_the_leak_scan_finds_every_form_of_a_secret_wherever_it_is() -> None:
    secret = secret_for("runpod")
    basic = base64.b64encode(f"{secret}:".encode()).decode()
    places = {"log": f"Authorization: Basic {basic}\n", "table": f"x{secret}y", "clean": "none"}
    assert _leaks(places, SECRETS) == [("log", basic), ("table", secret)]


@pytest.mark.parametrize("server", ["accepting", "rejecting"])
def test_credentials_appear_nowhere(
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    seeded_template: Path,
) -> None:
    mock = CredentialServer(reject=server == "rejecting")
    live_client = scraper_http.make_client

    def client_for_mock(transport: httpx.BaseTransport | None = None, **kwargs) -> httpx.Client:
        return live_client(transport or httpx.MockTransport(mock), **kwargs)

    monkeypatch.setattr(scraper_http, "make_client", client_for_mock)
    monkeypatch.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    for slug in TOKEN_PROVIDERS:
        monkeypatch.setenv(PROVIDERS[slug].token_env or "", token_for(slug))
    caplog.set_level(logging.DEBUG)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)  # not a first run: seeds re-seed (~0.15 s)
    paths.dagster_home.mkdir(parents=True)
    # the CLI's instance (pooled SQLite storage under the home): its files are scanned below
    instance = dagster_instance(True, paths.dagster_home)

    report = run_ingest(
        paths, replay_dir=None, providers=TOKEN_PROVIDERS, verbose=True, instance=instance
    )

    # the credentials were really sent, in every form the providers use
    sent = " ".join(f"{r.url} {dict(r.headers)} {r.content!r}" for r in mock.requests)
    for slug in TOKEN_PROVIDERS:
        assert any(f in sent for f in forms(secret_for(slug))), f"{slug} sent no credential"
    if server == "accepting":
        assert ACCESS_TOKEN in sent
        ok = {p.provider for p in report.providers if p.status == "ok"}
        assert {"runpod", "gcp", "vast", "vultr"} <= ok
    else:
        failed = {p.provider: p.detail for p in report.providers if p.status == "FAILED"}
        assert set(failed) == set(TOKEN_PROVIDERS)
        assert "HTTP 401" in failed["gcp"]

    captured = capfd.readouterr()
    places = _stored_places(paths, instance, report, captured.out + captured.err, caplog.text)
    assert len(places) > 10 and any(p.startswith("raw/") for p in places)
    assert _leaks(places, SECRETS) == []
    # GCP's key travels in the X-Goog-Api-Key header: the stored SKU URLs carry no key at all
    assert "cloudbilling.googleapis.com" in places["warehouse tables"]
    assert "skus?key=" not in places["warehouse tables"]


# --- tokens with surrounding whitespace, over a real HTTP connection -----------------------------

FORWARDED_HOST = "x-test-forwarded-host"
# as a Windows env file, a Kubernetes secret file or a careless paste leaves them
TRAILING = {"vast": "\r", "vultr": "\n", "runpod": "\r\n", "hyperstack": " \t\r\n"}


class _Bridge(BaseHTTPRequestHandler):
    """A real HTTP/1.1 server answering as ``CredentialServer`` does for the original host."""

    mock: CredentialServer

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        host = self.headers[FORWARDED_HOST]
        headers = [(k, v) for k, v in self.headers.items() if k.lower() != FORWARDED_HOST]
        request = httpx.Request(
            self.command, f"https://{host}{self.path}", headers=headers, content=body
        )
        response = self.mock(request)
        self.send_response(response.status_code)
        self.send_header("content-type", response.headers.get("content-type", "text/plain"))
        self.send_header("content-length", str(len(response.content)))
        self.end_headers()
        self.wfile.write(response.content)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:  # quiet
        pass


class ToLocal(httpx.BaseTransport):
    """Sends every request over a real socket (h11) to the bridge, naming the original host."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.HTTPTransport(limits=httpx.Limits(max_keepalive_connections=0))

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[FORWARDED_HOST] = request.url.host
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port)
        return self.inner.handle_request(request)


@pytest.fixture
def bridge() -> Iterator[tuple[CredentialServer, int]]:
    mock = CredentialServer(reject=False)
    handler = type("Handler", (_Bridge,), {"mock": mock})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield mock, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _through_bridge(monkeypatch: pytest.MonkeyPatch, port: int) -> None:
    live_client = scraper_http.make_client

    def client(transport: httpx.BaseTransport | None = None, **kwargs) -> httpx.Client:
        return live_client(transport or ToLocal(port), **kwargs)

    monkeypatch.setattr(scraper_http, "make_client", client)
    monkeypatch.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)


def test_token_with_trailing_cr_or_lf_is_stripped_and_never_echoed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    bridge: tuple[CredentialServer, int],
    seeded_template: Path,
) -> None:
    mock, port = bridge
    _through_bridge(monkeypatch, port)
    for slug in TOKEN_PROVIDERS:
        monkeypatch.delenv(PROVIDERS[slug].token_env or "", raising=False)
    for slug, tail in TRAILING.items():
        monkeypatch.setenv(PROVIDERS[slug].token_env or "", secret_for(slug) + tail)
    caplog.set_level(logging.DEBUG)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)  # not a first run: seeds re-seed (~0.15 s)
    paths.dagster_home.mkdir(parents=True)
    # the CLI's instance (pooled SQLite storage under the home): its files are scanned below
    instance = dagster_instance(True, paths.dagster_home)

    report = run_ingest(
        paths, replay_dir=None, providers=sorted(TRAILING), verbose=True, instance=instance
    )

    # sent stripped, over the wire: every provider answered and loaded
    assert {p.provider: p.status for p in report.providers} == dict.fromkeys(sorted(TRAILING), "ok")
    sent = " ".join(str(dict(r.headers)) for r in mock.requests)
    for slug in TRAILING:
        assert secret_for(slug) in sent and repr(secret_for(slug) + "\r")[1:-1] not in sent
    captured = capfd.readouterr()
    places = _stored_places(paths, instance, report, captured.out + captured.err, caplog.text)
    assert _leaks(places, sorted({f for slug in TRAILING for f in forms(secret_for(slug))})) == []


def test_token_with_a_control_character_inside_fails_naming_only_the_variable(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bridge: tuple[CredentialServer, int],
    seeded_template: Path,
) -> None:
    mock, port = bridge
    _through_bridge(monkeypatch, port)
    paths = Paths(tmp_path / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    halves = ("SECRET-vast-7f3a", "9c2e51-inner")
    env = {"VAST_API_KEY": f"{halves[0]}\r{halves[1]}\n"}

    outcomes = scrape_provider(PROVIDERS["vast"], paths=paths, replay_dir=None, env=env)

    assert [o.status for o in outcomes] == ["failed"]
    error = outcomes[0].error or ""
    assert error == (
        "fetch failed: VAST_API_KEY holds a control character (at position 17), which cannot be"
        " sent in an HTTP header; the token was not used (fix the variable)"
    )
    assert mock.requests == []  # nothing was sent with it, nor without it
    dump = _duckdb_dump(paths.warehouse)
    assert "VAST_API_KEY holds a control character" in dump
    assert not any(half in dump for half in halves)
