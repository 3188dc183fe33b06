"""The terminal report: per-claim text of an answer, the headline figures and the gate, and
the comparison with a saved run. Plain text lines; nothing here imports pytest."""

from __future__ import annotations

from typing import Any

from ..records import AnswerResult, SessionSummary
from .figures import fmt as _fmt
from .figures import format_change, format_figure, short

_MARK = {"supported": "ok", "contradicted": "CONTRADICTED", "unsupported": "UNSUPPORTED",
         None: "NO VERDICT"}



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
        lines.append(f"  not scored (non-assertive): {' | '.join(d.text for d in result.dropped)}")
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


def comparison_lines(comparison: Any) -> list[str]:
    """The comparison as plain text lines for the terminal (warnings start with ``WARNING``)."""
    lines = [f"compared with {comparison.baseline_label}"
             + (f" [{comparison.baseline_path}]" if comparison.baseline_path else "")]
    lines += [f"WARNING: {w}" for w in comparison.warnings]
    lines.append(f"  {'figure':<46} {'baseline':>9} {'this run':>9} {'change':>8}")
    for row in comparison.figures:
        flag = "  (worse)" if row.regressed else ""
        before, after = format_figure(row.before, row.key), format_figure(row.after, row.key)
        lines.append(f"  {row.label:<46} {before:>9} {after:>9} "
                     f"{format_change(row.delta, row.key):>8}{flag}")
    lines.append(f"claims that became unsupported or contradicted: {comparison.worsened}; "
                 f"recovered: {comparison.recovered}")
    for change in comparison.answers:
        score = (f"{format_figure(change.before_score, 'mean_faithfulness')} -> "
                 f"{format_figure(change.after_score, 'mean_faithfulness')}")
        status = "" if change.before_status == change.after_status else \
            f" [{change.before_status} -> {change.after_status}]"
        lines.append(f"  {change.test_id}: faithfulness {score}{status}")
        for c in change.worsened:
            lines.append(f"    - now {c.after.upper()} (was {c.before}): {short(c.text)}")
        for c in change.relabelled:
            lines.append(f"    ~ now {c.after} (was {c.before}): {short(c.text)}")
        for c in change.recovered:
            now = "no longer claimed" if c.after == "absent" else f"now {c.after}"
            lines.append(f"    + {now} (was {c.before}): {short(c.text)}")
    for test_id in comparison.added:
        lines.append(f"  added: {test_id}")
    for test_id in comparison.removed:
        lines.append(f"  removed: {test_id}")
    lines += [f"REGRESSION: {f}" for f in comparison.failures]
    return lines
