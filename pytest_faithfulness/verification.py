"""Verification: one claim against the numbered passages -> one ``Verdict``.

Two things live here:

* ``check_verdict``: what any judge returns is checked before it is accepted. A cited passage
  id must exist and the quote must be a substantive span of that passage's text or title that
  shares content words with the claim (after whitespace normalisation); otherwise a
  ``supported`` or ``contradicted`` verdict is not accepted as given and becomes
  ``unsupported``, with the judge's own verdict and the reason kept beside it.
* ``HeuristicVerifier``: the offline judge's verifier. It is a cheap first filter, not natural
  language inference: content-word coverage of the claim by a one- or two-sentence window of a
  passage decides ``supported``; a window about the same thing with a different number (same
  unit) or the opposite polarity decides ``contradicted``; anything else is ``unsupported``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .records import Passage, Verdict
from .text import CJK_CLASS, normalize_ws, passage_sentence_spans, quote_in_passage

HEURISTIC_VERSION = "heuristic-2026.12-2"  # passage windows from passage_sentence_spans

#: Minimum share of the claim's content words that one evidence window must contain.
SUPPORT_COVERAGE = 0.75
#: Minimum share of the claim's non-numeric content words for a window to be "about the same
#: thing" when judging a number or polarity mismatch as a contradiction.
TOPIC_COVERAGE = 0.6


#: A quote that carries a ``supported`` or ``contradicted`` verdict holds at least this many
#: content words (stop words do not count, numbers do, CJK text counts in character bigrams)...
MIN_QUOTE_CONTENT_WORDS = 2
#: ... and at least this many of them are content words of the claim too.
MIN_QUOTE_SHARED_WORDS = 1


def check_verdict(verdict: Verdict, passages: list[Passage],
                  claim: str | None = None) -> tuple[Verdict, str | None]:
    """Accept a judge's verdict only if its evidence checks out.

    A ``supported`` or ``contradicted`` verdict is accepted as given when all of these hold:

    1. it cites at least one passage id, and every cited id is one of ``passages``;
    2. its quote occurs in the text or in the title of a cited passage (after whitespace
       normalisation, ``text.quote_in_passage``);
    3. the quote is substantive: it is the whole text or the whole title of that passage
       (a short passage is always quotable whole), or it holds at least
       ``MIN_QUOTE_CONTENT_WORDS`` content words of which at least
       ``MIN_QUOTE_SHARED_WORDS`` are content words of ``claim`` too. Content words are
       those of the offline verifier (stop words out, stems, numbers and number words as
       digits, units unified, CJK text as character bigrams), so "It costs $5." is carried by
       "$5 per month" but not by "$5", ".", "a" or one word.

    ``unsupported`` verdicts are accepted as they are.

    Args:
        verdict: the judge's verdict.
        passages: the passages the claim was verified against.
        claim: the claim the verdict is about; when ``None`` the quote is held to rules 1-3
            except the words shared with the claim.

    Returns:
        ``(accepted, reason)``. ``reason`` is ``None`` when the verdict is accepted as given;
        otherwise ``accepted`` is an ``unsupported`` verdict and ``reason`` says why (unknown
        passage id, missing quote, quote not found in the cited passages, quote too short or
        not about the claim).
    """
    if verdict.label == "unsupported":
        return verdict, None
    by_id = {p.id: p for p in passages}
    label = verdict.label
    if not verdict.passage_ids:
        reason = f"{label} verdict cites no passage id"
    else:
        unknown = [pid for pid in verdict.passage_ids if pid not in by_id]
        if unknown:
            reason = f"{label} verdict cites unknown passage id(s) {', '.join(unknown)}"
        elif not verdict.quote or not verdict.quote.strip():
            reason = f"{label} verdict gives no quote"
        else:
            reason = _quote_problem(verdict.quote, [by_id[pid] for pid in verdict.passage_ids],
                                    label, claim)
            if reason is None:
                return verdict, None
    return Verdict("unsupported", rationale=f"not accepted: {reason}"), reason


def _quote_problem(quote: str, cited: list[Passage], label: str,
                   claim: str | None) -> str | None:
    """Why ``quote`` cannot carry the verdict, or ``None`` when it can (rules 2 and 3)."""
    sources = [s for p in cited for s in (p.text, p.title) if s and quote_in_passage(quote, s)]
    ids = ", ".join(p.id for p in cited)
    if not sources:
        return f"{label} verdict's quote does not occur in passage(s) {ids}"
    whole = _bare(quote)
    if whole and any(_bare(source) == whole for source in sources):
        return None  # the whole passage (or its whole title)
    qf = _features(quote, sentence_start_exempt=False)
    if len(qf.content) < MIN_QUOTE_CONTENT_WORDS:
        return (f"{label} verdict's quote {_clip(quote)!r} is too short to carry evidence "
                f"({len(qf.content)} content word(s); needs {MIN_QUOTE_CONTENT_WORDS} or the "
                "whole passage)")
    if claim is not None:
        shared = qf.content & _features(claim, sentence_start_exempt=False).content
        if len(shared) < MIN_QUOTE_SHARED_WORDS:
            return (f"{label} verdict's quote {_clip(quote)!r} shares no content word with "
                    "the claim")
    return None


def _bare(text: str) -> str:
    """Whitespace-normalised, without the punctuation that may end or open a quote."""
    return normalize_ws(text).strip(" .,;:!?\"'()[]\u3002\uff0c")


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --------------------------------------------------------------------------------------------
# The offline heuristic verifier.

_STOP = frozenset(
    """a an the and or but if then than of to in on at by for from with within into onto over
    under about as is are was were be been being am do does did has have had having it its it's
    this that these those there here their they them he she his her we our you your i me my us
    which who whom whose what when where why how all any both each few more most other some such
    only own same so too very can could will would may might must should shall also just not no
    nor yet up out down off again further once s t ll re ve d m also currently typically usually
    generally normally often always sometimes around approximately about roughly nearly almost
    make sure please note ensure remember want need per via one's yes""".split()
)
_NEGATIONS = frozenset({"not", "no", "never", "n't", "without", "cannot", "none", "neither",
                        "nor", "nothing", "nobody", "unavailable", "doesn't", "isn't", "aren't",
                        "don't", "won't", "can't", "wasn't", "weren't", "didn't", "hasn't",
                        "haven't", "shouldn't", "mustn't"})
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "once": "1", "twice": "2", "single": "1",
    "double": "2", "triple": "3", "dozen": "12",
}
_PHRASES = (
    (re.compile(r"revolutions? per minute"), " rpm "),
    (re.compile(r"\bper ?cent\b|%"), " percent "),
    (re.compile(r"kilomet(?:re|er)s? per hour|km ?/ ?h\b|kph\b"), " kmh "),
    (re.compile(r"miles? per hour|\bmph\b"), " mph "),
    (re.compile(r"\bkilograms?\b|\bkilos?\b"), " kg "),
    (re.compile(r"\bmillimet(?:re|er)s?\b"), " mm "),
    (re.compile(r"\bcentimet(?:re|er)s?\b"), " cm "),
    (re.compile(r"\bkilomet(?:re|er)s?\b"), " km "),
    (re.compile(r"\bmet(?:re|er)s?\b"), " m "),
    (re.compile(r"\blit(?:re|er)s?\b"), " l "),
    (re.compile(r"\bdecibels?\b"), " db "),
    (re.compile(r"\bwatts?\b"), " w "),
    (re.compile(r"\bhrs?\b"), " hour "),
    (re.compile(r"\bmins?\b(?!imum)"), " minute "),
    (re.compile(r"\bsecs?\b"), " second "),
    (re.compile(r"\byrs?\b"), " year "),
    (re.compile(r"\bmax\b"), " maximum "),
    (re.compile(r"\bqty\b"), " quantity "),
    (re.compile(r"\bapprox\.?"), " approximately "),
    (re.compile(r"\bu\.s\.(?:a\.)?|\bunited states(?: of america)?\b|\busa\b"), " us "),
    (re.compile(r"\bu\.k\.|\bunited kingdom\b"), " uk "),
)
_CJK_CLASS = CJK_CLASS
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_TOKEN = re.compile(rf"\d+(?:\.\d+)?|[{_CJK_CLASS}]+|(?:(?![{_CJK_CLASS}])[^\W\d_])+(?:'t)?")
_UNITS = frozenset({"percent", "rpm", "kmh", "mph", "kg", "g", "mm", "cm", "km", "m", "l", "ml",
                    "db", "w", "wh", "kwh", "v", "hour", "minute", "second", "day", "week",
                    "month", "year", "gb", "mb", "tb", "ghz", "mhz", "hz", "lumen", "inch",
                    "foot", "feet", "lb", "pound", "dollar", "euro", "usd", "eur", "point",
                    "time", "people", "person", "page", "mile", "seat", "port", "level"})

#: A quantity's unit names the quantity ("3200 rpm" is a speed), so a passage that gives only
#: the unit still speaks to a claim that names the quantity.
_UNIT_IMPLIES = {"rpm": "speed", "kmh": "speed", "mph": "speed", "kg": "weight", "db": "noise",
                 "w": "power", "wh": "capacity", "kwh": "capacity", "lumen": "brightness"}


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


@dataclass(frozen=True)
class _Features:
    content: frozenset[str]   # stemmed content tokens, numbers included
    words: frozenset[str]     # content tokens that are not numbers
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]  # (number, one of the next two tokens)
    number_labels: frozenset[tuple[str, str]]  # those, and (number, the token before it)
    mandatory: frozenset[str]  # names and numbers that must be matched for support
    negated: bool


_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN_BREAKERS = re.compile(r"[_=]")


def _surface(text: str) -> str:
    """The text ``_features`` tokenises: NFKC, one apostrophe, no thousands commas, no ``_=``."""
    norm = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    return _TOKEN_BREAKERS.sub(" ", _THOUSANDS_COMMA.sub("", norm))


@lru_cache(maxsize=65536)
def _features(text: str, *, sentence_start_exempt: bool = True) -> _Features:
    norm = _surface(text)
    raw_tokens = _TOKEN.findall(norm)
    lower = norm.lower()
    for pattern, repl in _PHRASES:
        lower = pattern.sub(repl, lower)
    tokens = [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(lower)]
    negated = any(t in _NEGATIONS or t.endswith("n't") for t in tokens)
    content: set[str] = set()
    numbers: set[str] = set()
    number_units: set[tuple[str, str]] = set()
    number_labels: set[tuple[str, str]] = set()
    for i, tok in enumerate(tokens):
        if tok[0].isdigit():
            num = tok.rstrip("0").rstrip(".") if "." in tok else tok
            numbers.add(num)
            content.add(num)
            for j in (i + 1, i + 2):  # "3 days", "3 business days"
                if j < len(tokens):
                    number_units.add((num, _stem(tokens[j])))
            if i > 0:  # "max_rpm=3200"
                number_labels.add((num, _stem(tokens[i - 1])))
            continue
        if _CJK_RUN.fullmatch(tok):
            run = tok
            content.update(run[j:j + 2] for j in range(max(1, len(run) - 1)))
            continue
        if tok in _STOP or tok in _NEGATIONS or tok.endswith("n't") or len(tok) < 2 and tok not in "bcdefghjklmnpqrvwxyz":
            continue
        content.add(_stem(tok))
    mandatory: set[str] = set(numbers)
    for i, tok in enumerate(raw_tokens):
        if tok[0].isdigit() or _CJK_RUN.fullmatch(tok):
            continue
        if sentence_start_exempt and i == 0:
            continue
        if any(ch.isupper() for ch in tok) and tok.lower() not in _STOP:
            lowered = tok.lower()
            for pattern, repl in _PHRASES:
                lowered = pattern.sub(repl, lowered)
            for part in _TOKEN.findall(lowered):
                part = _NUMBER_WORDS.get(part, part)
                if part not in _STOP:
                    mandatory.add(_stem(part) if not part[0].isdigit() else part)
    for unit, implied in _UNIT_IMPLIES.items():
        if unit in content:
            content.add(implied)
    words = frozenset(c for c in content if c not in numbers)
    return _Features(frozenset(content), words, frozenset(numbers), frozenset(number_units),
                     frozenset(number_units | number_labels),
                     frozenset(mandatory & content | (mandatory & numbers)), negated)


@lru_cache(maxsize=4096)
def _windows(text: str) -> tuple[tuple[int, int], ...]:
    """Character spans of one- and two-sentence windows of a passage: every sentence (from
    ``text.passage_sentence_spans``) in order, then every pair of neighbours in order."""
    spans = passage_sentence_spans(text)
    windows = list(spans)
    windows += [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
    return tuple(windows)


#: Content words ``_features`` can produce from text that does not spell them: the words a
#: phrase is rewritten to ("percent" from "%", "hour" from "hrs") and the quantities a unit
#: implies ("speed" from "rpm"). Any window may hold them.
_DERIVED = frozenset({_stem(tok) for _, repl in _PHRASES for tok in _TOKEN.findall(repl)}
                     | set(_UNIT_IMPLIES.values()))
#: The number words ``_features`` reads as each number ("1": "one", "once", "single").
_DIGITS_OF_WORDS = {digits: tuple(w for w, d in _NUMBER_WORDS.items() if d == digits)
                    for digits in set(_NUMBER_WORDS.values())}


def _spellings(content_word: str) -> tuple[str, ...] | None:
    """Strings one of which a text's lower-cased ``_surface`` must contain for ``_features``
    to find ``content_word`` in it; ``None`` when it may appear in any text (``_DERIVED``).

    A stem is a prefix of the token it came from (``fly`` from ``flies``: all but the ``y``);
    a number is in its digits (``2.5`` in ``2.50``) or one of its number words."""
    if content_word in _DERIVED:
        return None
    if content_word[0].isdigit():
        return (content_word, *_DIGITS_OF_WORDS.get(content_word, ()))
    if len(content_word) > 1 and content_word.endswith("y"):
        return (content_word[:-1],)
    return (content_word,)


def _candidate_windows(claim: _Features, text: str) -> list[tuple[int, int]]:
    """The windows of ``text`` (``_windows``, same order) that may reach either threshold.

    A window matters to ``HeuristicVerifier.verify`` only if it covers at least
    ``SUPPORT_COVERAGE`` of the claim's content words or ``TOPIC_COVERAGE`` of its
    non-numeric ones. Before the costly ``_features`` of each window, this counts per sentence
    which claim words it may contain (``_spellings``, a plain substring test) and drops the
    windows whose count cannot reach either share. The test over-counts, never under-counts,
    so no window that could change a verdict is dropped.
    """
    windows = _windows(text)
    if not windows:
        return []
    bits = {word: 1 << i for i, word in enumerate(sorted(claim.content))}
    word_bits = sum(bits[w] for w in claim.words)
    always = 0
    probes = []
    for word, bit in bits.items():
        spellings = _spellings(word)
        if spellings is None:
            always |= bit
        else:
            probes.append((bit, spellings))
    n_content, n_words = len(claim.content), len(claim.words)

    def may_matter(mask: int) -> bool:
        if (mask.bit_count() / n_content) >= SUPPORT_COVERAGE:
            return True
        return bool(n_words) and (mask & word_bits).bit_count() / n_words >= TOPIC_COVERAGE

    n_sentences = (len(windows) + 1) // 2
    masks = []
    for start, end in windows[:n_sentences]:
        surface = _surface(text[start:end]).lower()
        mask = always
        for bit, spellings in probes:
            if any(s in surface for s in spellings):
                mask |= bit
        masks.append(mask)
    keep = [w for w, mask in zip(windows, masks) if may_matter(mask)]
    keep += [w for w, a, b in zip(windows[n_sentences:], masks, masks[1:]) if may_matter(a | b)]
    return keep


def _passage_windows(passage: Passage, claim: _Features):
    """The evidence windows of one passage for ``claim``: its title, when it has one, then the
    one- and two-sentence windows of its text that may reach a threshold
    (``_candidate_windows``)."""
    if passage.title is not None and passage.title.strip():
        yield passage.title.strip()
    text = passage.text
    for start, end in _candidate_windows(claim, text):
        yield text[start:end]


class HeuristicVerifier:
    """Offline verifier: content-word coverage plus number and polarity checks. Not NLI.

    ``verify(claim, passages)`` returns a ``Verdict``; ``supported`` and ``contradicted``
    verdicts carry the passage id and a verbatim quote (a one- or two-sentence window of the
    text, or the passage's title, which counts as one window of its own).
    Deterministic; no network, no model. Windows that cannot reach either threshold are
    skipped before they are scored (``_candidate_windows``), so the time grows with the
    passages' length at about 0.2 CPU seconds per MB (``benchmarks/passage_speed.py``).

    Raises:
        TypeError: ``claim`` is not a string.
    """

    version = HEURISTIC_VERSION

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Judge one claim against the passages (see the module docstring for the rules)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, got {type(claim).__name__}")
        cf = _features(claim)
        if not cf.content or not passages:
            return Verdict("unsupported", rationale="no passage speaks to this claim")
        best_support = None  # (coverage, -length, pid, quote)
        best_contra = None
        for passage in passages:
            for window in _passage_windows(passage, cf):
                wf = _features(window, sentence_start_exempt=False)
                covered = cf.content & wf.content
                coverage = len(covered) / len(cf.content)
                mandatory_missing = cf.mandatory - wf.content
                key = (coverage, -len(window))
                if not mandatory_missing and cf.negated == wf.negated \
                        and coverage >= SUPPORT_COVERAGE and not _unmatched_quantities(cf, wf):
                    if best_support is None or key > best_support[0]:
                        best_support = (key, passage.id, window)
                    continue
                topic = (len(cf.words & wf.words) / len(cf.words)) if cf.words else 0.0
                if topic < TOPIC_COVERAGE:
                    continue
                reason = _contradiction(cf, wf, coverage)
                if reason and (best_contra is None or (topic, key) > best_contra[0]):
                    best_contra = ((topic, key), passage.id, window, reason)
        if best_support is not None:
            _, pid, quote = best_support
            return Verdict("supported", passage_ids=[pid], quote=quote,
                           rationale=f"content-word coverage {best_support[0][0]:.2f}")
        if best_contra is not None:
            _, pid, quote, reason = best_contra
            return Verdict("contradicted", passage_ids=[pid], quote=quote, rationale=reason)
        return Verdict("unsupported", rationale="no passage window covers this claim")


def _quantities(f: _Features) -> set[tuple[str, str]]:
    """(number, unit) pairs of a text whose unit is a known unit ("2 l", "3 day")."""
    return {(n, u) for n, u in f.number_units if u in _UNITS}


def _unmatched_quantities(cf: _Features, wf: _Features) -> set[tuple[str, str]]:
    """The claim's quantities that the window does not state with the same unit (after the
    number, or as its label just before it: "max_rpm=3200"): "holds 2 litres" is not
    supported by "1.7 litres ... a 2-year warranty", whose 2 counts years."""
    return _quantities(cf) - wf.number_labels


def _contradiction(cf: _Features, wf: _Features, coverage: float) -> str | None:
    for number, unit in sorted(_unmatched_quantities(cf, wf)):
        other = sorted(n for n, u in _quantities(wf) if u == unit and n != number)
        if other:
            return (f"number mismatch: the claim says {number} {unit}, the passage says "
                    f"{', '.join(other)} {unit}")
    missing_numbers = cf.numbers - wf.numbers
    if missing_numbers and wf.numbers:
        claim_units = {u for n, u in cf.number_units if n in missing_numbers}
        window_units = {u for n, u in wf.number_units if n not in cf.numbers}
        shared = claim_units & window_units & _UNITS
        if shared or (not claim_units and wf.numbers - cf.numbers):
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
        if cf.words and len(cf.words & wf.words) == len(cf.words) and wf.numbers - cf.numbers:
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
    if cf.negated != wf.negated and coverage >= SUPPORT_COVERAGE:
        return "polarity mismatch: one side is negated"
    return None
