"""The decomposer does not set the denominator (issue 21, item 3): a claim must be grounded in
the answer (its content words in the sentence it is aligned to or in the answer before it),
else it is ``unsupported`` with the reason recorded and no judge call; paraphrases of one
sentence are merged by content and count once. Through ``evaluate`` with litellm's real client
and the loopback chat server, and through a real pytest run for the gate."""

from __future__ import annotations

import json

from scripted_model import (
    MODEL,
    claims_reply,
    judge_model,
    make_judge,
    ops,
    supports_verbatim,
    verify_requests,
)

from pytest_faithfulness import Verdict, evaluate

VELA = [{"id": "1", "text": "The Vela lamp has three brightness levels. "
                            "The Vela lamp comes with a 2-year warranty. "
                            "The Vela lamp is sold in black."}]
TRUE_HALF = "The Vela lamp has three brightness levels."
HALF_AND_FALSE = "The Vela lamp has three brightness levels and comes with a 5-year warranty."
PARAPHRASES = ["The Vela lamp has three brightness levels.",
               "The Vela lamp has 3 brightness levels.",
               "There are three brightness levels on the Vela lamp.",
               "The Vela lamp's brightness has three levels.",
               "Three brightness levels: the Vela lamp has them."]
FALSE_CLAIM = "The Vela lamp comes with a 5-year warranty."


def _verbatim_or_contradicted(passages, claim):
    """A careful judge: contradicted for the 5-year warranty (the passage says 2 years),
    supported for each paraphrase of the brightness levels, else by ``supports_verbatim``."""
    if "5-year" in claim:
        return {"label": "contradicted", "passage_ids": ["1"],
                "quote": "The Vela lamp comes with a 2-year warranty.",
                "rationale": "the passage says 2 years"}
    if claim in PARAPHRASES:
        return {"label": "supported", "passage_ids": ["1"], "quote": TRUE_HALF,
                "rationale": "paraphrase of the passage"}
    return supports_verbatim(passages, claim)


def test_five_paraphrases_of_a_true_half_sentence_count_once(chat_server):
    """Before: 5 supported paraphrases + 1 contradicted claim scored 0.83."""
    chat_server.handler = judge_model(claims_reply(PARAPHRASES + [FALSE_CLAIM]),
                                      _verbatim_or_contradicted)

    result = evaluate(HALF_AND_FALSE, VELA, make_judge(chat_server))

    assert [c.text for c in result.claims] == [PARAPHRASES[0], FALSE_CLAIM]
    assert [c.label for c in result.claims] == ["supported", "contradicted"]
    assert result.score == 0.5
    restated = [d for d in result.dropped if d.reason.startswith("restates claim 1")]
    assert sorted(d.text for d in restated) == sorted(PARAPHRASES[1:])
    assert len(verify_requests(chat_server)) == 2  # the merged paraphrases cost no call


def test_a_faithful_split_of_one_sentence_is_not_merged(chat_server):
    """The other direction: claims of one sentence that each say something the other does not
    are all kept and scored."""
    answer = "The Vela lamp has three brightness levels and comes with a 2-year warranty."
    claims = ["The Vela lamp has three brightness levels.",
              "The Vela lamp comes with a 2-year warranty."]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    result = evaluate(answer, VELA, make_judge(chat_server))
    assert [c.text for c in result.claims] == claims
    assert result.score == 1.0 and not result.dropped


def test_a_claim_the_answer_never_made_is_unsupported_without_a_judge_call(chat_server):
    """"sold in black" shares "Vela lamp" with the sentence it is aligned to; a passage says
    it, so a judge would support it and lift the score to 1.0."""
    answer = "The Vela lamp comes with a 2-year warranty."
    chat_server.handler = judge_model(claims_reply([answer, "The Vela lamp is sold in black."]),
                                      supports_verbatim)

    result = evaluate(answer, VELA, make_judge(chat_server))

    made_up = result.claims[1]
    assert made_up.text == "The Vela lamp is sold in black."
    assert made_up.label == "unsupported"
    assert "not grounded in the answer" in made_up.note and "'black'" in made_up.note
    assert "not grounded in the answer" in made_up.verdict.rationale
    assert result.score == 0.5
    assert [c["claim"] for c in _verified(chat_server)] == [answer]


def test_a_claim_whose_source_was_not_found_is_unsupported(chat_server):
    answer = "The Vela lamp comes with a 2-year warranty."
    passages = VELA + [{"id": "2", "text": "Shipping takes 9 days."}]
    chat_server.handler = judge_model(claims_reply([answer, "Shipping takes 9 days."]),
                                      supports_verbatim)

    result = evaluate(answer, passages, make_judge(chat_server))

    assert [c.label for c in result.claims] == ["supported", "unsupported"]
    assert "its source was not found in the answer" in result.claims[1].note
    assert result.score == 0.5
    assert ops(chat_server).count("verify") == 1


def test_a_resolved_pronoun_is_grounded(chat_server):
    """"It comes with ..." -> "The Vela lamp comes with ...": the name is in the answer before
    the sentence, so the claim is judged as usual (no false alarm)."""
    answer = "The Vela lamp has three brightness levels. It comes with a 2-year warranty."
    claims = ["The Vela lamp has three brightness levels.",
              "The Vela lamp comes with a 2-year warranty."]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    result = evaluate(answer, VELA, make_judge(chat_server))
    assert [c.label for c in result.claims] == ["supported", "supported"]
    assert result.score == 1.0
    assert not any(c.note and "grounded" in c.note for c in result.claims)


def _verified(server):
    from scripted_model import parse_request
    return [{"claim": parse_request(r)[2]} for r in verify_requests(server)]


SUITE = f"""
def test_paraphrased(assert_faithful):
    assert_faithful({HALF_AND_FALSE!r}, {VELA!r})

def test_made_up(assert_faithful):
    assert_faithful("The Vela lamp comes with a 2-year warranty.", {VELA!r})
"""


def test_the_gate_fails_both_repros_through_pytest(chat_server, pytester):
    def decompose(answer):
        if "brightness" in answer:
            return {"claims": PARAPHRASES + [FALSE_CLAIM], "dropped": []}
        return {"claims": [answer, "The Vela lamp is sold in black."], "dropped": []}

    chat_server.handler = judge_model(decompose, _verbatim_or_contradicted)
    pytester.makepyfile(test_vela=SUITE)

    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-judge", MODEL,
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", "--faithfulness-min-score", "0.8",
                                "--faithfulness-report", "r.json")

    result.assert_outcomes(failed=2)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert sorted(a["score"] for a in report["answers"]) == [0.5, 0.5]


def test_a_name_written_out_with_its_kind_is_grounded(chat_server):
    """"The Lumo 2" -> "The Lumo 2 projector": the one word after a name (its kind) may be
    added; a word after anything else may not."""
    passages = [{"id": "1", "text": "The Lumo 2 projector supports 1080p input."}]
    claims = ["The Lumo 2 projector supports 1080p input.",
              "The Lumo 2 projector supports wireless input."]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    result = evaluate("The Lumo 2 supports 1080p input.", passages, make_judge(chat_server))
    assert [c.label for c in result.claims] == ["supported", "unsupported"]
    assert result.claims[0].note is None
    assert "not grounded in the answer: 'wireless'" in result.claims[1].note


class _OnlyIsUnsaid:
    """A decomposer that writes the answer's claim once plain and once with its "Only" (a
    new user's repro); the verifier supports the plain claim and not the exclusive one."""

    def decompose(self, answer):
        return ["The Business plan includes SSO.", "Only the Business plan includes SSO."]

    def verify(self, claim, passages):
        if claim.startswith("Only"):
            return Verdict("unsupported", rationale="the Enterprise plan includes SSO too")
        return Verdict("supported", evidence=[{"passage_id": "1",
                                               "quote": "The Business plan includes SSO."}])


def test_a_claim_with_a_quantifier_the_other_lacks_is_no_restatement():
    """ "Only the Business plan ..." says more than "The Business plan ...": it is judged, not
    set aside as a restatement (stop-word lists drop "only", "all", "may", "must")."""
    passages = [{"id": "1", "text": "The Business plan includes SSO."},
                {"id": "2", "text": "The Enterprise plan includes SSO."}]
    result = evaluate("Only the Business plan includes SSO.", passages, _OnlyIsUnsaid())
    assert [c.label for c in result.claims] == ["supported", "unsupported"]
    assert result.score == 0.5
    assert not any("restates" in d.reason for d in result.dropped)
