"""The judge canaries of a pytest run (issue 23): judged once, at the end of the session, in the
process that finishes the run (the xdist controller, or the one process), from the passages of
every answer the run recorded, by the run's own judge.

Which judge, and when:

* the ``faithfulness_judge`` fixture's own instance when this process set it up at session scope
  (a run without xdist: the very object the answers were judged by, a conftest's own judge
  included). pytest tears session fixtures down at the end of the last test, before
  ``pytest_sessionfinish``; so the canaries are judged in a finalizer added to the fixture once
  it is set up, which runs before the fixture's own teardown (its cache is still open);
* otherwise (the xdist controller, which runs no test) the judge the options configure, built
  as the fixture builds it (``plugin.judge``), at ``pytest_sessionfinish``. When the answers were
  judged by a judge the finishing process does not have (a conftest fixture under xdist), the
  canaries are not judged, and the report says why.

``CanaryRunner.report`` is what ``run.finish.RunFaces.canaries`` calls: the report, or the
exception judging raised (re-raised there, where the gate step fails closed).
"""

from __future__ import annotations

from typing import Any

import pytest

JUDGE_FIXTURE = "faithfulness_judge"


class CanaryRunner:
    """Finds the run's judge and judges the canaries at the end of the session (see the module
    docstring); registered by ``pytest_configure``."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.judge: Any = None  # the fixture's session-scoped instance, once set up
        self._report: Any = None
        self._error: BaseException | None = None
        self.ran = False

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Any:
        result = yield
        if fixturedef.argname == JUDGE_FIXTURE and fixturedef.scope == "session":
            self.judge = result
            # runs before the fixture's own teardown (finalizers run last in, first out)
            fixturedef.addfinalizer(lambda: self._at_teardown(request.session))
        return result

    def _at_teardown(self, session: pytest.Session) -> None:
        try:
            self._finish(session, None)
        finally:
            self.judge = None  # torn down next: never used after this

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Judge the canaries now unless the fixture's finalizer did (see the module
        docstring)."""
        self._finish(session, exitstatus)

    def _finish(self, session: pytest.Session, exitstatus: int | None) -> None:
        from . import RUN_KEY, SESSION_KEY, get_settings
        from .checks import is_worker

        config = self.config
        settings = get_settings(config)
        store = config.stash.get(SESSION_KEY, None)
        if self.ran or is_worker(config) or settings.canaries == 0 or store is None \
                or not store.results:
            return
        self.ran = True
        incomplete = (config.stash[RUN_KEY].incomplete_reason(session, exitstatus)
                      if exitstatus is not None else None)
        try:
            self._report = self._judge(store, settings, incomplete)
        except Exception as exc:  # re-raised in the gate's step: fails closed there
            self._error = exc

    def _judge(self, store: Any, settings: Any, incomplete: str | None) -> Any:
        from ..canary_report import CanaryReport
        from ..judges.protocol import judge_description
        from ..run.canaries import run_canaries

        if incomplete:
            return CanaryReport(asked=settings.canaries, notes=[
                f"canaries not judged: the run is incomplete ({incomplete})"])
        judge, close = self.judge, None
        if judge is None:
            from .judge import open_configured_judge

            judge, close = open_configured_judge(self.config)
            described = judge_description(judge)
            seen = sorted({r.judge for r in store.results if r.judge})
            if seen and described not in seen:
                close()
                return CanaryReport(asked=settings.canaries, judge=described, notes=[
                    "canaries not judged: the answers were judged by a judge this process "
                    f"does not have ({'; '.join(seen)}), not the configured one ({described}): "
                    "a conftest faithfulness_judge fixture under xdist; build that judge in "
                    "a pytest_faithfulness_make_judge hook, or run without xdist (-n0)"])
        try:
            return run_canaries([r.passages for r in store.results], settings.canaries, judge,
                                concurrency=settings.concurrency,
                                context_budget_chars=settings.context_budget)
        finally:
            if close is not None:
                close()

    def report(self) -> Any:
        """The canary report (``None`` when none were judged), or raise what judging raised."""
        if self._error is not None:
            raise self._error
        return self._report
