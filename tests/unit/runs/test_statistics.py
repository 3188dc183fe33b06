"""The statistics behind the intervals, the detectable drop and the paired comparison, held
against hand-computed figures, brute-force enumeration and numpy; the compare gate with a
significance level; judge instability apart from regressions."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from pytest_faithfulness.judges import OfflineJudge
from pytest_faithfulness.records import AnswerResult, ClaimResult, Passage, Verdict
from pytest_faithfulness.runs.compare import parse_compare_fail
from pytest_faithfulness.runs.statistics import (
    bootstrap_ci,
    detectable_drop,
    mcnemar_exact,
    paired_bootstrap,
    quantile,
    sign_test,
)
from pytest_faithfulness.reports.html import html_of
from pytest_faithfulness.reports.markdown import markdown_of
from pytest_faithfulness.reports.json import json_of
from pytest_faithfulness.reports.terminal import comparison_lines, outcome_lines
from pytest_faithfulness.run.finish import compare_with, new_outcome
from pytest_faithfulness.run.gate import GateConfig
from pytest_faithfulness.run.outputs import saved_run, write_report
from pytest_faithfulness.run.results import ResultStore

# -- exact tests: known p-values computed by hand -------------------------------------------


@pytest.mark.parametrize(("worse", "better", "p"), [
    (8, 1, 2 * (1 + 9) / 2 ** 9),        # 2 * P[X <= 1], X ~ Bin(9, 1/2) = 20/512
    (6, 0, 2 / 2 ** 6),                   # all six discordant pairs one way: 0.03125
    (5, 0, 2 / 2 ** 5),                   # five are not enough at 0.05: 0.0625
    (3, 4, 1.0),                          # balanced: 2 * P[X <= 3] > 1, capped
    (0, 0, 1.0),                          # no discordant pair: no evidence
    (10, 2, 2 * (1 + 12 + 66) / 2 ** 12),  # 2 * P[X <= 2], X ~ Bin(12, 1/2)
])
def test_sign_test_matches_the_binomial_tail_by_hand(worse, better, p):
    assert sign_test(worse, better) == pytest.approx(p, abs=1e-15)
    assert sign_test(better, worse) == pytest.approx(p, abs=1e-15)  # two-sided


def test_mcnemar_counts_only_the_discordant_pairs():
    before = [False] * 20 + [True] * 3
    after = [True] * 8 + [False] * 12 + [True, False, True]  # 8 worse, 1 better, 2 stay
    result = mcnemar_exact(before, after)
    assert result.test == "exact McNemar"
    assert result.p_value == pytest.approx(20 / 512)
    assert result.delta == pytest.approx((8 - 1) / 23)
    assert result.n == 23


def test_sign_test_refuses_negative_counts():
    with pytest.raises(ValueError, match=">= 0"):
        sign_test(-1, 2)


# -- the paired bootstrap against brute-force enumeration of every resample ------------------


@pytest.mark.parametrize("diffs", [
    [-0.5, -0.25, 0.0, -0.75],
    [0.0, 0.0, -1.0, 0.5],
    [-0.2, -0.2, -0.2, 0.4, 0.0],
])
def test_paired_bootstrap_agrees_with_enumerating_every_resample(diffs):
    """With n pairs there are n**n equally likely resamples: their means are the exact
    bootstrap distribution. The Monte Carlo interval and p-value must match it."""
    n = len(diffs)
    means = [math.fsum(c) / n for c in itertools.product(diffs, repeat=n)]
    observed = math.fsum(diffs) / n
    exact_p = sum(1 for m in means if abs(m - observed) >= abs(observed) - 1e-12) / len(means)
    exact_ci = (quantile(means, 0.025), quantile(means, 0.975))
    result = paired_bootstrap([0.0] * n, diffs, resamples=40000)
    se = math.sqrt(exact_p * (1 - exact_p) / 40000)
    assert result.delta == pytest.approx(observed)
    assert result.p_value == pytest.approx(exact_p, abs=4 * se + 1 / 40000)
    step = min(abs(a - b) for a, b in itertools.combinations(set(diffs), 2)) / n
    assert result.ci[0] == pytest.approx(exact_ci[0], abs=step + 1e-9)
    assert result.ci[1] == pytest.approx(exact_ci[1], abs=step + 1e-9)


def test_bootstrap_is_reproducible_and_covers_the_mean():
    values = [1.0, 0.5, 0.75, 1.0, 0.0, 1.0, 0.8, 0.9]
    first, again = bootstrap_ci(values), bootstrap_ci(values)
    assert first == again  # fixed seed
    assert first[0] <= sum(values) / len(values) <= first[1]
    assert bootstrap_ci([]) is None
    assert bootstrap_ci([0.7]) == (0.7, 0.7)


def _resampled_bootstrap_ci(values, resamples=2000, seed=20240611, level=0.95):
    """The interval as first written: every resample drawn with ``random.choices``."""
    import random

    rng = random.Random(seed)
    n = len(values)
    means = [sum(rng.choices(list(values), k=n)) / n for _ in range(resamples)]
    tail = (1 - level) / 2
    return quantile(means, tail), quantile(means, 1 - tail)


@pytest.mark.parametrize("values", [[0.8] * 400, [1.0] * 400, [0.0] * 400, [1.0], [0.1] * 3,
                                    [0.0] * 30 + [1.0] * 20, [0.5, 0.75, 1.0, 1.0] * 10])
def test_bootstrap_numbers_are_unchanged_by_the_shortcut_for_equal_values(values):
    # one value repeated: every resample has the same mean, computed once; the numbers are
    # the very ones drawing each resample gives (pinned below for the usual cached re-run)
    assert bootstrap_ci(values) == _resampled_bootstrap_ci(values)


def test_bootstrap_numbers_are_pinned():
    assert bootstrap_ci([0.8] * 400) == (0.8000000000000059, 0.8000000000000059)
    assert bootstrap_ci([1.0] * 400) == (1.0, 1.0)
    assert bootstrap_ci([0.0] * 30 + [1.0] * 20) == (0.28, 0.54)
    scores = [0.04, 0.05, 0.06, 0.06, 0.06, 0.07, 0.07, 0.09, 0.12, 0.12, 0.14, 0.15, 0.18, 0.21,
              0.22, 0.24, 0.29, 0.29, 0.3, 0.31, 0.31, 0.32, 0.37, 0.37, 0.4, 0.42, 0.43, 0.43,
              0.45, 0.51, 0.53, 0.54, 0.55, 0.57, 0.58, 0.58, 0.59, 0.63, 0.64, 0.65, 0.68, 0.7,
              0.73, 0.79, 0.82, 0.83, 0.86, 0.88, 0.95, 0.98]
    assert bootstrap_ci(scores) == (0.352, 0.4976049999999998)


def test_quantile_matches_numpy_default():
    np = pytest.importorskip("numpy")
    import random

    rng = random.Random(3)
    for size in (1, 2, 7, 50):
        values = [rng.random() for _ in range(size)]
        for q in (0.0, 0.025, 0.5, 0.975, 1.0):
            assert quantile(values, q) == pytest.approx(float(np.percentile(values, q * 100)))


# -- the smallest detectable drop: the formula by hand ---------------------------------------


def test_detectable_drop_by_hand():
    """40 answers, 30 with no claim unsupported: with two pseudo-answers at 0 and two at 1
    the sample is 32 ones and 12 zeros; s^2 = 44/43 * p(1-p) with p = 32/44; the drop is
    (z_0.975 + z_0.8) * sqrt(2) * s / sqrt(40) with z_0.975 = 1.959964, z_0.8 = 0.841621."""
    p = 32 / 44
    s = math.sqrt(44 / 43 * p * (1 - p))
    by_hand = (1.959964 + 0.841621) * math.sqrt(2) * s / math.sqrt(40)
    assert detectable_drop([1.0] * 30 + [0.0] * 10) == pytest.approx(by_hand, abs=1e-5)
    assert detectable_drop([1.0] * 30 + [0.0] * 10) == pytest.approx(0.2822, abs=1e-4)


def test_detectable_drop_never_claims_zero_and_shrinks_with_more_answers():
    flat = detectable_drop([1.0] * 40)  # no variation seen: still not zero
    assert 0 < flat < 1
    assert detectable_drop([1.0] * 400) < flat
    assert detectable_drop([0.5] * 4, n=4) <= 1.0
    assert detectable_drop([]) is None


# -- the session: intervals in the summary and the JSON report --------------------------------

JUDGE = OfflineJudge()
PASSAGES = [Passage("p1", "Paris is the capital of France.")]


def answer(test_id: str, labels: list[str], text: str | None = None) -> AnswerResult:
    claims = [ClaimResult(text=f"claim {i}", verdict=Verdict(label, passage_ids=(
        ["p1"] if label != "unsupported" else []))) for i, label in enumerate(labels)]
    return AnswerResult(answer=text or f"answer of {test_id}", passages=PASSAGES,
                        status="scored", claims=claims, judge="offline", test_id=test_id)


def store_of(results: list[AnswerResult]) -> ResultStore:
    store = ResultStore()
    for r in results:
        store.record(r, JUDGE)
    return store


def test_summary_carries_intervals_and_detectable_drops(tmp_path):
    results = [answer(f"t{i}", ["supported", "supported"] if i % 4 else
                      ["supported", "unsupported"]) for i in range(40)]
    outcome = new_outcome(store_of(results), GateConfig(), tmp_path / "report.json")
    write_report(outcome)
    data = json.loads((tmp_path / "report.json").read_text())
    low, high = data["summary"]["ci"]["mean"]
    assert low <= data["summary"]["mean_faithfulness"] <= high
    low, high = data["summary"]["ci"]["unsupported_rate"]
    assert low <= 0.25 <= high
    assert data["summary"]["detectable_drop"]["n"] == 40
    assert data["summary"]["detectable_drop"]["unsupported_rate"] == pytest.approx(0.2822,
                                                                                   abs=1e-4)
    text = "\n".join(outcome_lines(outcome))
    assert "95% interval (bootstrap over scored answers)" in text
    assert "smallest change a paired comparison of two runs of 40 scored answers" in text
    assert "95% interval" in markdown_of(outcome) and "95% interval" in html_of(outcome)


def test_no_scored_answer_has_no_interval():
    store = store_of([AnswerResult(answer="", status="unscored")])
    assert store.summary().ci is None
    assert "interval" not in "\n".join(outcome_lines(new_outcome(store, GateConfig())))


# -- comparison: paired tests, the significance level, judge instability ---------------------


def compare(before: list[AnswerResult], after: list[AnswerResult], bounds: str,
            alpha: float | None):
    base = store_of(before)
    baseline = saved_run(base, new_outcome(base, GateConfig()), "base")
    store = store_of(after)
    current = new_outcome(store, GateConfig())
    failures = compare_with(store, current, baseline, parse_compare_fail(bounds), alpha=alpha)
    return current, failures


BASE = [answer(f"t{i}", ["supported", "supported"]) for i in range(40)]


def test_a_significant_drop_beyond_the_bound_fails():
    after = [answer(f"t{i}", ["supported", "unsupported"] if i < 10 else
                    ["supported", "supported"], text=f"new answer {i}") for i in range(40)]
    current, failures = compare(BASE, after, "mean:0.02,unsupported_rate:0.05", 0.05)
    assert len(failures) == 2
    assert "significant at alpha 0.05" in failures[0] and "paired bootstrap" in failures[0]
    assert "exact McNemar" in failures[1]
    rate = current.comparison.figure("unsupported_answer_rate")
    assert rate.p_value == pytest.approx(sign_test(10, 0))
    data = json_of(current)["comparison"]
    mean = next(f for f in data["figures"] if f["key"] == "mean_faithfulness")
    assert mean["p_value"] < 0.05 and mean["ci"][1] < 0 and mean["pairs"] == 40


@pytest.mark.parametrize("dropped", [1, 2, 3])
def test_a_drop_beyond_the_bound_that_is_not_significant_warns_loudly(dropped):
    after = [answer(f"t{i}", ["unsupported", "unsupported"] if i < dropped else
                    ["supported", "supported"], text=f"new answer {i}") for i in range(40)]
    current, failures = compare(BASE, after, "mean:0.02", 0.05)
    # not regressed: inconclusive (failing under the default --faithfulness-inconclusive=fail)
    assert len(failures) == 1 and failures[0].startswith("inconclusive against base")
    assert current.kind == "inconclusive" and current.inconclusive == failures
    assert current.set_exit_status() == 11
    current.inconclusive_fails = False
    assert current.set_exit_status() == 0 and current.kind == "inconclusive"
    warning = next(w for w in current.comparison.warnings if w.startswith("NOT SIGNIFICANT"))
    assert "smallest change this suite can detect is" in warning
    assert "NOT SIGNIFICANT" in "\n".join(comparison_lines(current.comparison))
    # without alpha the same bound is absolute, and says its p-value
    absolute_run, absolute = compare(BASE, after, "mean:0.02", None)
    assert len(absolute) == 1 and "p = " in absolute[0]
    assert absolute_run.kind == "regressed" and absolute_run.set_exit_status() == 10


def test_with_alpha_and_no_pairs_the_bound_fails_closed():
    after = [answer(f"other{i}", ["unsupported"]) for i in range(5)]
    current, failures = compare(BASE, after, "mean:0.02", 0.05)
    assert failures and "no significance test" in failures[0]
    assert current.kind == "unmeasurable"  # no data can test the bound: never a pass


@pytest.mark.parametrize("flip", [("supported", "unsupported"), ("unsupported", "supported"),
                                  ("unsupported", "contradicted")])
def test_verdicts_changed_on_identical_inputs_are_judge_instability(flip):
    old, new = flip
    before = [answer("t0", ["supported", old], text="same"), answer("t1", ["supported"])]
    after = [answer("t0", ["supported", new], text="same"),
             answer("t1", ["unsupported"], text="a different answer")]
    current, _ = compare(before, after, "worsened:0", None)
    comparison = current.comparison
    assert [c.test_id for c in comparison.instability] == ["t0"]
    assert [c.test_id for c in comparison.answers] == ["t1"]  # a real change stays apart
    lines = "\n".join(comparison_lines(current.comparison))
    assert "JUDGE INSTABILITY: 1 answer(s)" in lines
    assert "JUDGE INSTABILITY" in markdown_of(current) and 'id="instability"' in html_of(current)


# -- through pytest: --faithfulness-compare-alpha, the JSON comparison, instability -----------


def test_compare_alpha_turns_a_drop_on_few_pairs_into_a_loud_warning(suite):
    from faithfulness_ci_suite import to_v2

    suite.runpytest("--faithfulness-save", "base").assert_outcomes(passed=4)
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail", "mean:0.02",
                             "--faithfulness-compare-alpha", "0.05",
                             "--faithfulness-report", "r.json")
    assert result.ret == 11  # inconclusive: a drop beyond the bound that is not significant
    result.stdout.fnmatch_lines(["*faithfulness outcome: inconclusive (exit status 11)*"])
    result.stdout.fnmatch_lines(["*NOT SIGNIFICANT: mean faithfulness dropped by 0.250*p = *"
                                 "smallest change this suite can detect is 1.000*",
                                 "*mean faithfulness: paired change*95% interval*paired "
                                 "bootstrap, 3 paired*"])
    figures = json.loads((suite.path / "r.json").read_text())["comparison"]["figures"]
    mean = next(f for f in figures if f["key"] == "mean_faithfulness")
    assert mean["pairs"] == 3 and mean["p_value"] > 0.05 and len(mean["ci"]) == 2
    passing = suite.runpytest("--faithfulness-compare=base", "--faithfulness-compare-fail",
                              "mean:0.02", "--faithfulness-compare-alpha", "0.05",
                              "--faithfulness-inconclusive=pass")
    assert passing.ret == 0
    passing.stdout.fnmatch_lines(["*faithfulness outcome: inconclusive (exit status 0)*"])
    # without alpha the bound is absolute (today's behaviour), with the p-value beside it
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail", "mean:0.02")
    assert result.ret == 10  # regressed
    result.stdout.fnmatch_lines(["*GATE FAILED: regression against *mean faithfulness dropped "
                                 "by 0.250*; p = *paired bootstrap*"])


@pytest.mark.parametrize("bad", ["0", "1", "x"])
def test_bad_compare_alpha_is_a_usage_error(pytester, bad):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("--faithfulness-compare-alpha", bad)
    result.stderr.fnmatch_lines(["*--faithfulness-compare-alpha (ini faithfulness_compare_alpha)"
                                 " must be*"])


def test_a_verdict_flip_on_identical_inputs_is_listed_as_judge_instability(suite):
    from faithfulness_ci_suite import VERDICTS_V1, W

    suite.runpytest("--faithfulness-save", "base").assert_outcomes(passed=4)
    flipped = {**VERDICTS_V1, W: ["unsupported", "p1", ""]}
    (suite.path / "verdicts.json").write_text(json.dumps(flipped))
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail",
                             "worsened:0", "--faithfulness-report", "r.json")
    result.stdout.fnmatch_lines(["*JUDGE INSTABILITY: 2 answer(s) got different verdicts on "
                                 "identical inputs*"])
    comparison = json.loads((suite.path / "r.json").read_text())["comparison"]
    assert sorted(a["test_id"].split("[")[1] for a in comparison["instability"]) == [
        "kestrel]", "stable]"]
    assert comparison["answers"] == []
