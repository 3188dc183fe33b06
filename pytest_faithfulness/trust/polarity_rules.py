"""Quote-check rules on polarity, quantifiers and hedges.

A word negated on one side only (per clause part and scope), opposite words, particles
("turn on" / "turn off"), quantifiers ("all" / "some") and hedges ("usually", "may"). Used by
``trust.quote_check.check_verdict`` and the offline judges.
"""

from __future__ import annotations

import re
from functools import cache

from ..language.features import (
    CLAUSE_BREAK,
    PART_BREAK,
    TextFeatures,
    clause_content,
    scoped_polarity,
)
from ..language.lexicon import (
    FILLERS,
    FORWARD_NEGATIONS,
    MODALS,
    NUMBER_WORDS,
    QUANTIFIERS,
    STOP_OPPOSITES,
    STRONG_QUANTIFIERS,
)
from ..language.quantities import spelled_units, surface_form
from ..language.words import (
    LETTERS,
    TOKEN_PATTERN,
    fold_phrases,
    is_stated,
    kin_table,
    negates,
    opposite,
    stem_word,
)
from .evidence import QuotedEvidence

_VERB_PARTICLE = re.compile(r"\b([a-z]{2,}) (up|down|on|off)\b")


def kin_in_part(word: str, cf: TextFeatures, xf: TextFeatures) -> bool:
    """Whether the evidence ``xf`` states ``word`` of the claim by a word of its side of its
    family (``kin_table``: "rose" for "increased") in a part that also states another word of the
    claim's part holding ``word`` (so that "costs fell" elsewhere in a long passage does not
    state "decreased yields")."""
    kin = kin_table().get(word, frozenset()) - {word}
    if not kin:
        return False
    others = {w for part in cf.parts if word in part for w in part} - {word} - FILLERS
    return any(part & kin and any(is_stated(o, part) for o in others) for part in xf.parts)


def said_by_kin(word: str, negs: set[bool], scoped: dict[str, set[bool]]) -> bool:
    """Whether a word of ``word``'s side of its family (``kin_table``) is in ``scoped`` (stem ->
    polarities) with one of the polarities ``negs``."""
    return any(negs & scoped.get(k, set()) for k in kin_table().get(word, ()))


def negated_first(claim: str) -> set[str]:
    """The stems of the words right after a forward negation of ``claim`` ("not enabled by
    default": "enabl"); none when the claim is framed as false whole ("it is not true that")."""
    tokens = TOKEN_PATTERN.findall(fold_phrases(surface_form(claim).lower()))
    if "notthat" in tokens:
        return set()
    return {stem_word(tokens[i + 1]) for i, t in enumerate(tokens[:-1])
            if t in FORWARD_NEGATIONS or t.endswith("n't")}


def polarity_problem(cf: TextFeatures, xf: TextFeatures, claim: str | None = None) -> list[str]:
    """The claim's words that the evidence ``xf`` says with the other polarity and nowhere
    with the claim's: a word negated on one side only, both in its clause part and in the
    negation's scope (the words after the negation: "Sale items can be exchanged but not
    refunded" negates "refunded", not "sale items"), or an opposite word ("nonrefundable",
    "disabled", ``opposite``) said with the claim's polarity."""
    ev_clause: dict[str, set[bool]] = {}
    ev_scope: dict[str, set[bool]] = {}
    claim_scope: dict[str, set[bool]] = {}
    for w, neg in xf.polar:
        ev_clause.setdefault(w, set()).add(neg)
    for w, neg in xf.scoped:
        ev_scope.setdefault(w, set()).add(neg)
    for w, neg in cf.scoped:
        claim_scope.setdefault(w, set()).add(neg)
    flipped = set()
    for w, neg in cf.polar:
        scope = claim_scope.get(w, {neg})
        if w in ev_clause:
            if neg not in ev_clause[w] and not scope & ev_scope.get(w, set()):
                flipped.add(w)
            continue
        if w in cf.numbers or said_by_kin(w, scope, ev_scope):
            continue
        if w.endswith(("abl", "ibl")) and len(w) >= 7 and ev_scope.get(w[:-3]) \
                and not scope & ev_scope[w[:-3]]:
            flipped.add(w)  # "refundable" against "not refunded" (only)
            continue
        opposed = [v for v in ev_scope if opposite(w, v)]
        same = any(s in ev_scope[v] for v in opposed for s in scope)
        reversed_ = any((not s) in ev_scope[v] for v in opposed for s in scope)
        if same and not reversed_:
            flipped.add(w)
    if flipped and claim and (through := {u for u in negated_first(claim) if any(
            not nv and opposite(u, v) for v, nv in xf.scoped)}):
        # the claim's negation is said by an opposite word of the word it negates ("not
        # enabled by default" by "disabled by default"): the words after it in its scope are
        # not negated apart
        flipped -= {w for w in flipped if w not in through and claim_scope.get(w) == {True}}
    return sorted(flipped)


#: Words that open a clause with no subject of its own ("... but cannot delete them"): the
#: clause speaks of the subject of the clause before it.
_ELLIPTIC = frozenset({"can", "cannot", "can't", "not", "is", "isn't", "are", "aren't", "does",
                       "doesn't", "do", "don't", "will", "won't", "may", "must", "has", "have",
                       "hasn't", "haven't", "was", "wasn't", "were", "weren't", "did", "didn't",
                       "should", "could", "would", "never", "also", "only", "still"})


def clause_polarity_problem(cf: TextFeatures, evidence: str) -> list[str]:
    """The claim's words that the evidence says with both polarities, and only with the other
    one in the clauses that state the most of the claim's other words: the clause that says
    the claim most fully decides ("Exports, which are not encrypted, are stored in S3;
    backups are encrypted." negates "Exports are encrypted"; a clause with no subject of its
    own, ``_ELLIPTIC``, speaks of the clause before it: "Admins can view exports but cannot
    delete them; owners can delete exports." negates "Admins can delete exports")."""
    lower = spelled_units(fold_phrases(surface_form(evidence).lower()))
    clauses: list[tuple[set[str], set[tuple[str, bool]]]] = []
    before: set[str] = set()
    for clause in CLAUSE_BREAK.split(lower):
        tokens = [NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(clause)]
        if not tokens:
            continue
        scoped: set[tuple[str, bool]] = set()
        for sub in PART_BREAK.split(clause):
            if stoks := [NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(sub)]:
                scoped |= scoped_polarity(stoks)
        words = {w for w, _ in scoped}
        if tokens[0] in _ELLIPTIC:
            words |= before
        clauses.append((words, scoped))
        before = words
    claimed: dict[str, set[bool]] = {}
    for w, neg in cf.scoped:
        if w in cf.content and w not in cf.numbers:
            claimed.setdefault(w, set()).add(neg)
    flipped = []
    for w, negs in claimed.items():
        if negs != {False}:
            continue  # a word the claim asserts (a negated claim word: ``polarity_problem``)
        neg = False
        others = cf.content - {w}
        holding = [(len(others & words), {n for v, n in scoped if v == w})
                   for words, scoped in clauses if any(v == w for v, _ in scoped)]
        if not holding or not any(neg in pols for _, pols in holding):
            continue
        best = max(k for k, _ in holding)
        if best and all(neg not in pols for k, pols in holding if k == best):
            flipped.append(w)
    return sorted(flipped)


def particle_problem(claim: str, evidence: str) -> str | None:
    """A verb with "up"/"down" or "on"/"off" in the claim that the evidence says with the
    opposite particle and never with the claim's ("went up" / "went down"), or ``None``."""
    said = {(stem_word(v), p) for v, p in _VERB_PARTICLE.findall(evidence.lower())}
    for verb, particle in _VERB_PARTICLE.findall(claim.lower()):
        v = stem_word(verb)
        if (v, particle) not in said and (v, STOP_OPPOSITES[particle]) in said:
            return f"{verb} {STOP_OPPOSITES[particle]} where the claim says {verb} {particle}"
    return None


_AT_MOST = re.compile(r"\bat most\b")


def quantifiers(text: str) -> set[str]:
    """The quantifiers of ``text`` ("at most 5" is a bound, no "most")."""
    return {QUANTIFIERS[w] for w in LETTERS.findall(_AT_MOST.sub(" ", text.lower()))
            if w in QUANTIFIERS}


def strength_words(text: str) -> frozenset[str]:
    """The quantifiers (as ``QUANTIFIERS`` reads them: "every" is "all") and modal verbs of
    ``text``: the words stop-word lists drop that still change what a sentence claims
    ("Only the Business plan ..." is not "The Business plan ..."; "may" is not "must")."""
    words = LETTERS.findall(text.lower())
    return frozenset(quantifiers(text) | {w for w in words if w in MODALS})


#: How often or how much: a claim's word of these must be stated by its evidence ("The seller
#: rarely pays" is not "The seller pays"), by a word of the same class ("seldom" for
#: "rarely", "sharply" for "significantly"). By class; ``QUANTIFIERS`` gives the classes of
#: the frequency words.
_HEDGE_CLASSES = frozenset({"usually", "often", "sometimes", "rarely", "partial"})

_DEGREES = {
    "normally": "usually", "commonly": "often", "regularly": "often", "routinely": "usually",
    "infrequently": "rarely", "hardly": "rarely", "barely": "rarely", "scarcely": "rarely",
    "partially": "partial",
    "slightly": "slightly", "somewhat": "slightly", "marginally": "slightly",
    "modestly": "slightly", "significantly": "sharply", "substantially": "sharply",
    "considerably": "sharply", "greatly": "sharply", "sharply": "sharply",
    "dramatically": "sharply", "drastically": "sharply", "hugely": "sharply",
    "vastly": "sharply", "massively": "sharply", "steeply": "sharply",
}


#: Verbs that say a change was sharp ("will see the value skyrocket" states "significantly
#: elevate"), as stem prefixes: evidence stating one states "sharply".
_SHARP_VERBS = ("skyrocket", "soar", "surg", "plung", "plummet", "tumbl", "rocket", "spik",
                "slump", "balloon", "doubl", "tripl", "quadrupl", "halv")


def _hedges(text: str, *, evidence: bool = False) -> set[str]:
    """The frequency and degree classes of ``text`` (``_HEDGE_CLASSES``, ``_DEGREES``); of
    ``evidence``, a verb of ``_SHARP_VERBS`` says "sharply" too."""
    words = LETTERS.findall(text.lower())
    sharp = evidence and any(w.startswith(_SHARP_VERBS) for w in words)
    return ({QUANTIFIERS[w] for w in words if QUANTIFIERS.get(w) in _HEDGE_CLASSES}
            | {_DEGREES[w] for w in words if w in _DEGREES} | ({"sharply"} if sharp else set()))


def hedge_classes(f: TextFeatures, *, evidence: bool = False) -> set[str]:
    """``_hedges`` of a text read from its features (every word is in ``scoped``)."""
    stems = _hedge_stems()
    sharp = evidence and any(w.startswith(_SHARP_VERBS) for w, _ in f.scoped)
    return {c for w, _ in f.scoped if (c := stems.get(w))} | ({"sharply"} if sharp else set())


@cache
def _hedge_stems() -> dict[str, str]:
    """Stem -> class of the words ``_hedges`` reads."""
    return {stem_word(w): c for w, c in QUANTIFIERS.items() if c in _HEDGE_CLASSES} | {
        stem_word(w): c for w, c in _DEGREES.items()}


#: Words that say "only": "restricted to admins", "reserved for members".
_RESTRICTED = re.compile(r"\b(?:restricted|limited|reserved|exclusive) (?:to|for) "
                         r"(?:the |our |your )?([^\W\d_]+)")


def quantifier_problem(claim: str, ev: QuotedEvidence) -> str | None:
    """Why the claim's quantifiers are not the evidence's, or ``None``: a strong one
    (``STRONG_QUANTIFIERS``) or a frequency or degree word (``_hedges``) the evidence does
    not state, or another quantifier where the quotes state one."""
    said = quantifiers(ev.context) | _hedges(ev.context, evidence=True)
    claimed = quantifiers(claim)
    hedged = _hedges(claim)
    if any(stem_word(m.group(1)) in clause_content(TOKEN_PATTERN.findall(claim.lower()))
           for m in _RESTRICTED.finditer(ev.context.lower())):
        said.add("only")  # "restricted to admins" says "only admins"
    if "never" in claimed and not said and any(
            negates(t) for t in TOKEN_PATTERN.findall(fold_phrases(ev.context.lower()))):
        said.add("never")  # "does not expire" says "never expires" where nothing hedges it
    for q in sorted(claimed - said):
        if q in STRONG_QUANTIFIERS or q in hedged or quantifiers(ev.quotes) - claimed:
            return f"does not say {q!r} as the claim does"
    for q in sorted(hedged - said):
        return f"does not say {q!r} as the claim does (a frequency or degree word)"
    return None
