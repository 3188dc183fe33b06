"""The offline decomposer's rule "only what is non-assertive as a whole is dropped", the
coverage property of its spans, and citation markers, through the public surface."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_faithfulness import evaluate, make_judge
from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer, non_assertive_reason
from pytest_faithfulness.language.markers import strip_citations

PICO = ["The Pico speaker comes with a 1-year limited warranty and weighs 300 g."]
KETTLE = ["The Model K7 kettle holds 1.7 litres and has a 2200 W heating element. "
          "The Model K7 comes with a 2-year warranty."]


@pytest.fixture(scope="module")
def judge():
    return make_judge("offline")


def decompose(answer: str):
    return RuleDecomposer().decompose(answer)


# --------------------------------------------------------------------------------------------
# The coverage property (see the docstring of judges/offline/decomposer/rules.py).

def assert_coverage(answer: str, result) -> None:
    spans = [(s, e, "claim") for spans in result.claim_spans for s, e in spans]
    spans += [(s, e, "dropped") for d in result.dropped for s, e in d.spans]
    assert len(result.claim_spans) == len(result.claims)
    owner = [None] * len(answer)
    for s, e, kind in spans:
        assert 0 <= s < e <= len(answer), (s, e)
        assert not answer[s].isspace() and not answer[e - 1].isspace(), answer[s:e]
        for i in range(s, e):
            assert owner[i] is None, f"{answer[i]!r} at {i} is in two spans"
            owner[i] = kind
    for i, ch in enumerate(answer):
        if not ch.isspace():
            assert owner[i] is not None, f"{ch!r} at {i} of {answer!r} is in no span"
    for d in result.dropped:
        assert d.reason and len(d.spans) == 1
        assert d.text == answer[d.spans[0][0]:d.spans[0][1]]


OPENERS = ["Of course ", "Absolutely, ", "Good question: ", "Sure! ", "Yes — ",
           "Thanks for asking. ",
           "According to the documents, ", "I'm afraid ", "Hi there! ", ""]
FACTS = ["the Pico speaker weighs 300 g.", "The Pico has a 3-year warranty and ships in a box.",
         "It runs for 12 hours [1].", "Its price is [USD 99].", "The kit includes salt and pepper",
         "Exports run hourly and are retained for 30 days [1, 2].", "モデルK7の容量は1.7リットルです。",
         "The lamp has 3 levels; it dims to 10 %.", "In profile B, the pump runs at 40 percent."]
NON_ASSERTIVE = ["Let me know if that helps!", "Is it waterproof?", "Did you know the X weighs 3 kg?",
                 "I couldn't find the price, but the X weighs 3 kg.", "You asked about the warranty.",
                 "Isn't the X waterproof to 10 m?", "The X weighs 3 kg, doesn't it?",
                 "I'm sorry, I couldn't find any warranty information.", "Hope this helps"]
MARKUP = ["## Warranty\n", "## The Pico has a 3-year warranty\n", "- ", "* ", "1. ", "**Specs**\n",
          "Specs:\n", "| Plan | Export |\n|---|---|\n| Business | yes |\n", "```bash\npico --reset\n```\n",
          "```\nWarranty: 3 years\nWeight: 300 g\n```\n", "> ", "---\n", "[1] ", "【2】", "\n\n", "\n",
          "`code` ", "**bold** ", "_x_ "]

piece = st.one_of(
    st.builds(lambda o, f: o + f, st.sampled_from(OPENERS), st.sampled_from(FACTS)),
    st.sampled_from(NON_ASSERTIVE), st.sampled_from(MARKUP), st.text(max_size=20),
)
answers = st.lists(piece, max_size=8).map(lambda parts: "".join(
    p + ("" if p.endswith(("\n", " ")) else " ") for p in parts))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers)
def test_every_character_ends_up_in_exactly_one_place(answer):
    assert_coverage(answer, decompose(answer))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_coverage_holds_for_arbitrary_text(answer):
    assert_coverage(answer, decompose(answer))


# --------------------------------------------------------------------------------------------
# Item 1: openers are stripped, the rest is kept; a unit is dropped only when non-assertive
# as a whole. Each answer below states something the passage contradicts or lacks, so each
# must end below 1 with a claim that is not supported -- never a pass.

WRONG_BEHIND_AN_OPENER = [
    # the examples from the report
    (PICO, "The Pico speaker weighs 300 g. Of course the Pico speaker comes with a 3-year warranty."),
    (PICO, "Thanks to its 3-year warranty, the Pico speaker is a safe buy."),
    (PICO, "Absolutely, the Pico speaker comes with a 3-year warranty."),
    (PICO, "Good question: the Pico speaker comes with a 3-year warranty."),
    (PICO, "Did you know the Pico speaker weighs 3 kg?"),
    (PICO, "I couldn't find the Pico speaker's price, but the Pico speaker comes with a 3-year "
           "warranty."),
    (PICO, "## The Pico speaker comes with a 3-year warranty\n\nThe Pico speaker weighs 300 g."),
    (PICO, "Pico speaker facts:\n\n```\nWarranty: 3 years\nWeight: 300 g\n```"),
    # two more of each kind
    (KETTLE, "Certainly! Of course the Model K7 kettle holds 3 litres."),
    (KETTLE, "Great question — the Model K7 comes with a 5-year warranty."),
    (KETTLE, "Thanks to its 3000 W heating element, the Model K7 kettle is fast."),
    (KETTLE, "Happy to help, the Model K7 kettle holds 3 litres."),
    (KETTLE, "Isn't the Model K7 kettle rated at 3000 W?"),
    (KETTLE, "Have you heard that the Model K7 kettle holds 3 litres?"),
    (KETTLE, "The Model K7 kettle holds 3 litres, doesn't it?"),
    (KETTLE, "I don't have the K7's price; the Model K7 comes with a 5-year warranty."),
    (KETTLE, "Unfortunately, I couldn't find the colour options - the Model K7 kettle holds 3 litres."),
    (KETTLE, "# Model K7\n\n## The Model K7 kettle holds 3 litres"),
    (KETTLE, "### Model K7 warranty: 5 years"),
    (KETTLE, "```text\nThe Model K7 kettle holds 3 litres.\n```"),
    (KETTLE, "~~~\nCapacity: 2 litres\n~~~"),
]


@pytest.mark.parametrize("passages, answer", WRONG_BEHIND_AN_OPENER)
def test_a_wrong_assertion_behind_an_opener_fails(judge, passages, answer):
    result = evaluate(answer, passages, judge)
    assert result.status == "scored", (result.status, result.dropped)
    assert result.score < 1
    assert any(not c.supported for c in result.claims)
    assert_coverage(answer, decompose(answer))


@pytest.mark.parametrize("answer, claims, reasons", [
    ("Of course the Pico weighs 300 g.", ["The Pico weighs 300 g."], ["opener"]),
    ("Absolutely.", [], ["greeting or pleasantry"]),
    ("Good question: is the Pico waterproof?", [], ["question"]),
    ("Did you know the Pico weighs 3 kg?", ["The Pico weighs 3 kg."], []),
    ("Isn't the Pico waterproof to 10 m?", ["The Pico is waterproof to 10 m."], []),
    ("Doesn't the Pico support Bluetooth 5?", ["The Pico does support Bluetooth 5."], []),
    ("Aren't you glad you asked?", [], ["question"]),
    ("Do you know whether the Pico is waterproof?", [], ["question"]),
    ("I couldn't find the price, but the Pico weighs 300 g.", ["The Pico weighs 300 g."],
     ["refusal"]),
    ("The Pico weighs 300 g - let me know if you need more.", ["The Pico weighs 300 g."],
     ["offer of help"]),
    ("If you have any other questions, contact support at 555-0100.",
     ["Contact support at 555-0100."], ["opener"]),
    ("We are happy to help with returns within 30 days.",
     ["We are happy to help with returns within 30 days."], []),
    ("We don't have a store in Paris.", ["We don't have a store in Paris."], []),
    ("I'm afraid the Pico is not waterproof.", ["The Pico is not waterproof."], ["opener"]),
    ("I'm sorry for the confusion.", [], ["greeting or pleasantry"]),
    ("The documents don't mention the Pico's price.", [], ["refusal"]),
    ("## Warranty\n\n- 3 years", ["Warranty: 3 years."],
     ["heading (its topic is carried into the list items below it)"]),
    ("```bash\npico --reset\n```", [], ["code block"]),
    ("```\nThe Pico weighs 300 g.\n```", ["The Pico weighs 300 g."], []),
    ("---", [], ["no words"]),
])
def test_decomposer_rules(answer, claims, reasons):
    result = decompose(answer)
    assert result.claims == claims
    assert [d.reason for d in result.dropped] == reasons
    assert_coverage(answer, result)


@pytest.mark.parametrize("text, reason", [
    ("Of course the Pico weighs 300 g.", None),
    ("Thanks to its 3-year warranty, the Pico is a safe buy.", None),
    ("Absolutely, the Pico weighs 300 g.", None),
    ("Good question: the Pico weighs 300 g.", None),
    ("Did you know the Pico weighs 3 kg?", None),
    ("Isn't the Pico waterproof to 10 m?", None),
    ("I couldn't find X, but the Pico weighs 300 g.", None),
    ("Thanks for asking!", "greeting or pleasantry"),
    ("Is the Pico waterproof?", "question"),
    ("I couldn't find any warranty information.", "refusal"),
    ("Let me know if that helps!", "offer of help"),
    ("You asked about the warranty.", "restates the question"),
    ("Here is what I found:", "lead-in"),
    ("Hi! Let me know if you need more.", "greeting or pleasantry"),
])
def test_non_assertive_reason_matches_the_rule(text, reason):
    assert non_assertive_reason(text) == reason


# --------------------------------------------------------------------------------------------
# Item 4: a bracket is a citation marker only by content and position.

WRONG_IN_BRACKETS = [
    (PICO, "The Pico speaker comes with a [3-year] warranty."),
    (PICO, "The Pico speaker costs [USD 99]."),
    (PICO, "The Pico speaker's warranty lasts [3] years."),
    (KETTLE, "The Model K7 kettle holds [3 litres]."),
    (KETTLE, "The Model K7 comes with a [5] year warranty [1]."),
    (KETTLE, "The Model K7 kettle has a [3000 W] heating element [p1]."),
]


@pytest.mark.parametrize("passages, answer", WRONG_IN_BRACKETS)
def test_bracketed_content_is_kept_and_judged(judge, passages, answer):
    result = evaluate(answer, passages, judge)
    assert result.score < 1
    assert any(not c.supported for c in result.claims)
    assert_coverage(answer, decompose(answer))


@pytest.mark.parametrize("text, ids, expected", [
    ("comes with a [3-year] warranty.", (), "comes with a [3-year] warranty."),
    ("costs [USD 99].", (), "costs [USD 99]."),
    ("lasts [3] years.", (), "lasts [3] years."),
    ("lasts [3] years.", ("3",), "lasts [3] years."),
    ("supports 1080p input [1].", (), "supports 1080p input."),
    ("weighs 300 g [1, 2] and costs $99 [3-4].", (), "weighs 300 g and costs $99."),
    ("weighs 300 g[^1].", (), "weighs 300 g."),
    ("weighs 300 g. [2] It floats.", (), "weighs 300 g. It floats."),
    ("容量は1.7リットルです【1】。", (), "容量は1.7リットルです。"),
    ("runs hourly [p-2071, p-2072].", ("p-2071", "p-2072"), "runs hourly."),
    # an id shaped like the passages' ids is a citation even when it names no passage (the
    # pipeline counts it as a citation that cannot be correct, see tests/test_citations.py)
    ("runs hourly [p-2071, p-9].", ("p-2071", "p-2072"), "runs hourly."),
    ("runs hourly [p-2071, kb-9].", ("p-2071", "p-2072"), "runs hourly [p-2071, kb-9]."),
    ("is free (Source 2).", (), "is free."),
    ("is free (sources: p-1, p-3).", ("p-1", "p-2"), "is free."),
    ("is free (source of truth).", (), "is free (source of truth)."),
    ("runs hourly [doc3].", (), "runs hourly [doc3]."),
])
def test_strip_citations(text, ids, expected):
    assert strip_citations(text, ids) == expected


def test_decomposer_keeps_id_brackets_for_the_pipeline(judge):
    answer = "The Model K7 kettle holds 1.7 litres [p1]. [p1]"
    assert "[p1]" in decompose(answer).claims[0]
    result = evaluate(answer, KETTLE, judge)
    assert [c.text for c in result.claims] == ["The Model K7 kettle holds 1.7 litres."]
    assert result.score == 1


def test_assert_faithful_fails_every_item_example(pytester):
    """A real pytest run: each answer with a wrong fact behind an opener, a question, a
    heading, a fence or a bracket fails its test at the default min_score of 1."""
    cases = WRONG_BEHIND_AN_OPENER + WRONG_IN_BRACKETS
    pytester.makepyfile(f'''
        import pytest
        CASES = {cases!r}

        @pytest.mark.parametrize("passages, answer", CASES)
        def test_it(assert_faithful, passages, answer):
            assert_faithful(answer, passages)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-min-score", "1")
    result.assert_outcomes(failed=len(cases))


# --------------------------------------------------------------------------------------------
# A bracket right after a currency or math symbol, '#', or a range dash is the value itself.

SHIPPING = ["Shipping is free on orders over $50."]


@pytest.mark.parametrize("answer, kept", [
    ("Shipping is free on orders over $[500].", "$[500]"),
    ("Shipping is free on orders over $【500】.", "$【500】"),
    ("Shipping is free on orders over $[^500].", "$[^500]"),
    ("Shipping is free on orders over € [500].", "€ [500]"),
    ("Shipping is free on orders of 10-[500] items.", "10-[500]"),
])
def test_a_bracket_bound_to_a_symbol_is_text_not_a_citation(judge, answer, kept):
    assert kept in strip_citations(answer)
    result = evaluate(answer, SHIPPING, judge)
    assert result.score < 1
    assert any("500" in c.text for c in result.claims)
    assert_coverage(answer, decompose(answer))


@pytest.mark.parametrize("text, expected", [
    ("costs $99 [1].", "costs $99."),
    ("is 10% [2].", "is 10%."),
    ("weighs 300 g[^1].", "weighs 300 g."),
])
def test_a_citation_after_a_value_is_still_removed(text, expected):
    assert strip_citations(text) == expected
