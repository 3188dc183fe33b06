"""The JSON report: every answer, claim and verdict, with the summary and the gate. Texts are
kept exactly as recorded (no sanitising here: the JSON is the record; ``files.json_text``
makes any text, lone surrogates included, valid UTF-8 JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..records import AnswerResult, SessionSummary
from .files import write_json
from .unverified import unverified_answers
from .verdict import thresholds_of_gate

if TYPE_CHECKING:  # pragma: no cover
    from ..run.outcome import RunOutcome

REPORT_SCHEMA = "pytest-faithfulness-report-1"

__all__ = ["REPORT_SCHEMA", "json_of", "json_report", "write_json"]


def json_report(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                failures: list[str], gate: dict[str, Any], *, incomplete: str | None = None,
                thresholds: Sequence[tuple[str, str]] | None = None,
                unscored: Sequence[AnswerResult] | None = None,
                failing: Sequence[AnswerResult] | None = None,
                silent: Sequence[AnswerResult] = (),
                expected: Sequence[AnswerResult] = (),
                exit_failed: bool | None = None) -> dict[str, Any]:
    """``json_of`` for loose values (see ``run.outcome.RunOutcome.of``): ``gate`` holds the
    session thresholds (``GateConfig.model_dump``); ``thresholds`` defaults to what ``gate``
    says, ``unscored`` and ``failing`` to what ``results`` say."""
    from ..run.outcome import RunOutcome

    if thresholds is None:
        thresholds = thresholds_of_gate(gate)
    return json_of(RunOutcome.of(results, summary, judges, failures, gate=gate,
                                 incomplete=incomplete, thresholds=thresholds,
                                 unscored=unscored, failing=failing, silent=silent,
                                 expected=expected, exit_failed=exit_failed))


def json_of(outcome: RunOutcome) -> dict[str, Any]:
    """Everything, every claim and verdict, as a JSON-ready dict (``outcome``: the
    ``run.outcome.RunOutcome``).

    ``gate`` holds the session thresholds (``outcome.gate``) and gains: ``status``
    (``"passed" | "failed" | "incomplete"``, the session gate alone), ``passed`` (false when
    the gate failed or the run is incomplete), ``incomplete`` (the reason, or ``None``),
    ``complete`` and ``incomplete_reason``, ``failures``, ``thresholds`` (``[[name, value],
    ...]`` as applied), ``verdict`` (the run's verdict in words), ``run_status`` (the run's
    own outcome: ``"failed"`` when the session gate passed but tests failed) and the names of
    the ``unscored`` answers and of those ``failing_own_thresholds``. Each answer carries its
    record (claims with their ``spans`` as ``[[start, end], ...]`` into the answer,
    ``citation`` and ``cited_ids``) and its figures, ``citation_precision`` and
    ``misattributed`` among them. The report also holds ``verdict``
    (``RunOutcome.verdict_data``) and, when made, ``calibration``, ``comparison``,
    ``canaries`` (the judge canaries: ``canary_report.CanaryReport``) and ``golden`` (the
    golden answers and tests: ``run.golden.GoldenReport.to_json``).
    """
    verdict = outcome.verdict()
    answers = []
    for r in outcome.results:
        data = r.model_dump(mode="json")
        data.update(score=r.score, supported=r.supported, contradicted=r.contradicted,
                    unsupported=r.unsupported, passed=r.passed,
                    threshold_failures=r.threshold_failures,
                    citation_precision=r.citation_precision, misattributed=r.misattributed)
        answers.append(data)
    report: dict[str, Any] = {
        "schema": REPORT_SCHEMA, "judges": list(outcome.judges),
        "summary": outcome.summary.model_dump(mode="json"),
        "gate": {**outcome.gate, "status": verdict.gate, "passed": verdict.gate == "passed",
                 "incomplete": outcome.incomplete, "failures": list(outcome.failures),
                 "thresholds": [list(t) for t in outcome.thresholds or []],
                 "unscored": [outcome.name_of(r) for r in outcome.unscored],
                 "unverified": [outcome.name_of(r) for r in unverified_answers(outcome.results)],
                 "failing_own_thresholds": [outcome.name_of(r) for r in outcome.failing],
                 "verdict": verdict.text, "run_status": verdict.status,
                 "complete": outcome.incomplete is None,
                 "incomplete_reason": outcome.incomplete},
        "answers": answers}
    report["verdict"] = outcome.verdict_data()
    if outcome.calibration is not None:
        report["calibration"] = outcome.calibration.model_dump(mode="json")
    if outcome.comparison is not None:
        report["comparison"] = outcome.comparison.model_dump(mode="json")
    if outcome.canaries is not None:
        report["canaries"] = outcome.canaries.model_dump(mode="json")
    if outcome.golden is not None:  # golden answers and tests (run.golden.GoldenReport)
        report["golden"] = outcome.golden.to_json()
    return report
