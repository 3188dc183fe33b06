"""The extension hooks, implemented in a real conftest.py and driven through pytest runs."""

from __future__ import annotations

import json

import pytest

TESTS = '''
PASSAGES = [{"id": "kb-1", "text": "The lamp has three brightness levels."}]

def test_supported(assert_faithful):
    assert assert_faithful("The lamp has three brightness levels.", PASSAGES).score == 1.0

def test_unsupported(assert_faithful):
    assert assert_faithful("The lamp is made of brass.", PASSAGES, min_score=0).score == 0.0
'''

QUOTING_JUDGE = '''
import pytest
from pytest_faithfulness import Verdict


class QuotingJudge:
    """Supported exactly when the claim occurs in a passage (quoted verbatim)."""
    cacheable = CACHEABLE

    def __init__(self, tag):
        self.tag = tag

    def decompose(self, answer):
        return [answer]

    def verify(self, claim, passages):
        for p in passages:
            if claim in p.text:
                return Verdict("supported", passage_ids=[p.id], quote=claim)
        return Verdict("unsupported")

    def fingerprint(self):
        return {"kind": "quoting", "tag": self.tag}

    def describe(self):
        return f"quoting judge ({self.tag})"
'''


def test_make_judge_hook_provides_the_judge(pytester):
    pytester.makeconftest(QUOTING_JUDGE.replace("CACHEABLE", "False") + '''
def pytest_faithfulness_make_judge(config):
    return QuotingJudge("from-conftest")
''')
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["judge: quoting judge (from-conftest)",
                                 "mean faithfulness: 0.50"])


def test_make_judge_hook_from_two_plugins_first_non_none_wins(pytester):
    pytester.makepyfile(decline_plugin='''
import pytest
@pytest.hookimpl(tryfirst=True)
def pytest_faithfulness_make_judge(config):
    return None
''')
    pytester.makeconftest(QUOTING_JUDGE.replace("CACHEABLE", "False") + '''
def pytest_faithfulness_make_judge(config):
    return QuotingJudge("conftest")
''')
    pytester.makepyfile(TESTS)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "decline_plugin")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["judge: quoting judge (conftest)*"])


def test_a_cacheable_judge_from_the_hook_is_wrapped_in_the_verdict_cache(pytester):
    pytester.makeconftest(QUOTING_JUDGE.replace("CACHEABLE", "True") + '''
def pytest_faithfulness_make_judge(config):
    return QuotingJudge("cached")
''')
    pytester.makepyfile(TESTS)
    # every claim to the judge (a verbatim one the first filter would settle with no call)
    first = pytester.runpytest("--faithfulness-first-filter", "off")
    first.assert_outcomes(passed=2)
    first.stdout.fnmatch_lines(["judge: quoting judge (cached); cache *.faithfulness_cache",
                                "judge calls: 4, cache hits: 0"])
    second = pytester.runpytest("--faithfulness-first-filter", "off")
    second.assert_outcomes(passed=2)
    second.stdout.fnmatch_lines(["judge calls: 0, cache hits: 4"])


def test_without_a_hook_the_option_still_chooses_the_judge(pytester):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["judge: offline calibrated judge*"])


SINK = '''
import json
import pathlib

SINK = pathlib.Path(__file__).parent / "sink.jsonl"

def pytest_faithfulness_answer_result(result, item):
    with SINK.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"node": item.nodeid, "test_id": result.test_id,
                             "score": result.score, "passed": result.passed,
                             "labels": [c.label for c in result.claims]}) + "\\n")
'''


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_answer_result_hook_is_a_report_sink_for_every_answer(pytester, xdist):
    pytester.makeconftest(SINK)
    pytester.makepyfile(TESTS + '''
def test_fails_its_threshold(assert_faithful):
    assert_faithful("The lamp is made of brass.", PASSAGES, min_score=0.5)
''')
    result = pytester.runpytest(*xdist)
    result.assert_outcomes(passed=2, failed=1)
    rows = [json.loads(line) for line in
            (pytester.path / "sink.jsonl").read_text(encoding="utf-8").splitlines()]
    by_test = {r["node"].split("::")[-1]: r for r in rows}
    assert len(rows) == 3
    assert by_test["test_supported"] == {
        "node": "test_answer_result_hook_is_a_report_sink_for_every_answer.py::test_supported",
        "test_id": "test_answer_result_hook_is_a_report_sink_for_every_answer.py::test_supported",
        "score": 1.0, "passed": True, "labels": ["supported"]}
    assert by_test["test_fails_its_threshold"]["passed"] is False  # sent before the assertion


def test_a_failing_sink_errors_the_test(pytester):
    pytester.makeconftest('''
def pytest_faithfulness_answer_result(result, item):
    raise RuntimeError("sink is down")
''')
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*RuntimeError: sink is down*"])


@pytest.mark.parametrize("body, reasons", [
    ('return "contradicted claims: %d > 0" % summary.contradicted if summary.unsupported else None',
     ["GATE FAILED: contradicted claims: 0 > 0"]),
    ('return ["first reason", None, "second reason"]',
     ["GATE FAILED: first reason", "GATE FAILED: second reason"]),
    ('return [r.test_id for r in results if r.score == 0.0]',
     ["GATE FAILED: *::test_unsupported"]),
    ('raise ValueError("gate is broken")',
     ["GATE FAILED: a pytest_faithfulness_gate hook raised ValueError: gate is broken"]),
])
def test_gate_hook_adds_failure_reasons(pytester, body, reasons):
    pytester.makeconftest(f'''
def pytest_faithfulness_gate(summary, results):
    {body}
''')
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--faithfulness-report", "r.json")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(reasons)
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["gate"]["passed"] is False


@pytest.mark.parametrize("body", ["return None", "return []", "pass"])
def test_gate_hook_that_holds_lets_the_session_pass(pytester, body):
    pytester.makeconftest(f'''
def pytest_faithfulness_gate(summary):
    assert summary.answers == 2
    {body}
''')
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*faithfulness: session gate passed*"])


def test_gate_hook_runs_once_in_the_controller_under_xdist(pytester):
    pytester.makeconftest('''
def pytest_faithfulness_gate(summary, config):
    assert not hasattr(config, "workerinput")
    return "answers seen: %d" % summary.answers
''')
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["GATE FAILED: answers seen: 2"])
    assert result.stdout.str().count("GATE FAILED") == 1
