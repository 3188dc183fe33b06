"""Named outcomes (issue 23): every kind a run can end in, through pytest and through
``pytest-faithfulness merge``, each with its exit status, its decision file, its terminal line
and its pull-request comment, from the one ``RunOutcome``.

The suite is the scripted one of ``faithfulness_ci_suite`` (answers recorded only: only the
session gate, or ``--faithfulness-min-score``, can fail a test).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faithfulness_ci_suite import SPEED, W, to_v2, write_suite

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.run.outcome import KIND_EXIT, OUTCOME_KINDS

pytest_plugins = ["pytester"]

ALL_SUPPORTED = {"kestrel": f"{W} {SPEED}", "stable": W}
OUTPUTS = ("--faithfulness-report", "out/r.json", "--faithfulness-pr-comment", "out/pr.md")


def _decision(path: Path) -> dict:
    return json.loads((path / "out" / "faithfulness-decision.json").read_text(encoding="utf-8"))


def _check(path: Path, kind: str, status: int, stdout: str | None = None) -> dict:
    """The decision file, the PR comment and the terminal all name ``kind`` and ``status``."""
    decision = _decision(path)
    assert (decision["kind"], decision["exit_status"]) == (kind, status), decision["reasons"]
    assert decision["format"] == "pytest-faithfulness-decision-1"
    headline = f"outcome: {kind} (exit status {status})"
    assert f"**{headline}**" in (path / "out" / "pr.md").read_text(encoding="utf-8")
    report = json.loads((path / "out" / "r.json").read_text(encoding="utf-8"))
    assert report["verdict"]["kind"] == kind and report["verdict"]["exitstatus"] == status
    if stdout is not None:
        assert f"faithfulness {headline}" in stdout
    return decision


# Each kind: (how to make it: pytest arguments, and a setup of the suite), the exit status.
def _passed(p: pytest.Pytester) -> list[str]:
    write_suite(p, ALL_SUPPORTED)
    return []


def _tolerated(p: pytest.Pytester) -> list[str]:
    write_suite(p)  # battery: one claim not supported, within its (record-only) thresholds
    return []


def _failed(p: pytest.Pytester) -> list[str]:
    write_suite(p)  # mean 0.875
    return ["--faithfulness-min-mean", "0.95"]


def _tests_failed(p: pytest.Pytester) -> list[str]:
    write_suite(p)
    return ["--faithfulness-min-score", "1"]  # battery's test fails; no session threshold


def _regressed(p: pytest.Pytester) -> list[str]:
    write_suite(p)
    p.runpytest("--faithfulness-save", "base")
    to_v2(p)  # mean 0.875 -> 0.625
    return ["--faithfulness-compare=base", "--faithfulness-compare-fail", "mean:0.02"]


def _inconclusive(p: pytest.Pytester) -> list[str]:
    return _regressed(p) + ["--faithfulness-compare-alpha", "0.05"]  # 3 pairs: not significant


def _unmeasurable(p: pytest.Pytester) -> list[str]:
    write_suite(p, {"a": "", "b": "   "})  # nothing to score: the run measured nothing
    return []


def _incomplete(p: pytest.Pytester) -> list[str]:
    write_suite(p)
    return ["--faithfulness-min-score", "1", "-x"]  # battery fails first; the rest never run


KINDS = {
    "passed": (_passed, "passed", 0),
    "passed-with-tolerated": (_tolerated, "passed-with-tolerated", 0),
    "failed (a threshold)": (_failed, "failed", 1),
    "failed (tests, the gate held)": (_tests_failed, "failed", 1),
    "regressed": (_regressed, "regressed", 10),
    "inconclusive": (_inconclusive, "inconclusive", 11),
    "unmeasurable": (_unmeasurable, "unmeasurable", 12),
    "incomplete": (_incomplete, "incomplete", 13),
}


def test_every_kind_has_a_distinct_documented_exit_status():
    assert set(KIND_EXIT) == set(OUTCOME_KINDS) == {k for _, k, _ in KINDS.values()}
    failing = [KIND_EXIT[k] for k in OUTCOME_KINDS if not k.startswith("passed")]
    assert len(set(failing)) == len(failing) and 0 not in failing
    assert not set(failing) & {2, 3, 4, 5, 6}  # never one of pytest's own meanings
    table = (Path(__file__).parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    for kind in OUTCOME_KINDS:
        assert f"| `{kind}` |" in table, kind


@pytest.mark.parametrize("make", KINDS.values(), ids=list(KINDS))
def test_each_kind_through_pytest(pytester: pytest.Pytester, make):
    setup, kind, status = make
    args = setup(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", *args, *OUTPUTS)
    assert result.ret == status, result.stdout.str()[-3000:]
    decision = _check(pytester.path, kind, status, result.stdout.str())
    if kind == "passed-with-tolerated":
        assert any("test_answer[battery]" in t for t in decision["tolerated"])
    if kind == "failed" and "--faithfulness-min-score" in args:
        assert [r["kind"] for r in decision["reasons"]] == ["tests"]
        assert "while the faithfulness gate held" in decision["reasons"][0]["reason"]
    elif kind != "passed" and kind != "passed-with-tolerated":
        assert kind in {r["kind"] for r in decision["reasons"]}, decision["reasons"]


def test_inconclusive_can_be_told_to_pass(pytester: pytest.Pytester):
    args = _inconclusive(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", *args, *OUTPUTS,
                                "--faithfulness-inconclusive=pass")
    assert result.ret == 0
    decision = _check(pytester.path, "inconclusive", 0, result.stdout.str())
    assert decision["comparison"]["inconclusive"]


def test_a_usage_error_stays_a_usage_error_with_no_decision(pytester: pytest.Pytester,
                                                             capsys: pytest.CaptureFixture):
    write_suite(pytester)
    result = pytester.runpytest("--faithfulness-inconclusive=maybe", *OUTPUTS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "out" / "faithfulness-decision.json").exists()
    assert cli_main(["merge", "nosuchfile.json", *OUTPUTS]) == 4  # pytester's cwd is its path
    assert not (pytester.path / "out" / "faithfulness-decision.json").exists()


# Through merge: two shards of the same suite, then ``pytest-faithfulness merge``.
MERGE_KINDS = {k: v for k, v in KINDS.items() if k not in ("incomplete",)}


def _halves(p: pytest.Pytester) -> list[list[str]]:
    """The suite's test ids in two halves (the answers' names in sorted order)."""
    names = sorted(json.loads((p.path / "answers.json").read_text(encoding="utf-8")))
    ids = [f"test_answers.py::test_answer[{name}]" for name in names]
    return [ids[:len(ids) // 2], ids[len(ids) // 2:]]


@pytest.mark.parametrize("make", MERGE_KINDS.values(), ids=list(MERGE_KINDS))
def test_each_kind_through_merge(pytester: pytest.Pytester, make):
    setup, kind, status = make
    args = setup(pytester)
    shard_args = [a for a in args if not a.startswith("--faithfulness-compare")
                  and a not in ("mean:0.02", "0.05")]
    for n, selection in enumerate(_halves(pytester), start=1):
        pytester.runpytest("-p", "no:cacheprovider", *shard_args, *selection,
                           "--faithfulness-storage", "shards", "--faithfulness-save",
                           f"shard{n}")
    merge_args = [a for a in args if a.startswith("--faithfulness-compare")
                  or a in ("mean:0.02", "0.05", "--faithfulness-min-mean", "0.95")]
    code = cli_main(["merge", "shards", "--expect", "2", *merge_args, *OUTPUTS])
    assert code == status
    _check(pytester.path, kind, status)


def test_an_incomplete_or_missing_shard_merges_as_an_incomplete_run(pytester: pytest.Pytester):
    write_suite(pytester)
    first, second = _halves(pytester)
    pytester.runpytest("-p", "no:cacheprovider", *first, "--faithfulness-min-score", "1", "-x",
                       "--faithfulness-storage", "shards", "--faithfulness-save", "shard1")
    pytester.runpytest("-p", "no:cacheprovider", *second, "--faithfulness-storage", "shards",
                       "--faithfulness-save", "shard2")
    assert cli_main(["merge", "shards", *OUTPUTS]) == 13
    decision = _check(pytester.path, "incomplete", 13)
    assert "is incomplete" in decision["reasons"][0]["reason"]
    shard2 = sorted((pytester.path / "shards").glob("*shard2.json"))
    assert cli_main(["merge", str(shard2[0]), "--expect", "2", *OUTPUTS]) == 13
    assert "a shard is missing" in _decision(pytester.path)["reasons"][0]["reason"]
