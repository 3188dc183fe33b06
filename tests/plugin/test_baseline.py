"""Baselines and regression gates: save, compare, compare-fail, through real pytest runs."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import INI
from faithfulness_ci_suite import CHARGE, SPEED_32, to_v2, write_suite

from pytest_faithfulness.runs.compare import compare_answers, parse_compare_fail
from pytest_faithfulness.runs.saved import SavedAnswer, SavedClaim, find_run, list_runs


def _git_commit(path) -> str:
    def git(*args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                               *args], cwd=path, check=True, capture_output=True,
                              text=True).stdout.strip()
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "baseline")
    return git("rev-parse", "HEAD")


def _runs(path):
    return [json.loads(p.read_text()) for p in list_runs(path / ".faithfulness")]


def test_save_writes_one_json_file_per_run_with_everything_needed(suite):
    commit = _git_commit(suite.path)
    result = suite.runpytest("--faithfulness-save", "main")
    result.assert_outcomes(passed=4)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["saved run: *.faithfulness*0001_main.json"])
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    files = sorted(p.name for p in (suite.path / ".faithfulness").glob("*.json"))
    assert files == ["0001_main.json", "0002_main.json"]
    run = _runs(suite.path)[0]
    assert run["format"] == "pytest-faithfulness-run-1"
    assert run["name"] == "main"
    assert run["git"]["commit"] == commit
    assert run["git"]["dirty"] is False
    assert run["judges"] == [{"description": "scripted judge scripted-1",
                              "fingerprint": {"kind": "scripted", "prompts": "scripted-1"}}]
    assert run["figures"]["mean_faithfulness"] == pytest.approx(0.875)
    assert run["figures"]["unsupported_answer_rate"] == pytest.approx(0.25)
    answers = {a["test_id"].split("[")[-1].rstrip("]"): a for a in run["answers"]}
    assert set(answers) == {"battery", "frame", "kestrel", "stable"}
    battery = answers["battery"]
    assert battery["score"] == 0.5 and battery["status"] == "scored"
    assert battery["judge"] == "scripted judge scripted-1"
    assert battery["claims"] == [
        {"text": "The battery lasts 80 km.", "label": "supported",
         "evidence": [{"passage_id": "p2", "quote": "The battery lasts 80 km on eco mode."}],
         "passage_ids": ["p2"], "quote": "The battery lasts 80 km on eco mode."},
        {"text": CHARGE, "label": "unsupported", "evidence": [], "passage_ids": [],
         "quote": None},
    ]


def test_autosave_names_the_run_after_the_commit_in_a_custom_storage(suite):
    commit = _git_commit(suite.path)
    result = suite.runpytest("--faithfulness-autosave", "--faithfulness-storage", "runs")
    result.assert_outcomes(passed=4)
    saved = list((suite.path / "runs").glob("*.json"))
    assert [p.name for p in saved] == [f"0001_{commit[:12]}.json"]


def test_ini_keys_enable_autosave_and_comparison(suite):
    suite.makeini(INI + "faithfulness_autosave = true\nfaithfulness_compare = latest\n"
                  "faithfulness_compare_fail = mean:0.02\n")
    first = suite.runpytest()
    first.stdout.fnmatch_lines(["WARNING: nothing to compare with: no saved run in *"])
    assert first.ret == 0
    to_v2(suite)
    second = suite.runpytest()
    assert second.ret == 10  # regressed
    second.stdout.fnmatch_lines(["GATE FAILED: regression against *mean faithfulness dropped*"])
    assert len(list_runs(suite.path / ".faithfulness")) == 2


def test_compare_reports_claims_that_regressed_or_recovered_and_answers_added_or_removed(suite):
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare")  # no value: the latest saved run
    result.assert_outcomes(passed=4)
    assert result.ret == 0  # a comparison alone never fails the session
    result.stdout.fnmatch_lines([
        "*= faithfulness comparison =*",
        "compared with main (saved *)*0001_main.json]",
        "  mean faithfulness * 0.875 * 0.625 * -0.250  (worse)",
        "  share of answers with a claim not supported * 0.250 * 0.500 * +0.250  (worse)",
        "  contradicted claims * 0 * 1 * +1  (worse)",
        # the added answer's unsupported claim counts: a new or renamed test hides nothing
        # battery's answer and passages did not change, nor did the judge's fingerprint: its
        # new verdict is the judge's instability, listed apart and not counted as recovered
        "claims that became unsupported or contradicted: 2; recovered: 0",
        "JUDGE INSTABILITY: 1 answer(s) got different verdicts on identical inputs*",
        "  test_answers.py::test_answer[[]battery]",
        f"    unsupported -> supported: {CHARGE}",
        "  test_answers.py::test_answer[[]bell]: faithfulness n/a -> 0.000 [[]absent -> scored]",
        "    - now UNSUPPORTED (was absent): The bell is loud.",
        "  test_answers.py::test_answer[[]kestrel]: faithfulness 1.000 -> 0.500",
        f"    - now CONTRADICTED (was absent): {SPEED_32}",
        "  added: test_answers.py::test_answer[[]bell]",
        "  removed: test_answers.py::test_answer[[]frame]",
    ])
    assert "REGRESSION" not in result.stdout.str()


@pytest.mark.parametrize("args", [
    ["--faithfulness-compare-fail", "mean:0.02"],
    ["--faithfulness-compare-fail", "unsupported_rate:0.5,mean:0.1"],
    ["--faithfulness-compare-fail", "unsupported_rate:0.05", "--faithfulness-compare-fail",
     "mean:0.5"],
    ["--faithfulness-compare-fail", "worsened:0"],
])
def test_compare_fail_fails_the_session_on_a_regression(suite, args):
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare=main", *args)
    result.assert_outcomes(passed=4)  # every test passes; the session gate does not
    assert result.ret == 10  # regressed
    result.stdout.fnmatch_lines(["REGRESSION: regression against main: *",
                                 "GATE FAILED: regression against main: *",
                                 "*= faithfulness: session gate failed (*) =*"])


def test_compare_fail_alone_compares_with_the_latest_saved_run(suite):
    """A regression bound never gates on nothing: without --faithfulness-compare it compares
    with the latest saved run (and with none saved, says there is nothing to compare)."""
    first = suite.runpytest("--faithfulness-compare-fail", "mean:0.01")
    assert first.ret == 0
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare-fail", "mean:0.01")
    assert result.ret == 10  # regressed
    result.stdout.fnmatch_lines(["GATE FAILED: regression against main: *"])


def test_compare_fail_messages_name_the_figure_the_change_and_the_bound(suite):
    suite.runpytest("--faithfulness-save", "main")
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-compare-fail",
                             "mean:0.02,unsupported_rate:0.05,contradicted:0")
    # answers were added and removed: each bound is checked over the 3 answers both runs
    # share first, then over the whole runs, and the message says which moved
    result.stdout.fnmatch_lines([
        "GATE FAILED: regression against main: mean faithfulness dropped by 0.250 "
        "(0.875 -> 0.625) > 0.02 allowed (mean:0.02) (over the whole runs); p = 1, paired "
        "bootstrap",
        "GATE FAILED: regression against main: share of answers with a claim not supported "
        "rose by 0.250 (0.250 -> 0.500) > 0.05 allowed (unsupported_rate:0.05) (over the "
        "whole runs); p = 1, exact McNemar",
        "GATE FAILED: regression against main: contradicted claims rose by 1 (0 -> 1) > 0 "
        "allowed (contradicted:0) (over the 3 answers both runs share)",
    ])


def test_compare_fail_within_bounds_passes(suite):
    suite.runpytest("--faithfulness-save", "main")
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-compare-fail",
                             "mean:0.3,unsupported_rate:0.3,worsened:2")  # bell + kestrel
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*faithfulness: session gate passed*"])


def test_no_regression_against_itself(suite):
    suite.runpytest("--faithfulness-save", "main")
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail",
                             "mean:0,unsupported_rate:0,worsened:0")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["claims that became unsupported or contradicted: 0; "
                                 "recovered: 0"])


def test_compare_by_path_counter_and_latest_of_a_name(suite):
    suite.runpytest("--faithfulness-save", "main")
    to_v2(suite)
    suite.runpytest("--faithfulness-save", "branch")
    storage = suite.path / ".faithfulness"
    by_path = suite.runpytest(f"--faithfulness-compare={storage / '0001_main.json'}")
    by_path.stdout.fnmatch_lines(["compared with main *"])
    by_counter = suite.runpytest("--faithfulness-compare=2")
    by_counter.stdout.fnmatch_lines(["compared with branch *",
                                     "claims that became unsupported or contradicted: 0; *"])
    latest = suite.runpytest("--faithfulness-compare")
    latest.stdout.fnmatch_lines(["compared with branch *"])
    assert find_run(storage, "main").name == "0001_main.json"


def test_unknown_baseline_name_is_a_usage_error(suite):
    suite.runpytest("--faithfulness-save", "main")
    result = suite.runpytest("--faithfulness-compare=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-compare (ini faithfulness_compare): no saved "
                                 "run matches 'nope' in * (saved: 0001_main)*"])


@pytest.mark.parametrize("expr, message", [
    ("median:0.1", "*bad compare-fail expression 'median:0.1'*mean, unsupported_rate*"),
    ("mean", "*bad compare-fail expression 'mean': expected METRIC:BOUND*"),
    ("mean:lots", "*the bound must be a number*"),
    ("mean:2", "*the bound must be at most 1*"),
])
def test_bad_compare_fail_expression_is_a_usage_error(suite, expr, message):
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail", expr)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_comparing_runs_of_different_judges_warns_loudly(suite):
    suite.runpytest("--faithfulness-save", "main")
    write_suite(suite, judge_version="scripted-2")
    result = suite.runpytest("--faithfulness-compare=main")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "WARNING: prompt version differs: baseline scripted-1, this run scripted-2",
        "WARNING: judge differs: baseline judged by [[]scripted judge scripted-1], this run by "
        "[[]scripted judge scripted-2]*",
    ])


def test_xdist_saves_every_answer_and_the_judge_fingerprint(suite):
    result = suite.runpytest("-n", "2", "--faithfulness-save", "parallel")
    result.assert_outcomes(passed=4)
    run = _runs(suite.path)[0]
    assert len(run["answers"]) == 4
    assert run["judges"][0]["fingerprint"] == {"kind": "scripted", "prompts": "scripted-1"}
    assert run["figures"]["mean_faithfulness"] == pytest.approx(0.875)


# The pure functions, on their own --------------------------------------------------------

def test_parse_compare_fail_accepts_lists_and_commas():
    bounds = parse_compare_fail(["mean:0.02", " unsupported_rate:0.05 , contradicted:0", ""])
    assert [(b.metric, b.allowed) for b in bounds] == [("mean", 0.02), ("unsupported_rate", 0.05),
                                                       ("contradicted", 0.0)]
    assert parse_compare_fail(None) == []


def test_compare_answers_matches_claims_by_normalised_text():
    before = SavedAnswer(test_id="t", status="scored", score=0.5, claims=[
        SavedClaim(text="A is one.", label="supported"),
        SavedClaim(text="B is two.", label="unsupported"),
        SavedClaim(text="C is three.", label="unsupported"),
        SavedClaim(text="D is four.", label="unsupported")])
    after = SavedAnswer(test_id="t", status="scored", score=0.25, claims=[
        SavedClaim(text="a is  ONE", label="contradicted"),
        SavedClaim(text="B is two.", label="supported"),
        SavedClaim(text="C is three.", label="contradicted"),
        SavedClaim(text="E is five.", label="supported")])
    change = compare_answers(before, after)
    assert [(c.text, c.before, c.after) for c in change.worsened] == [
        ("a is  ONE", "supported", "contradicted")]
    assert [(c.text, c.before, c.after) for c in change.recovered] == [
        ("B is two.", "unsupported", "supported"), ("D is four.", "unsupported", "absent")]
    assert [(c.text, c.before, c.after) for c in change.relabelled] == [
        ("C is three.", "unsupported", "contradicted")]


@pytest.mark.parametrize("renamed", ["test_answer_v2", "test_sale", "TestAnswers.test_answer"])
def test_a_renamed_test_hides_no_claim_from_the_worsened_bound(pytester, renamed):
    """Renaming a test while its answer turns wrong is no way around ``worsened:0``."""
    conftest = """
import pytest
from pytest_faithfulness import Decomposition, Verdict

class Judge:
    def decompose(self, answer):
        return Decomposition(claims=[answer])
    def verify(self, claim, passages):
        if claim == passages[0].text:
            return Verdict("supported", passage_ids=[passages[0].id], quote=claim)
        return Verdict("unsupported")

@pytest.fixture(scope="session")
def faithfulness_judge():
    return Judge()
"""
    pytester.makeconftest(conftest)
    passages = ["The Kestrel e-bike weighs 23 kg."]
    pytester.makepyfile(test_x=f"""
def test_answer(assert_faithful):
    assert_faithful("The Kestrel e-bike weighs 23 kg.", {passages!r}, record_only=True)
""")
    pytester.runpytest("--faithfulness-save", "main").assert_outcomes(passed=1)
    body = f"""    assert_faithful("The Kestrel e-bike weighs 30 kg.", {passages!r}, record_only=True)
"""
    if "." in renamed:
        cls, name = renamed.split(".")
        source = f"class {cls}:\n    def {name}(self, assert_faithful):\n    " + body
    else:
        source = f"def {renamed}(assert_faithful):\n" + body
    pytester.makepyfile(test_x=source)
    result = pytester.runpytest("--faithfulness-compare=main", "--faithfulness-compare-fail",
                                "worsened:0")
    assert result.ret == 10  # regressed
    result.stdout.fnmatch_lines(["*regression against main: 1 claims that became unsupported or "
                                 "contradicted > 0 allowed (worsened:0)*"])


def test_a_signed_baseline_that_was_edited_is_refused_and_unsigned_ones_warn(suite,
                                                                            monkeypatch):
    """Issue 21 item 6, the pytest side: runs saved with FAITHFULNESS_CACHE_KEY set are signed;
    a signed baseline edited afterwards is a usage error naming the file (never skipped
    silently, which would drop the comparison); an unsigned baseline is compared with a
    warning where runs are signed, and refused under --faithfulness-require-signed-runs."""
    monkeypatch.setenv("FAITHFULNESS_CACHE_KEY", "baseline-test-key")
    assert suite.runpytest("--faithfulness-save", "main").ret == 0
    path = list_runs(suite.path / ".faithfulness")[0]
    data = json.loads(path.read_text())
    assert len(data["signature"]) == 64
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-require-signed-runs")
    assert result.ret == 0
    assert "not signed" not in result.stdout.str()
    data["figures"]["mean_faithfulness"] = 0.5  # a worse baseline: every change looks better
    path.write_text(json.dumps(data))
    result = suite.runpytest("--faithfulness-compare")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"*--faithfulness-compare (ini faithfulness_compare): saved "
                                 f"run {path}: its signature does not match*"])
    data.pop("signature")  # unsigned: an older baseline, or one saved without the key
    path.write_text(json.dumps(data))
    result = suite.runpytest("--faithfulness-compare")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"WARNING: comparing with saved run {path} is not signed*"])
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-require-signed-runs")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*is not signed, and --faithfulness-require-signed-runs*"])
