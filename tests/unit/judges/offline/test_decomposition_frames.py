"""A new user's silent passes in decomposition (issue 20), each fixed as a kind, through
``evaluate`` with the offline judge and, for an LLM decomposer, with the scripted chat server
reached by litellm's real client:

1. a question or an offer of help that carries an assertion (a relative clause, a
   parenthetical, an appositive, a "since/because" clause) has that assertion judged; only
   its frame is set aside;
2. a yes/no question written as a topic and a predicate and answered in the answer ("Sale
   items: refundable? Yes.") is read as the statement it makes;
3. a decomposer's claim whose quantifier, modal verb or negation is not the answer's ("Some
   plans ..." from "All plans ...") is refused, and the sentence itself is judged;
4. a fenced block of prose sentences is judged; a fenced block of code stays set aside.
"""

from __future__ import annotations

import pytest
from scripted_model import claims_reply, judge_model, make_judge, ops, supports_verbatim

from pytest_faithfulness import OfflineJudge, evaluate

PLANS = [{"id": "1", "text": "Subscriptions renew monthly. The Pro plan includes SSO. "
                             "Sale items are not refundable. Some plans include SSO. "
                             "The API allows 10 requests per minute."}]
FACT = "Subscriptions renew monthly."


# --------------------------------------------------------------------------------------------
# 1. Questions and offers of help that carry an assertion.

CARRIERS = {
    "relative-after-comma": ("Shall I also cancel your subscription, which renews daily?",
                             "The subscription renews daily.", "question"),
    "relative-that": ("Would you like me to cancel the subscription that renews daily?",
                      "The subscription renews daily.", "question"),
    "relative-no-comma": ("Shall I also cancel your subscription which renews daily?",
                          "The subscription renews daily.", "question"),
    "parenthetical": ("Would you like me to move you to Basic (which renews daily)?",
                      "Basic renews daily.", "question"),
    "appositive": ("Would you like me to upgrade you to Basic, our plan with daily renewal?",
                   "Basic is our plan with daily renewal.", "question"),
    "because": ("Shall I cancel the subscription since it renews daily?",
                "The subscription renews daily.", "question"),
    "because-after-comma": ("Shall I cancel the subscription, since the plan renews daily?",
                            "The plan renews daily.", "question"),
    "offer": ("Let me know if you'd like me to cancel your subscription, which renews daily.",
              "The subscription renews daily.", "offer of help"),
    "offer-appositive": ("Feel free to try Basic, our plan with daily renewal.",
                         "Basic is our plan with daily renewal.", "offer of help"),
}


@pytest.mark.parametrize(("text", "claim", "reason"), list(CARRIERS.values()),
                         ids=list(CARRIERS))
def test_an_assertion_inside_a_question_or_offer_is_judged(text, claim, reason):
    """Before: the whole sentence was set aside ("question" / "offer of help") and the answer
    scored 1.0 on its one true claim."""
    result = evaluate(f"{FACT} {text}", PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == [FACT, claim]
    assert not result.claims[1].supported
    assert result.score < 1
    (frame,) = result.dropped
    assert frame.reason == reason and text.startswith(frame.text)


def test_a_true_assertion_inside_an_offer_passes():
    """The other direction: the assertion is judged like any claim, so a true one passes."""
    result = evaluate("Would you like me to upgrade you to Pro, which includes SSO?", PLANS,
                      OfflineJudge())
    assert [c.text for c in result.claims] == ["Pro includes SSO."]
    assert result.score == 1.0
    assert [d.reason for d in result.dropped] == ["question"]


@pytest.mark.parametrize("text", [
    "Is there anything else I can help you with?",
    "Is there anything else that I can help with?",
    "Would you like me to confirm that the refund went through?",
    "Do you know which plan renews daily?",
    "Would you like the refund, the store credit, or an exchange?",
    "Let me know if that helps!",
    "Would you like to know more about the plans that we offer?",
    "Is there a specific plan that interests you?",
    "Is there a plan which includes SSO?",
])
def test_a_question_or_offer_that_asserts_nothing_stays_set_aside(text):
    result = evaluate(f"{FACT} {text}", PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == [FACT]
    assert result.score == 1.0
    assert [d.text for d in result.dropped] == [text]


def test_an_llm_decomposer_may_not_set_aside_an_offer_that_asserts(chat_server):
    """The LLM decomposer sets the offer aside whole; the pipeline's local test finds the
    relative clause, so the sentence is judged."""
    offer = "Shall I also cancel your subscription, which renews daily?"
    chat_server.handler = judge_model(
        claims_reply([FACT], dropped=[{"text": offer, "reason": "offer of help"}]),
        supports_verbatim)
    result = evaluate(f"{FACT} {offer}", PLANS, make_judge(chat_server))
    judged = [c for c in result.claims if "renews daily" in c.text]
    assert judged and "set aside by the decomposer" in judged[0].note
    assert not judged[0].supported and result.score < 1


def test_an_llm_decomposer_may_set_aside_an_offer_that_asserts_nothing(chat_server):
    offer = "Is there anything else I can help you with?"
    chat_server.handler = judge_model(
        claims_reply([FACT], dropped=[{"text": offer, "reason": "offer of help"}]),
        supports_verbatim)
    result = evaluate(f"{FACT} {offer}", PLANS, make_judge(chat_server))
    assert [c.text for c in result.claims] == [FACT] and result.score == 1.0
    assert ops(chat_server) == ["decompose", "verify"]


# --------------------------------------------------------------------------------------------
# 2. A question answered in the answer itself.

@pytest.mark.parametrize(("answer", "claim", "supported"), [
    ("Sale items: refundable? Yes.", "Sale items are refundable.", False),
    ("Sale items: refundable? No.", "Sale items are not refundable.", True),
    ("Sale items refundable? Yes.", "Sale items are refundable.", False),
    ("Sale items: can they be refunded? Yes.", "Sale items can be refunded.", False),
])
def test_a_topic_and_predicate_question_with_its_reply_is_the_statement(answer, claim,
                                                                         supported):
    """Before: the question was set aside and the reply too ("greeting or pleasantry"), so
    nothing was judged."""
    result = evaluate(answer, PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == [claim]
    assert result.claims[0].supported is supported
    assert [d.reason for d in result.dropped] == ["reply to the question before it"]


def test_an_unanswered_topic_question_stays_a_question():
    result = evaluate(f"{FACT} Sale items: refundable?", PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == [FACT]
    assert [d.reason for d in result.dropped] == ["question"]


@pytest.mark.parametrize(("reply", "claims", "score"), [
    ("Yes.", [], 0.0),  # the LLM sets the pair aside: the pipeline judges the statement
    ("No.", ["Sale items are not refundable."], 1.0),  # a faithful LLM reading passes
])
def test_an_llm_decomposer_is_held_to_the_statement(chat_server, reply, claims, score):
    question = "Sale items: refundable?"
    dropped = [] if claims else [{"text": question, "reason": "question"},
                                 {"text": reply, "reason": "reply"}]
    chat_server.handler = judge_model(claims_reply(claims, dropped=dropped), supports_verbatim)
    result = evaluate(f"{question} {reply}", PLANS, make_judge(chat_server))
    assert [c.text for c in result.claims] == (claims or ["Sale items are refundable."])
    assert result.score == score


# --------------------------------------------------------------------------------------------
# 3. A claim that changes the answer's quantifier, modal verb or negation.

FLIPS = {
    "quantifier": ("All plans include SSO.", "Some plans include SSO.", "'some'"),
    "modal": ("Refunds must be requested within 30 days.",
              "Refunds may be requested within 30 days.", "which says 'must'"),
    "negation": ("Sale items are refundable.", "Sale items are not refundable.", "negated"),
}


@pytest.mark.parametrize(("answer", "claim", "why"), list(FLIPS.values()), ids=list(FLIPS))
def test_a_claim_that_changes_the_answer_is_refused(chat_server, answer, claim, why):
    """Before (quantifier): "Some plans include SSO." covered "All plans include SSO." and
    was supported word for word: 1.0."""
    passages = [{"id": "1", "text": f"{claim}"}]
    chat_server.handler = judge_model(claims_reply([claim]), supports_verbatim)
    result = evaluate(answer, passages, make_judge(chat_server))
    refused = result.claims[0]
    assert refused.text == claim and refused.label == "unsupported"
    assert "changes what the answer says" in refused.note and why in refused.note
    # the sentence itself is judged, as written
    assert [c.text for c in result.claims[1:]] == [answer]
    assert not result.claims[1].supported
    assert result.score == 0.0
    assert [c for c in ops(chat_server) if c == "verify"] == ["verify"]  # the refusal is free


@pytest.mark.parametrize(("answer", "claims"), [
    ("All plans include SSO and some plans include audit logs.",
     ["All plans include SSO.", "Some plans include audit logs."]),
    ("Sale items can't be refunded.", ["Sale items cannot be refunded."]),
    ("You'll get a refund within 5 days.", ["The customer will get a refund within 5 days."]),
    ("Refunds are issued within 5 days.", ["Refunds will be issued within 5 days."]),
])
def test_a_claim_that_keeps_what_the_answer_says_is_judged(chat_server, answer, claims):
    """The other direction: the same words said another way are no change."""
    passages = [{"id": "1", "text": " ".join(claims)}]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    result = evaluate(answer, passages, make_judge(chat_server))
    assert [c.text for c in result.claims] == claims
    assert result.score == 1.0
    assert not any(c.note and "changes" in c.note for c in result.claims)


# --------------------------------------------------------------------------------------------
# 4. Prose inside a code fence.

PROSE_FENCE = "```\nThe API allows 100 requests per minute.\n```"
CODE_FENCE = "```\nx = 1\n```"
LIMIT = "The API allows 10 requests per minute."


def test_an_llm_decomposer_may_not_set_aside_prose_in_a_fence(chat_server):
    """Before: the fenced sentence was set aside as a code block; no claim, nothing judged."""
    chat_server.handler = judge_model(
        claims_reply([], dropped=[{"text": PROSE_FENCE, "reason": "code block"}]),
        supports_verbatim)
    result = evaluate(PROSE_FENCE, PLANS, make_judge(chat_server))
    assert [c.text for c in result.claims] == ["The API allows 100 requests per minute."]
    assert not result.claims[0].supported and result.score == 0.0


def test_offline_prose_in_a_fence_is_judged():
    result = evaluate(PROSE_FENCE, PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == ["The API allows 100 requests per minute."]
    assert result.score < 1


def test_code_in_a_fence_stays_set_aside_with_its_reason(chat_server):
    answer = f"{LIMIT}\n\n{CODE_FENCE}"
    chat_server.handler = judge_model(
        claims_reply([LIMIT], dropped=[{"text": CODE_FENCE, "reason": "code block"}]),
        supports_verbatim)
    result = evaluate(answer, PLANS, make_judge(chat_server))
    assert [c.text for c in result.claims] == [LIMIT] and result.score == 1.0
    assert [(d.text, d.reason) for d in result.dropped] == [(CODE_FENCE, "code block")]
    offline = evaluate(answer, PLANS, OfflineJudge())
    assert [c.text for c in offline.claims] == [LIMIT]
    assert [(d.text, d.reason) for d in offline.dropped] == [(CODE_FENCE, "code block")]


def test_code_in_a_fence_the_llm_did_not_list_is_set_aside_by_the_pipeline(chat_server):
    answer = f"{LIMIT}\n\n{CODE_FENCE}"
    chat_server.handler = judge_model(claims_reply([LIMIT]), supports_verbatim)
    result = evaluate(answer, PLANS, make_judge(chat_server))
    assert [c.text for c in result.claims] == [LIMIT] and result.score == 1.0
    assert [d.reason for d in result.dropped] == ["code block (set aside by the pipeline)"]


# --------------------------------------------------------------------------------------------
# 5. A statement set beside another after a semicolon, a colon or a spaced dash is a claim of
# its own, with its own subject; a colon before a list or a bare phrase splits nothing.

@pytest.mark.parametrize("glue", ["; ", ": ", " \u2014 ", " - "])
def test_a_statement_after_a_semicolon_colon_or_dash_is_a_claim_of_its_own(glue):
    result = evaluate(f"Subscriptions renew monthly{glue}sale items are not refundable.",
                      PLANS, OfflineJudge())
    assert [c.text for c in result.claims] == [FACT, "Sale items are not refundable."]
    assert result.score == 1.0
    wrong = evaluate(f"Subscriptions renew monthly{glue}returns are free.", PLANS,
                     OfflineJudge())
    assert [c.text for c in wrong.claims] == [FACT, "Returns are free."]
    assert [c.supported for c in wrong.claims] == [True, False]


@pytest.mark.parametrize("text", ["The Pro plan includes: SSO.",
                                  "The Pro plan includes SSO \u2014 and more."])
def test_a_colon_or_dash_before_no_statement_splits_nothing(text):
    result = evaluate(text, PLANS, OfflineJudge())
    assert len(result.claims) == 1
