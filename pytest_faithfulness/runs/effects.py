"""The answer effect and the judge effect of a comparison across a judge change (issue 25).

With three runs, the baseline (old answers, old judge), the baseline re-judged
(``runs.rejudge``: old answers, new judge) and the current run (new answers, new judge):

* the **answer effect** is the re-judged baseline against the current run: only the answers
  differ. It is the comparison itself (``compare_rejudged``: its figures, the gate and the
  compare-fail bounds all measure it);
* the **judge effect** is the baseline against the re-judged baseline: only the judge
  differs. It is reported, with its interval and p-value, and never gates.

Each effect carries mean faithfulness and the unsupported-answer rate side by side with the
paired change, its 95% interval, the p-value and the pairs, computed exactly as a comparison's
(``compare.compare_runs``: ``runs.statistics.paired_bootstrap`` and ``mcnemar_exact``).
Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .compare import Comparison, Effect, compare_runs
from .saved import SavedRun

#: The figures an effect reports (``RunFigures`` fields), the paired ones of a comparison.
EFFECT_FIGURES = ("mean_faithfulness", "unsupported_answer_rate")


def effect_of(comparison: Comparison, kind: str, before: str, after: str,
              notes: Iterable[str] = ()) -> Effect:
    """The ``Effect`` of one comparison: copies of its paired figure rows."""
    rows = [row.model_copy(deep=True) for key in EFFECT_FIGURES
            if (row := comparison.figure(key)) is not None]
    return Effect(kind=kind, before=before, after=after,  # type: ignore[arg-type]
                  figures=rows, notes=list(notes))


def judge_name(run: SavedRun) -> str:
    """The judges of a run, for people: their descriptions, ``; ``-separated."""
    return "; ".join(sorted({j.description for j in run.judges})) or "an unknown judge"


def compare_rejudged(baseline: SavedRun, rejudged: SavedRun, current: SavedRun, *,
                     baseline_path: str | Path | None = None,
                     notes: Iterable[str] = ()) -> Comparison:
    """Compare ``current`` with ``baseline`` re-judged by the current judge (``rejudged``, a
    run of ``runs.rejudge``), and split the change into its two effects.

    The returned comparison is ``compare_runs(rejudged, current)`` (so its figures, and the
    ``check_regressions`` bounds applied to it, measure the answer effect only), named after
    the re-judged run, with ``answer_effect`` (the same figures) and ``judge_effect``
    (``compare_runs(baseline, rejudged)``: the old answers under both judges) filled.

    Args:
        baseline: the saved run as it was saved (old answers, old judge).
        rejudged: ``baseline`` re-judged by the current judge.
        current: this run (its ``answers`` suffice).
        baseline_path: the file the comparison names (the re-judged run's, when saved).
        notes: lines for the judge effect (e.g. ``rejudge.split_notes``).
    """
    comparison = compare_runs(rejudged, current, baseline_path=baseline_path)
    old_judge, new_judge = judge_name(baseline), judge_name(rejudged)
    comparison.baseline_label = f"{baseline.label()}, re-judged by this run's judge"
    judges = f"old judge: {old_judge}; new judge: {new_judge}"
    old_answers = f"{baseline.name} answers"
    comparison.answer_effect = effect_of(
        comparison, "answer", f"{old_answers}, new judge", "this run's answers, new judge",
        ["the baseline was re-judged by this run's judge (its claims kept): the figures, the "
         "gate and --faithfulness-compare-fail compare the answers only"])
    judged = compare_runs(baseline, rejudged)
    comparison.judge_effect = effect_of(
        judged, "judge", f"{old_answers}, old judge", f"{old_answers}, new judge",
        ["reported, never gated: the change the judge swap alone makes on the same answers",
         judges, *notes])
    return comparison
