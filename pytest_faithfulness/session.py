"""The session object: owns every ``AnswerResult`` of a run, its judges' counters and the gate.

It knows nothing of pytest, so the same object can aggregate results from a script. Under
pytest-xdist each worker's session is sent to the controller as a JSON payload
(``to_payload`` / ``merge_payload``) so the gate sees every verdict.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from .gate import GateConfig, gate_failures
from .judges.protocol import judge_description
from .records import AnswerResult, SessionSummary
from .reports.json import json_report, write_json
from .reports.terminal import summary_lines


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

    def record(self, result: AnswerResult, judge: Any = None) -> None:
        """Keep one answer result (and remember the judge for its counters)."""
        with self._lock:
            self.results.append(result)
            if judge is not None:
                self._judges[id(judge)] = judge

    def judges(self) -> list[str]:
        """Descriptions of the judges that produced the results."""
        names = [judge_description(j) for j in self._judges.values()] + self._merged_judges
        return list(dict.fromkeys(names))

    def summary(self) -> SessionSummary:
        """The session metrics over every result so far."""
        return SessionSummary.of(self.results)

    def evaluate_gate(self) -> list[str]:
        """Apply the gate; stores and returns the reasons it fails (empty: passes)."""
        self.failures = gate_failures(self.summary(), self.results, self.gate)
        return self.failures

    def report(self) -> dict[str, Any]:
        """The JSON report of the run."""
        data = json_report(self.results, self.summary(), self.judges(), self.failures,
                           self.gate.model_dump(mode="json"))
        calibration = self.calibration_report()
        if calibration is not None:
            data["calibration"] = calibration.model_dump(mode="json")
        return data

    def write_report(self) -> Path | None:
        """Write the JSON report if a path was configured."""
        if self.report_path is None:
            return None
        return write_json(self.report_path, self.report())

    def terminal_lines(self) -> list[str]:
        """Headline figures, the gate and every failing answer's per-claim report."""
        from .reports.terminal import format_answer

        lines = summary_lines(self.summary(), self.judges(), self.failures)
        failing = [r for r in self.results if not r.passed or r.not_supported]
        if failing:
            lines.append("")
            lines.append("answers with claims that are not supported, or that failed:")
            for r in failing:
                lines.append(format_answer(r, only_failing_claims=True))
        return lines

    # xdist ----------------------------------------------------------------------------------
    def to_payload(self) -> str:
        """This worker's results and counters as a JSON string."""
        return json.dumps({
            "results": [r.model_dump(mode="json") for r in self.results],
            "calibration": [o.model_dump(mode="json") for o in self.calibration],
            "judges": self.judges(),
            "judge_info": self._judge_info_dicts(),
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

    def saved_run(self, name: str, git: Any = None) -> Any:
        """This run as a ``runs.saved.SavedRun`` named ``name`` (``git``: a ``GitInfo``)."""
        from .runs.saved import SavedRun

        return SavedRun.of(self.results, self.summary(), name=name, judges=self.judge_info(),
                           git=git, gate_failures=self.failures)

    def save_run(self, storage: str | Path, name: str, git: Any = None) -> Path:
        """Save this run in the ``storage`` folder (``NNNN_<name>.json``); returns the path.

        Raises:
            ValueError: ``name`` has no usable character. OSError: the folder is not writable.
        """
        from .runs.saved import save_run

        path = save_run(self.saved_run(name, git), storage)
        self.ci_notes.append(f"saved run: {path}")
        return path

    def compare_with(self, baseline: Any, bounds: Any = (), *, baseline_path: Any = None,
                     git: Any = None) -> list[str]:
        """Compare this run with a saved one (``runs.saved.SavedRun``) and apply the compare-fail
        ``bounds`` (``runs.compare.CompareFail``); keeps the comparison in ``self.comparison``,
        adds the regressions to ``self.failures`` and returns them."""
        from .runs.compare import check_regressions, compare_runs

        self.comparison = compare_runs(baseline, self.saved_run("current", git),
                                       baseline_path=baseline_path)
        return self.add_failures(check_regressions(self.comparison, bounds))

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
                                self.comparison)

    def html(self) -> str:
        """The self-contained HTML report."""
        from .reports.html import render_html

        return render_html(self.results, self.summary(), self.judges(), self.failures,
                           self.comparison)

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

    def write_html(self, path: str | Path) -> Path:
        """Write the HTML report to ``path``; returns the path.

        Raises:
            OSError: ``path`` cannot be written.
        """
        from .reports.html import write_html

        written = write_html(path, self.html())
        self.ci_notes.append(f"HTML report: {written}")
        return written

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
