"""Reports: the per-claim text report and the JSON report."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .records import AnswerResult, SessionSummary

REPORT_SCHEMA = "pytest-faithfulness-report-1"

_MARK = {"supported": "ok", "contradicted": "CONTRADICTED", "unsupported": "UNSUPPORTED",
         None: "NO VERDICT"}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def format_answer(result: AnswerResult, *, only_failing_claims: bool = False) -> str:
    """The per-claim report of one answer, as plain text lines.

    Each claim shows its verdict, cited passage id(s) and quote; a verdict the pipeline did
    not accept as given shows the judge's own label and the reason.
    """
    head = result.test_id or "answer"
    lines = [f"{head}: faithfulness {_fmt(result.score)} ({result.status}; "
             f"{result.supported}/{len(result.claims)} claims supported, "
             f"{result.contradicted} contradicted, {result.unsupported} unsupported)"]
    for reason in result.threshold_failures:
        lines.append(f"  FAILED: {reason}")
    for warning in result.warnings:
        lines.append(f"  warning: {warning}")
    for i, claim in enumerate(result.claims, start=1):
        if only_failing_claims and claim.supported:
            continue
        verdict = claim.verdict
        lines.append(f"  [{i}] {_MARK.get(claim.label, claim.label)}: {claim.text}")
        if verdict is not None and verdict.passage_ids:
            quote = f' "{verdict.quote}"' if verdict.quote else ""
            lines.append(f"      passage {', '.join(verdict.passage_ids)}:{quote}")
        if claim.note:
            lines.append(f"      note: {claim.note}")
        if claim.judge_verdict is not None:
            lines.append(f"      judge said {claim.judge_verdict.label} "
                         f"(passages {', '.join(claim.judge_verdict.passage_ids) or '-'})")
    if result.dropped and not only_failing_claims:
        lines.append(f"  not scored (non-assertive): {' | '.join(result.dropped)}")
    return "\n".join(lines)


def summary_lines(summary: SessionSummary, judges: list[str], failures: list[str]) -> list[str]:
    """The headline figures and the gate's outcome."""
    lines = [f"judge: {j}" for j in judges]
    lines += [
        f"answers: {summary.answers} ({summary.scored} scored, {summary.unscored} unscored, "
        f"{summary.errored} errored)",
        f"mean faithfulness: {_fmt(summary.mean_faithfulness)}",
        "answers with an unsupported or contradicted claim: "
        + ("n/a" if summary.unsupported_answer_rate is None
           else f"{summary.unsupported_answer_rate:.1%}"),
        f"claims: {summary.claims} ({summary.supported} supported, {summary.contradicted} "
        f"contradicted, {summary.unsupported} unsupported)",
        f"judge calls: {summary.judge_calls}, cache hits: {summary.cache_hits}",
    ]
    usage = summary.usage
    if usage.input_tokens or usage.output_tokens or usage.cost_usd:
        unpriced = f" ({usage.uncosted_calls} call(s) not in the price map)" if usage.uncosted_calls else ""
        lines.append(f"tokens: {usage.input_tokens} input ({usage.cached_input_tokens} from the "
                     f"provider's prompt cache), {usage.output_tokens} output; cost "
                     f"${usage.cost_usd:.4f}{unpriced}")
    if failures:
        lines += [f"GATE FAILED: {reason}" for reason in failures]
    else:
        lines.append("gate: passed")
    return lines


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


def write_json(path: str | Path, report: dict[str, Any]) -> Path:
    """Write the report atomically (a temporary file then rename); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path
