"""The API's log handler writes to stderr as it is at each record (``api.logs``)."""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path

from api.app import create_app


def _drain_queue_handlers() -> None:
    """Wait until the root logger's queue listeners have written every record so far."""
    for handler in logging.getLogger().handlers:
        queue = getattr(handler, "queue", None)
        if queue is not None and hasattr(queue, "join"):
            queue.join()


def test_an_app_made_under_a_capture_leaves_no_log_handler_on_the_closed_stream(
    tmp_path: Path,
) -> None:
    # issue 23: `pytest tests/pipelines/test_cli_query.py tests/pipelines/test_disk_full.py`
    # failed 3 tests: an app made in a test kept pytest's captured stderr in the root logger's
    # handler; once that capture closed, every record (alembic's, from Dagster's run storage)
    # printed "--- Logging error ---" and a traceback into the next test's output
    capture = io.StringIO()
    with contextlib.redirect_stderr(capture):
        create_app(tmp_path / "published")
    capture.close()

    now = io.StringIO()
    with contextlib.redirect_stderr(now):
        logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
        _drain_queue_handlers()
    out = now.getvalue()
    assert "Logging error" not in out and "Traceback" not in out
    assert "alembic.runtime.migration" in out and "Context impl SQLiteImpl." in out
