"""What pytest tells the plugin about the tests themselves: which finished, failed or are
xfail, and which xdist workers were lost; from these, whether the run is complete and which
answers missed their own thresholds silently."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from ..records import AnswerResult

#: What ``FaithfulnessAssertion`` adds to a node id to name one answer of a test.
ANSWER_SUFFIX = re.compile(r"(?:#conversation\d+)?(?:#turn\d+|#\d+)$")

#: pytest's exit statuses that make a run incomplete, and how the reports say so.
INCOMPLETE_EXIT = {
    pytest.ExitCode.INTERRUPTED: "the session was interrupted (exit status 2)",
    pytest.ExitCode.INTERNAL_ERROR: "pytest hit an internal error (exit status 3)",
    pytest.ExitCode.USAGE_ERROR: "the session stopped on a usage error (exit status 4)",
}


class RunTracker:
    """Counts the tests that finished (the controller sees its workers' reports too) and the
    xdist workers lost, so that the end of the session knows whether it saw every answer."""

    def __init__(self) -> None:
        self.finished: set[str] = set()
        self.failed: set[str] = set()  # a phase failed (setup, call or teardown)
        self.xfail: set[str] = set()  # marked xfail (xfailed, or xpassed when not strict)
        self.lost_workers: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":
            self.finished.add(report.nodeid)
        if report.failed:
            self.failed.add(report.nodeid)
        if hasattr(report, "wasxfail"):
            self.xfail.add(report.nodeid)

    def test_of(self, result: AnswerResult) -> str | None:
        """The node id of the test that recorded ``result``: its test id less the suffixes
        the assertion adds (``#n``, ``#turn<n>``, ``#conversation<k>#turn<n>``), the longest
        prefix that names a test that finished (a node id may hold a ``#`` of its own);
        failing that, the test id less those suffixes."""
        test_id = result.test_id or ""
        if not test_id:
            return None
        candidate = test_id
        while True:
            if candidate in self.finished:
                return candidate
            if "#" not in candidate:
                break
            candidate = candidate.rsplit("#", 1)[0]
        return ANSWER_SUFFIX.sub("", test_id) or test_id

    def by_outcome(self, failing: list[AnswerResult]
                   ) -> tuple[list[AnswerResult], list[AnswerResult]]:
        """``(silent, expected)`` of the answers that missed their own thresholds: those
        whose test did not fail and is not xfail, and those whose test is xfail."""
        silent, expected = [], []
        for result in failing:
            test = self.test_of(result)
            if test in self.xfail:
                expected.append(result)
            elif test not in self.failed:
                silent.append(result)
        return silent, expected

    def reported_in_failures(self, failing: list[AnswerResult]) -> list[AnswerResult]:
        """Of the answers that missed their own thresholds, those whose test failed (not
        xfail): pytest already printed their per-claim report with the failure."""
        out = []
        for result in failing:
            test = self.test_of(result)
            if test in self.failed and test not in self.xfail:
                out.append(result)
        return out

    def incomplete_reason(self, session: pytest.Session, exitstatus: int) -> str | None:
        """Why this session did not see every answer, or ``None``: an exit status of
        ``INCOMPLETE_EXIT``, a stop (``-x``, ``--maxfail``) with tests left unrun, lost
        xdist workers."""
        reasons = list(self.lost_workers)
        try:
            code = pytest.ExitCode(exitstatus)
        except ValueError:
            code = None
        if code in INCOMPLETE_EXIT:
            reasons.insert(0, INCOMPLETE_EXIT[code])
        else:
            stopped = session.shouldfail or session.shouldstop
            collected = session.testscollected
            ran = len(self.finished)
            if stopped and ran < collected:
                reasons.insert(0, f"stopped early ({stopped}): {collected - ran} of "
                                  f"{collected} tests did not run")
        return "; ".join(reasons) or None
