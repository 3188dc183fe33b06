"""An acronym spelled like a stopword ("US", "IT", "AT") is a name: a supported verdict must
state it, like any other name. (Found by a new user: "sold in Canada, Mexico and the US"
passed against "sold in Canada and Mexico", "US" being read as the stopword "us".)"""
import pytest

import pytest_faithfulness as pf
from pytest_faithfulness.judges.offline import OfflineJudge
from pytest_faithfulness.records import Passage, Verdict
from pytest_faithfulness.trust.quote_check import check_verdict

JUDGES = [OfflineJudge(), OfflineJudge(verifier="heuristic")]


@pytest.mark.parametrize("judge", JUDGES, ids=["calibrated", "heuristic"])
@pytest.mark.parametrize("claim, passage", [
    ("The Pico 2 is sold in Canada, Mexico and the US.", "The Pico 2 is sold in Canada and Mexico."),
    ("Refunds are approved by the IT team.", "Refunds are approved by the finance team."),
    ("The Pico 2 ships with an AT adapter.", "The Pico 2 ships with an adapter."),
])
def test_an_acronym_the_passage_does_not_state_is_not_supported(judge, claim, passage):
    result = pf.evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert result.claims[0].verdict.label != "supported"
    assert result.score == 0


@pytest.mark.parametrize("judge", JUDGES, ids=["calibrated", "heuristic"])
@pytest.mark.parametrize("claim, passage", [
    ("The Pico 2 is sold in the US.", "The Pico 2 is sold in the US and Canada."),
    ("The IT team approves laptops.", "Laptops are approved by the IT team."),
])
def test_an_acronym_the_passage_states_is_supported(judge, claim, passage):
    result = pf.evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert result.score == 1.0


def test_an_llm_quote_without_the_acronym_is_not_evidence():
    passage = Passage(id="p1", text="The Pico 2 is sold in Canada and Mexico.")
    verdict = Verdict(label="supported", passage_ids=["p1"], quote=passage.text)
    checked, note = check_verdict(verdict, [passage],
                                  claim="The Pico 2 is sold in Canada, Mexico and the US.")
    assert checked.label != "supported" and note
