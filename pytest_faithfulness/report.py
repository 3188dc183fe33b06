"""Reports: the per-claim text report and the JSON report."""

from __future__ import annotations

import json
import os
import re
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


# --------------------------------------------------------------------------------------------
# JUnit properties and the Markdown summary (CI).

def junit_properties(result: AnswerResult, index: int = 1) -> list[tuple[str, str]]:
    """``(name, value)`` pairs for a test's JUnit ``<properties>`` (``item.user_properties``).

    Names: ``faithfulness_score`` (``0.600``, or ``n/a`` when unscored or errored),
    ``faithfulness_status``, ``faithfulness_claims``, ``faithfulness_supported``,
    ``faithfulness_contradicted``, ``faithfulness_unsupported``, ``faithfulness_passed``
    (``true``/``false``) and ``faithfulness_judge``. The ``index``-th answer of one test
    (``index > 1``) gets the suffix ``_<index>`` on every name.
    """
    suffix = "" if index <= 1 else f"_{index}"
    score = result.score
    pairs = [
        ("score", "n/a" if score is None else f"{score:.3f}"),
        ("status", result.status),
        ("claims", str(len(result.claims))),
        ("supported", str(result.supported)),
        ("contradicted", str(result.contradicted)),
        ("unsupported", str(result.unsupported)),
        ("passed", "true" if result.passed else "false"),
        ("judge", result.judge or "unknown"),
    ]
    return [(f"faithfulness_{name}{suffix}", value) for name, value in pairs]


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def md_escape(text: Any, limit: int | None = 300) -> str:
    """``text`` as inert Markdown table-cell text: HTML-escaped (``&``, ``<``, ``>``), the
    characters that make emphasis, code, links and cells (``\\ ` * _ [ ] | ~``)
    backslash-escaped, newlines folded to spaces, cut to ``limit`` characters."""
    text = " ".join(str("" if text is None else text).split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_summary(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                     failures: list[str], comparison: Any = None, *,
                     max_rows: int = 200) -> str:
    """The run as GitHub-flavoured Markdown (for ``--faithfulness-markdown`` and
    ``$GITHUB_STEP_SUMMARY``): the gate, the headline figures, the comparison with a saved
    run (a ``baseline.Comparison``, or ``None``), and every claim that is not supported as a
    table (at most ``max_rows`` rows; the rest are counted). All untrusted text is escaped.
    """
    ok = not failures
    lines = [f"## Faithfulness: {'✅ gate passed' if ok else '❌ gate failed'}", ""]
    lines += [f"judge: {md_escape(j)}  " for j in judges]
    lines += ["",
              "| mean faithfulness | answers | scored | unscored | errored | answers with a claim "
              "not supported | claims | supported | contradicted | unsupported |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
              f"| **{_fmt(summary.mean_faithfulness)}** | {summary.answers} | {summary.scored} | "
              f"{summary.unscored} | {summary.errored} | "
              + ("n/a" if summary.unsupported_answer_rate is None
                 else f"{summary.unsupported_answer_rate:.1%}")
              + f" | {summary.claims} | {summary.supported} | {summary.contradicted} | "
              f"{summary.unsupported} |", ""]
    if failures:
        lines.append("**Gate failed:**")
        lines += [f"- {md_escape(f, None)}" for f in failures]
        lines.append("")
    if comparison is not None:
        lines += _markdown_comparison(comparison, max_rows)
    rows = []
    for r in results:
        if r.status == "error":
            rows.append((r, None))
        rows += [(r, c) for c in r.claims if not c.supported]
    lines.append(f"### Claims that are not supported ({sum(1 for _, c in rows if c)})")
    lines.append("")
    if rows:
        lines += ["| test | faithfulness | verdict | claim | passage | quote |",
                  "|---|---:|---|---|---|---|"]
        for r, c in rows[:max_rows]:
            if c is None:
                lines.append(f"| {md_escape(r.test_id or 'answer')} | n/a | **error** | "
                             f"{md_escape(r.error)} | | |")
                continue
            v = c.verdict
            label = {"contradicted": "**contradicted**"}.get(c.label or "", c.label or "no verdict")
            lines.append(f"| {md_escape(r.test_id or 'answer')} | {_fmt(r.score)} | {label} | "
                         f"{md_escape(c.text)} | {md_escape(', '.join(v.passage_ids) if v else '')}"
                         f" | {md_escape(v.quote if v else '')} |")
        if len(rows) > max_rows:
            lines.append(f"\n…and {len(rows) - max_rows} more (see the HTML or JSON report).")
    else:
        lines.append("Every claim is supported.")
    lines.append("")
    return "\n".join(lines)


def _markdown_comparison(comparison: Any, max_rows: int) -> list[str]:
    from .baseline import format_change, format_figure

    lines = [f"### Compared with {md_escape(comparison.baseline_label, None)}", ""]
    lines += [f"> ⚠️ **WARNING:** {md_escape(w, None)}" for w in comparison.warnings]
    if comparison.warnings:
        lines.append("")
    lines += ["| figure | baseline | this run | change |", "|---|---:|---:|---:|"]
    for row in comparison.figures:
        change = md_escape(format_change(row.delta, row.key), None)
        if row.regressed:
            change = f"**{change}** 🔻"
        lines.append(f"| {row.label} | {format_figure(row.before, row.key)} | "
                     f"{format_figure(row.after, row.key)} | {change} |")
    lines += ["", f"Claims that became unsupported or contradicted: **{comparison.worsened}**; "
              f"recovered: **{comparison.recovered}**.", ""]
    if comparison.answers:
        lines += ["<details><summary>" + f"{len(comparison.answers)} answer(s) changed"
                  + "</summary>", "",
                  "| test | faithfulness | became unsupported or contradicted | recovered |",
                  "|---|---|---|---|"]
        for ch in comparison.answers[:max_rows]:
            worse = "<br>".join(f"{md_escape(c.after)} (was {md_escape(c.before)}): "
                                f"{md_escape(c.text, 160)}" for c in ch.worsened + ch.relabelled)
            better = "<br>".join(f"{md_escape(c.after)} (was {md_escape(c.before)}): "
                                 f"{md_escape(c.text, 160)}" for c in ch.recovered)
            lines.append(f"| {md_escape(ch.test_id)} | "
                         f"{format_figure(ch.before_score, 'mean_faithfulness')} → "
                         f"{format_figure(ch.after_score, 'mean_faithfulness')} | {worse} | "
                         f"{better} |")
        lines += ["", "</details>", ""]
    if comparison.added:
        lines.append("Added: " + ", ".join(md_escape(t) for t in comparison.added[:max_rows]))
    if comparison.removed:
        lines.append("Removed: " + ", ".join(md_escape(t) for t in comparison.removed[:max_rows]))
    if comparison.added or comparison.removed:
        lines.append("")
    return lines


def write_text(path: str | Path, text: str, *, append: bool = False) -> Path:
    """Write (or append) ``text`` to ``path`` as UTF-8, creating parent folders; returns it.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as fh:
        if append and path.exists() and path.stat().st_size:
            fh.write("\n")
        fh.write(text)
    return path
