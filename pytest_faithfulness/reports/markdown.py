"""The Markdown summary (``--faithfulness-markdown`` and ``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..records import AnswerResult, ClaimResult, SessionSummary
from . import unverified
from .figures import fmt as _fmt
from .figures import format_change, format_figure
from .spans import citation_text, sentence_text, turn_text
from .terminal import citation_lines, usage_text
from .text import printable
from .verdict import answer_name, thresholds_text

if TYPE_CHECKING:  # pragma: no cover
    from ..run.outcome import RunOutcome

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_MENTION = re.compile(r"@(?=[\w-])")
#: Where GitHub's autolinking starts, each the place for a zero-width space: after any URL
#: scheme (``https://``, ``ftp://``), after ``www`` before its dot, after ``#`` before an
#: issue number (``#12``, ``owner/repo#12``) and after ``GH-`` before one.
_LIVE = [re.compile(r"(?<=[A-Za-z0-9])(?=://)"),
         re.compile(r"(?i)(?<=\bwww)(?=\.)"),
         re.compile(r"(?<=#)(?=\d)"),
         re.compile(r"(?i)(?<=\bgh-)(?=\d)")]


def md_escape(text: Any, limit: int | None = 300) -> str:
    """``text`` as inert Markdown table-cell text: sanitised (``text.printable``: controls,
    bidirectional and invisible characters shown as escapes), HTML-escaped (``&``, ``<``,
    ``>``), the characters that make emphasis, code, links and cells (``\\ ` * _ [ ] | ~``)
    backslash-escaped, newlines folded to spaces, cut to ``limit`` characters. What GitHub
    would turn into a live link or a notification gets a zero-width space (U+200B) inside,
    so the text reads the same but acts on nothing: an ``@`` before a name (quoted text
    "ask @security-team" never mentions, and notifies, anyone), a bare URL's scheme
    (``https\u200b://``) and ``www\u200b.``, and an issue or pull-request reference
    (``#\u200b12``, ``owner/repo#\u200b12``, ``GH-\u200b12``), which would otherwise link
    to, and leave a back-reference in, another issue."""
    text = " ".join(printable(text).split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    for pattern in _LIVE:
        text = pattern.sub("\u200b", text)
    return _MENTION.sub("@\u200b", text)


_HEADING = {"incomplete": "⚠️ incomplete", "failed": "❌ gate failed", "passed": "✅ gate passed"}


def markdown_summary(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
                     failures: list[str], comparison: Any = None, *,
                     max_rows: int = 200, incomplete: str | None = None,
                     thresholds: Sequence[tuple[str, str]] | None = None,
                     unscored: Sequence[AnswerResult] | None = None,
                     failing: Sequence[AnswerResult] | None = None,
                     silent: Sequence[AnswerResult] = (),
                     expected: Sequence[AnswerResult] = (),
                     exit_failed: bool | None = None) -> str:
    """The run as GitHub-flavoured Markdown (for ``--faithfulness-markdown`` and
    ``$GITHUB_STEP_SUMMARY``): the outcome, the judges, the headline figures with tokens and
    cost, the citation and conversation figures (when any), the session thresholds, the
    gate's reasons, the comparison with a saved run (a ``runs.compare.Comparison``, or
    ``None``), every claim that is not supported with the sentence of the answer it came
    from, its citation, the judge's rationale and any note, every unscored answer by name,
    the text set aside with its reason, and the verdict as the last line. Tables hold at
    most ``max_rows`` rows (the rest are counted). All untrusted text is escaped and
    sanitised (``md_escape``).

    Args:
        incomplete: why the run is incomplete (``None``: complete); an incomplete run is
            never said to pass.
        thresholds: the session thresholds applied (empty: none; ``None``: not stated).
        unscored / failing: the unscored answers and those that failed their own
            thresholds (default: found in ``results``).
        silent / expected: of ``failing``, those whose tests did not fail and those of
            ``xfail`` tests (``reports.verdict.run_verdict`` words the verdict by them).
        exit_failed: whether pytest's exit status says the run failed, when known (a red
            run is never worded as a pass: ``reports.verdict.run_verdict``).
    """
    from ..run.outcome import RunOutcome

    return markdown_of(RunOutcome.of(results, summary, judges, failures, comparison,
                                     incomplete=incomplete, thresholds=thresholds,
                                     unscored=unscored, failing=failing, silent=silent,
                                     expected=expected, exit_failed=exit_failed),
                       max_rows=max_rows)


def outcome_kind_lines(outcome: RunOutcome, shown: int) -> list[str]:
    """The inconclusive comparisons, what the run tolerated and its golden answers and tests
    (``run.golden.GoldenReport.lines``), as Markdown bullets (at most ``shown`` of each, then
    how many more); empty when there are none."""
    lines: list[str] = []
    golden = outcome.golden.lines() if outcome.golden is not None else []
    for title, items in (("Inconclusive", [f for f in outcome.inconclusive
                                           if f not in outcome.failures]),
                         ("Tolerated within the bounds", outcome.tolerated),
                         ("Golden answers", golden)):
        if items:
            lines.append(f"**{title}:**")
            lines += [f"- {md_escape(item, 1000)}" for item in items[:shown]]
            if len(items) > shown:
                lines.append(f"- …and {len(items) - shown} more (see the decision file)")
            lines.append("")
    return lines


def markdown_of(outcome: RunOutcome, *, max_rows: int = 200) -> str:
    """The run's outcome (a ``run.outcome.RunOutcome``) as GitHub-flavoured Markdown: see
    ``markdown_summary``. Tables hold at most ``max_rows`` rows (the rest are counted)."""
    results, summary, judges = outcome.results, outcome.summary, outcome.judges
    failures, comparison, incomplete = outcome.failures, outcome.comparison, outcome.incomplete
    unscored, failing = outcome.unscored, outcome.failing
    stated = thresholds_text(outcome.thresholds)
    verdict = outcome.verdict()
    heading = _HEADING[verdict.gate]
    if verdict.gate == "passed" and verdict.status == "failed":
        heading = f"❌ {verdict.text}"
    elif verdict.gate == "passed" and failing:
        heading = f"✅ {verdict.text}"
    lines = [f"## Faithfulness: {heading}", "", f"**{md_escape(outcome.headline(), 200)}**", ""]
    lines += outcome_kind_lines(outcome, 50)
    if incomplete is not None:
        lines += [f"> ⚠️ **Incomplete:** {md_escape(incomplete, 1000)}: the gate did not see "
                  "every answer, so this run does not pass.", ""]
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
    lines += [_usage_line(summary), ""]
    extra = citation_lines(summary)
    if extra:
        lines += [f"{md_escape(line, None)}  " for line in extra] + [""]
    from .uncertainty import uncertainty_lines

    lines += [f"{md_escape(line, None)}  " for line in uncertainty_lines(summary)]
    lines += [""] if uncertainty_lines(summary) else []
    if stated:
        lines += [md_escape(stated, None), ""]
    if failures:
        lines.append("**Gate failed:**")
        lines += [f"- {md_escape(f, 2000)}" for f in failures]
        lines.append("")
    if comparison is not None:
        lines += _markdown_comparison(comparison, max_rows)
    lines += _claims_table(results, max_rows)
    if unscored:
        lines += [f"### Unscored answers ({len(unscored)})", "",
                  "No claims to score; not in the mean faithfulness.", ""]
        lines += [f"- {md_escape(answer_name(r))}" for r in unscored[:max_rows]]
        if len(unscored) > max_rows:
            lines.append(f"- …and {len(unscored) - max_rows} more (see the JSON report)")
        lines.append("")
    lines += unverified.markdown_lines(results, md_escape, max_rows, outcome.name_of)
    lines += _dropped_table(results, max_rows)
    lines += canary_markdown(outcome.canaries, max_missed=max_rows)
    lines += [f"**Verdict:** {md_escape(verdict.text, 2000)}", ""]
    return "\n".join(lines)


def canary_markdown(report: Any, *, max_missed: int | None = 50) -> list[str]:
    """The judge canaries as Markdown lines (``reports.canaries``): headline, the two figures
    by the judge's own verdicts and after the check, per kind, notes, and the missed canaries
    (the first ``max_missed``, then how many more). Empty without a report."""
    if report is None:
        return []
    from . import canaries as c

    lines = ["### Judge canaries", "", md_escape(c.headline(report), None), "",
             "| figure | judge's own verdicts | after the evidence check |", "|---|---|---|",
             f"| canary recall (mutants refused) | {report.recall.text()} | "
             f"{report.recall_checked.text()} |",
             f"| control keep-rate (controls kept) | {report.keep_rate.text()} | "
             f"{report.keep_rate_checked.text()} |", ""]
    rows = c.kind_rows(report)
    if rows:
        lines += ["| role | kind | judge's own verdicts | after the check |", "|---|---|---|---|"]
        lines += [f"| {role} | {md_escape(kind)} | {own} | {checked} |"
                  for role, kind, own, checked in rows]
        lines.append("")
    lines += [f"> {md_escape(n, 1000)}" for n in c.note_lines(report)]
    lines += [""] if c.note_lines(report) else []
    if report.missed:
        lines += [f"**Missed canaries ({len(report.missed)}):**", ""]
        lines += [f"- {md_escape(m, 1500)}" for m in c.missed_lines(report, max_missed)]
        lines.append("")
    return lines


def _usage_line(summary: SessionSummary) -> str:
    text = f"judge calls: {summary.judge_calls}, cache hits: {summary.cache_hits}"
    usage = usage_text(summary)
    return md_escape(text + (f"; {usage}" if usage else ""), None)


def _quotes(evidence: Sequence[Any]) -> str:
    """The quote cell: the one quote as it is, or each quote with its passage id when the
    verdict cites several items."""
    quotes = [item for item in evidence if item.quote]
    if len(quotes) == 1 and len(evidence) == 1:
        return md_escape(quotes[0].quote)
    return md_escape("; ".join(f"{item.passage_id}: “{item.quote}”" for item in quotes))


def _why(claim: Any, answer: str = "") -> str:
    """The sentence of the answer the claim came from, the judge's rationale(s), the
    citation and the note of a claim, as one cell."""
    parts = []
    where = sentence_text(answer, claim.spans)
    if where:
        parts.append(f"*in the answer:* “{md_escape(where)}”")
    for source, who in ((claim.verdict, "judge"), (claim.judge_verdict, "judge said "
                        + (claim.judge_verdict.label if claim.judge_verdict else ""))):
        if source is not None and source.rationale:
            parts.append(f"*{md_escape(who)}:* {md_escape(source.rationale)}")
    cites = citation_text(claim)
    if cites:
        parts.append(f"*citation:* {md_escape(cites)}")
    if claim.note:
        parts.append(f"*note:* {md_escape(claim.note)}")
    from .uncertainty import claim_votes_text

    votes = claim_votes_text(claim)
    if votes:
        parts.append(f"**{md_escape(votes)}**" if claim.unstable else md_escape(votes))
    return "<br>".join(parts)


def _claims_table(results: list[AnswerResult], max_rows: int) -> list[str]:
    rows: list[tuple[AnswerResult, ClaimResult | None]] = []
    for r in results:
        if r.status == "error":
            rows.append((r, None))
        rows += [(r, c) for c in r.claims if not c.supported or c.unstable]
    lines = [f"### Claims that are not supported ({sum(1 for _, c in rows if c)})", ""]
    if not rows:
        return lines + ["Every claim is supported.", ""]
    lines += ["| test | faithfulness | verdict | claim | passage | quote "
              "| in the answer, rationale and notes |",
              "|---|---:|---|---|---|---|---|"]
    for r, c in rows[:max_rows]:
        if c is None:
            lines.append(f"| {md_escape((r.test_id or 'answer') + turn_text(r))} | n/a "
                         f"| **error** | {md_escape(r.error)} | | | |")
            continue
        v = c.verdict
        label = {"contradicted": "**contradicted**"}.get(c.label or "", c.label or "no verdict")
        claim = md_escape(c.text)
        lines.append(f"| {md_escape((r.test_id or 'answer') + turn_text(r))} | {_fmt(r.score)} "
                     f"| {label} | "
                     f"{claim} | {md_escape(', '.join(v.passage_ids) if v else '')}"
                     f" | {_quotes(v.evidence if v else [])} | {_why(c, r.answer)} |")
    if len(rows) > max_rows:
        lines.append(f"\n…and {len(rows) - max_rows} more (see the HTML or JSON report).")
    lines.append("")
    return lines


def _dropped_table(results: list[AnswerResult], max_rows: int) -> list[str]:
    rows = [(r, d) for r in results for d in r.dropped]
    if not rows:
        return []
    lines = [f"### Text set aside, not scored ({len(rows)})", "",
             "| test | reason | text |", "|---|---|---|"]
    lines += [f"| {md_escape(r.test_id or 'answer')} | {md_escape(d.reason)} | "
              f"{md_escape(d.text)} |" for r, d in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"\n…and {len(rows) - max_rows} more (see the HTML or JSON report).")
    lines.append("")
    return lines


def _markdown_comparison(comparison: Any, max_rows: int) -> list[str]:
    lines = [f"### Compared with {md_escape(comparison.baseline_label, 1000)}", ""]
    lines += [f"> ⚠️ **WARNING:** {md_escape(w, 2000)}" for w in comparison.warnings]
    if comparison.warnings:
        lines.append("")
    from ..runs.baseline_identity import report_lines

    found = report_lines(comparison)
    lines += [f"- {md_escape(line, 2000)}" for line in found] + ([""] if found else [])
    lines += ["| figure | baseline | this run | change |", "|---|---:|---:|---:|"]
    for row in comparison.figures:
        change = md_escape(format_change(row.delta, row.key), None)
        if row.regressed:
            change = f"**{change}** 🔻"
        lines.append(f"| {row.label} | {format_figure(row.before, row.key)} | "
                     f"{format_figure(row.after, row.key)} | {change} |")
    from .uncertainty import effect_lines, instability_lines, paired_lines

    lines += [""] + [f"- {md_escape(line, None)}" for line in paired_lines(comparison)]
    for block in effect_lines(comparison):
        lines += ["", f"**{md_escape(block[0], 1000)}**", ""]
        lines += [f"- {md_escape(line, 2000)}" for line in block[1:]]
    lines += ["", f"Claims that became unsupported or contradicted: **{comparison.worsened}**; "
              f"recovered: **{comparison.recovered}**.", ""]
    unstable = instability_lines(comparison)
    if unstable:
        lines += [f"**{md_escape(unstable[0], None)}**", ""]
        lines += [f"- {md_escape(line.strip(), 500)}" for line in unstable[1:]]
        lines.append("")
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


#: GitHub's limit on one step's job summary (``$GITHUB_STEP_SUMMARY``), in bytes: 1 MiB.
STEP_SUMMARY_LIMIT = 1024 * 1024
_DETAILS_OPEN = re.compile(r"<details\b", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)


def fit_markdown(text: str, max_bytes: int, *, full_report: str | None = None) -> str:
    """``text`` (a ``markdown_of`` summary) cut to at most ``max_bytes`` bytes of UTF-8, for
    GitHub's job summary (``STEP_SUMMARY_LIMIT``); unchanged when it fits.

    The cut keeps the head (outcome, figures, gate reasons) and the verdict (the last
    ``**Verdict:**`` line and after), drops whole lines from the middle, closes a
    ``<details>`` block left open, and says in their place how many lines and KiB were cut,
    in which section, and where the full report is (``full_report``, a path; ``None``: no
    full report was written, and the note names the options that write one). When even the
    note and the verdict do not fit, as much of them as fits (``max_bytes`` below 0 counts as
    0).
    """
    size = len(text.encode("utf-8"))
    if size <= max_bytes:
        return text
    max_bytes = max(max_bytes, 0)
    lines = text.split("\n")
    verdict_at = next((i for i in range(len(lines) - 1, -1, -1)
                       if lines[i].startswith("**Verdict:**")), len(lines))
    head, tail = lines[:verdict_at], lines[verdict_at:]
    where = (f"`{md_escape(full_report, 500)}`" if full_report else
             "not written (--faithfulness-markdown, --faithfulness-html or "
             "--faithfulness-report write it)")

    def note(cut: list[str], section: str) -> list[str]:
        kib = len("\n".join(cut).encode("utf-8")) / 1024
        return ["", f"> ✂️ **Truncated:** {len(cut)} line(s) ({kib:.0f} KiB) were cut here, "
                    f"from the section \"{section}\" on, to keep this summary "
                    f"under GitHub's 1 MiB limit; the full report: {where}.", ""]

    def joined(parts: list[str]) -> int:
        return len("\n".join(parts).encode("utf-8"))

    def section_of(line: str) -> str:
        return line.lstrip("#").strip()[:200]

    longest = max((section_of(line) for line in head if line.startswith("#")),
                  key=lambda name: len(name.encode("utf-8")), default="the start")
    reserve = joined(note(head, longest)) + joined(tail) + len("</details>") + 4
    budget, kept, used = max_bytes - reserve, 0, 0
    while kept < len(head) and used + len(head[kept].encode("utf-8")) + 1 <= budget:
        used += len(head[kept].encode("utf-8")) + 1
        kept += 1
    section = next((section_of(line) for line in reversed(head[:kept + 1])
                    if line.startswith("#")), "the start")
    out = head[:kept]
    if len(_DETAILS_OPEN.findall("\n".join(out))) > len(_DETAILS_CLOSE.findall("\n".join(out))):
        out += ["", "</details>"]
    out += note(head[kept:], section) + tail
    fitted = "\n".join(out)
    if len(fitted.encode("utf-8")) > max_bytes:  # not even the note fits: what does
        fitted = fitted.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return fitted
