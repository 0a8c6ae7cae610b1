"""The API's log lines go to the stderr a record was logged under (``api.logs``)."""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path

from api.app import create_app

MIGRATION_LOG = "alembic.runtime.migration"  # what Dagster's run storage logs at INFO


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
        logging.getLogger(MIGRATION_LOG).info("Context impl SQLiteImpl.")
        _drain_queue_handlers()
    out = now.getvalue()
    assert "Logging error" not in out and "Traceback" not in out
    assert MIGRATION_LOG in out and "Context impl SQLiteImpl." in out


def test_a_record_goes_to_the_stderr_it_was_logged_under_not_the_one_of_its_writing(
    tmp_path: Path,
) -> None:
    create_app(tmp_path / "published")
    logged_under, later = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(logged_under):
        logging.getLogger(MIGRATION_LOG).info("first")
    with contextlib.redirect_stderr(later):
        _drain_queue_handlers()  # the listener thread writes "first" now, or did already
        logging.getLogger(MIGRATION_LOG).info("second")
        _drain_queue_handlers()
    assert "first" in logged_under.getvalue() and "second" not in logged_under.getvalue()
    assert "second" in later.getvalue() and "first" not in later.getvalue()
