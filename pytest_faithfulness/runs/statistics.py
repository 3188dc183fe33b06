"""How sure a headline figure is: bootstrap intervals, paired tests, the smallest detectable drop.

Pure Python (the standard library's ``random`` and ``statistics.NormalDist``): numpy is only an
optional extra of this package. Nothing here imports pytest or pydantic.

Methods (the README says the same):

* **Confidence interval of a figure** (``bootstrap_ci``): the percentile bootstrap over
  answers (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13): ``RESAMPLES``
  (2000) resamples of the answers, drawn with replacement by ``random.Random(SEED)`` (a fixed
  seed, so one set of answers always gives the same interval); the figure is computed on each
  resample and the 2.5th and 97.5th percentiles of those values (linear interpolation between
  order statistics, Hyndman & Fan 1996 type 7, numpy's default) bound the 95% interval. The
  figures are the mean faithfulness (mean of per-answer scores) and the unsupported-answer
  rate (mean of per-answer 0/1 flags: 1 when the answer has a claim that is not supported).
* **Paired comparison of two runs** (``paired_bootstrap``): answers are paired (same test id),
  ``d_i = after_i - before_i``; the interval of the mean change is the percentile bootstrap of
  ``mean(d*)`` over resampled pairs; its two-sided p-value is the bootstrap test of a zero mean
  change: the resampled means are centred on zero (``mean(d*) - mean(d)``) and
  ``p = (1 + #{|centred| >= |mean(d)|}) / (RESAMPLES + 1)`` (Davison & Hinkley 1997,
  *Bootstrap Methods and their Application*, §4.4 and eq. 4.11 for the ``+1``).
* **Paired test of the unsupported-answer rate** (``mcnemar_exact``): the exact McNemar test,
  i.e. the two-sided exact sign test on the discordant pairs (answers that went from no
  unsupported claim to one, ``b``, and back, ``c``): ``p = min(1, 2 * P[X <= min(b, c)])``
  with ``X ~ Binomial(b + c, 1/2)`` (McNemar 1947; Agresti 2013, *Categorical Data Analysis*,
  §11.1.4). Its interval is the paired bootstrap's, as for the mean.
* **Smallest detectable drop** (``detectable_drop``): the normal-approximation sample-size
  formula for a paired (one-sample) mean difference, ``n = (z_{1-a/2} + z_{1-b})^2 s_d^2 /
  delta^2`` (Chow, Shao & Wang 2008, *Sample Size Calculations in Clinical Research*, §3.1),
  solved for ``delta`` with ``a = 0.05`` (two-sided) and power ``1 - b = 0.8``:
  ``delta = (1.960 + 0.842) * s_d / sqrt(n)``. From one run the spread of the paired
  differences is not known; it is taken as ``s_d = sqrt(2) * s``, the spread of the
  difference of two uncorrelated runs (conservative: a second run of the same suite is
  usually positively correlated with the first, and then smaller drops are detectable), with
  ``s`` the standard deviation of the per-answer figure after adding two pseudo-answers at 0
  and two at 1 (Agresti & Coull 1998's "add two successes and two failures"), so that a suite
  in which every answer scored the same does not claim to detect a drop of zero.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

#: The seed of every bootstrap (fixed: the same answers always give the same interval).
SEED = 20240611
#: Bootstrap resamples per interval or test.
RESAMPLES = 2000
#: The confidence level of every interval.
LEVEL = 0.95
#: The significance level and power of the smallest detectable drop.
ALPHA = 0.05
POWER = 0.8

METHOD = (f"percentile bootstrap over answers, {RESAMPLES} resamples, seed {SEED}, "
          f"{LEVEL:.0%} interval")


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (``0 <= q <= 1``) of ``values`` by linear interpolation between order
    statistics (Hyndman & Fan 1996 type 7, numpy's default).

    Raises:
        ValueError: ``values`` is empty or ``q`` outside [0, 1].
    """
    if not values:
        raise ValueError("quantile of no values")
    if not 0 <= q <= 1:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    ordered = sorted(values)
    h = (len(ordered) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _resampled_means(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    n = len(values)
    values = list(values)
    if all(v == values[0] for v in values) and values[0] == values[0]:
        # every resample is n copies of the one value, summed in the same order: the same
        # mean each time, so it is computed once (the usual cached re-run: every score 1.0)
        return [sum(values) / n] * resamples
    rng = random.Random(seed)
    return [sum(rng.choices(values, k=n)) / n for _ in range(resamples)]


def bootstrap_ci(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED,
                 level: float = LEVEL) -> tuple[float, float] | None:
    """The percentile-bootstrap interval of the mean of ``values`` (see the module docstring).

    Args:
        values: one number per answer (a faithfulness score in [0, 1], or a 0/1 flag).
        resamples / seed / level: the bootstrap's resamples, seed and confidence level.

    Returns:
        ``(low, high)``, or ``None`` when ``values`` is empty.
    """
    if not values:
        return None
    means = _resampled_means(values, resamples, seed)
    tail = (1 - level) / 2
    return quantile(means, tail), quantile(means, 1 - tail)


@dataclass(frozen=True)
class PairedResult:
    """A paired comparison of one figure between two runs.

    Attributes:
        n: pairs compared.
        delta: mean of ``after - before`` over the pairs.
        ci: the bootstrap interval of ``delta`` (``(low, high)``).
        p_value: the two-sided p-value of "no change" (which test: ``test``).
        test: the test's name, for reports.
    """

    n: int
    delta: float
    ci: tuple[float, float]
    p_value: float
    test: str


def paired_bootstrap(before: Sequence[float], after: Sequence[float], *,
                     resamples: int = RESAMPLES, seed: int = SEED,
                     level: float = LEVEL) -> PairedResult | None:
    """The paired bootstrap of the mean change ``after - before`` (see the module docstring).

    Args:
        before / after: the figure per answer in each run, paired by position.

    Returns:
        a ``PairedResult``, or ``None`` when there are no pairs.

    Raises:
        ValueError: the two sequences differ in length.
    """
    if len(before) != len(after):
        raise ValueError(f"paired figures differ in length: {len(before)} and {len(after)}")
    if not before:
        return None
    diffs = [a - b for a, b in zip(after, before)]
    observed = _mean(diffs)
    means = _resampled_means(diffs, resamples, seed)
    tail = (1 - level) / 2
    extreme = sum(1 for m in means if abs(m - observed) >= abs(observed) - 1e-12)
    return PairedResult(n=len(diffs), delta=observed,
                        ci=(quantile(means, tail), quantile(means, 1 - tail)),
                        p_value=min(1.0, (1 + extreme) / (resamples + 1)),
                        test="paired bootstrap")


def sign_test(worse: int, better: int) -> float:
    """The exact two-sided sign test of ``worse`` against ``better`` discordant pairs:
    ``min(1, 2 * P[X <= min(worse, better)])`` with ``X ~ Binomial(worse + better, 1/2)``;
    1.0 when there is no discordant pair.

    Raises:
        ValueError: a negative count.
    """
    if worse < 0 or better < 0:
        raise ValueError(f"counts must be >= 0, got {worse} and {better}")
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / 2 ** n)


def mcnemar_exact(before: Sequence[bool], after: Sequence[bool], *,
                  resamples: int = RESAMPLES, seed: int = SEED,
                  level: float = LEVEL) -> PairedResult | None:
    """The paired comparison of a rate (one 0/1 flag per answer in each run): the change in
    the rate, its paired-bootstrap interval, and the exact McNemar p-value (``sign_test`` of
    the pairs flagged only after against those flagged only before).

    Returns:
        a ``PairedResult``, or ``None`` when there are no pairs.

    Raises:
        ValueError: the two sequences differ in length.
    """
    boot = paired_bootstrap([float(b) for b in before], [float(a) for a in after],
                            resamples=resamples, seed=seed, level=level)
    if boot is None:
        return None
    only_after = sum(1 for b, a in zip(before, after) if a and not b)
    only_before = sum(1 for b, a in zip(before, after) if b and not a)
    return PairedResult(n=boot.n, delta=boot.delta, ci=boot.ci,
                        p_value=sign_test(only_after, only_before), test="exact McNemar")


def planning_sd(values: Sequence[float]) -> float:
    """The standard deviation of ``values`` (numbers in [0, 1]) with two pseudo-values at 0
    and two at 1 added (see the module docstring); ``sqrt(1/3)`` for no values."""
    padded = [*values, 0.0, 0.0, 1.0, 1.0]
    m = _mean(padded)
    return math.sqrt(math.fsum((v - m) ** 2 for v in padded) / (len(padded) - 1))


def detectable_drop(values: Sequence[float], *, n: int | None = None, alpha: float = ALPHA,
                    power: float = POWER) -> float | None:
    """The smallest change in the mean of a [0, 1] figure that a paired comparison of two runs
    of ``n`` answers tells from noise at two-sided ``alpha`` with ``power`` (see the module
    docstring for the formula and its source); capped at 1.

    Args:
        values: the figure per answer in one run (it gives the spread).
        n: the number of pairs (default: ``len(values)``).

    Returns:
        the drop (a fraction in [0, 1]), or ``None`` when there are no answers.
    """
    n = len(values) if n is None else n
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return min(1.0, z * math.sqrt(2) * planning_sd(values) / math.sqrt(n))


@dataclass(frozen=True)
class FigureStatistics:
    """One headline figure's interval and smallest detectable drop.

    Attributes:
        ci: the 95% bootstrap interval ``(low, high)``, or ``None`` with no scored answer.
        detectable_drop: the smallest detectable change (``detectable_drop``), or ``None``.
    """

    ci: tuple[float, float] | None
    detectable_drop: float | None


def figure_statistics(values: Sequence[float]) -> FigureStatistics:
    """The interval and smallest detectable drop of the mean of ``values``."""
    return FigureStatistics(bootstrap_ci(values), detectable_drop(values))


def answer_figures(results: Sequence[Any]) -> tuple[list[float], list[float]]:
    """The per-answer figures behind the headline ones, over the scored answers (as in
    ``records.SessionSummary``): faithfulness scores, and 0/1 flags (1: the answer has a
    claim that is not supported). Each list is sorted, so that the bootstrap does not depend
    on the order the answers were recorded in (pytest-xdist workers finish in any order)."""
    scored = [r for r in results if getattr(r, "status", None) == "scored"]
    return (sorted(float(r.score) for r in scored),
            sorted(1.0 if r.not_supported > 0 else 0.0 for r in scored))


def with_statistics(summary, results: Sequence[object]):
    """``summary`` (a ``records.SessionSummary``) with ``ci`` and ``detectable_drop`` filled
    from the scored ``results``; both stay ``None`` when no answer was scored. Returns the same
    object."""
    from ..records import DetectableDrops, FigureIntervals

    scores, flags = answer_figures(results)
    if not scores:
        return summary
    mean, rate = figure_statistics(scores), figure_statistics(flags)
    summary.ci = FigureIntervals(mean=mean.ci, unsupported_rate=rate.ci, level=LEVEL,
                                 method=METHOD)
    summary.detectable_drop = DetectableDrops(mean=mean.detectable_drop,
                                              unsupported_rate=rate.detectable_drop,
                                              n=len(scores), alpha=ALPHA, power=POWER)
    return summary
