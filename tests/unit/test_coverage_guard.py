"""The coverage guard (issue 23, part 2): judges declare what they were checked on
(``judges.coverage``), the pipeline keeps an answer outside it ``unverified`` (not judged, not
in the mean), the gate bounds their share with a reason of kind ``unmeasurable``, and a merge
keeps the status. Real judges (the offline judge, a scripted judge), no mocks."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pytest_faithfulness.judges.coverage import (
    DEFAULT_COVERAGE,
    EVERYTHING,
    LLM_COVERAGE,
    OFFLINE_COVERAGE,
    JudgeCoverage,
    declared,
    parse_covers,
    uncovered,
)
from pytest_faithfulness.judges.offline import OfflineJudge
from pytest_faithfulness.judges.protocol import JudgeBase, coverage_of, declares
from pytest_faithfulness.pipeline import evaluate
from pytest_faithfulness.records import AnswerResult, Passage, SessionSummary, Verdict
from pytest_faithfulness.run.finish import apply_thresholds
from pytest_faithfulness.run.gate import GateConfig, gate_failures, unverified_failures
from pytest_faithfulness.run.outcome import RunOutcome

PASSAGES = ["The Pico costs $99 and is waterproof to 10 metres.",
            "Le Pico coûte 99 dollars et il est étanche jusqu'à 10 mètres."]
FRENCH = "Le Pico coûte 99 dollars et il est étanche jusqu'à dix mètres de profondeur."
ENGLISH = "The Pico costs $99. It is waterproof to 10 metres."
CODE = "```python\nimport pico\nfor depth in range(10):\n    pico.dive(depth)\n```"
JSON = '{"price": 99, "waterproof_m": 10}'


@pytest.fixture(scope="module")
def judge():
    return OfflineJudge()


class Counting(JudgeBase):
    """A scripted judge that supports every claim with the first passage's text, counting
    its calls; declares no coverage."""

    def __init__(self):
        self.calls = 0

    def decompose(self, answer):
        self.calls += 1
        return [answer]

    def verify(self, claim, passages):
        self.calls += 1
        return Verdict("supported", evidence=[{"passage_id": passages[0].id,
                                               "quote": passages[0].text}])


def test_every_builtin_judge_declares_english_prose_and_tables(judge):
    assert coverage_of(judge) == OFFLINE_COVERAGE
    assert OFFLINE_COVERAGE.languages == ("en",) and OFFLINE_COVERAGE.max_passage_chars is None
    assert LLM_COVERAGE.kinds == ("prose", "table") and LLM_COVERAGE.max_passage_chars == 48_000
    from pytest_faithfulness.judges.llm import LiteLLMJudge

    assert coverage_of(LiteLLMJudge("openai/gpt-4o-mini")) == LLM_COVERAGE


def test_a_judge_that_declares_nothing_gets_the_documented_default_not_everything():
    assert coverage_of(Counting()) == DEFAULT_COVERAGE
    assert coverage_of(object()) == DEFAULT_COVERAGE
    assert not declares(Counting(), "coverage")
    mine = Counting()
    mine.coverage = JudgeCoverage(languages=["EN", "fr"])
    assert declares(mine, "coverage") and coverage_of(mine).languages == ("en", "fr")
    mine.coverage = {"languages": ["de"]}
    assert coverage_of(mine).languages == ("de",)
    mine.coverage = "en"
    with pytest.raises(TypeError, match="must be a JudgeCoverage"):
        coverage_of(mine)


def test_a_coverage_declaration_is_checked_and_widened():
    with pytest.raises(ValidationError, match="unknown content kind"):
        JudgeCoverage(kinds=["sql"])
    assert JudgeCoverage(kinds=["code"]).kinds == ("prose", "code")  # prose always
    wider = declared(OFFLINE_COVERAGE, parse_covers(" fr, DE,code"))
    assert wider.languages == ("en", "fr", "de") and wider.kinds == ("prose", "table", "code")
    assert "--faithfulness-judge-covers fr,de,code" in wider.source
    assert "every language" in declared(OFFLINE_COVERAGE, ["*"]).describe()
    for bad in ("", "english", "fr,python", "e1", "fr;de"):
        with pytest.raises(ValueError, match="ISO 639-1"):
            parse_covers(bad)


def test_the_guard_reads_the_answer_and_names_the_reason():
    passages = [Passage("p1", PASSAGES[0])]
    assert uncovered(ENGLISH, passages, OFFLINE_COVERAGE) is None
    assert uncovered("Yes.", passages, OFFLINE_COVERAGE) is None  # no language
    french = uncovered(FRENCH, passages, OFFLINE_COVERAGE)
    assert "language is 'fr'" in french and "--faithfulness-judge-covers" in french
    assert uncovered(FRENCH, passages, declared(OFFLINE_COVERAGE, ["fr"])) is None
    assert "a code block" in uncovered(CODE, passages, OFFLINE_COVERAGE)
    assert "is JSON" in uncovered(JSON, passages, OFFLINE_COVERAGE)
    assert uncovered(JSON, passages, declared(OFFLINE_COVERAGE, ["json"])) is None
    assert uncovered(FRENCH, passages, EVERYTHING) is None


def test_passages_in_a_table_or_key_value_form_are_no_reason_to_refuse():
    table = Passage("p1", "| model | price |\n|---|---|\n| Pico | $99 |\n\nPrice: $99\n"
                          "Waterproof: 10 m")
    assert uncovered(ENGLISH, [table], OFFLINE_COVERAGE) is None


def test_a_passage_set_over_what_the_judge_sees_whole_is_refused_unless_split():
    small = JudgeCoverage(max_passage_chars=60)
    passages = [Passage("p1", PASSAGES[0]), Passage("p2", "The Pico floats. " * 3)]
    reason = uncovered(ENGLISH, passages, small)
    assert "more than the 60 the judge sees whole" in reason
    assert "--faithfulness-context-budget" in reason
    assert uncovered(ENGLISH, passages, small, budget=60) is None  # split across calls


def test_an_answer_outside_coverage_is_unverified_and_not_judged():
    judge = Counting()
    result = evaluate(FRENCH, PASSAGES, judge)
    assert result.status == "unverified" and result.score is None and not result.claims
    assert "language is 'fr'" in result.unverified_reason
    assert judge.calls == 0 and result.usage.calls == 0
    assert result.passed  # no bound of its own (record_only): the session bound decides
    bounded = result.model_copy(update={"max_unsupported": 0})
    assert bounded.threshold_failures == [f"unverified: {result.unverified_reason}"]
    assert not bounded.passed  # never a pass under a bound
    covered = evaluate(FRENCH, PASSAGES, judge, coverage=declared(DEFAULT_COVERAGE, ["fr"]))
    assert covered.status == "scored" and judge.calls == 2


@pytest.mark.parametrize("answer", [CODE, JSON, FRENCH])
def test_the_offline_judge_leaves_code_json_and_other_languages_unverified(judge, answer):
    assert evaluate(answer, PASSAGES, judge).status == "unverified"


@pytest.mark.parametrize("answer", [ENGLISH, "Yes.", "Thanks for asking!",
                                    "| item | price |\n|---|---|\n| Pico | $99 |"])
def test_english_short_and_table_answers_are_judged(judge, answer):
    assert evaluate(answer, PASSAGES, judge).status in ("scored", "unscored")


def test_a_claim_judged_against_parts_of_the_passages_says_so(judge):
    passages = [PASSAGES[0], "The Pico weighs 180 grams and ships in a blue box."]
    result = evaluate("The Pico costs $99.", passages, judge, context_budget_chars=60)
    assert result.status == "scored"
    assert "judged against the passages in 2 parts" in result.claims[0].note
    whole = evaluate("The Pico costs $99.", passages, judge)
    assert "parts" not in (whole.claims[0].note or "")


def _results(statuses):
    out = []
    for status in statuses:
        if status == "unverified":
            out.append(AnswerResult(answer=FRENCH, status="unverified",
                                    unverified_reason="the answer's language is 'fr'"))
        else:
            out.append(evaluate(ENGLISH, PASSAGES, OfflineJudge()))
    return out


def test_unverified_answers_are_counted_and_out_of_the_mean():
    results = _results(["scored", "unverified", "unverified"])
    summary = SessionSummary.of(results)
    assert (summary.answers, summary.scored, summary.unverified) == (3, 1, 2)
    assert summary.mean_faithfulness == results[0].score


def test_the_unverified_bound_defaults_to_zero_with_a_threshold_and_is_unmeasurable():
    assert GateConfig().max_unverified_rate is None
    config = GateConfig(min_mean=0.1)
    assert config.max_unverified_rate == 0.0 and config.max_unverified_rate_is_default
    assert GateConfig(max_unverified_rate=0.5).applied()[-1] == ("max unverified rate", "0.50")
    results = _results(["scored", "unverified"])
    summary = SessionSummary.of(results)
    reasons = unverified_failures(summary, config)
    assert len(reasons) == 1 and "0.500 (1 of 2) > max unverified rate 0.000" in reasons[0]
    assert "(the default when a session threshold is set)" in reasons[0]
    assert not any("unverified" in r for r in gate_failures(summary, results, config))
    assert unverified_failures(summary, GateConfig(min_mean=0.1, max_unverified_rate=0.5)) == []
    outcome = RunOutcome(results=results, summary=summary)
    added = apply_thresholds(outcome, config)
    assert added == reasons and outcome.kind_of(reasons[0]) == "unmeasurable"
