"""Claim-versus-window features for the calibrated offline judge (pure Python, no numpy).

``best_window(claim, passages, idf, default_idf)`` finds the best-aligned evidence window of the
passages (a sentence, or up to ``MAX_WINDOW_SENTENCES`` neighbouring sentences, of one
passage; or a passage's title) and describes how the claim stands against it, as a fixed vector
of numbers (``FEATURE_NAMES``, same order). Each feature catches one real thing:

* content-word coverage, plain and weighted by inverse document frequency (``idf``: rare
  words carry a claim, common ones do not), in the best window and in all passages together,
  and the weight of the most informative word the window lacks;
* numbers and quantities: whether the claim has any, whether the window states all of them
  with their units, or states another number in the same unit (``14 days`` against
  ``14 hours``, ``$5.99`` against ``$4.99``, ``10 business days`` against ``5``);
* polarity scoped to the window: a claim word negated on one side only, in any of the
  languages ``language.features`` reads negation in (English, German, French, Spanish, Chinese,
  Japanese);
* quantifiers: a claim that says ``all``/``every``/``any`` against a window that says
  ``only``, and a restricting word (``only``, ``exclusively``) the window does not state;
* names present or absent; word order of the shared words (who did what to whom: "the store
  refunds the customer" against "the customer refunds the store");
* the heuristic verifier's own verdict on the same claim, as two indicators.

The best window is one whose words can pass the quote check for ``supported``
(``trust.quote_check.check_verdict``) when any can, then the one with the highest idf-weighted
coverage of the claim's content words (``language.features`` tokenisation, so units, currencies
and number words are read the same way everywhere), then the shortest. Windows are single
sentences, titles, and runs of up to ``MAX_WINDOW_SENTENCES`` neighbouring sentences that
start and end on a sentence holding a claim word, so the quote is always verbatim; a
Markdown table's body row is read with its header row on its own (no run spans two rows; a
yes/no cell answers its column: ``trust.evidence.table_readings``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from ...language.features import TextFeatures, text_features, unmatched_quantities
from ...language.lexicon import FILLERS
from ...language.quantities import surface_form
from ...language.text import passage_sentence_spans
from ...language.words import TOKEN_PATTERN, fold_phrases, is_content, stem_word
from ...records import Passage
from ...trust.evidence import table_readings
from ...trust.quote_check import QUOTE_CLAIM_COVERAGE
from .heuristic import (
    TOPIC_COVERAGE,
    HeuristicVerifier,
    contradiction,
    flipped_words,
    opposite_pairs,
    said_otherwise,
    statement_problem,
    stitches,
    with_title,
)

#: The names of the features, in the order of ``WindowMatch.features``.
FEATURE_NAMES = (
    "wcov_window", "cov_window", "wcov_all", "missing_max_idf", "n_missing_log",
    "names_missing_window", "names_missing_all", "has_numbers", "numbers_in_window",
    "number_mismatch", "polarity_flip", "claim_negated", "window_negated",
    "quantifier_clash", "restrictor_unstated", "order_agreement", "claim_len_log",
    "window_extra", "two_sentences", "heuristic_supported", "heuristic_contradicted",
    "bigram_cov",
)

#: Words that make a claim universal, and words that restrict a statement to some cases.
UNIVERSAL = frozenset({"all", "every", "any", "always", "each", "everyone", "everything",
                       "everywhere", "unlimited", "whole", "entire"})
RESTRICTIVE = frozenset({"only", "exclusively", "solely", "just", "except", "excluding",
                         "limited", "some", "certain", "select", "selected"})

_HEURISTIC = HeuristicVerifier()
#: The longest run of neighbouring sentences one window may span.
MAX_WINDOW_SENTENCES = 4
#: Share of the claim's non-numeric content words a window must hold to show a number or
#: polarity mismatch (as ``heuristic.TOPIC_COVERAGE``).
TOPIC = TOPIC_COVERAGE


@dataclass(frozen=True)
class WindowMatch:
    """The best-aligned window of the passages for one claim.

    Attributes:
        passage_id: the id of the passage it comes from.
        quote: the window's text, verbatim from the passage (text or title).
        features: the feature vector (``FEATURE_NAMES`` order).
        heuristic_label: the heuristic verifier's label for the claim.
        contradiction_reason: the number or polarity mismatch the window shows, if any.
        quantity_problem: why the window does not state the claim's quantities as the claim
            does (a number with another unit, a bound, a count), if it does not.
    """

    passage_id: str | None
    quote: str | None
    features: tuple[float, ...]
    heuristic_label: str
    contradiction_reason: str | None
    quantity_problem: str | None = None
    role_swap: bool = False
    short_claim_gap: str | None = None
    coverage_gap: str | None = None


@lru_cache(maxsize=65536)
def _sequence(text: str) -> tuple[str, ...]:
    """The content words of ``text`` in order (stems, numbers as digits), for word order."""
    lower = fold_phrases(surface_form(text).lower())
    return tuple(tok if tok[0].isdigit() else stem_word(tok)
                 for tok in TOKEN_PATTERN.findall(lower) if tok[0].isdigit() or is_content(tok))


@lru_cache(maxsize=65536)
def _raw_words(text: str) -> frozenset[str]:
    return frozenset(TOKEN_PATTERN.findall(surface_form(text).lower()))


def _order_agreement(claim_seq: tuple[str, ...], window_seq: tuple[str, ...]) -> float:
    """Share of pairs of shared words that come in the same order on both sides (1.0 when
    fewer than two words are shared)."""
    first_w: dict[str, int] = {}
    for i, w in enumerate(window_seq):
        first_w.setdefault(w, i)
    order = []
    seen = set()
    for w in claim_seq:
        if w in first_w and w not in seen:
            seen.add(w)
            order.append(first_w[w])
    pairs = agree = 0
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            pairs += 1
            agree += order[i] < order[j]
    return agree / pairs if pairs else 1.0


def _bigrams(seq: tuple[str, ...]) -> set[tuple[str, str]]:
    return set(pairwise(seq))


def _weight(words, idf: dict[str, float], default: float) -> float:
    """The summed rarity of ``words``; ``math.fsum`` so that the result does not depend on the
    set's iteration order (string hashing differs between processes), and ties between
    windows break the same way in every run."""
    return math.fsum(idf.get(w, default) for w in words)


def _windows_of(passage: Passage
                ) -> tuple[list[tuple[str, bool, int | None]], list[tuple[int, int]]]:
    """The title and sentences of a passage as ``(text, False, sentence index or None)``, and
    the sentence spans."""
    out: list[tuple[str, bool, int | None]] = []
    if passage.title is not None and passage.title.strip():
        out.append((passage.title.strip(), False, None))
    text = passage.text
    spans = passage_sentence_spans(text)
    for k, (s, e) in enumerate(spans):
        out.append((text[s:e], False, k))
    return out, spans


def best_window(claim: str, passages: list[Passage], idf: dict[str, float],
                default_idf: float) -> WindowMatch:
    """The best window of ``passages`` for ``claim`` and the features of the pair.

    Args:
        claim: the claim text.
        passages: the passages to judge it against (title and text of each).
        idf: inverse document frequency per content word (``language.words.stem_word`` stems).
        default_idf: the weight of a word ``idf`` does not list (rare).

    Returns:
        A ``WindowMatch``; with no passage or no content word its quote is ``None`` and the
        features describe an empty window.
    """
    cf = text_features(claim)
    heuristic = _HEURISTIC.verify(claim, passages)
    content = cf.content
    total = _weight(content, idf, default_idf) or 1.0
    # ((quotable, weighted coverage, -len), pid, text, wf or None, is_run)
    best: tuple[tuple[bool, float, int], str, str, TextFeatures | None, bool] | None = None
    union: set[str] = set()

    def key(covered: frozenset[str] | set[str], text: str) -> tuple[bool, float, int]:
        return (_quotable(cf, covered), _weight(covered, idf, default_idf), -len(text))

    for passage in passages:
        windows, spans = _windows_of(passage)
        # a Markdown table's body row is read with its header, on its own ("SSO: No" is "not
        # SSO"; no run of rows stitches one row's name to another's value)
        rows = table_readings(passage.text, spans) if "|" in passage.text else {}
        sent_feats = []
        title_f = None
        for text, _, k in windows:
            wf = text_features(rows.get(k, text) if k is not None else text,
                               sentence_start_exempt=False)
            if k is None:
                title_f = wf
            else:
                wf = with_title(cf, wf, title_f)
            union |= wf.content
            if k is not None:
                sent_feats.append(wf)
            rank = key(content & wf.content, text)
            if best is None or rank > best[0]:
                best = (rank, passage.id, text, wf, False)
        # Runs of up to MAX_WINDOW_SENTENCES neighbouring sentences that start and end on a
        # sentence holding a claim word (ranked on the union of their sentences' words).
        for k in range(len(sent_feats)):
            covered = content & sent_feats[k].content
            if not covered:
                continue
            for j in range(k + 1, min(k + MAX_WINDOW_SENTENCES, len(sent_feats))):
                if j in rows or j - 1 in rows or stitches(
                        cf, passage.text[slice(*spans[j - 1])], passage.text[slice(*spans[j])]):
                    break  # no run stitches the claim together from two things
                more = content & sent_feats[j].content
                if not more - covered:
                    continue
                covered = covered | more
                text = passage.text[spans[k][0]:spans[j][1]]
                rank = key(covered, text)
                assert best is not None  # sentence k, holding a claim word, was ranked above
                if rank > best[0]:
                    best = (rank, passage.id, text, title_f, True)
    if best is not None and best[4]:
        best = (*best[:3], with_title(cf, text_features(best[2], sentence_start_exempt=False),
                                      best[3]), best[4])
    if best is None or not content:
        feats = [0.0] * len(FEATURE_NAMES)
        feats[FEATURE_NAMES.index("claim_len_log")] = math.log1p(len(content))
        feats[FEATURE_NAMES.index("order_agreement")] = 1.0
        feats[FEATURE_NAMES.index("names_missing_window")] = 1.0 if cf.mandatory else 0.0
        feats[FEATURE_NAMES.index("names_missing_all")] = 1.0 if cf.mandatory else 0.0
        return WindowMatch(None, None, tuple(feats), heuristic.label, None)
    _, pid, quote, best_wf, is_pair = best
    assert best_wf is not None  # a run's features were read with its title above
    wf = best_wf
    return WindowMatch(pid, quote, tuple(_vector(claim, cf, quote, wf, is_pair, union, idf,
                                               default_idf, total, heuristic.label)),
                     heuristic.label, _mismatch(cf, wf), _quantity_problem(cf, wf),
                     _role_swap(claim, quote), _short_claim_gap(cf, wf), _coverage_gap(cf, wf))


#: A claim of at most this many content words must find every one of them (fillers aside)
#: in the window: one missing word there is a qualifier the passage does not state
#: ("paid in cash" against "paid to the original card").
SHORT_CLAIM_WORDS = 4


def _short_claim_gap(cf: TextFeatures, wf: TextFeatures) -> str | None:
    if len(cf.content) > SHORT_CLAIM_WORDS:
        return None
    if missing := sorted(cf.content - wf.content - said_otherwise(cf, wf) - FILLERS):
        return f"the passage does not say {', '.join(missing)}"
    return None


def _role_swap(claim: str, quote: str) -> bool:
    """Whether the window states the claim's words with two of them trading places across a
    third ("the store refunds the customer" against "the customer refunds the store"), in an
    active sentence on both sides (no "by")."""
    if "by" in _raw_words(claim) or "by" in _raw_words(quote):
        return False
    c_seq, w_seq = _sequence(claim), _sequence(quote)
    shared = set(c_seq) & set(w_seq)
    c = list(dict.fromkeys(w for w in c_seq if w in shared))
    first: dict[str, int] = {}
    for i, w in enumerate(w_seq):
        first.setdefault(w, i)
    order = sorted(c, key=first.__getitem__)
    diff = [i for i, (a, b) in enumerate(zip(c, order)) if a != b]
    return (len(c) >= 3 and len(diff) == 2 and diff[1] - diff[0] >= 2
            and c[diff[0]] == order[diff[1]] and c[diff[1]] == order[diff[0]])


#: Units of time: the same number in another of these is another duration ("14 days" is not
#: "14 hours").
TIME_UNITS = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})


def _quantity_problem(cf: TextFeatures, wf: TextFeatures) -> str | None:
    """The heuristic's rules on what a window states (``heuristic.statement_problem``):
    each quantity with its unit, each bound ("within 14") and count ("20 users") as the
    claim states it, each number with the name the claim ties it to, and negation."""
    return statement_problem(cf, wf)


def _coverage_gap(cf: TextFeatures, wf: TextFeatures) -> str | None:
    """Why the window holds too little of the claim for this word-level judge to support it
    (``_quotable``: a name or number missing, or under ``QUOTE_CLAIM_COVERAGE`` of the content
    words), or ``None``. The judge's own floor: it reads word overlap, not meaning, so a claim
    with a part no window word speaks to ("ships with a descaling kit") is not supported."""
    covered = cf.content & wf.content | said_otherwise(cf, wf)
    if _quotable(cf, covered):
        return None
    if missing := sorted(cf.mandatory - covered):
        return f"the window does not state {', '.join(missing)}"
    return (f"the window holds {len(covered)} of the claim's {len(cf.content)} content "
            "words")


def _quotable(cf: TextFeatures, covered) -> bool:
    """Whether a window holding the claim words ``covered`` can pass the quote check's word
    rules for ``supported`` (``trust.quote_check.check_verdict``: every name and number, and
    ``QUOTE_CLAIM_COVERAGE`` of the content words, all but one of three or fewer)."""
    n = len(cf.content)
    if not n or cf.mandatory - covered:
        return False
    return len(covered) >= (QUOTE_CLAIM_COVERAGE * n if n > 3 else n - 1)


def _mismatch(cf: TextFeatures, wf: TextFeatures) -> str | None:
    """The heuristic's number or polarity mismatch between claim and window, only when the
    window is about the same thing (``TOPIC`` of the claim's non-numeric words)."""
    if not cf.words or len(cf.words & wf.words) / len(cf.words) < TOPIC:
        return None
    for number, unit in sorted(unmatched_quantities(cf, wf)):
        if unit in TIME_UNITS:
            other = sorted(u for n, u in wf.number_units if n == number and u in TIME_UNITS
                           and u != unit and (n, unit) not in wf.number_units)
            if other:
                return (f"unit mismatch: the claim says {number} {unit}, the passage says "
                        f"{number} {other[0]}")
    return contradiction(cf, wf, _coverage(cf, wf))


def _coverage(cf: TextFeatures, wf: TextFeatures) -> float:
    return (len(cf.content & wf.content | said_otherwise(cf, wf)) / len(cf.content)
            if cf.content else 0.0)


def _vector(claim: str, cf: TextFeatures, quote: str, wf: TextFeatures, is_pair: bool,
            union: set[str], idf: dict[str, float], default_idf: float, total: float,
            heuristic_label: str) -> list[float]:
    content = cf.content
    missing = content - wf.content
    names = cf.mandatory - cf.numbers
    c_raw, w_raw = _raw_words(claim), _raw_words(quote)
    c_seq, w_seq = _sequence(claim), _sequence(quote)
    c_bi = _bigrams(c_seq)
    flipped = flipped_words(cf, wf) or opposite_pairs(cf, wf)
    mismatch = _mismatch(cf, wf) or ""
    return [
        _weight(content & wf.content, idf, default_idf) / total,
        _coverage(cf, wf),
        _weight(content & union, idf, default_idf) / total,
        max((idf.get(w, default_idf) for w in missing), default=0.0) / default_idf,
        math.log1p(len(missing)),
        len(names - wf.content) / len(names) if names else 0.0,
        len(names - union) / len(names) if names else 0.0,
        1.0 if cf.numbers else 0.0,
        1.0 if cf.numbers and not (cf.numbers - wf.numbers) and not unmatched_quantities(cf, wf)
        else 0.0,
        1.0 if mismatch.startswith("number mismatch") else 0.0,
        1.0 if flipped else 0.0,
        1.0 if cf.negated else 0.0,
        1.0 if wf.negated else 0.0,
        1.0 if (c_raw & UNIVERSAL) and (w_raw & RESTRICTIVE) and not (c_raw & RESTRICTIVE)
        else 0.0,
        1.0 if (c_raw & RESTRICTIVE) and not (w_raw & RESTRICTIVE) else 0.0,
        _order_agreement(c_seq, w_seq),
        math.log1p(len(content)),
        len(wf.content - content) / max(len(wf.content), 1),
        1.0 if is_pair else 0.0,
        1.0 if heuristic_label == "supported" else 0.0,
        1.0 if heuristic_label == "contradicted" else 0.0,
        len(c_bi & _bigrams(w_seq)) / len(c_bi) if c_bi else 1.0,
    ]
