"""The end of a run, the one sequence: the gates in order, the exit status, the outputs.

``finish_run`` is called by the pytest plugin's ``pytest_sessionfinish`` and by
``pytest-faithfulness merge``; what differs between them is passed in (``RunFaces``): how to
tell the answers that missed their own thresholds silently from those of failed or xfail
tests, the conftest gate hooks, and the failures a merge carries from its shards. The gates,
in order, each on its own (one that raises becomes a gate failure and never stops the others
nor the outputs):

1. the session thresholds (``gate.gate_failures``; a run that judged nothing cannot meet one),
   then the judge canaries (``canaries``: the run is unmeasurable when its judge can no longer
   say no, or yes; the face judges them or adds its shards' up);
2. the calibration gate (``--faithfulness-min-agreement``; errors always fail);
3. the answers that missed their own thresholds without failing their tests, then the golden
   answers and tests (``golden.apply_golden``);
4. the comparison with the saved run and its compare-fail bounds, then the gate hooks;
5. what the face adds (a merge: verdicts that fail the quote check again, shards' own
   failures).

Then the exit status (pytest's, the gate ORed in), the outputs (``outputs.write_outputs``), and
the exit status again (an output that could not be written fails the gate). Nothing here
imports pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..records import AnswerResult, SessionSummary
from .outcome import RunOutcome
from .outputs import OutputFiles, write_decision, write_outputs
from .results import ResultStore

#: The gate's reason when a run with a session threshold judged nothing.
NOTHING_JUDGED = "no answer was judged, so the session thresholds cannot be met"

#: ``(failing answers) -> (silent, expected)``: of the answers that failed their own
#: thresholds, those whose tests did not fail (not xfail), and those of xfail tests.
Classifier = Callable[[list[AnswerResult]], tuple[list[AnswerResult], list[AnswerResult]]]
#: ``(summary, results) -> hook answers``: the conftest gates (each answer read by
#: ``gate.gate_hook_reasons``).
GateHooks = Callable[[SessionSummary, list[AnswerResult]], Iterable[object]]


@dataclass(frozen=True)
class RunFaces:
    """What the face finishing the run (pytest or ``merge``) adds to the one sequence.

    Attributes:
        classify: tells the silent misses from those of xfail tests (pytest: the tests'
            outcomes); ``None``: ``ResultStore.silent_misses`` / ``expected_misses`` as given
            (a merge takes them from its shards).
        hooks: the ``pytest_faithfulness_gate`` hooks, or ``None`` (a merge runs none).
        find_git: the run's ``runs.saved.GitInfo``, asked only when a baseline or a save
            needs it (pytest: from the rootdir); ``git``: the one already known (a merge).
        notes: terminal lines the face has before the gates (a merge: its shards' checks).
        extra_failures: failures the face found before the gates (a merge: verdicts that
            fail the quote check or the coverage check again), added after them, of kind
            ``unmeasurable`` (the figures rest on verdicts that cannot be trusted).
        carried_failures: failures only the shards could decide (a merge: conftest gates,
            calibration gates), kept as the run's own (``RunOutcome.local_failures``): each a
            reason (kind ``failed``) or a ``(kind, reason)`` pair.
        emit: prints one line of GitHub's workflow commands (pytest: through the terminal
            reporter, on a line of its own); ``None``: on standard output.
        canaries: ``() -> canary_report.CanaryReport | None``: the judge canaries' report (pytest:
            judged at the end of the session; a merge: its shards' reports added up), or
            ``None`` (no canaries); its bounds make the run unmeasurable
            (``canaries.apply_canaries``).
        judge: ``() -> (judge, close)``: the run's configured judge and what closes it, to
            re-judge the compared run with (``--faithfulness-compare-rejudge``,
            ``run.rejudge``); ``None``: this face cannot re-judge.
    """

    classify: Classifier | None = None
    hooks: GateHooks | None = None
    find_git: Callable[[], Any] | None = None
    git: Any = None
    notes: Sequence[str] = ()
    extra_failures: Sequence[str] = ()
    carried_failures: Sequence[str | tuple[str, str]] = ()
    emit: Callable[[str], Any] | None = None
    canaries: Callable[[], Any] | None = None
    judge: Callable[[], tuple[Any, Callable[[], None]]] | None = None


def new_outcome(store: ResultStore, gate: Any, report_path: str | Path | None = None
                ) -> RunOutcome:
    """The ``RunOutcome`` of ``store`` before the gates (``gate``: the ``gate.GateConfig``)."""
    return RunOutcome(results=store.results, summary=store.summary(), judges=store.judges(),
                      gate=gate.model_dump(mode="json"), thresholds=gate.applied(),
                      incomplete=store.incomplete_reason, silent=list(store.silent_misses),
                      expected=list(store.expected_misses),
                      calibration=store.calibration_report(),
                      test_exitstatus=store.test_exitstatus,
                      report_path=Path(report_path) if report_path else None)


def finish_run(store: ResultStore, settings: Any, *, gate: Any = None,
               test_exitstatus: int | None = None, faces: RunFaces | None = None
               ) -> RunOutcome:
    """Gate the run, set its exit status and write its outputs (see the module docstring).

    Args:
        store: every answer of the run (in report order).
        settings: the run's ``settings.Settings``.
        gate: the session thresholds (``gate.GateConfig``); default ``settings.gate_config()``.
        test_exitstatus: pytest's own exit status before the gate (default: the store's).
        faces: what the face adds (``RunFaces``).

    Returns:
        the ``RunOutcome``, its ``exitstatus`` set (0 only when the tests and the gate passed).
    """
    faces = faces or RunFaces()
    gate = gate if gate is not None else settings.gate_config()
    if test_exitstatus is not None:
        store.test_exitstatus = test_exitstatus
    outcome = new_outcome(store, gate, settings.report)
    outcome.inconclusive_fails = settings.inconclusive != "pass"
    outcome.notes.extend(faces.notes)
    git = faces.git

    def step(what: str, run: Callable[[], Any], *, local: str = "") -> Any:
        before = len(outcome.failures)
        try:
            return run()
        except Exception as exc:  # fail closed, and keep going: the reports must be written
            reason = f"the faithfulness gate could not {what}: {type(exc).__name__}: {exc}"
            outcome.add_failures([reason], "unmeasurable")  # the gate could not measure
            if local == "error":  # it may have stopped before a gate merge cannot run
                outcome.local_failures.append(reason)
            return None
        finally:
            if local == "all":
                outcome.local_failures.extend(outcome.failures[before:])

    step("apply the session thresholds", lambda: apply_thresholds(
        outcome, gate, settings.session_threshold_flags(), judged=bool(store.calibration)))
    if faces.canaries is not None:  # the judge canaries: can the judge still say no, and yes?
        from .canaries import apply_canaries

        canaries = faces.canaries
        step("judge the canaries", lambda: apply_canaries(
            outcome, canaries(), settings.min_canary_recall, settings.min_control_keep),
            local="error")  # a shard whose canaries broke: merge carries it
    # the calibration gate and the gate hooks are the run's own: a merge of saved runs cannot
    # recompute them, so their failures are also kept apart (``local_failures``)
    step("apply the calibration gate",
         lambda: apply_calibration_gate(outcome, settings.min_agreement), local="all")

    def silent_misses() -> None:
        silent, expected = (faces.classify(outcome.failing) if faces.classify is not None
                            else (outcome.silent, outcome.expected))
        fail_silent_misses(outcome, silent, expected)

    step("check the answers that missed their own thresholds", silent_misses)
    from .golden import apply_golden  # golden answers fail whatever the aggregate

    step("check the golden answers", lambda: apply_golden(
        outcome, store.golden, baseline_run=settings.baseline,
        strict=settings.strict_baseline))

    def compare_and_hooks() -> Any:
        found = git
        if faces.find_git is not None and (settings.baseline is not None or settings.save
                                           or settings.autosave):
            found = faces.find_git()
        compare_as_configured(store, outcome, settings, found, judge=faces.judge)
        if faces.hooks is not None:
            run_gate_hooks(outcome, faces.hooks)
        return found

    found = step("compare with the saved run or run the gate hooks", compare_and_hooks,
                 local="error" if faces.hooks is not None else "")
    git = found if faces.find_git is not None else git
    outcome.add_failures(faces.extra_failures, "unmeasurable")
    for carried in faces.carried_failures:
        kind, text = carried if isinstance(carried, tuple) else ("failed", carried)
        outcome.add_local_failures([text], kind)
    outcome.set_exit_status()
    files = OutputFiles(**settings.output_files(git))
    write_outputs(store, outcome, files, emit=faces.emit)
    write_promote(outcome, settings.promote_path())
    outcome.set_exit_status()
    if write_decision(outcome, files.decision) is not None:
        outcome.set_exit_status()
    return outcome


def write_promote(outcome: RunOutcome, path: str | Path | None, *,
                  labels_set: bool = False) -> None:
    """The draft labels of the run's failing and unstable claims (``runs.promote``), written
    to ``path`` (``None``: not written), their closing lines kept in
    ``outcome.closing_notes``. A file that cannot be written is a loud note, never a gate
    failure: the drafts are a help to people, not part of the run's verdict."""
    if path is None:
        return
    from ..runs.promote import promote_run

    try:
        done = promote_run(outcome.results, outcome.comparison, path, labels_set=labels_set)
    except Exception as exc:  # noted: the reports already say everything the gate decided
        outcome.closing_notes.append(f"WARNING: could not write the draft labels ({path}): "
                                     f"{type(exc).__name__}: {exc}")
        return
    outcome.closing_notes.extend(done.lines)


# The gates ------------------------------------------------------------------------------------

def apply_thresholds(outcome: RunOutcome, gate: Any, threshold_flags: Sequence[str] | None = None,
                     *, judged: bool = False) -> list[str]:
    """The session thresholds (``gate.gate_failures``, then ``gate.unverified_failures``
    with kind ``unmeasurable``): their reasons are added to ``outcome.failures`` and returned.

    A run that judged nothing (no answer, and not ``judged`` otherwise: no calibration
    record) cannot meet a session threshold: it fails, naming the thresholds
    (``threshold_flags``, the options set; default: ``gate``'s thresholds) rather than
    passing on no data.
    """
    from .gate import gate_reasons, unverified_failures

    reasons = gate_reasons(outcome.summary, outcome.results, gate)
    if not outcome.results and not judged:
        named = list(threshold_flags) if threshold_flags is not None else \
            [name for name, value in gate.applied() if value != "none"]
        if named:
            reasons.append(("unmeasurable", f"{NOTHING_JUDGED} ({', '.join(named)})"))
    added: list[str] = []
    for kind, text in reasons:
        added += outcome.add_failures([text], kind)
    # answers outside their judge's coverage: the run cannot measure them (issue 23)
    return added + outcome.add_failures(unverified_failures(outcome.summary, gate),
                                        kind="unmeasurable")


def apply_calibration_gate(outcome: RunOutcome, min_agreement: float | None) -> list[str]:
    """The calibration gate: records that errored always fail it; agreement (balanced
    accuracy) below ``min_agreement``, or undefined with one set, fails it. Returns the
    reasons added (none without a calibration report)."""
    found = outcome.calibration
    if found is None:
        return []
    from ..calibration import agreement

    cannot, reasons = [], []
    if found.errors:
        cannot.append(f"{len(found.errors)} calibration record(s) errored: a judge failure "
                      "is never counted as agreement")
    value = agreement(found)
    if min_agreement is not None:
        if value is None:
            cannot.append("calibration agreement is undefined (a class is missing from the "
                          "labels or every record errored)")
        elif value < min_agreement:
            reasons.append(f"judge agreement with human labels (balanced accuracy) "
                           f"{value:.3f} < min agreement {min_agreement:.3f}")
    return outcome.add_failures(cannot, "unmeasurable") + outcome.add_failures(reasons)


def fail_silent_misses(outcome: RunOutcome, silent: list[AnswerResult],
                       expected: list[AnswerResult]) -> list[str]:
    """Keep the answers that missed their own thresholds in tests that did not fail and are
    not xfail (``silent``) and in xfail tests (``expected``), for every report's verdict, and
    fail the gate for the silent ones: a missed bound never passes silently. Returns the
    reasons added."""
    outcome.silent, outcome.expected = list(silent), list(expected)
    if not silent:
        return []
    names = [r.test_id or "?" for r in silent]
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return outcome.add_failures([
        f"{len(silent)} answer(s) missed their own thresholds without failing their tests "
        f"({shown}): the AssertionError was caught or the answers came from evaluate_many; "
        "let the assertion fail, mark the test xfail, or record with record_only=True"])


def compare_with(store: ResultStore, outcome: RunOutcome, baseline: Any, bounds: Any = (), *,
                 baseline_path: Any = None, git: Any = None,
                 alpha: float | None = None, rejudged: Any = None) -> list[str]:
    """Compare the run with a saved one (``runs.saved.SavedRun``) and apply the compare-fail
    ``bounds`` (``runs.compare.CompareFail``; with ``alpha``, a figure bound fails only on a
    significant change, see ``runs.compare.check_regressions``); keeps the comparison in
    ``outcome.comparison``, adds the regressions to its failures (kind ``regressed``; one no
    data can test: ``unmeasurable``), the moves beyond a bound that are not significant to
    ``outcome.inconclusive`` (and to its failures, kind ``inconclusive``, when
    ``outcome.inconclusive_fails``), and returns the failures added. With ``rejudged``
    (``runs.rejudge.Rejudged``: the baseline re-judged by this run's judge) the comparison is
    with it, split into the answer and the judge effects (``runs.effects.compare_rejudged``):
    the bounds then measure the answer effect only."""
    from ..runs.compare import check_regressions, compare_runs
    from .outputs import saved_run

    current = saved_run(store, outcome, "current", git, full=False)
    if rejudged is not None:
        from ..runs.effects import compare_rejudged
        from ..runs.rejudge import split_notes

        outcome.comparison = compare_rejudged(
            baseline, rejudged.run, current, baseline_path=rejudged.path or baseline_path,
            notes=split_notes(rejudged.run))
    else:
        outcome.comparison = compare_runs(baseline, current, baseline_path=baseline_path)
    failures = check_regressions(outcome.comparison, bounds, alpha)
    untestable = set(outcome.comparison.untestable)
    added = outcome.add_failures([f for f in failures if f not in untestable], "regressed")
    added += outcome.add_failures([f for f in failures if f in untestable], "unmeasurable")
    outcome.inconclusive.extend(outcome.comparison.inconclusive)
    if outcome.inconclusive_fails:
        added += outcome.add_failures(outcome.comparison.inconclusive, "inconclusive")
    return added


def compare_as_configured(store: ResultStore, outcome: RunOutcome, settings: Any,
                          git: Any, *, judge: Any = None) -> None:
    """The comparison ``settings`` asks for: the compare option's note, then ``compare_with``
    the chosen saved run, its bounds and alpha, when one was chosen; re-judged first by the
    run's judge (``judge``: ``RunFaces.judge``) under ``--faithfulness-compare-rejudge`` when
    its judge differs (``run.rejudge.rejudge_if_needed``)."""
    if settings.compare_note:
        outcome.notes.extend(settings.compare_note.splitlines())
    if settings.baseline is not None:
        rejudged = None
        if getattr(settings, "compare_rejudge", False):
            from .rejudge import rejudge_if_needed

            rejudged = rejudge_if_needed(store, outcome, settings, judge)
        compare_with(store, outcome, settings.baseline, settings.compare_bounds,
                     baseline_path=settings.baseline_path, git=git,
                     alpha=settings.compare_alpha, rejudged=rejudged)
        apply_baseline_check(outcome, getattr(settings, "baseline_check", None),
                             strict=bool(getattr(settings, "strict_baseline", False)))


#: The start of a gate failure for a baseline problem under --faithfulness-strict-baseline.
STRICT_BASELINE = "baseline problem (--faithfulness-strict-baseline)"


def apply_baseline_check(outcome: RunOutcome, check: Any, *, strict: bool) -> list[str]:
    """Keep the baseline's age and ancestry (``runs.baseline_identity.BaselineCheck``, or
    ``None``: not checked) in ``outcome.comparison.baseline_check``; its problems become
    comparison warnings, or, with ``strict`` (``--faithfulness-strict-baseline``), gate
    failures of kind ``unmeasurable`` (a comparison with a stale baseline, or one whose
    ancestry is not known, cannot measure this run's change: fail closed). Returns the
    failures added."""
    if check is None or outcome.comparison is None:
        return []
    outcome.comparison.baseline_check = check
    if not strict:
        outcome.comparison.warnings.extend(check.problems)
        return []
    return outcome.add_failures([f"{STRICT_BASELINE}: {p}" for p in check.problems],
                                "unmeasurable")


def run_gate_hooks(outcome: RunOutcome, hooks: GateHooks) -> list[str]:
    """Ask the conftest gates and add what they answer as the run's own failures
    (``gate.gate_hook_reasons``: fails closed on a bad answer; a hook that raises is a
    failure naming it). Returns the reasons added."""
    from .gate import gate_hook_reasons

    try:
        answers = list(hooks(outcome.summary.model_copy(deep=True), list(outcome.results)))
    except Exception as exc:  # fail closed: a broken custom gate never passes
        answers = [f"a pytest_faithfulness_gate hook raised {type(exc).__name__}: {exc}"]
    added: list[str] = []
    for answer in answers:  # pluggy leaves out the hooks that returned None
        added += outcome.add_local_failures(gate_hook_reasons(answer))
    return added
