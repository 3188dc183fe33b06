"""Markup a reader sees is judged (issue 21, item 5): an HTML comment is ``<!-- ... -->`` with
both ends; ``<!-->`` and ``<!--->`` are empty comments that end at once, so the sentence after
them is shown and judged; an unterminated ``<!--`` is text (CommonMark prints an inline one as
written). Through ``evaluate`` with the offline judge, and a real pytest run for the gate."""

from __future__ import annotations

import pytest

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.judges.offline.decomposer import markup_spans

PASSAGES = [{"id": "1", "text": "The Vela lamp has three brightness levels."}]
TRUE = "The Vela lamp has three brightness levels."
FALSE = "The Vela lamp has a 9-year warranty."


@pytest.mark.parametrize("opening", ["<!-->", "<!--->", "<!--", "<!-- "])
def test_a_comment_that_ends_at_once_or_never_hides_nothing(opening):
    """Before: everything after the opening was set aside as "markup" and the answer scored
    1.0."""
    result = evaluate(f"{TRUE} {opening} {FALSE}", PASSAGES, OfflineJudge())

    judged = [c for c in result.claims if "9-year warranty" in c.text]
    assert judged and not judged[0].supported
    assert result.score == 0.5
    assert not any("9-year" in d.text for d in result.dropped)


@pytest.mark.parametrize("answer, comment", [
    (f"{TRUE} <!-- {FALSE} --> ", f"<!-- {FALSE} -->"),
    (f"{TRUE} <!-- a\nnote --!> ", "<!-- a\nnote --!>"),
    (f"{TRUE}<!-->", "<!-->"),
])
def test_a_comment_with_both_ends_is_still_markup(answer, comment):
    """The other direction: a real comment is not shown, so it is set aside, not judged."""
    result = evaluate(answer, PASSAGES, OfflineJudge())
    assert result.score == 1.0
    assert [d.text for d in result.dropped if d.reason == "markup"] == [comment]


def test_markup_spans_end_an_empty_comment_at_once():
    text = "a <!--> b <!---> c <!-- d --> e <!-- f"
    assert [text[s:e] for s, e in markup_spans(text)] == ["<!-->", "<!--->", "<!-- d -->"]


def test_a_sentence_after_an_empty_comment_fails_the_gate_through_pytest(pytester):
    pytester.makepyfile(f"""
        def test_answer(assert_faithful):
            assert_faithful({TRUE + ' <!--> ' + FALSE!r}, {PASSAGES!r}, min_score=0.8)
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*9-year warranty*"])
