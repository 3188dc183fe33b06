"""Every digest of an answer's text and passages takes any str, a lone surrogate included
(text that is not valid Unicode, kept as the test gave it): a digest that raises loses the
saved run, the draft labels or the comparison of the run that recorded it."""

from __future__ import annotations

import pytest

from pytest_faithfulness.records import Passage
from pytest_faithfulness.runs.baseline_identity import inputs_digest, suite_digest
from pytest_faithfulness.runs.promote import draft_id
from pytest_faithfulness.runs.promote import passages_digest as draft_passages_digest
from pytest_faithfulness.runs.saved import SavedAnswer, passages_digest

ODD = ["lone \ud800 surrogate", "low \udfff too", "fine text"]


@pytest.mark.parametrize("text", ODD)
def test_each_digest_takes_the_text_and_tells_texts_apart(text):
    passages = [Passage(id="p1", text=text)]
    other = [Passage(id="p1", text=text + "!")]
    assert passages_digest(passages) != passages_digest(other)
    assert draft_passages_digest(passages) != draft_passages_digest(other)
    assert inputs_digest(text, passages) != inputs_digest(text + "!", passages)
    assert draft_id("t::a", text, passages) != draft_id("t::a", text + "!", passages)
    answer = SavedAnswer(test_id="t::a", status="scored", answer=text,
                         inputs_digest=inputs_digest(text, passages))
    assert suite_digest([answer])
