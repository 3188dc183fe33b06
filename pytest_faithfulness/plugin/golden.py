"""The pytest side of golden answers (``run.golden`` holds the logic): which collected tests are
golden (``@pytest.mark.faithfulness(golden=True)``, ``--faithfulness-golden`` patterns), and
what became of them (selected, deselected, skipped, ran), kept in the run's
``ResultStore.golden`` (an xdist worker sends it in its payload)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..settings import Settings


def item_is_golden(item: pytest.Item, patterns: tuple[str, ...]) -> bool:
    """Whether ``item`` is golden (``run.golden.is_golden``: its nearest ``faithfulness``
    marker that sets ``golden``, else ``patterns``).

    Raises:
        pytest.UsageError: a ``faithfulness`` marker it cannot read (names the test).
    """
    from ..run.golden import GoldenMarkerError, is_golden

    marks = [(m.args, m.kwargs) for m in item.iter_markers("faithfulness")]
    try:
        return is_golden(item.nodeid, marks, patterns)
    except GoldenMarkerError as exc:
        raise pytest.UsageError(str(exc)) from None


class GoldenCollector:
    """Registered once per process: finds the golden tests at collection (every marker
    checked, a bad one a usage error naming the test) and follows them through the run into
    ``store().golden``.

    Args:
        settings: the run's settings (``golden``: the patterns).
        store: ``() -> run.results.ResultStore``: the run's store (built on first use; only
            when a golden test is found).
        existing: ``() -> ResultStore | None``: the store if one was built.
        active: whether the run follows its tests (false for ``--collect-only``).
    """

    def __init__(self, settings: Settings, store: Callable[[], Any],
                 existing: Callable[[], Any], active: bool, worker: bool = False) -> None:
        self.patterns = settings.golden
        self.store = store
        self.existing = existing
        self.active = active
        self.worker = worker
        self.golden_ids: set[str] = set()
        self.bad_markers: dict[str, str] = {}  # an xdist worker's: node id -> the error
        self.seen: list[str] = []  # the deselected tests' node ids

    def _golden(self, items: list[pytest.Item]) -> list[str]:
        """The node ids of the golden ``items``. A marker it cannot read is a usage error;
        in an xdist worker (where a usage error at collection reads as a lost worker) the
        test errors at setup with the same message instead."""
        found = []
        for item in items:
            try:
                golden = item_is_golden(item, self.patterns)
            except pytest.UsageError as exc:
                if not self.worker:
                    raise
                self.bad_markers[item.nodeid] = str(exc)
                continue
            if golden:
                found.append(item.nodeid)
        return found

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if item.nodeid in self.bad_markers:
            raise pytest.UsageError(self.bad_markers[item.nodeid])

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.seen.extend(item.nodeid for item in items)  # a pattern may match only these
        found = self._golden(list(items))
        if found and self.active:
            golden = self.store().golden
            for test_id in found:
                golden.note(test_id, "deselected")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        found = self._golden(list(session.items))
        self.golden_ids.update(found)
        if found and self.active:
            golden = self.store().golden
            for test_id in found:
                golden.note(test_id, "selected")
        if not self.active or not session.items and not self.seen:
            return  # an xdist controller collects nothing: its workers record this
        from ..run.golden import PATTERN_PREFIX, matches

        ids = [item.nodeid for item in session.items] + self.seen
        for pattern in self.patterns:
            if not any(matches(test_id, [pattern]) for test_id in ids):
                self.store().golden.note(f"{PATTERN_PREFIX}{pattern!r}", "unmatched")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.active:
            return
        status = None
        if report.skipped and not hasattr(report, "wasxfail") and report.when in ("setup",
                                                                                  "call"):
            status = "skipped"
        elif report.when == "call" or (report.when == "setup" and report.failed):
            status = "ran"
        if status is None:
            return
        if report.nodeid in self.golden_ids:
            self.store().golden.note(report.nodeid, status)
        else:  # under xdist the controller learns the golden tests from its workers
            store = self.existing()
            if store is not None:
                store.golden.update(report.nodeid, status)
