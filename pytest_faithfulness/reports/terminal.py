"""The terminal report: per-claim text of an answer, the headline figures, the thresholds,
the unscored answers, the comparison with a saved run, and the verdict. Plain text lines,
every one sanitised (``text.terminal_text``); nothing here imports pytest."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..records import AnswerResult, SessionSummary
from ..run.outcome import RunOutcome, shows_as_failing
from . import unverified
from .figures import fmt as _fmt
from .figures import format_change, format_figure, short
from .spans import citation_text, evidence_lines, sentence_text, turn_text
from .text import terminal_text
from .uncertainty import claim_votes_text
from .verdict import RunVerdict, answer_name, thresholds_text

_MARK = {"supported": "ok", "contradicted": "CONTRADICTED", "unsupported": "UNSUPPORTED",
         None: "NO VERDICT"}


def _clean(lines: list[str]) -> list[str]:
    """Every line made safe for a terminal (see ``text.terminal_text``)."""
    return [terminal_text(line) for line in lines]


def format_answer(result: AnswerResult, *, only_failing_claims: bool = False,
                  verbose: bool = False) -> str:
    """The per-claim report of one answer, as plain text lines.

    Each claim shows its verdict, cited passage id(s) and quote, and any note; a verdict the
    pipeline did not accept as given shows the judge's own label and the reason. With
    ``verbose``, each claim that is not supported also shows the judge's rationale. Text set
    aside (never scored) is listed with its reason, unless ``only_failing_claims`` without
    ``verbose``. Every line is sanitised (``text.terminal_text``): no control character of
    an answer reaches the terminal, and overlong words are cut.
    """
    head = (result.test_id or "answer") + turn_text(result)
    cited = (f"; citation precision {_fmt(result.citation_precision)}, "
             f"{result.misattributed} misattributed" if result.cited else "")
    lines = [f"{head}: faithfulness {_fmt(result.score)} ({result.status}; "
             f"{result.supported}/{len(result.claims)} claims supported, "
             f"{result.contradicted} contradicted, {result.unsupported} unsupported{cited})"]
    if result.trace is not None and result.trace.context:  # a turn read from spans
        lines.append(f"  context from {result.trace.context} (passages from span(s) "
                     f"{', '.join(result.trace.retrieval_span_ids) or 'none'})")
    for reason in result.threshold_failures:
        lines.append(f"  FAILED: {reason}")
    if result.status == "unverified" and not result.threshold_failures:
        lines.append(f"  unverified: {unverified.reason_of(result)}")
    for warning in result.warnings:
        lines.append(f"  warning: {warning}")
    for i, claim in enumerate(result.claims, start=1):
        if (only_failing_claims and claim.supported and not claim.unstable
                and claim.citation != "misattributed"):
            continue
        verdict = claim.verdict
        lines.append(f"  [{i}] {_MARK.get(claim.label, claim.label)}: {claim.text}")
        where = sentence_text(result.answer, claim.spans) if not claim.supported else ""
        if where and _plain(where) != _plain(claim.text):
            lines.append(f'      in the answer: "{where}"')
        cites = citation_text(claim)
        if cites and (not only_failing_claims or claim.citation != "correct"):
            lines.append(f"      {cites}")
        if verdict is not None:
            lines += [f"      {line}" for line in evidence_lines(verdict.evidence)]
        if claim.note:
            lines.append(f"      note: {claim.note}")
        if verbose and verdict is not None and verdict.confidence is not None:
            lines.append(f"      judge's confidence: {verdict.confidence:.2f}")
        votes = claim_votes_text(claim)
        if votes:
            lines.append(f"      {votes}")
        judged = claim.judge_verdict
        if judged is not None:
            lines.append(f"      judge said {judged.label} "
                         f"(passages {', '.join(judged.passage_ids) or '-'})")
        if verbose and not claim.supported:
            for source in (verdict, judged):
                if source is not None and source.rationale:
                    who = "judge's rationale" if source is verdict else \
                        f"judge's rationale for {source.label}"
                    lines.append(f"      {who}: {source.rationale}")
    if result.dropped and (verbose or not only_failing_claims):
        for item in result.dropped:
            lines.append(f'  set aside, not scored ({item.reason}): "{item.text}"')
    return "\n".join(_clean(lines))


def _plain(text: str) -> str:
    return " ".join(text.split()).rstrip(".")


def summary_lines(summary: SessionSummary, judges: list[str], failures: list[str], *,
                  incomplete: str | None = None,
                  thresholds: Sequence[tuple[str, str]] | None = None,
                  unscored: Sequence[AnswerResult] | None = None,
                  failing: Sequence[AnswerResult] | None = None,
                  verdict: bool = True) -> list[str]:
    """The headline figures, the session thresholds, every unscored answer by name and, with
    ``verdict`` (the default), the gate's reasons and the run's verdict as the last line.

    Args:
        summary / judges / failures: the session figures, the judges' descriptions and the
            session gate's failure reasons.
        incomplete: why the run is incomplete (``None``: the gate saw every answer).
        thresholds: the session thresholds applied, ``[("min mean", "0.80"), ...]`` (empty:
            none; ``None``: not known, not stated).
        unscored: the answers with no claims, each named (``None``: not named).
        failing: the answers that failed their own thresholds (counted in the verdict).
    """
    lines = [f"judge: {j}" for j in judges]
    lines += [
        f"answers: {summary.answers} ({summary.scored} scored, {summary.unscored} unscored, "
        f"{summary.errored} errored{unverified.count_text(summary)})",
        f"mean faithfulness: {_fmt(summary.mean_faithfulness)}",
        "answers with an unsupported or contradicted claim: "
        + ("n/a" if summary.unsupported_answer_rate is None
           else f"{summary.unsupported_answer_rate:.1%}"),
        f"claims: {summary.claims} ({summary.supported} supported, {summary.contradicted} "
        f"contradicted, {summary.unsupported} unsupported)",
        f"judge calls: {summary.judge_calls}, cache hits: {summary.cache_hits}",
    ]
    lines += citation_lines(summary)
    usage = usage_text(summary)
    if usage:
        lines.append(usage)
    from .uncertainty import uncertainty_lines

    lines += uncertainty_lines(summary)
    stated = thresholds_text(thresholds)
    if stated:
        lines.append(stated)
    if unscored:
        lines.append(f"unscored answers (no claims to score, not in the mean): {len(unscored)}")
        lines += [f"  - {answer_name(r)}" for r in unscored]
    if verdict:
        said = RunOutcome.of([], summary, judges, failures, incomplete=incomplete,
                             failing=failing or (), unscored=unscored or ())
        lines += verdict_lines(failures, said.verdict())
    return _clean(lines)


def citation_lines(summary: SessionSummary) -> list[str]:
    """The citation and conversation figures, one line each, when there are any: ``citation
    precision: 0.60 (3 of 5 cited claims correctly cited), 0 misattributed`` and
    ``conversations: 2 (1 with a claim not supported, 50.0%)``."""
    lines = []
    if summary.cited:
        lines.append(f"citation precision: {_fmt(summary.citation_precision)} "
                     f"({summary.correctly_cited} of {summary.cited} cited claims correctly "
                     f"cited), {summary.misattributed} misattributed")
    if summary.conversations:
        rate = summary.conversation_unsupported_rate or 0.0
        lines.append(f"conversations: {summary.conversations} "
                     f"({round(rate * summary.conversations)} with a claim not supported, "
                     f"{rate:.1%}); each turn counts as an answer")
    return lines


def usage_text(summary: SessionSummary) -> str | None:
    """Tokens and cost of the run in one line, or ``None`` when the judge reported none."""
    usage = summary.usage
    if not (usage.input_tokens or usage.output_tokens or usage.cost_usd):
        return None
    unpriced = (f" ({usage.uncosted_calls} call(s) not in the price map)"
                if usage.uncosted_calls else "")
    return (f"tokens: {usage.input_tokens} input ({usage.cached_input_tokens} from the "
            f"provider's prompt cache), {usage.output_tokens} output; cost "
            f"${usage.cost_usd:.4f}{unpriced}")


def verdict_lines(failures: Sequence[str], verdict: RunVerdict) -> list[str]:
    """``GATE FAILED: <reason>`` for each gate failure, then ``faithfulness: <verdict>``."""
    return _clean([f"GATE FAILED: {reason}" for reason in failures]
                  + [f"faithfulness: {verdict.text}"])


def warning_lines(results: Sequence[AnswerResult]) -> list[str]:
    """The warnings of the answers that ``failing_answer_lines`` does not list (those list
    their own), each under its answer's name: a warning such as "passage(s) p1 contain the
    whole answer" is about an answer that passed, and would otherwise never be seen."""
    warned = [r for r in results if r.warnings and not shows_as_failing(r)]
    if not warned:
        return []
    lines = ["", "answer warnings (they do not change the score):"]
    for r in warned:
        lines.append(f"{r.test_id or 'answer'}{turn_text(r)}:")
        lines += [f"  warning: {w}" for w in r.warnings]
    return _clean(lines)


def failing_answer_lines(results: Sequence[AnswerResult], *, verbose: bool = False,
                         reported: Sequence[AnswerResult] = ()) -> list[str]:
    """The per-claim report of every answer that failed or has a claim not supported.

    Args:
        results: the answers, in the order to list them.
        verbose: show the judge's rationale of each claim not supported.
        reported: answers whose per-claim report the terminal already shows (their test's
            ``AssertionError``): each gets its head line and threshold failures here, and a
            pointer to that failure, so that no claim is printed twice.
    """
    shown = [r for r in results if shows_as_failing(r)]
    if not shown:
        return []
    already = {id(r) for r in reported}
    lines = ["", "answers with claims that are not supported, or that failed:"]
    for r in shown:
        if id(r) not in already:
            lines.append(format_answer(r, only_failing_claims=True, verbose=verbose))
            continue
        head = format_answer(r, only_failing_claims=True).split("\n")
        kept = [head[0]] + [line for line in head[1:] if line.startswith(("  FAILED:",
                                                                          "  warning:"))]
        lines += kept + [terminal_text("  (every claim: in the failure of "
                                       f"{r.test_id or 'this test'} above)")]
    return lines


def comparison_lines(comparison: Any) -> list[str]:
    """The comparison as plain text lines for the terminal (warnings start with ``WARNING``)."""
    lines = [f"compared with {comparison.baseline_label}"
             + (f" [{comparison.baseline_path}]" if comparison.baseline_path else "")]
    lines += [f"WARNING: {w}" for w in comparison.warnings]
    from ..runs.baseline_identity import report_lines

    lines += [f"  {line}" for line in report_lines(comparison)]
    lines.append(f"  {'figure':<46} {'baseline':>9} {'this run':>9} {'change':>8}")
    for row in comparison.figures:
        flag = "  (worse)" if row.regressed else ""
        before, after = format_figure(row.before, row.key), format_figure(row.after, row.key)
        lines.append(f"  {row.label:<46} {before:>9} {after:>9} "
                     f"{format_change(row.delta, row.key):>8}{flag}")
    from .uncertainty import effect_lines, instability_lines, paired_lines

    lines += [f"  {line}" for line in paired_lines(comparison)]
    for block in effect_lines(comparison):
        lines += [block[0]] + [f"  {line}" for line in block[1:]]
    lines.append(f"claims that became unsupported or contradicted: {comparison.worsened}; "
                 f"recovered: {comparison.recovered}")
    lines += instability_lines(comparison)
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
    return _clean(lines)


# The outcome's sections ------------------------------------------------------------------------

def outcome_lines(outcome: RunOutcome, *, verbose: bool = False,
                  reported: Sequence[AnswerResult] = ()) -> list[str]:
    """The faithfulness section's body for a ``run.outcome.RunOutcome``: headline figures,
    thresholds, unscored answers, every answer's warnings, and the per-claim report of every
    answer that shows as failing (``verbose``: with the judge's rationale; ``reported``:
    answers whose per-claim report the terminal already shows, named here without their
    claims), then the golden answers and tests (``run.golden``). The gate's reasons and the
    verdict come from ``closing_lines`` after it."""
    lines = summary_lines(outcome.summary, outcome.judges, outcome.failures, verdict=False,
                          thresholds=outcome.thresholds, unscored=outcome.unscored)
    lines += _clean(unverified.terminal_lines(outcome.results, outcome.name_of))
    return (lines + warning_lines(outcome.results)
            + failing_answer_lines(outcome.results, verbose=verbose, reported=reported)
            + canary_section(outcome) + golden_section(outcome))


def golden_section(outcome: RunOutcome) -> list[str]:
    """The golden answers and tests (``run.golden.GoldenReport.lines``), after a blank line;
    empty when the run has none."""
    lines = outcome.golden.lines() if outcome.golden is not None else []
    return [""] + _clean(lines) if lines else []


def canary_section(outcome: RunOutcome) -> list[str]:
    """The judge canaries (``reports.canaries.canary_lines``), after a blank line; empty when
    none ran."""
    if outcome.canaries is None:
        return []
    from .canaries import canary_lines

    return [""] + _clean(canary_lines(outcome.canaries))


def calibration_section(outcome: RunOutcome) -> list[str]:
    """The calibration report as terminal lines (the judges first); empty without one."""
    if outcome.calibration is None:
        return []
    from ..calibration import format_report

    return [f"judge: {j}" for j in outcome.judges] + format_report(outcome.calibration)


def closing_lines(outcome: RunOutcome, verdict: RunVerdict | None = None) -> list[str]:
    """``GATE FAILED: <reason>`` for each gate failure, the inconclusive comparisons and (in a
    run ``passed-with-tolerated``) what it tolerated, ``faithfulness outcome: <kind> (exit
    status N)``, then ``faithfulness: <verdict>`` (``verdict``: the outcome's own unless the
    caller knows the final exit status)."""
    lines = verdict_lines(outcome.failures, verdict or outcome.verdict())
    extra = [f"INCONCLUSIVE: {f}" for f in outcome.inconclusive if f not in outcome.failures]
    if outcome.kind == "passed-with-tolerated":
        extra += [f"tolerated: {t}" for t in outcome.tolerated]
    extra.append(f"faithfulness {outcome.headline()}")
    return lines[:-1] + _clean(extra) + lines[-1:]
