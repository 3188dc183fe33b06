"""Failures promoted to labels: a run writes ``faithfulness-promote.jsonl`` (draft labels of
its failing and unstable claims) and says how to review them in its last lines; the
``pytest-faithfulness promote`` command appends the accepted ones, with a person's label, to
the labels file that ``--faithfulness-calibrate`` reads. Real pytest runs with a scripted
judge (a ``pytest_faithfulness_make_judge`` hook, so that votes and the comparison apply)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_faithfulness import cli
from pytest_faithfulness.calibration import load_labelled
from pytest_faithfulness.runs.promote import PROMOTE_FILE, draft_id

PASSAGES = [{"id": "p1", "text": "The Vela lamp has three levels. The Vela lamp dims at night. "
                                 "The Vela lamp has a timer."}]
GOOD = "The Vela lamp has three levels."
WRONG = "The Vela lamp weighs two kilograms."   # never supported: failing
FLAKY = "The Vela lamp dims at night."           # U, S, S over three votes: supported, unstable
TIMER = "The Vela lamp has a timer."             # supported, unless FLIP_TIMER is set

# Claims are the answer's sentences; a claim found word for word in a passage is supported
# (quoted), except FLAKY's first vote of each process and TIMER under FLIP_TIMER.
CONFTEST = '''
import os
from pytest_faithfulness import Decomposition, Verdict


class FlakyJudge:
    def __init__(self):
        self.calls = {}

    def decompose(self, answer):
        return Decomposition(claims=[s.strip() + "." for s in answer.split(".") if s.strip()])

    def verify(self, claim, passages):
        n = self.calls[claim] = self.calls.get(claim, 0) + 1
        found = next((p for p in passages if claim in p.text), None)
        ok = found is not None
        if "dims" in claim and n == 1:
            ok = False
        if "timer" in claim and os.environ.get("FLIP_TIMER"):
            ok = False
        if ok:
            return Verdict("supported", passage_ids=[found.id], quote=claim)
        return Verdict("unsupported", rationale="no passage says so")

    def describe(self):
        return "flaky judge"


def pytest_faithfulness_make_judge(config):
    return FlakyJudge()
'''

TESTS = f'''
PASSAGES = {PASSAGES!r}

def test_good(assert_faithful):
    assert_faithful({GOOD!r}, PASSAGES)

def test_wrong(assert_faithful):
    assert_faithful({GOOD + " " + WRONG!r}, PASSAGES)

def test_flaky(assert_faithful):
    assert_faithful({FLAKY!r}, PASSAGES)

def test_timer(assert_faithful):
    assert_faithful({TIMER!r}, PASSAGES)
'''

#: The scripted judge is neither cached nor worth a first filter; three votes per claim.
OPTIONS = ("--faithfulness-no-cache", "--faithfulness-first-filter", "off",
           "--faithfulness-votes", "3")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_lamp=TESTS)
    return pytester


def _drafts(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _last_lines(result: pytest.RunResult) -> list[str]:
    """The draft labels' lines at the faithfulness section's end, above the gate's lines, the
    outcome and the verdict's ``===`` line (which stay the last: test_report_verdict)."""
    lines = result.outlines
    start = max(i for i, line in enumerate(lines) if line.startswith("faithfulness: ")
                and ("draft label" in line or "no failing or unstable claim" in line))
    return lines[start - 1:start + 2] if "no failing" in lines[start] else lines[start:start + 2]


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_a_run_writes_its_failing_and_unstable_claims_as_draft_labels(suite, xdist):
    result = suite.runpytest(*xdist, *OPTIONS, "--faithfulness-report", "out/report.json")
    result.assert_outcomes(passed=3, failed=1)
    path = suite.path / "out" / PROMOTE_FILE
    drafts = _drafts(path)
    assert [(d["claim"], d["why"], d["judge_label"]) for d in drafts] == [
        (FLAKY, ["unstable"], "supported"),
        (WRONG, ["failing"], "unsupported"),
    ]
    flaky, wrong = drafts
    assert flaky["votes"] == ["unsupported", "supported", "supported"]
    assert wrong["test_id"] == "test_lamp.py::test_wrong"
    assert wrong["answer"] == GOOD + " " + WRONG
    assert wrong["passages"] == [{**PASSAGES[0], "title": None}]
    assert wrong["rationale"] == "no passage says so" and wrong["evidence"] == []
    assert wrong["judge"] and wrong["id"] == draft_id("test_lamp.py::test_wrong", WRONG,
                                                      PASSAGES)
    assert flaky["evidence"] == [{"passage_id": "p1", "quote": FLAKY}]
    # the last lines before the verdict: how many, and the command that promotes them
    shown = Path("out") / PROMOTE_FILE
    assert _last_lines(result)[:2] == [
        f"faithfulness: 2 draft label(s) written to {shown} (1 failing, 1 unstable claim(s)); "
        "review them and add each to the calibration set with the label you give:",
        f"  pytest-faithfulness promote {shown} --accept ID [ID ...] "
        "--label supported|unsupported|contradicted --to LABELS.jsonl"]
    # only the controller wrote it: no worker left a file of its own anywhere
    assert [p.relative_to(suite.path) for p in suite.path.rglob(PROMOTE_FILE)] == [shown]


def test_ids_are_stable_and_a_run_with_nothing_to_promote_removes_the_stale_file(suite):
    suite.runpytest(*OPTIONS)  # no report asked for: the drafts go to the storage folder
    assert [p.relative_to(suite.path) for p in suite.path.rglob(PROMOTE_FILE)] == [
        Path(".faithfulness") / PROMOTE_FILE]
    suite.runpytest(*OPTIONS, "--faithfulness-markdown", "summary.md")
    path = suite.path / PROMOTE_FILE
    first = [d["id"] for d in _drafts(path)]
    suite.runpytest(*OPTIONS, "--faithfulness-markdown", "summary.md")
    assert [d["id"] for d in _drafts(path)] == first  # same claims, passages, tests: same ids
    result = suite.runpytest(*OPTIONS, "--faithfulness-markdown", "summary.md", "-k",
                             "good or timer")
    result.assert_outcomes(passed=2)
    assert not path.exists()
    assert _last_lines(result)[1] == ("faithfulness: no failing or unstable claim: removed the "
                                      f"earlier draft labels {PROMOTE_FILE}")
    result = suite.runpytest(*OPTIONS, "--faithfulness-markdown", "summary.md",
                             "--faithfulness-promote", "none")
    assert not path.exists() and "draft label" not in result.stdout.str()


def test_a_verdict_that_changed_on_the_same_inputs_since_the_baseline_is_unstable(
        suite, monkeypatch):
    suite.runpytest(*OPTIONS, "--faithfulness-save", "base", "-k", "timer").assert_outcomes(
        passed=1)
    monkeypatch.setenv("FLIP_TIMER", "1")
    result = suite.runpytest(*OPTIONS, "--faithfulness-compare=base", "-k", "timer",
                             "--faithfulness-promote", "drafts.jsonl")
    result.assert_outcomes(failed=1)
    [draft] = _drafts(suite.path / "drafts.jsonl")
    assert draft["claim"] == TIMER and draft["why"] == ["failing", "unstable"]
    assert draft["why_detail"] == "supported -> unsupported since base on the same inputs"


# The promote command -------------------------------------------------------------------------

@pytest.fixture
def drafts(suite) -> Path:
    suite.runpytest(*OPTIONS, "--faithfulness-promote", "drafts.jsonl")
    return suite.path / "drafts.jsonl"


def _promote(*args: str) -> int:
    return cli.main(["promote", *args])


def test_accepted_drafts_join_the_labels_with_the_humans_label(drafts, capsys):
    by_claim = {d["claim"]: d for d in _drafts(drafts)}
    wrong, flaky = by_claim[WRONG]["id"], by_claim[FLAKY]["id"]
    labels = drafts.parent / "labels.jsonl"
    labels.write_text(json.dumps({"id": "mine", "claim": GOOD, "passages": PASSAGES,
                                  "human_label": "supported"}) + "\n", encoding="utf-8")
    assert _promote(str(drafts), "--accept", wrong, "--label", "unsupported",
                    "--to", str(labels)) == 0
    assert _promote(str(drafts), "--accept", flaky, "--label", "supported",
                    "--to", str(labels)) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"added 1 label(s) to {labels}: {flaky}"
    records = load_labelled(labels)  # the calibration loader reads every line
    assert [(r.id, r.claim, r.human_label, r.source_dataset) for r in records] == [
        ("mine", GOOD, "supported", None), (wrong, WRONG, "unsupported", "promoted"),
        (flaky, FLAKY, "supported", "promoted")]
    added = json.loads(labels.read_text(encoding="utf-8").splitlines()[1])
    assert added["judge_label"] == "unsupported" and added["test_id"] == "test_lamp.py::test_wrong"
    assert added["passages"][0]["text"] == PASSAGES[0]["text"]


def test_promote_is_idempotent_and_refuses_a_second_label(drafts, capsys):
    wrong = next(d["id"] for d in _drafts(drafts) if d["claim"] == WRONG)
    labels = drafts.parent / "labels.jsonl"
    args = [str(drafts), "--accept", wrong, "--to", str(labels)]
    assert _promote(*args, "--label", "unsupported") == 0
    before = labels.read_bytes()
    assert _promote(*args, "--label", "unsupported") == 0
    assert labels.read_bytes() == before
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"added 0 label(s) to {labels}",
        f"already there with the same label (nothing added): {wrong}"]
    assert _promote(*args, "--label", "contradicted") == cli.EXIT_USAGE
    assert capsys.readouterr().err.strip() == (
        f"ERROR: {wrong} is labelled 'unsupported' in {labels}, not 'contradicted' (relabel "
        "it by editing that file); nothing was added")
    assert labels.read_bytes() == before


def test_promote_refuses_unknown_ids_and_writes_nothing(drafts, capsys):
    wrong = next(d["id"] for d in _drafts(drafts) if d["claim"] == WRONG)
    labels = drafts.parent / "labels.jsonl"
    assert _promote(str(drafts), "--accept", wrong, "0123456789ab", "nope", "--label",
                    "unsupported", "--to", str(labels)) == cli.EXIT_USAGE
    assert capsys.readouterr().err.strip() == (
        f"ERROR: {drafts} has no draft label with id 0123456789ab, nope; nothing was added")
    assert not labels.exists()


def test_promote_needs_a_human_label_and_a_labels_file(drafts, capsys, monkeypatch):
    wrong = next(d["id"] for d in _drafts(drafts) if d["claim"] == WRONG)
    monkeypatch.chdir(drafts.parent)
    assert _promote(str(drafts), "--accept", wrong, "--to", "labels.jsonl") == cli.EXIT_USAGE
    assert "--label" in capsys.readouterr().err  # never copied from the judge
    assert _promote(str(drafts), "--accept", wrong, "--label", "maybe",
                    "--to", "labels.jsonl") == cli.EXIT_USAGE
    # no --to: the ini key faithfulness_calibrate (pytester's ini has none)
    assert _promote(str(drafts), "--accept", wrong, "--label", "unsupported") == cli.EXIT_USAGE
    assert "promote needs --to LABELS.jsonl" in capsys.readouterr().err
    ini = drafts.parent / "promote.ini"
    ini.write_text("[pytest]\nfaithfulness_calibrate = team-labels.jsonl\n", encoding="utf-8")
    assert _promote(str(drafts), "--accept", wrong, "--label", "unsupported",
                    "-c", str(ini)) == 0
    assert [r.id for r in load_labelled(drafts.parent / "team-labels.jsonl")] == [wrong]


def test_a_calibration_run_reads_the_promoted_labels(drafts, suite):
    ids = {d["claim"]: d["id"] for d in _drafts(drafts)}
    labels = suite.path / "labels.jsonl"
    assert _promote(str(drafts), "--accept", ids[WRONG], "--label", "unsupported",
                    "--to", str(labels)) == 0
    assert _promote(str(drafts), "--accept", ids[FLAKY], "--label", "supported",
                    "--to", str(labels)) == 0
    result = suite.runpytest(*OPTIONS, "--faithfulness-calibrate", str(labels), "-p",
                             "no:xdist", "--faithfulness-promote", "drafts.jsonl")
    result.assert_outcomes(passed=2)
    assert drafts.is_file()  # a calibration run neither writes nor removes drafts
    out = result.stdout.str()
    assert "claim level: 2 records, 0 errored; balanced accuracy (supported vs not) 1.000" in out
    assert "source promoted (claim): 2 records" in out
