"""Text features and evidence spans: what the quote check and the offline judges read from a text.

``text_features(text)`` -> ``TextFeatures``: content words (stems), names, numbers with their
units, negation per clause part and scope, bounds and counts. ``evidence_spans(passage)``: the
one- and two-sentence windows of a passage a claim is read against. ``quantities`` and
``unmatched_quantities`` compare the numbers of two texts' features.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import (
    APPROXIMATE,
    BOUND_GAP,
    FORWARD_NEGATIONS,
    LOWER_BOUND,
    NEGATIONS,
    NUMBER_WORDS,
    RATE,
    SCOPE_ENDS,
    STOP_WORDS,
    UNIT_IMPLIES,
    UNITS,
    UPPER_BOUND,
)
from .quantities import (
    DIMENSIONS,
    HYPHENATED,
    NAME_BEFORE,
    PAIR,
    QUALIFIED_UNITS,
    clock_said,
    name_parts,
    read_clock_ranges,
    read_ranges,
    read_rates,
    same_amount,
    spelled_units,
    surface_form,
    unit_value,
)
from .text import passage_sentence_spans
from .words import (
    CJK_RUN,
    NUMBER_PATTERN,
    ORDINAL,
    TOKEN_PATTERN,
    canonical_number,
    fold_phrases,
    is_content,
    is_number_token,
    negates,
    stem_word,
)


@dataclass(frozen=True)
class TextFeatures:
    """What the quote check and the offline judges read from one text (``text_features``).

    Words are stems (``words.stem_word``), numbers canonical digits (``quantities.surface_form``:
    "two" and "2.0" are "2"), units as ``DIMENSIONS`` names them. Frozen and hashable; the
    fields after ``number_nouns`` have defaults so that a title or header can be merged in
    with ``dataclasses.replace``."""

    content: frozenset[str]   # stemmed content tokens, numbers included
    words: frozenset[str]     # content tokens that are not numbers
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]  # (number, one of the next two tokens)
    number_labels: frozenset[tuple[str, str]]  # those, and (number, the token before it)
    mandatory: frozenset[str]  # names and numbers that must be matched for support
    negated: bool
    polar: frozenset[tuple[str, bool]]  # (content word, whether its clause is negated)
    clauses: tuple[frozenset[str], ...]  # content words of each clause
    bounds: frozenset[tuple[str, str]]  # (number, "<=" or ">=") from "within 14", "more than 14"
    parts: tuple[frozenset[str], ...]  # content words of each comma-separated part of a clause
    number_nouns: frozenset[tuple[str, str]]  # (count, the content word right after it)
    #: (word, whether a negation governs it): every word of the text (stop words too, so that
    #: "always" / "rarely" can be opposed), negation read forward from an English negation
    #: word to the end of its clause part or to a preposition after the first word it
    #: governs ("Items bought on sale cannot be refunded": only "refunded" is negated);
    #: ``non-`` governs the next word only (joined: "non-refundable" is "nonrefundable");
    #: other languages' negations govern their whole part (``scoped_polarity``).
    scoped: frozenset[tuple[str, bool]] = frozenset()
    #: (content words, the content words in a negation's scope) of each negated clause part.
    negated_parts: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()
    #: (low, high) of each range ("3-5 days", "3 to 5", "between 3 and 5"; not years, not
    #: "from 3 to 5", a change): its ends are in ``bounds`` too, as "at least 3", "up to 5".
    ranges: frozenset[tuple[str, str]] = frozenset()
    #: The numbers the text states outside any range.
    loose: frozenset[str] = frozenset()
    #: (number, bound, the word after the number) of each bound of ``bounds`` a bound word
    #: states ("over a one-year span": ("1", ">=", "year")).
    bound_units: frozenset[tuple[str, str, str]] = frozenset()
    #: The numbers the text states at least once without a bound word before them.
    unbounded: frozenset[str] = frozenset()
    #: (first, second) of each pair of numbers joined by a hyphen or dash ("3-1", "3\u20135"):
    #: a score or result is ordered, "3-1" is not "1-3" (``_pair_problem``).
    pairs: frozenset[tuple[str, str]] = frozenset()
    #: (number, word, unit) where a word between a number and its unit qualifies the unit
    #: ("14 business days": ("14", "business", "day")).
    qualified: frozenset[tuple[str, str, str]] = frozenset()
    #: (first, second, joined) stems of each hyphenated pair of words ("water-proof":
    #: ("water", "proof", "waterproof")), read as the one word they join to.
    joined: frozenset[tuple[str, str, str]] = frozenset()
    #: ((number, unit), (number, unit)) of each range of clock times ("9 am to 5 pm",
    #: "9am-5pm", "from 9:00 to 17:00"): its ends are the opening and the closing time.
    clock_ranges: frozenset[tuple[tuple[str, str], tuple[str, str]]] = frozenset()
    #: The clock times (number, unit) the text states outside any range of clock times.
    loose_clocks: frozenset[tuple[str, str]] = frozenset()
    #: (number, stem of the word after per/a/each/every) of each rate ("$10 per user":
    #: ("10", "user"); "$10 per user per month": ("10", "user"), ("10", "month")).
    rates: frozenset[tuple[str, str]] = frozenset()
    #: The numbers an approximation from below bounds ("nearly 100": "100"; ``APPROXIMATE``).
    approximate: frozenset[str] = frozenset()


#: A negation scopes this many content words after it in its clause part ("may never walk
#: again after the accident in Portugal" negates "walk" and "again", not "Portugal").
NEGATION_SCOPE = 3


#: Where a clause ends, for negation scope and for what must be said together: sentence and
#: clause punctuation (not a decimal point or a thousands comma) and contrasting conjunctions.
PART_BREAK = re.compile(r"[,\uff0c](?!\d)|[()]")

CLAUSE_BREAK = re.compile(r"[;:!?\u3002\uff1b]|[.](?!\d)|\b(?:but|whereas|while|although|"
                          r"though|however|except|unlike|yet|whilst)\b"
                          r"|\n(?=[ \t]*\|)")  # each row of a Markdown table


def _bound(tokens: list[str], i: int) -> str | None:
    """``<=`` / ``>=`` when the words just before ``tokens[i]`` bound the number from above or
    below ("within 14", "more than 14"), else ``None``."""
    for n in (3, 2, 1):
        if i >= n:
            phrase = " ".join(tokens[i - n:i])
            if phrase in UPPER_BOUND:
                return "<="
            if phrase in LOWER_BOUND:
                return ">="
    for n in (2, 3):  # "within the next 10 days", "after the first 3 months"
        if i >= n and all(t in BOUND_GAP for t in tokens[i - n + 1:i]):
            if tokens[i - n] in UPPER_BOUND:
                return "<="
            if tokens[i - n] in LOWER_BOUND:
                return ">="
    if i >= 2 and tokens[i - 2] in ("maximum", "minimum"):  # a key: "max_users: 25"
        return "<=" if tokens[i - 2] == "maximum" else ">="
    return None


def scoped_polarity(tokens: list[str]) -> set[tuple[str, bool]]:
    """``(word, negated)`` for the tokens of one clause part (``TextFeatures.scoped``): stems of
    every word, numbers as written, CJK runs as their bigrams; negation words themselves are
    left out. A part whose negation governs no word after it ("the screen is not") is negated
    whole, as is a part negated in another language."""
    words = [t for t in tokens if t in NEGATIONS and t.isascii() or t.endswith("n't")]
    if any(negates(t) and t not in FORWARD_NEGATIONS and not t.endswith("n't")
           for t in tokens):
        return {(w, True) for w in _all_words([t for t in tokens if t not in words])}
    out: set[tuple[str, bool]] = set()
    negated = whole = False
    governs = 0  # content words the current negation governs so far
    skip = False
    for i, tok in enumerate(tokens):
        if skip:
            skip = False
            continue
        if negates(tok):
            negated, governs = True, 0
            whole = tok == "notthat"  # "it is not true that P": all of P
            continue
        if negated and not whole and (governs >= NEGATION_SCOPE
                                      or governs >= 2 and tok in SCOPE_ENDS):
            negated = False
        if tok == "non" and i + 1 < len(tokens) and not tokens[i + 1][0].isdigit():
            out.add((stem_word("non" + tokens[i + 1]), negated))
            skip = True
            continue
        for w in _all_words([tok]):
            out.add((w, negated))
            governs += negated and is_content(tok)
    if negated and not governs:
        return {(w, True) for w, _ in out}
    return out


def _all_words(tokens: list[str]) -> set[str]:
    """Every word of ``tokens`` as ``text_features`` reads it (stop words and negations kept)."""
    return clause_content(tokens, content_only=False)


def clause_content(tokens: list[str], *, content_only: bool = True) -> set[str]:
    """The words of ``tokens`` as ``text_features`` reads them: numbers normalised, CJK runs as
    character bigrams, other words stemmed; stop words and negations left out unless
    ``content_only`` is false."""
    out: set[str] = set()
    for tok in tokens:
        if is_number_token(tok):
            out.add(canonical_number(tok))
        elif CJK_RUN.fullmatch(tok):
            out.update(tok[j:j + 2] for j in range(max(1, len(tok) - 1)))
        elif not content_only or is_content(tok):
            out.add(stem_word(tok))
    for unit, implied in UNIT_IMPLIES.items():
        if unit in out:
            out.add(implied)
    return out


@lru_cache(maxsize=65536)
def text_features(text: str, *, sentence_start_exempt: bool = True) -> TextFeatures:
    """The ``TextFeatures`` of ``text`` (any length; cached, so call it freely).

    ``sentence_start_exempt``: the text's first word is no name for being capitalised (the
    default, for a claim); pass ``False`` for evidence, where every capitalised word counts."""
    norm = surface_form(text)
    raw_tokens = TOKEN_PATTERN.findall(norm)
    lower = spelled_units(fold_phrases(norm.lower()))
    tokens = [NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(lower)]
    negated = any(negates(t) for t in tokens)
    content: set[str] = set()
    numbers: set[str] = set()
    number_units: set[tuple[str, str]] = set()
    number_labels: set[tuple[str, str]] = set()
    for i, tok in enumerate(tokens):
        if is_number_token(tok):
            num = canonical_number(tok)
            numbers.add(num)
            content.add(num)
            for j in (i + 1, i + 2):  # "3 days", "3 business days"
                if j < len(tokens):
                    number_units.add((num, stem_word(tokens[j])))
                    if tokens[j] in RATE and j + 1 < len(tokens):  # "$20 per month"
                        number_units.add((num, stem_word(tokens[j + 1])))
            if i > 0:  # "max_rpm=3200"
                number_labels.add((num, stem_word(tokens[i - 1])))
            continue
        if CJK_RUN.fullmatch(tok):
            run = tok
            content.update(run[j:j + 2] for j in range(max(1, len(run) - 1)))
            continue
        if is_content(tok):
            content.add(stem_word(tok))
    # an acronym spelled like a stopword ("US", "IT", "AT&T") is a name, not "us" / "it"
    acronyms = {t.lower() for t in raw_tokens if len(t) > 1 and t.isalpha() and t.isupper()
                and t.lower() in STOP_WORDS}
    content |= acronyms
    mandatory: set[str] = set(numbers)
    for i, tok in enumerate(raw_tokens):
        if tok[0].isdigit() or CJK_RUN.fullmatch(tok):
            continue
        if sentence_start_exempt and i == 0:
            continue
        if tok.lower() in acronyms:
            mandatory.add(tok.lower())
        elif any(ch.isupper() for ch in tok) and tok.lower() not in STOP_WORDS:
            mandatory.update(name_parts(tok.lower()))
    for unit, implied in UNIT_IMPLIES.items():
        if unit in content:
            content.add(implied)
    words = frozenset(c for c in content if c not in numbers)
    clauses = []
    parts = []
    polar: set[tuple[str, bool]] = set()
    scoped: set[tuple[str, bool]] = set()
    negated_parts: list[tuple[frozenset[str], frozenset[str]]] = []
    bounds: set[tuple[str, str]] = set()
    bound_units: set[tuple[str, str, str]] = set()
    unbounded: set[str] = set()
    approximate: set[str] = set()
    for part in CLAUSE_BREAK.split(lower):
        ctoks = [NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(part)]
        if not ctoks:
            continue
        clauses.append(frozenset(clause_content(ctoks)))
        for sub in PART_BREAK.split(part):
            if stoks := [NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(sub)]:
                pcontent = clause_content(stoks)
                parts.append(frozenset(pcontent))
                # "it is not true that P" turns P's own negation round ("... cannot ...")
                pneg = any(negates(t) for t in stoks if t != "notthat") != ("notthat" in stoks)
                polar.update((w, pneg) for w in pcontent)
                sub_scoped = scoped_polarity(stoks)
                scoped.update(sub_scoped)
                if pneg:
                    negated_parts.append((frozenset(pcontent), frozenset(
                        w for w, neg in sub_scoped if neg and w in pcontent)))
        for i, tok in enumerate(ctoks):
            if is_number_token(tok) and (b := _bound(ctoks, i)):
                bounds.add((canonical_number(tok), b))
                bound_units.add((canonical_number(tok), b,
                                 stem_word(ctoks[i + 1]) if i + 1 < len(ctoks) else ""))
                if ctoks[i - 1] in APPROXIMATE or " ".join(ctoks[i - 2:i]) in APPROXIMATE:
                    approximate.add(canonical_number(tok))
            elif is_number_token(tok):
                unbounded.add(canonical_number(tok))
    number_nouns = set()
    measured = {n for n, u in number_units if u in UNITS}
    for m in _NUMBER_NOUN.finditer(norm):
        if NAME_BEFORE.search(norm, max(0, m.start() - 40), m.start()):
            continue  # a model number or the like: "Nimbus 4 covers"
        num = canonical_number(NUMBER_WORDS.get(m.group(1).lower(), m.group(1)))
        if ORDINAL.fullmatch(num):
            continue  # "23rd place" is no count of places
        if num not in measured and (word := _counted_word(m.group(2).lower())):
            number_nouns.add((num, word))
    ranges, loose = read_ranges(lower)
    bounds |= {(lo, ">=") for lo, _ in ranges} | {(hi, "<=") for _, hi in ranges}
    pairs = frozenset((canonical_number(a), canonical_number(b)) for a, b in PAIR.findall(lower)) \
        if "-" in lower or "\u2011" in lower or "\u2013" in lower or "\u2014" in lower \
        else frozenset()
    qualified = frozenset(
        (canonical_number(tok), stem_word(tokens[i + 1]), stem_word(tokens[i + 2]))
        for i, tok in enumerate(tokens[:-2]) if is_number_token(tok)
        and stem_word(tokens[i + 2]) in QUALIFIED_UNITS and is_content(tokens[i + 1])
        and not is_number_token(tokens[i + 1]) and tokens[i + 1] not in UNITS
        and tokens[i + 1] not in RATE and stem_word(tokens[i + 1]) not in UNITS)
    joined = frozenset((stem_word(a), stem_word(b), stem_word(a + b))
                       for a, b in HYPHENATED.findall(lower))
    # the low end of "3 to 5 days" counts days too
    number_units |= {(lo, u) for lo, hi in ranges for n, u in number_units
                     if n == hi and u in UNITS}
    clock_ranges, loose_clocks = read_clock_ranges(lower)
    return TextFeatures(frozenset(content), words, frozenset(numbers), frozenset(number_units),
                        frozenset(number_units | number_labels),
                        frozenset(mandatory & content | (mandatory & numbers)), negated,
                        frozenset(polar), tuple(clauses), frozenset(bounds),
                        tuple(parts), frozenset(number_nouns), frozenset(scoped),
                        tuple(negated_parts), ranges,
                        frozenset(numbers) if loose is None else loose, frozenset(bound_units),
                        frozenset(unbounded), pairs, qualified, joined, clock_ranges, loose_clocks,
                        read_rates(tokens), frozenset(approximate))


#: A number and the word right after it (a space or hyphen between, no punctuation):
#: "20 users", "2-year", "two seats".
_NUMBER_NOUN = re.compile(
    rf"(?<![\w.\u2024])({NUMBER_PATTERN}|{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})"
    r"(?:\s+|-)((?:(?![\d_])\w)+)", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _counted_word(word: str) -> str | None:
    """The stemmed content word ``text_features`` reads ``word`` as (after ``PHRASES``: "hrs" is
    "hour"), or ``None`` when it is a stop word, a negation or a number word."""
    tokens = TOKEN_PATTERN.findall(fold_phrases(word))
    if not tokens or tokens[0] in NUMBER_WORDS or tokens[0][0].isdigit() \
            or not is_content(tokens[0]):
        return None
    return stem_word(tokens[0])


@lru_cache(maxsize=4096)
def evidence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Character spans of one- and two-sentence windows of a passage: every sentence (from
    ``text.passage_sentence_spans``) in order, then every pair of neighbours in order."""
    spans = passage_sentence_spans(text)
    windows = list(spans)
    windows += [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
    return tuple(windows)


#: A Markdown table's delimiter row ("| --- | :---: |") and any row of one.
TABLE_DELIMITER = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")

_TABLE_ROW = re.compile(r"\s*\|.*\|\s*")


def table_headers(text: str, spans) -> dict[int, int]:
    """For each sentence (index into ``spans``) that is a row of a Markdown table's body, the
    index of its table's header row."""
    out: dict[int, int] = {}
    header = None
    for k, (start, end) in enumerate(spans):
        line = text[start:end]
        if TABLE_DELIMITER.fullmatch(line) and k > 0 and _TABLE_ROW.fullmatch(
                text[spans[k - 1][0]:spans[k - 1][1]]):
            header = k - 1
        elif header is not None and _TABLE_ROW.fullmatch(line):
            out[k] = header
        else:
            header = None
    return out


def quantities(f: TextFeatures) -> set[tuple[str, str]]:
    """(number, unit) pairs of a text whose unit is a known unit ("2 l", "3 day")."""
    return {(n, u) for n, u in f.number_units if u in UNITS}


def unmatched_quantities(cf: TextFeatures, wf: TextFeatures) -> set[tuple[str, str]]:
    """The claim's quantities that the window does not state with the same unit (after the
    number, or as its label just before it: "max_rpm=3200") nor as the same quantity in
    another unit ("0.8 kg" / "800 grams", ``unit_value``; "9:00" / "9 am", ``clock_said``):
    "holds 2 litres" is not supported by "1.7 litres ... a 2-year warranty", whose 2 counts
    years."""
    values = {unit_value(n, u) for n, u in wf.number_labels if u in DIMENSIONS}
    return {(n, u) for n, u in quantities(cf) - wf.number_labels
            if not clock_said(n, u, wf.number_labels) and not (u in DIMENSIONS and any(
                d == dim and same_amount(v, value) for d, v in values
                for dim, value in [unit_value(n, u)]))}
