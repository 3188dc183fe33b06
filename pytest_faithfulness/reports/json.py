"""The JSON report: every answer, claim and verdict, with the summary and the gate. Texts are
kept exactly as recorded (no sanitising here: the JSON is the record; ``files.json_text``
makes any text, lone surrogates included, valid UTF-8 JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..records import AnswerResult, SessionSummary
from .files import write_json
from .verdict import (
    answer_name,
    failing_answers,
    run_verdict,
    thresholds_of_gate,
    unscored_answers,
)

REPORT_SCHEMA = "pytest-faithfulness-report-1"

__all__ = ["REPORT_SCHEMA", "json_report", "write_json"]


def json_report(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                failures: list[str], gate: dict[str, Any], *, incomplete: str | None = None,
                thresholds: Sequence[tuple[str, str]] | None = None,
                unscored: Sequence[AnswerResult] | None = None,
                failing: Sequence[AnswerResult] | None = None,
                silent: Sequence[AnswerResult] = (),
                expected: Sequence[AnswerResult] = (),
                exit_failed: bool | None = None) -> dict[str, Any]:
    """Everything, every claim and verdict, as a JSON-ready dict.

    ``gate`` holds the session thresholds (``GateConfig.model_dump``) and gains: ``status``
    (``"passed" | "failed" | "incomplete"``, the session gate alone), ``passed`` (false when
    the gate failed or the run is incomplete), ``incomplete`` (the reason, or ``None``),
    ``failures``, ``thresholds`` (``[[name, value], ...]`` as applied), ``verdict`` (the
    run's verdict in words) and the test ids of the ``unscored`` answers and of those
    ``failing`` their own thresholds. Each answer carries its record (claims with their
    ``spans`` as ``[[start, end], ...]`` into the answer, ``citation`` and ``cited_ids``) and
    its figures, ``citation_precision`` and ``misattributed`` among them. ``thresholds``, ``unscored`` and ``failing`` default to
    what ``gate`` and ``results`` say; ``silent`` and ``expected`` (of ``failing``, those whose
    tests did not fail, and those of ``xfail`` tests) word the verdict, and so does
    ``exit_failed`` (whether pytest's exit status says the run failed, when known): ``gate``
    also gains ``run_status``, the run's own outcome (``"failed"`` when the session gate
    passed but tests failed).
    """
    unscored = unscored_answers(results) if unscored is None else list(unscored)
    failing = failing_answers(results) if failing is None else list(failing)
    if thresholds is None:
        thresholds = thresholds_of_gate(gate)
    verdict = run_verdict(failures, incomplete=incomplete, failing=failing, unscored=unscored,
                           silent=silent, expected=expected, exit_failed=exit_failed)
    index = {id(r): i for i, r in enumerate(results, start=1)}
    answers = []
    for r in results:
        data = r.model_dump(mode="json")
        data.update(score=r.score, supported=r.supported, contradicted=r.contradicted,
                    unsupported=r.unsupported, passed=r.passed,
                    threshold_failures=r.threshold_failures,
                    citation_precision=r.citation_precision, misattributed=r.misattributed)
        answers.append(data)
    return {"schema": REPORT_SCHEMA, "judges": judges, "summary": summary.model_dump(mode="json"),
            "gate": {**gate, "status": verdict.gate, "passed": verdict.gate == "passed",
                     "incomplete": incomplete, "failures": list(failures),
                     "thresholds": [list(t) for t in thresholds],
                     "unscored": [answer_name(r, index.get(id(r))) for r in unscored],
                     "failing_own_thresholds": [answer_name(r, index.get(id(r)))
                                                for r in failing],
                     "verdict": verdict.text, "run_status": verdict.status},
            "answers": answers}
