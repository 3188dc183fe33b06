"""Judge canaries (issue 23, the builder): controls and mutants from a run's own passages,
keyed by content, and what the offline judge makes of them on the example suite's passages."""

from __future__ import annotations

import json
import random

import pytest
from repo_paths import ROOT

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.canaries import MIN_WORDS, build_canaries, usable_sentence
from pytest_faithfulness.mutants import KINDS

REFUNDS = [{"id": "p1", "text": "Refunds are issued within 14 days of a return being received. "
                                "Items bought on sale can be exchanged but not refunded."},
           {"id": "p2", "text": "Standard shipping takes 3 to 5 business days within Canada."}]
PLANS = [{"id": "k1", "text": "The Business plan includes SSO, audit logs and email support. "
                              "Pricing?"}]


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


def test_controls_are_passage_sentences_and_mutants_change_them():
    built = build_canaries([REFUNDS, PLANS], 6)
    texts = {p["id"]: p["text"] for p in REFUNDS + PLANS}
    for canary in built.controls:
        assert canary.kind == "verbatim" and canary.expected == "supported"
        assert canary.claim == canary.sentence and canary.sentence in texts[canary.passage_id]
    for canary in built.mutants:
        assert canary.kind in KINDS and canary.expected == "not supported"
        assert canary.claim != canary.sentence and canary.sentence in texts[canary.passage_id]
        assert canary.detail
    assert {c.passage_id for c in built.canaries} <= {"p1", "p2", "k1"}


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
