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
from .judges import judge_description
from .records import AnswerResult, SessionSummary
from .report import json_report, summary_lines, write_json


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
        self._judges: dict[int, Any] = {}
        self._merged_judges: list[str] = []
        self._lock = threading.Lock()
        self.failures: list[str] = []

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
        return json_report(self.results, self.summary(), self.judges(), self.failures,
                           self.gate.model_dump(mode="json"))

    def write_report(self) -> Path | None:
        """Write the JSON report if a path was configured."""
        if self.report_path is None:
            return None
        return write_json(self.report_path, self.report())

    def terminal_lines(self) -> list[str]:
        """Headline figures, the gate and every failing answer's per-claim report."""
        from .report import format_answer

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
            "judges": self.judges(),
        })

    def merge_payload(self, payload: str) -> None:
        """Add a worker's payload (from ``to_payload``) to this session."""
        data = json.loads(payload)
        with self._lock:
            self.results.extend(AnswerResult.model_validate(r) for r in data["results"])
            self._merged_judges.extend(data.get("judges", []))
