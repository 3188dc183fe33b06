"""The run's verdict: last in the terminal (just above pytest's own count), in words and in
the colour of the exit status; the same verdict in the JSON, Markdown and HTML reports, never
"passed" for an incomplete run; the session thresholds stated and every unscored answer
named; the judge's rationale of each claim not supported under ``-v``."""

from __future__ import annotations

import json
import re

import pytest
from faithfulness_ci_suite import ANSWERS_V2, VERDICTS_V2, write_suite

from pytest_faithfulness.records import (
    AnswerResult,
    ClaimResult,
    SessionSummary,
    Verdict,
)
from pytest_faithfulness.reports.html import render_html
from pytest_faithfulness.reports.json import json_report
from pytest_faithfulness.reports.markdown import markdown_summary
from pytest_faithfulness.reports.verdict import run_verdict

RED, GREEN = "\x1b[31m", "\x1b[32m"


def _verdict_line(result: pytest.RunResult) -> str:
    """The line above pytest's own final count: the faithfulness verdict."""
    lines = [line for line in result.stdout.lines if line.strip()]
    last = re.sub(r"\x1b\[[0-9;]*m", "", lines[-1])
    assert re.fullmatch(r"=+ .* in [0-9.]+s.* =+", last)  # pytest's "=== 1 passed in 0.1s ==="
    return lines[-2]


def _with_rationale(pytester: pytest.Pytester) -> None:
    """The scripted judge, its verdicts carrying a rationale."""
    (pytester.path / "conftest.py").write_text(
        (pytester.path / "conftest.py").read_text(encoding="utf-8").replace(
            "return Verdict(label, passage_ids=[pid], quote=quote)",
            "return Verdict(label, passage_ids=[pid], quote=quote, "
            "rationale='the passage says ' + quote)"), encoding="utf-8")


@pytest.mark.parametrize(("args", "ret", "verdict", "colour"), [
    # every answer meets its thresholds; none set for the session
    ((), 0, "faithfulness: session gate passed", GREEN),
    # assertions fail, no session threshold: the words match exit status 1
    (("--faithfulness-min-score", "0.9"), 1,
     "faithfulness: run failed: 2 answers failed their own thresholds; the session gate itself "
     "passed", RED),
    # the session gate fails while every test passes
    (("--faithfulness-min-mean", "0.9"), 1, "faithfulness: session gate failed (1 reason)", RED),
    (("--faithfulness-min-mean", "0.9", "--faithfulness-max-unsupported", "0"), 1,
     "faithfulness: session gate failed (1 reason); 2 answers failed their own thresholds", RED),
])
def test_the_verdict_is_the_last_line_in_the_colour_of_the_exit_status(suite, args, ret,
                                                                      verdict, colour):
    write_suite(suite, ANSWERS_V2, VERDICTS_V2)
    result = suite.runpytest("--color=yes", *args)
    assert result.ret == ret
    line = _verdict_line(result)
    assert verdict in line and colour in line
    assert f"{verdict} " in line  # nothing more said than the parametrised words
    out = result.stdout.str()
    thresholds = "session thresholds: min mean 0.90" if "--faithfulness-min-mean" in args \
        else "session thresholds: none"
    assert thresholds in out
    lines = [x for x in result.stdout.lines if x.strip()]
    # the named outcome sits just above the verdict, the gate's reason above it
    kind = "passed-with-tolerated" if ret == 0 else "failed"
    assert f"faithfulness outcome: {kind} (exit status {ret})" in lines[-3]
    if "(1 reason)" in verdict:
        assert "GATE FAILED: mean faithfulness 0.625 < min mean 0.900" in lines[-4]


def test_answers_failing_in_tests_that_expect_it_do_not_fail_the_run(pytester):
    write_suite(pytester, {"bell": "The bell is loud."}, VERDICTS_V2)
    pytester.makepyfile(test_answers='''
import pytest

@pytest.mark.xfail(raises=AssertionError, strict=True)
def test_bell(assert_faithful):
    assert_faithful("The bell is loud.", ["The Kestrel e-bike weighs 23 kg."], min_score=1.0)

def test_unscored(assert_faithful):
    assert_faithful("Happy to help!", ["The Kestrel e-bike weighs 23 kg."])
''')
    (pytester.path / "conftest.py").write_text(
        (pytester.path / "conftest.py").read_text(encoding="utf-8").replace(
            "return Decomposition(claims=", "return Decomposition(dropped=[s for s in "
            "answer.split('. ') if s.endswith('!')], claims=").replace(
            "if s.strip(\". \")]", "if s.strip(\". \") and not s.endswith('!')]"),
        encoding="utf-8")
    result = pytester.runpytest("--color=yes")
    result.assert_outcomes(passed=1, xfailed=1)
    line = _verdict_line(result)
    assert ("faithfulness: session gate passed; 1 answer missed its own thresholds, as its "
            "xfail test expected; 1 answer not scored (no claims)") in line
    assert GREEN in line
    out = result.stdout.str()
    assert "unscored answers (no claims to score, not in the mean): 1" in out
    assert "  - test_answers.py::test_unscored" in out


def test_other_failures_are_not_read_as_a_pass(suite):
    suite.makepyfile(test_other="def test_broken():\n    assert 1 == 2\n")
    result = suite.runpytest("--color=yes")
    assert result.ret == 1
    line = _verdict_line(result)
    assert ("run failed: tests failed for other reasons (see pytest's summary); the session "
            "gate itself passed") in line
    assert RED in line


def test_rationale_of_claims_not_supported_under_verbose_only(suite):
    write_suite(suite, ANSWERS_V2, VERDICTS_V2)
    _with_rationale(suite)
    quiet = suite.runpytest()
    assert "judge's rationale" not in quiet.stdout.str()
    loud = suite.runpytest("-v")
    loud.stdout.fnmatch_lines([
        "*[[]2] CONTRADICTED: Its top speed is 32 km/h.",
        '      passage p1: "Its top assisted speed is 25 km/h."',
        "      judge's rationale: the passage says Its top assisted speed is 25 km/h.",
    ])
    assert "judge's rationale: the passage says The Kestrel" not in loud.stdout.str()


def test_an_incomplete_run_is_never_called_passed(suite):
    """However the plugin learns that a run is incomplete (it sets ``incomplete_reason``),
    the terminal says so last, and the JSON, Markdown and HTML reports do too."""
    suite.makeconftest((suite.path / "conftest.py").read_text(encoding="utf-8") + '''

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    from pytest_faithfulness.plugin import SESSION_KEY

    state = session.config.stash.get(SESSION_KEY, None)
    if state is not None:
        state.incomplete_reason = "interrupted after 4 of 9 tests"
''')
    result = suite.runpytest("--color=yes", "--faithfulness-report", "r.json")
    line = _verdict_line(result)
    assert ("faithfulness: incomplete: interrupted after 4 of 9 tests: the gate did not see "
            "every answer") in line
    assert RED in line and "passed;" not in line


def _results() -> list[AnswerResult]:
    return [AnswerResult(answer="The lamp is red.", status="scored", test_id="t::a",
                         claims=[ClaimResult(text="The lamp is red.",
                                             verdict=Verdict("supported", passage_ids=["p1"],
                                                             quote="The lamp is red."))]),
            AnswerResult(answer="Hi!", status="unscored", test_id="t::hi")]


def test_reports_say_incomplete_and_never_passed():
    results = _results()
    summary = SessionSummary.of(results)
    args = (results, summary, ["judge (temperature 0)"], [])
    data = json_report(*args, {"min_mean": 0.8}, incomplete="interrupted")
    assert data["gate"]["status"] == "incomplete" and data["gate"]["passed"] is False
    assert data["gate"]["verdict"] == ("incomplete: interrupted: the gate did not see every "
                                       "answer; 1 answer not scored (no claims)")
    assert data["gate"]["thresholds"] == [["min mean", "0.80"]]
    assert data["gate"]["unscored"] == ["t::hi"]
    md = markdown_summary(*args, incomplete="interrupted", thresholds=[])
    assert md.startswith("## Faithfulness: ⚠️ incomplete\n")
    assert "passed" not in md
    assert "judge: judge (temperature 0)" in md
    assert "session thresholds: none" in md
    assert "### Unscored answers (1)" in md and "- t::hi" in md
    assert md.rstrip().endswith("**Verdict:** incomplete: interrupted: the gate did not see "
                                "every answer; 1 answer not scored (no claims)")
    page = render_html(*args, incomplete="interrupted", thresholds=[("min mean", "0.80")])
    assert 'class="gate incomplete" id="gate" data-status="incomplete"' in page
    assert "gate passed" not in page and "session gate passed" not in page
    assert '<li id="thresholds">session thresholds: min mean 0.80</li>' in page
    assert '<li id="unscored-answers">unscored (no claims to score, not in the mean): t::hi' \
        in page
    assert "judge: judge (temperature 0)" in page


def test_reports_of_a_complete_run_say_what_failed():
    results = _results()
    results[0].min_score = 1.0
    results[0].claims[0].verdict = Verdict("unsupported", rationale="no passage")
    summary = SessionSummary.of(results)
    md = markdown_summary(results, summary, ["j"], [])
    assert md.startswith("## Faithfulness: ❌ run failed: 1 answer failed its own thresholds; ")
    assert md.splitlines()[0].endswith("; the session gate itself passed")
    assert "| *judge:* no passage |" in md
    page = render_html(results, summary, ["j"], [])
    assert 'class="gate failed" id="gate" data-status="failed"' in page
    assert "judge&rsquo;s rationale: no passage" in page
    assert '<li id="failing-answers">failed their own thresholds: t::a</li>' in page


def test_the_outcome_box_names_fifty_failing_answers_and_counts_the_rest():
    results = []
    for i in range(63):
        r = _results()[0]
        r.test_id, r.min_score = f"t::a[{i}]", 1.0
        r.claims[0].verdict = Verdict("unsupported", rationale="no passage")
        results.append(r)
    page = render_html(results, SessionSummary.of(results), ["j"], [])
    box = re.search(r'<li id="failing-answers">(.*?)</li>', page).group(1)
    assert box.count("t::a[") == 50 and "t::a[49]" in box and "t::a[50]" not in box
    assert box.endswith("and 13 more (the filters below show every answer)")


@pytest.mark.parametrize(("kwargs", "text", "status"), [
    ({}, "session gate passed", "passed"),
    ({"failures": ["x"]}, "session gate failed (1 reason)", "failed"),
    ({"failures": ["x", "y"], "incomplete": "crashed"},
     "incomplete: crashed: the gate did not see every answer; session gate failed on what it "
     "saw (2 reasons)", "incomplete"),
    ({"failing": [1, 2, 3]}, "run failed: 3 answers failed their own thresholds; the session "
     "gate itself passed", "failed"),
    ({"exit_failed": True}, "run failed: tests failed for other reasons (see pytest's "
     "summary); the session gate itself passed", "failed"),
    # a passing exit status never makes a miss "expected": only an xfail test expects one
    ({"failing": [1], "exit_failed": False},
     "session gate passed; 1 answer failed its own thresholds", "passed"),
    ({"failing": [1], "expected": [1], "exit_failed": False},
     "session gate passed; 1 answer missed its own thresholds, as its xfail test expected",
     "passed"),
    ({"failing": [1, 2], "silent": [1, 2], "failures": ["x"], "exit_failed": True},
     "session gate failed (1 reason); 2 answers missed their own thresholds without failing "
     "their tests", "failed"),
    ({"failing": [1, 2, 3], "silent": [2], "expected": [3]},
     "run failed: 1 answer failed its own thresholds; 1 answer missed its own thresholds "
     "without failing its test; 1 answer missed its own thresholds, as its xfail test "
     "expected; the session gate itself passed", "failed"),
])
def test_run_verdict_words(kwargs, text, status):
    failures = kwargs.pop("failures", [])
    found = run_verdict(failures, **kwargs)
    assert (found.text, found.status) == (text, status)


def test_json_report_keeps_the_report_shape(suite):
    write_suite(suite, ANSWERS_V2, VERDICTS_V2)
    suite.runpytest("--faithfulness-report", "r.json", "--faithfulness-min-mean", "0.5")
    gate = json.loads((suite.path / "r.json").read_text(encoding="utf-8"))["gate"]
    assert gate["passed"] is True and gate["status"] == "passed"
    assert gate["thresholds"][0] == ["min mean", "0.50"]
    assert ["max unsupported rate", "none"] in gate["thresholds"]
    assert gate["verdict"] == "session gate passed"


def test_an_interrupted_run_is_incomplete_in_the_terminal(suite):
    suite.makepyfile(test_stop='''
import pytest

def test_zz_stop():
    pytest.exit("stopping early")
''')
    result = suite.runpytest("--color=yes")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    line = next(x for x in reversed(result.stdout.lines) if "faithfulness:" in x)
    assert "faithfulness: incomplete: the session was interrupted (exit status 2): the gate " \
        "did not see every answer" in line
    assert RED in line
