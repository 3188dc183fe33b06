"""Verdicts that must not pass: a judge's quote that does not evidence the claim (check_verdict)
and the offline verifier's wrong ``supported`` verdicts. Every case runs through
``pytest_faithfulness.evaluate``; the first example of each kind is the reported one, the
others are invented examples of the same kind."""

from __future__ import annotations

import pytest
from judges import QuotingJudge

from pytest_faithfulness import OfflineJudge, Verdict, evaluate


def judged(claim, passages, quote, label="supported"):
    result = evaluate(claim, passages, QuotingJudge({claim: Verdict(label, passage_ids=["p1"], quote=quote)}))
    (claim_result,) = result.claims
    return result, claim_result


# --------------------------------------------------------------------------------------------
# A. A quote that is the whole passage or title still has to be about the claim.

REFUNDS = [{"id": "p1", "title": "Refund policy",
            "text": "Sale items are refundable for 90 days. Refunds go to the original card. "
                    "Contact support to start a refund."}]

NOT_EVIDENCE = {
    "whole-title-other-topic": ("The moon is made of cheese.", "Refund policy"),
    "whole-passage-misses-a-name": (
        "Our CEO is Elon Musk and sale items are refundable for 90 days.", REFUNDS[0]["text"]),
    "whole-title-thin": ("Refunds take 90 days.", "Refund policy"),
    "quote-lacks-the-number": ("Refunds go to the original card within 5 days.",
                               "Refunds go to the original card"),
    "quote-other-number": ("Sale items are refundable for 30 days.",
                           "Sale items are refundable for 90 days"),
    "quote-is-negated": ("The screen is covered.", "The screen is not covered."),
    "claim-is-negated": ("Sale items are not refundable.", "Sale items are refundable"),
    "covers-too-little": ("Refunds go to the card, a gift voucher, a bank account or store credit.",
                          "Refunds go to the original card"),
}
SCREEN = [{"id": "p1", "text": "The warranty covers the battery. The screen is not covered."}]


@pytest.mark.parametrize(("claim", "quote"), list(NOT_EVIDENCE.values()), ids=list(NOT_EVIDENCE))
def test_a_quote_that_does_not_evidence_the_claim_is_not_accepted(claim, quote):
    passages = SCREEN if "screen" in claim else REFUNDS
    result, claim_result = judged(claim, passages, quote)

    assert claim_result.label == "unsupported"
    assert claim_result.judge_verdict.label == "supported"
    assert "quote" in claim_result.note
    assert result.score == 0.0


def test_a_whole_title_off_the_claim_does_not_carry_a_contradiction():
    _, claim_result = judged("The moon is made of cheese.", REFUNDS, "Refund policy",
                             label="contradicted")
    assert claim_result.label == "unsupported" and "shares no content word" in claim_result.note


EVIDENCE = {
    "whole-passage": ("Sale items are refundable for 90 days.",
                      [{"id": "p1", "text": "Sale items are refundable for 90 days."}],
                      "Sale items are refundable for 90 days."),
    "numbers-only-claim": ("It costs $5.", [{"id": "p1", "text": "The plan is $5 per month."}],
                           "$5 per month"),
    "cjk": ("这款台灯有三档亮度。", [{"id": "p1", "text": "这款台灯有三档亮度，并配有充电口。"}],
            "台灯有三档亮度"),
    "negated-both": ("The screen is not covered.", SCREEN, "The screen is not covered."),
    "other-clause-negated": ("Sale items can be exchanged.",
                             [{"id": "p1", "text": "Sale items can be exchanged but not refunded."}],
                             "Sale items can be exchanged but not refunded."),
}


@pytest.mark.parametrize(("claim", "passages", "quote"), list(EVIDENCE.values()),
                         ids=list(EVIDENCE))
def test_a_quote_that_evidences_the_claim_is_accepted(claim, passages, quote):
    result, claim_result = judged(claim, passages, quote)
    assert claim_result.label == "supported", claim_result.note
    assert result.score == 1.0


# --------------------------------------------------------------------------------------------
# B. A quote occurs at word boundaries.

INSIDE_WORDS = {
    "number-prefix": ("Refunds are issued within 1 day.", "Refunds are issued within 1"),
    "word-prefix": ("Refunds go to the card.", "Refunds go to the car"),
    "decimal-prefix": ("The lamp weighs 1 kg.", "The lamp weighs 1"),
}
BOUNDARY_PASSAGES = [{"id": "p1", "text": "Refunds are issued within 14 days. Refunds go to the "
                                          "card holder. The lamp weighs 1.5 kg."}]


@pytest.mark.parametrize(("claim", "quote"), list(INSIDE_WORDS.values()), ids=list(INSIDE_WORDS))
def test_a_quote_inside_a_word_does_not_occur(claim, quote):
    _, claim_result = judged(claim, BOUNDARY_PASSAGES, quote)
    assert claim_result.label == "unsupported"
    assert "does not occur" in claim_result.note


# --------------------------------------------------------------------------------------------
# C. The offline judge does not support contradicted or changed claims.

WRONG = {
    # a claim word negated in the passage's clause
    "negated-object": ("The warranty covers the battery for two years. The screen is not "
                       "covered.", "The warranty covers the screen for two years."),
    "negated-claim": ("The warranty covers the battery for two years. The screen is not "
                      "covered.", "The warranty does not cover the battery."),
    "added-negated-item": ("The warranty covers the battery for two years. The screen is not "
                           "covered.", "The warranty covers the battery and the screen."),
    "swapped-negation": ("Items bought on sale can be exchanged but not refunded.",
                         "Sale items can be refunded but not exchanged."),
    "swapped-negation-2": ("Pets are allowed on the terrace but not inside.",
                           "Pets are allowed inside but not on the terrace."),
    # a changed verb, bound or frequency
    "changed-verb": ("Refunds are issued within 14 days.", "Refunds are denied within 14 days."),
    "changed-bound": ("Refunds are issued within 14 days.",
                      "Refunds are issued after more than 14 days."),
    "changed-bound-2": ("The battery lasts up to 10 hours.",
                        "The battery lasts at least 10 hours."),
    "hedged": ("Refunds are issued within 14 days.", "Refunds are rarely issued."),
    # a changed unit or magnitude
    "weeks-for-days": ("Refunds are issued within 14 days.", "Refunds are issued within 14 weeks."),
    "months-for-years": ("The warranty lasts for two years.", "The warranty lasts for two months."),
    "billion-for-million": ("Acme raised $50 million in 2021.", "Acme raised $50 billion."),
    "k-for-million": ("Acme raised $50 million in 2021.", "Acme raised $50k."),
    "euro-for-dollar": ("The Pro plan costs $20 per month.", "The Pro plan costs \u20ac20 per month."),
    # a number said of another name
    "price-of-other-plan": ("Pro costs $20, Basic $5.", "The Basic plan costs $20."),
    "speed-of-other-model": ("The Falcon reaches 30 km/h, the Osprey 45 km/h.",
                             "The Osprey reaches 30 km/h."),
    # an added qualifier
    "added-courier": ("Refunds are issued within 14 days.",
                      "Refunds are issued within 14 days by express courier."),
    "lifetime-warranty": ("The kettle comes with a 1-year limited warranty.",
                          "The kettle comes with a lifetime warranty."),
    # an adjective added right after a number: the number is stated with the word after it
    "added-colour": ("The lamp has three brightness levels.",
                     "The lamp has three red brightness levels."),
    "added-adjective-elsewhere": pytest.param(
        "The Model K7 kettle has a brushed steel body.",
        "The Model K7 kettle has a brushed red steel body.",
        marks=pytest.mark.xfail(strict=True, reason="known limit: a claim of 5 or more content "
                                "words may add one word that is neither a name nor a number "
                                "(verification.MISSING_WORD_PER)")),
}


@pytest.mark.parametrize(("passage", "claim"), list(WRONG.values()), ids=list(WRONG))
def test_the_offline_judge_does_not_support_a_changed_claim(passage, claim):
    result = evaluate(claim, [passage], OfflineJudge())
    assert [c.label for c in result.claims] != ["supported"] * len(result.claims), [
        (c.text, c.label, c.verdict.rationale) for c in result.claims]
    assert result.score < 1.0


NEGATION_CONTRADICTS = {
    "negated-object": ("The warranty covers the battery. The screen is not covered.",
                       "The warranty covers the screen."),
    "swapped-negation": ("Items bought on sale can be exchanged but not refunded.",
                         "Sale items can be refunded but not exchanged."),
    "negated-claim": ("The kettle is dishwasher safe.", "The kettle is not dishwasher safe."),
}


@pytest.mark.parametrize(("passage", "claim"), list(NEGATION_CONTRADICTS.values()),
                         ids=list(NEGATION_CONTRADICTS))
def test_a_negation_flipped_in_one_clause_is_a_contradiction(passage, claim):
    result = evaluate(claim, [passage], OfflineJudge())
    assert [c.label for c in result.claims] == ["contradicted"]


STILL_SUPPORTED = {
    "other-clause-negated": ("Items bought on sale can be exchanged but not refunded.",
                             "Items bought on sale can be exchanged."),
    "same-magnitude": ("Acme raised $50 million in 2021.", "Acme raised $50 million."),
    "own-price": ("Pro costs $20, Basic $5.", "Pro costs $20."),
    "same-bound": ("Refunds are issued within 14 days.", "Refunds are issued within 14 days."),
    "number-word": ("The warranty covers the battery for two years.",
                    "The warranty covers the battery for 2 years."),
}


@pytest.mark.parametrize(("passage", "claim"), list(STILL_SUPPORTED.values()),
                         ids=list(STILL_SUPPORTED))
def test_the_offline_judge_still_supports_what_the_passage_says(passage, claim):
    result = evaluate(claim, [passage], OfflineJudge())
    assert [c.label for c in result.claims] == ["supported"], [
        c.verdict.rationale for c in result.claims]


# --------------------------------------------------------------------------------------------
# D. Every part of a claim is spoken to by the evidence, and a quote does not stop before a
#    negation (the whole-claim 75% word rule is gone, issue 20: a rider or an unrelated quote is
#    what it was there to refuse).

SALE = [{"id": "p1", "text": "Regular items can be refunded within 30 days. Items bought on sale "
                             "can be exchanged but not refunded."}]
PETS = [{"id": "p1", "text": "Pets are allowed on the terrace but not inside."}]
COVER = [{"id": "p1", "text": "The warranty covers the battery but not the screen."}]

PARTIAL_QUOTES = {
    "rider": (SALE, "Regular items can be refunded within 30 days, and shipping is free "
                    "worldwide.", "Regular items can be refunded within 30 days.",
              "does not speak to a part"),
    "unrelated-quote": (SALE, "Gift vouchers never lapse once purchased.",
                        "Regular items can be refunded within 30 days.", "shares no content word"),
    "cut-before-negation": (SALE, "Items bought on sale can be refunded.",
                            "Items bought on sale can be", "negates refund"),
    "cut-before-negation-2": (PETS, "Pets are allowed inside.", "Pets are allowed",
                              "negates insid"),
    "cut-before-negation-3": (COVER, "The warranty covers the screen.", "The warranty covers the",
                              "negates screen"),
}


@pytest.mark.parametrize(("passages", "claim", "quote", "why"), list(PARTIAL_QUOTES.values()),
                         ids=list(PARTIAL_QUOTES))
def test_a_quote_of_part_of_the_claim_does_not_carry_support(passages, claim, quote, why):
    result, claim_result = judged(claim, passages, quote)
    assert claim_result.label == "unsupported" and why in claim_result.note, claim_result.note
    assert result.score == 0.0


@pytest.mark.parametrize(("passages", "claim", "quote"), [
    (SALE, "Items bought on sale can be exchanged.", "Items bought on sale can be exchanged"),
    (PETS, "Pets are allowed on the terrace.", "Pets are allowed on the terrace"),
    (COVER, "The warranty covers the battery.", "The warranty covers the battery"),
])
def test_a_quote_whose_sentence_negates_another_word_still_carries_support(passages, claim, quote):
    _, claim_result = judged(claim, passages, quote)
    assert claim_result.label == "supported", claim_result.note
