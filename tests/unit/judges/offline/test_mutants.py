"""The lying-judge mutant generator (``pytest_faithfulness.mutants``): each kind on a hand
example, kinds that do not apply reported as not built, and the same input giving the same
mutants whatever the call order."""

import pytest

from pytest_faithfulness.mutants import KINDS, Mutant, mutate, names_in, numbers_in
from pytest_faithfulness.records import Passage


def one(kind, claim, passages=(), **kw):
    (m,) = mutate(claim, passages, kinds=[kind], **kw)
    assert isinstance(m, Mutant) and m.kind == kind
    return m


def test_number_changed_to_one_the_passages_do_not_state():
    m = one("number", "Refunds take 14 days.", ["Refunds take 14 days. Call us on 28 or 17 or 15."])
    assert m.built and m.claim != "Refunds take 14 days."
    new = numbers_in(m.claim)
    assert len(new) == 1 and new[0] not in ("14", "28", "17", "15")
    assert m.detail.startswith("14 -> ")


def test_number_word_changed():
    m = one("number", "The lamp has three brightness levels.", ["The lamp has three brightness levels."])
    assert m.built and "three" not in m.claim and m.claim.endswith("brightness levels.")


def test_unit_changed_within_its_dimension():
    m = one("unit", "Refunds take 14 days.", ["Refunds take 14 days."])
    assert m.built and m.claim in {f"Refunds take 14 {u}." for u in
                                   ("seconds", "minutes", "hours", "weeks", "months", "years")}
    m = one("unit", "The plan costs $20 per month.")
    assert m.built and "$" not in m.claim and "20 per month" in m.claim


def test_negation_added_after_the_auxiliary_or_removed():
    assert one("negation", "Deposits are refundable.").claim == "Deposits are not refundable."
    assert one("negation", "Items bought on sale can't be refunded.").claim == \
        "Items bought on sale can be refunded."
    assert one("negation", "Sale items are not refunded.").claim == "Sale items are refunded."
    m = one("negation", "Refunds take 14 days.")  # no auxiliary: the sentence is negated
    assert m.built and "not" in m.claim and "14 days" in m.claim


def test_negation_inside_a_word_both_ways():
    assert one("negation_in_word", "Deposits are refundable.").claim == "Deposits are non-refundable."
    assert one("negation_in_word", "Deposits are non-refundable.").claim == "Deposits are refundable."
    assert one("negation_in_word", "Contractors are eligible for the bonus.").claim == \
        "Contractors are ineligible for the bonus."
    assert not one("negation_in_word", "Refunds take 14 days.").built


def test_antonym_from_the_curated_list():
    assert one("antonym", "Two-factor authentication is enabled by default.").claim == \
        "Two-factor authentication is disabled by default."
    assert one("antonym", "Applications are rejected by the committee.").claim == \
        "Applications are accepted by the committee."
    m = one("antonym", "Refunds take 14 days.")
    assert not m.built and m.claim is None and "antonym" in m.detail


def test_foreign_name_comes_from_another_record_and_not_from_these_passages():
    m = one("foreign_name", "The Vela lamp was designed by Ada Byrne.",
            ["The Vela lamp was designed by Ada Byrne."], other_names=["Ada Byrne", "Tomas Lind"])
    assert m.built and "Tomas Lind" in m.claim and m.claim.count("Ada Byrne") + m.claim.count("Vela") == 1
    assert not one("foreign_name", "refunds take 14 days.", other_names=["Tomas Lind"]).built


def test_swap_takes_a_number_or_name_of_the_same_passages():
    passage = "The starter kit costs $30. The add-on pack costs $20."
    m = one("swap", "The starter kit costs $30.", [passage])
    assert m.built and m.claim == "The starter kit costs $20." and "(number)" in m.detail
    m = one("swap", "The lamp was designed by Ada Byrne.",
            ["The lamp was designed by Ada Byrne. Tomas Lind sells it."])
    assert m.built and m.claim == "The lamp was designed by Tomas Lind."
    assert not one("swap", "The lamp was designed by Ada Byrne.", ["The lamp was designed by Ada Byrne."]).built


def test_quantifier_changed():
    assert one("quantifier", "The Team plan supports at least 10 users.").claim == \
        "The Team plan supports up to 10 users."
    assert one("quantifier", "Deposits are refundable for all customers.").claim == \
        "Deposits are refundable for some customers."
    assert not one("quantifier", "Refunds take 14 days.").built


def test_appended_clause_is_not_in_the_passages():
    m = one("appended_clause", "Refunds take 14 days.", ["Refunds take 14 days."])
    assert m.built and m.claim.startswith("Refunds take 14 days, ") and m.claim.endswith(".")
    assert len(m.claim) > len("Refunds take 14 days, x.")


def test_every_kind_once_in_order_and_passage_shapes():
    passages = [Passage(id="p1", text="Deposits are refundable within 30 days.", title="Vela FAQ"),
                {"id": "p2", "text": "All customers qualify."}, "Made by Lumio."]
    got = mutate("Deposits are refundable within 30 days.", passages)
    assert [m.kind for m in got] == list(KINDS)
    for m in got:
        assert (m.claim is not None) == m.built and m.detail


def test_same_input_same_output_whatever_the_order():
    claims = ["Refunds take 14 days.", "The Vela lamp costs $40 and has at least three levels.",
              "Barack Obama's father was from Kenya in 1961."]
    passages = ["Refunds take 14 days. The Vela lamp costs $40. Ann Dunham met him in 1961."]
    first = [mutate(c, passages, other_names=["Tomas Lind"]) for c in claims]
    second = [mutate(c, passages, other_names=["Tomas Lind"]) for c in reversed(claims)][::-1]
    assert first == second


def test_names_in():
    assert names_in("Refunds take 14 days.") == []
    assert names_in("The Vela lamp stores logs in an S3 bucket.") == ["Vela", "S3"]
    assert names_in("Barack Obama's father met Ann Dunham.") == ["Barack Obama", "Ann Dunham"]


def test_bad_input_named():
    with pytest.raises(TypeError, match="claim must be a string"):
        mutate(None)
    with pytest.raises(ValueError, match="claim is empty"):
        mutate("  ")
    with pytest.raises(ValueError, match="unknown mutant kind"):
        mutate("Refunds take 14 days.", kinds=["typo"])
    with pytest.raises(TypeError, match="passage must be"):
        mutate("Refunds take 14 days.", [42])


def test_prepositions_are_quantifiers_only_before_a_number():
    assert not one("quantifier", "The blogger writes about her life.").built
    assert one("quantifier", "The trip takes about 3 hours.").claim == "The trip takes exactly 3 hours."


def test_a_word_the_text_also_writes_in_lower_case_is_not_a_name():
    assert names_in("Month after month the Month Club grew.") == ["Month Club"]
    assert names_in("I'm sure Luke will come.") == ["Luke"]


def test_sentence_negation_keeps_a_capitalised_first_word():
    assert one("negation", "Swedish firms sell meatballs.").claim == \
        "It is not true that Swedish firms sell meatballs."
    assert one("negation", "The firm sells meatballs.").claim == \
        "It is not true that the firm sells meatballs."


def test_a_capitalised_quantifier_inside_a_title_is_left_alone():
    assert not one("quantifier", "Fans will 'Stand Up To Ashley' on Saturday.").built
    assert one("quantifier", "All staff attended.").claim == "Some staff attended."
