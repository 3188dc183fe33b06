"""Claims held against the answer's sentences: coverage, values, restatements, grounding.

``align_claims`` ties each claim to the answer sentences it came from; ``Coverage`` decides
whether the claims aligned to a sentence state all of it (``COVERAGE``); ``keep_values``
(rule 3), ``merge_restatements`` (rule 6) and ``ungrounded_reason`` (rule 7) of ``alignment.align``.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter
from functools import lru_cache

from ..language.features import text_features
from ..language.lexicon import STOP_WORDS
from ..language.markers import citation_spans
from ..language.text import QUOTES
from ..records import DroppedText, Span
from .answer_spans import (
    CONNECTIVES,
    COVERAGE,
    NAME_WEIGHT,
    NUMBER_WEIGHT,
    PUNCT,
    AlignedClaim,
    answered_in_answer,
    canonical_map,
    locate,
    overlaps,
)
from .polarity_rules import strength_words

# --------------------------------------------------------------------------------------------
# Claims to sentences.

def _weight(word: str, numbers: frozenset[str], names: frozenset[str]) -> int:
    if word in numbers:
        return NUMBER_WEIGHT
    if word in names:
        return NAME_WEIGHT
    return 1


def _overlapping(span: Span, units: list[Span], starts: list[int], ends: list[int]) -> range:
    """Indices of the (sorted, disjoint) ``units`` that overlap ``span``."""
    return range(bisect_right(ends, span[0]), bisect_left(starts, span[1]))


def align_claims(answer: str, claims: list[AlignedClaim], units: list[Span]) -> None:
    """Give each claim without spans the answer sentence it came from (rule 3)."""
    if not units:
        return
    canon, where = canonical_map(answer)
    located: list[Span] = []
    for claim in claims:  # a claim that is text of the answer word for word
        if not claim.spans:
            bare = claim.text.rstrip(".!?;:\u3002")
            span = locate(bare, canon, where, located)
            if span is not None:
                end = span[1]
                if claim.text[len(bare):len(bare) + 1] == answer[end:end + 1]:
                    span = (span[0], end + 1)  # with its closing punctuation
                claim.spans = [span]
                located.append(span)
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    unit_features = [text_features(answer[s:e]) for s, e in units]
    units_by_word: dict[str, list[int]] = {}
    for k, uf in enumerate(unit_features):
        for w in uf.content:
            units_by_word.setdefault(w, []).append(k)
    claim_features = [text_features(c.text) for c in claims]
    counts = Counter(w for f in claim_features for w in f.content)
    answer_numbers = text_features(answer).numbers
    taken: set[int] = set()
    previous = 0
    for i, claim in enumerate(claims):
        if claim.spans:
            for span in claim.spans:
                taken.update(_overlapping(span, units, starts, ends))
            continue
        cf = claim_features[i]
        if cf.numbers - answer_numbers:
            continue  # a number the answer does not hold: no source (``align`` notes it)
        distinctive = {w for w in cf.content if counts[w] == 1}  # in no other claim
        # a sentence sharing a distinctive word always outranks one that shares none
        candidates = ({k for w in distinctive for k in units_by_word.get(w, ())}
                      or {k for w in cf.content for k in units_by_word.get(w, ())})
        best_key, best = None, None
        for k in candidates:
            shared = cf.content & unit_features[k].content
            key = (sum(_weight(w, cf.numbers, cf.mandatory) for w in distinctive & shared),
                   sum(_weight(w, cf.numbers, cf.mandatory) for w in shared),
                   k not in taken, k >= previous, -k)
            if best_key is None or key > best_key:
                best_key, best = key, k
        if best is None:
            continue
        claim.spans = [units[best]]
        taken.add(best)
        previous = best


class Coverage:
    """Rule 5 over a growing list of claims: which claims are aligned to each sentence, and
    which claims hold each content word."""

    def __init__(self, units: list[Span], claims: list[AlignedClaim]) -> None:
        self.units = units
        self.starts, self.ends = [u[0] for u in units], [u[1] for u in units]
        self.features: list = []
        self.strength: list[frozenset[str]] = []
        self.by_unit: dict[int, list[int]] = {}
        self.by_word: dict[str, list[int]] = {}
        for claim in claims:
            self.add(claim)

    def add(self, claim: AlignedClaim) -> None:
        index = len(self.features)
        features = text_features(claim.text)
        self.features.append(features)
        self.strength.append(strength_of(claim.text))
        for span in claim.spans:
            for k in _overlapping(span, self.units, self.starts, self.ends):
                self.by_unit.setdefault(k, []).append(index)
        for w in features.content:
            self.by_word.setdefault(w, []).append(index)

    def covered(self, sentence, unit: int, strength: frozenset[str] = frozenset()) -> bool:
        """The claims aligned to sentence ``unit``, or one single claim, cover ``sentence``
        (its content words, its polarity, and its quantifiers and modal verbs ``strength``:
        "All plans include SSO." is not covered by "Some plans include SSO.")."""
        aligned = self.by_unit.get(unit, [])
        if aligned and _covers(sentence, [self.features[i] for i in aligned]) and (
                strength <= frozenset().union(*(self.strength[i] for i in aligned))):
            return True
        candidates = {i for w in sentence.content for i in self.by_word.get(w, ())}
        return any(_covers(sentence, [self.features[i]]) and strength <= self.strength[i]
                   for i in sorted(candidates))


@lru_cache(maxsize=1)
def _connective_stems() -> frozenset[str]:
    return frozenset(w for word in CONNECTIVES.split() for w in text_features(word).content)


def _covers(sentence, claim_features) -> bool:
    union = set().union(*(f.content for f in claim_features))
    if sentence.mandatory - union:
        return False
    content = sentence.content - (_connective_stems() - sentence.mandatory)
    if len(content & union) < COVERAGE * len(content):
        return False
    # polarity both ways: a negated sentence needs a negated claim, and a sentence that is not
    # negated is not covered by a negated claim ("The screen is covered." / "... is not ...")
    return sentence.negated == any(f.negated for f in claim_features)


def in_answer_order(claims: list[AlignedClaim]) -> list[AlignedClaim]:
    """The decomposer's claims in their order; each added claim placed before the first
    decomposer claim that starts after it in the answer."""
    own = [c for c in claims if not c.added]
    added = sorted((c for c in claims if c.added), key=lambda c: c.spans[0][0])
    out: list[AlignedClaim] = []
    for claim in own:
        while added and claim.spans and added[0].spans[0][0] < claim.spans[0][0]:
            out.append(added.pop(0))
        out.append(claim)
    out.extend(added)
    return out


def dedupe_key(text: str) -> str:
    """``text`` folded (NFKC, quotes unified, case, punctuation to spaces) so that two claims
    that differ only in those compare equal."""
    norm = unicodedata.normalize("NFKC", text).translate(QUOTES).casefold()
    return " ".join(PUNCT.sub(" ", norm).split())


# --------------------------------------------------------------------------------------------
# Bracketed values (rule 3), restatements (rule 6), grounding (rule 7).

def keep_values(answer: str, claims: list[AlignedClaim], ids: tuple[str, ...],
                units: list[Span]) -> None:
    """Put back a bracketed value a decomposer took for a citation marker ("weighs [800]."
    with no passage 800: ``markers.citation_spans``): after the word it follows in the answer,
    in a claim whose spans reach the value and that holds the word, or in a claim of the same
    sentence that ends with that word ("The Kestrel e-bike weighs.")."""
    if "[" not in answer and "\u3010" not in answer:
        return
    markers = citation_spans(answer)  # brackets in citation position, passages unknown
    real = {e for _, e in citation_spans(answer, ids, passage_count=len(ids))}
    values = [(s, e) for s, e in markers if e not in real]
    for start, end in values:
        value = answer[start:end].strip()
        before = re.findall(r"[\w'\u2019-]+", answer[max(0, start - 60):start])
        if not before:
            continue
        anchor = before[-1]
        unit = next(((a, b) for a, b in units if a <= end and start < b), (start, end))
        for claim in claims:
            if value in claim.text:
                continue
            reaches = any(s <= start <= e for s, e in claim.spans)
            if not reaches and not any(overlaps(sp, unit) for sp in claim.spans):
                continue
            hits = list(re.finditer(rf"(?<![\w-]){re.escape(anchor)}(?![\w-])", claim.text,
                                    re.IGNORECASE))
            if not hits or not (reaches or not re.search(r"\w", claim.text[hits[-1].end():])):
                continue
            at = hits[-1].end()
            claim.text = f"{claim.text[:at]} {value}{claim.text[at:]}"
            claim.notes.append(f"{value} names no passage of this answer: read as a value of "
                               "the claim, not as a citation")


def _units_of(claim: AlignedClaim, units: list[Span]) -> set[int]:
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    return {k for span in claim.spans for k in _overlapping(span, units, starts, ends)}


def merge_restatements(claims: list[AlignedClaim], units: list[Span],
                       dropped: list[DroppedText]) -> list[AlignedClaim]:
    """Rule 6, by content: a claim from the same answer sentence as another, with the same
    polarity, the same quantifiers and modal verbs (``trust.polarity_rules.strength_words``: "Only
    the Business plan ..." does not restate "The Business plan ...") and no content word
    (number, name, stem) the other lacks, restates it ("has
    three levels" / "has 3 levels" / "There are three levels on it", or a fragment of it): it
    is recorded as set aside ("restates claim N") and counted once, so paraphrases of one
    sentence cannot outweigh it. The claim with more content words is kept (the earlier on a
    tie). Claims the pipeline added, ungrounded claims (rule 7), claims without spans and
    claims of no content word (nothing to restate: "A." beside "B.") are left as they are,
    and judged."""
    features = [text_features(c.text) for c in claims]
    where = [_units_of(c, units) for c in claims]
    gone: dict[int, int] = {}
    order = sorted(range(len(claims)), key=lambda i: (-len(features[i].content), i))
    for rank, i in enumerate(order):
        if (i in gone or claims[i].added or claims[i].ungrounded or not where[i]
                or not features[i].content):
            continue
        for j in order[rank + 1:]:
            if (j in gone or claims[j].added or claims[j].ungrounded
                    or not features[j].content or not (where[j] & where[i])):
                continue  # a claim of no content word restates nothing: it is judged
            if (features[j].content <= features[i].content
                    and features[j].negated == features[i].negated
                    and strength_words(claims[j].text) == strength_words(claims[i].text)):
                gone[j] = i
    kept = [c for k, c in enumerate(claims) if k not in gone]
    number = {id(c): n for n, c in enumerate(kept, start=1)}
    for j, i in sorted(gone.items()):
        dropped.append(DroppedText(text=claims[j].text, spans=claims[j].spans,
                                   reason=f"restates claim {number[id(claims[i])]} (no content "
                                   "word it lacks, from the same sentence): counted once"))
    return kept


#: Words a decomposer may write that are in no answer: the frame of a statement made from a
#: yes/no question and its reply ("It is not the case that ...").
_FRAME_STEMS = ("case",)
#: Who "you" / "your" is, as a decomposer may write it once the answer addresses the reader
#: ("retained in your bucket" -> "retained in the customer's bucket").
_READER_STEMS = ("customer", "user", "client", "buyer", "purchaser", "shopper", "owner",
                 "member", "subscriber", "reader", "account", "holder")
_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)


def ungrounded_reason(answer: str, claim: AlignedClaim, units: list[Span]) -> str | None:
    """Why ``claim`` is not grounded in the answer, else ``None`` (rule 7): every content word
    of it (stems, numbers, names; CJK bigrams are not held to this) must be in the sentence it
    is aligned to or in the answer before it, so "It comes with ..." may become "The Vela
    lamp comes with ..." when the answer named the Vela lamp before. Allowed besides: the
    frame of a statement made from a yes/no question ("It is not the case that"); once the
    answer says "you"/"your", a word for the reader ("customer", "user", ...: a resolved
    "your"); and the one word right after a name, its kind ("The Lumo 2 projector" for "The
    Lumo 2", ``_name_kinds``). A claim without a source in the answer is not grounded."""
    if not claim.spans:
        return "its source was not found in the answer"
    if claim.added:
        return None
    end = max(e for _, e in claim.spans)
    covering = [u for u in units if u[0] < end <= u[1]]
    if covering:
        end = covering[0][1]
    context = _context_words(answer[:end])
    if _YOU.search(answer[:end]):
        context = context | _frame_stems(_READER_STEMS)
    words = {w for w in text_features(claim.text).content if not _CJK_BIGRAM.fullmatch(w)}
    missing = sorted(words - context - _frame_stems(_FRAME_STEMS)
                     - _name_kinds(claim.text, _context_names(answer[:end])))
    if missing:
        return ("not grounded in the answer: " + ", ".join(repr(w) for w in missing[:5])
                + (" ..." if len(missing) > 5 else "") + " in neither the sentence it is "
                "aligned to nor the answer before it")
    return _changed_strength(answer, claim, units)


#: Words of ``trust.polarity_rules.strength_words`` a decomposer may add or leave out: "will",
#: "would" and "shall" (tense and politeness more than strength), "also" and "both".
_LOOSE_STRENGTH = frozenset({"will", "would", "shall", "also", "both"})
_CONTRACTED = (
    (re.compile(r"\bwon['\u2019]t\b", re.IGNORECASE), "will not"),
    (re.compile(r"\bshan['\u2019]t\b", re.IGNORECASE), "shall not"),
    (re.compile(r"\bcan(?:['\u2019]t|not)\b", re.IGNORECASE), "can not"),
    (re.compile(r"['\u2019]ll\b", re.IGNORECASE), " will"),
)
#: Modal verbs by what they say, and the other words that say it: necessity ("make sure the
#: policy allows" is "the policy must allow"), advice, possibility or permission ("may",
#: "can", "refundable": a decomposer may say one for another).
_MODAL_CLASS = {"must": "must", "should": "should", "ought": "should", "may": "can",
                "might": "can", "could": "can", "can": "can"}
_MODAL_WORDS = (
    (re.compile(r"\b(?:make sure|ensure|needs? to|have to|has to|had to|required|requires?|"
                r"mandatory|necessary)\b", re.IGNORECASE), "must"),
    (re.compile(r"\b(?:recommended|advised|ought to)\b", re.IGNORECASE), "should"),
    (re.compile(r"\b(?:[a-z]{3,}(?:able|ible)|allowed|permitted|possible|optional)\b",
                re.IGNORECASE), "can"),
)


def strength_of(text: str) -> frozenset[str]:
    """The quantifiers and modal verbs of ``text`` that a claim must keep as its sentence
    says them (``trust.polarity_rules.strength_words`` less ``_LOOSE_STRENGTH``), modal verbs read
    by what they say (``_MODAL_CLASS``, ``_MODAL_WORDS``: "must" and "make sure", "may" and
    "can" and "refundable"); "can't" and "cannot" are "can" with a negation, "won't" and
    "'ll" are "will"."""
    for pattern, repl in _CONTRACTED:
        text = pattern.sub(repl, text)
    words = {_MODAL_CLASS.get(w, w) for w in strength_words(text) - _LOOSE_STRENGTH}
    words |= {name for pattern, name in _MODAL_WORDS if pattern.search(text)}
    return frozenset(words)


def _changed_strength(answer: str, claim: AlignedClaim, units: list[Span]) -> str | None:
    """Why a decomposer's claim does not say what the answer text it came from says, else
    ``None`` (rule 7): a quantifier or modal verb (``strength_of``) that the sentences it is
    aligned to do not hold ("Some plans include SSO." from "All plans include SSO."; "may"
    from "must"), or a negation where they hold none. For a yes/no question answered in the
    answer ("Can X be Y? No."), the statement the pair makes counts as the sentence."""
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    source = []
    for k in sorted({k for span in claim.spans
                     for k in _overlapping(span, units, starts, ends)}):
        source.append(answer[units[k][0]:units[k][1]])
        statement = answered_in_answer(answer, units[k], units)
        if statement:
            source.append(statement)
    if not source:
        return None
    said = " ".join(source)
    extra = sorted(strength_of(claim.text) - strength_of(said))
    if extra:
        stated = sorted(strength_of(said))
        return ("changes what the answer says: " + ", ".join(repr(w) for w in extra)
                + " is not in the sentence it is aligned to"
                + (f" (which says {', '.join(repr(w) for w in stated)})" if stated else ""))
    if text_features(claim.text).negated and not text_features(said).negated:
        return ("changes what the answer says: it is negated, and the sentence it is aligned "
                "to is not")
    return None


_CJK_BIGRAM = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                         r"\uf900-\ufaff]{1,2}")


@lru_cache(maxsize=256)
def _context_words(text: str) -> frozenset[str]:
    return text_features(text).content


@lru_cache(maxsize=4)
def _frame_stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for word in words for w in text_features(word).content)


_TOKEN_RUN = re.compile(r"[\w][\w.'\u2019-]*")


@lru_cache(maxsize=256)
def _context_names(text: str) -> frozenset[str]:
    return text_features(text).mandatory


def _name_kinds(claim: str, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Stems of the word right after each name in ``claim``: its kind, which a decomposer may
    add when it writes the name out ("The Lumo 2 projector", "the Vela desk lamp"). A name is
    a run of capitalised words and numbers that holds a capitalised word other than a stop
    word (the claim's first word only when it is a name of the answer, ``names``: "Sale
    items" is no name); a word after a bare number ("3 levels") is not a kind."""
    tokens = _TOKEN_RUN.findall(claim)
    kinds: set[str] = set()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word[:1].isupper() and word.lower() not in STOP_WORDS and (
                i > 0 or word.lower() in names):
            j = i + 1
            while j < len(tokens) and (tokens[j][:1].isupper() or tokens[j][:1].isdigit()):
                j += 1
            if j < len(tokens) and tokens[j][:1].islower():
                kinds |= text_features(tokens[j]).content
            i = j
            continue
        i += 1
    return frozenset(kinds)
