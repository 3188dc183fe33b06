"""Quote-check rules on names: a quote stating a rival name, subject or date in the claim's slot.

Used by ``trust.quote_check.check_verdict``; each rule returns the word at fault or ``None``.
"""

from __future__ import annotations

import re

from ..language.features import CLAUSE_BREAK, PART_BREAK, text_features
from ..language.lexicon import (
    AFTER_SUBJECT,
    CLAIM_OPENERS,
    COORDINATORS,
    DETERMINERS,
    DISCOURSE,
    FILLERS,
    NUMBER_WORDS,
    PREPOSITIONS,
    RIDER_ENDS,
    STOP_WORDS,
)
from ..language.quantities import surface_form
from ..language.text import is_common_word
from ..language.words import LETTERS, is_content, is_stated, stem_word

SLOT_TOKEN = re.compile(r"[^\W_][\w'-]*|[^\w\s]")


def _capitalised_runs(tokens: list[str], opening: bool) -> list[tuple[int, int]]:
    """The ``(start, end)`` token spans of the names among ``tokens`` (``SLOT_TOKEN``): runs
    of capitalised words, no stop word; one at the first token only when ``opening``."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok[:1].isupper() and tok.lower() not in STOP_WORDS and (i or opening):
            j = i
            while (j < len(tokens) and tokens[j][:1].isupper()
                   and tokens[j].lower() not in STOP_WORDS):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def _name_runs(text: str, opening: bool) -> list[tuple[tuple[str, ...], str | None]]:
    """The names of ``text`` (runs of capitalised words, no stop word; the first word of the
    text only when ``opening``), each with the stemmed content word right after it (``None``
    at a punctuation mark, a stop word, a preposition or the end), a name joined by
    "and"/"or"/a comma to the next one taking that one's word ("Pro and Enterprise plans": both
    "plan")."""
    tokens = SLOT_TOKEN.findall(surface_form(text))
    runs = [([t.lower() for t in tokens[i:j]], j) for i, j in _capitalised_runs(tokens, opening)]
    out: list[tuple[tuple[str, ...], str | None]] = []
    for k, (words, end) in enumerate(runs):
        at = end
        while at < len(tokens) and tokens[at].lower() in COORDINATORS and k + 1 < len(runs) \
                and runs[k + 1][1] - len(runs[k + 1][0]) == at + 1:
            k += 1
            at = runs[k][1]
        nxt = tokens[at].lower() if at < len(tokens) and tokens[at][:1].isalpha() else None
        if nxt and (not is_content(nxt) or nxt in CLAIM_OPENERS or nxt in PREPOSITIONS
                    or nxt in RIDER_ENDS):
            nxt = None  # "UK with", "Baugh of", "Stoke City despite": no slot word
        out.append((tuple(words), stem_word(nxt) if nxt else None))
    return out


def slot_rival(claim: str, units: list[str], opening: set[str]) -> str | None:
    """A name of the claim whose place in what the claim says (the word right after it:
    "Pro plan", "Alice Grant wrote") another name holds in the evidence sentence that states
    the rest of the claim, while no evidence sentence states the claim's name there with that
    rest: "The Pro plan includes SSO" stitched from "The Pro plan costs $20" and "The
    Enterprise plan includes SSO"; "Alice Grant wrote the report" from "Alice Grant said that
    Bob Lee wrote the report". The rival has as many words as the claim's name and shares no
    word with the claim. ``units`` are the sentences around each quote. ``None`` when no name
    of the claim is so replaced."""
    claim_runs = [(w, f) for w, f in _name_runs(claim, bool(opening)) if f]
    if not claim_runs:
        return None
    cf = text_features(claim)
    named = {stem_word(t) for w, _ in claim_runs for t in w} | set(opening)
    for words, follow in claim_runs:
        rest = {w for w in cf.content - cf.numbers - named - FILLERS
                if w != follow}
        if not rest:
            continue
        holders, rivals = False, []
        for unit in units:
            ucontent = text_features(unit, sentence_start_exempt=False).content
            if not all(is_stated(w, ucontent) for w in rest):
                continue
            for run, f in _name_runs(unit, True):
                if f != follow:
                    continue
                if run == words:
                    holders = True
                elif len(run) == len(words) and not {stem_word(t) for t in run} & cf.content:
                    rivals.append(" ".join(run))
        if rivals and not holders:
            return (f"states {rivals[0]} where the claim says {' '.join(words)} (the sentence "
                    "that states the rest of the claim names another in its place)")
    return None


def subject_run(tokens: list[str], names: frozenset[str]) -> tuple[frozenset[str], int] | None:
    """The name opening ``tokens`` (``SLOT_TOKEN`` tokens of a clause), after determiners:
    its stemmed words with the numbers and codes after it ("Pico 2") and the index of the
    token after it; ``None`` when the clause opens with no name. A capitalised common word
    opening the clause with no determiner before it ("Refunds are ...") is a name only when
    ``names`` holds it."""
    i = 0
    while i < len(tokens) and tokens[i].lower() in DETERMINERS:
        i += 1
    runs = [r for r in _capitalised_runs(tokens, True) if r[0] == i]
    if not runs:
        return None
    start, end = runs[0]
    words, end = _name_with_codes(tokens, start, end)
    if not i and end - start == 1 and tokens[start].lower() in CLAIM_OPENERS:
        return None
    if not i and end - start == 1 and is_common_word(tokens[start]) and not words <= names:
        return None
    return words, end


def subject_rival(claim: str, units: list[str], opening: set[str]) -> str | None:
    """The claim's subject name taken from one clause while the clause that states what the
    claim says of it is about another named thing: "The Pico 2 is waterproof." from "The Pico
    2 weighs 800 g. The Vela lamp is waterproof.", or from "Unlike the Pico 2, the Vela lamp
    is waterproof."; "The Basic plan includes SSO." from "The Pro plan includes SSO, whereas
    the Basic plan has only password login." Unlike ``slot_rival`` the rival need not share
    the word after it ("Pico 2" / "Vela lamp"). The claim's predicate is its content words
    but the subject name and the word right after it (a head noun: "plan", "lamp"); every
    evidence clause part (``units`` split at clause and part breaks) that states all of it
    opens with another name, and none states it with the claim's name. ``None`` otherwise."""
    tokens = SLOT_TOKEN.findall(surface_form(claim))
    cf = text_features(claim)
    subject = subject_run(tokens, cf.mandatory | frozenset(opening))
    if subject is None:
        return None
    words, end = subject
    if not all(w[:1].isdigit() or w in cf.mandatory or w in opening for w in words):
        return None
    head = {stem_word(tokens[end].lower())} if end < len(tokens) and tokens[end][:1].islower() \
        else set()
    predicate = cf.content - words - head - FILLERS - DISCOURSE
    if not predicate:
        return None
    holders, rivals = False, []
    for unit in units:
        for clause in CLAUSE_BREAK.split(surface_form(unit)):
            for part in PART_BREAK.split(clause or ""):
                pc = text_features(part, sentence_start_exempt=False).content
                if not all(is_stated(w, pc) for w in predicate):
                    continue
                if all(w in pc or is_stated(w, pc) for w in words):
                    holders = True
                    continue
                ptoks = SLOT_TOKEN.findall(part)
                other = subject_run(ptoks, frozenset())
                if other and not other[0] & (words | cf.content):
                    rivals.append(" ".join(ptoks[:other[1]]).strip())
    if rivals and not holders:
        return (f"states what the claim says of {' '.join(tokens[end - len(words):end])} "
                f"of {rivals[0]!r} (the clause that says it is about another name)")
    return None


_DATE_WORD = re.compile(r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|"
                        r"February|March|April|May|June|July|August|September|October|"
                        r"November|December)")

_DATE_ON = re.compile(r"\bon (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                      r"january|february|march|april|may|june|july|august|september|october|"
                      r"november|december)\b")

_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9\u00c0-\u024f'\u2019-]+")


def date_word_problem(claim: str, evidence: str) -> str | None:
    """A day or month word and a name trading places (a ``swap`` of the mutants):

    - the claim uses a day or month as a name, after a determiner ("an Thursday nursing
      home", "its July project") or as the subject opening the claim ("Friday said"), not
      followed by a number ("the November 2015 expedition") and not so written in the
      evidence;
    - the claim says "on NAME" (a capitalised word, not a day or month, not followed by one:
      "on Good Friday") where the evidence writes the name but never "on NAME", and says "on"
      a day or month ("massacre on Oliveira" against "went on the run Tuesday ... Oliveira").

    ``evidence`` is the quotes with their sentences and titles. Returns the reason, or
    ``None``."""
    tokens = _PLAIN_TOKEN.findall(claim)
    low = " ".join(_PLAIN_TOKEN.findall(evidence)).lower()
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1].lower() if i else ""
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if _DATE_WORD.fullmatch(tok) and not nxt[:1].isdigit():
            as_name = prev in DETERMINERS or (
                not prev and nxt[:1].islower() and nxt not in AFTER_SUBJECT)
            written = f"{prev} {tok}" if prev else f"{tok} {nxt}"
            if as_name and written.lower() not in low:
                return (f"does not state the claim's {tok} as the claim uses it (a day or "
                        "month word where the claim needs a name)")
        if (prev == "on" and tok[:1].isupper() and not _DATE_WORD.fullmatch(tok)
                and not _DATE_WORD.fullmatch(nxt) and tok.lower() in low.split()
                and f"on {tok.lower()}" not in low and _DATE_ON.search(low)):
            return (f"does not state 'on {tok}' (the evidence says 'on' a day or month, "
                    f"and names {tok} elsewhere)")
    return None


#: A joined item that says something of its own: it opens with a verb ("ships from Ohio",
#: "is made in Germany"), not a noun of a list or an appositive ("known only as Xu").
VERB_ITEM = re.compile(r"\s*(?:(?:also|now|then|still|it|they|he|she)\s+)?(?:is|are|was|were|has|"
                       r"have|had|will|can|does|do|did|ships?|comes?|includes?|offers?|"
                       r"costs?|runs?|uses?|makes?|gets?|takes?|[a-z]+s\b(?=\s+(?:from|in|"
                       r"to|with|on|at|by|for)\b))")


#: A subject joined to the claim's own: "Refunds and exchanges take 14 days." (the first
#: word of a claim joined by "and"/"or" to the next) and a trailing "..., and exchanges too",
#: "..., as are exchanges", "... along with a gift".
_JOINED_SUBJECT = re.compile(r"^\s*(?:the |all |both )?(\w+) (?:and|or|&) (?:the )?(\w+)\b")

_TRAILING_ADDITION = re.compile(
    r"(?:,? (?:and|as well as|along with|together with|plus) (?:the |a |an |all )?(\w+) too"
    r"|, as (?:are|is|do|does|were|was|will|can) (?:the |all )?(\w+)"
    r"|,? (?:along|together) with (?:a |an |the )?(\w+(?: \w+)?))\s*[.!]?\s*$")


def added_subject(claim: str, stated: frozenset[str]) -> str | None:
    """The word of a subject the claim joins to the one the evidence speaks of, when the
    evidence states it nowhere: "exchanges" of "Refunds and exchanges take 14 days." or of
    "..., and exchanges too" against "Refunds take 14 days.". ``None`` when there is none."""
    low = claim.lower()
    found = []
    if m := _JOINED_SUBJECT.match(low):
        found += [m.group(1), m.group(2)]
    if m := _TRAILING_ADDITION.search(low):
        found += [w for g in m.groups() if g for w in g.split()]
    for word in found:
        if word in STOP_WORDS or not is_content(word):
            continue
        stem = stem_word(NUMBER_WORDS.get(word, word))
        if not stem[0].isdigit() and not is_stated(stem, stated):
            return word
    return None


def name_entities(text: str) -> list[frozenset[str]]:
    """The stemmed words of each name of ``text`` (``_capitalised_runs``, the first word
    included), with the numbers and codes right after it ("Pico 2", "Series 4")."""
    tokens = SLOT_TOKEN.findall(surface_form(text))
    return [_name_with_codes(tokens, i, j)[0] for i, j in _capitalised_runs(tokens, True)]


def _name_with_codes(tokens: list[str], start: int, end: int) -> tuple[frozenset[str], int]:
    """The name ``tokens[start:end]`` (a ``_capitalised_runs`` span) with the numbers and
    codes right after it ("Pico 2", "Series 4"): its stemmed words (numbers as written) and
    the index of the token after it."""
    while end < len(tokens) and any(c.isdigit() for c in tokens[end]):
        end += 1
    return frozenset(stem_word(t.lower()) if not t[0].isdigit() else t.lower()
                     for t in tokens[start:end]), end


def _names_after_words(text: str) -> dict[str, set[str]]:
    """The names of ``text`` (``_capitalised_runs``) by the content word right before them,
    lower-cased: ``{"coach": {"Ana Ruiz"}}``. A name after a punctuation mark, a stop word or a
    reporting word ("said", "told") has no such word; nor has one opening the text."""
    tokens = SLOT_TOKEN.findall(surface_form(text))
    slots: dict[str, set[str]] = {}
    for i, j in _capitalised_runs(tokens, False):
        before = tokens[i - 1]
        if before[:1].islower() and before not in STOP_WORDS and stem_word(before) not in DISCOURSE:
            slots.setdefault(before, set()).add(" ".join(tokens[i:j]))
    return slots


def slot_problem(claim: str, evidence: str) -> str | None:
    """A name of the claim put where the evidence has another name: the claim writes name N
    right after a content word w ("coach Leo Park") while the evidence writes w only with
    names M sharing no word with N there ("coach Ana Ruiz"). ``evidence`` is the quotes with
    their sentences. Returns the reason, or ``None``. (The word after a name is
    ``slot_rival``'s.)"""
    have = _names_after_words(evidence)
    for word, names in _names_after_words(claim).items():
        rivals = have.get(word, set())
        for name in names:
            words = set(LETTERS.findall(name.lower()))
            if rivals and not any(words & set(LETTERS.findall(r.lower())) for r in rivals):
                return (f"states {sorted(rivals)[0]!r} where the claim says '{word} {name}' "
                        "(another name in the same place)")
    return None
