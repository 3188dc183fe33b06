"""One outcome, one verdict: every output of a run states the verdict of its ``RunOutcome``
(``run.outcome``), and lists as failing what its one policy says."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from pytest_faithfulness.records import AnswerResult, ClaimResult, SessionSummary, Verdict
from pytest_faithfulness.reports.html import html_of
from pytest_faithfulness.reports.json import json_of
from pytest_faithfulness.reports.junit import junit_properties
from pytest_faithfulness.reports.markdown import markdown_of, md_escape
from pytest_faithfulness.reports.pr_comment import pr_comment_of
from pytest_faithfulness.reports.terminal import closing_lines, outcome_lines
from pytest_faithfulness.run.outcome import (
    RunOutcome,
    exit_status,
    failed_own_thresholds,
    shows_as_failing,
)


def _claim(label: str, *, unstable: bool = False) -> ClaimResult:
    verdict = Verdict(label, passage_ids=["p1"] if label == "supported" else [],
                      quote="The lamp is red." if label == "supported" else None)
    return ClaimResult(text="The lamp is red.", verdict=verdict, unstable=unstable)


def _results() -> list[AnswerResult]:
    return [
        AnswerResult(answer="The lamp is red.", status="scored", test_id="t.py::good",
                     claims=[_claim("supported")]),
        AnswerResult(answer="The lamp is red.", status="scored", test_id="t.py::bad",
                     claims=[_claim("unsupported")], min_score=1.0),
        AnswerResult(answer="The lamp is red.", status="scored", test_id="t.py::wobbly",
                     claims=[_claim("supported", unstable=True)]),
        AnswerResult(answer="Hi!", status="unscored", test_id="t.py::hi"),
    ]


def _outcome(**changes) -> RunOutcome:
    results = _results()
    outcome = RunOutcome(results=results, summary=SessionSummary.of(results),
                         judges=["offline"], gate={"min_mean": 0.5},
                         thresholds=[("min mean", "0.50")])
    for name, value in changes.items():
        setattr(outcome, name, value)
    if "silent" in changes:
        outcome.silent = [outcome.results[1]]
    if "expected" in changes:
        outcome.expected = [outcome.results[1]]
    return outcome


OUTCOMES = {
    "the tests failed, the gate passed": dict(test_exitstatus=1),
    "passed with an xfail miss": dict(test_exitstatus=0, expected=True),
    "a silent miss fails the gate": dict(test_exitstatus=0, silent=True,
                                         failures=["1 answer(s) missed their own thresholds"]),
    "the gate failed": dict(test_exitstatus=0, failures=["mean faithfulness 0.40 < 0.50"]),
    "incomplete": dict(test_exitstatus=2, incomplete="interrupted after 2 of 4 tests"),
    "exit status not known": dict(),
}


@pytest.mark.parametrize("changes", OUTCOMES.values(), ids=list(OUTCOMES))
def test_every_output_states_the_verdict_of_the_outcome(changes):
    outcome = _outcome(**changes)
    outcome.exitstatus = exit_status(outcome.test_exitstatus, outcome.kind)
    verdict = outcome.verdict()

    data = json_of(outcome)
    assert data["gate"]["verdict"] == verdict.text
    assert data["gate"]["status"] == verdict.gate == outcome.gate_status
    assert data["gate"]["run_status"] == data["verdict"]["run_status"] == verdict.status
    assert data["gate"]["failing_own_thresholds"] == \
        data["verdict"]["answers_failing_own_thresholds"] == ["t.py::bad"]

    assert f"**Verdict:** {md_escape(verdict.text, 2000)}" in markdown_of(outcome)
    assert f"**Verdict:** {md_escape(verdict.text, 2000)}" in pr_comment_of(outcome)

    page = html_of(outcome)
    text = html_lib.escape(verdict.text, quote=True)
    assert f'<p class="gate {verdict.status}" id="final-verdict">{text}' in page
    assert f'data-status="{verdict.status}"><span id="verdict">{text}</span>' in page

    lines = closing_lines(outcome)
    assert lines[-1] == f"faithfulness: {verdict.text}"
    assert lines[-2] == f"faithfulness {outcome.headline()}"
    assert lines[:len(outcome.failures)] == [f"GATE FAILED: {f}" for f in outcome.failures]
    tolerated = [f"tolerated: {t}" for t in outcome.tolerated] \
        if outcome.kind == "passed-with-tolerated" else []
    assert lines[len(outcome.failures):-2] == tolerated
    # the named outcome is stated by every output, from the same object
    assert data["verdict"]["kind"] == outcome.kind == outcome.decision()["kind"]
    assert f"**{outcome.headline()}**" in markdown_of(outcome)
    assert f"**{outcome.headline()}**" in pr_comment_of(outcome)
    assert f'data-kind="{outcome.kind}">{html_lib.escape(outcome.headline())}' in page

    # pytest's final exit status says the same: 0 only when the verdict passed
    assert (outcome.exitstatus == 0) == (verdict.status == "passed") or \
        outcome.test_exitstatus is None


def test_the_outputs_agree_on_which_answers_fail():
    outcome = _outcome(test_exitstatus=1)
    assert [r.test_id for r in outcome.failing] == ["t.py::bad"]
    assert [r.test_id for r in outcome.shown_failing] == ["t.py::bad", "t.py::wobbly"]
    for r in outcome.results:  # JUnit: passed is the opposite of failing its own thresholds
        assert dict(junit_properties(r))["faithfulness_passed"] == \
            ("false" if failed_own_thresholds(r) else "true")
    page = html_of(outcome)
    flags = re.findall(r'data-failing="(\d)"', page)
    assert flags == [str(int(shows_as_failing(r))) for r in outcome.results]
    listed = "\n".join(outcome_lines(outcome))
    assert "t.py::bad" in listed and "t.py::wobbly" in listed
    assert "t.py::good" not in listed.split("answers with claims that are not supported")[1]


def test_finish_run_gates_sets_the_exit_status_and_writes_what_it_says(tmp_path):
    """``finish_run`` (no pytest): the session thresholds, the silent misses the face tells,
    the exit status ORed in, and a JSON report stating the outcome's own verdict."""
    import json

    from pytest_faithfulness.run.finish import RunFaces, finish_run
    from pytest_faithfulness.run.results import ResultStore
    from pytest_faithfulness.settings import Settings

    store = ResultStore()
    for result in _results():
        store.record(result)
    settings = Settings.from_mapping({"min_mean": "0.9", "report": str(tmp_path / "r.json")},
                                     rootdir=tmp_path)
    outcome = finish_run(store, settings, test_exitstatus=0, faces=RunFaces(
        classify=lambda failing: (list(failing), [])))
    assert outcome.exitstatus == 1 and outcome.gate_status == "failed"
    assert any(f.startswith("mean faithfulness") for f in outcome.failures)
    assert any("without failing their tests (t.py::bad)" in f for f in outcome.failures)
    assert [r.test_id for r in outcome.silent] == ["t.py::bad"]
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["gate"]["verdict"] == outcome.verdict().text
    assert data["verdict"]["exitstatus"] == 1 and data["verdict"]["kind"] == "failed"
    decision = json.loads((tmp_path / "faithfulness-decision.json").read_text(encoding="utf-8"))
    assert decision["kind"] == "failed" and decision["exit_status"] == 1
    assert outcome.notes == [f"decision (failed): {tmp_path / 'faithfulness-decision.json'}"]
