"""The API's log output: Litestar's default (the root and ``litestar`` loggers at INFO, one
formatted line per record on stderr, written by a queue listener thread), except that each
line goes to ``sys.stderr`` as it is when the record is written, not to the stream that
``sys.stderr`` was when the app was created.

An app created while stderr is redirected (pytest's capture, a program capturing a CLI's
output) otherwise keeps that stream in the root logger's handler after it is closed, and every
later log record anywhere in the process prints "--- Logging error --- ValueError: I/O
operation on closed file" with a traceback to the stderr of the moment (issue 23: tests that
made an app broke ``gpuprices ingest``'s one-line error checks run after them).
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from litestar.logging.config import LoggingConfig
from litestar.logging.standard import QueueListenerHandler


class CurrentStderrHandler(logging.StreamHandler):
    """A StreamHandler on whatever ``sys.stderr`` is at each record (as ``logging.lastResort``)."""

    @property
    def stream(self) -> TextIO:  # pyright: ignore[reportIncompatibleVariableOverride]
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # StreamHandler.__init__ assigns one: ignored
        pass


class QueuedStderrHandler(QueueListenerHandler):
    """Litestar's queue handler (Python 3.11's form) over a ``CurrentStderrHandler``."""

    def __init__(self) -> None:
        super().__init__([CurrentStderrHandler()])


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
