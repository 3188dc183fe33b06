"""Records, passage coercion, scoring rules and the gate's arithmetic."""

from __future__ import annotations

import json
import math

import pydantic
import pytest

from pytest_faithfulness import (
    AnswerResult,
    ClaimResult,
    Passage,
    SessionSummary,
    Verdict,
    evaluate,
)
from pytest_faithfulness.run.gate import GateConfig, gate_failures
from pytest_faithfulness.inputs import to_passages
from pytest_faithfulness.pipeline import passage_windows
from pytest_faithfulness.trust.quote_check import check_verdict


class LangChainLikeDocument:
    def __init__(self, page_content, metadata=None, id=None):
        self.page_content = page_content
        self.metadata = metadata or {}
        self.id = id


class LlamaIndexLikeNode:
    def __init__(self, text, id_):
        self.text = text
        self.id_ = id_


def test_passages_accept_every_documented_shape():
    got = to_passages([
        "plain string",
        {"id": 7, "text": "dict with an int id"},
        {"text": "dict without id"},
        Passage(id="kb-1", text="a Passage"),
        LangChainLikeDocument("langchain doc", metadata={"id": "lc-9"}),
        LangChainLikeDocument("langchain doc with id", id="lc-10"),
        LlamaIndexLikeNode("llama node", "node-3"),
        LangChainLikeDocument("no id at all"),
    ])
    assert [(p.id, p.text) for p in got] == [
        ("p1", "plain string"), ("7", "dict with an int id"), ("p3", "dict without id"),
        ("kb-1", "a Passage"), ("lc-9", "langchain doc"), ("lc-10", "langchain doc with id"),
        ("node-3", "llama node"), ("p8", "no id at all"),
    ]


@pytest.mark.parametrize("bad, error, match", [
    (None, ValueError, "passages is None"),
    ("one string", TypeError, "must be a list"),
    ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], ValueError, "duplicate passage id 'a'"),
    ([{"id": "", "text": "x"}], ValueError, "empty id"),
    ([{"id": "a"}], TypeError, "without a 'text' key"),
    ([{"id": "a", "text": 3}], TypeError, "text must be a string"),
    ([42], TypeError, "expected str, dict, Passage"),
])
def test_bad_passages_name_the_problem(bad, error, match):
    with pytest.raises(error, match=match):
        to_passages(bad)


def test_verdict_vocabulary_is_closed_and_positional_label_works():
    assert Verdict("supported", passage_ids=["p1"], quote="q").label == "supported"
    with pytest.raises(pydantic.ValidationError):
        Verdict("mostly supported")


def _result(labels, status="scored"):
    return AnswerResult(answer="a", status=status,
                        claims=[ClaimResult(text=f"c{i}", verdict=Verdict(label) if label else None)
                                for i, label in enumerate(labels)])


def test_score_is_supported_over_claims_decomposed():
    r = _result(["supported", "supported", "unsupported", "contradicted"])
    assert r.score == 0.5 and r.unsupported == 1 and r.contradicted == 1 and r.not_supported == 2


def test_unscored_and_error_have_no_score_and_stay_out_of_the_mean():
    results = [_result(["supported", "unsupported"]), _result([], status="unscored"),
               _result(["supported", None], status="error")]
    assert results[1].score is None and results[2].score is None
    summary = SessionSummary.of(results)
    assert summary.mean_faithfulness == 0.5
    assert summary.unsupported_answer_rate == 1.0
    assert (summary.scored, summary.unscored, summary.errored) == (1, 1, 1)
    assert not any(isinstance(v, float) and math.isnan(v) for v in summary.model_dump().values())


def test_gate_fails_closed():
    ok = [_result(["supported"])]
    assert gate_failures(SessionSummary.of(ok), ok, GateConfig(min_mean=0.9)) == []
    errored = ok + [_result([None], status="error")]
    assert "errored" in gate_failures(SessionSummary.of(errored), errored, GateConfig())[0]
    unscored = [_result([], status="unscored")]
    assert gate_failures(SessionSummary.of(unscored), unscored, GateConfig(min_mean=0.5))
    assert gate_failures(SessionSummary.of([]), [], GateConfig(min_mean=0.5)) == []


def test_check_verdict_rejects_unknown_ids_and_missing_quotes():
    passages = [Passage(id="p1", text="The lamp has three   brightness\nlevels.")]
    ok, reason = check_verdict(Verdict("supported", passage_ids=["p1"],
                                       quote="three brightness levels"), passages)
    assert reason is None and ok.label == "supported"
    for bad in (Verdict("supported", passage_ids=["p9"], quote="three"),
                Verdict("supported", passage_ids=["p1"], quote="four brightness levels"),
                Verdict("supported", passage_ids=["p1"]),
                Verdict("contradicted", passage_ids=[], quote="three")):
        accepted, reason = check_verdict(bad, passages)
        assert accepted.label == "unsupported" and reason


def test_records_round_trip_through_json():
    r = _result(["supported", "contradicted"])
    again = AnswerResult.model_validate(json.loads(r.model_dump_json()))
    assert again == r and again.score == r.score


def test_empty_passages_make_every_claim_unsupported_without_a_judge_call():
    class CountingJudge:
        verify_calls = 0

        def decompose(self, answer):
            return ["The Pico speaker's battery lasts 12 hours."]

        def verify(self, claim, passages):
            CountingJudge.verify_calls += 1
            return Verdict("supported", passage_ids=["p1"], quote="x")

    r = evaluate("The Pico speaker's battery lasts 12 hours.", [], CountingJudge())
    assert r.score == 0.0 and r.claims[0].label == "unsupported"
    assert "answer scored against an empty passage list" in r.warnings
    assert CountingJudge.verify_calls == 0


def test_passages_over_the_budget_are_split_never_cut():
    passages = [Passage(id=str(i), text="x" * 300) for i in range(5)]
    windows = passage_windows(passages, 1000)
    assert [[p.id for p in w] for w in windows] == [["0", "1", "2"], ["3", "4"]]
    assert sum(len(w) for w in windows) == 5
    with pytest.raises(ValueError, match="refusing to truncate"):
        passage_windows([Passage(id="big", text="y" * 2000)], 1000)
