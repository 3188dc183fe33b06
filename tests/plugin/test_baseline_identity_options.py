"""Knowing what the baseline is, through real pytest runs: answers added, removed and changed
in every output, ``--faithfulness-max-baseline-age`` and ``--faithfulness-strict-baseline``
(flags and ini keys) against real git histories, a shallow clone among them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import INI
from faithfulness_ci_suite import to_v2

from pytest_faithfulness.runs.saved import list_runs

STATEMENT = "figures over the 3 answers both runs share; 1 added, 1 removed, 1 changed"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always",
                           *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit(path: Path, message: str) -> str:
    if not (path / ".git").exists():
        _git(path, "init", "-q")
        (path / ".gitignore").write_text(".faithfulness/\n__pycache__/\n", encoding="utf-8")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "--allow-empty", "-m", message)
    return _git(path, "rev-parse", "HEAD")


def test_every_output_lists_answers_added_removed_and_changed(suite):
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    to_v2(suite)  # kestrel's answer changed, frame removed, bell added
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-report=r.json",
                             "--faithfulness-markdown=r.md", "--faithfulness-pr-comment=c.md",
                             "--faithfulness-html=r.html")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        f"  {STATEMENT} (shared: the same test id; changed: *)",
        "  over the 3 shared answers: mean faithfulness 0.833 -> 0.833 (=); "
        "*contradicted claims 0 -> 1 (+1); *",
        "  changed (same test id, inputs differ): test_answers.py::test_answer[[]kestrel]",
        "  suite: differs from the baseline's (baseline *, this run *)",
    ])
    report = json.loads((suite.path / "r.json").read_text(encoding="utf-8"))
    comparison = report["comparison"]
    assert comparison["added"] == ["test_answers.py::test_answer[bell]"]
    assert comparison["removed"] == ["test_answers.py::test_answer[frame]"]
    assert comparison["changed"] == ["test_answers.py::test_answer[kestrel]"]
    shared = comparison["shared"]
    assert (shared["answers"], shared["added"], shared["removed"], shared["changed"]) == \
        (3, 1, 1, 1)
    assert shared["statement"] == STATEMENT
    figures = {f["key"]: f for f in shared["figures"]}
    assert figures["mean_faithfulness"]["before"] == figures["mean_faithfulness"]["after"]
    assert figures["contradicted"]["before"] == 0 and figures["contradicted"]["after"] == 1
    decision = json.loads((suite.path / "faithfulness-decision.json").read_text())
    assert decision["comparison"]["shared"] == STATEMENT
    for name in ("r.md", "c.md", "r.html"):
        assert STATEMENT in (suite.path / name).read_text(encoding="utf-8"), name
    # the saved runs carry the digests the comparison read
    saved = json.loads(list_runs(suite.path / ".faithfulness")[0].read_text(encoding="utf-8"))
    assert len(saved["suite_digest"]) == 64
    assert all(len(a["inputs_digest"]) == 64 for a in saved["answers"])


def test_a_run_against_itself_shares_every_answer(suite):
    suite.runpytest("--faithfulness-save", "main")
    result = suite.runpytest("--faithfulness-compare=main")
    result.stdout.fnmatch_lines([
        "  figures over the 4 answers both runs share; 0 added, 0 removed, 0 changed *",
        "  suite: the same as the baseline's (digest *)"])


def test_a_baseline_saved_before_digests_still_compares_and_says_so(suite):
    suite.runpytest("--faithfulness-save", "main")
    path = list_runs(suite.path / ".faithfulness")[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["suite_digest"]
    for answer in data["answers"]:
        del answer["inputs_digest"], answer["passages_digest"]
    path.write_text(json.dumps(data), encoding="utf-8")
    to_v2(suite)
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-compare-fail",
                             "worsened:5")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        f"  {STATEMENT} *",
        "  inputs unknown for 2 shared answer(s) (same answer text; *): *",
        "  suite: unknown (a run saved before suite digests)"])


def test_a_baseline_off_this_history_warns_and_fails_under_strict(suite):
    _commit(suite.path, "one")
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    _git(suite.path, "checkout", "-q", "--orphan", "elsewhere")
    _commit(suite.path, "unrelated history")
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-max-baseline-age",
                             "30")
    assert result.ret == 0  # a warning only
    result.stdout.fnmatch_lines([
        "WARNING: baseline main: the baseline's commit * is not an ancestor of this run's "
        "commit * (another branch, or a rewritten history)*",
        "  baseline: 0.0 days old (at most 30 allowed); ancestry: not-ancestor (*)"])
    strict = suite.runpytest("--faithfulness-compare=main", "--faithfulness-strict-baseline")
    assert strict.ret == 12  # unmeasurable: the comparison cannot be trusted
    strict.stdout.fnmatch_lines([
        "GATE FAILED: baseline problem (--faithfulness-strict-baseline): baseline main: the "
        "baseline's commit * is not an ancestor *",
        "faithfulness outcome: unmeasurable (exit status 12)"])


def test_a_stale_baseline_fails_through_the_ini_keys_and_passes_when_fresh(suite):
    first = _commit(suite.path, "one")
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    second = _commit(suite.path, "two")
    assert first != second
    suite.makeini(INI + "faithfulness_compare = main\nfaithfulness_max_baseline_age = 7\n"
                  "faithfulness_strict_baseline = true\n")
    fresh = suite.runpytest("--faithfulness-report=r.json")
    assert fresh.ret == 0
    fresh.stdout.fnmatch_lines(["  baseline: 0.0 days old (at most 7 allowed); ancestry: "
                                "ancestor (the baseline's commit * is an ancestor of *)"])
    check = json.loads((suite.path / "r.json").read_text())["comparison"]["baseline_check"]
    assert check["ancestry"] == "ancestor" and check["problems"] == []
    path = list_runs(suite.path / ".faithfulness")[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["created"] = "2020-01-01T00:00:00+00:00"
    path.write_text(json.dumps(data), encoding="utf-8")
    stale = suite.runpytest("--faithfulness-report=r.json")
    assert stale.ret == 12
    stale.stdout.fnmatch_lines([
        "GATE FAILED: baseline problem (--faithfulness-strict-baseline): baseline main is "
        "* days old, older than the 7 days allowed (--faithfulness-max-baseline-age): save a "
        "newer one"])
    reasons = json.loads((suite.path / "r.json").read_text())["verdict"]["reasons"]
    assert [r["kind"] for r in reasons] == ["unmeasurable"]


def test_in_a_shallow_clone_ancestry_is_unknown_and_said_so(suite, tmp_path):
    _commit(suite.path, "one")
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    _commit(suite.path, "two")
    clone = tmp_path / "shallow-clone"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{suite.path}", str(clone))
    shutil.rmtree(suite.path / ".git")
    shutil.move(str(clone / ".git"), str(suite.path / ".git"))  # this checkout is shallow now
    assert _git(suite.path, "rev-parse", "--is-shallow-repository") == "true"
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-max-baseline-age",
                             "7")
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "WARNING: baseline main: ancestry unknown: the baseline's commit * is not in this "
        "shallow clone, so ancestry cannot be known; fetch the history (actions/checkout: "
        "fetch-depth: 0; or git fetch --unshallow) to know"])
    strict = suite.runpytest("--faithfulness-compare=main", "--faithfulness-strict-baseline")
    assert strict.ret == 12
    strict.stdout.fnmatch_lines(["GATE FAILED: baseline problem (*): baseline main: ancestry "
                                 "unknown: *shallow clone*"])


def test_bad_max_baseline_age_is_a_usage_error(suite):
    result = suite.runpytest("--faithfulness-max-baseline-age", "soon")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--faithfulness-max-baseline-age (ini "
                                 "faithfulness_max_baseline_age) must be a number*"])
