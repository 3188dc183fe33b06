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
