"""A negation written to be missed is still a negation: a word drawn with Cyrillic or Greek
look-alike letters ("n\u043et") is read as the Latin word it shows, and a contraction written
with a backtick or without its apostrophe ("isn`t", "doesnt") is a negation. (Found by a new
user: both passed the strictest gate against a passage that says the opposite.)"""
import pytest

import pytest_faithfulness as pf
from pytest_faithfulness.judges.coverage import EVERYTHING
from pytest_faithfulness.judges.offline import OfflineJudge
from pytest_faithfulness.records import Passage, Verdict
from pytest_faithfulness.trust.quote_check import check_verdict

JUDGES = [OfflineJudge(), OfflineJudge(verifier="heuristic")]
PASSAGES = [{"id": "p1", "text": "The Pico 2 is sold in Canada and Mexico. "
                                 "Refunds are issued within 14 days. The app supports dark mode."}]


@pytest.mark.parametrize("judge", JUDGES, ids=["calibrated", "heuristic"])
@pytest.mark.parametrize("claim", [
    "The Pico 2 is n\u043et sold in Canada and Mexico.",       # Cyrillic o
    "Refunds are n\u03bft issued within 14 days.",              # Greek omicron
    "The app d\u043ees n\u043et support dark mode.",
    "The Pico 2 isn`t sold in Canada and Mexico.",              # backtick for the apostrophe
    "Refunds aren\u00b4t issued within 14 days.",               # acute accent
    "The app doesnt support dark mode.",                        # no apostrophe
])
def test_a_masked_negation_is_not_supported(judge, claim):
    result = pf.evaluate(claim, PASSAGES, judge)
    assert result.claims[0].verdict.label != "supported"
    assert result.score == 0


@pytest.mark.parametrize("judge", JUDGES, ids=["calibrated", "heuristic"])
def test_text_wholly_in_another_script_is_left_as_it_is(judge):
    passages = [{"id": "p1", "text": "Возврат возможен в течение 14 дней."}]
    result = pf.evaluate("Возврат возможен в течение 14 дней.", passages, judge,
                         coverage=EVERYTHING)  # the rules' own reading, past the guard
    assert result.score == 1.0


def test_an_llm_supported_verdict_on_a_masked_negation_is_refused():
    passage = Passage(id="p1", text="The Pico 2 is sold in Canada and Mexico.")
    verdict = Verdict(label="supported", passage_ids=["p1"], quote=passage.text)
    checked, note = check_verdict(verdict, [passage],
                                  claim="The Pico 2 is n\u043et sold in Canada and Mexico.")
    assert checked.label != "supported" and note
