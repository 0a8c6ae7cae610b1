"""The HTTP server's own limits: request head and body size, deadlines, a connection cap.

uvicorn (with httptools, its default parser here) bounds none of these: it read a 10 MB request
header, and a socket that never sent a byte stayed open forever (21,000 of them exhausted the
file descriptors). :class:`GuardedHttpToolsProtocol` is uvicorn's httptools protocol with:

- a request head (request line + headers) of at most ``max_header_bytes``: 431 beyond;
- a body of at most ``max_body_bytes`` (declared ``Content-Length`` or received): 413 beyond;
- a deadline of ``request_timeout_s`` from the first byte of a request (or from the connection,
  for one that sends nothing) until the whole request is read, however slowly it trickles in
  (slowloris): 408 and the connection closed. uvicorn's own ``timeout_keep_alive`` closes a
  connection idle after a response;
- a write deadline: a response the client reads none of (the socket's buffers full, the rest
  waiting to be sent) for ``write_timeout_s`` in a row is aborted, so a client that never reads
  cannot hold a connection (and its response in memory) forever;
- at most ``max_connections`` open connections. A new one over the cap closes the connection
  that has waited longest without a request in progress (idle, or still sending its head), else
  the one whose client has read nothing for longest, so a flood of idle sockets or of readers
  that never read cannot lock normal clients out; when every connection has a request in
  progress and is being read, the new one gets 503 and is closed.

The limits are settings (``warehouse.settings.Settings``: ``GPUPRICES_MAX_HEADER_BYTES``,
``GPUPRICES_MAX_BODY_BYTES``, ``GPUPRICES_REQUEST_TIMEOUT_S``, ``GPUPRICES_MAX_CONNECTIONS``,
...), loaded once per process when the first connection arrives, so ``gpuprices serve
--workers N`` (spawned workers) and ``uvicorn --http api.server:GuardedHttpToolsProtocol`` apply
the same ones; ``gpuprices serve`` passes uvicorn's own ``limit_concurrency``,
``timeout_keep_alive`` and ``backlog`` from them. See docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import resource
import sys
import termios
from collections import OrderedDict
from dataclasses import dataclass, fields, replace
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from api.problems import PROBLEM_MEDIA_TYPE, problem
from warehouse.settings import Settings, env_var

PROTOCOL = "api.server:GuardedHttpToolsProtocol"


@dataclass(frozen=True)
class ServerLimits:
    """Bounds on what one client can make the server hold (bytes, seconds, connections);
    ``warehouse.settings.Settings`` documents each (``GPUPRICES_MAX_HEADER_BYTES``, ...)."""

    max_header_bytes: int = 16 * 1024
    max_body_bytes: int = 64 * 1024
    request_timeout_s: float = 10.0
    write_timeout_s: float = 15.0
    keep_alive_timeout_s: int = 5
    max_connections: int = 1000
    backlog: int = 1024

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerLimits:
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)})

    def to_env(self) -> dict[str, str]:
        """The ``GPUPRICES_*`` variables that give these limits (tests, benchmarks)."""
        return {env_var(f.name): str(getattr(self, f.name)) for f in fields(self)}


_limits: ServerLimits | None = None


def limits() -> ServerLimits:
    """This process's limits: the settings' (``Settings.load()``, once, when the first
    connection arrives), the connection cap lowered to the open files the process may have."""
    global _limits
    if _limits is None:
        wanted = ServerLimits.from_settings(Settings.load())
        _limits = replace(wanted, max_connections=file_descriptor_budget(wanted.max_connections))
    return _limits


def file_descriptor_budget(wanted: int) -> int:
    """Raise the soft open-file limit towards the hard one so ``wanted`` connections fit (plus
    128 for the snapshot, logs and the listening socket); the connections that fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + 128
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - 128))


class _Refused(Exception):
    """Raised from a parser callback to stop parsing; ``send_400_response`` sends the status."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of :func:`limits` (module docstring)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # uvicorn's own per-request check counts connections that are already closing (an
        # evicted one leaves the set a loop turn later) and would 503 a request that fits; the
        # cap below counts open ones, and requests in progress never outnumber connections
        self.limit_concurrency = None
        self._limits = limits()
        self._refusal: tuple[int, str] | None = None
        self._head_bytes = 0  # of the request head being received
        self._head_done = False
        self._body_bytes = 0
        self._deadline: asyncio.TimerHandle | None = None
        self._write_deadline: asyncio.TimerHandle | None = None
        waiting = _waiting(self.server_state)
        if len(self.connections) > self._limits.max_connections and _open(self.connections) > (
            self._limits.max_connections
        ):
            stalled_set = _stalled(self.server_state)
            # an idle connection still sending a response its client does not read is stalled
            victim = next((c for c in waiting if c not in stalled_set), None)
            stalled = next(iter(stalled_set), None)
            if victim is not None:
                victim._refuse(503, "connection closed to make room for a new one")
            elif stalled is not None:  # its client reads nothing: no room to say why
                stalled._abort_stalled("to make room for a new connection")
            else:  # every connection has a request in progress, and is being read
                self._refuse(503, "too many connections; try again shortly")
                return
        waiting[self] = None
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        _waiting(self.server_state).pop(self, None)
        _stalled(self.server_state).pop(self, None)
        self._disarm()
        self._disarm_write()
        super().connection_lost(exc)

    # --- the write deadline: a client that stops reading ---------------------------------------

    def pause_writing(self) -> None:
        # asyncio calls this when the transport's buffer passes its high-water mark: the
        # kernel's buffers are full because the client reads slowly, or not at all
        super().pause_writing()
        _stalled(self.server_state)[self] = None
        if self._write_deadline is None:
            self._watch_writes(_unsent_bytes(self.transport))

    def resume_writing(self) -> None:
        super().resume_writing()
        _stalled(self.server_state).pop(self, None)
        self._disarm_write()

    def _watch_writes(self, unsent_bytes: int) -> None:
        self._write_deadline = self.loop.call_later(
            self._limits.write_timeout_s, self._check_writes, unsent_bytes
        )

    def _check_writes(self, unsent_before: int) -> None:
        """A deadline of no progress, not of the whole download: a response sent in one write
        stays over the high-water mark while a slow client reads it, so the deadline is re-armed
        for as long as the client takes some of it."""
        self._write_deadline = None
        unsent = _unsent_bytes(self.transport)
        if self.transport.is_closing():
            return
        if unsent < unsent_before:
            stalled = _stalled(self.server_state)
            if self in stalled:
                stalled.move_to_end(self)  # reading: the last one to evict
            self._watch_writes(unsent)
            return
        self._abort_stalled(f"its client read nothing for {self._limits.write_timeout_s:g} s")

    def _disarm_write(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    def _abort_stalled(self, why: str) -> None:
        """Drop the connection and what it still had to send (``abort``: ``close`` would wait
        for the client to read it)."""
        self._disarm_write()
        _stalled(self.server_state).pop(self, None)
        _waiting(self.server_state).pop(self, None)
        self.logger.warning("closed a connection: %s", why)
        self.transport.abort()

    # --- the request deadline -----------------------------------------------------------------

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self._limits.request_timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if not self._head_done:
            self._refuse(408, f"request not received within {self._limits.request_timeout_s:g} s")
        else:  # the head came, the body did not: the handler may already be answering
            self.transport.close()

    # --- reading ------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None or self.transport.is_closing():
            return
        if not self._head_done:
            self._head_bytes += len(data)
        self._arm()
        super().data_received(data)
        if (
            self._refusal is None
            and not self._head_done
            and self._head_bytes > self._limits.max_header_bytes
        ):
            self._refuse(431, f"request head over {self._limits.max_header_bytes} bytes")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_done = False
        self._body_bytes = 0
        self._arm()

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
        if size > self._limits.max_header_bytes:
            self._refusal = (431, f"request head over {self._limits.max_header_bytes} bytes")
            raise _Refused
        declared = next((v for n, v in self.headers if n == b"content-length"), b"")
        if declared.strip().isdigit() and int(declared) > self._limits.max_body_bytes:
            self._refusal = (413, f"request body over {self._limits.max_body_bytes} bytes")
            raise _Refused
        self._head_done = True
        self._head_bytes = 0
        _waiting(self.server_state).pop(self, None)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self._body_bytes += len(body)
        if self._body_bytes > self._limits.max_body_bytes:
            self._refusal = (413, f"request body over {self._limits.max_body_bytes} bytes")
            raise _Refused
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()
        self._head_done = False  # bytes from here on belong to the next request's head
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            _waiting(self.server_state)[self] = None  # idle now: first to go when full

    # --- refusing -----------------------------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        if self._refusal is None:
            super().send_400_response(msg)
            return
        status, detail = self._refusal
        self._refusal = None
        self._refuse(status, detail)

    def _refuse(self, status: int, detail: str) -> None:
        """Answer ``status`` with a JSON error body and close the connection."""
        self._refusal = (status, detail)
        self._disarm()
        _waiting(self.server_state).pop(self, None)
        if self.transport.is_closing():
            return
        body = json.dumps(problem(status, detail), separators=(",", ":")).encode()
        head = [
            STATUS_LINE[status],
            b"content-type: %s\r\n" % PROBLEM_MEDIA_TYPE.encode(),
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n",
        ]
        if status == 503:
            head.append(b"retry-after: 1\r\n")
        self.logger.warning("refused a request: %d %s", status, detail)
        self.transport.write(b"".join([*head, b"\r\n", body]))
        self.transport.close()


def _unsent_bytes(transport: asyncio.Transport) -> int:
    """Bytes of responses not yet taken by the client: the transport's buffer plus, on Linux,
    the socket's send queue (``TIOCOUTQ``). The kernel wakes the writer only once a third of a
    send buffer of megabytes is free, so the transport's buffer alone can stand still for seconds
    while a slow client does read."""
    unsent = transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, ValueError):
            queued = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
            unsent += int.from_bytes(queued, sys.byteorder, signed=True)
    return unsent


def _open(connections: Any) -> int:
    """Connections not already closing (a closed one leaves the set a loop iteration later)."""
    return sum(1 for c in connections if not c.transport.is_closing())


def _waiting(server_state: Any) -> OrderedDict[GuardedHttpToolsProtocol, None]:
    """This server's connections without a request in progress, longest waiting first."""
    return _registry(server_state, "_gpuprices_waiting")


def _stalled(server_state: Any) -> OrderedDict[GuardedHttpToolsProtocol, None]:
    """This server's connections whose client stopped reading a response, longest first."""
    return _registry(server_state, "_gpuprices_stalled")


def _registry(server_state: Any, name: str) -> OrderedDict[GuardedHttpToolsProtocol, None]:
    found = getattr(server_state, name, None)
    if found is None:
        found = OrderedDict()
        setattr(server_state, name, found)
    return found


__all__ = ["PROTOCOL", "GuardedHttpToolsProtocol", "ServerLimits"]
