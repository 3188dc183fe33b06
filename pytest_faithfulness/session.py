"""``FaithfulnessSession``: a result store with the run's gate and reports on it, for scripts
and older callers.

The plugin and ``pytest-faithfulness merge`` use ``run.results.ResultStore`` and
``run.finish.finish_run`` directly; this class keeps the older one-object API (record, gate,
compare, write the reports) working over them: each method builds the ``run.outcome.RunOutcome``
of what is recorded so far (its failures, notes, comparison and misses kept here) and calls
the function of ``run.finish`` or ``run.outputs`` that does the work. Nothing here imports
pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .records import AnswerResult
from .run import finish as _finish
from .run import outputs as _outputs
from .run.finish import NOTHING_JUDGED
from .run.gate import GateConfig
from .run.outcome import RunOutcome
from .run.results import ResultStore

__all__ = ["NOTHING_JUDGED", "FaithfulnessSession"]


class FaithfulnessSession(ResultStore):
    """Every answer result of one run (``ResultStore``), and the gate and reports over them.

    Args:
        gate: the session thresholds.
        report_path: where ``write_report`` writes the JSON report, or ``None``.
    """

    def __init__(self, gate: GateConfig | None = None, report_path: str | Path | None = None):
        super().__init__()
        self.gate = gate or GateConfig()
        self.report_path = Path(report_path) if report_path else None
        self.failures: list[str] = []
        self.local_failures: list[str] = []
        self.comparison: Any = None
        self.ci_notes: list[str] = []
        self.exitstatus: int | None = None

    def outcome(self) -> RunOutcome:
        """The ``RunOutcome`` of what is recorded so far; its failures, local failures, notes
        and misses are this session's own lists (a gate applied to it is applied here)."""
        found = _finish.new_outcome(self, self.gate, self.report_path)
        found.failures, found.local_failures = self.failures, self.local_failures
        found.notes, found.comparison = self.ci_notes, self.comparison
        found.silent, found.expected = self.silent_misses, self.expected_misses
        found.exitstatus = self.exitstatus
        return found

    # the gate ---------------------------------------------------------------------------------
    @property
    def gate_status(self) -> str:
        """``"incomplete"``, ``"failed"`` or ``"passed"`` (``RunOutcome.gate_status``)."""
        return self.outcome().gate_status

    def add_failures(self, reasons: Any) -> list[str]:
        """Add gate failures (``RunOutcome.add_failures``); returns the reasons added."""
        return self.outcome().add_failures(reasons)

    def add_local_failures(self, reasons: Any) -> list[str]:
        """Add failures only this run can decide (``RunOutcome.add_local_failures``)."""
        return self.outcome().add_local_failures(reasons)

    def evaluate_gate(self, threshold_flags: Sequence[str] | None = None) -> list[str]:
        """Apply the session thresholds (``run.finish.apply_thresholds``), replacing any
        failures so far; returns the failures."""
        del self.failures[:]
        _finish.apply_thresholds(self.outcome(), self.gate, threshold_flags,
                                 judged=bool(self.calibration))
        return self.failures

    def evaluate_calibration_gate(self, min_agreement: float | None) -> list[str]:
        """Add the calibration gate's failures (``run.finish.apply_calibration_gate``)."""
        _finish.apply_calibration_gate(self.outcome(), min_agreement)
        return self.failures

    def fail_silent_misses(self, silent: list[AnswerResult],
                           expected: list[AnswerResult]) -> list[str]:
        """``run.finish.fail_silent_misses``; returns the reasons added."""
        found = self.outcome()
        added = _finish.fail_silent_misses(found, silent, expected)
        self.silent_misses, self.expected_misses = found.silent, found.expected
        return added

    def compare_with(self, baseline: Any, bounds: Any = (), *, baseline_path: Any = None,
                     git: Any = None, alpha: float | None = None) -> list[str]:
        """``run.finish.compare_with``: compare with a saved run; returns the regressions."""
        found = self.outcome()
        added = _finish.compare_with(self, found, baseline, bounds, baseline_path=baseline_path,
                                     git=git, alpha=alpha)
        self.comparison = found.comparison
        return added

    # what the reports read --------------------------------------------------------------------
    def answers_failing_own_thresholds(self) -> list[AnswerResult]:
        """The answers that missed their own thresholds (or errored), in recording order."""
        return self.outcome().failing

    def unscored_answers(self) -> list[AnswerResult]:
        """The answers with no claim to score (status ``unscored``), in recording order."""
        return self.outcome().unscored

    def thresholds_applied(self) -> list[tuple[str, str]]:
        """The session thresholds that applied, as ``(name, value)`` (``GateConfig.applied``)."""
        return self.gate.applied()

    def verdict(self) -> dict[str, Any]:
        """The verdict as JSON (``RunOutcome.verdict_data``)."""
        return self.outcome().verdict_data()

    def run_verdict(self, *, exit_failed: bool | None = None,
                    incomplete: str | None = None) -> Any:
        """The run's ``reports.verdict.RunVerdict`` (``RunOutcome.verdict``)."""
        return self.outcome().verdict(exit_failed=exit_failed, incomplete=incomplete)

    def report(self) -> dict[str, Any]:
        """The JSON report of the run (``reports.json.json_of``)."""
        from .reports.json import json_of

        return json_of(self.outcome())

    def terminal_lines(self, *, verbose: bool = False,
                       reported: Sequence[AnswerResult] = ()) -> list[str]:
        """The terminal section's body (``reports.terminal.outcome_lines``)."""
        from .reports.terminal import outcome_lines

        return outcome_lines(self.outcome(), verbose=verbose, reported=reported)

    def comparison_lines(self) -> list[str]:
        """The comparison with the saved run as terminal lines (empty when none was made)."""
        from .reports.terminal import comparison_lines

        return comparison_lines(self.comparison) if self.comparison is not None else []

    def calibration_lines(self) -> list[str]:
        """The calibration report as terminal lines."""
        from .reports.terminal import calibration_section

        return calibration_section(self.outcome())

    def markdown(self) -> str:
        """The Markdown summary (``reports.markdown.markdown_of``)."""
        from .reports.markdown import markdown_of

        return markdown_of(self.outcome())

    def html(self) -> str:
        """The self-contained HTML report (``reports.html.html_of``)."""
        from .reports.html import html_of

        return html_of(self.outcome())

    def pr_comment(self, html: str | Path | None = None) -> str:
        """The sticky pull-request comment (``reports.pr_comment.pr_comment_of``)."""
        from .reports.pr_comment import pr_comment_of, run_page_url

        return pr_comment_of(self.outcome(), html_report=str(html) if html else None,
                             run_url=run_page_url())

    # the outputs ------------------------------------------------------------------------------
    def write_report(self) -> Path | None:
        """Write the JSON report if a path was configured (``run.outputs.write_report``)."""
        return _outputs.write_report(self.outcome())

    def write_markdown(self, path: str | Path | None = None,
                       step_summary: str | Path | None = None) -> None:
        """``run.outputs.write_markdown``.

        Raises:
            OSError: ``path`` cannot be written.
        """
        _outputs.write_markdown(self.outcome(), path, step_summary)

    def write_html(self, path: str | Path) -> Path:
        """``run.outputs.write_html``; returns the path.

        Raises:
            OSError: ``path`` cannot be written.
        """
        return _outputs.write_html(self.outcome(), path)

    def write_pr_comment(self, path: str | Path, html: str | Path | None = None) -> Path:
        """``run.outputs.write_pr_comment``; returns the path.

        Raises:
            OSError: ``path`` cannot be written.
        """
        return _outputs.write_pr_comment(self.outcome(), path, html)

    def saved_run(self, name: str, git: Any = None, *, full: bool = True) -> Any:
        """This run as a ``runs.saved.SavedRun`` (``run.outputs.saved_run``)."""
        return _outputs.saved_run(self, self.outcome(), name, git, full=full)

    def save_run(self, storage: str | Path, name: str, git: Any = None) -> Path:
        """``run.outputs.save_run``; returns the path.

        Raises:
            ValueError: ``name`` has no usable character. OSError: the folder is not writable.
        """
        return _outputs.save_run(self, self.outcome(), storage, name, git)

    def write_outputs(self, *, markdown: str | Path | None = None,
                      step_summary: str | Path | None = None, html: str | Path | None = None,
                      storage: str | Path | None = None, save_name: str | None = None,
                      git: Any = None, pr_comment: str | Path | None = None) -> list[str]:
        """``run.outputs.write_outputs``; returns the reasons of the outputs that failed."""
        return _outputs.write_outputs(self, self.outcome(), _outputs.OutputFiles(
            markdown=markdown, html=html, pr_comment=pr_comment, step_summary=step_summary,
            storage=storage, save_name=save_name, git=git))
