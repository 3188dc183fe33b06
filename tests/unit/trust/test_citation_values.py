"""Citations (issue 21, item 7): a footnote resolves to what its definition names
(``[^1]: [3]``, ``3``, ``Source 3``, ``Passage 3``), never to the passage of its own number; a
bracketed value in citation position ("weighs [800].") is a value when no passage has that id
or position, and stays in the claim. Through ``evaluate`` (offline judge; the loopback LLM
judge for an LLM decomposer) and a real pytest run for the gate."""

from __future__ import annotations

import pytest
from scripted_model import judge_model, make_judge, parse_request, verify_requests

from pytest_faithfulness import OfflineJudge, evaluate

PASSAGES = [
    {"id": "kb-1", "text": "Refunds are issued within 14 days of a return being received."},
    {"id": "kb-2", "text": "Items bought on sale can be exchanged but not refunded."},
    {"id": "kb-3", "text": "Gift cards are valid for three years from the date of purchase."},
]
REFUND = "Refunds are issued within 14 days of a return being received."


# --------------------------------------------------------------------------------------------
# Footnote definitions.

@pytest.mark.parametrize("definition", ["[3]", "3", "Source 3", "Passage 3", "source: 3",
                                        "kb-3"])
def test_a_footnote_cites_what_its_definition_names(definition):
    """Before: ``[^1]`` fell back to passage 1, which supports the claim, so a misattributed
    claim counted as correctly cited (and "Source 3" was judged as a claim of its own)."""
    result = evaluate(f"{REFUND}[^1]\n\n[^1]: {definition}", PASSAGES, OfflineJudge())

    (claim,) = result.claims
    assert claim.cited_ids == ["kb-3"]
    assert (claim.label, claim.citation) == ("supported", "misattributed")
    assert result.citation_precision == 0.0 and result.score == 1.0
    assert [d.reason for d in result.dropped] == ["list of sources"]


@pytest.mark.parametrize("definition", ["[1]", "Source 1", "Passage 1", "kb-1"])
def test_a_footnote_naming_the_right_passage_is_correct(definition):
    result = evaluate(f"{REFUND}[^1]\n\n[^1]: {definition}", PASSAGES, OfflineJudge())
    assert [(c.cited_ids, c.citation) for c in result.claims] == [(["kb-1"], "correct")]


@pytest.mark.parametrize("definition, unknown", [("Source 9", "9"),
                                                 ("https://example.com/refunds", "^1")])
def test_a_footnote_naming_no_passage_is_an_unknown_citation(definition, unknown):
    """Not passage 1 by its number: a citation that cannot be correct."""
    result = evaluate(f"{REFUND}[^1]\n\n[^1]: {definition}", PASSAGES, OfflineJudge())
    (claim,) = result.claims
    assert claim.cited_ids == [] and claim.unknown_citations == [unknown]
    assert claim.citation == "misattributed" and claim.supported


def test_a_misattributed_footnote_fails_the_citation_gate_through_pytest(pytester):
    answer = f"{REFUND}[^1]\n\n[^1]: Source 3"
    pytester.makepyfile(f"""
        def test_answer(assert_faithful):
            assert_faithful({answer!r}, {PASSAGES!r})
    """)
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-max-misattributed",
                                "0")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*GATE FAILED: 1 misattributed claim(s)*"])


# --------------------------------------------------------------------------------------------
# Bracketed values.

KESTREL = [{"id": "1", "text": "The Kestrel e-bike weighs 23 kg."},
           {"id": "2", "text": "The Kestrel e-bike has a range of 80 km."}]


def test_a_bracketed_value_that_names_no_passage_stays_in_the_claim():
    """Before: judged as "The Kestrel e-bike weighs." and supported (score 1.0)."""
    result = evaluate("The Kestrel e-bike weighs [800].", KESTREL, OfflineJudge())

    (claim,) = result.claims
    assert claim.text == "The Kestrel e-bike weighs [800]."
    assert not claim.supported and result.score == 0.0
    assert "[800] names no passage of this answer" in claim.note


@pytest.mark.parametrize("answer", ["The Kestrel e-bike weighs 23 kg [1].",
                                    "The Kestrel e-bike weighs 23 kg. [1]",
                                    "The Kestrel e-bike weighs 23 kg [1, 2]."])
def test_a_bracket_that_names_a_passage_is_still_a_citation(answer):
    """The other direction: a real citation is not read into the claim."""
    result = evaluate(answer, KESTREL, OfflineJudge())
    (claim,) = result.claims
    assert claim.text == "The Kestrel e-bike weighs 23 kg."
    assert claim.supported and claim.citation == "correct"


def _lenient(passages, claim):
    """A judge that supports any claim about the e-bike's weight that names no number, and
    contradicts one with a number other than 23."""
    if "weighs" in claim and "23" not in claim and any(ch.isdigit() for ch in claim):
        return {"label": "contradicted", "passage_ids": ["1"],
                "quote": "The Kestrel e-bike weighs 23 kg.", "rationale": "23 kg"}
    return {"label": "supported", "passage_ids": ["1"],
            "quote": "The Kestrel e-bike weighs 23 kg.", "rationale": "it has a weight"}


@pytest.mark.parametrize("claim", ["The Kestrel e-bike weighs.",
                                   "The Kestrel e-bike weighs [800]."])
def test_an_llm_decomposer_keeps_the_value_too(chat_server, claim):
    chat_server.handler = judge_model(lambda answer: {"claims": [claim], "dropped": []},
                                      _lenient)

    result = evaluate("The Kestrel e-bike weighs [800].", KESTREL, make_judge(chat_server))

    assert [c.text for c in result.claims] == ["The Kestrel e-bike weighs [800]."]
    assert [c.label for c in result.claims] == ["contradicted"]
    assert [parse_request(r)[2] for r in verify_requests(chat_server)] == [
        "The Kestrel e-bike weighs [800]."]
