"""How sure the headline figures are, and how steady the judge was, in words shared by every
report: the 95% intervals, the smallest detectable drop, and the votes (``runs.statistics``
says how each is computed)."""

from __future__ import annotations

from typing import Any


def _pair(pair: Any, pct: bool) -> str:
    if pair is None:
        return "n/a"
    low, high = pair
    return f"[{low:.1%}, {high:.1%}]" if pct else f"[{low:.3f}, {high:.3f}]"


def uncertainty_lines(summary: Any) -> list[str]:
    """Plain-text lines for a ``records.SessionSummary``: its figures' 95% intervals, the
    smallest detectable drops, and the votes; empty when none of them is known."""
    lines = []
    ci = getattr(summary, "ci", None)
    if ci is not None:
        lines.append(f"{ci.level:.0%} interval (bootstrap over scored answers): mean "
                     f"faithfulness {_pair(ci.mean, False)}; answers with a claim not "
                     f"supported {_pair(ci.unsupported_rate, True)}")
    drop = getattr(summary, "detectable_drop", None)
    if drop is not None and drop.mean is not None:
        lines.append(f"smallest change a paired comparison of two runs of {drop.n} scored "
                     f"answers can tell from noise (alpha {drop.alpha:g}, power {drop.power:g}): "
                     f"mean faithfulness {drop.mean:.3f}; answers with a claim not supported "
                     f"{drop.unsupported_rate:.1%}")
    lines += vote_lines(summary)
    return lines


def vote_lines(summary: Any) -> list[str]:
    """One line on the votes (claims asked again, unstable, unanimous share), or none."""
    share = getattr(summary, "unanimous_share", None)
    if share is None:
        return []
    return [f"votes: {summary.voted_claims} claim(s) judged more than once; "
            f"{summary.unstable_claims} UNSTABLE (votes disagree); unanimous: {share:.1%} of "
            "the claims with votes"]


def claim_votes_text(claim: Any) -> str | None:
    """A claim's votes in one line (``UNSTABLE: votes ...`` when they disagree), or ``None``
    when it was judged once."""
    votes = getattr(claim, "votes", None) or []
    if not votes:
        return None
    listed = ", ".join(f"{v.label} ({v.judge})" for v in votes)
    return f"UNSTABLE: votes {listed}" if claim.unstable else f"votes: {listed}"


def paired_lines(comparison: Any) -> list[str]:
    """One line per figure with a paired test (mean faithfulness, the unsupported-answer
    rate): the paired change, its 95% interval, the p-value and the test, the pairs, and the
    smallest change they can detect."""
    from .figures import format_change, format_figure

    lines = []
    for row in comparison.figures:
        if row.pairs is None:
            continue
        if row.p_value is None:
            lines.append(f"{row.label}: no answer scored in both runs, no paired test")
            continue
        low, high = row.ci
        drop = ("" if row.detectable_drop is None else
                f"; smallest detectable change {format_figure(row.detectable_drop, row.key)}")
        lines.append(f"{row.label}: paired change {format_change(row.paired_delta, row.key)} "
                     f"(95% interval [{low:+.3f}, {high:+.3f}]), p = {row.p_value:.3g} "
                     f"({row.test}, {row.pairs} paired answers{drop})")
    return lines


def instability_lines(comparison: Any) -> list[str]:
    """The answers whose verdicts changed on identical inputs (judge instability), each with
    its changed claims; empty when there are none."""
    changes = getattr(comparison, "instability", None) or []
    if not changes:
        return []
    lines = [f"JUDGE INSTABILITY: {len(changes)} answer(s) got different verdicts on identical "
             "inputs (same answer, passages, judge and prompt version); not counted as "
             "regressions:"]
    for ch in changes:
        lines.append(f"  {ch.test_id}")
        for c in ch.worsened + ch.relabelled + ch.recovered:
            lines.append(f"    {c.before} -> {c.after}: {c.text}")
    return lines


def effect_lines(comparison: Any) -> list[list[str]]:
    """The answer effect and the judge effect of a comparison with a re-judged baseline
    (``runs.effects``), one block each: a heading line, one line per figure (both sides, the
    paired change, its 95% interval, the p-value, the pairs), then the effect's notes.
    Empty when the baseline was not re-judged."""
    from .figures import format_change, format_figure

    blocks = []
    for effect, title in ((getattr(comparison, "answer_effect", None),
                           "ANSWER EFFECT (gated)"),
                          (getattr(comparison, "judge_effect", None),
                           "JUDGE EFFECT (reported, never gated)")):
        if effect is None:
            continue
        block = [f"{title}: {effect.before} -> {effect.after}"]
        for row in effect.figures:
            sides = (f"{row.label}: {format_figure(row.before, row.key)} -> "
                     f"{format_figure(row.after, row.key)}")
            if row.p_value is None or row.ci is None:
                block.append(f"{sides}; no answer scored on both sides, no paired test")
                continue
            low, high = row.ci
            block.append(f"{sides}; paired change {format_change(row.paired_delta, row.key)} "
                         f"(95% interval [{low:+.3f}, {high:+.3f}]), p = {row.p_value:.3g} "
                         f"({row.test}, {row.pairs} paired answers)")
        block += list(effect.notes)
        blocks.append(block)
    return blocks
