"""Golden answers (``run.golden``, ``plugin/golden.py``): a golden answer with a claim not
supported fails the gate whatever the aggregate, named as golden in every report; golden
tests skipped, deselected or missing since the baseline are listed, and fail under
``--faithfulness-strict-baseline``; the golden flag survives xdist workers and ``merge``.
Real pytest runs (``pytester``) with the scripted quoting judge (``QUOTING_CONFTEST``)."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET

import pytest
from judges import QUOTING_CONFTEST

PASSAGES = '[{"id": "kb-1", "text": "The lamp has three brightness levels. It runs on batteries."}]'

SUITE = f'''
import pytest

P = {PASSAGES}


def test_fine_one(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", P)


def test_fine_two(assert_faithful):
    assert_faithful("It runs on batteries.", P)


def test_fine_three(assert_faithful):
    assert_faithful("The lamp has three brightness levels. It runs on batteries.", P)


{{mark}}
def test_weak(assert_faithful):
    # one claim of two not supported: recorded only, so the test itself passes
    assert_faithful("The lamp has three brightness levels. It is waterproof.", P,
                    record_only=True)
'''

GOLDEN_MARK = "@pytest.mark.faithfulness(golden=True)"
OUTPUTS = ("--faithfulness-report", "r.json", "--faithfulness-markdown", "r.md",
           "--faithfulness-html", "r.html", "--faithfulness-pr-comment", "pr.md",
           "--junitxml", "j.xml")


def _suite(pytester: pytest.Pytester, mark: str = "") -> pytest.Pytester:
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_lamp=SUITE.replace("{mark}", mark))
    return pytester


def _report(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))


def _reasons(report: dict, kind: str = "golden") -> list[str]:
    return [r["reason"] for r in report["verdict"]["reasons"] if r["kind"] == kind]


def test_a_golden_answer_with_an_unsupported_claim_fails_the_gate_while_the_aggregate_passes(
        pytester):
    """Mean 0.875 over four answers passes min-mean 0.5; unmarked, the run passes (the weak
    answer is tolerated); marked golden, the same run fails, kind golden, exit status 1, and
    every report names the answer as golden."""
    _suite(pytester)
    plain = pytester.runpytest("--faithfulness-min-mean", "0.5", *OUTPUTS)
    assert plain.ret == 0, plain.stdout.str()
    assert _report(pytester)["verdict"]["kind"] == "passed-with-tolerated"

    _suite(pytester, GOLDEN_MARK)
    result = pytester.runpytest("--faithfulness-min-mean", "0.5", *OUTPUTS)
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=4)  # every test passed: the golden gate alone fails
    report = _report(pytester)
    assert report["summary"]["mean_faithfulness"] == pytest.approx(0.875)
    assert report["verdict"]["kind"] == "failed"
    (reason,) = _reasons(report)
    assert reason.startswith("golden answer test_lamp.py::test_weak: 1 of 2 claim(s) not "
                             "supported (unsupported: 'It is waterproof.')")
    assert report["golden"]["tests"] == {"test_lamp.py::test_weak": "ran"}
    assert report["golden"]["answers"] == ["test_lamp.py::test_weak"]
    assert [a["golden"] for a in report["answers"]] == [False, False, False, True]
    out = result.stdout.str()
    assert "GATE FAILED: golden answer test_lamp.py::test_weak" in out
    assert "golden answer FAILED: test_lamp.py::test_weak" in out
    for name in ("r.md", "pr.md"):  # Markdown escapes the underscores
        text = (pytester.path / name).read_text(encoding="utf-8")
        assert "**Golden answers:**" in text and "golden answer FAILED: test\\_lamp" in text
        assert "golden answer test\\_lamp.py::test\\_weak: 1 of 2 claim(s)" in text, name
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "gate failed (golden): golden answer test_lamp.py::test_weak" in html
    assert 'class="golden"' in (pytester.path / "r.html").read_text(encoding="utf-8")
    props = {(p.get("name"), p.get("value"))
             for p in ET.parse(pytester.path / "j.xml").iter("property")}
    assert ("faithfulness_golden", "true") in props


@pytest.mark.parametrize("how", ["ini", "flag", "marker-false-wins"])
def test_golden_by_ini_pattern_or_flag(pytester, how):
    """``faithfulness_golden`` (ini) and ``--faithfulness-golden`` (repeatable) select golden
    tests by node-id pattern; an explicit ``golden=False`` marker wins over a pattern."""
    _suite(pytester, "@pytest.mark.faithfulness(golden=False)" if how.startswith("marker")
           else "")
    args = ["--faithfulness-report", "r.json"]
    if how == "ini":
        pytester.makeini(_ini_with("faithfulness_golden = *::test_nothing "
                                   "test_lamp.py::test_wea*"))
    else:
        args += ["--faithfulness-golden", "*::test_nothing", "--faithfulness-golden",
                 "*::test_weak"]
    result = pytester.runpytest(*args)
    report = _report(pytester)
    # a pattern that matches no collected test is listed, never silently dropped
    unmatched = {"golden pattern '*::test_nothing'": "unmatched"}
    if how == "marker-false-wins":
        assert result.ret == 0 and report["golden"]["tests"] == unmatched
        return
    assert result.ret == 1, result.stdout.str()
    assert report["golden"]["tests"] == {"test_lamp.py::test_weak": "ran", **unmatched}
    assert len(_reasons(report)) == 1


def _ini_with(line: str) -> str:
    from conftest import INI

    return INI + line + "\n"


STATUS_SUITE = f'''
import pytest

P = {PASSAGES}


@pytest.mark.faithfulness(golden=True)
def test_g_ok(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", P)


@pytest.mark.skip(reason="flaky retriever")
@pytest.mark.faithfulness(golden=True)
def test_g_skipped(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", P)


@pytest.mark.faithfulness(golden=True)
def test_g_deselected(assert_faithful):
    assert_faithful("It runs on batteries.", P)


{{gone}}
'''

GONE = '''
@pytest.mark.faithfulness(golden=True)
def test_g_gone(assert_faithful):
    assert_faithful("It runs on batteries.", P)
'''


def test_skipped_deselected_and_missing_golden_tests_are_listed_and_fail_under_strict(
        pytester):
    """The baseline saves every golden test (the skipped and deselected ones too); a later
    run without one of them, with one skipped and one deselected, lists all three and
    passes with them tolerated; ``--faithfulness-strict-baseline`` fails it, kind golden."""
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_status=STATUS_SUITE.replace("{gone}", GONE))
    # a checkout, so that the baseline's ancestry is known (strict fails an unknown one)
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "suite"]):
        subprocess.run(["git", *cmd], cwd=pytester.path, check=True, capture_output=True)
    first = pytester.runpytest("--faithfulness-save", "main", "-k", "not test_g_deselected")
    assert first.ret == 0, first.stdout.str()
    saved = json.loads(next((pytester.path / ".faithfulness").glob("0001_main.json"))
                       .read_text(encoding="utf-8"))
    assert saved["golden_tests"] == {"test_status.py::test_g_deselected": "deselected",
                                     "test_status.py::test_g_gone": "ran",
                                     "test_status.py::test_g_ok": "ran",
                                     "test_status.py::test_g_skipped": "skipped"}
    assert [a["golden"] for a in saved["answers"]] == [True, True]

    pytester.makepyfile(test_status=STATUS_SUITE.replace("{gone}", ""))
    args = ("--faithfulness-compare=main", "-k", "not test_g_deselected",
            "--faithfulness-report", "r.json", "--faithfulness-markdown", "r.md")
    lenient = pytester.runpytest(*args)
    assert lenient.ret == 0, lenient.stdout.str()
    report = _report(pytester)
    assert report["verdict"]["kind"] == "passed-with-tolerated"
    assert report["golden"]["not_checked"] == ["test_status.py::test_g_deselected (deselected)",
                                              "test_status.py::test_g_skipped (skipped)"]
    assert report["golden"]["missing"] == ["test_status.py::test_g_gone"]
    lenient.stdout.fnmatch_lines([
        "golden test not checked: test_status.py::test_g_deselected (deselected)",
        "golden test not checked: test_status.py::test_g_skipped (skipped)",
        "golden test missing since the baseline main (*): test_status.py::test_g_gone",
        "*WARNING: 3 golden test(s) not checked or missing since the baseline*"])
    assert "test\\_g\\_gone" in (pytester.path / "r.md").read_text(encoding="utf-8")

    strict = pytester.runpytest(*args, "--faithfulness-strict-baseline")
    assert strict.ret == 1, strict.stdout.str()
    reasons = _reasons(_report(pytester))
    assert len(reasons) == 3 and all("--faithfulness-strict-baseline" in r for r in reasons)
    assert any("test_g_gone" in r and "missing since the baseline" in r for r in reasons)


XDIST_SUITE = SUITE.replace("{mark}", GOLDEN_MARK) + '''

@pytest.mark.skip(reason="not today")
@pytest.mark.faithfulness(golden=True)
def test_golden_skipped(assert_faithful):
    pass
'''


def test_xdist_workers_keep_the_golden_flag_and_tests(pytester):
    """Under ``-n 2`` the golden answer comes back from a worker flagged, the skipped golden
    test is known to the controller, and both reach the saved run."""
    pytest.importorskip("xdist")
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_lamp=XDIST_SUITE)
    result = pytester.runpytest("-n", "2", "--faithfulness-report", "r.json",
                                "--faithfulness-save", "x")
    assert result.ret == 1, result.stdout.str()
    report = _report(pytester)
    assert report["golden"]["tests"] == {"test_lamp.py::test_golden_skipped": "skipped",
                                         "test_lamp.py::test_weak": "ran"}
    assert [a["test_id"] for a in report["answers"] if a["golden"]] == [
        "test_lamp.py::test_weak"]
    assert len(_reasons(report)) == 1
    saved = json.loads(next((pytester.path / ".faithfulness").glob("*_x.json"))
                       .read_text(encoding="utf-8"))
    assert saved["golden_tests"] == report["golden"]["tests"]


def test_merge_of_shards_keeps_the_golden_flag(pytester, capsys):
    """Two shards (one file each) saved and merged: the golden answer of the first shard
    fails the merged gate, kind golden; the second's deselected golden test that the first
    ran is merged as ran."""
    from pytest_faithfulness.cli import main as cli_main
    from pytest_faithfulness.runs.saved import list_runs

    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_one=SUITE.replace("{mark}", GOLDEN_MARK),
                        test_two=STATUS_SUITE.replace("{gone}", ""))
    for n, part in enumerate(("test_one.py", "test_two.py"), start=1):
        pytester.runpytest(part, "--faithfulness-storage", "shards", "--faithfulness-save",
                           f"shard{n}", "-k", "not test_g_deselected")
    shards = [str(p) for p in list_runs(pytester.path / "shards")]
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        status = cli_main(["merge", *shards, "--expect", "2", "--faithfulness-report",
                           "m.json"])
    report = json.loads((pytester.path / "m.json").read_text(encoding="utf-8"))
    assert status == 1
    (reason,) = _reasons(report)
    assert reason.startswith("golden answer test_one.py::test_weak")
    assert report["golden"]["tests"] == {"test_one.py::test_weak": "ran",
                                         "test_two.py::test_g_deselected": "deselected",
                                         "test_two.py::test_g_ok": "ran",
                                         "test_two.py::test_g_skipped": "skipped"}
    assert [a["test_id"] for a in report["answers"] if a["golden"]] == [
        "test_one.py::test_weak", "test_two.py::test_g_ok"]


@pytest.mark.parametrize("mark, message", [
    ('golden="yes"', "golden=...) must be True or False, got 'yes'"),
    ("golden=1", "golden=...) must be True or False, got 1"),
    ("gold=True", "unknown keyword argument(s) gold"),
    ("True", "keyword arguments only"),
])
@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_bad_marker_arguments_are_a_usage_error_naming_the_test(pytester, mark, message,
                                                                 workers):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_bad=f'''
        import pytest

        @pytest.mark.faithfulness({mark})
        def test_marked(assert_faithful):
            pass
    ''')
    result = pytester.runpytest(*workers)
    # alone: a usage error at collection; under xdist the test errors at setup (a usage
    # error in a worker's collection would read as a lost worker)
    assert result.ret == (pytest.ExitCode.USAGE_ERROR if not workers else
                          pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    text = result.stdout.str() + result.stderr.str()
    assert "test_bad.py::test_marked" in text and message in text, text


def test_golden_answers_judged_by_the_llm_judge_at_the_loopback_server(pytester, chat_server):
    """The LLM judge (litellm's real client) at the loopback server: the audit-log answer has
    two claims no passage supports and an answer whose judge call is refused (HTTP 400)
    errors; both golden, both fail the gate as golden (fail closed: an errored golden
    answer is not a pass), named with what went wrong."""
    from chat_server import Reply
    from scripted_model import AUDIT_ANSWER, AUDIT_PASSAGES, MODEL, audit_handler, parse_request

    audit = audit_handler()

    def handler(request: dict):
        op, first, _ = parse_request(request)
        if op == "decompose" and first == "The lamp is broken.":
            return Reply(status=400)
        return audit(request)

    chat_server.handler = handler
    pytester.makepyfile(test_audit=f'''
        import pytest

        pytestmark = pytest.mark.faithfulness(golden=True)

        def test_audit(assert_faithful):
            assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r}, record_only=True)

        def test_broken(assert_faithful):
            with pytest.raises(AssertionError):
                assert_faithful("The lamp is broken.", {AUDIT_PASSAGES!r})
    ''')
    result = pytester.runpytest("--faithfulness-judge", MODEL, "--faithfulness-api-base",
                                chat_server.base_url, "--faithfulness-no-cache",
                                "--faithfulness-first-filter", "off",
                                "--faithfulness-report", "r.json")
    report = _report(pytester)
    reasons = _reasons(report)
    assert result.ret != 0 and len(reasons) == 2, result.stdout.str()
    assert reasons[0].startswith("golden answer test_audit.py::test_audit: 2 of 5 claim(s) "
                                 "not supported (unsupported: 'Audit log exports run hourly.'")
    assert reasons[1].startswith("golden answer test_audit.py::test_broken: errored (judge:")
    assert any(parse_request(r)[0] == "verify" for r in chat_server.requests)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_a_golden_pattern_that_matches_no_test_is_never_silent(pytester, xdist):
    """``./test_lamp.py::test_weak`` names no node id (pytest's ids have no ``./``): the
    pattern protects nothing, so it is listed (the run tolerated with a warning) and fails
    the gate under ``--faithfulness-strict-baseline``; the matching spelling fails the gate
    on the weak answer."""
    _suite(pytester)
    args = (*xdist, "--faithfulness-report", "r.json")
    lenient = pytester.runpytest(*args, "--faithfulness-golden", "./test_lamp.py::test_weak")
    assert lenient.ret == 0, lenient.stdout.str()
    assert _report(pytester)["verdict"]["kind"] == "passed-with-tolerated"
    lenient.stdout.fnmatch_lines(["*golden pattern './test_lamp.py::test_weak' (matches no "
                                  "collected test*"])
    strict = pytester.runpytest(*args, "--faithfulness-golden", "./test_lamp.py::test_weak",
                                "--faithfulness-strict-baseline")
    assert strict.ret == 1, strict.stdout.str()
    assert any("matches no collected test" in r for r in _reasons(_report(pytester)))
    right = pytester.runpytest(*args, "--faithfulness-golden", "test_lamp.py::test_weak")
    assert right.ret == 1 and "matches no collected test" not in right.stdout.str()
