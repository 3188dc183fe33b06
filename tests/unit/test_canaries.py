"""Judge canaries (issue 23, the builder): controls and mutants from a run's own passages,
keyed by content, and what the offline judge makes of them on the example suite's passages."""

from __future__ import annotations

import json
import random

import pytest
from repo_paths import ROOT

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.canaries import (
    CONTROL_KINDS,
    MIN_WORDS,
    MUTANT_KINDS,
    build_canaries,
    reordered,
    synonym,
    usable_sentence,
)

REFUNDS = [{"id": "p1", "text": "Refunds are issued within 14 days of a return being received. "
                                "Items bought on sale can be exchanged but not refunded."},
           {"id": "p2", "text": "Standard shipping takes 3 to 5 business days within Canada."}]
PLANS = [{"id": "k1", "text": "The Business plan includes SSO, audit logs and email support. "
                              "Pricing?"}]
SHIPPING = [{"id": "s1", "text": "If the parcel is lost, the courier refunds the full price. "
                                 "Customers purchased 300 parcels from the depot in 2023. "
                                 "The depot is open on weekdays if the weather allows it."}]


def _examples() -> list[list[dict]]:
    lines = (ROOT / "conftest_examples" / "records.jsonl").read_text(encoding="utf-8")
    return [json.loads(line)["passages"] for line in lines.splitlines() if line.strip()]


def test_the_same_passages_give_the_same_canaries_in_any_order():
    sets = _examples()
    built = build_canaries(sets, 20)
    shuffled = sets[:] + sets[:3]  # repeated sets count once
    random.Random(7).shuffle(shuffled)
    assert build_canaries(shuffled, 20).canaries == built.canaries
    assert len(built.controls) == 10 and len(built.mutants) == 10 and built.note == ""


def test_controls_are_passage_sentences_or_rewordings_and_mutants_change_them():
    built = build_canaries([REFUNDS, PLANS, SHIPPING], 10)
    texts = {p["id"]: p["text"] for p in REFUNDS + PLANS + SHIPPING}
    for canary in built.controls:
        assert canary.kind in CONTROL_KINDS and canary.expected == "supported"
        assert canary.sentence in texts[canary.passage_id]
        assert (canary.claim == canary.sentence) == (canary.kind == "verbatim")
    assert {c.kind for c in built.controls} == set(CONTROL_KINDS)  # rewordings are made
    for canary in built.mutants:
        assert canary.kind in MUTANT_KINDS and canary.expected == "not supported"
        assert canary.sentence in texts[canary.passage_id] and canary.detail
        if canary.kind == "moved_evidence":  # the sentence itself, against another set
            assert canary.claim == canary.sentence
            assert canary.passage_id not in {p.id for p in canary.passages}
        else:
            assert canary.claim != canary.sentence
    assert {c.passage_id for c in built.canaries} <= set(texts)


@pytest.mark.parametrize("sentence, expected", [
    ("If the parcel is lost, the courier refunds the full price.",
     "The courier refunds the full price, if the parcel is lost."),
    ("The courier refunds the full price if the parcel is lost.",
     "If the parcel is lost, the courier refunds the full price."),
    ("Acme refunds the full price if the parcel is lost.", None),  # "Acme" may be a name
    ("Refunds take 14 days, and exchanges take 7 days.", None),
])
def test_reordered_moves_a_clause_and_keeps_names(sentence, expected):
    assert reordered(sentence) == expected


def test_synonym_replaces_a_listed_word_but_never_a_name():
    assert synonym("Items purchased on sale can be exchanged.") == \
        "Items bought on sale can be exchanged."
    assert synonym("Customers may return items.") == "Clients may return items."
    assert synonym("The film Batman Begins opened in 2005.") is None  # a title, not a verb


def test_moved_evidence_needs_a_set_that_does_not_hold_the_sentence():
    one = build_canaries([REFUNDS], 40)
    assert all(c.kind != "moved_evidence" for c in one.mutants)  # one set: nowhere to move
    many = build_canaries(_examples(), 40)
    moved = [c for c in many.mutants if c.kind == "moved_evidence"]
    assert moved
    for c in moved:
        assert c.sentence not in " ".join(p.text for p in c.passages)


def test_every_mutant_kind_the_examples_allow_is_built():
    built = build_canaries(_examples(), 200)
    assert {c.kind for c in built.mutants} >= {
        "number", "negation", "negation_in_word", "antonym", "foreign_name",
        "appended_clause", "moved_evidence"}


def test_many_passage_sets_build_in_linear_time_of_names():
    """Names of other sets are counted once (not re-unioned per sentence): 3,000 sets with
    distinct names build 40 canaries; a quadratic union would take minutes here."""
    sets = [[{"id": f"s{i}", "text": f"Zorbel{i} Quantrix opened a depot in Vellmar{i} in "
                                     f"{1900 + i % 100}. The depot employs {i % 50 + 3} people."}]
            for i in range(3000)]
    built = build_canaries(sets, 40)
    assert len(built.canaries) == 40


def test_too_few_sentences_is_said_not_raised():
    built = build_canaries([PLANS], 10)
    assert len(built.controls) == 1 and built.asked == 10
    assert "1 usable passage sentence(s)" in built.note and "1 of 5 control(s)" in built.note
    assert build_canaries([], 4).canaries == () and build_canaries([], 4).note


def test_zero_builds_none_and_a_bad_count_is_named():
    assert build_canaries([REFUNDS], 0).canaries == ()
    for bad in (-1, 2.5, True, "4"):
        with pytest.raises(ValueError, match="number of canaries"):
            build_canaries([REFUNDS], bad)


@pytest.mark.parametrize("sentence, usable", [
    ("Refunds are issued within 14 days.", True),
    ("Pricing and plans.", False),               # under MIN_WORDS
    ("Can sale items be refunded at all?", False),
    ("| Plan | Price | Support | Seats |", False),
    ("## Shipping times within the country", False),
])
def test_usable_sentences(sentence, usable):
    assert MIN_WORDS == 5
    assert usable_sentence(sentence) is usable


def test_the_offline_judge_keeps_its_controls_and_refuses_its_mutants_on_the_examples():
    """A smoke test, not a measurement: the offline judge's rules were fitted against the same
    mutant generator (see ``canaries``)."""
    built = build_canaries(_examples(), 40)
    judge = OfflineJudge()

    def supported(canary) -> bool:
        result = evaluate(canary.claim, list(canary.passages), judge)
        return result.status == "scored" and all(c.label == "supported" for c in result.claims)

    kept = [c for c in built.controls if supported(c)]
    refused = [c for c in built.mutants if not supported(c)]
    assert len(kept) == len(built.controls) == 20
    assert len(refused) >= 0.9 * len(built.mutants), [
        (c.kind, c.claim) for c in built.mutants if c not in refused]
