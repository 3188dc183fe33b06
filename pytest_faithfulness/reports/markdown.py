"""The Markdown summary (``--faithfulness-markdown`` and ``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

import re
from typing import Any

from ..records import AnswerResult, SessionSummary
from .figures import fmt as _fmt
from .figures import format_change, format_figure

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
    run (a ``runs.compare.Comparison``, or ``None``), and every claim that is not supported as a
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
