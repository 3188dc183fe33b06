"""The run's outcome: one object that every report reads.

``finish.finish_run`` builds one ``RunOutcome`` from the ``results.ResultStore`` and the
gates fill in its failures; the terminal, JSON, Markdown, HTML and pull-request comment writers
all read it (``reports``), so they state the same verdict. The verdict is worded by
``reports.verdict.run_verdict`` from the outcome's fields alone.

"Failing" has one meaning per question, both defined here:

* ``failed_own_thresholds(result)``: the answer missed its own thresholds or errored
  (``AnswerResult.passed`` is false): what the verdict counts, what JSON, Markdown and the
  pull-request comment list as failing.
* ``shows_as_failing(result)``: the answer is shown among the failing ones (the terminal's
  per-claim list, the HTML report's ``failing`` filter): it failed its own thresholds, or has
  a claim that is not supported, or a claim whose votes disagree.

Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..records import AnswerResult, SessionSummary
from ..reports.verdict import RunVerdict, answer_name, run_verdict

#: pytest's exit statuses that say the tests passed: OK and NO_TESTS_COLLECTED.
PASSING_EXIT = (0, 5)

#: The kind of a gate failure reason: ``"failed"`` (a threshold missed), ``"regressed"`` (a
#: comparison with a saved run got significantly worse), ``"inconclusive"`` (it got worse
#: beyond a bound, but not significantly), ``"unmeasurable"`` (the run cannot measure: errors,
#: canaries missed, unverified answers over their bound, no scored answer).
ReasonKind = Literal["failed", "regressed", "inconclusive", "unmeasurable"]
REASON_KINDS: tuple[str, ...] = ("failed", "regressed", "inconclusive", "unmeasurable")


def failed_own_thresholds(result: AnswerResult) -> bool:
    """Whether ``result`` missed its own thresholds or errored (see the module docstring)."""
    return not result.passed


def shows_as_failing(result: AnswerResult) -> bool:
    """Whether a report shows ``result`` among the failing answers: it failed its own
    thresholds, or has a claim that is not supported, or a claim whose votes disagree."""
    return (failed_own_thresholds(result) or result.not_supported > 0
            or any(c.unstable for c in result.claims))


def exit_status(test_exitstatus: int | None, gate_status: str) -> int:
    """pytest's exit status with the gate ORed in: a failed or incomplete gate never exits 0
    (nor 5, no tests collected); ``None`` (not known) counts as 0."""
    current = 0 if test_exitstatus is None else int(test_exitstatus)
    if gate_status != "passed" and current in PASSING_EXIT:
        return 1
    return current


@dataclass
class RunOutcome:
    """The run once gated: what every report reads.

    Built once by ``finish.finish_run`` (or from loose values by ``RunOutcome.of``); the gates
    add their reasons to ``failures`` (and, for those only this run can decide, to
    ``local_failures`` too); an output that cannot be written adds its reason as well.

    Attributes:
        results: every answer, in report order.
        summary: the session figures over ``results``.
        judges: the judges' descriptions.
        gate: the session thresholds as JSON (``GateConfig.model_dump``), for the JSON report.
        thresholds: the thresholds applied, ``[(name, value), ...]`` for people (empty: none;
            ``None``: not stated).
        failures: the session gate's reasons (empty: it passed).
        local_failures: those of ``failures`` only this run could decide (kept in a saved
            run, so that ``runs.merge`` carries them).
        incomplete: why the run did not see every answer, else ``None``.
        silent / expected: of the answers that failed their own thresholds, those whose tests
            did not fail (not xfail), and those of xfail tests.
        comparison: the ``runs.compare.Comparison`` with a saved run, or ``None``.
        calibration: the ``calibration.CalibrationReport``, or ``None``.
        test_exitstatus: pytest's own exit status before the gate (``None``: not known).
        exitstatus: the final exit status, the gate ORed in, once known.
        notes: terminal lines about the outputs (files written, baseline notes, warnings).
        report_path: the JSON report's path, or ``None``.
    """

    results: list[AnswerResult]
    summary: SessionSummary
    judges: list[str] = field(default_factory=list)
    gate: dict[str, Any] = field(default_factory=dict)
    thresholds: list[tuple[str, str]] | None = None
    failures: list[str] = field(default_factory=list)
    local_failures: list[str] = field(default_factory=list)
    #: the kind of each reason in ``failures`` that is not ``"failed"`` (``ReasonKind``)
    reason_kinds: dict[str, str] = field(default_factory=dict)
    #: the judge canaries' report (``records.CanaryReport``), or ``None`` when none ran
    canaries: Any = None
    incomplete: str | None = None
    silent: list[AnswerResult] = field(default_factory=list)
    expected: list[AnswerResult] = field(default_factory=list)
    comparison: Any = None
    calibration: Any = None
    test_exitstatus: int | None = None
    exitstatus: int | None = None
    notes: list[str] = field(default_factory=list)
    report_path: Path | None = None
    #: the unscored answers and those failing their own thresholds, when a caller states
    #: them (``RunOutcome.of``); else found in ``results``
    unscored_given: list[AnswerResult] | None = None
    failing_given: list[AnswerResult] | None = None
    _index: tuple[int, dict[int, int]] | None = field(default=None, init=False, repr=False,
                                                      compare=False)

    @classmethod
    def of(cls, results: Sequence[AnswerResult], summary: SessionSummary,
           judges: Sequence[str], failures: Sequence[str], comparison: Any = None, *,
           gate: dict[str, Any] | None = None, incomplete: str | None = None,
           thresholds: Sequence[tuple[str, str]] | None = None,
           unscored: Sequence[AnswerResult] | None = None,
           failing: Sequence[AnswerResult] | None = None,
           silent: Sequence[AnswerResult] = (), expected: Sequence[AnswerResult] = (),
           exit_failed: bool | None = None) -> RunOutcome:
        """An outcome from loose values (the report writers' older signatures).

        ``exit_failed`` (whether pytest's exit status says the run failed, when known) is
        kept as a ``test_exitstatus`` of 1 or 0.
        """
        return cls(results=list(results), summary=summary, judges=list(judges),
                   gate=dict(gate or {}),
                   thresholds=None if thresholds is None else list(thresholds),
                   failures=list(failures), incomplete=incomplete, silent=list(silent),
                   expected=list(expected), comparison=comparison,
                   test_exitstatus=None if exit_failed is None else int(bool(exit_failed)),
                   unscored_given=None if unscored is None else list(unscored),
                   failing_given=None if failing is None else list(failing))

    # the answers -----------------------------------------------------------------------------
    @property
    def failing(self) -> list[AnswerResult]:
        """The answers that failed their own thresholds (``failed_own_thresholds``)."""
        if self.failing_given is not None:
            return list(self.failing_given)
        return [r for r in self.results if failed_own_thresholds(r)]

    @property
    def unscored(self) -> list[AnswerResult]:
        """The answers with no claim to score (status ``unscored``)."""
        if self.unscored_given is not None:
            return list(self.unscored_given)
        return [r for r in self.results if r.status == "unscored"]

    @property
    def shown_failing(self) -> list[AnswerResult]:
        """The answers a report shows among the failing ones (``shows_as_failing``)."""
        return [r for r in self.results if shows_as_failing(r)]

    def name_of(self, result: AnswerResult) -> str:
        """The answer's name in a report: its test id, else ``answer <n>`` (its 1-based
        place in ``results``)."""
        if self._index is None or self._index[0] != len(self.results):
            self._index = (len(self.results),
                           {id(r): i for i, r in enumerate(self.results, start=1)})
        return answer_name(result, self._index[1].get(id(result)))

    # the verdict -----------------------------------------------------------------------------
    @property
    def gate_status(self) -> str:
        """``"incomplete"`` when the run did not see every answer, else ``"failed"`` when the
        session gate has failures, else ``"passed"``."""
        if self.incomplete:
            return "incomplete"
        return "failed" if self.failures else "passed"

    @property
    def exit_failed(self) -> bool | None:
        """Whether pytest's own exit status says the tests failed (``None``: not known)."""
        if self.test_exitstatus is None:
            return None
        return self.test_exitstatus not in PASSING_EXIT

    def verdict(self, *, exit_failed: bool | None = None,
                incomplete: str | None = None) -> RunVerdict:
        """The run's ``reports.verdict.RunVerdict`` (what every report's last line says).

        Args:
            exit_failed: whether the final exit status says the run failed, overriding
                ``self.exit_failed`` (the terminal and ``merge`` know the final one).
            incomplete: why the run is incomplete, overriding ``self.incomplete`` (the
                terminal knows of an interrupt before the outcome is told).
        """
        return run_verdict(
            self.failures, incomplete=self.incomplete if incomplete is None else incomplete,
            failing=self.failing, unscored=self.unscored, silent=self.silent,
            expected=self.expected,
            exit_failed=self.exit_failed if exit_failed is None else exit_failed)

    def verdict_data(self) -> dict[str, Any]:
        """The verdict as JSON (the JSON report's ``verdict``)::

            {"status": the session gate, "run_status": the whole run, "exitstatus": int | None,
             "incomplete_reason": str | None, "gate_failures": [str, ...],
             "answers_failing_own_thresholds": [name, ...], "unscored_answers": [name, ...],
             "thresholds": [[name, value], ...]}
        """
        return {"status": self.gate_status, "run_status": self.verdict().status,
                "exitstatus": self.exitstatus, "incomplete_reason": self.incomplete,
                "gate_failures": list(self.failures),
                "answers_failing_own_thresholds": [self.name_of(r) for r in self.failing],
                "unscored_answers": [self.name_of(r) for r in self.unscored],
                "thresholds": [list(t) for t in self.thresholds or []]}

    # the gates' reasons ----------------------------------------------------------------------
    def add_failures(self, reasons: Any, kind: str = "failed") -> list[str]:
        """Add gate failures: ``None``, a reason string, or an iterable of them, each of
        ``kind`` (``ReasonKind``). Returns the reasons added (empty or blank ones are left
        out).

        Raises:
            ValueError: ``kind`` is not one of ``REASON_KINDS``.
        """
        if kind not in REASON_KINDS:
            raise ValueError(f"unknown gate failure kind {kind!r}; expected one of "
                             f"{', '.join(REASON_KINDS)}")
        if reasons is None:
            return []
        if isinstance(reasons, str):
            reasons = [reasons]
        added = [str(r) for r in reasons if r is not None and str(r).strip()]
        self.failures.extend(added)
        if kind != "failed":
            self.reason_kinds.update(dict.fromkeys(added, kind))
        return added

    def add_local_failures(self, reasons: Any, kind: str = "failed") -> list[str]:
        """``add_failures`` for failures only this run can decide (``local_failures``)."""
        added = self.add_failures(reasons, kind)
        self.local_failures.extend(added)
        return added

    def kind_of(self, reason: str) -> str:
        """The ``ReasonKind`` of one of ``failures`` (``"failed"`` unless added otherwise)."""
        return self.reason_kinds.get(reason, "failed")

