"""The first filter's rules (``trust.first_filter.settle``): it settles a claim ``supported``
only when one passage sentence states it word for word, bound as in the claim; its verdicts
pass the evidence check; it never settles a perturbed claim (the evidence benchmark's mutants
of every claim it settles in the shipped example records, and written swaps)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repo_paths import ROOT

from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer
from pytest_faithfulness.mutants import KINDS, mutate, names_in
from pytest_faithfulness.records import Passage
from pytest_faithfulness.trust.first_filter import SETTLED_NOTE, settle
from pytest_faithfulness.trust.quote_check import check_verdict


def one(text: str, title: str | None = None) -> list[Passage]:
    return [Passage(id="p1", text=text, title=title)]


STATED = [
    ("Refunds take 14 days.", "Refunds take 14 days."),
    ("The Basic plan costs $20 per month.",
     "The Pro plan costs $10 per month, and the Basic plan costs $20 per month."),
    ("Acme acquired Globex in 2019.", "Acme acquired Globex in 2019, which doubled its size."),
    ("Acme acquired Globex.", "In 2019, Acme acquired Globex."),
    ("Acme acquired Globex.", "On 3 March 2019, Acme acquired Globex."),
    ("The bridge opened in 1937.", "The tunnel opened in 1932; the bridge opened in 1937."),
    ("The Kestrel e-bike weighs 23 kg.", "The Kestrel e-bike weighs 23 kg."),
    ("Several minerals have a green color.",
     "Several minerals have a green color, including the emerald."),
    ("The museum is closed on Mondays.", "Opening hours vary. The museum is closed on Mondays."),
    ("The Basic plan costs $20.", "The Basic plan costs $20."),
    ("The Pro plan costs $10 per month.", "The **Pro plan** costs $10 per month."),
    ("The device is not waterproof.", "The device is not waterproof."),
    ("The plans cost $10.", "The plan costs $10."),
    ("The shop sells boxes.", "The shop sells box."),
]


@pytest.mark.parametrize("claim,text", STATED)
def test_a_sentence_that_states_the_claim_settles_it_with_checked_evidence(claim, text):
    passages = one(text)
    verdict = settle(claim, passages)
    assert verdict is not None and verdict.label == "supported"
    assert verdict.rationale.startswith(SETTLED_NOTE)
    assert len(verdict.evidence) == 1 and verdict.evidence[0].quote in text
    accepted, reason = check_verdict(verdict, passages, claim)
    assert reason is None and accepted == verdict


def test_a_title_is_never_the_evidence():
    """A title is a headline: its body may contradict it."""
    passages = one("Shares rose on the news.", title="Acme acquires Globex for $3 billion")
    assert settle("Acme acquires Globex for $3 billion.", passages) is None


#: (claim, sentence): the sentence does not support the claim as stated (one list, read by
#: benchmarks/first_filter.py too).
SWAPS = [(row["claim"], row["sentence"]) for row in json.loads(
    (Path(__file__).parent / "first_filter_swaps.json").read_text(encoding="utf-8"))["swaps"]]


@pytest.mark.parametrize("claim,text", SWAPS)
def test_attribute_role_date_and_bound_swaps_are_never_settled(claim, text):
    assert settle(claim, one(text)) is None


@pytest.mark.parametrize("text", [
    "Does the device hold 5 litres?",
    "Q: Is the device waterproof? A: Yes.",
    "Is the device waterproof? It is rated IP68.",
])
def test_a_question_is_never_evidence(text):
    assert settle("The device is waterproof.", one(text)) is None
    assert settle("The device holds 5 litres.", one(text)) is None


@pytest.mark.parametrize("text", [
    "## The device is waterproof",
    "| The device is waterproof | yes |",
    "Common myths:\nThe device is waterproof.",
    "Not covered:\nThe device is waterproof.",
    "What is not covered\nThe device is waterproof.",
    "Known limitations\nThe device is waterproof.",
    "Specifications\nThe device is waterproof.",
])
def test_headings_table_rows_lists_under_a_lead_in_and_myths_are_no_proof(text):
    assert settle("The device is waterproof.", one(text)) is None


def test_a_claim_too_short_or_hedged_goes_to_the_judge():
    assert settle("It works.", one("It works.")) is None
    assert settle("Refunds may take 14 days.", one("Refunds may take 14 days.")) is None


def _records() -> list[dict]:
    path = ROOT / "conftest_examples" / "records.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _settled_claims() -> list[tuple[str, list[Passage]]]:
    """Every claim of the shipped example records (claim records, and the answers' claims as
    the offline decomposer makes them) that the filter settles, with its passages."""
    decomposer = RuleDecomposer()
    found = []
    for rec in _records():
        passages = [Passage(id=p["id"], text=p["text"], title=p.get("title"))
                    for p in rec["passages"]]
        claims = [rec["answer"]] if rec["kind"] == "claim" else \
            list(decomposer.decompose(rec["answer"]).claims)
        for claim in claims:
            if settle(claim, passages) is not None:
                found.append((claim, passages))
    return found


#: Claims written after passage sentences of the kind a RAG answer copies, so that every
#: mutant kind is built at least once (the example records alone build only some).
WRITTEN = [
    ("The Pro plan costs $10 per month.", "The Pro plan costs $10 per month."),
    ("Refunds are issued within 14 days.", "Refunds are issued within 14 days."),
    ("All orders ship from the Berlin warehouse.", "All orders ship from the Berlin warehouse."),
    ("The Kestrel e-bike weighs 23 kg.", "The Kestrel e-bike weighs 23 kg."),
    ("Audit log export is available on the Business plan.",
     "Audit log export is available on the Business plan."),
    ("The cable is compatible with the Vela lamp.", "The cable is compatible with the Vela lamp."),
    ("The service is available in Canada and Mexico.",
     "The service is available in Canada and Mexico."),
    ("Acme hired 40 engineers in 2021.", "Acme hired 40 engineers in 2021."),
    ("The battery charges fully in 2 hours.", "The battery charges fully in 2 hours."),
    ("The device is safe for children.", "The device is safe for children."),
]


def _perturbable() -> list[tuple[str, list[Passage]]]:
    return _settled_claims() + [(c, one(t)) for c, t in WRITTEN]


def test_the_example_records_give_settled_claims_to_perturb():
    assert len(_settled_claims()) >= 1
    assert all(settle(c, p) is not None for c, p in _perturbable())


def test_no_mutant_of_a_settled_claim_is_ever_settled():
    """Number, unit, negation (also inside a word), antonym, foreign name, swap, quantifier,
    appended clause: the lying judge's perturbations; the filter must settle none."""
    claims = _perturbable()
    built: dict[str, int] = dict.fromkeys(KINDS, 0)
    settled = []
    for i, (claim, passages) in enumerate(claims):
        other = names_in(claims[(i + 1) % len(claims)][0]) or ["Hartwell"]
        for m in mutate(claim, passages, other_names=other):
            if not m.built:
                continue
            built[m.kind] += 1
            if settle(m.claim, passages) is not None:
                settled.append((m.kind, m.claim))
    assert settled == []
    required = ("number", "unit", "negation", "negation_in_word", "antonym", "foreign_name",
                "quantifier")
    assert all(built[k] >= 1 for k in required), built


#: The framing kinds of the new-user attack (issue 24): the filter proved the claim from a
#: sentence and ignored what frames that sentence from outside. (kind, claim, passages).
FRAMED = [
    # A. a retraction, correction or rejection in a following sentence
    ("A", "Coffee prevents cancer.",
     ["Coffee prevents cancer. Scientists have since shown this to be nonsense."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. This was later disproven."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. Not anymore."]),
    ("A", "Shipping is free for all orders.",
     ["Shipping is free for all orders. This no longer applies."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. (Retracted.)"]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. That was a lie."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. Ha! As if."]),
    ("A", "Shipping is free for all orders.",
     ["Shipping is free for all orders. That was the old policy."]),
    ("A", "Coffee prevents cancer.",
     ["Coffee prevents cancer. Please disregard the sentence above."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. None of this is true."]),
    ("A", "The cream cures acne in a week.",
     ["The cream cures acne in a week. That is what the advertisement said, and the regulator "
      "fined the maker for it."]),
    ("A", "The app supports offline mode.",
     ["The app supports offline mode. No, that was a beta feature that we removed."]),
    ("A", "Coffee prevents cancer.",
     ["Coffee prevents cancer. Water boils at 100 C. The first statement was shown to be "
      "bogus."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. Scientists disagree."]),
    ("A", "Coffee prevents cancer.",
     ["Coffee prevents cancer. Water boils at 100 C. The first sentence above does not hold."]),
    ("A", "Coffee prevents cancer.", ["Coffee prevents cancer. Yeah, right."]),
    ("C", "Coffee prevents cancer.", ["> Coffee prevents cancer.\nWe get this question a lot."]),
    ("C", "Coffee prevents cancer.", ['"Coffee prevents cancer." That is the rumour.']),
    # B. a scope set by the previous sentence
    ("B", "The plan costs $10.", ["This price applies to students only. The plan costs $10."]),
    ("B", "Shipping is free for all orders.",
     ["The following policy applied until 2019. Shipping is free for all orders."]),
    ("B", "The drug reduces blood pressure.",
     ["The hypothesis we tested was this. The drug reduces blood pressure."]),
    ("B", "The company dumped waste into the river.",
     ["Below are the allegations of the plaintiff. The company dumped waste into the river."]),
    ("B", "Coffee prevents cancer.",
     ["Quiz: which of these statements are true? Coffee prevents cancer. Water boils at "
      "100 C."]),
    ("B", "The office closes on Fridays.", ["April fools! The office closes on Fridays."]),
    # C. a question answered "No" in a separate sentence; dialogue
    ("C", "Coffee prevents cancer.", ["Is it true? Coffee prevents cancer. No."]),
    ("C", "Coffee prevents cancer.", ["Coffee prevents cancer. Lol, no."]),
    ("C", "The refund window is 90 days.",
     ["Customer: The refund window is 90 days. Agent: Actually, it is 14 days."]),
    # D. another passage retracts or contradicts it
    ("D", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "Correction: the Basic plan costs $20, not $10."]),
    ("D", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "Erratum: the passage above was published in error."]),
    ("D", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "As of May, the Basic plan costs $20."]),
    ("D", "The device is waterproof.",
     ["The device is waterproof.", "The device is not waterproof, the lab found."]),
    ("D", "The Basic plan costs $10.", ["The Basic plan costs $10.", "The basic plan costs $20."]),
    ("D", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "The Current plan costs $20."]),
    ("D", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "The Basics plan costs $20."]),
    ("D", "Shipping takes 3 days.", ["Shipping takes 3 days.", "Shipping takes 5 days."]),
    ("D", "Item 0-1 ships within 2 days.",
     ["Item 0-1 ships within 2 days.", "Item 0-1 ships within 5 days."]),
    ("D", "Acme employs 500 people.", ["Acme employs 500 people.", "It employs 900 people."]),
    # E. a label ending in ":" before the run, in the same sentence
    ("E", "Coffee prevents cancer.", ["Misinformation: coffee prevents cancer."]),
    ("E", "Coffee prevents cancer.", ["Satire: coffee prevents cancer."]),
    ("E", "The drug reduces blood pressure.", ["Hypothesis: the drug reduces blood pressure."]),
    ("E", "Shipping is free for all orders.", ["Before 2019: shipping is free for all orders."]),
    ("E", "Shipping is free for all orders.", ["2019 policy: shipping is free for all orders."]),
    ("E", "The app supports offline mode.",
     ["Beta feature (removed): the app supports offline mode."]),
    ("E", "Coffee prevents cancer.", ["Q: coffee prevents cancer."]),
    ("E", "Coffee prevents cancer.", ["X: coffee prevents cancer."]),
    ("E", "Coffee prevents cancer.", ["Zyxq: coffee prevents cancer."]),
    ("E", "Coffee prevents cancer.", ["Zyxq:\nCoffee prevents cancer."]),
    # F. a heading line above the sentence; a title on its own
    ("F", "The X100 ships worldwide.", ["Discontinued products\n\nThe X100 ships worldwide."]),
    ("F", "The X100 ships worldwide.", ["## Plans we dropped in 2020\nThe X100 ships worldwide."]),
    ("F", "The X100 ships worldwide.",
     ["Zyxq products\n\nThe X200 is blue. The X100 ships worldwide."]),
    ("F", "Coffee prevents cancer.",
     [{"id": "t1", "title": "Coffee prevents cancer",
       "text": "This headline is clickbait. Studies found no effect at all."}]),
    # G. a change of tense
    ("G", "The company employs 500 people.", ["The company employed 500 people."]),
    ("G", "The store opens at 9 am.", ["The store opened at 9 am."]),
    ("G", "Acme acquires Globex.", ["Acme acquired Globex."]),
    ("G", "The team is winning the league.", ["The team won the league."]),
    # H. a word that mixes scripts
    ("H", "The Basic plan costs $10.", ["The B\u0430sic plan costs $10."]),
    ("H", "The Basic plan costs $10.",
     ["The B\u0430sic plan costs $10. The Basic plan costs $20."]),
    ("H", "The B\u0430sic plan costs $10.", ["The B\u0430sic plan costs $10."]),
    ("H", "The Basic plan costs $10.",
     ["The Basic plan costs $10.", "The B\u0430sic plan costs $20."]),
]


def _passages(raw: list) -> list[Passage]:
    return [Passage(id=p.get("id", f"p{i + 1}"), text=p["text"], title=p.get("title"))
            if isinstance(p, dict) else Passage(id=f"p{i + 1}", text=p)
            for i, p in enumerate(raw)]


@pytest.mark.parametrize("kind,claim,raw", FRAMED,
                         ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(FRAMED)])
def test_a_sentence_framed_from_outside_is_no_proof(kind, claim, raw):
    assert settle(claim, _passages(raw)) is None


def _attacks() -> list[dict]:
    path = ROOT / "tests" / "unit" / "trust" / "first_filter_attacks.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", _attacks(), ids=lambda c: c["id"])
def test_the_attack_cases_settled_wrongly_by_rules_1_are_never_settled(case):
    """The 57 wrong answers of the new-user attack that rules version 1 settled."""
    assert settle(case["answer"], _passages(case["passages"])) is None


def test_the_same_sentence_settles_once_its_context_is_plain():
    """Each framed twin above has a plain twin that still settles."""
    for claim, raw in [("Coffee prevents cancer.", ["Coffee prevents cancer."]),
                       ("The Basic plan costs $10.", ["The Basic plan costs $10.",
                                                      "Refunds take 14 days."]),
                       ("The Basic plan costs $10.", ["The Basic plan costs $10.",
                                                      "The Pro plan costs $20."]),
                       ("Item 0-1 ships from warehouse 1 within 2 days.",
                        ["Item 0-1 ships from warehouse 1 within 2 days.",
                         "Item 0-2 ships from warehouse 2 within 3 days."]),
                       ("The X100 ships worldwide.",
                        ["Our products are made in Oslo.\nThe X100 ships worldwide."]),
                       ("The company employs 500 people.",
                        ["Acme is based in Oslo. The company employs 500 people. Its CEO is "
                         "Kari Nordmann."])]:
        assert settle(claim, _passages(raw)) is not None, claim
