"""The first filter: settle a claim as ``supported`` without a judge call, only when one passage
sentence proves it word for word and nothing around it frames it (issue 24, part 1).

``settle(claim, passages)`` returns a ``supported`` ``Verdict`` whose evidence is that
sentence, verbatim, or ``None``: everything it cannot prove goes to the judge. It never settles
``unsupported`` or ``contradicted``. A false settle is a silent pass, so every rule below errs
towards ``None``.

A sentence proves a claim when all of these hold:

1. **The claim reads as a run of the sentence.** The claim's tokens (``surface_form`` then
   ``language.words.TOKEN_PATTERN``, lower-cased; the articles a/an/the and commas skipped)
   equal a contiguous run of the sentence's tokens, in the same order: function words and
   numbers exactly (``canonical_number``), content words exactly or differing only in number
   agreement (-s, -es, -y/-ies: "costs"/"cost"); never a change of tense ("employed" is no
   proof of "employs"), no synonyms. So every number stays bound to the words around it
   ("The Basic plan costs $10" is no run of "The Pro plan costs $10 ... the Basic plan costs
   $20"), roles keep their order ("A acquired B" is no run of "B acquired A"), and a
   quantifier, bound, unit or negation the claim lacks or adds breaks the run.
2. **The run stands as a statement of its own.** Before it: the sentence's start, ``;``,
   ", and" after a clause of at least ``MIN_CLAUSE_WORDS`` words, or a comma after an
   opening date phrase ("In 2019,"); never after an opening phrase that may narrow it ("On
   weekends,", "For members,", "In Europe,": ``OPENING_WORDS``).
   After it: the sentence's end, ``;``, or a comma and a word that opens a new clause
   (``CLAUSE_OPENERS``: ", and", ", which", ", who", ", including"...). A phrase that narrows
   the run ("in mice", "for members", "more than", "together") or a list it belongs to ("A, B,
   and C cost $30") leaves it to the judge. Never after a ``:`` in the sentence: any label
   ("Misinformation: ...", "2019 policy: ...", "Customer: ...") may frame what follows.
3. **Nothing in the sentence frames it.** No question mark; no hedge, modal, condition,
   exception, attribution or word of falsity anywhere in the sentence (``FRAMING``, the
   lexicon's ``MODALS``); no negation outside the run (the run's own negations are the
   claim's). No word of either the claim or the sentence mixes scripts (a homoglyph).
4. **The sentence's context is plain** (allow-conditions; when in doubt, the judge).
   No line above it in its passage is a heading or lead-in (a line not ending in ``.``, ``!``
   or ``?``: "Discontinued products", "Not included:"); the sentences just before and after
   it hold no negation, framing word (``FRAMING``), negative word (``NEGATIVE_WORDS``) or
   correction word (``CORRECTION``), no ``?`` or ``!``, are no fragment of fewer than
   ``MIN_CLAIM_WORDS`` words ("Yeah, right.") and do not end with ``:``; the one
   before announces no scope or list (``CATAPHORS``: "The following policy applied until
   2019."); the one after does not open with a word that may refer back (``ANAPHORS``: "This
   was later disproven."). No passage, title included, holds a correction word
   (``CORRECTION``: correction, erratum, retracted, disproven, outdated, no longer, satire,
   ...) or speaks of myths or falsehoods (``PASSAGE_FALSITY``). No other sentence of any
   passage speaks of what the claim speaks of (most of its content words, or a name or number
   of it and half of them) while stating another number or a negation (``_contradicted``).
   A title is never evidence: a headline's body may contradict it. A quoted sentence (a
   ``>`` block quote or one holding quotation marks) is never evidence either.
5. **The sentence is a sentence.** Not a Markdown heading or table row; at least
   ``MIN_CLAIM_WORDS`` tokens and two content words in the claim; the claim one sentence.
6. **The evidence check agrees.** The settled verdict passes ``quote_check.check_verdict``
   against the passages and the claim, unchanged.

Pure CPU; nothing here calls a judge. Used by ``judges.first_filter.FirstFilterJudge``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from ..language.lexicon import MODALS, NEGATIVE_WORDS, PREPOSITIONS
from ..language.quantities import surface_form
from ..language.text import MD_HEADING, passage_sentence_spans
from ..language.words import (
    NUMBER_PATTERN,
    TOKEN_PATTERN,
    canonical_number,
    is_content,
    is_number_token,
    negates,
    stem_word,
)
from ..records import Passage, Verdict
from .quote_check import check_verdict

#: What a settled verdict's rationale says (reports and tests read it).
SETTLED_NOTE = "settled by the first filter"
#: The version of these rules: part of a filtered judge's fingerprint.
RULES_VERSION = "2"

MIN_CLAIM_WORDS = 3
MIN_CLAUSE_WORDS = 4
ARTICLES = frozenset({"a", "an", "the"})

#: Words that frame a statement (anywhere in the sentence, the claim's run included): hedges,
#: conditions, exceptions, restrictions, attribution, plans, falsity. Lower-cased tokens, or
#: prefixes ending in ``*``.
FRAMING = frozenset("""
if unless whether provided providing assuming assume suppose supposing otherwise whenever when
except excepting excluding exclude apart besides instead rather than
only solely mainly mostly largely partly partially primarily chiefly predominantly least most
until till but however although though yet whereas while despite
reportedly allegedly supposedly purportedly apparently seemingly arguably possibly perhaps maybe
probably likely unlikely presumably potentially reputedly ostensibly
rumor* rumour* alleg* claim* believ* think thinks thought suppos* suspect* speculat* estimat*
predict* expect* forecast* projected hope* hoping planned planning intend* aim aims
say says said saying according argu* assert* insist* suggest* propos* deny denies denied
myth* misconception* false* untrue incorrect* wrong* mistak* erroneous* hoax* debunk* fake*
fiction* hypothetic* imagin* contrary disput* question* doubt* unclear uncertain unconfirmed
limit* restrict* subject conditional* eligib* qualif* apply applies theory theoretical*
unverified unknown
""".split()) | MODALS

_PREFIXES = tuple(w[:-1] for w in FRAMING if w.endswith("*"))
_WORDS = frozenset(w for w in FRAMING if not w.endswith("*"))

#: A passage that speaks of myths or falsehoods may list false statements as sentences.
PASSAGE_FALSITY = re.compile(r"\b(?:myths?|misconceptions?|false(?:hoods?)?|untrue|not true|hoax"
                             r"|debunk\w*|fake|fact[- ]check\w*|incorrect)\b", re.IGNORECASE)

#: Words that open a clause after a comma (the run before it stands as its own statement).
CLAUSE_OPENERS = frozenset({"and", "which", "who", "whose", "where", "making", "becoming",
                            "bringing", "including"})
#: Words that open a phrase before a comma that may narrow what follows ("In Europe, ...",
#: "For members, ...", "Since 2019, ..."); unless a date phrase, it keeps the run unsettled.
OPENING_WORDS = PREPOSITIONS | frozenset({"since", "following", "today", "now", "later",
                                          "earlier", "then", "initially", "originally",
                                          "eventually", "afterwards", "subsequently", "among",
                                          "between", "across", "throughout", "outside",
                                          "inside", "beyond", "upon", "as", "like", "unlike",
                                          "when", "once", "taken", "used", "measured",
                                          "given", "compared"})
#: The words of a date phrase besides its numbers ("in 2019", "on 3 march 2019").
DATE_WORDS = frozenset({"in", "on", "at", "by", "of", "from", "to", "between", "and", "since",
                        "after", "before", "during", "early", "late", "mid", "year",
                        "january", "february", "march", "april", "may", "june", "july",
                        "august", "september", "october", "november", "december"})

_TOKEN = re.compile(rf"{TOKEN_PATTERN.pattern}|[,;:()\[\]\"?!]|\s[-\u2013\u2014]+\s")
_ENDS = frozenset({".", "!"})


def _framing(tok: str) -> bool:
    return tok in _WORDS or tok.startswith(_PREFIXES)


@lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """The tokens the filter compares: lower-cased words and numbers of ``surface_form(text)``,
    articles dropped, and the punctuation ``, ; : ( ) [ ] " ? !`` and spaced dashes (as
    ``-``) kept as tokens of their own."""
    out = []
    for m in _TOKEN.finditer(surface_form(text).lower()):
        tok = m.group(0).strip()
        if tok in ARTICLES:
            continue
        out.append("-" if tok and tok[0] in "-\u2013\u2014" else tok)
    return tuple(out)


def _words(toks: Sequence[str]) -> list[str]:
    return [t for t in toks if t[0].isalnum() or t[0] == "-" and len(t) > 1]


@lru_cache(maxsize=65536)
def _norm(tok: str) -> str:
    return canonical_number(tok) if is_number_token(tok) else tok


def same_word(a: str, b: str) -> bool:
    """Whether two lower-cased tokens are the same word: equal numbers, equal function words,
    or content words equal or inflections of one word (same stem, same first three
    letters). No synonyms."""
    if a == b:
        return True
    if is_number_token(a) or is_number_token(b):
        return is_number_token(a) and is_number_token(b) and _norm(a) == _norm(b)
    if not (is_content(a) and is_content(b)) or negates(a) or negates(b):
        return False
    return _number_variant(a, b) or _number_variant(b, a)


def _number_variant(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with a number-agreement ending: -s, -es, or -y to -ies
    ("cost"/"costs", "box"/"boxes", "city"/"cities"); never a change of tense."""
    return b in (a + "s", a + "es") or (a.endswith("y") and b == a[:-1] + "ies")


def _run_at(sent: tuple[str, ...], start: int, claim: list[str]) -> int | None:
    """The index just after the run of ``claim`` in ``sent`` from ``start`` (commas in the
    sentence skipped inside the run), or ``None``."""
    i = start
    for k, word in enumerate(claim):
        while k and i < len(sent) and sent[i] == ",":
            i += 1
        if i >= len(sent) or not same_word(word, sent[i]):
            return None
        i += 1
    return i


def _date_phrase(words: Sequence[str]) -> bool:
    """Whether ``words`` only date the statement ("in 2019", "on 3 march 2019"): date words
    and numbers, at least one number."""
    return any(is_number_token(w) for w in words) and all(
        is_number_token(w) or w in DATE_WORDS for w in words)


def _opens_with_scope(sent: tuple[str, ...], start: int) -> bool:
    """Whether the sentence opens, before ``start``, with a phrase that may narrow what
    follows ("On weekends, ...", "For members, ...", "Taken with food, ..."): its first
    segment starts with a preposition or opening word and is not a date phrase."""
    first_end = next((i for i in range(start) if sent[i] in (",", ";", ":")), None)
    if first_end is None:
        return False
    segment = _words(sent[:first_end])
    return bool(segment) and segment[0] in OPENING_WORDS and not _date_phrase(segment)


def _left_ok(sent: tuple[str, ...], start: int) -> bool:
    """Whether the run starting at ``start`` stands at the start of a statement: the
    sentence's start; after ``;`` or ``:``; after ", and" closing a clause of at least
    ``MIN_CLAUSE_WORDS`` words; after a comma closing an opening date phrase ("In 2019,");
    and in every case not after an opening phrase that may narrow it."""
    if start == 0:
        return True
    if _opens_with_scope(sent, start):
        return False
    if ":" in sent[:start]:
        return False
    before = sent[start - 1]
    if before == ";":
        return True
    if before == "and" and start >= 2 and sent[start - 2] == ",":
        segment_start = max((i + 1 for i in range(start - 2) if sent[i] in (",", ";", ":")),
                            default=0)
        segment = _words(sent[segment_start:start - 2])
        return (len(segment) >= MIN_CLAUSE_WORDS and segment[0] not in OPENING_WORDS
                and "and" not in segment and "or" not in segment)
    if before != ",":
        return False
    return _date_phrase([w for w in sent[:start - 1] if w != ","])


def _right_ok(sent: tuple[str, ...], end: int) -> bool:
    if end >= len(sent) or sent[end] in _ENDS or sent[end] == ";":
        return True
    return sent[end] == "," and end + 1 < len(sent) and sent[end + 1] in CLAUSE_OPENERS


def proves(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` proves ``claim`` by rules 1-3 and 5 of the module docstring (the
    context, rule 4, and the evidence check, rule 6, are ``settle``'s)."""
    if "?" in claim or "?" in sentence or MD_HEADING.match(sentence) \
            or sentence.lstrip().startswith("|"):
        return False
    ctoks = tokens(claim)
    cwords = _words(ctoks)
    if len(cwords) < MIN_CLAIM_WORDS or sum(1 for w in cwords if is_content(w)
                                            and not is_number_token(w)) < 2:
        return False
    if any(_framing(w) for w in cwords) or any(t in (";", ":", "(", ")", "[", "]", '"')
                                               for t in ctoks):
        return False
    if _mixed_script(claim) or _mixed_script(sentence):
        return False
    stoks = tokens(sentence)
    if any(_framing(t) for t in stoks):
        return False
    for start in range(len(stoks)):
        end = _run_at(stoks, start, cwords)
        if end is None:
            continue
        outside = stoks[:start] + stoks[end:]
        if any(negates(t) for t in outside):
            return False
        if _left_ok(stoks, start) and _right_ok(stoks, end):
            return True
    return False


#: Words that, anywhere in any passage (title included), may retract, correct, reject or frame
#: as untrue, outdated or not a plain statement what a passage says: a passage set holding one
#: settles nothing (the judge reads it). Lower-cased tokens, or prefixes ending in ``*``.
CORRECTION = frozenset("""
correct* erratum errata retract* withdr* disprov* debunk* refut* rebut* false* untrue wrong*
incorrect* inaccura* error* mistak* disregard* ignore ignored lie lies lied lying liar* myth*
hoax* fake* satir* parod* joke* joking kidding outdated obsolete discontinu* remov* supersed*
deprecat* revok* revoc* rescind* cancel* invalid* mislead* bogus fabricat* misinform*
disinform* nonsense rubbish clickbait fiction* fictitious allegation* hypothes* quiz* fool*
anymore longer former* formerly previous* old older beta update* amend* revis* superseded
retired abandon* dropp* scrap* reversed overturn* overrul* rejected dismissed ha lol
disagre* contest* dubious questionable controvers* sceptic* skeptic* unproven unsupported
unfounded baseless spurious discredit* exaggerat* overstat* above aforementioned preceding
foregoing sentence sentences statement statements paragraph
""".split())
_C_PREFIXES = tuple(w[:-1] for w in CORRECTION if w.endswith("*"))
_C_WORDS = frozenset(w for w in CORRECTION if not w.endswith("*"))

#: Words that, opening the next sentence, may refer back to the sentence and frame it ("This
#: was later disproven.", "That was the old policy.").
ANAPHORS = frozenset({"this", "that", "it", "these", "those", "which", "such", "so", "above",
                      "previous", "preceding", "former", "latter", "here", "there", "both",
                      "neither", "either", "all", "none"})
#: Words that, in the sentence before, may announce what follows as a scope, a list of
#: claims, a quiz or a hypothesis ("The following policy applied until 2019.").
CATAPHORS = frozenset({"following", "below", "follows", "next", "these", "this", "here",
                       "statement", "statements", "true", "fools", "quiz", "test", "tested",
                       "policy", "rule", "rules", "until", "before", "after", "since"})
_SENTENCE_END = ".!?\u3002\uff01\uff1f"


def _correction(tok: str) -> bool:
    return tok in _C_WORDS or tok.startswith(_C_PREFIXES)


def _mixed_script(text: str) -> bool:
    """Whether a word of ``text`` mixes letters of two scripts (Latin with Cyrillic or Greek:
    a homoglyph such as "B\u0430sic")."""
    for word in re.findall(r"[^\W\d_]{2,}", text):
        scripts = {unicodedata.name(ch, "?").split(" ")[0] for ch in word}
        if len(scripts) > 1:
            return True
    return False


def _plain_neighbour(sentence: str, after: bool) -> bool:
    """Whether ``sentence``, just before (``after=False``) or just after (``after=True``) a
    candidate sentence in its passage, leaves it plain: no negation, framing or correction
    word, no ``!``, ``?`` or closing ``:``; before it, nothing that announces a scope or a
    list ("The following ...", "Quiz: ..."); after it, no opening word that may refer back
    to it ("This was later disproven.")."""
    text = sentence.strip()
    if not text:
        return True
    if text.endswith(":") or "?" in text or "!" in text:
        return False
    toks = _words(tokens(text))
    if len(toks) < MIN_CLAIM_WORDS:  # a fragment may answer it ("Yeah, right.", "Sure.")
        return False
    if any(negates(t) or _framing(t) or _correction(t) for t in toks):
        return False
    if any(t in NEGATIVE_WORDS or stem_word(t) in NEGATIVE_WORDS for t in toks):
        return False
    if after:
        return not toks or toks[0] not in ANAPHORS
    return not any(t in CATAPHORS for t in toks)


def _headed(text: str, start: int) -> bool:
    """Whether a whole line of ``text`` before ``start`` is a heading or a lead-in: a line
    that does not end with sentence-final punctuation ("Discontinued products", "## Plans we
    dropped", "Not included:"). A heading may frame everything under it."""
    lines = text[:start].split("\n")[:-1]
    return any(line.strip() and line.strip()[-1] not in _SENTENCE_END for line in lines)


def _quoted(sentence: str) -> bool:
    """Whether ``sentence`` is quoted: a Markdown block quote (``>``) or a sentence holding
    quotation marks (someone else's words)."""
    return sentence.lstrip().startswith(">") or any(q in sentence
                                                     for q in '"\u201c\u201d\u00ab\u00bb')


def _sentences(passage: Passage) -> list[str]:
    """The passage's sentences (verbatim) whose context is plain: not quoted (``_quoted``), no
    heading or lead-in line above it in the passage (``_headed``), and plain sentences just
    before and after it (``_plain_neighbour``). The title is never evidence (a headline;
    its body may contradict it)."""
    spans = passage_sentence_spans(passage.text)
    texts = [passage.text[a:b] for a, b in spans]
    out = []
    for i, (a, _) in enumerate(spans):
        if _headed(passage.text, a) or _quoted(texts[i]):
            continue
        if i and not _plain_neighbour(texts[i - 1], after=False):
            continue
        if i + 1 < len(texts) and not _plain_neighbour(texts[i + 1], after=True):
            continue
        out.append(texts[i])
    return out


def _corrected(passages: Sequence[Passage]) -> bool:
    """Whether any passage (title or text) holds a word that may correct, retract or reject
    what a passage says (``CORRECTION``, ``PASSAGE_FALSITY``), or a word mixing scripts (a
    homoglyph may disguise a name)."""
    for passage in passages:
        for text in (passage.title or "", passage.text):
            if PASSAGE_FALSITY.search(text) or any(_correction(t) for t in tokens(text)) \
                    or _mixed_script(text):
                return True
    return False


_AMOUNT = re.compile(r"[$\u20ac\u00a3]?\d[\d,.]*%?")
_IDENTIFIER = re.compile(r"(?=.*\d)(?=.*[-A-Za-z])[\w-]+|[A-Z][\w-]*")


#: Capitalised words that may name the same subject at another time or in another state ("The
#: Current plan costs $20."): never another subject's name.
NOT_NAMES = frozenset({"new", "newer", "newest", "current", "currently", "latest", "present",
                       "actual", "real", "true", "today", "now", "modern", "recent", "final",
                       "official", "standard", "same", "other", "another", "every", "each"})


def _raw_words(text: str) -> list[str]:
    return [w.strip(".,;!?\"'()[]") for w in unicodedata.normalize("NFKC", text).split()]


def _identifier(word: str, first: bool) -> bool:
    """A name or code ("Basic", "X100", "0-1"): not a function word, not a sentence's first
    word unless it holds a digit."""
    low = word.lower()
    return bool(_IDENTIFIER.fullmatch(word)) and is_content(low) \
        and low not in ANAPHORS and low not in NOT_NAMES \
        and not (first and not any(ch.isdigit() for ch in word))


def _parallel(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` says the same of another subject, word for word: as many words as
    the claim, each the same word, or a number for a number, or another name or code for one
    of the claim's names or codes ("The Pro plan costs $20." beside "The Basic plan costs
    $10."; "Item 0-2 ships within 3 days." beside "Item 0-1 ships within 2 days."), at least
    one name or code differing, none of the claim's names or codes in it, and no negation."""
    cw, sw = _raw_words(claim), _raw_words(sentence)
    if len(cw) != len(sw) or not cw:
        return False
    ids = {w.casefold() for i, w in enumerate(cw) if _identifier(w, i == 0)}
    renamed = False
    for i, (a, b) in enumerate(zip(cw, sw)):
        la, lb = a.casefold(), b.casefold()
        if negates(lb):
            return False
        if la == lb:
            continue
        if _AMOUNT.fullmatch(a) and _AMOUNT.fullmatch(b):
            continue
        if not (_identifier(a, i == 0) and _identifier(b, i == 0)) or lb in ids \
                or la.startswith(lb) or lb.startswith(la) or same_word(la, lb):
            return False
        renamed = True
    return renamed


def _contradicted(claim: str, evidence: str, passages: Sequence[Passage]) -> bool:
    """Whether another sentence of ``passages`` speaks of what the claim speaks of (most of
    its content words, or one of its names or numbers and half of them) while stating a
    number the claim lacks or a negation: the passages may contradict the evidence. A
    sentence that says the same of another named subject (``_parallel``) does not count."""
    cwords = [w for w in _words(tokens(claim)) if is_content(w) and not is_number_token(w)]
    cnums = {_norm(w) for w in _words(tokens(claim)) if is_number_token(w)}
    names = {w.lower() for w in re.findall(r"(?<!^)\b[A-Z]\w+", claim.strip())}
    if not cwords:
        return False
    for passage in passages:
        for sentence in [passage.title or ""] + [passage.text[a:b] for a, b in
                                                 passage_sentence_spans(passage.text)]:
            if not sentence.strip() or sentence.strip() == evidence.strip():
                continue
            swords = _words(tokens(sentence))
            shared = sum(1 for w in cwords if any(same_word(w, t) for t in swords))
            anchored = any(_norm(t) in cnums for t in swords if is_number_token(t)) \
                or bool(names & set(swords))
            if not (shared * 3 >= len(cwords) * 2 or anchored and shared * 2 >= len(cwords)):
                continue
            if _parallel(claim, sentence):
                continue
            if any(negates(t) for t in swords) or any(
                    is_number_token(t) and _norm(t) not in cnums for t in swords):
                return True
    return False


_NUMBER = re.compile(NUMBER_PATTERN)


def settle(claim: str, passages: Sequence[Passage]) -> Verdict | None:
    """A ``supported`` verdict for ``claim`` when one sentence of ``passages`` proves it in a
    plain context (module docstring), with that sentence as its evidence and ``SETTLED_NOTE`` in
    its rationale; else ``None`` (the claim goes to the judge).

    Args:
        claim: one claim (a sentence).
        passages: the passages the judge would see.

    Returns:
        a ``Verdict`` with ``label="supported"`` and one evidence item, or ``None``.
    """
    if not isinstance(claim, str) or not claim.strip() or "\n" in claim.strip():
        return None
    if _corrected(passages):
        return None
    for passage in passages:
        for sentence in _sentences(passage):
            if not proves(claim, sentence) or _contradicted(claim, sentence, passages):
                continue
            verdict = Verdict(label="supported",
                              evidence=[{"passage_id": passage.id, "quote": sentence}],
                              rationale=f"{SETTLED_NOTE}: passage {passage.id} states it "
                                        "word for word")
            accepted, reason = check_verdict(verdict, list(passages), claim)
            if reason is None and accepted.label == "supported":
                return verdict
    return None
