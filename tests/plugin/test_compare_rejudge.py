"""``--faithfulness-compare-rejudge`` (issue 25, item 1): a judge swap between two saved runs
with changed answers, through real pytest runs and litellm's real client at the loopback
server. The baseline is re-judged by the new judge (its claims kept), and the comparison
splits the change into the answer effect and the judge effect, each of the planted size
(``judge_swap``); the gate and the compare-fail bounds use the answer effect only."""

from __future__ import annotations

import json

import pytest
from judge_swap import (
    ANSWER_EFFECT,
    ANSWERS_V1,
    ANSWERS_V2,
    JUDGE_EFFECT,
    NEW_MODEL,
    OLD_MODEL,
    handler,
    judge_args,
    write,
)

from pytest_faithfulness.runs.saved import list_runs


@pytest.fixture
def swap(pytester: pytest.Pytester, chat_server) -> pytest.Pytester:
    """The baseline: the old answers judged by the old judge, saved as ``main``."""
    chat_server.handler = handler
    write(pytester, ANSWERS_V1)
    first = pytester.runpytest(*judge_args(chat_server, OLD_MODEL, "--faithfulness-save",
                                           "main"))
    first.assert_outcomes(passed=10)
    assert first.ret == 0
    write(pytester, ANSWERS_V2)
    return pytester


def _row(effect: dict, key: str) -> dict:
    return next(r for r in effect["figures"] if r["key"] == key)


def test_a_judge_swap_with_changed_answers_shows_both_effects_of_the_planted_size(
        swap, chat_server):
    args = judge_args(chat_server, NEW_MODEL, "--faithfulness-compare", "main",
                      "--faithfulness-compare-rejudge", "--faithfulness-compare-fail",
                      "mean:0.25", "--faithfulness-report", "report.json",
                      "--faithfulness-markdown", "report.md",
                      "--faithfulness-pr-comment", "comment.md")
    result = swap.runpytest(*args)
    result.assert_outcomes(passed=10)
    # the whole change is a drop of 0.5: the answers' share, 0.2, is within the bound
    assert result.ret == 0, result.stdout.str()
    comparison = json.loads((swap.path / "report.json").read_text())["comparison"]
    answer, judge = comparison["answer_effect"], comparison["judge_effect"]
    mean = _row(answer, "mean_faithfulness")
    assert mean["paired_delta"] == pytest.approx(ANSWER_EFFECT)
    assert mean["before"] == pytest.approx(0.7) and mean["after"] == pytest.approx(0.5)
    assert mean["pairs"] == 10 and mean["p_value"] is not None
    assert mean["ci"][0] < ANSWER_EFFECT < mean["ci"][1] or mean["ci"][1] <= 0
    rate = _row(answer, "unsupported_answer_rate")
    assert rate["paired_delta"] == pytest.approx(-ANSWER_EFFECT)
    judged = _row(judge, "mean_faithfulness")
    assert judged["paired_delta"] == pytest.approx(JUDGE_EFFECT)
    assert judged["before"] == pytest.approx(1.0) and judged["after"] == pytest.approx(0.7)
    assert _row(judge, "unsupported_answer_rate")["paired_delta"] == pytest.approx(-JUDGE_EFFECT)
    # the comparison's own figures are the answer effect's: what the gate measured
    figure = next(r for r in comparison["figures"] if r["key"] == "mean_faithfulness")
    assert figure["paired_delta"] == pytest.approx(ANSWER_EFFECT)
    assert comparison["baseline_name"].startswith("main@judge-")
    # the new decomposer splits one old answer in ten differently: said, not hidden
    assert any("splits 1 of 10 old answer(s)" in n for n in judge["notes"])
    out = result.stdout.str()
    assert "ANSWER EFFECT (gated)" in out and "JUDGE EFFECT (reported, never gated)" in out
    assert "DECOMPOSITION DIFFERS" in out
    for name in ("report.md", "comment.md"):
        text = (swap.path / name).read_text()
        assert "ANSWER EFFECT" in text and "JUDGE EFFECT" in text, name
    saved = [p.name for p in list_runs(swap.path / ".faithfulness")]
    assert len(saved) == 2 and "-judge-" in saved[1]


def test_the_bound_fails_on_the_answer_effect_and_the_rejudged_run_is_reused(swap, chat_server):
    args = judge_args(chat_server, NEW_MODEL, "--faithfulness-compare", "main",
                      "--faithfulness-compare-rejudge", "--faithfulness-compare-fail",
                      "mean:0.1")
    first = swap.runpytest(*args)
    assert first.ret == 10  # regressed: the answers dropped 0.2 > 0.1
    first.stdout.fnmatch_lines(["*re-judged baseline saved: *-judge-*",
                                "*regression against main@judge-*mean faithfulness dropped by "
                                "0.200*"])
    second = swap.runpytest(*args)
    assert second.ret == 10
    second.stdout.fnmatch_lines(["*re-judged baseline reused: *-judge-*"])
    saved = [p.name for p in list_runs(swap.path / ".faithfulness")]
    assert len(saved) == 2  # reused: no second derived run


def test_without_the_option_the_judge_change_is_a_warning_and_the_whole_drop_gates(
        swap, chat_server):
    result = swap.runpytest(*judge_args(chat_server, NEW_MODEL, "--faithfulness-compare",
                                        "main", "--faithfulness-compare-fail", "mean:0.25"))
    assert result.ret == 10
    result.stdout.fnmatch_lines(["*judge differs*", "*mean faithfulness dropped by 0.500*"])
    assert "ANSWER EFFECT" not in result.stdout.str()


def test_a_conftest_judge_cannot_be_rebuilt_so_the_run_says_so_and_compares_plainly(suite):
    from faithfulness_ci_suite import write_suite

    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    write_suite(suite, judge_version="scripted-2")  # another fingerprint, same answers
    result = suite.runpytest("--faithfulness-compare", "main", "--faithfulness-compare-rejudge",
                             "--faithfulness-report", "report.json")
    result.stdout.fnmatch_lines(["WARNING: --faithfulness-compare-rejudge: the configured judge "
                                 "(*) did not judge this run's answers*", "*judge differs*"])
    comparison = json.loads((suite.path / "report.json").read_text())["comparison"]
    assert comparison["answer_effect"] is None and comparison["judge_effect"] is None
    assert len(list_runs(suite.path / ".faithfulness")) == 1  # nothing derived
