"""Passage sentences (the fast splitter behind the offline verifier's windows) and the window
pre-filter: spans are verbatim and complete, and dropping windows never changes a verdict.
Speed is measured in benchmarks/passage_speed.py, never here."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.records import Passage
from pytest_faithfulness.language.text import MAX_SENTENCE_CHARS, passage_sentence_spans
from pytest_faithfulness.language.features import evidence_spans, text_features
from pytest_faithfulness.judges.offline.heuristic import (
    SUPPORT_COVERAGE,
    TOPIC_COVERAGE,
    HeuristicVerifier,
    candidate_windows,
    stitches,
)

# Pieces that exercise every rule of the splitter: abbreviations, initials, dotted forms,
# decimals, list numbers, ellipses, quotes and brackets, CJK stops, newlines, odd spaces.
PIECES = [
    "Dr.", "Mr.", "St.", "Jan.", "e.g.", "U.S.", "Ph.D.", "J.", "R.", "3.5", "1,000", "2.",
    "12.", "...", "\u2026", ".", "!", "?", "?!", '"Stop."', "(see below.)", "'quoted!'",
    "\u300c\u6771\u4eac\u3002\u300d", "\u6771\u4eac\u306f\u9996\u90fd\u3067\u3059\u3002",
    "\uff01", "\uff1f", "word", "Word", "claim", "passage", "km/h", "25%", "twelve", "rpm",
    "\u00a0", "\t", "\n", "\n\n", " ", "  ", "\r\n", "\u2028", "-", "\u2022",
]
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=80).map(" ".join),
    st.lists(st.sampled_from(PIECES), max_size=80).map("".join),
    st.text(max_size=400),
    st.text(alphabet=st.sampled_from("ab .!?\n\u3002\"'"), max_size=3 * MAX_SENTENCE_CHARS),
)


def assert_partition(text: str, spans: list[tuple[int, int]]) -> None:
    previous_end = 0
    covered = set()
    for start, end in spans:
        assert previous_end <= start < end <= len(text)          # in order, no overlap
        sentence = text[start:end]
        assert sentence == sentence.strip()                       # trimmed, never empty
        assert end - start <= MAX_SENTENCE_CHARS
        covered.update(range(start, end))
        previous_end = end
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and i not in covered]
    assert not missing, f"characters {missing[:5]} of {text!r} are in no sentence"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_passage_sentences_partition_the_text(text):
    assert_partition(text, passage_sentence_spans(text))


def sentences(text):
    return [text[s:e] for s, e in passage_sentence_spans(text)]


@pytest.mark.parametrize("text, expected", [
    ("Mr. Smith met Dr. J. R. Jones in the U.S. on Jan. 5. They talked.",
     ["Mr. Smith met Dr. J. R. Jones in the U.S. on Jan. 5.", "They talked."]),
    ("The pump moves 3.5 litres, e.g. enough. Yes! it works? Next one...",
     ["The pump moves 3.5 litres, e.g. enough.", "Yes! it works?", "Next one..."]),
    ('He said "Stop." Then he left.\n\n2. Second item\nno stop here',
     ['He said "Stop."', "Then he left.", "2. Second item", "no stop here"]),
    ("It lay on the floor. it is small. Apples, pears, etc. are fruit. Apple Inc. The end.",
     ["It lay on the floor.", "it is small.", "Apples, pears, etc. are fruit.", "Apple Inc.",
      "The end."]),
    ("It costs approx. five dollars incl. tax. Robert Downey Jr. , Anne Bancroft.",
     ["It costs approx. five dollars incl. tax.", "Robert Downey Jr. , Anne Bancroft."]),
    ("\u6771\u4eac\u306f\u9996\u90fd\u3067\u3059\u3002\u4eba\u53e3\u306f\u591a\u3044\u3002",
     ["\u6771\u4eac\u306f\u9996\u90fd\u3067\u3059\u3002", "\u4eba\u53e3\u306f\u591a\u3044\u3002"]),
])
def test_passage_sentence_boundaries(text, expected):
    assert sentences(text) == expected


def test_sentence_without_punctuation_is_cut_at_whitespace():
    text = "word " * 1000
    parts = sentences(text)
    assert len(parts) > 1 and all(len(p) <= MAX_SENTENCE_CHARS for p in parts)
    assert all(p.split() == ["word"] * len(p.split()) for p in parts)   # never inside a word


# The offline judge quotes whole sentences: an abbreviation, initial or decimal inside the
# supporting sentence must not cut it in two.
@pytest.mark.parametrize("claim, sentence", [
    ("Dr. Smith founded the clinic in 1990.",
     "In 1990 Dr. Smith founded the clinic on Main St. near the station."),
    ("J. R. R. Tolkien wrote The Hobbit in 1937.",
     "The Hobbit was written by J. R. R. Tolkien and published in 1937."),
    ("The pump delivers 3.5 litres per minute.",
     "At full speed the pump delivers approx. 3.5 litres per minute."),
])
def test_support_quote_is_the_whole_sentence(claim, sentence):
    filler = " ".join(f"Unrelated note {i} about shipping times." for i in range(50))
    passages = [{"id": "p1", "text": f"{filler} {sentence} {filler}"}]
    result = evaluate(claim, passages, OfflineJudge())
    [claim_result] = result.claims
    assert claim_result.label == "supported"
    assert sentence in claim_result.verdict.quote


# Lower-cased web text: a period before a lower-case word still ends the sentence, so a
# negation in the next sentence does not turn a supported claim into a contradicted one.
@pytest.mark.parametrize("claim, passage", [
    ("The cables are only 2.7 inches in diameter.",
     "The cables are only 2.7 inches in diameter. it is not easy to cut them at sea."),
    ("An average game has 11 minutes of live play.",
     "an average game has 11 minutes of live play. the rest is not action at all."),
    ("The bridge opened in 1937.",
     "the bridge opened in 1937. no other bridge was longer then."),
])
def test_period_before_lower_case_word_ends_the_sentence(claim, passage):
    [claim_result] = evaluate(claim, [{"id": "k1", "text": passage}], OfflineJudge()).claims
    assert claim_result.label == "supported"
    assert claim_result.verdict.quote == passage[:passage.index(". ") + 1]


# The pre-filter: the supporting window is found among many distractor passages, and a
# window the filter drops could never have reached a threshold.
@pytest.mark.parametrize("claim, evidence, label", [
    ("The Eiffel Tower was completed in 1889.",
     "Construction ended in March 1889, when the Eiffel Tower was completed.", "supported"),
    ("The battery lasts 12 hours.", "Its battery lasts 9 hours on a charge.", "contradicted"),
    ("Revenue rose 12 percent in 2019.", "In 2019 revenue rose 12%, the report said.",
     "supported"),
])
def test_verdict_found_among_many_passages(claim, evidence, label):
    distractors = [
        {"id": f"d{i}", "text": f"Store note {i}: the tower shop opens at {i % 12 + 1} pm. "
                                "Completed orders ship the next day."}
        for i in range(2000)
    ]
    passages = [*distractors[:1000], {"id": "hit", "text": evidence}, *distractors[1000:]]
    [claim_result] = evaluate(claim, passages, OfflineJudge()).claims
    assert claim_result.label == label
    assert claim_result.verdict.passage_ids == ["hit"]


VOCABULARY = [
    "tower", "towers", "completed", "complete", "flies", "fly", "study", "studies", "1889",
    "1,000", "1000", "thousand", "twelve", "12", "2.50", "2.5", "%", "percent", "per cent",
    "rpm", "speed", "kilometres per hour", "km/h", "hrs", "hour", "approx.", "U.S.",
    "United States", "not", "never", "Paris", "PARIS", "\u6771\u4eac", "\u6771", "_", "=",
    "\u2019s", "\uff11\uff12", "Dr.", ".", "!", "\n",
]
phrases = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phrases, st.lists(phrases, min_size=1, max_size=6).map(" ".join))
@example(claim="Paris Dr.", passage="tower tower Dr. . Paris")  # a stitched pair, not kept
@example(claim="12 thousand", passage="12 \n thousand")  # a number written across the break
def test_prefilter_keeps_every_window_that_could_matter(claim, passage):
    cf = text_features(claim)
    if not cf.content:
        return
    kept = set(candidate_windows(cf, passage))
    spans = evidence_spans(passage)
    n_sentences = (len(spans) + 1) // 2
    for k, (start, end) in enumerate(spans):
        if k >= n_sentences and stitches(cf, passage[slice(*spans[k - n_sentences])],
                                         passage[slice(*spans[k - n_sentences + 1])]):
            continue  # two sentences that would stitch the claim together are no window
        wf = text_features(passage[start:end], sentence_start_exempt=False)
        coverage = len(cf.content & wf.content) / len(cf.content)
        topic = len(cf.words & wf.words) / len(cf.words) if cf.words else 0.0
        if coverage >= SUPPORT_COVERAGE or topic >= TOPIC_COVERAGE:
            assert (start, end) in kept, passage[start:end]
    verdict = HeuristicVerifier().verify(claim, [Passage(id="p1", text=passage)])
    if verdict.quote is not None:
        assert verdict.quote in passage
