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
#: The ``format`` of the decision file (``RunOutcome.decision``).
DECISION_FORMAT = "pytest-faithfulness-decision-1"

#: The kind of a gate failure reason: ``"failed"`` (a threshold missed), ``"regressed"`` (a
#: comparison with a saved run got significantly worse), ``"inconclusive"`` (it got worse
#: beyond a bound, but not significantly), ``"unmeasurable"`` (the run cannot measure: errors,
#: canaries missed, unverified answers over their bound, no scored answer), ``"golden"`` (a
#: golden answer not fully supported, or a golden test not checked under
#: ``--faithfulness-strict-baseline``: ``run.golden``; the run's kind is then ``failed``).
ReasonKind = Literal["failed", "regressed", "inconclusive", "unmeasurable", "golden"]
REASON_KINDS: tuple[str, ...] = ("failed", "regressed", "inconclusive", "unmeasurable",
                                 "golden")


def failed_own_thresholds(result: AnswerResult) -> bool:
    """Whether ``result`` missed its own thresholds or errored (see the module docstring)."""
    return not result.passed


def shows_as_failing(result: AnswerResult) -> bool:
    """Whether a report shows ``result`` among the failing answers: it failed its own
    thresholds, or has a claim that is not supported, or a claim whose votes disagree."""
    return (failed_own_thresholds(result) or result.not_supported > 0
            or any(c.unstable for c in result.claims))


#: The named outcomes of a run, from the most to the least severe (the first that applies is
#: the run's kind, ``RunOutcome.kind``):
#:
#: * ``incomplete``: the gate did not see every answer (interrupted, a worker lost, tests unrun);
#: * ``unmeasurable``: the run cannot measure faithfulness (an answer errored, canaries missed,
#:   unverified answers over their bound, no scored answer, a gate that could not run);
#: * ``failed``: a threshold missed, or tests failed while the gate held (the reasons say which);
#: * ``regressed``: a comparison with a saved run got significantly worse;
#: * ``inconclusive``: a comparison got worse beyond a bound, but not significantly;
#: * ``passed-with-tolerated``: passed, with failures within the bounds (listed);
#: * ``passed``.
OutcomeKind = Literal["incomplete", "unmeasurable", "failed", "regressed", "inconclusive",
                      "passed-with-tolerated", "passed"]
OUTCOME_KINDS: tuple[str, ...] = ("incomplete", "unmeasurable", "failed", "regressed",
                                  "inconclusive", "passed-with-tolerated", "passed")

#: The exit status of each kind when pytest's own status does not override it (see
#: ``exit_status``): 0 for the passing kinds; 1 (pytest's "tests failed") for ``failed``, and
#: 10-13 for the other failing kinds, clear of pytest's own 2-6 (interrupted, internal error,
#: usage error, no tests collected, too many warnings). ``inconclusive`` exits 0 under
#: ``--faithfulness-inconclusive=pass``.
KIND_EXIT: dict[str, int] = {"passed": 0, "passed-with-tolerated": 0, "failed": 1,
                             "regressed": 10, "inconclusive": 11, "unmeasurable": 12,
                             "incomplete": 13}


def exit_status(test_exitstatus: int | None, kind: str, *,
                inconclusive_fails: bool = True) -> int:
    """The run's exit status from pytest's own (``None``: not known, read as 0) and the run's
    kind (``OUTCOME_KINDS``).

    pytest's own failing statuses other than 1 (2 interrupted, 3 internal error, 4 usage
    error, 6 too many warnings, and any it adds) are kept. Otherwise a failing kind gives its
    ``KIND_EXIT`` status, and a passing kind keeps pytest's (0, or 5 when no tests were
    collected). ``inconclusive`` exits 11, or 0 when ``inconclusive_fails`` is false
    (``--faithfulness-inconclusive=pass``).

    Raises:
        ValueError: ``kind`` is not one of ``OUTCOME_KINDS``.
    """
    if kind not in KIND_EXIT:
        raise ValueError(f"unknown outcome kind {kind!r}; expected one of "
                         f"{', '.join(OUTCOME_KINDS)}")
    current = 0 if test_exitstatus is None else int(test_exitstatus)
    if current not in (0, 1, 5):
        return current
    code = KIND_EXIT[kind]
    if kind == "inconclusive" and not inconclusive_fails:
        code = 0
    return current if code == 0 else code


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
    #: comparisons that got worse beyond a bound but not significantly (kind
    #: ``inconclusive``); in ``failures`` too when ``inconclusive_fails``
    inconclusive: list[str] = field(default_factory=list)
    #: whether an inconclusive comparison fails the run (``--faithfulness-inconclusive``)
    inconclusive_fails: bool = True
    #: what the run tolerated within its bounds (the ``passed-with-tolerated`` list), added
    #: by the gates beside what ``tolerated`` finds in the answers
    tolerated_given: list[str] = field(default_factory=list)
    incomplete: str | None = None
    silent: list[AnswerResult] = field(default_factory=list)
    expected: list[AnswerResult] = field(default_factory=list)
    comparison: Any = None
    calibration: Any = None
    test_exitstatus: int | None = None
    exitstatus: int | None = None
    notes: list[str] = field(default_factory=list)
    report_path: Path | None = None
    #: terminal lines for the very end, just before the verdict: the draft labels written
    #: and the command that promotes them (``runs.promote``)
    closing_notes: list[str] = field(default_factory=list)
    #: the unscored answers and those failing their own thresholds, when a caller states
    #: them (``RunOutcome.of``); else found in ``results``
    unscored_given: list[AnswerResult] | None = None
    failing_given: list[AnswerResult] | None = None
    #: the golden answers and tests (``run.golden.GoldenReport``), once the golden gate ran
    golden: Any = None
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

    @property
    def kind(self) -> str:
        """The run's named outcome (``OUTCOME_KINDS``; the first that applies, in that
        order): ``incomplete`` when the gate did not see every answer; else the most severe
        kind of its gate failures (``unmeasurable``, ``failed``, ``regressed``,
        ``inconclusive``); ``failed`` when pytest's own status says tests failed;
        ``inconclusive`` for a comparison that got worse beyond a bound but not significantly
        (under ``--faithfulness-inconclusive=pass`` too: it then exits 0);
        ``passed-with-tolerated`` when ``tolerated`` lists anything; else ``passed``."""
        if self.incomplete:
            return "incomplete"
        kinds = {self.kind_of(f) for f in self.failures}
        if "golden" in kinds:  # a golden answer not supported: a threshold missed
            kinds.add("failed")
        if self.exit_failed:
            kinds.add("failed")
        if self.inconclusive:
            kinds.add("inconclusive")
        for kind in ("unmeasurable", "failed", "regressed", "inconclusive"):
            if kind in kinds:
                return kind
        return "passed-with-tolerated" if self.tolerated else "passed"

    @property
    def tolerated(self) -> list[str]:
        """What the run tolerated within its bounds, one line each: answers that missed their
        own thresholds in xfail tests, answers with a claim not supported that met their own
        thresholds, unscored answers within the unscored bound, and what the gates added
        (``tolerated_given``: canaries missed within their bounds, ...)."""
        out = []
        if self.expected:
            out.append(f"{len(self.expected)} answer(s) missed their own thresholds in xfail "
                       f"tests: {_names(self, self.expected)}")
        within = [r for r in self.results if shows_as_failing(r) and not
                  failed_own_thresholds(r)]
        if within:
            out.append(f"{len(within)} answer(s) with a claim not supported (or unstable) met "
                       f"their own thresholds: {_names(self, within)}")
        measured = "unmeasurable" not in self.reason_kinds.values()
        if self.unscored and measured:
            out.append(f"{len(self.unscored)} answer(s) had no claim to score: "
                       f"{_names(self, self.unscored)}")
        unverified = [r for r in self.results if r.status == "unverified"]
        if unverified and measured:
            out.append(f"{len(unverified)} answer(s) outside their judge's coverage "
                       f"(unverified, not scored): {_names(self, unverified)}")
        return out + list(self.tolerated_given)

    @property
    def reasons(self) -> list[dict[str, str]]:
        """Why the run is of its kind: ``[{"kind": ReasonKind | "tests" | "incomplete",
        "reason": text}, ...]``: the incomplete reason, every gate failure with its kind, the
        inconclusive comparisons (when they do not fail the run), and the tests' failure when
        pytest's own status says tests failed."""
        out = [{"kind": "incomplete", "reason": self.incomplete}] if self.incomplete else []
        out += [{"kind": self.kind_of(f), "reason": f} for f in self.failures]
        out += [{"kind": "inconclusive", "reason": f} for f in self.inconclusive
                if f not in self.failures]
        if self.exit_failed:
            out.append({"kind": "tests", "reason": f"pytest's own exit status is "
                        f"{self.test_exitstatus}: tests failed"
                        + (" while the faithfulness gate held" if not self.failures else "")})
        return out

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

            {"status": the session gate, "run_status": the whole run,
             "kind": the named outcome (``OUTCOME_KINDS``), "reasons": ``reasons``,
             "tolerated": ``tolerated``, "exitstatus": int | None,
             "incomplete_reason": str | None, "gate_failures": [str, ...],
             "answers_failing_own_thresholds": [name, ...], "unscored_answers": [name, ...],
             "thresholds": [[name, value], ...]}
        """
        return {"status": self.gate_status, "run_status": self.verdict().status,
                "kind": self.kind, "reasons": self.reasons, "tolerated": self.tolerated,
                "exitstatus": self.exitstatus, "incomplete_reason": self.incomplete,
                "gate_failures": list(self.failures),
                "answers_failing_own_thresholds": [self.name_of(r) for r in self.failing],
                "unscored_answers": [self.name_of(r) for r in self.unscored],
                "thresholds": [list(t) for t in self.thresholds or []]}

    def headline(self) -> str:
        """``"outcome: unmeasurable (exit status 12)"``: the run's kind and, once known, its
        exit status; what the terminal, Markdown, HTML and pull-request comment state above
        their verdict."""
        code = "" if self.exitstatus is None else f" (exit status {self.exitstatus})"
        return f"outcome: {self.kind}{code}"

    def set_exit_status(self) -> int:
        """Set and return ``exitstatus``: ``exit_status`` of pytest's own status and the run's
        kind."""
        self.exitstatus = exit_status(self.test_exitstatus, self.kind,
                                      inconclusive_fails=self.inconclusive_fails)
        return self.exitstatus

    def decision(self) -> dict[str, Any]:
        """The run's decision as JSON (``--faithfulness-decision``)::

            {"format": "pytest-faithfulness-decision-1", "kind": OUTCOME_KINDS,
             "exit_status": int | None, "reasons": [{"kind", "reason"}, ...],
             "tolerated": [str, ...], "figures": SessionSummary as JSON,
             "canaries": the canary report as JSON | None,
             "comparison": {"baseline", "failures", "inconclusive", "warnings",
                            "shared": "figures over the N answers both runs share; ..."}
                           | None,
             "judge": [description, ...], "thresholds": [[name, value], ...],
             "verdict": the verdict sentence}
        """
        canaries = self.canaries
        if canaries is not None and hasattr(canaries, "model_dump"):
            canaries = canaries.model_dump(mode="json")
        comparison = None
        if self.comparison is not None:
            found = self.comparison
            comparison = {"baseline": getattr(found, "baseline_name", None),
                          "failures": list(getattr(found, "failures", [])),
                          "inconclusive": list(self.inconclusive),
                          "warnings": list(getattr(found, "warnings", [])),
                          "shared": getattr(getattr(found, "shared", None), "statement", None)}
        return {"format": DECISION_FORMAT, "kind": self.kind, "exit_status": self.exitstatus,
                "reasons": self.reasons, "tolerated": self.tolerated,
                "figures": self.summary.model_dump(mode="json"), "canaries": canaries,
                "comparison": comparison, "judge": list(self.judges),
                "thresholds": [list(t) for t in self.thresholds or []],
                "verdict": self.verdict().text}

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



def _names(outcome: RunOutcome, results: Sequence[AnswerResult], shown: int = 5) -> str:
    """The first ``shown`` answers' names, then how many more."""
    names = [outcome.name_of(r) for r in results]
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
