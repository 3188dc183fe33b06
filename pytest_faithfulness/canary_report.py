"""The judge canaries' report (issue 23): what the run's judge made of claims whose right verdict
is known, as counts per kind, the two figures with their Wilson 95% intervals, and every miss.

* **recall**: of the mutants (claims that must not come back ``supported``), the share the
  judge refused;
* **keep-rate**: of the controls (claims that must come back ``supported``), the share it kept.

Both are read twice: from the **judge's own verdict** (before the evidence and quote check:
whether the judge can still say no, and yes; the bounds read these) and from the verdict after
the check (reported beside them). A judge error on a canary is a miss in both (fail closed),
never left out of a denominator. The figures are computed from the per-kind counts alone, so
that ``merge`` adds its shards' counts up and recomputes them on the sum (``merged``).

Pydantic records and arithmetic only: no judge, no pytest; of ours, only ``records``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from .records import Usage

#: The z of a two-sided 95% interval.
Z95 = 1.959963984540054

#: What the report says of judges whose canaries come from the generator their rules were
#: fitted against (the offline judges).
SMOKE_TEST_NOTE = ("the offline judges' rules were fitted against the same mutant generator "
                   "that builds these canaries: their canary figures are a smoke test, not a "
                   "measurement")


def wilson(correct: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``correct / total`` (``None`` when ``total`` is 0).

    Args:
        correct: successes, ``0 <= correct <= total``.
        total: trials.
        z: the normal quantile (default: 95%, two-sided).

    Returns:
        ``(low, high)``, both in ``[0, 1]``.

    Raises:
        ValueError: negative counts, or ``correct > total``.
    """
    if correct < 0 or total < 0 or correct > total:
        raise ValueError(f"need 0 <= correct <= total, got {correct} of {total}")
    if total == 0:
        return None
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class CanaryFigure(BaseModel):
    """One figure: ``correct`` of ``total``, its point value and Wilson 95% interval
    (``None`` for both when ``total`` is 0)."""

    correct: int = 0
    total: int = 0
    value: float | None = None
    interval: tuple[float, float] | None = None

    @classmethod
    def of(cls, correct: int, total: int) -> CanaryFigure:
        """The figure of ``correct`` of ``total`` (see ``wilson``)."""
        return cls(correct=correct, total=total, value=correct / total if total else None,
                   interval=wilson(correct, total))

    def text(self) -> str:
        """``"0.950 (19/20; 95% CI 0.764-0.991)"``, or ``"n/a (0 canaries)"``."""
        if self.value is None or self.interval is None:
            return "n/a (0 canaries)"
        low, high = self.interval
        return (f"{self.value:.3f} ({self.correct}/{self.total}; 95% CI "
                f"{low:.3f}-{high:.3f})")


class CanaryResult(BaseModel):
    """One canary as judged.

    Attributes:
        role: ``"control"`` (must be ``supported``) or ``"mutant"`` (must not be).
        kind: the control's rewording or the mutant's kind.
        claim: the canary claim.
        expected: ``"supported"`` or ``"not supported"``.
        passage_id: the passage its sentence came from.
        sentence: that sentence.
        detail: what the canary changed (``"14 -> 17"``); empty for a verbatim control.
        judge_label: the judge's own verdict (before the evidence check); ``None`` on error.
        label: the verdict after the evidence and quote check; ``None`` on error.
        evidence: the judge's evidence, ``[{"passage_id": ..., "quote": ...}]``.
        note: why the check did not accept the judge's verdict as given, else ``None``.
        error: the judge error (redacted), else ``None``: a miss in both readings.
    """

    role: Literal["control", "mutant"]
    kind: str
    claim: str
    expected: Literal["supported", "not supported"]
    passage_id: str = ""
    sentence: str = ""
    detail: str = ""
    judge_label: str | None = None
    label: str | None = None
    evidence: list[dict[str, str]] = Field(default_factory=list)
    note: str | None = None
    error: str | None = None

    def _right(self, label: str | None) -> bool:
        if self.error is not None or label is None:
            return False
        return (label == "supported") == (self.expected == "supported")

    @property
    def judge_right(self) -> bool:
        """Whether the judge's own verdict is the expected one (an error never is)."""
        return self._right(self.judge_label)

    @property
    def checked_right(self) -> bool:
        """Whether the verdict after the check is the expected one (an error never is)."""
        return self._right(self.label)


class CanaryKind(BaseModel):
    """The counts of one kind: ``total`` canaries, ``judge_right`` of them right by the judge's
    own verdict, ``checked_right`` after the check, ``errors`` judge errors (wrong in both)."""

    role: Literal["control", "mutant"]
    kind: str
    total: int = 0
    judge_right: int = 0
    checked_right: int = 0
    errors: int = 0


class CanaryReport(BaseModel):
    """What the run's judge made of its canaries (see the module docstring).

    Attributes:
        asked: canaries asked for (``--faithfulness-canaries``; a merge: summed).
        built: canaries built and judged.
        kinds: the counts per role and kind (controls first), the source of every figure.
        recall / keep_rate: from the judge's own verdicts (what the bounds read).
        recall_checked / keep_rate_checked: after the evidence and quote check.
        missed: the canaries wrong by either reading (errors included), each with both
            verdicts.
        errors: judge errors on canaries (counted as misses).
        notes: why fewer canaries than asked were built (too few passages), or why none were
            judged; never an error.
        smoke_test: the judge's rules were fitted against the canaries' generator (the
            offline judges): the figures are a smoke test (``SMOKE_TEST_NOTE``).
        judge: the judge's description.
        usage: the canaries' judge calls, cache hits, tokens and cost.
        shards: how many runs' canaries this report adds up (1; a merge: the shards with one).
        min_recall / min_keep: the bounds the run applied (``None``: not applied yet); a merge
            applies the strictest of its shards' and its own, so no bound a shard ran with is
            dropped.
    """

    asked: int = 0
    built: int = 0
    kinds: list[CanaryKind] = Field(default_factory=list)
    recall: CanaryFigure = Field(default_factory=CanaryFigure)
    keep_rate: CanaryFigure = Field(default_factory=CanaryFigure)
    recall_checked: CanaryFigure = Field(default_factory=CanaryFigure)
    keep_rate_checked: CanaryFigure = Field(default_factory=CanaryFigure)
    missed: list[CanaryResult] = Field(default_factory=list)
    errors: int = 0
    notes: list[str] = Field(default_factory=list)
    smoke_test: bool = False
    judge: str = ""
    usage: Usage = Field(default_factory=Usage)
    shards: int = 1
    min_recall: float | None = None
    min_keep: float | None = None

    @classmethod
    def of(cls, results: Sequence[CanaryResult], *, asked: int, notes: Iterable[str] = (),
           smoke_test: bool = False, judge: str = "", usage: Usage | None = None
           ) -> CanaryReport:
        """The report of judged canaries (``results``, in the order built)."""
        rows: dict[tuple[str, str], CanaryKind] = {}
        for r in results:
            row = rows.setdefault((r.role, r.kind), CanaryKind(role=r.role, kind=r.kind))
            row.total += 1
            row.judge_right += r.judge_right
            row.checked_right += r.checked_right
            row.errors += r.error is not None
        missed = [r for r in results if not (r.judge_right and r.checked_right)]
        return cls(asked=asked, built=len(results), kinds=list(rows.values()), missed=missed,
                   notes=[n for n in notes if n], smoke_test=smoke_test, judge=judge,
                   usage=usage or Usage())._figured()

    def _figured(self) -> CanaryReport:
        self.kinds.sort(key=lambda k: (k.role != "control", k.kind))
        self.errors = sum(k.errors for k in self.kinds)

        def figure(role: str, field: str) -> CanaryFigure:
            rows = [k for k in self.kinds if k.role == role]
            return CanaryFigure.of(sum(getattr(k, field) for k in rows),
                                   sum(k.total for k in rows))

        self.recall, self.keep_rate = figure("mutant", "judge_right"), \
            figure("control", "judge_right")
        self.recall_checked, self.keep_rate_checked = figure("mutant", "checked_right"), \
            figure("control", "checked_right")
        return self

    @classmethod
    def merged(cls, reports: Sequence[CanaryReport]) -> CanaryReport:
        """The shards' reports added up: counts, misses, usage and notes summed, the figures
        and intervals recomputed on the sum (never averaged)."""
        rows: dict[tuple[str, str], CanaryKind] = {}
        usage = Usage()
        for report in reports:
            for k in report.kinds:
                row = rows.setdefault((k.role, k.kind), CanaryKind(role=k.role, kind=k.kind))
                row.total += k.total
                row.judge_right += k.judge_right
                row.checked_right += k.checked_right
                row.errors += k.errors
            for name in type(usage).model_fields:
                setattr(usage, name, getattr(usage, name) + getattr(report.usage, name))
        return cls(asked=sum(r.asked for r in reports), built=sum(r.built for r in reports),
                   kinds=list(rows.values()),
                   missed=[m for r in reports for m in r.missed],
                   notes=list(dict.fromkeys(n for r in reports for n in r.notes)),
                   smoke_test=any(r.smoke_test for r in reports),
                   judge="; ".join(dict.fromkeys(r.judge for r in reports if r.judge)),
                   usage=usage, shards=sum(r.shards for r in reports),
                   min_recall=strictest(r.min_recall for r in reports),
                   min_keep=strictest(r.min_keep for r in reports))._figured()

    def kind_figure(self, row: CanaryKind, *, checked: bool = False) -> CanaryFigure:
        """One kind's figure (its recall for a mutant kind, its keep-rate for a control)."""
        return CanaryFigure.of(row.checked_right if checked else row.judge_right, row.total)

    def bound_failures(self, min_recall: float | None, min_keep: float | None) -> list[str]:
        """The reasons the run cannot measure: the upper end of the Wilson 95% interval of
        recall below ``min_recall``, or of keep-rate below ``min_keep`` (judge's own verdicts;
        ``None`` turns a bound off; a figure over no canaries is not judged). Each reason names
        the figure, its interval and the bound."""
        reasons = []
        for name, figure, bound, what in (
                ("canary recall", self.recall, min_recall, "mutants refused"),
                ("control keep-rate", self.keep_rate, min_keep, "controls kept")):
            if bound is None or figure.interval is None or figure.interval[1] >= bound:
                continue
            flag = ("--faithfulness-min-canary-recall" if name == "canary recall"
                    else "--faithfulness-min-control-keep")
            reasons.append(
                f"the judge cannot measure this run: {name} {figure.text()} ({what}, by the "
                f"judge's own verdicts): the upper end of its 95% interval is below {flag} "
                f"{bound:g}")
        return reasons


def strictest(bounds: Iterable[float | None]) -> float | None:
    """The highest of the lower bounds given (``None`` when none is): the bound a merge
    applies, so that no bound a shard ran with is dropped."""
    given = [b for b in bounds if b is not None]
    return max(given) if given else None
