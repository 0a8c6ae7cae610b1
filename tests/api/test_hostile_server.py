"""The HTTP server's limits under hostile clients (issue 15, the API under load), against a real
server on loopback started the way a user starts it (``gpuprices serve``, or uvicorn with
``--http api.server:GuardedHttpToolsProtocol``). Every loop is bounded; limits are set small
through the ``GPUPRICES_*`` variables so the tests run in seconds."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.server import PROTOCOL, ServerLimits
from tests.api.slow_app import BIG_BYTES
from tests.conftest import REPO
from tests.servers import free_port
from warehouse.db import Warehouse
from warehouse.publish import publish
from warehouse.settings import env_var

# the file takes about 45 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=45)

SMALL = ServerLimits(
    max_header_bytes=16 * 1024,
    max_body_bytes=64 * 1024,
    request_timeout_s=2.0,
    write_timeout_s=2.0,
    keep_alive_timeout_s=5,
    max_connections=50,
    backlog=1024,
)


def _wait_ready(proc: subprocess.Popen, base: str, log: Path, path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited: {log.read_text()[-2000:]}")
        try:
            httpx.get(base + path, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail(f"server never answered: {log.read_text()[-2000:]}")


def _start(command: list[str], env: dict[str, str], log: Path, ready: str) -> Iterator[tuple]:
    with log.open("w") as out:
        proc = subprocess.Popen(
            command, cwd=REPO, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )
    port = command[command.index("--port") + 1]
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(proc, base, log, ready)
        yield proc, base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def served(replayed_home, tmp_path_factory):
    """``gpuprices serve`` over a snapshot of the replayed warehouse, with ``SMALL`` limits."""
    paths, _ = replayed_home
    home = tmp_path_factory.mktemp("hostile-home")
    with Warehouse(paths.warehouse).connect() as con:
        publish(con, home / "published")
    port = str(free_port())
    command = [sys.executable, "-m", "pipelines.cli", "serve", "--port", port]
    command += ["--log-level", "warning"]
    env = {"GPUPRICES_HOME": str(home), **SMALL.to_env()}
    yield from _start(command, env, tmp_path_factory.mktemp("log") / "serve.log", "/health")


@pytest.fixture()
def slow_server(tmp_path):
    """uvicorn with the guarded protocol over ``tests.api.slow_app``, at most 5 connections."""
    port = str(free_port())
    command = [sys.executable, "-m", "uvicorn", "tests.api.slow_app:app", "--http", PROTOCOL]
    command += ["--port", port, "--log-level", "warning"]
    env = {**SMALL.to_env(), env_var("max_connections"): "5"}
    yield from _start(command, env, tmp_path / "uvicorn.log", "/")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    return sock


def _read_status(sock: socket.socket, timeout_s: float = 5.0) -> int | None:
    """The status of the answer on ``sock``, or None if it was closed or reset without one."""
    sock.settimeout(timeout_s)
    try:
        head = sock.recv(4096)
    except (ConnectionResetError, TimeoutError):
        return None
    return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None


def test_oversized_accept_header_is_refused(served) -> None:
    _, base = served
    over = httpx.get(f"{base}/health", headers={"Accept": "a" * (20 * 1024)}, timeout=10)
    assert over.status_code == 431
    assert over.json()["detail"] == "request head over 16384 bytes"
    normal = httpx.get(f"{base}/health", headers={"Accept": "a" * 4096}, timeout=10)
    assert normal.status_code == 200


def test_600_one_megabyte_accept_headers_do_not_grow_the_server(served) -> None:
    # the finding: 600 requests with a 1 MB Accept header added 600 MB to the server
    proc, base = served
    httpx.get(f"{base}/instances?limit=1000", timeout=10)  # warm: the usual working set
    before = _rss_mb(proc.pid)
    refused = 0
    for i in range(600):
        sock = _connect(base)
        request = b"GET /instances?limit=1000 HTTP/1.1\r\nHost: x\r\nAccept: " + b"%d" % i
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            # the server stops reading part-way
            sock.sendall(request + b"a" * (1024 * 1024) + b"\r\n\r\n")
        status = _read_status(sock)
        refused += status in (431, None)
        assert status != 200
        sock.close()
    after = _rss_mb(proc.pid)
    assert refused == 600
    assert after - before < 50, (before, after)
    assert httpx.get(f"{base}/health", timeout=10).status_code == 200


def test_oversized_body_is_refused(served) -> None:
    _, base = served
    sock = _connect(base)
    sock.sendall(b"POST /admin/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
    assert _read_status(sock) == 413
    sock.close()


def test_idle_sockets_are_closed_and_normal_requests_still_work(served) -> None:
    # the finding: 21,000 idle sockets from one client exhausted the file descriptors
    proc, base = served
    baseline = _open_fds(proc.pid)
    idle = []
    try:
        for _ in range(300):
            idle.append(_connect(base))
        # until the server has accepted them all (a connection accepted among them could be
        # the longest waiting one when the later ones arrive)
        counts = [-1]
        for _ in range(50):
            time.sleep(0.2)
            counts.append(_open_fds(proc.pid))
            if counts[-1] == counts[-2]:
                break
        # the cap holds: the server never keeps more than max_connections sockets open
        assert _open_fds(proc.pid) <= baseline + SMALL.max_connections + 5
        assert httpx.get(f"{base}/health", timeout=5).status_code == 200
        # those kept are closed once the request timeout passes without a request
        time.sleep(SMALL.request_timeout_s + 1)
        statuses = [_read_status(s, 0.5) for s in idle]
        assert set(statuses) <= {408, 503, None}
        assert statuses.count(408) >= 1
        for _ in range(50):  # the server closes its ends within a few loop turns
            if _open_fds(proc.pid) <= baseline + 5:
                break
            time.sleep(0.1)
        assert _open_fds(proc.pid) <= baseline + 5
    finally:
        for s in idle:
            s.close()
    assert httpx.get(f"{base}/health", timeout=5).status_code == 200


def test_unfinished_request_times_out(served) -> None:
    # slowloris: one header byte at a time, never finishing, used to hold a socket forever
    _, base = served
    sock = _connect(base)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    started = time.monotonic()
    status = None
    for _ in range(20):  # at most 10 s of one byte per 0.5 s
        try:
            sock.sendall(b"a")
        except (BrokenPipeError, ConnectionResetError):
            break
        sock.settimeout(0.5)
        try:
            data = sock.recv(4096)
        except TimeoutError:
            continue
        status = int(data.split(b" ", 2)[1]) if data else None
        break
    elapsed = time.monotonic() - started
    sock.close()
    assert status == 408
    assert SMALL.request_timeout_s - 0.5 < elapsed < SMALL.request_timeout_s + 2


def test_connection_limit_answers_503_when_every_connection_is_busy(slow_server) -> None:
    _, base = slow_server
    busy = [_connect(base) for _ in range(5)]
    for sock in busy:
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.3)
    extra = _connect(base)
    extra.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _read_status(extra, 2) == 503
    extra.close()
    assert [_read_status(s) for s in busy] == [200] * 5
    for sock in busy:
        sock.close()
    assert httpx.get(f"{base}/", timeout=5).status_code == 200


def _never_reading(base: str, path: str) -> socket.socket:
    """A client that asks for ``path`` and then reads nothing (a tiny receive buffer)."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect((host, int(port)))
    sock.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
    return sock


def _drained(sock: socket.socket, timeout_s: float) -> int:
    """Bytes read from ``sock`` until the server closes it (or ``timeout_s`` of silence)."""
    sock.settimeout(timeout_s)
    total = 0
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(1 << 20):
            total += len(chunk)
    return total


def test_clients_that_never_read_cannot_lock_out_health(slow_server) -> None:
    # the finding: 60 connections that never read their response (cap 50) made every /health
    # probe a 503, for as long as they stayed
    _, base = slow_server
    stuck = [_never_reading(base, "/big") for _ in range(8)]  # cap 5
    try:
        time.sleep(0.5)  # each response fills its socket and waits to write
        for _ in range(3):  # each normal request makes room by dropping a stalled reader
            assert httpx.get(f"{base}/", timeout=5).status_code == 200
        # the write deadline drops the others (a check can fall just after a kernel buffer grew:
        # two deadlines): none is sent its whole answer
        time.sleep(2 * SMALL.write_timeout_s + 1)
        assert all(_drained(s, 2) < BIG_BYTES for s in stuck)
    finally:
        for sock in stuck:
            sock.close()
    assert httpx.get(f"{base}/", timeout=5).status_code == 200


def test_a_slow_but_reading_client_gets_its_whole_answer(slow_server) -> None:
    # the write deadline counts time without progress, not the length of the download
    _, base = slow_server
    sock = _never_reading(base, "/big")
    received = 0
    sock.settimeout(5)
    with contextlib.suppress(TimeoutError):
        while received < BIG_BYTES:  # about 3 s in all, each pause well under the deadline
            chunk = sock.recv(256 * 1024)
            if not chunk:
                break
            received += len(chunk)
            time.sleep(0.01)
    sock.close()
    assert received >= BIG_BYTES  # the head too


def test_serve_refuses_a_bad_limit_in_one_line() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "serve", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, env_var("max_connections"): "lots"},
        cwd=REPO,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: GPUPRICES_MAX_CONNECTIONS='lots': ")
