"""A non-assertive frame (restatement, refusal, offer of help, question, heading) is set aside
only when nothing factual is left once the frame is removed; true pleasantries stay set aside;
HTML markup is set aside as markup. Through ``evaluate`` with the offline judge, and with an
LLM decomposer (scripted chat server) that files the whole answer under "dropped"."""

from __future__ import annotations

import pytest
from scripted_model import claims_reply, judge_model, make_judge, supports_verbatim

from pytest_faithfulness import evaluate
from pytest_faithfulness import make_judge as make_named_judge
from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer, non_assertive_reason

POLICY = ["Sale items cannot be refunded.", "Gift cards expire after one year."]
POLICY_LLM = [{"id": str(i), "text": text} for i, text in enumerate(POLICY, 1)]

WRONG_IN_A_FRAME = {
    "restates": [
        "You asked whether sale items can be refunded, and they can for 90 days.",
        "You wanted to know about sale items, and they can be refunded in full.",
        "Your question was about gift cards, so gift cards never expire.",
    ],
    "refusal": [
        "The documents don't mention it, yet sale items are refundable for 90 days.",
        "I couldn't find anything saying sale items cannot be refunded, so they can be refunded.",
        "I couldn't find the gift card terms, but gift cards never expire.",
        "The passages don't cover sale items, yet refunds are always granted.",
    ],
    "offer": [
        "Let me know if you'd like a refund on your sale item, which is refundable for 90 days.",
        "Feel free to request a refund on sale items within 90 days.",
        "Happy to help with sale items being fully refundable!",
        "Feel free to return sale items at any store.",
        "Glad to help with gift cards being valid forever!",
    ],
    "question": [
        "Would you like me to process your refund, which takes 90 days?",
        "Why are sale items always refundable within 90 days?",
        "Why do gift cards never expire?",
        "Do you want a refund on the sale item, which arrives within 3 weeks?",
    ],
    "heading": [
        "## Sale items refundable for 90 days",
        "## Sale items refundable within 30 days",
        "### Refunds always available for sale items",
    ],
    "tag question": [
        "Sale items can be refunded, can't they?",
        "Sale items are refundable, aren't they?",
        "Gift cards never expire, do they?",
    ],
    "answered question": [
        "Can sale items be refunded? Yes.",
        "Are sale items refundable? Yes!",
        "Do gift cards expire? No.",
        "Can items bought on sale be refunded? Absolutely.",
        "Can items bought on sale be refunded? Definitely!",
        "Can items bought on sale be refunded? Certainly.",
        "Can items bought on sale be refunded? Sure.",
        "Can items bought on sale be refunded? Of course.",
        "Can items bought on sale be refunded? Indeed.",
        "Can items bought on sale be refunded? Correct.",
        "Can items bought on sale be refunded? Yep.",
        "Are sale items refundable? They are.",
        "Is a sale item refundable? It is.",
        "Can sale items be refunded? They can.",
        "Will I get a refund on sale items? Yes.",
        "Isn't a sale item refundable in cash? Yes.",
        "Do gift cards expire? Of course not!",
        "Do gift cards expire after one year? They don't.",
    ],
    "declarative question": [
        "Items bought on sale can be refunded in cash?",
        "Gift cards never expire?",
        "Sale items are refundable within 30 days?",
    ],
    "markup": [
        "I hope this helps you get your 90-day sale refund.",
        "Sale items <!-- approved --> can be refunded.",
        "Gift cards<br>never expire.",
    ],
}
CASES = [(kind, answer) for kind, answers in WRONG_IN_A_FRAME.items() for answer in answers]
IDS = [f"{kind}-{i}" for kind, answers in WRONG_IN_A_FRAME.items() for i in range(len(answers))]


@pytest.fixture(scope="module")
def offline():
    return make_named_judge("offline")


@pytest.mark.parametrize("kind, answer", CASES, ids=IDS)
def test_a_fact_inside_a_frame_is_judged_offline(offline, kind, answer):
    result = evaluate(answer, POLICY, offline)
    assert result.status == "scored", [(d.text, d.reason) for d in result.dropped]
    assert result.score < 1
    assert all(c.text.strip(" .") not in {"I", "You", "We"} for c in result.claims)
    assert all("<" not in c.text for c in result.claims)


@pytest.mark.parametrize("kind, answer", CASES, ids=IDS)
def test_a_fact_an_llm_decomposer_files_under_dropped_is_judged(chat_server, kind, answer):
    chat_server.handler = judge_model(claims_reply([], [answer]), supports_verbatim)
    result = evaluate(answer, POLICY_LLM, make_judge(chat_server))
    assert result.status == "scored", [(d.text, d.reason) for d in result.dropped]
    assert result.score < 1


@pytest.mark.parametrize("kind, answer", [c for c in CASES if c[0] != "markup"],
                         ids=[i for i, c in zip(IDS, CASES) if c[0] != "markup"])
def test_the_local_test_finds_the_fact(kind, answer):
    if kind == "heading":  # a heading's Markdown is structure; its text is a sentence
        answer = answer.lstrip("# ")
    assert non_assertive_reason(answer) is None


PLEASANTRIES = ["Hope this helps!", "Let me know if you have other questions.",
                "Is there anything else I can help with?", "Good question!",
                "I couldn't find that in the documents.", "You asked about the warranty.",
                "Feel free to reach out if you need anything else.", "Is the Pico waterproof?",
                "I'm happy to help with your refund question."]


@pytest.mark.parametrize("text", PLEASANTRIES)
def test_true_pleasantries_stay_set_aside(offline, text):
    assert non_assertive_reason(text) is not None
    answer = f"Sale items cannot be refunded. {text}"
    result = evaluate(answer, POLICY, offline)
    assert [c.text for c in result.claims] == ["Sale items cannot be refunded."]
    assert result.score == 1


@pytest.mark.parametrize("answer, markup", [
    ("Sale items cannot be refunded.<br>Gift cards expire after one year.", ["<br>"]),
    ("<p>Sale items cannot be refunded.</p>", ["<p>", "</p>"]),
    ("Sale items cannot be refunded. <!-- source: policy page -->", ["<!-- source: policy page -->"]),
])
def test_html_markup_is_set_aside_as_markup(offline, answer, markup):
    decomposition = RuleDecomposer().decompose(answer)
    assert [d.text for d in decomposition.dropped if d.reason == "markup"] == markup
    assert all("<" not in c for c in decomposition.claims)
    for d in decomposition.dropped:
        for s, e in d.spans:
            assert answer[s:e] in d.text
    result = evaluate(answer, POLICY, offline)
    assert result.score == 1


SAYS_P = ["Refunds are issued within 14 days of a return being received.",
          "Gift cards expire after one year.", "Sale items cannot be refunded."]
SAYS_P_LLM = [{"id": str(i), "text": text} for i, text in enumerate(SAYS_P, 1)]
#: A statement in declarative word order with "?" and a "No." after it asserts its negation.
DENIED = [
    "Refunds are issued within 14 days of a return being received? No.",
    "Gift cards expire after one year? Nope.",
    "Sale items cannot be refunded? Not at all.",
]


@pytest.mark.parametrize("answer", DENIED)
def test_a_denied_statement_is_not_supported_by_the_statement(offline, answer):
    result = evaluate(answer, SAYS_P, offline)
    assert result.status == "scored"
    assert result.score == 0, [(c.text, c.verdict.label) for c in result.claims]
    assert [d.reason for d in result.dropped] == ["reply to the question before it"]


@pytest.mark.parametrize("answer", DENIED)
def test_a_denied_statement_an_llm_files_under_dropped_is_not_supported(chat_server, answer):
    chat_server.handler = judge_model(claims_reply([], [answer]), supports_verbatim)
    result = evaluate(answer, SAYS_P_LLM, make_judge(chat_server))
    assert result.status == "scored", [(d.text, d.reason) for d in result.dropped]
    assert result.score == 0, [(c.text, c.verdict.label) for c in result.claims]


@pytest.mark.parametrize("answer, claim", [
    ("Can items bought on sale be refunded? Absolutely.", "Items bought on sale can be refunded."),
    ("Do gift cards expire? Of course not!", "Gift cards do not expire."),
    ("Isn't a sale item refundable? Yes.", "A sale item is refundable."),
    ("Will I get a refund on sale items? Yes.", "You will get a refund on sale items."),
    ("Gift cards expire after one year? No.",
     "It is not the case that gift cards expire after one year."),
    ("Items bought on sale can be refunded in cash?", "Items bought on sale can be refunded in cash."),
])
def test_the_claim_carries_the_reply(answer, claim):
    decomposition = RuleDecomposer().decompose(answer)
    assert decomposition.claims == [claim]


@pytest.mark.parametrize("text", [
    "Anything else?", "Need help with the refund?", "What is your order number?", "Sound good?",
    "It is fascinating how stores differ, what is your favourite shop?",
    "That sounds lovely, do you shop there often?",
])
def test_interrogatives_and_elliptical_questions_stay_questions(text):
    assert non_assertive_reason(text) == "question"


#: Text in angle brackets that is not an HTML tag, or that a reader sees as alt text or a
#: tooltip, is text of the answer (found by a new user: set aside as "markup", never scored).
NOT_MARKUP = [
    "Gift cards expire after one year. <Sale items can be refunded too.>",
    "Gift cards expire after one year <and sale items can be refunded>.",
    "Gift cards expire after one year <b and sale items can be refunded>.",
    'Gift cards expire after one year. <img alt="Sale items can be refunded in cash" '
    'src="sale.png">',
    'Gift cards expire after one year. <span title="Sale items can be refunded">Details</span>',
]


@pytest.mark.parametrize("answer", NOT_MARKUP)
def test_text_in_a_tag_shape_a_reader_sees_is_judged(offline, answer):
    result = evaluate(answer, POLICY, offline)
    assert result.status == "scored", [(d.text, d.reason) for d in result.dropped]
    assert result.score < 1, [(c.text, c.label) for c in result.claims]
    assert not any("Sale items can be refunded" in d.text and d.reason == "markup"
                   for d in result.dropped)


@pytest.mark.parametrize("answer", NOT_MARKUP)
def test_text_in_a_tag_shape_an_llm_decomposer_sets_aside_is_judged(chat_server, answer):
    true = "Gift cards expire after one year." if "Gift" in answer else \
        "Refunds are issued within 14 days of a return being received."
    chat_server.handler = judge_model(claims_reply([true], []), supports_verbatim)
    result = evaluate(answer, POLICY_LLM, make_judge(chat_server))
    assert result.status == "scored", [(d.text, d.reason) for d in result.dropped]
    assert result.score < 1, [(c.text, c.label, c.note) for c in result.claims]


#: A short false part riding along with a long true one (found by a new user: the quote of the
#: true part carried 75% of the claim's words, so the claim passed), and "it is false that".
RIDERS = [
    ("Gift cards expire after one year, and sale items can be refunded.",
     "Gift cards expire after one year."),
    ("Gift cards expire after one year, so sale items can be refunded.",
     "Gift cards expire after one year."),
    ("Gift cards expire after one year, but not for members.",
     "Gift cards expire after one year."),
    ("Gift cards, which are sold in every store, expire after one year.",
     "Gift cards expire after one year."),
    ("It is false that gift cards expire after one year.", "Gift cards expire after one year."),
]


@pytest.mark.parametrize("claim, quote", RIDERS)
def test_a_part_of_a_claim_the_quote_does_not_carry_is_not_supported(offline, claim, quote):
    from pytest_faithfulness.records import Passage, Verdict
    from pytest_faithfulness.trust.quote_check import check_verdict

    passages = [Passage(id=str(i), text=t) for i, t in enumerate(POLICY, 1)]
    accepted, reason = check_verdict(Verdict("supported", passage_ids=["2"], quote=quote),
                                     passages, claim)
    assert accepted.label == "unsupported" and reason, reason
    result = evaluate(claim, POLICY, offline)
    assert result.score < 1, [(c.text, c.label) for c in result.claims]


def test_a_claim_whose_every_part_the_quote_carries_is_still_supported(offline):
    from pytest_faithfulness.records import Passage, Verdict
    from pytest_faithfulness.trust.quote_check import check_verdict

    passage = Passage(id="1", text="Gift cards, sold online and in stores, expire after one year.")
    for claim in ("Gift cards expire after one year.",
                  "Gift cards, sold online and in stores, expire after one year.",
                  "Gift cards expire after one year, online and in stores."):
        accepted, reason = check_verdict(Verdict("supported", passage_ids=["1"],
                                                 quote=passage.text), [passage], claim)
        assert reason is None and accepted.label == "supported", (claim, reason)
