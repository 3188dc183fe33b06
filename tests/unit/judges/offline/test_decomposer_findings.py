"""A new user's decomposer findings (issue 21, item 17), each fixed as a kind: a sentence that
opens with a condition keeps it whole on every claim; a lead-in that only announces a list is
set aside and glued onto no item (a topic items carry says so); "Here is how returns work."
is a lead-in, set aside with its reason; recap openers ("As I said,", "As noted above,", "To
recap,") are stripped and the rest judged, offline and with an LLM decomposer. Through
``evaluate`` (offline judge; the loopback LLM judge for an LLM decomposer) and a real pytest
run for the assertion."""

from __future__ import annotations

import pytest
from scripted_model import claims_reply, judge_model, make_judge, ops, supports_verbatim

from pytest_faithfulness import OfflineJudge, evaluate

RETURNS = [{"id": "1", "text": "Returns are accepted within 30 days. Refunds go to the original "
                               "card. If the item is unused, you get a full refund. If the item "
                               "is unused, you keep the tags."}]
ACCEPTED = "Returns are accepted within 30 days."


# --------------------------------------------------------------------------------------------
# Conditions.

@pytest.mark.parametrize("answer, claims", [
    ("If the item is unused, you get a full refund and keep the tags.",
     ["If the item is unused, you get a full refund.",
      "If the item is unused, you keep the tags."]),  # before: "If the item keep the tags."
    ("If the item is unused and arrives within 30 days, you get a full refund.",
     ["If the item is unused and arrives within 30 days, you get a full refund."]),
    ("When you return the item and it is unused, you get a full refund.",
     ["When you return the item and it is unused, you get a full refund."]),
    ("You get a full refund if the item is unused and you have the receipt.",
     ["You get a full refund if the item is unused and you have the receipt."]),
])
def test_a_condition_stays_whole_on_every_claim(answer, claims):
    result = evaluate(answer, RETURNS, OfflineJudge())
    assert [c.text for c in result.claims] == claims


def test_a_conditional_answer_is_judged_with_its_condition():
    """Both claims hold the condition, and the passage says both with it."""
    result = evaluate("If the item is unused, you get a full refund and keep the tags.",
                      RETURNS, OfflineJudge())
    assert result.score == 1.0


# --------------------------------------------------------------------------------------------
# Lead-ins.

def test_a_list_announcing_lead_in_is_glued_onto_no_item():
    """Before: "Here is how returns work accepted within 30 days." and "Here is how returns
    work: free for members." were judged, while the lead-in was also set aside."""
    answer = ("Here is how returns work:\n- accepted within 30 days\n"
              "- Refunds go to the original card.")
    result = evaluate(answer, RETURNS, OfflineJudge())
    assert not any("Here is how" in c.text for c in result.claims)
    assert [(d.text, d.reason) for d in result.dropped] == [("Here is how returns work:",
                                                             "lead-in")]
    assert result.score == 1.0


def test_a_topic_the_items_carry_says_so_in_its_reason():
    answer = "To return an item:\n- pack it\n- print the label"
    result = evaluate(answer, RETURNS, OfflineJudge())
    assert [c.text for c in result.claims] == ["To return an item: pack it.",
                                               "To return an item: print the label."]
    assert [d.reason for d in result.dropped] == [
        "lead-in (its topic is carried into the list items below it)"]


@pytest.mark.parametrize("answer, claims", [
    ("Here are the Pico's specs:\n- 300 g\n- waterproof to 10 m",
     ["The Pico: 300 g.", "The Pico: waterproof to 10 m."]),  # the frame, not the topic, goes
    ("The following plans include Wi-Fi 6:\n- Pro\n- Max",  # a lead-in that asserts: carried
     ["The following plans include Wi-Fi 6: Pro.", "The following plans include Wi-Fi 6: Max."]),
    ("The steps are below:\n- pack it\n- ship it", ["Pack it.", "Ship it."]),
])
def test_a_lead_in_gives_its_items_its_topic_without_the_frame(answer, claims):
    result = evaluate(answer, RETURNS, OfflineJudge())
    assert [c.text for c in result.claims] == claims
    (lead_in,) = result.dropped
    assert lead_in.reason.startswith("lead-in")
    assert ("carried" in lead_in.reason) == (claims[0] != "Pack it.")


@pytest.mark.parametrize("lead_in", ["Here is how returns work.", "Here's what you need to know."])
def test_an_announcing_sentence_is_set_aside_with_a_reason(lead_in):
    """Before: scored as an unsupported claim (0.5)."""
    result = evaluate(f"{lead_in} {ACCEPTED}", RETURNS, OfflineJudge())
    assert [c.text for c in result.claims] == [ACCEPTED]
    assert [(d.text, d.reason) for d in result.dropped] == [(lead_in, "lead-in")]
    assert result.score == 1.0


def test_an_announcing_sentence_with_a_number_is_judged():
    """The other direction: a number makes it a claim."""
    result = evaluate(f"Here is how the 3 plans compare. {ACCEPTED}", RETURNS, OfflineJudge())
    assert len(result.claims) == 2


def test_an_llm_decomposer_may_set_the_announcing_sentence_aside(chat_server):
    chat_server.handler = judge_model(
        claims_reply([ACCEPTED], dropped=["Here is how returns work."]), supports_verbatim)
    result = evaluate(f"Here is how returns work. {ACCEPTED}", RETURNS, make_judge(chat_server))
    assert [c.text for c in result.claims] == [ACCEPTED]
    assert result.score == 1.0
    assert ops(chat_server) == ["decompose", "verify"]


# --------------------------------------------------------------------------------------------
# Recap openers.

OPENERS = ["As I said,", "As noted above,", "To recap,", "As mentioned earlier,",
           "As I mentioned before,"]


@pytest.mark.parametrize("opener", OPENERS)
def test_a_recap_opener_is_stripped_offline(opener):
    """Before: the opener stayed in the claim and the answer scored 0."""
    result = evaluate(f"{opener} returns are accepted within 30 days.", RETURNS, OfflineJudge())
    assert [c.text for c in result.claims] == [ACCEPTED]
    assert [(d.text, d.reason) for d in result.dropped] == [(opener, "opener")]
    assert result.score == 1.0


@pytest.mark.parametrize("opener", OPENERS)
def test_a_recap_opener_adds_no_duplicate_claim_with_an_llm_decomposer(chat_server, opener):
    """Before: the sentence came back as a claim of its own beside the decomposer's (0.5)."""
    chat_server.handler = judge_model(claims_reply([ACCEPTED]), supports_verbatim)
    result = evaluate(f"{opener} returns are accepted within 30 days.", RETURNS,
                      make_judge(chat_server))
    assert [c.text for c in result.claims] == [ACCEPTED]
    assert result.score == 1.0


def test_the_new_users_answers_pass_through_pytest(pytester):
    answers = ["As I said, returns are accepted within 30 days.",
               f"Here is how returns work. {ACCEPTED}",
               "If the item is unused, you get a full refund and keep the tags."]
    pytester.makepyfile("import pytest\n\n"
                        f"@pytest.mark.parametrize('answer', {answers!r})\n"
                        "def test_answer(assert_faithful, answer):\n"
                        f"    assert_faithful(answer, {RETURNS!r}, min_score=1.0)\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
