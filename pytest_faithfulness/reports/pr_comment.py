"""The pull-request comment (``--faithfulness-pr-comment PATH``, on pytest and on ``merge``).

One sticky comment: its first line is a hidden marker (``MARKER``) so that a CI step can find
and update the comment it posted before (``gh pr comment --edit-last``, or a search for the
marker). What it says, most important first:

1. the outcome and the headline figures (with their confidence intervals when the summary
   has them: ``summary.ci``), tokens and cost;
2. the gate's reasons;
3. against the base run (``runs.compare.Comparison``): the regressions (compare-fail
   failures and figures that moved the wrong way), then the newly failing answers with their
   failing claims, passages and quotes, then the recovered ones; without a base run, the
   answers that failed their own thresholds;
4. the details (every changed answer, the figures side by side) folded in ``<details>``.

GitHub refuses a comment over 65,536 characters: the text is built section by section and
cut at a whole item, with a note pointing to the HTML report (and to the CI run's page,
where the artefact is, when ``$GITHUB_SERVER_URL``, ``$GITHUB_REPOSITORY`` and
``$GITHUB_RUN_ID`` are set). All untrusted text is escaped (``markdown.md_escape``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import AnswerResult, SessionSummary
from ..run.outcome import RunOutcome
from . import unverified
from .figures import format_change, format_figure
from .markdown import canary_markdown, md_escape, outcome_kind_lines
from .terminal import usage_text

#: The hidden first line that marks the comment as ours (for the sticky update).
MARKER = "<!-- pytest-faithfulness:pr-comment -->"
#: GitHub's limit on a comment body, in characters.
GITHUB_LIMIT = 65536
#: What the comment aims to stay under (room for GitHub's own counting of multi-byte text).
DEFAULT_LIMIT = 60000

_HEADING = {"incomplete": "⚠️ incomplete", "failed": "❌ gate failed", "passed": "✅ gate passed"}


def run_page_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The CI run's page on GitHub (where its artefacts are listed), from
    ``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID``; ``None`` outside
    GitHub Actions."""
    env = os.environ if environ is None else environ
    server, repo, run_id = (env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"),
                            env.get("GITHUB_RUN_ID"))
    if not (server and repo and run_id):
        return None
    return f"{server.rstrip('/')}/{repo}/actions/runs/{run_id}"


_CI_NAMES = {"mean_faithfulness": "mean", "unsupported_answer_rate": "unsupported_rate"}


def _interval(ci: Any, key: str) -> tuple[float, float] | None:
    """``(low, high)`` of figure ``key`` in a summary's ``ci`` (``records.FigureIntervals``,
    or a mapping of figure name to ``{"low", "high"}``, ``{"lower", "upper"}`` or
    ``[low, high]``)."""
    if ci is None:
        return None
    if hasattr(ci, "model_dump"):
        ci = ci.model_dump(mode="json")
    entry = None
    for name in (key, _CI_NAMES.get(key)):  # records.FigureIntervals names them shorter
        if name and entry is None:
            entry = ci.get(name) if isinstance(ci, Mapping) else getattr(ci, name, None)
    if entry is None:
        return None
    if hasattr(entry, "model_dump"):
        entry = entry.model_dump(mode="json")
    try:
        if isinstance(entry, Mapping):
            low = entry.get("low", entry.get("lower"))
            high = entry.get("high", entry.get("upper"))
        else:
            low, high = list(entry)[:2]
        return (float(low), float(high)) if low is not None and high is not None else None
    except (TypeError, ValueError):
        return None


def _figure(summary: SessionSummary, key: str) -> str:
    value = getattr(summary, key, None)
    shown = format_figure(value, key)
    span = _interval(getattr(summary, "ci", None), key)
    if span is not None and value is not None:
        shown += f" (95% CI {format_figure(span[0], key)}–{format_figure(span[1], key)})"
    return shown


def _headline(summary: SessionSummary) -> list[str]:
    rate = summary.unsupported_answer_rate
    lines = [f"**mean faithfulness {_figure(summary, 'mean_faithfulness')}** · "
             f"{summary.answers} answer{'' if summary.answers == 1 else 's'} "
             f"({summary.scored} scored, {summary.unscored} unscored, {summary.errored} "
             f"errored{unverified.count_text(summary)}) · answers with a claim not supported: "
             + ("n/a" if rate is None else _figure(summary, "unsupported_answer_rate")),
             "",
             f"claims: {summary.claims} ({summary.supported} supported, {summary.contradicted} "
             f"contradicted, {summary.unsupported} unsupported)  "]
    usage = usage_text(summary)
    lines.append(md_escape(f"judge calls: {summary.judge_calls}, cache hits: "
                           f"{summary.cache_hits}" + (f"; {usage}" if usage else ""), None))
    return lines + [""]


def _claim_lines(claims: Sequence[Any]) -> list[str]:
    """One bullet per claim change or claim: verdict, claim, and each evidence item (passage
    and quote)."""
    out = []
    for c in claims:
        before = getattr(c, "before", None)
        label = getattr(c, "after", None) or getattr(c, "label", None) or "no verdict"
        verdict = getattr(c, "verdict", None)
        evidence = verdict.evidence if verdict is not None else getattr(c, "evidence", [])
        was = f" (was {md_escape(before)})" if before else ""
        text = f"  - **{md_escape(label)}**{was}: {md_escape(c.text, 400)}"
        for n, item in enumerate(evidence):
            text += (" — passage " if n == 0 else "; passage ") + md_escape(item.passage_id, 120)
            if item.quote:
                text += f": “{md_escape(item.quote, 400)}”"
        out.append(text)
    return out


def _answer_item(name: str, before: float | None, after: float | None,
                 claims: Sequence[Any], *, compared: bool = True) -> list[str]:
    score = format_figure(after, "mean_faithfulness")
    if compared:
        score = (f"{format_figure(before, 'mean_faithfulness')} → "
                 f"{format_figure(after, 'mean_faithfulness')}")
    return [f"- **{md_escape(name, 300)}** ({score})", *_claim_lines(claims)]


#: The most missed judge canaries the comment lists (the rest are counted).
MAX_CANARIES_SHOWN = 10


class _Budget:
    """Adds blocks of lines while they fit in ``limit`` characters, keeping room for the
    closing lines; notes what was left out."""

    def __init__(self, limit: int, reserve: int) -> None:
        self.limit = limit
        self.reserve = reserve
        self.lines: list[str] = []
        self.size = 0
        self.left_out = 0

    def fits(self, block: Sequence[str]) -> bool:
        return self.size + sum(len(b) + 1 for b in block) + self.reserve <= self.limit

    def add(self, block: Sequence[str], *, counted: bool = False) -> bool:
        """Add ``block`` if it fits; when not, count it as left out (``counted``: an item)."""
        if self.fits(block):
            self.lines += block
            self.size += sum(len(b) + 1 for b in block)
            return True
        if counted:
            self.left_out += 1
        return False


def pr_comment(results: list[AnswerResult], summary: SessionSummary, judges: list[str],
               failures: list[str], comparison: Any = None, *, verdict: Any,
               html_report: str | None = None, run_url: str | None = None,
               limit: int = DEFAULT_LIMIT) -> str:
    """The Markdown body of the sticky pull-request comment (see the module docstring).

    Args:
        results / summary / judges / failures: the session's answers, figures, judge
            descriptions and gate failures.
        comparison: the ``runs.compare.Comparison`` with the base run, or ``None``.
        verdict: the run's ``reports.verdict.RunVerdict`` (its ``gate`` and ``text``).
        html_report: the HTML report's file name, named in the pointer to the details.
        run_url: the CI run's page (``run_page_url()``), named in the pointer.
        limit: the most characters of the body (at most ``GITHUB_LIMIT``).

    Returns:
        the body, starting with ``MARKER``, at most ``limit`` characters long.
    """
    return pr_comment_of(RunOutcome.of(results, summary, judges, failures, comparison),
                         verdict=verdict, html_report=html_report, run_url=run_url,
                         limit=limit)


def pr_comment_of(outcome: RunOutcome, *, html_report: str | None = None,
                  run_url: str | None = None, limit: int = DEFAULT_LIMIT,
                  verdict: Any = None) -> str:
    """``pr_comment`` of a ``run.outcome.RunOutcome``: its answers, figures, judges, gate
    failures, comparison, the answers failing their own thresholds (``outcome.failing``) and
    its verdict (``outcome.verdict()`` unless ``verdict`` is given)."""
    if verdict is None:
        verdict = outcome.verdict()
    summary, judges, failures = outcome.summary, outcome.judges, outcome.failures
    comparison = outcome.comparison
    limit = min(limit, GITHUB_LIMIT)
    where = []
    if html_report:
        where.append(f"the HTML report `{md_escape(os.path.basename(str(html_report)), 200)}`")
    if run_url:
        where.append(f"the artefacts of [this CI run]({run_url})")
    pointer = " in " + " and ".join(where) if where else " in the HTML or JSON report"
    closing = ["", f"**Verdict:** {md_escape(verdict.text, 2000)}"]
    note_room = 400 + len(pointer)
    out = _Budget(limit, reserve=sum(len(c) + 1 for c in closing) + note_room)
    heading = _HEADING.get(verdict.gate, verdict.gate)
    if verdict.gate == "passed" and getattr(verdict, "status", "passed") == "failed":
        heading = f"❌ {md_escape(verdict.text, 300)}"
    out.add([MARKER, f"## Faithfulness: {heading}", "",
             f"**{md_escape(outcome.headline(), 200)}**", ""])
    out.add(outcome_kind_lines(outcome, 10))
    out.add(_headline(summary))
    if judges:
        out.add([f"judge: {md_escape(j)}  " for j in judges[:5]] + [""])
    if failures:
        out.add(["**Gate failed:**"])
        for f in failures:
            out.add([f"- {md_escape(f, 1500)}"], counted=True)
        out.add([""])
    if outcome.canaries is not None:  # the judge canaries: the first 10 misses, then a count
        section = canary_markdown(outcome.canaries, max_missed=MAX_CANARIES_SHOWN)
        if not out.add(section, counted=True):
            out.add(section[:section.index("") + 1] + section[4:9], counted=False)
    if comparison is not None:
        _comparison_sections(out, comparison)
    else:
        failing = outcome.failing
        if failing:
            out.add([f"### Answers that failed their own thresholds ({len(failing)})", ""])
            for r in failing:
                bad = [c for c in r.claims if not c.supported]
                block = _answer_item(r.test_id or "answer", None, r.score, bad,
                                     compared=False)
                if r.status == "error":
                    block.append(f"  - **error**: {md_escape(r.error, 400)}")
                out.add(block, counted=True)
            out.add([""])
    if out.left_out:
        out.reserve = 0
        out.add([f"> ✂️ {out.left_out} item(s) left out to stay under GitHub's comment "
                 f"limit ({GITHUB_LIMIT:,} characters): see every answer{pointer}.", ""])
    elif where:
        out.reserve = 0
        out.add([f"Every claim and verdict:{pointer}."])
    out.reserve = 0
    out.add(closing)
    return "\n".join(out.lines) + "\n"


def _comparison_sections(out: _Budget, comparison: Any) -> None:
    label = md_escape(comparison.baseline_label, 500)
    out.add([f"### Against the base run: {label}", ""])
    for w in comparison.warnings:
        out.add([f"> ⚠️ **WARNING:** {md_escape(w, 1000)}", ""])
    from ..runs.baseline_identity import report_lines

    found = report_lines(comparison)
    if found:
        out.add([f"- {md_escape(line, 1000)}" for line in found] + [""])
    from .uncertainty import effect_lines

    for block in effect_lines(comparison):  # a re-judged base run: answers vs judge
        out.add([f"**{md_escape(block[0], 1000)}**", ""]
                + [f"- {md_escape(line, 1000)}" for line in block[1:]] + [""])
    regressed = [row for row in comparison.figures if row.regressed]
    out.add([f"#### Regressions ({len(comparison.failures) + len(regressed)})", ""])
    if not comparison.failures and not regressed:
        out.add(["None: no figure moved the wrong way.", ""])
    for f in comparison.failures:
        out.add([f"- **{md_escape(f, 1000)}**"], counted=True)
    for row in regressed:
        out.add([f"- {row.label}: {format_figure(row.before, row.key)} → "
                 f"{format_figure(row.after, row.key)} "
                 f"({md_escape(format_change(row.delta, row.key), None)})"], counted=True)
    out.add([""])
    worse = [a for a in comparison.answers if a.worsened or a.relabelled]
    worse.sort(key=lambda a: (a.delta if a.delta is not None else 0.0))
    out.add([f"#### Newly failing answers ({len(worse)})", ""])
    for a in worse:
        out.add(_answer_item(a.test_id, a.before_score, a.after_score,
                             list(a.worsened) + list(a.relabelled)), counted=True)
    out.add([""])
    better = [a for a in comparison.answers if a.recovered and not a.worsened]
    if better:
        out.add([f"<details><summary>Recovered answers ({len(better)})</summary>", ""])
        for a in better:
            out.add(_answer_item(a.test_id, a.before_score, a.after_score, a.recovered),
                    counted=True)
        out.add(["", "</details>", ""])
    else:
        out.add(["#### Recovered answers (0)", ""])
    details = ["<details><summary>Figures against the base run</summary>", "",
               "| figure | base | this run | change |", "|---|---:|---:|---:|"]
    details += [f"| {row.label} | {format_figure(row.before, row.key)} | "
                f"{format_figure(row.after, row.key)} | "
                f"{md_escape(format_change(row.delta, row.key), None)} |"
                for row in comparison.figures]
    out.add(details + ["", "</details>", ""])
    if comparison.added or comparison.removed:
        block = ["<details><summary>"
                 f"{len(comparison.added)} answer(s) added, {len(comparison.removed)} removed"
                 "</summary>", ""]
        block += [f"- added: {md_escape(t, 300)}" for t in comparison.added[:200]]
        block += [f"- removed: {md_escape(t, 300)}" for t in comparison.removed[:200]]
        if not out.add(block + ["", "</details>", ""], counted=True):
            out.add(["<details><summary>"
                     f"{len(comparison.added)} answer(s) added, {len(comparison.removed)} "
                     "removed (too many to list)</summary>", "", "</details>", ""])
