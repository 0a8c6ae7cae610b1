"""Starting the API the way a user does (uvicorn in its own process) for tests that need a
real server on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_api(env: Mapping[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """``uvicorn api.app:create_app --factory`` on a free port with ``env`` added to ours;
    its output goes to ``log``. Returns the process and its base URL."""
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "api.app:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            cwd=REPO,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return proc, f"http://127.0.0.1:{port}"


def wait_until(
    proc: subprocess.Popen,
    base: str,
    log: Path,
    ready: Callable[[httpx.Response], bool],
    what: str,
    timeout_s: float = 60,
) -> None:
    """Poll ``GET /health`` until ``ready(response)``; fail with the server log if it exits
    or never gets there."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"API exited: {log.read_text()[-2000:]}")
        try:
            if ready(httpx.get(f"{base}/health", timeout=2)):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"{base} never {what}: {log.read_text()[-2000:]}")
