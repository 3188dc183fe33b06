"""Comparing a run with a saved one, and the regression gates on it.

Per answer (matched by test id): the claims that became unsupported or contradicted and the
claims that recovered; answers added or removed; session figures side by side. Compare-fail
expressions (``mean:0.02``, ``unsupported_rate:0.05``) turn a regression into a gate failure.
Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from ..records import Evidence
from ..reports.figures import format_figure
from .baseline_identity import BaselineCheck, SharedAnswers
from .saved import LenientRecord, SavedAnswer, SavedClaim, SavedRun

_NOT_SUPPORTED = (None, "contradicted", "unsupported")
_EPS = 1e-9


# --------------------------------------------------------------------------------------------
# Comparison.

class ClaimChange(LenientRecord):
    """A claim whose verdict changed between the baseline and this run.

    Args:
        text: the claim (as in this run when present, else as in the baseline).
        before: its verdict in the baseline; ``"absent"`` when the baseline answer did not
            make it.
        after: its verdict now; ``"absent"`` when this run's answer no longer makes it.
        evidence: the evidence of the verdict now (of the baseline's if absent now).
        passage_ids / quote: the same, in the older form (cited ids; first quote).
    """

    text: str
    before: str
    after: str
    evidence: list[Evidence] = Field(default_factory=list)
    passage_ids: list[str] = Field(default_factory=list)
    quote: str | None = None


class AnswerChange(LenientRecord):
    """How one answer (same test id in both runs) changed.

    Args:
        test_id: the answer's test id.
        before_score / after_score: faithfulness in the baseline and now (``None`` unless
            scored).
        before_status / after_status: ``scored | unscored | error``.
        worsened: claims now contradicted or unsupported (or without a verdict) that were
            supported, or that the baseline answer did not make.
        recovered: claims that were not supported and now are, or that the answer dropped.
        relabelled: claims that moved between ``unsupported`` and ``contradicted``.
    """

    test_id: str
    before_score: float | None = None
    after_score: float | None = None
    before_status: str = "scored"
    after_status: str = "scored"
    worsened: list[ClaimChange] = Field(default_factory=list)
    recovered: list[ClaimChange] = Field(default_factory=list)
    relabelled: list[ClaimChange] = Field(default_factory=list)

    @property
    def delta(self) -> float | None:
        """``after_score - before_score`` when both are known."""
        if self.before_score is None or self.after_score is None:
            return None
        return self.after_score - self.before_score


class FigureRow(LenientRecord):
    """One session figure side by side.

    Args:
        key: the ``RunFigures`` field.
        label: its name for people.
        before / after: the baseline's and this run's value (``None``: not defined).
        better: ``"higher"`` or ``"lower"`` (or ``"neither"`` for plain counts).
        pairs: for mean faithfulness and the unsupported-answer rate, the answers scored in
            both runs and paired (same test id; ``None`` for the other figures).
        paired_delta: the mean change over those pairs.
        ci: the 95% paired-bootstrap interval of ``paired_delta``, ``[low, high]``.
        p_value: the two-sided p-value of "no change" (``test`` says which:
            ``paired bootstrap`` for the mean, ``exact McNemar`` for the rate; see
            ``runs.statistics``).
        detectable_drop: the smallest change that many pairs can tell from noise (alpha
            0.05, power 0.8; ``runs.statistics.detectable_drop`` on the baseline's figures).
    """

    key: str
    label: str
    before: float | None = None
    after: float | None = None
    better: Literal["higher", "lower", "neither"] = "neither"
    pairs: int | None = None
    paired_delta: float | None = None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    test: str | None = None
    detectable_drop: float | None = None

    @property
    def delta(self) -> float | None:
        """``after - before`` when both are known."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def regressed(self) -> bool:
        """True when the figure moved in the worse direction."""
        d = self.delta
        if d is None:
            return False
        return d < -_EPS if self.better == "higher" else d > _EPS if self.better == "lower" \
            else False


class Effect(LenientRecord):
    """One of the two effects a judge change is split into (``runs.effects``).

    Args:
        kind: ``"answer"`` (old vs new answers, both judged by the new judge) or ``"judge"``
            (old vs new judge, both on the old answers).
        before / after: what each side is, for people.
        figures: mean faithfulness and the unsupported-answer rate side by side, each with
            its paired change, 95% interval, p-value and pairs (``FigureRow``).
        notes: what the figures may hide (answers the new decomposer splits differently).
    """

    kind: Literal["answer", "judge"]
    before: str = ""
    after: str = ""
    figures: list[FigureRow] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def figure(self, key: str) -> FigureRow | None:
        """The row of one figure, by ``RunFigures`` field name."""
        return next((f for f in self.figures if f.key == key), None)


class Comparison(LenientRecord):
    """This run against a saved one.

    Args:
        baseline_name / baseline_path / baseline_label: which saved run (label: name, commit,
            date).
        baseline_commit / current_commit: the commits, when known.
        figures: session figures side by side.
        answers: the answers (matched by test id) that changed, in this run's order.
        added / removed: test ids only in this run / only in the baseline.
        warnings: why the comparison may mislead (different judges or prompt versions).
        failures: regressions beyond the compare-fail bounds (gate failures).
        inconclusive: moves beyond a bound that are not significant at ``alpha`` (the run's
            kind is then ``inconclusive``, ``--faithfulness-inconclusive``).
        untestable: those of ``failures`` that no data can test (a figure this run lacks, no
            pair scored in both runs): the run is ``unmeasurable`` rather than ``regressed``.
        instability: answers whose verdicts changed although their inputs did not (same
            answer text, same passages, same judges with the same prompt version): the
            judge's noise, listed apart from ``answers`` and not counted in ``worsened``.
        alpha: the significance level of the compare-fail bounds (``None``: absolute bounds).
        changed: test ids in both runs whose inputs differ (answer text or passages;
            ``runs.baseline_identity.compare_inputs``): still paired, and in the figures.
        shared: the answers both runs share (same test id, changed ones included) and the
            figures over them alone (``runs.baseline_identity.SharedAnswers``); ``None`` in
            comparisons made before it existed.
        baseline_check: the baseline's age and ancestry
            (``runs.baseline_identity.BaselineCheck``), when ``--faithfulness-max-baseline-age``
            or ``--faithfulness-strict-baseline`` asked for it; else ``None``.
        answer_effect / judge_effect: with a re-judged baseline (``runs.effects``), the old
            answers vs the new ones, both judged by the new judge (what ``figures``, the gate
            and the compare-fail bounds then measure), and the old judge vs the new one on the
            old answers (reported, never gated); ``None`` otherwise.
    """

    baseline_name: str
    baseline_path: str | None = None
    baseline_label: str = ""
    baseline_commit: str | None = None
    current_commit: str | None = None
    figures: list[FigureRow] = Field(default_factory=list)
    answers: list[AnswerChange] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    inconclusive: list[str] = Field(default_factory=list)
    untestable: list[str] = Field(default_factory=list)
    instability: list[AnswerChange] = Field(default_factory=list)
    alpha: float | None = None
    changed: list[str] = Field(default_factory=list)
    shared: SharedAnswers | None = None
    baseline_check: BaselineCheck | None = None
    answer_effect: Effect | None = None
    judge_effect: Effect | None = None

    @property
    def worsened(self) -> int:
        """Claims that became unsupported or contradicted, over every answer of this run (a
        claim of an added answer counts when it is not supported)."""
        return sum(len(a.worsened) for a in self.answers)

    @property
    def recovered(self) -> int:
        """Claims that recovered, over every matched answer."""
        return sum(len(a.recovered) for a in self.answers)

    def figure(self, key: str) -> FigureRow | None:
        """The row of one figure, by ``RunFigures`` field name."""
        return next((f for f in self.figures if f.key == key), None)


#: (field, label, better) of the figures compared, in display order.
FIGURES: tuple[tuple[str, str, Literal["higher", "lower", "neither"]], ...] = (
    ("mean_faithfulness", "mean faithfulness", "higher"),
    ("unsupported_answer_rate", "share of answers with a claim not supported", "lower"),
    ("answers", "answers", "neither"),
    ("scored", "scored", "neither"),
    ("unscored", "unscored", "neither"),
    ("errored", "errored", "lower"),
    ("claims", "claims", "neither"),
    ("supported", "supported claims", "neither"),
    ("contradicted", "contradicted claims", "lower"),
    ("unsupported", "unsupported claims", "lower"),
)


def _claim_key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(" .!?;:")


def _label(value: str | None) -> str:
    return value if value is not None else "no verdict"


def compare_answers(before: SavedAnswer, after: SavedAnswer) -> AnswerChange:
    """The claim-level changes of one answer (claims matched by normalised text, in order)."""
    change = AnswerChange(test_id=after.test_id, before_score=before.score,
                          after_score=after.score, before_status=before.status,
                          after_status=after.status)
    pool: dict[str, list[SavedClaim]] = {}
    for claim in before.claims:
        pool.setdefault(_claim_key(claim.text), []).append(claim)
    for claim in after.claims:
        matches = pool.get(_claim_key(claim.text))
        old = matches.pop(0) if matches else None
        now_bad = claim.label in _NOT_SUPPORTED
        item = ClaimChange(text=claim.text, before="absent" if old is None else _label(old.label),
                           after=_label(claim.label), evidence=claim.evidence,
                           passage_ids=claim.passage_ids, quote=claim.quote)
        if old is None:
            if now_bad:
                change.worsened.append(item)
        elif now_bad and old.label == "supported":
            change.worsened.append(item)
        elif not now_bad and old.label in _NOT_SUPPORTED:
            change.recovered.append(item)
        elif now_bad and old.label != claim.label:
            change.relabelled.append(item)
    for leftovers in pool.values():
        for old in leftovers:
            if old.label in _NOT_SUPPORTED:
                change.recovered.append(ClaimChange(text=old.text, before=_label(old.label),
                                                    after="absent", evidence=old.evidence,
                                                    passage_ids=old.passage_ids,
                                                    quote=old.quote))
    return change


def _judge_warnings(baseline: SavedRun, current: SavedRun) -> list[str]:
    before = {j.identity(): j for j in baseline.judges}
    after = {j.identity(): j for j in current.judges}
    if not before or not after or set(before) == set(after):
        return []
    warnings = []
    old_prompts = {j.prompt_version for j in before.values() if j.prompt_version is not None}
    new_prompts = {j.prompt_version for j in after.values() if j.prompt_version is not None}
    if old_prompts and new_prompts and old_prompts != new_prompts:
        warnings.append(f"prompt version differs: baseline {', '.join(sorted(old_prompts))}, "
                        f"this run {', '.join(sorted(new_prompts))}")
    old_desc = "; ".join(sorted({j.description for j in before.values()}))
    new_desc = "; ".join(sorted({j.description for j in after.values()}))
    warnings.append(f"judge differs: baseline judged by [{old_desc}], this run by [{new_desc}]"
                    " -- differences may come from the judge, not from the answers")
    return warnings


def compare_runs(baseline: SavedRun, current: SavedRun, *,
                 baseline_path: str | Path | None = None) -> Comparison:
    """Compare ``current`` with ``baseline``: figures, per-answer claim changes, answers added
    or removed, and warnings when the judges or prompt versions differ.

    ``failures`` is left empty; ``check_regressions`` fills it from compare-fail bounds.
    Answers with the same test id twice in one run are matched in order.
    """
    comparison = Comparison(baseline_name=baseline.name, baseline_label=baseline.label(),
                            baseline_path=str(baseline_path) if baseline_path else None,
                            baseline_commit=baseline.git.commit, current_commit=current.git.commit)
    for key, label, better in FIGURES:
        comparison.figures.append(FigureRow(key=key, label=label, better=better,
                                            before=getattr(baseline.figures, key),
                                            after=getattr(current.figures, key)))
    old: dict[str, list[SavedAnswer]] = {}
    for answer in baseline.answers:
        old.setdefault(answer.test_id, []).append(answer)
    same_judges = _same_judges(baseline, current)
    pairs: list[tuple[SavedAnswer, SavedAnswer]] = []
    for answer in current.answers:
        matches = old.get(answer.test_id)
        if matches:  # several answers under one test id: the same answer text first
            same = next((i for i, m in enumerate(matches) if m.answer == answer.answer), 0)
            matches.insert(0, matches.pop(same))
        if not matches:
            comparison.added.append(answer.test_id)
            # a new (or renamed) test's claims that are not supported are worse than the
            # baseline too: renaming a test never hides them from the ``worsened`` bound
            change = compare_answers(SavedAnswer(test_id=answer.test_id, status="absent"),
                                     answer)
            if change.worsened:
                comparison.answers.append(change)
            continue
        before = matches.pop(0)
        pairs.append((before, answer))
        change = compare_answers(before, answer)
        moved = change.before_status != change.after_status or (
            change.delta is not None and abs(change.delta) > _EPS)
        if moved or change.worsened or change.recovered or change.relabelled:
            if same_judges and same_inputs(before, answer):
                comparison.instability.append(change)
            else:
                comparison.answers.append(change)
    comparison.removed = [a.test_id for rest in old.values() for a in rest]
    comparison.warnings = _judge_warnings(baseline, current)
    _paired_statistics(comparison, pairs)
    from .baseline_identity import describe_shared

    describe_shared(comparison, baseline, current, pairs)
    return comparison


def same_inputs(before: SavedAnswer, after: SavedAnswer) -> bool:
    """Whether two saved answers were judged on identical inputs: the same answer text and
    the same passages (digest known in both runs) under one judge description."""
    return (before.answer == after.answer and before.passages_digest is not None
            and before.passages_digest == after.passages_digest and before.judge == after.judge)


def _same_judges(baseline: SavedRun, current: SavedRun) -> bool:
    """The two runs' judges are known and identical (fingerprints: model, prompt version,
    parameters)."""
    before = {j.identity() for j in baseline.judges}
    after = {j.identity() for j in current.judges}
    return bool(before) and before == after


def _flag(answer: SavedAnswer) -> float:
    return 1.0 if any(c.label != "supported" for c in answer.claims) else 0.0


def _paired_statistics(comparison: Comparison,
                       pairs: list[tuple[SavedAnswer, SavedAnswer]]) -> None:
    """Fill the paired interval, p-value and smallest detectable drop of mean faithfulness
    and the unsupported-answer rate, over the pairs scored in both runs."""
    from .statistics import detectable_drop, mcnemar_exact, paired_bootstrap

    scored = sorted(((b, a) for b, a in pairs if b.status == "scored" and a.status == "scored"
                     and b.score is not None and a.score is not None),
                    key=lambda pair: (pair[1].test_id, pair[1].answer, pair[0].answer))
    # sorted: the bootstrap must not depend on the order answers were recorded in (xdist)
    before_scores = [b.score for b, _ in scored if b.score is not None]  # all: scored above
    after_scores = [a.score for _, a in scored if a.score is not None]
    before_flags = [_flag(b) for b, _ in scored]
    tests: dict[str, tuple[Any, list[float]]] = {
        "mean_faithfulness": (paired_bootstrap(before_scores, after_scores),
                              before_scores),
        "unsupported_answer_rate": (mcnemar_exact([bool(f) for f in before_flags],
                                                  [bool(_flag(a)) for _, a in scored]),
                                    before_flags),
    }
    for key, (result, values) in tests.items():
        row = comparison.figure(key)
        if row is None:
            continue
        row.pairs = len(scored)
        row.detectable_drop = detectable_drop(values) if values else None
        if result is not None:
            row.paired_delta, row.ci, row.p_value, row.test = (result.delta, result.ci,
                                                               result.p_value, result.test)


# --------------------------------------------------------------------------------------------
# Compare-fail expressions.

#: name -> (figure field or "worsened", label, kind). ``higher``: the figure may drop by at most
#: the bound; ``lower``: it may rise by at most the bound.
COMPARE_METRICS: dict[str, tuple[str, str, str]] = {
    "mean": ("mean_faithfulness", "mean faithfulness", "higher"),
    "unsupported_rate": ("unsupported_answer_rate",
                         "share of answers with a claim not supported", "lower"),
    "contradicted": ("contradicted", "contradicted claims", "lower"),
    "unsupported": ("unsupported", "unsupported claims", "lower"),
    "errored": ("errored", "errored answers", "lower"),
    "worsened": ("worsened", "claims that became unsupported or contradicted", "count"),
}


class CompareFail(LenientRecord):
    """One compare-fail bound.

    Args:
        metric: a ``COMPARE_METRICS`` name (``mean``, ``unsupported_rate``, ``contradicted``,
            ``unsupported``, ``errored``, ``worsened``).
        allowed: how far the figure may move the wrong way: a drop for ``mean``, a rise for
            the others (rates are fractions in [0, 1]; counts are claims or answers);
            for ``worsened``, how many claims may become unsupported or contradicted.
        expr: the expression as given.
    """

    metric: str
    allowed: float = Field(ge=0)
    expr: str


def parse_compare_fail(exprs: Iterable[str] | str | None) -> list[CompareFail]:
    """Parse compare-fail expressions: ``METRIC:BOUND``, several per string comma-separated.

    Example: ``["mean:0.02", "unsupported_rate:0.05,contradicted:0"]``.

    Raises:
        ValueError: an unknown metric, a missing or negative bound, or a bound above 1 for a
            rate (the message names the expression and the metrics).
    """
    if exprs is None:
        return []
    if isinstance(exprs, str):
        exprs = [exprs]
    out: list[CompareFail] = []
    names = ", ".join(COMPARE_METRICS)
    for chunk in exprs:
        for expr in (e.strip() for e in str(chunk).split(",")):
            if not expr:
                continue
            metric, sep, raw = expr.partition(":")
            metric = metric.strip().lower().replace("-", "_")
            if not sep or metric not in COMPARE_METRICS:
                raise ValueError(f"bad compare-fail expression {expr!r}: expected METRIC:BOUND "
                                 f"with METRIC one of {names} (e.g. mean:0.02)")
            try:
                allowed = float(raw.strip())
            except ValueError:
                raise ValueError(f"bad compare-fail expression {expr!r}: the bound must be a "
                                 "number (a fraction for mean/unsupported_rate, e.g. 0.02; "
                                 "a count for the others)") from None
            if not allowed >= 0:
                raise ValueError(f"bad compare-fail expression {expr!r}: the bound must be >= 0")
            if metric in ("mean", "unsupported_rate") and allowed > 1:
                raise ValueError(f"bad compare-fail expression {expr!r}: {metric} is a fraction "
                                 "in [0, 1], so the bound must be at most 1 (0.02 = 2 points)")
            out.append(CompareFail(metric=metric, allowed=allowed, expr=expr))
    return out


def check_regressions(comparison: Comparison, bounds: Iterable[CompareFail],
                      alpha: float | None = None) -> list[str]:
    """Gate failures for the regressions of ``comparison`` beyond ``bounds``; also stored in
    ``comparison.failures``.

    A figure the baseline has but this run lacks (no answer scored now) is a failure; a
    figure the baseline lacks cannot regress.

    With ``alpha`` (``--faithfulness-compare-alpha``), a ``mean`` or ``unsupported_rate``
    bound fails only when the figure moved the wrong way by more than the bound **and** the
    paired test is significant (``p_value <= alpha``); a move beyond the bound that is not
    significant adds a loud ``NOT SIGNIFICANT`` warning to ``comparison.warnings`` naming the
    smallest change the pairs can detect. With no pair scored in both runs there is no test:
    the bound fails (fail closed). Without ``alpha`` the bounds are absolute and the message
    gives the p-value. The count bounds are always absolute.
    """
    comparison.alpha = alpha
    failures: list[str] = []
    inconclusive: list[str] = []
    untestable: list[str] = []
    where = f"against {comparison.baseline_name}"
    for bound in bounds:
        key, label, kind = COMPARE_METRICS[bound.metric]
        if kind == "count":
            if comparison.worsened > bound.allowed + _EPS:
                failures.append(f"regression {where}: {comparison.worsened} {label} > "
                                f"{bound.allowed:g} allowed ({bound.expr})")
            continue
        for row, scope in _bound_views(comparison, key):
            if _check_row(row, scope, bound, key, label, kind, where, comparison, alpha,
                          failures, inconclusive, untestable):
                break  # one reason per bound: the shared answers' first
    comparison.failures, comparison.inconclusive = failures, inconclusive
    comparison.untestable = untestable
    return failures


def _bound_views(comparison: Comparison, key: str) -> list[tuple[Any, str]]:
    """The rows a figure bound is checked on: over the answers both runs share (when answers
    were added or removed: ``runs.baseline_identity.shared_row``), then over the whole runs.
    Checking both means that neither adding answers (which can lift a whole-run figure) nor
    removing or renaming them (which can lift it too, or hide a drop) passes a regression."""
    from .baseline_identity import shared_row

    rows: list[tuple[Any, str]] = []
    shared = shared_row(comparison, key)
    if shared is not None and comparison.shared is not None:
        rows.append((shared, f" (over the {comparison.shared.answers} answers both runs "
                             "share)"))
    whole = comparison.figure(key)
    if whole is not None:
        rows.append((whole, " (over the whole runs)" if rows else ""))
    return rows


def _check_row(row: Any, scope: str, bound: CompareFail, key: str, label: str, kind: str,
               where: str, comparison: Comparison, alpha: float | None, failures: list[str],
               inconclusive: list[str], untestable: list[str]) -> bool:
    """Check one compare-fail ``bound`` on one view of a figure (``_bound_views``); append
    to ``failures`` / ``inconclusive`` / ``untestable`` and return whether it fired. The
    paired test (over the answers scored in both runs) is the whole-run row's."""
    if row.before is None:
        return False
    stats = comparison.figure(key) or row
    if row.after is None:
        untestable.append(f"regression {where}: {label} is not defined in this run "
                          f"(baseline {format_figure(row.before, key)}) ({bound.expr}){scope}")
        failures.append(untestable[-1])
        return True
    worse = row.before - row.after if kind == "higher" else row.after - row.before
    if worse > bound.allowed + _EPS:
        verb = "dropped" if kind == "higher" else "rose"
        before, after = format_figure(row.before, key), format_figure(row.after, key)
        text = (f"{label} {verb} by {format_figure(worse, key)} ({before} -> {after}) > "
                f"{bound.allowed:g} allowed ({bound.expr}){scope}")
        p = stats.p_value
        if alpha is not None and p is not None and p > alpha:
            drop = ("unknown" if stats.detectable_drop is None
                    else format_figure(stats.detectable_drop, key))
            comparison.warnings.append(
                f"NOT SIGNIFICANT: {text}, but p = {p:.3g} > alpha {alpha:g} "
                f"({stats.test}, {stats.pairs} paired answers), so the run is inconclusive, "
                f"not regressed; the smallest change this suite can detect is {drop} "
                "(alpha 0.05, power 0.8): with a bound below it, the gate cannot tell a "
                "real drop from noise; add answers or loosen the bound")
            inconclusive.append(f"inconclusive {where}: {text}, but not significant "
                                f"(p = {p:.3g} > alpha {alpha:g}, {stats.test}, "
                                f"{stats.pairs} paired answers)")
            return True
        if p is None:
            tested = ("; no answer scored in both runs, so no significance test"
                      if alpha is not None else "")
        else:
            tested = f"; p = {p:.3g}, {stats.test}"
            if alpha is not None:
                tested += f", significant at alpha {alpha:g}"
        failures.append(f"regression {where}: {text}{tested}")
        if alpha is not None and p is None:
            untestable.append(failures[-1])
        return True
    return False
