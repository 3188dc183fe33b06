"""A new user's silent passes in decomposition (issue 20, second round), each fixed as a kind,
through ``evaluate`` with the built-in offline judge and, for an LLM decomposer, with the
scripted chat server reached by litellm's real client:

1. prose inside a code fence (any tag that names no language, ``~~~``, several sentences, a
   price, a parenthesis) is judged; code stays set aside, with its fence in its span;
2. a bare question ("Waterproof?") answered by a bare reply ("Yes.") asserts its predicate of
   the answer's subject ("The Pico 2 is waterproof."), or is judged as written;
3. an elliptical reply ("It sure is.", "It is.", "..., but it is.") takes its predicate from
   the question it answers; a subject and an auxiliary alone are never a claim;
4. an inverted question keeps a name with a number whole ("Is the Pico 2 waterproof?").
"""

from __future__ import annotations

import pytest
from scripted_model import claims_reply, judge_model, make_judge, supports_verbatim

from pytest_faithfulness import evaluate
from pytest_faithfulness import make_judge as builtin_judge
from pytest_faithfulness.judges.coverage import EVERYTHING

PICO = [{"id": "1", "text": "The Pico 2 weighs 800 grams and costs $49. "
                            "The battery lasts up to 10 hours."}]
FACT = "The Pico 2 weighs 800 grams."


def offline(answer: str):
    # the decomposer's own reading, past the coverage guard (judges.coverage)
    return evaluate(answer, PICO, builtin_judge("offline"), coverage=EVERYTHING)


# --------------------------------------------------------------------------------------------
# 1. Prose inside a code fence.

PROSE_FENCES = {
    "plain": "```\nThe Pico 2 costs $99 and is waterproof.\n```",
    "text-tag": "```text\nThe Pico 2 costs $99 and is waterproof.\n```",
    "tilde": "~~~\nThe Pico 2 costs $99 and is waterproof.\n~~~",
    "several": "```\nThe Pico 2 costs $99. It is waterproof.\n```",
    "lines": "```\nThe Pico 2 costs $99.\nIt is waterproof (to 10 m); it floats.\n```",
    "wrapped": "```\nThe Pico 2 costs $99 and\nis waterproof.\n```",
    "list": "```\n- The Pico 2 costs $99.\n- It is waterproof.\n```",
}


@pytest.mark.parametrize("fence", list(PROSE_FENCES.values()), ids=list(PROSE_FENCES))
def test_prose_in_a_fence_is_judged(fence):
    """Before: the fence was set aside as a "code block" (a "$" read as a code symbol) and
    the answer scored 1.0 on its one true claim."""
    result = offline(f"{FACT}\n\n{fence}")
    texts = [c.text for c in result.claims]
    assert texts[0] == FACT
    assert any("$99" in t for t in texts[1:]) and any("waterproof" in t for t in texts[1:])
    assert not [d for d in result.dropped if d.reason.startswith("code block")]
    assert result.score < 0.5


def test_a_fence_of_prose_alone_is_scored():
    """Before: the answer had no claim at all (unscored: the gate passed it)."""
    result = offline("```\nThe Pico 2 costs $99.\n```")
    assert [c.text for c in result.claims] == ["The Pico 2 costs $99."]
    assert result.score == 0.0


@pytest.mark.parametrize("code", ["x = 1", "pip install foo", "$ ls -la", "print(x)",
                                  "Hello World"])
def test_code_in_a_fence_stays_set_aside_with_the_fence_in_its_span(code):
    """The fence is part of the code block's span (before: (4, 9) for "```\\nx = 1\\n```")."""
    fence = f"```\n{code}\n```"
    for answer, at in ((fence, 0), (f"{FACT}\n\n{fence}", len(FACT) + 2)):
        result = offline(answer)
        assert [c.text for c in result.claims] == ([FACT] if at else [])
        assert [(d.text, d.reason, d.spans) for d in result.dropped] == [
            (fence, "code block", [(at, at + len(fence))])]


def test_an_llm_decomposer_may_not_set_aside_priced_prose_in_a_fence(chat_server):
    fence = PROSE_FENCES["plain"]
    chat_server.handler = judge_model(
        claims_reply([FACT], dropped=[{"text": fence, "reason": "code block"}]),
        supports_verbatim)
    result = evaluate(f"{FACT}\n\n{fence}", PICO, make_judge(chat_server))
    assert any("$99" in c.text for c in result.claims)
    assert result.score < 1


# --------------------------------------------------------------------------------------------
# 2. A bare question and its bare reply.

@pytest.mark.parametrize(("pair", "claim"), [
    ("Waterproof? Yes.", "The Pico 2 is waterproof."),
    ("Refundable? Yes.", "The Pico 2 is refundable."),
    ("Waterproof? Absolutely.", "The Pico 2 is waterproof."),
    ("Free shipping? Yes!", "Free shipping: yes."),  # no predicate: judged as written
    ("Refundable? No.", "The Pico 2 is not refundable."),
])
def test_a_bare_question_and_reply_assert_of_the_subject(pair, claim):
    """Before: the question was set aside ("question") and the reply too ("greeting or
    pleasantry"): 1.0."""
    result = offline(f"{FACT} {pair}")
    assert [c.text for c in result.claims] == [FACT, claim]
    assert not result.claims[1].supported and result.score == 0.5
    assert [d.reason for d in result.dropped] == ["reply to the question before it"]


def test_a_bare_question_with_no_subject_is_judged_as_written():
    """Before: "Refundable? No." alone had no claim (unscored)."""
    result = offline("Refundable? No.")
    assert [c.text for c in result.claims] == ["Refundable: no."]
    assert result.score == 0.0


def test_a_bare_question_without_a_reply_stays_a_question():
    result = offline(f"{FACT} Anything else? Waterproof?")
    assert [c.text for c in result.claims] == [FACT] and result.score == 1.0
    assert [d.reason for d in result.dropped] == ["question", "question"]


def test_an_llm_decomposer_may_not_set_aside_a_bare_question_and_reply(chat_server):
    chat_server.handler = judge_model(
        claims_reply([FACT], dropped=[{"text": "Waterproof?", "reason": "question"},
                                      {"text": "Yes.", "reason": "reply"}]),
        supports_verbatim)
    result = evaluate(f"{FACT} Waterproof? Yes.", PICO, make_judge(chat_server))
    assert [c.text for c in result.claims][1:] == ["Waterproof: yes."]
    assert not result.claims[1].supported and result.score < 1


# --------------------------------------------------------------------------------------------
# 3. Elliptical replies.

@pytest.mark.parametrize(("text", "claims"), [
    ("Is it waterproof? It sure is.", ["The Pico 2 is waterproof."]),
    ("Is it waterproof? It certainly is.", ["The Pico 2 is waterproof."]),
    ("You may wonder whether it is waterproof. It is.", ["The Pico 2 is waterproof."]),
    ("Is it waterproof? It is not.", ["The Pico 2 is not waterproof."]),
    ("I cannot confirm whether the Pico 2 is waterproof, but it is.",
     ["I cannot confirm whether the Pico 2 is waterproof.", "The Pico 2 is waterproof."]),
])
def test_an_elliptical_reply_takes_the_predicate_of_its_question(text, claims):
    """Before: "The Pico 2 sure is." / "The Pico 2 is." was a claim, which the judge
    supported with an unrelated quote."""
    result = offline(f"{FACT} {text}")
    assert [c.text for c in result.claims] == [FACT, *claims]
    if "not" not in claims[-1]:
        assert not result.claims[-1].supported and result.score < 1


def test_a_reply_with_no_readable_question_is_judged_with_it():
    result = offline(f"{FACT} Why not? It is.")
    assert [c.text for c in result.claims] == [FACT, "Why not? It is."]


def test_an_llm_decomposers_elliptical_claim_is_not_scored_alone(chat_server):
    answer = f"{FACT} Is it waterproof? It sure is."
    chat_server.handler = judge_model(
        claims_reply([FACT, "The Pico 2 sure is."],
                     dropped=[{"text": "Is it waterproof?", "reason": "question"}]),
        supports_verbatim)
    result = evaluate(answer, PICO, make_judge(chat_server))
    assert "The Pico 2 sure is." not in [c.text for c in result.claims]
    assert [d.reason for d in result.dropped if d.text == "The Pico 2 sure is."] == [
        "a subject and an auxiliary with no predicate, so not a claim; its sentence is judged "
        "with the question it answers"]
    judged = [c for c in result.claims if "waterproof" in c.text]
    assert judged and not judged[0].supported and result.score < 1


# --------------------------------------------------------------------------------------------
# 4. A name with a number in an inverted question.

@pytest.mark.parametrize(("text", "claim"), [
    ("Is the Pico 2 waterproof? Definitely.", "The Pico 2 is waterproof."),
    ("Can the Pico 2 be charged by USB? Yes.", "The Pico 2 can be charged by USB."),
    ("Is the price 49 dollars? Yes.", "The price is 49 dollars."),
])
def test_an_inverted_question_keeps_a_name_with_a_number_whole(text, claim):
    """Before: "The Pico is 2 waterproof."."""
    result = offline(text)
    assert [c.text for c in result.claims] == [claim]




# --------------------------------------------------------------------------------------------
# The other direction: a faithful answer written these ways passes.

WET = [{"id": "1", "text": "The Pico 2 weighs 800 grams. The Pico 2 is waterproof."}]


@pytest.mark.parametrize("answer", [
    f"{FACT} Waterproof? Yes.",
    f"{FACT} Is it waterproof? It sure is.",
    f"{FACT} You may wonder whether it is waterproof. It is.",
    "Is the Pico 2 waterproof? Definitely.",
    f"{FACT}\n\n```\nThe Pico 2 is waterproof.\n```",
])
def test_a_faithful_answer_written_these_ways_passes(answer):
    result = evaluate(answer, WET, builtin_judge("offline"))
    assert result.claims and all(c.supported for c in result.claims)
    assert result.score == 1.0


def test_an_llm_decomposers_faithful_reading_of_a_reply_passes(chat_server):
    answer = f"{FACT} Is it waterproof? It sure is."
    chat_server.handler = judge_model(
        claims_reply([FACT, "The Pico 2 is waterproof."],
                     dropped=[{"text": "Is it waterproof?", "reason": "question"},
                              {"text": "It sure is.", "reason": "reply"}]),
        supports_verbatim)
    result = evaluate(answer, WET, make_judge(chat_server))
    assert [c.text for c in result.claims] == [FACT, "The Pico 2 is waterproof."]
    assert result.score == 1.0
