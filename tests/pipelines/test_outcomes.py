"""Scrape outcomes are facts: a status from a closed set and problems with codes (issue 14).

The asset checks are functions of those facts, so rewording any message (every problem's
detail, and the prefix of a failed validation) changes no check result; and every exception a
scrape can end in maps to a code that turns a check red (issue 15: a parser's
``InvalidOperation`` used to leave every check green).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Iterator
from decimal import Decimal

import httpx
import pytest

from pipelines.defs.providers import CHECKS, NOT_FAILURES, RED_WHEN, _check_results
from pipelines.ingest import scrape_provider
from pipelines.outcomes import ScrapeOutcome, ScrapeStatus
from scrapers import http as scraper_http
from scrapers.registry import PROVIDERS
from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.seeded import seeded_warehouse
from warehouse import quality, scrape
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.problems import Problem, ProblemCode

DATACRUNCH = PROVIDERS["datacrunch"]
DECOY = "quarantined: rejected: in the future no offers parsed price <= 0 fetch failed "


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scraper_http, "pause", lambda seconds: None)
    monkeypatch.setattr(scraper_http, "MIN_INTERVAL_PER_HOST_S", 0.0)


@pytest.fixture(scope="module")
def good_home(tmp_path_factory: pytest.TempPathFactory, seeded_template) -> Iterator[Paths]:
    """One warehouse holding a good DataCrunch scrape (the price jump is measured against it),
    made once; each test gets a copy (``paths``)."""
    paths = Paths(tmp_path_factory.mktemp("outcomes") / "home")
    seeded_warehouse(seeded_template, paths.warehouse)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scraper_http, "pause", lambda seconds: None)
        good = _live(paths, _answering(_page()))
    assert [o.status for o in good] == [ScrapeStatus.SUCCESS]
    yield paths


@pytest.fixture
def paths(good_home: Paths, tmp_path) -> Paths:
    """A copy of ``good_home`` for one test: scenarios change what they scrape into (too many
    offers quarantines the stored good scrape too, which left price_jump nothing to jump from
    when it ran after it in random order)."""
    shutil.copytree(good_home.home, tmp_path / "home")
    return Paths(tmp_path / "home")


def _page() -> bytes:
    return discover(SNAPSHOTS, ["datacrunch"])["datacrunch"][-1].path.read_bytes()


def _answering(body: bytes, status: int = 200) -> httpx.MockTransport:
    return httpx.MockTransport(
        lambda r: httpx.Response(status, content=body, headers={"content-type": "text/html"})
    )


def _live(paths: Paths, transport: httpx.BaseTransport, provider=DATACRUNCH) -> list:
    return scrape_provider(provider, paths=paths, replay_dir=None, env={}, transport=transport)


def _raising_parser(responses):
    Decimal("3.6.4")  # what a parser meets in a price it did not expect: InvalidOperation
    raise AssertionError("unreachable")


def _future_replay(paths: Paths) -> list[ScrapeOutcome]:
    capture = discover(SNAPSHOTS, ["lambda"])["lambda"][-1]
    folder = paths.home / "future" / "lambda"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(capture.path, folder / f"2099-01-01_{capture.path.name[11:]}")
    return scrape_provider(PROVIDERS["lambda"], paths=paths, replay_dir=folder.parent)


# scenario -> (how to produce its failed outcome, the check it must turn red)
SCENARIOS: dict[str, tuple[Callable[[Paths, pytest.MonkeyPatch], list], str]] = {
    "http_500": (lambda p, mp: _live(p, _answering(b"oops", 500)), "non_empty"),
    "no_offers": (lambda p, mp: _live(p, _answering(b"<html><table></table></html>")), "non_empty"),
    "price_rounds_to_zero": (
        lambda p, mp: _live(p, _answering(_page().replace(b"$3.64/h", b"$0.0000001/h"))),
        "prices_positive",
    ),
    "price_jump": (
        lambda p, mp: _live(p, _answering(_page().replace(b"$3.64/h", b"$364.00/h"))),
        "no_price_jumps",
    ),
    "too_many_offers": (
        lambda p, mp: (mp.setenv(quality.MAX_OFFERS_ENV, "3"), _live(p, _answering(_page())))[1],
        "within_limits",
    ),
    "observed_in_the_future": (lambda p, mp: _future_replay(p), "within_limits"),
    "parser_raises_invalid_operation": (
        lambda p, mp: _live(
            p,
            _answering(_page()),
            dataclasses.replace(DATACRUNCH, parse_with_exclusions=_raising_parser),
        ),
        "non_empty",
    ),
}


def _checks(outcomes: list[ScrapeOutcome]) -> list[tuple[str, bool, str]]:
    failed = [o for o in outcomes if o.status == ScrapeStatus.FAILED]
    return [
        (str(r.check_name), r.passed, str(r.severity))
        for r in _check_results("x", [p for o in failed for p in o.problems])
    ]


def _reworded(mp: pytest.MonkeyPatch, reword: Callable[[str], str]) -> None:
    """Every problem's detail, wherever it is made, and the validation prefix, reworded."""
    made = Problem.__init__

    def init(self, code: ProblemCode, detail: str) -> None:
        made(self, code, reword(detail))

    mp.setattr(Problem, "__init__", init)
    mp.setattr(
        scrape,
        "message",
        lambda problems, prefix="": reword(prefix) + " | ".join(p.detail for p in problems),
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_rewording_every_message_changes_no_check_result(paths: Paths, scenario: str) -> None:
    produce, red = SCENARIOS[scenario]
    runs = {}
    for wording, reword in (
        ("as written", None),
        ("reversed", lambda text: text[::-1]),
        ("decoy", lambda text: DECOY + text[::-1]),
    ):
        with pytest.MonkeyPatch.context() as mp:
            if reword is not None:
                _reworded(mp, reword)
            outcomes = produce(paths, mp)
        failed = [o for o in outcomes if o.status == ScrapeStatus.FAILED]
        assert len(failed) == 1, (wording, outcomes)
        runs[wording] = (failed[0].error, _checks(outcomes))
    written, reversed_, decoy = runs["as written"], runs["reversed"], runs["decoy"]
    assert written[0] != reversed_[0] and decoy[0].startswith(DECOY)
    assert reversed_[1] == written[1] and decoy[1] == written[1]
    assert (red, False) in {(name, passed) for name, passed, _ in written[1]}, written


def test_unexpected_parse_exception_turns_the_parse_check_red_with_a_code(paths: Paths) -> None:
    produce, _ = SCENARIOS["parser_raises_invalid_operation"]
    with pytest.MonkeyPatch.context() as mp:
        [outcome] = produce(paths, mp)
    assert outcome.status == ScrapeStatus.FAILED
    assert [p.code for p in outcome.problems] == [ProblemCode.PARSE_ERROR]
    assert outcome.error is not None and outcome.error.startswith("parse failed: InvalidOperation")
    results = {r.check_name: r for r in _check_results("datacrunch", outcome.problems)}
    assert results["non_empty"].passed is False
    assert results["non_empty"].metadata["problem_codes"].value == "parse_error"
    with Warehouse(paths.warehouse).connect() as con:
        stored = con.execute(
            "select status, problem_codes from scrapes where scrape_id = ?", [outcome.scrape_id]
        ).fetchone()
    assert stored == ("failed", ["parse_error"])


def test_every_problem_code_fails_a_check_or_is_declared_harmless() -> None:
    red = set().union(*RED_WHEN.values())
    assert red.isdisjoint(NOT_FAILURES)
    assert red | NOT_FAILURES == set(ProblemCode)
    assert set(RED_WHEN) <= {name for name, _ in CHECKS}


def test_harmless_codes_leave_every_check_green() -> None:
    problems = [Problem(code, "anything") for code in NOT_FAILURES]
    assert all(r.passed for r in _check_results("x", problems))
