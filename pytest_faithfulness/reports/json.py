"""The JSON report: every answer, claim and verdict, with the summary and the gate."""

from __future__ import annotations

from typing import Any

from ..records import AnswerResult, SessionSummary
from .files import write_json

REPORT_SCHEMA = "pytest-faithfulness-report-1"

__all__ = ["REPORT_SCHEMA", "json_report", "write_json"]


def json_report(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                failures: list[str], gate: dict[str, Any]) -> dict[str, Any]:
    """Everything, every claim and verdict, as a JSON-ready dict."""
    answers = []
    for r in results:
        data = r.model_dump(mode="json")
        data.update(score=r.score, supported=r.supported, contradicted=r.contradicted,
                    unsupported=r.unsupported, passed=r.passed,
                    threshold_failures=r.threshold_failures)
        answers.append(data)
    return {"schema": REPORT_SCHEMA, "judges": judges, "summary": summary.model_dump(mode="json"),
            "gate": {**gate, "passed": not failures, "failures": failures}, "answers": answers}
