"""A citation that points at the wrong passage: faithful, but misattributed.

Every claim of the answer is in a passage, so its faithfulness is 1.0; but the first claim
cites doc-12, which says nothing about capacity (doc-11 does). A reader who follows the
citation finds no support. Citation precision is its own figure: 1 of 2 cited claims.
Written for this project.
"""

import pytest

PASSAGES = [
    {"id": "doc-11", "text": "The Model K7 kettle holds 1.7 litres of water."},
    {"id": "doc-12", "text": "The Model K7 kettle comes with a 2-year warranty."},
]

ANSWER = ("The Model K7 kettle holds 1.7 litres of water [doc-12]. "
          "The Model K7 kettle comes with a 2-year warranty [doc-12].")


def test_wrong_citation_is_misattributed(assert_faithful):
    result = assert_faithful(ANSWER, PASSAGES)  # every claim supported: faithful
    assert result.score == 1.0
    assert [c.citation for c in result.claims] == ["misattributed", "correct"]
    assert result.claims[0].verdict.passage_ids == ["doc-11"]


@pytest.mark.xfail(strict=True, reason="claim 1 cites doc-12, which does not support it: "
                                       "min_citation_precision catches the wrong citation")
def test_wrong_citation_is_caught(assert_faithful):
    assert_faithful(ANSWER, PASSAGES, min_citation_precision=1.0)
