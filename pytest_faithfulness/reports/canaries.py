"""The judge canaries' section, in words, for every report (terminal, Markdown, HTML, pull-request
comment; the JSON report carries the ``canary_report.CanaryReport`` itself): recall and
keep-rate from the judge's own verdicts and after the check, with their Wilson 95% intervals,
per kind, the notes, and every missed canary (``missed_lines``; a writer with a size limit
shows the first ``limit`` and says how many more)."""

from __future__ import annotations

from typing import Any

from ..canary_report import SMOKE_TEST_NOTE, CanaryReport, CanaryResult


def headline(report: CanaryReport) -> str:
    """``judge canaries: 40 of 40 asked (20 controls, 20 mutants), 1 missed by the judge's own
    verdicts, 2 more only after the evidence check``."""
    controls = sum(k.total for k in report.kinds if k.role == "control")
    mutants = report.built - controls
    shards = f", from {report.shards} shards" if report.shards > 1 else ""
    own = sum(1 for m in report.missed if not m.judge_right)
    later = len(report.missed) - own
    more = f", {later} more only after the evidence check" if later else ""
    errors = f", {report.errors} judge error(s) (counted as misses)" if report.errors else ""
    return (f"judge canaries: {report.built} of {report.asked} asked ({controls} controls, "
            f"{mutants} mutants{shards}), {own} missed by the judge's own verdicts{more}"
            f"{errors}")


def figure_lines(report: CanaryReport) -> list[str]:
    """The two figures, the judge's own verdicts first (what the bounds read), then after the
    evidence check."""
    return [f"canary recall (mutants refused): {report.recall.text()} by the judge's own "
            f"verdicts; {report.recall_checked.text()} after the evidence check",
            f"control keep-rate (controls kept): {report.keep_rate.text()} by the judge's own "
            f"verdicts; {report.keep_rate_checked.text()} after the evidence check"]


def kind_rows(report: CanaryReport) -> list[tuple[str, str, str, str]]:
    """``(role, kind, judge's own figure, after the check)`` per kind, controls first."""
    return [(k.role, k.kind, report.kind_figure(k).text(),
             report.kind_figure(k, checked=True).text()) for k in report.kinds]


def note_lines(report: CanaryReport) -> list[str]:
    """The smoke-test sentence (offline judges) and the report's notes."""
    return ([f"note: {SMOKE_TEST_NOTE}"] if report.smoke_test else []) + \
        [f"note: {n}" for n in report.notes]


def usage_line(report: CanaryReport) -> str | None:
    """The canaries' own judge calls and tokens, or ``None`` when they made none."""
    u = report.usage
    if not (u.calls or u.cache_hits):
        return None
    cost = f", ${u.cost_usd:.4f}" if u.cost_usd else ""
    return (f"canary judge calls: {u.calls} ({u.cache_hits} from the cache), "
            f"{u.input_tokens} input and {u.output_tokens} output tokens{cost}")


def missed_text(m: CanaryResult) -> str:
    """One missed canary: kind, expected, both verdicts, claim, passage, evidence, note."""
    said = (f"judge error: {m.error}" if m.error is not None else
            f"judge said {m.judge_label}, after the check {m.label}")
    evidence = "; ".join(f"{e.get('passage_id', '?')}: \"{e.get('quote', '')}\""
                         for e in m.evidence)
    parts = [f"[{m.role} {m.kind}] expected {m.expected}, {said}: \"{m.claim}\"",
             f"from passage {m.passage_id}" + (f" ({m.detail})" if m.detail else "")]
    if evidence:
        parts.append(f"evidence {evidence}")
    if m.note:
        parts.append(f"note: {m.note}")
    return "; ".join(parts)


def missed_lines(report: CanaryReport, limit: int | None = None) -> list[str]:
    """Every missed canary (``missed_text``), the first ``limit`` when given, then
    ``... and N more`` for the rest."""
    shown = report.missed if limit is None else report.missed[:limit]
    lines = [missed_text(m) for m in shown]
    if len(shown) < len(report.missed):
        lines.append(f"... and {len(report.missed) - len(shown)} more missed canaries "
                     "(every one is in the JSON report's canaries.missed)")
    return lines


def canary_lines(report: Any, *, limit: int | None = None) -> list[str]:
    """The whole section as plain lines (terminal, ``merge``): headline, figures, per kind,
    notes, usage and the missed canaries (``limit``: see ``missed_lines``). Empty without a
    report."""
    if report is None:
        return []
    lines = [headline(report), *figure_lines(report)]
    lines += [f"  {role} {kind}: {own}; after the check {checked}"
              for role, kind, own, checked in kind_rows(report)]
    lines += note_lines(report)
    usage = usage_line(report)
    if usage:
        lines.append(usage)
    missed = missed_lines(report, limit)
    if missed:
        lines.append("missed canaries:")
        lines += [f"  {m}" for m in missed]
    return lines


def _h(value: Any) -> str:
    import html

    from .text import printable

    return html.escape(printable(value), quote=True)


def canary_html(report: Any) -> str:
    """The judge canaries as an HTML ``<section id="canaries">`` (every text sanitised and
    escaped): headline, the figures table, per kind, notes and every missed canary; ``""``
    without a report."""
    if report is None:
        return ""
    out = ['<section id="canaries"><h2>Judge canaries</h2>',
           f'<p class="meta" id="canary-headline">{_h(headline(report))}</p>',
           "<table><tr><th>figure</th><th>judge's own verdicts</th>"
           "<th>after the evidence check</th></tr>",
           f'<tr id="canary-recall"><td>canary recall (mutants refused)</td>'
           f"<td>{_h(report.recall.text())}</td><td>{_h(report.recall_checked.text())}</td></tr>",
           f'<tr id="canary-keep"><td>control keep-rate (controls kept)</td>'
           f"<td>{_h(report.keep_rate.text())}</td>"
           f"<td>{_h(report.keep_rate_checked.text())}</td></tr></table>"]
    rows = kind_rows(report)
    if rows:
        out.append("<table><tr><th>role</th><th>kind</th><th>judge's own verdicts</th>"
                   "<th>after the check</th></tr>")
        out += [f"<tr><td>{_h(r)}</td><td>{_h(k)}</td><td>{_h(o)}</td><td>{_h(c)}</td></tr>"
                for r, k, o, c in rows]
        out.append("</table>")
    out += [f'<p class="meta">{_h(n)}</p>' for n in note_lines(report)]
    usage = usage_line(report)
    if usage:
        out.append(f'<p class="meta">{_h(usage)}</p>')
    if report.missed:
        out.append(f'<h3>Missed canaries ({len(report.missed)})</h3><ul id="canary-missed">')
        out += [f"<li>{_h(line)}</li>" for line in missed_lines(report)]
        out.append("</ul>")
    out.append("</section>")
    return "".join(out)
