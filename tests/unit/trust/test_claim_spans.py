"""Claims mapped back to the answer: the JSON report's spans (a hypothesis property), a claim
whose source cannot be found (LLM decomposer), the failing sentence in the terminal and the
Markdown, and the answer marks of the HTML report kept inert."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scripted_model import claims_reply, judge_model, make_judge, supports_verbatim

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.records import SessionSummary
from pytest_faithfulness.reports.html import render_html
from pytest_faithfulness.reports.json import json_report

PASSAGES = [
    {"id": "p1", "text": "The Kestrel e-bike weighs 23 kg and has a range of 80 km."},
    {"id": "p2", "text": "Its battery charges in 4 hours. The warranty lasts 2 years."},
]

SENTENCES = ["The Kestrel e-bike weighs 23 kg.", "It has a range of 200 km [1].",
             "Its battery charges in 4 hours [p2].", "The warranty lasts 5 years.",
             "Hi there!", "Is it waterproof?", "- The frame is aluminium\n", "## Specs\n",
             "Sources: p1, p2\n", "Of course the Kestrel folds.", "(Source 2) ", "[^1]\n",
             "The motor is 250 W, and the brakes are hydraulic.", "\n\n", "Let me know!"]
answers = st.lists(st.one_of(st.sampled_from(SENTENCES), st.text(max_size=15)),
                   max_size=7).map(lambda parts: " ".join(parts))
_WORDS = re.compile(r"[^\W_]+")


def words(text: str, marks: bool) -> set[str]:
    """The words of ``text``: with ``marks``, Markdown marks are text (a run of ``_`` is a
    word, as the decomposer reads an answer of nothing but ``_``); without, they are nothing."""
    if marks:
        return {w.casefold() for w in re.findall(r"[^\W_]+|_+", text)}
    return {w.casefold() for w in _WORDS.findall(re.sub(r"[`*_~]", "", text))}


def json_answers(results):
    data = json_report(results, SessionSummary.of(results), ["offline"], [], {})
    return json.loads(json.dumps(data))["answers"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers)
@example("_")  # found by a new user's run: a claim of nothing but an underscore
def test_json_spans_are_inside_the_answer_and_hold_the_claims_source(answer):
    result = evaluate(answer, PASSAGES, OfflineJudge())
    (data,) = json_answers([result])
    assert data["answer"] == answer
    for claim in data["claims"]:
        assert isinstance(claim["spans"], list)
        if not claim["spans"]:
            assert "source was not found" in (claim["note"] or "")
            continue
        source = ""
        for span in claim["spans"]:
            assert isinstance(span, list) and len(span) == 2
            start, end = span
            assert 0 <= start < end <= len(answer)
            assert answer[start:end].strip()
            source += answer[start:end] + " "
        # a word of the claim is a word of its source, Markdown marks read as text or as nothing
        assert any(words(claim["text"], marks) & words(source, marks) for marks in (True, False)
                   ), (claim, source)
        assert claim["citation"] in ("correct", "misattributed", "unsupported", "uncited")
        assert set(claim["cited_ids"]) <= {"p1", "p2"}


@pytest.mark.parametrize("invented", [
    "The Kestrel e-bike has a top speed of 45 km/h.",   # a number the answer never gave
    "Zebras are striped.",                               # words the answer never used
    "Die Garantie beträgt fünf Jahre.",                  # another language
])
def test_llm_claim_whose_source_is_not_in_the_answer_says_so(chat_server, invented):
    answer = "The Kestrel e-bike weighs 23 kg."
    chat_server.handler = judge_model(claims_reply([answer, invented]), supports_verbatim)
    result = evaluate(answer, PASSAGES, make_judge(chat_server))
    found, lost = json_answers([result])[0]["claims"]
    assert found["spans"] == [[0, len(answer)]] and answer[0:len(answer)] == found["text"]
    assert lost["spans"] == [] and "its source was not found in the answer" in lost["note"]
    assert lost["verdict"]["label"] != "supported"


def test_llm_claims_get_the_spans_of_their_sentences(chat_server):
    answer = "The Kestrel e-bike weighs 23 kg. It has a range of 80 km."
    claims = ["The Kestrel e-bike weighs 23 kg.", "The Kestrel e-bike has a range of 80 km."]
    chat_server.handler = judge_model(claims_reply(claims), supports_verbatim)
    (data,) = json_answers([evaluate(answer, PASSAGES, make_judge(chat_server))])
    spans = [c["spans"] for c in data["claims"]]
    assert [answer[s:e] for (s, e), in spans] == ["The Kestrel e-bike weighs 23 kg.",
                                                   "It has a range of 80 km."]


# --------------------------------------------------------------------------------------------
# The failing sentence in the terminal (on failure) and in the Markdown.

SENTENCE_SUITE = f'''
PASSAGES = {PASSAGES!r}

def test_kestrel(assert_faithful):
    assert_faithful("The Kestrel e-bike weighs 23 kg. It has a range of 200 km.", PASSAGES)

def test_warranty(assert_faithful):
    assert_faithful("Its battery charges in 4 hours, and the warranty lasts 5 years.", PASSAGES)

def test_motor(assert_faithful):
    assert_faithful("The Kestrel e-bike weighs 23 kg.\\n\\n- It has a 500 W motor", PASSAGES)
'''


def test_terminal_and_markdown_show_the_failing_sentence(pytester, tmp_path):
    pytester.makepyfile(SENTENCE_SUITE)
    md = tmp_path / "summary.md"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--faithfulness-markdown={md}")
    assert result.ret == 1
    out = result.stdout.str()
    assert '      in the answer: "It has a range of 200 km."' in out
    assert '      in the answer: "- It has a 500 W motor"' in out
    text = md.read_text()
    assert "*in the answer:* “It has a range of 200 km.”" in text
    assert "*in the answer:* “- It has a 500 W motor”" in text


# --------------------------------------------------------------------------------------------
# The HTML marks stay inert whatever the answer holds.

@pytest.mark.parametrize("hostile", [
    '<script>alert(1)</script> The Kestrel has a 900 W motor.',
    'The Kestrel has a "900 W" motor" onmouseover="alert(1).',
    "The Kestrel has a 900 W motor \u202e<img src=x onerror=alert(1)>.",
])
def test_answer_marks_are_escaped(hostile):
    result = evaluate(hostile, PASSAGES, OfflineJudge())
    page = render_html([result], SessionSummary.of([result]), ["offline"], [])
    marks = re.findall(r'<mark class="m-(?:unsupported|contradicted)" tabindex="0" '
                       r'title="([^"]*)">(.*?)</mark>', page, flags=re.S)
    assert marks, page
    for title, body in marks:
        body = re.sub(r'<sup>(?:<a href="#a1-c\d">\d</a>,?)+</sup>$', "", body)
        assert "<" not in title and ">" not in title
        assert "<script" not in body and "<img" not in body and '"' not in body
    assert "<script>alert" not in page and "<img src=x" not in page
    assert 'onmouseover="alert' not in page
