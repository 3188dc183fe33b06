"""The offline judge binds a number to its unit: a number that appears in the passage counting
something else never supports a claim (silent passes of the kind "holds 2 litres" supported by
"1.7 litres ... a 2-year warranty")."""

from __future__ import annotations

import pytest

from pytest_faithfulness import evaluate, make_judge

PASSAGES = ["The Model K7 kettle holds 1.7 litres, draws 2200 W and has a 2-year warranty. "
            "Refunds take 3 business days. The Pico speaker weighs 300 g."]


@pytest.mark.parametrize("claim", [
    "The Model K7 kettle holds 2 litres.",   # 2 is the warranty's years
    "The Model K7 kettle draws 2 W.",        # 2 is years again, the power is 2200 W
    "Refunds take 3 hours.",                 # 3 counts business days
    "The Pico speaker weighs 300 kg.",       # same number, another unit
])
def test_a_number_that_counts_something_else_never_supports_a_claim(claim):
    result = evaluate(claim, PASSAGES, make_judge("offline"))
    assert result.score == 0.0, [(c.text, c.label) for c in result.claims]


@pytest.mark.parametrize(("claim", "says"), [
    ("The Model K7 kettle holds 2 litres.", "1.7 l"),
    ("The Model K7 kettle draws 2 W.", "2200 w"),
    ("Refunds take 5 days.", "3 day"),
])
def test_the_same_unit_with_another_number_is_a_contradiction(claim, says):
    (verdict,) = [c.verdict for c in evaluate(claim, PASSAGES, make_judge("offline")).claims]
    assert verdict.label == "contradicted" and says in verdict.rationale


@pytest.mark.parametrize("claim", [
    "The Model K7 kettle holds 1.7 litres.",
    "The Model K7 kettle has a 2-year warranty.",
    "Refunds take 3 days.",                  # "business" between number and unit
    "The Pico speaker weighs 300 g.",
])
def test_the_same_quantity_still_supports(claim):
    result = evaluate(claim, PASSAGES, make_judge("offline"))
    assert result.score == 1.0, [(c.text, c.label, c.verdict.rationale) for c in result.claims]


# --------------------------------------------------------------------------------------------
# Units that are not measures: am/pm, month names, the noun a number counts, "per" rates.

WRONG_UNIT = {
    # am/pm are the units of the time before them
    "pm-for-am": ("The office opens at 9 am and closes at 5 pm.", "The office opens at 9 pm."),
    "am-for-pm-dotted": ("Check-in starts at 3 p.m. and check-out is at 11 a.m.",
                         "Check-in starts at 3 a.m."),
    "am-for-pm-clock": ("The last train leaves at 11:30 pm.", "The last train leaves at 11:30 AM."),
    # a month before or after a day number is its unit ("may" is also a stop word)
    "month-before-day": ("The event takes place on March 3, 2024 in Berlin.",
                         "The event takes place on May 3, 2024."),
    "month-after-day": ("The store reopened on July 12, 2023.", "The store reopened on 12 June 2023."),
    "abbreviated-month": ("The deadline is November 30 for all entries.",
                          "The deadline is Sept. 30 for all entries."),
    # a number is stated with the noun that follows it; "per" binds the rate's unit
    "count-borrowed": ("The Pro plan costs $20 per month and includes 5 users.",
                       "The Pro plan costs $20 per year and includes 20 users."),
    "count-of-other-noun": ("The hotel has 12 rooms and 3 pools.", "The hotel has 3 rooms."),
    "count-of-other-role": ("The team has 8 engineers and 2 designers.",
                            "The team has 2 engineers."),
    "rate-per-other-period": ("The gym costs $30 per month.", "The gym costs $30 per week."),
}


@pytest.mark.parametrize(("passage", "claim"), list(WRONG_UNIT.values()), ids=list(WRONG_UNIT))
def test_a_number_with_another_time_month_noun_or_rate_does_not_support(passage, claim):
    result = evaluate(claim, [passage], make_judge("offline"))
    assert result.score == 0.0, [(c.text, c.label, c.verdict.rationale) for c in result.claims]


@pytest.mark.parametrize(("passage", "claim", "says"), [
    ("The office opens at 9 am and closes at 5 pm.", "The office opens at 9 pm.", "5 pm"),
    ("The Pro plan costs $20 per month and includes 5 users.",
     "The Pro plan includes 20 users.", "5 user"),
    ("The hotel has 12 rooms and 3 pools.", "The hotel has 3 rooms.", "12 room"),
])
def test_another_number_with_the_same_unit_or_noun_is_a_contradiction(passage, claim, says):
    (verdict,) = [c.verdict for c in evaluate(claim, [passage], make_judge("offline")).claims]
    assert verdict.label == "contradicted" and says in verdict.rationale, verdict.rationale


@pytest.mark.parametrize(("passage", "claim"), [
    ("The office opens at 9 am and closes at 5 pm.", "The office opens at 9 a.m."),
    ("The event takes place on May 3rd, 2024 in Berlin.", "The event takes place on 3 May 2024."),
    ("The Pro plan costs $20 per month and includes 5 users.", "The Pro plan includes 5 users."),
    ("The Pro plan costs $20 per month and includes 5 users.", "The Pro plan costs $20 a month."),
    ("Refunds take 3 business days.", "Refunds take 3 days."),
    ("The kettle has a 2-year warranty.", "The kettle has a warranty of 2 years."),
    ("The kettle has a warranty of 2 years.", "The kettle has a 2-year warranty."),
    ("The kettle has two heat settings.", "The kettle has 2 settings."),
    ("The Nimbus 4 air purifier covers rooms up to 40 m2.", "The Nimbus 4 covers rooms up to 40 m2."),
])
def test_the_same_time_date_count_or_rate_still_supports(passage, claim):
    result = evaluate(claim, [passage], make_judge("offline"))
    assert result.score == 1.0, [(c.text, c.label, c.verdict.rationale) for c in result.claims]


# --------------------------------------------------------------------------------------------
# Invisible format characters (Unicode category Cf) split no word.

@pytest.mark.parametrize(("passage", "claim"), [
    ("Items bought on sale can be exchanged but not refunded.",
     "Items bought on sale can be exchanged and re\u200bfunded."),       # zero-width space
    ("The warranty covers the battery. The screen is not covered.",
     "The warranty covers the battery and the scr\u00adeen."),           # soft hyphen
    ("The kettle is not dishwasher safe.", "The kettle is dish\u2060washer safe."),  # word joiner
    ("Sale items are not re\u00adfundable.", "Sale items are refundable."),  # in the passage
])
def test_a_format_character_inside_a_word_does_not_hide_a_contradiction(passage, claim):
    result = evaluate(claim, [passage], make_judge("offline"))
    assert result.score < 1.0 and "contradicted" in [c.label for c in result.claims], [
        (c.text, c.label, c.verdict.rationale) for c in result.claims]


def test_every_format_character_is_dropped():
    import sys
    import unicodedata

    from pytest_faithfulness.language.quantities import FORMAT_CHARS

    cf = [chr(i) for i in range(sys.maxunicode + 1) if unicodedata.category(chr(i)) == "Cf"]
    assert [hex(ord(c)) for c in cf if not FORMAT_CHARS.fullmatch(c)] == []
