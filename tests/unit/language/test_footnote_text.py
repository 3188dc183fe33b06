"""A Markdown footnote definition is set aside as a list of sources only when its body names
sources (ids, numbers, URLs); one that holds prose is answer text a reader sees, and is judged.
(Found by a new user: "[^9]: The Pico 2 exploded in France in 2024." hid a made-up claim.)"""
import pytest

import pytest_faithfulness as pf
from pytest_faithfulness.judges.offline import OfflineJudge

PASSAGES = [{"id": "p1", "text": "The Pico 2 battery lasts 10 hours on a single charge."},
            {"id": "p2", "text": "The Pico 2 weighs 250 grams."}]
TRUE = "The Pico 2 battery lasts 10 hours on a single charge."


@pytest.mark.parametrize("answer", [
    TRUE + "\n\n[^9]: The Pico 2 exploded in France in 2024, killing 40 people.",
    "[^x]: The Pico 2 exploded in France in 2024.",
    TRUE + "[^1]\n\n[^1]: p1. The Pico 2 is banned in Japan.",
    TRUE + "[^1]\n\n[^1]: Handbook, p. 12: the Pico 2 is waterproof to 50 metres.",
])
def test_prose_in_a_footnote_definition_is_judged(answer):
    result = pf.evaluate(answer, PASSAGES, OfflineJudge())
    assert result.status == "scored"
    assert result.score is not None and result.score < 1
    assert not any(d.reason == "list of sources" for d in result.dropped)


@pytest.mark.parametrize("definition", ["[^1]: p1", "[^1]: p1, p2", "[^1]: 1",
                                        "[^1]: https://example.com/pico-2/manual#battery"])
def test_a_footnote_that_only_names_sources_is_set_aside(definition):
    result = pf.evaluate(TRUE + "[^1]\n\n" + definition, PASSAGES, OfflineJudge())
    assert result.score == 1.0
    assert [d.reason for d in result.dropped] == ["list of sources"]


def test_a_footnote_with_prose_fails_the_assertion_through_pytest(pytester):
    pytester.makepyfile(f"""
        def test_answer(assert_faithful):
            assert_faithful({TRUE + chr(10) * 2 + '[^9]: The Pico 2 exploded in 2024.'!r},
                            {PASSAGES!r})
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
