"""The session object: owns every ``AnswerResult`` of a run, its judges' counters and the gate.

It knows nothing of pytest, so the same object can aggregate results from a script. Under
pytest-xdist each worker's session is sent to the controller as a JSON payload
(``to_payload`` / ``merge_payload``) so the gate sees every verdict.

What the reports read to say the verdict (the names are the contract with ``reports``):
``gate_status`` (``"passed" | "failed" | "incomplete"``), ``failures`` (the session gate's
reasons), ``incomplete_reason`` (why the run did not judge every answer, else ``None``),
``exitstatus`` (pytest's final exit status, once known), ``answers_failing_own_thresholds()``,
``unscored_answers()``, ``thresholds_applied()`` and ``verdict()`` (all of them at once).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .gate import GateConfig, gate_failures
from .judges.protocol import judge_description
from .records import AnswerResult, SessionSummary
from .reports.json import json_report, write_json
from .reports.terminal import summary_lines
from .reports.verdict import failing_answers, unscored_answers

#: The gate's reason when a run with a session threshold judged nothing.
NOTHING_JUDGED = "no answer was judged, so the session thresholds cannot be met"


class FaithfulnessSession:
    """Every answer result of one run, and the gate over them.

    Args:
        gate: the session thresholds.
        report_path: where to write the JSON report at the end, or ``None``.
    """

    def __init__(self, gate: GateConfig | None = None, report_path: str | Path | None = None):
        self.gate = gate or GateConfig()
        self.report_path = Path(report_path) if report_path else None
        self.results: list[AnswerResult] = []
        self.calibration: list[Any] = []  # calibration.Outcome, one per labelled record
        self._judges: dict[int, Any] = {}
        self._merged_judges: list[str] = []
        self._lock = threading.Lock()
        self.failures: list[str] = []
        self._merged_judge_info: list[dict[str, Any]] = []  # judges' fingerprints from workers
        self.comparison: Any = None  # a baseline.Comparison once compared with a saved run
        self.ci_notes: list[str] = []  # files written, baseline notes (terminal lines)
        #: why this run did not judge every answer (interrupted, crashed, stopped early);
        #: ``None`` for a complete run. An incomplete run never passes and is never a baseline.
        self.incomplete_reason: str | None = None
        #: of the answers that missed their own thresholds: those whose tests did not fail
        #: and are not xfail, and those of xfail tests (set by the pytest side at the end)
        self.silent_misses: list[AnswerResult] = []
        self.expected_misses: list[AnswerResult] = []
        #: pytest's exit status once the session has finished (the gate's failure included).
        self.exitstatus: int | None = None
        #: pytest's own exit status before the gate was ORed in (kept in the saved run, so
        #: that ``runs.merge`` gives the exit status one run of every shard would have had).
        self.test_exitstatus: int | None = None
        #: the gate failures only this run could decide, also in ``failures``: the conftest
        #: ``pytest_faithfulness_gate`` hooks, the calibration gate, a gate step that raised
        #: before they ran, and those a merge carried over from its shards. Kept in the saved
        #: run, so that ``runs.merge`` fails the merged gate with them (it cannot recompute
        #: them; the session thresholds and silent misses it recomputes itself).
        self.local_failures: list[str] = []

    def add_local_failures(self, reasons: Any) -> list[str]:
        """``add_failures`` for failures only this run can decide (see ``local_failures``).
        Returns the reasons added."""
        added = self.add_failures(reasons)
        self.local_failures.extend(added)
        return added

    def mark_incomplete(self, reason: str) -> None:
        """Record that the run did not judge every answer (reasons accumulate, ``; ``-joined)."""
        with self._lock:
            if not self.incomplete_reason:
                self.incomplete_reason = reason
            elif reason not in self.incomplete_reason:
                self.incomplete_reason = f"{self.incomplete_reason}; {reason}"

    @property
    def gate_status(self) -> str:
        """``"incomplete"`` when the run did not judge every answer, else ``"failed"`` when
        the session gate has failures, else ``"passed"``."""
        if self.incomplete_reason:
            return "incomplete"
        return "failed" if self.failures else "passed"

    def answers_failing_own_thresholds(self) -> list[AnswerResult]:
        """The answers that missed their own thresholds (or errored), in recording order."""
        return failing_answers(self.results)

    def unscored_answers(self) -> list[AnswerResult]:
        """The answers with no claim to score (status ``unscored``), in recording order."""
        return unscored_answers(self.results)

    def thresholds_applied(self) -> list[tuple[str, str]]:
        """The session thresholds that applied, as ``(name, value)`` for people (``"none"``
        for an unset one); an empty list when no session threshold applied (say "none")."""
        return self.gate.applied()

    def verdict(self) -> dict[str, Any]:
        """Everything the closing verdict sentence needs, JSON-ready::

            {"status": "passed" | "failed" | "incomplete" (the session gate),
             "run_status": the same, for the whole run (failed when tests failed),
             "exitstatus": int | None,
             "incomplete_reason": str | None, "gate_failures": [str, ...],
             "answers_failing_own_thresholds": [test id, ...], "unscored_answers": [test id,
             ...], "thresholds": [[name, value], ...]}
        """
        def ids(results: list[AnswerResult]) -> list[str]:
            return [r.test_id or f"answer {self.results.index(r) + 1}" for r in results]

        return {"status": self.gate_status, "run_status": self.run_verdict().status,
                "exitstatus": self.exitstatus,
                "incomplete_reason": self.incomplete_reason,
                "gate_failures": list(self.failures),
                "answers_failing_own_thresholds": ids(self.answers_failing_own_thresholds()),
                "unscored_answers": ids(self.unscored_answers()),
                "thresholds": [list(t) for t in self.thresholds_applied()]}

    def _report_inputs(self) -> dict[str, Any]:
        """What every report writer needs beside the results: the incomplete run, the
        thresholds applied, the unscored answers, those failing their own thresholds, and
        whether pytest's own exit status (``test_exitstatus``, once known) says the tests
        failed, so that no report words a red run as a pass."""
        exit_failed = None if self.test_exitstatus is None else \
            self.test_exitstatus not in (0, 5)  # pytest's OK and NO_TESTS_COLLECTED
        return {"incomplete": self.incomplete_reason, "thresholds": self.thresholds_applied(),
                "unscored": self.unscored_answers(),
                "failing": self.answers_failing_own_thresholds(),
                "silent": self.silent_misses, "expected": self.expected_misses,
                "exit_failed": exit_failed}

    def record(self, result: AnswerResult, judge: Any = None) -> None:
        """Keep one answer result (and remember the judge for its counters)."""
        with self._lock:
            self.results.append(result)
            if judge is not None:
                self._judges[id(judge)] = judge

    def sort_results(self) -> None:
        """Put the answers in test-id order (digit runs compared as numbers, the answers of
        one test in the order it recorded them; answers without a test id last), so that
        every report lists them alike however the run was split (``-n 2`` records them in
        finishing order). The plugin's controller calls it once every answer is in."""
        from .runs.merge import natural_key

        with self._lock:
            self.results.sort(key=lambda r: (r.test_id is None, natural_key(r.test_id)))

    def add_merged_judges(self, names: list[str], info: list[dict[str, Any]]) -> None:
        """Add judges known only by description and fingerprint (``JudgeInfo`` dicts): an
        xdist worker's, or a saved shard's (``runs.merge``)."""
        with self._lock:
            self._merged_judges.extend(names)
            self._merged_judge_info.extend(info)

    def judges(self) -> list[str]:
        """Descriptions of the judges that produced the results."""
        names = [judge_description(j) for j in self._judges.values()] + self._merged_judges
        return list(dict.fromkeys(names))

    def summary(self) -> SessionSummary:
        """The session metrics over every result so far, with the figures' 95% bootstrap
        intervals and smallest detectable drops (``runs.statistics``; computed once per set
        of results)."""
        from .runs.statistics import with_statistics

        key = (len(self.results), id(self.results[-1]) if self.results else None)
        cached = getattr(self, "_summary_cache", None)
        if cached is None or cached[0] != key:
            cached = (key, with_statistics(SessionSummary.of(self.results), self.results))
            self._summary_cache = cached
        return cached[1].model_copy(deep=True)

    def evaluate_gate(self, threshold_flags: Sequence[str] | None = None) -> list[str]:
        """Apply the gate; stores and returns the reasons it fails (empty: passes).

        A run that judged nothing (no answer, no calibration record) cannot meet a session
        threshold: it fails, naming the thresholds (``threshold_flags``, the options set;
        default: this session's ``GateConfig`` thresholds) rather than passing on no data.
        """
        self.failures = gate_failures(self.summary(), self.results, self.gate)
        if not self.results and not self.calibration:
            named = list(threshold_flags) if threshold_flags is not None else \
                [name for name, value in self.gate.applied() if value != "none"]
            if named:
                self.failures.append(f"{NOTHING_JUDGED} ({', '.join(named)})")
        return self.failures

    def report(self) -> dict[str, Any]:
        """The JSON report of the run."""
        data = json_report(self.results, self.summary(), self.judges(), self.failures,
                           self.gate.model_dump(mode="json"), **self._report_inputs())
        data["gate"].update(complete=self.incomplete_reason is None,
                            incomplete_reason=self.incomplete_reason)
        data["verdict"] = self.verdict()
        calibration = self.calibration_report()
        if calibration is not None:
            data["calibration"] = calibration.model_dump(mode="json")
        if self.comparison is not None:
            data["comparison"] = self.comparison.model_dump(mode="json")
        return data

    def write_report(self) -> Path | None:
        """Write the JSON report if a path was configured."""
        if self.report_path is None:
            return None
        return write_json(self.report_path, self.report())

    def terminal_lines(self, *, verbose: bool = False,
                       reported: Sequence[AnswerResult] = ()) -> list[str]:
        """The terminal section's body: headline figures, thresholds, unscored answers,
        every answer's warnings, and every failing answer's per-claim report (with
        ``verbose``, the judge's rationale; ``reported``: answers whose per-claim report the
        terminal already shows, named here without their claims); the gate's reasons and the
        verdict come from ``run_verdict`` after it."""
        from .reports.terminal import failing_answer_lines, warning_lines

        lines = summary_lines(self.summary(), self.judges(), self.failures, verdict=False,
                              thresholds=self.thresholds_applied(),
                              unscored=self.unscored_answers())
        return (lines + warning_lines(self.results)
                + failing_answer_lines(self.results, verbose=verbose, reported=reported))

    def run_verdict(self, *, exit_failed: bool | None = None,
                    incomplete: str | None = None) -> Any:
        """The run's ``reports.verdict.RunVerdict`` (what every report's last line says).

        Args:
            exit_failed: whether pytest's exit status says the run failed, when known.
            incomplete: why the run is incomplete, overriding ``incomplete_reason`` (the
                terminal knows of an interrupt before the session is told).
        """
        from .reports.verdict import run_verdict

        inputs = self._report_inputs()
        inputs.pop("thresholds")
        if incomplete is not None:
            inputs["incomplete"] = incomplete
        if exit_failed is not None:
            inputs["exit_failed"] = exit_failed
        return run_verdict(self.failures, **inputs)

    # xdist ----------------------------------------------------------------------------------
    def to_payload(self) -> str:
        """This worker's results and counters as a JSON string."""
        return json.dumps({
            "results": [r.model_dump(mode="json") for r in self.results],
            "calibration": [o.model_dump(mode="json") for o in self.calibration],
            "judges": self.judges(),
            "judge_info": self._judge_info_dicts(),
            "incomplete_reason": self.incomplete_reason,
        })

    def merge_payload(self, payload: str) -> None:
        """Add a worker's payload (from ``to_payload``) to this session."""
        data = json.loads(payload)
        with self._lock:
            self.results.extend(AnswerResult.model_validate(r) for r in data["results"])
            if data.get("calibration"):
                from .calibration import Outcome

                self.calibration.extend(Outcome.model_validate(o) for o in data["calibration"])
            self._merged_judges.extend(data.get("judges", []))
            self._merged_judge_info.extend(data.get("judge_info", []))
        if data.get("incomplete_reason"):
            self.mark_incomplete(data["incomplete_reason"])

    # CI: baselines and regression gates, custom gates, Markdown and HTML reports -------------
    def _judge_info_dicts(self) -> list[dict[str, Any]]:
        out = []
        for judge in self._judges.values():
            fingerprint = getattr(judge, "fingerprint", None)
            try:
                fp = fingerprint() if callable(fingerprint) else None
            except Exception:  # a judge's fingerprint is informative here, never fatal
                fp = None
            if isinstance(fp, dict):  # JSON-safe for the xdist payload and the saved run
                fp = json.loads(json.dumps(fp, default=str))
            out.append({"description": judge_description(judge),
                        "fingerprint": fp if isinstance(fp, dict) else None})
        return out + list(self._merged_judge_info)

    def judge_info(self) -> list[Any]:
        """The judges with their fingerprints (``runs.saved.JudgeInfo``), workers' included,
        without duplicates."""
        from .runs.saved import JudgeInfo

        seen: dict[str, Any] = {}
        for data in self._judge_info_dicts():
            info = JudgeInfo.model_validate(data)
            seen.setdefault(info.identity(), info)
        return list(seen.values())

    def saved_run(self, name: str, git: Any = None, *, full: bool = True) -> Any:
        """This run as a ``runs.saved.SavedRun`` named ``name`` (``git``: a ``GitInfo``);
        ``full=False`` leaves out the full answer records (``SavedRun.results``)."""
        from .runs.saved import SavedRun

        index = {id(r): i for i, r in enumerate(self.results)}
        return SavedRun.of(self.results, self.summary(), name=name, judges=self.judge_info(),
                           git=git, gate_failures=self.failures,
                           incomplete_reason=self.incomplete_reason, judge_names=self.judges(),
                           silent_misses=[index[id(r)] for r in self.silent_misses
                                          if id(r) in index],
                           expected_misses=[index[id(r)] for r in self.expected_misses
                                            if id(r) in index],
                           test_exitstatus=self.test_exitstatus, full=full,
                           gate=self.gate.model_dump(mode="json"),
                           local_failures=self.local_failures)

    def save_run(self, storage: str | Path, name: str, git: Any = None) -> Path:
        """Save this run in the ``storage`` folder (``NNNN_<name>.json``); returns the path.

        Raises:
            ValueError: ``name`` has no usable character. OSError: the folder is not writable.
        """
        from .runs.saved import save_run

        path = save_run(self.saved_run(name, git), storage)
        if self.incomplete_reason:
            self.ci_notes.append(f"WARNING: saved run {path} is marked incomplete: it will not "
                                 "be used as a baseline")
        elif self.failures:
            self.ci_notes.append(f"WARNING: saved run {path} failed its gate: it will never be "
                                 "picked as the latest baseline (name it to compare with it)")
        else:
            self.ci_notes.append(f"saved run: {path}")
        return path

    def compare_with(self, baseline: Any, bounds: Any = (), *, baseline_path: Any = None,
                     git: Any = None, alpha: float | None = None) -> list[str]:
        """Compare this run with a saved one (``runs.saved.SavedRun``) and apply the compare-fail
        ``bounds`` (``runs.compare.CompareFail``; with ``alpha``, a figure bound fails only on
        a significant change, see ``runs.compare.check_regressions``); keeps the comparison in
        ``self.comparison``, adds the regressions to ``self.failures`` and returns them."""
        from .runs.compare import check_regressions, compare_runs

        self.comparison = compare_runs(baseline, self.saved_run("current", git, full=False),
                                       baseline_path=baseline_path)
        return self.add_failures(check_regressions(self.comparison, bounds, alpha))

    def fail_silent_misses(self, silent: list[AnswerResult],
                           expected: list[AnswerResult]) -> list[str]:
        """Keep the answers that missed their own thresholds in tests that did not fail and
        are not xfail (``silent``) and in xfail tests (``expected``), for every report's
        verdict, and fail the gate for the silent ones: a missed bound never passes
        silently. Returns the reasons added."""
        self.silent_misses, self.expected_misses = list(silent), list(expected)
        if not silent:
            return []
        names = [r.test_id or "?" for r in silent]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return self.add_failures([
            f"{len(silent)} answer(s) missed their own thresholds without failing their tests "
            f"({shown}): the AssertionError was caught or the answers came from evaluate_many; "
            "let the assertion fail, mark the test xfail, or record with record_only=True"])

    def add_failures(self, reasons: Any) -> list[str]:
        """Add gate failures: ``None``, a reason string, or an iterable of them (a custom
        gate's answer). Returns the reasons added."""
        if reasons is None:
            return []
        if isinstance(reasons, str):
            reasons = [reasons]
        added = [str(r) for r in reasons if r is not None and str(r).strip()]
        self.failures.extend(added)
        return added

    def comparison_lines(self) -> list[str]:
        """The comparison with the saved run as terminal lines (empty when none was made)."""
        from .reports.terminal import comparison_lines

        return comparison_lines(self.comparison) if self.comparison is not None else []

    def markdown(self) -> str:
        """The Markdown summary (headline figures, comparison, failing claims)."""
        from .reports.markdown import markdown_summary

        return markdown_summary(self.results, self.summary(), self.judges(), self.failures,
                                self.comparison, **self._report_inputs())

    def html(self) -> str:
        """The self-contained HTML report."""
        from .reports.html import render_html

        return render_html(self.results, self.summary(), self.judges(), self.failures,
                           self.comparison, **self._report_inputs())

    def write_markdown(self, path: str | Path | None = None,
                       step_summary: str | Path | None = None) -> None:
        """Write the Markdown summary to ``path`` and append it to ``step_summary`` (GitHub's
        ``$GITHUB_STEP_SUMMARY`` file); either may be ``None``. A step summary that cannot be
        written is noted, not raised.

        Raises:
            OSError: ``path`` cannot be written.
        """
        from .reports.files import write_text

        if path is None and step_summary is None:
            return
        text = self.markdown()
        if path is not None:
            self.ci_notes.append(f"Markdown summary: {write_text(path, text)}")
        if step_summary is not None:
            try:
                write_text(step_summary, text, append=True)
            except OSError as exc:
                self.ci_notes.append(f"WARNING: could not append to $GITHUB_STEP_SUMMARY "
                                     f"({step_summary}): {exc}")

    def pr_comment(self, html: str | Path | None = None) -> str:
        """The Markdown of the sticky pull-request comment (``reports.pr_comment``);
        ``html``: the HTML report's path, named in the pointer to the details."""
        from .reports.pr_comment import pr_comment, run_page_url

        return pr_comment(self.results, self.summary(), self.judges(), self.failures,
                          self.comparison, verdict=self.run_verdict(),
                          html_report=str(html) if html else None, run_url=run_page_url())

    def write_pr_comment(self, path: str | Path, html: str | Path | None = None) -> Path:
        """Write the pull-request comment to ``path``; returns the path.

        Raises:
            OSError: ``path`` cannot be written.
        """
        from .reports.files import write_text

        written = write_text(path, self.pr_comment(html))
        self.ci_notes.append(f"pull-request comment: {written}")
        return written

    def write_html(self, path: str | Path) -> Path:
        """Write the HTML report to ``path``; returns the path.

        Raises:
            OSError: ``path`` cannot be written.
        """
        from .reports.html import write_html

        written = write_html(path, self.html())
        self.ci_notes.append(f"HTML report: {written}")
        return written

    def write_outputs(self, *, markdown: str | Path | None = None,
                      step_summary: str | Path | None = None, html: str | Path | None = None,
                      storage: str | Path | None = None, save_name: str | None = None,
                      git: Any = None, pr_comment: str | Path | None = None) -> list[str]:
        """Write every configured output, each on its own: the JSON report (``report_path``),
        the Markdown summary, the HTML report, the pull-request comment (``pr_comment``,
        ``reports.pr_comment``), the saved run (``save_name`` in ``storage``;
        never a run that judged no answer: a note says so), then the ``$GITHUB_STEP_SUMMARY``
        append. Each is written even when no answer was judged. One that fails (any exception) never stops
        the others: its reason becomes a gate failure (``could not write the HTML report
        (PATH): ...``), its temporary file is removed, and the reports already written are
        written again so that they show the failure too. Every report is written atomically
        (a temporary file in its folder, then renamed over it); a report that cannot be
        written (a full disk) is removed rather than left as it was (an earlier run's, or
        this run's before the failure: one that may say the gate passed).

        Returns:
            the reasons of the outputs that failed (also added to ``failures``).
        """
        jobs: list[tuple[str, Any, Any, bool]] = []
        if self.report_path is not None:
            jobs.append(("JSON report", self.report_path, self.write_report, True))
        if markdown:
            jobs.append(("Markdown summary", markdown, lambda: self.write_markdown(markdown), True))
        if html:
            jobs.append(("HTML report", html, lambda: self.write_html(html), True))
        if pr_comment:
            jobs.append(("pull-request comment", pr_comment,
                         lambda: self.write_pr_comment(pr_comment, html), True))
        if save_name and not self.results:
            self.ci_notes.append(f"WARNING: run not saved as {save_name!r}: no answer was "
                                 "judged, and an empty run is never a baseline")
        elif save_name:
            jobs.append(("saved run", storage,
                         lambda: self.save_run(storage or ".faithfulness", save_name, git), False))
        failed: list[str] = []
        written: list[tuple[str, Any, Any, bool]] = []
        for job in jobs:
            reason = _attempt(*job[:3], stale=job[3])
            if reason is None:
                written.append(job)
            else:
                failed.append(reason)
        if failed:
            self.add_failures(failed)
            notes = list(self.ci_notes)
            for what, where, write, rewritable in written:
                if rewritable:
                    reason = _attempt(what, where, write, stale=True)
                    if reason is not None:
                        self.add_failures([reason])
                        failed.append(reason)
            self.ci_notes[:] = notes
        if step_summary:
            try:
                self.write_markdown(None, step_summary)
            except Exception as exc:  # noted, never a gate failure: it is GitHub's page
                self.ci_notes.append(f"WARNING: could not append to $GITHUB_STEP_SUMMARY "
                                     f"({step_summary}): {type(exc).__name__}: {exc}")
        return failed

    # calibration ----------------------------------------------------------------------------
    def record_calibration(self, outcome: Any, judge: Any = None) -> None:
        """Keep one calibration outcome (``calibration.Outcome``)."""
        with self._lock:
            self.calibration.append(outcome)
            if judge is not None:
                self._judges[id(judge)] = judge

    def calibration_report(self) -> Any:
        """The ``calibration.CalibrationReport`` of the recorded outcomes, or ``None``."""
        if not self.calibration:
            return None
        from .calibration import report

        return report(sorted(self.calibration, key=lambda o: o.id))

    def evaluate_calibration_gate(self, min_agreement: float | None) -> list[str]:
        """Add the calibration gate's failures (errors always; agreement below the minimum)."""
        found = self.calibration_report()
        if found is None:
            return self.failures
        from .calibration import agreement

        if found.errors:
            self.failures.append(f"{len(found.errors)} calibration record(s) errored: a judge "
                                 "failure is never counted as agreement")
        value = agreement(found)
        if min_agreement is not None:
            if value is None:
                self.failures.append("calibration agreement is undefined (a class is missing "
                                     "from the labels or every record errored)")
            elif value < min_agreement:
                self.failures.append(f"judge agreement with human labels (balanced accuracy) "
                                     f"{value:.3f} < min agreement {min_agreement:.3f}")
        return self.failures

    def calibration_lines(self) -> list[str]:
        """The calibration report as terminal lines."""
        from .calibration import format_report

        return [f"judge: {j}" for j in self.judges()] + format_report(self.calibration_report())


def _attempt(what: str, where: Any, write: Any, *, stale: bool = False) -> str | None:
    """Run one output's ``write``; on any exception remove its temporary file and, with
    ``stale`` (a report file, not the storage folder), the file already at ``where``: an
    earlier version of the report must not be left behind saying something this run did not
    (the gate passed). Returns the reason (``None`` when it was written)."""
    try:
        write()
        return None
    except Exception as exc:  # one failing output never stops the others
        reason = f"could not write the {what} ({where}): {type(exc).__name__}: {exc}"
        if where is not None:
            target = Path(where)
            try:
                target.with_name(target.name + ".tmp").unlink(missing_ok=True)
            except (OSError, ValueError):
                pass
            if stale:
                try:  # removing a file needs no space, so this works on a full disk
                    if target.is_file() or target.is_symlink():
                        target.unlink()
                        reason += "; the earlier file there was removed"
                except OSError as gone:
                    reason += (f"; the earlier file there could not be removed ({gone}): "
                               "do not trust it")
        return reason
