"""No silent passes at the end of a session: interrupted, crashed or stopped runs are
``incomplete`` everywhere and never a baseline; every output path is checked at start-up and
written on its own at the end. Real pytest runs (``pytester``), real signals."""

from __future__ import annotations

import json

import pytest
from conftest import INI
from judges import QUOTING_CONFTEST

from pytest_faithfulness.runs.saved import BaselineError, find_run, list_runs

FORTY_TESTS = '''
import os
import signal

import pytest

PASSAGES = [{"id": "kb-1", "text": "The lamp has three brightness levels."}]


@pytest.mark.parametrize("n", range(1, 41))
def test_answer(assert_faithful, n):
    if n == 8 and os.environ.get("STOP_AT_8") == "sigint":
        # Python's own Ctrl-C handler, whatever this process inherited: a process started
        # from an xdist worker may inherit SIGINT ignored, and then the signal does nothing
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.kill(os.getpid(), signal.SIGINT)
    if n == 8 and os.environ.get("STOP_AT_8") == "keyboardinterrupt":
        raise KeyboardInterrupt
    if n == 8 and os.environ.get("STOP_AT_8") == "crash":
        os._exit(1)
    assert_faithful("The lamp has three brightness levels.", PASSAGES)
'''

OUTPUTS = ("--faithfulness-report", "r.json", "--faithfulness-markdown", "r.md",
           "--faithfulness-html", "r.html")


@pytest.fixture
def forty(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_forty=FORTY_TESTS)
    return pytester


def _assert_incomplete_everywhere(pytester: pytest.Pytester, result, reason: str) -> dict:
    out = result.stdout.str()
    assert "gate: passed" not in out and "session gate passed" not in out
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["gate"]["status"] == "incomplete"
    assert report["gate"]["passed"] is False
    assert reason in report["gate"]["incomplete_reason"]
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "gate passed" not in markdown and "incomplete" in markdown
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert 'class="gate passed"' not in html and "incomplete" in html
    return report


def test_sigint_after_seven_answers_is_incomplete_everywhere_and_never_a_baseline(
        forty, monkeypatch):
    first = forty.runpytest_subprocess("--faithfulness-save", "main")
    assert first.ret == 0
    monkeypatch.setenv("STOP_AT_8", "sigint")
    result = forty.runpytest_subprocess("--faithfulness-save", "main", *OUTPUTS)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = _assert_incomplete_everywhere(forty, result, "interrupted")
    assert report["summary"]["answers"] == 7
    result.stdout.fnmatch_lines(["*faithfulness: incomplete: the session was interrupted*"])
    storage = forty.path / ".faithfulness"
    runs = list_runs(storage)
    assert [p.name for p in runs] == ["0001_main.json", "0002_main.json"]
    saved = json.loads(runs[1].read_text(encoding="utf-8"))
    assert saved["complete"] is False and "interrupted" in saved["incomplete_reason"]
    # the latest, and the latest under its name, are the complete run; naming it refuses
    assert find_run(storage) == runs[0]
    assert find_run(storage, "main") == runs[0]
    with pytest.raises(BaselineError, match="incomplete"):
        find_run(storage, "2")
    refused = forty.runpytest("--faithfulness-compare=0002_main")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*0002_main.json is incomplete (*interrupted*): an incomplete "
                                  "run is never used as a baseline*"])


@pytest.mark.parametrize("how", ["keyboardinterrupt", "crash"])
def test_under_xdist_an_interrupted_or_crashed_worker_leaves_an_incomplete_report(
        forty, monkeypatch, how):
    monkeypatch.setenv("STOP_AT_8", how)
    result = forty.runpytest_subprocess("-n", "2", "--faithfulness-save", "pr", *OUTPUTS)
    assert result.ret != 0
    reason = "interrupted" if how == "keyboardinterrupt" else "went down"
    _assert_incomplete_everywhere(forty, result, reason)
    with pytest.raises(BaselineError, match="no complete saved run"):
        find_run(forty.path / ".faithfulness")


def test_a_run_stopped_by_maxfail_with_tests_left_is_incomplete(pytester):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile('''
        import pytest
        PASSAGES = ["The lamp has three brightness levels."]
        @pytest.mark.parametrize("answer", ["The lamp has three brightness levels.",
                                            "The lamp is made of brass.",
                                            "The lamp has three brightness levels."],
                                 ids=["first", "second", "third"])
        def test_it(assert_faithful, answer):
            assert_faithful(answer, PASSAGES)
    ''')
    result = pytester.runpytest("-x", *OUTPUTS)
    assert result.ret == 13  # incomplete
    report = _assert_incomplete_everywhere(pytester, result, "stopped early")
    assert "1 of 3 tests did not run" in report["gate"]["incomplete_reason"]
    # every test ran (the failing one is the last): complete, the gate's own verdict stands
    result = pytester.runpytest("--maxfail", "1", "-k", "not third", *OUTPUTS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["gate"]["status"] == "passed" and report["gate"]["complete"] is True


# Output paths ---------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--faithfulness-report", "--faithfulness-html",
                                  "--faithfulness-markdown"])
def test_output_files_that_cannot_be_written_are_usage_errors_at_start(pytester, flag):
    pytester.makepyfile("def test_it():\n    pass\n")
    (pytester.path / "adir").mkdir()
    (pytester.path / "afile").write_text("x")
    for path, why in (("adir", "is a directory"), ("afile/out.txt", "is a file, not a folder"),
                      ("/proc/faithfulness/out.txt", "cannot write in /proc")):
        result = pytester.runpytest(flag, path)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, (flag, path)
        result.stderr.fnmatch_lines([f"*{flag} *{why}*"])


def test_storage_that_cannot_be_written_is_a_usage_error_at_start(pytester):
    pytester.makepyfile("def test_it():\n    pass\n")
    (pytester.path / "afile").write_text("x")
    for storage, why in (("afile", "is a file: give a folder"),
                         ("afile/runs", "is a file, not a folder"),
                         ("/proc/faithfulness-runs", "cannot write in /proc")):
        result = pytester.runpytest("--faithfulness-save", "main", "--faithfulness-storage",
                                    storage)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, storage
        result.stderr.fnmatch_lines([f"*--faithfulness-storage *{why}*"])
    assert pytester.runpytest("--faithfulness-save", "main", "--faithfulness-storage",
                              "new/runs").ret == 0


def test_an_output_failing_at_the_end_is_reported_and_never_stops_the_others(pytester):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile('''
        import os
        def test_it(assert_faithful):
            assert_faithful("The lamp has three brightness levels.",
                            ["The lamp has three brightness levels."])
            os.mkdir("r.html")  # after the start-up check: the HTML report cannot be written
    ''')
    result = pytester.runpytest("--faithfulness-save", "main", *OUTPUTS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["GATE FAILED: could not write the HTML report (r.html)*"])
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["gate"]["status"] == "failed"
    assert any("HTML report" in f for f in report["gate"]["failures"])
    assert "could not write the HTML report" in (pytester.path / "r.md").read_text("utf-8")
    assert len(list_runs(pytester.path / ".faithfulness")) == 1
    assert not list(pytester.path.glob("*.tmp")) and not list(pytester.path.glob("r.html/*"))


def test_an_answer_with_a_lone_surrogate_still_gets_every_output(pytester):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful("The lamp has three brightness levels. Hi! \\ud800",
                            ["The lamp has three brightness levels."], min_score=0)
    ''')
    result = pytester.runpytest("--faithfulness-save", "main", *OUTPUTS)
    assert "could not write" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert "\ud800" in report["answers"][0]["answer"] or "ud800" in report["answers"][0]["answer"]
    (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "<html" in (pytester.path / "r.html").read_text(encoding="utf-8").lower()
    [saved] = list_runs(pytester.path / ".faithfulness")
    assert json.loads(saved.read_text(encoding="utf-8"))["answers"][0]["answer"].endswith("\ud800")
    assert not list(pytester.path.rglob("*.tmp"))
    assert result.ret == 0


def test_verdict_comes_last_in_words_that_match_the_exit_status(pytester):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile('''
        PASSAGES = ["The lamp has three brightness levels."]
        def test_ok(assert_faithful):
            assert_faithful("The lamp has three brightness levels.", PASSAGES)
        def test_bad(assert_faithful):
            assert_faithful("The lamp is made of brass.", PASSAGES)
    ''')
    pytester.makeini(INI)
    result = pytester.runpytest("--faithfulness-report", "r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # the verdict is the last line before pytest's own count
    lines = [line for line in result.stdout.lines if line.strip()]
    assert ("faithfulness: run failed: 1 answer failed its own thresholds; the session gate "
            "itself passed") in lines[-2]
    verdict = json.loads((pytester.path / "r.json").read_text())["verdict"]
    assert verdict["status"] == "passed" and verdict["exitstatus"] == 1
    assert verdict["run_status"] == "failed"
    assert verdict["answers_failing_own_thresholds"] == ["test_verdict_comes_last_in_words_that"
                                                         "_match_the_exit_status.py::test_bad"]
