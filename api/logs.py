"""The API's log output: Litestar's default (the root and ``litestar`` loggers at INFO, one
formatted line per record on stderr, written by a queue listener thread), except that each
line goes to the ``sys.stderr`` of the moment the record was logged (or, if that stream is
closed by the time the listener writes, to the ``sys.stderr`` of then), not to the stream that
``sys.stderr`` was when the app was created.

An app created while stderr is redirected (pytest's capture, a program capturing a CLI's
output) otherwise keeps that stream in the root logger's handler after it is closed, and every
later log record anywhere in the process prints "--- Logging error --- ValueError: I/O
operation on closed file" with a traceback to the stderr of the moment (issue 23: tests that
made an app broke ``gpuprices ingest``'s one-line error checks run after them). In a server,
whose stderr never changes, this is Litestar's default exactly.
"""

from __future__ import annotations

import logging
import sys

from litestar.logging.config import LoggingConfig
from litestar.logging.standard import QueueListenerHandler

_STDERR = "gpuprices_stderr"  # the record attribute holding the stderr it was logged under


class StderrAtLogHandler(logging.StreamHandler):
    """Writes each record to the stderr it was logged under (``QueuedStderrHandler``), or to
    the current ``sys.stderr`` when that one is closed or unknown."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = getattr(record, _STDERR, None)
            if stream is None or getattr(stream, "closed", False):
                stream = sys.stderr
            stream.write(self.format(record) + self.terminator)
            stream.flush()
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)


class QueuedStderrHandler(QueueListenerHandler):
    """Litestar's queue handler (Python 3.11's form) over a ``StderrAtLogHandler``; each queued
    record carries the ``sys.stderr`` of the thread that logged it."""

    def __init__(self) -> None:
        super().__init__([StderrAtLogHandler()])

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        prepared = super().prepare(record)
        setattr(prepared, _STDERR, sys.stderr)
        return prepared


def logging_config() -> LoggingConfig:
    """Litestar's default logging configuration with the handler above (one per app)."""
    return LoggingConfig(
        handlers={
            "queue_listener": {
                "class": f"{__name__}.QueuedStderrHandler",
                "level": "DEBUG",
                "formatter": "standard",
            }
        }
    )
