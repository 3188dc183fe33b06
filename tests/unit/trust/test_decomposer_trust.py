"""A decomposer is not believed about what it left out of a sentence or about its polarity,
nor about sentences it set aside as non-assertive (the pipeline's coverage check, through
``evaluate`` and the scripted chat server reached by litellm's real client)."""

from __future__ import annotations

import pytest
from scripted_model import claims_reply, judge_model, make_judge, supports_verbatim

from pytest_faithfulness import evaluate

WARRANTY = [{"id": "1", "text": "The warranty covers the battery for two years."}]
SCREEN = [{"id": "1", "text": "The screen is not covered."}]


# --------------------------------------------------------------------------------------------
# Part of a sentence left out, or its polarity flipped: the sentence itself is judged.

PARTIAL_OR_FLIPPED = {
    "drops-a-conjunct": ("The warranty covers the screen and battery for two years.", WARRANTY,
                         ["The warranty covers the battery for two years."], "screen"),
    "drops-a-modifier": ("The warranty covers the battery for two years worldwide.", WARRANTY,
                         ["The warranty covers the battery for two years."], "worldwide"),
    "drops-an-object": ("The warranty covers the battery and water damage for two years.",
                        WARRANTY, ["The warranty covers the battery for two years."], "water"),
    "negates-a-positive": ("The screen is covered.", SCREEN, ["The screen is not covered."],
                           "is covered"),
    "negates-a-positive-2": ("Sale items can be refunded.",
                             [{"id": "1", "text": "Sale items cannot be refunded."}],
                             ["Sale items cannot be refunded."], "can be refunded"),
    "affirms-a-negative": ("The screen is not covered.",
                           [{"id": "1", "text": "The screen is covered."}],
                           ["The screen is covered."], "not covered"),
}


@pytest.mark.parametrize(("answer", "passages", "claims", "hidden"),
                         list(PARTIAL_OR_FLIPPED.values()), ids=list(PARTIAL_OR_FLIPPED))
def test_a_partial_or_flipped_decomposition_does_not_cover_its_sentence(
        chat_server, answer, passages, claims, hidden):
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)

    result = evaluate(answer, passages, make_judge(chat_server))

    added = [c for c in result.claims if hidden in c.text]
    assert added and added[0].note and "judged as a claim" in added[0].note
    assert not added[0].supported
    assert result.score < 1


def test_a_faithful_split_still_covers_its_sentence(chat_server):
    """The rule adds nothing when the claims hold every content word of the sentence (a
    connective like "while" need not be repeated)."""
    answer = "The lamp has three levels, while its cable is 2 m long."
    claims = ["The lamp has three levels.", "The lamp's cable is 2 m long."]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    result = evaluate(answer, [{"id": "1", "text": " ".join(claims)}], make_judge(chat_server))
    assert [c.text for c in result.claims] == claims
    assert result.score == 1
