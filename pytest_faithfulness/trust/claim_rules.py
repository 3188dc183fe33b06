"""Quote-check rules on a claim as a whole: hedges, exceptions, riders, parts and openers.

A supported verdict's evidence must assert what the claim asserts (no "may", no "if", no
"except"), speak to every part of it and to the phrase it adds. Used by
``trust.quote_check.check_verdict``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from ..language.features import CLAUSE_BREAK, PART_BREAK, TextFeatures, text_features
from ..language.lexicon import (
    CLAIM_OPENERS,
    DISCOURSE,
    FILLERS,
    IDIOMS,
    MODALS,
    NEGATING_PREFIXES,
    NEGATIVE_WORDS,
    NOT_NEGATED,
    NUMBER_WORDS,
    PREPOSITIONS,
    RIDER_ENDS,
    RIDER_OPENERS,
    STOP_WORDS,
    UNITS,
)
from ..language.quantities import looks_like_year, name_parts, surface_form
from ..language.text import is_common_word
from ..language.words import (
    TOKEN_PATTERN,
    antonym_table,
    covers_any,
    fold_phrases,
    is_content,
    is_stated,
    opposite,
    stem_word,
)
from .evidence import SENTENCE_BREAK, QuotedEvidence
from .name_rules import slot_rival
from .number_rules import number_problem, rival_in_quotes
from .polarity_rules import (
    clause_polarity_problem,
    negated_first,
    particle_problem,
    polarity_problem,
    quantifier_problem,
    quantifiers,
    strength_words,
)

#: Words that say a sentence is not asserted as a fact: a modal of possibility, a plan or a
#: hope ("Refunds may be issued", "is planned to support", "We hope ... will support").
_TENTATIVE = re.compile(r"\b(?:(?:is|are|was|were) (?:planned|expected|scheduled|slated|"
                        r"rumou?red|tipped|hoped) to|plan(?:s|ned)? to|hopes?(?: that)?|hoped"
                        r"|hopefully|intends? to|intended to|aims? to)\b")

#: A modal of possibility and the word it governs ("may be issued", "would be waterproof").
_MAY = re.compile(r"\b(?:may|might|could|would)\s+(?:(?:soon|also|still|eventually|then|even|"
                  r"be|have|been)\s+){0,2}([^\W\d_][\w'-]*)")

#: Words that put a condition on a sentence ("If you spend over $50, shipping is free",
#: "free only for members"); the condition runs to the next part or clause break.
_CONDITION = re.compile(r"\b(?:if|unless|only (?:for|if|when|after|with|on|to|in)|as long as|"
                        r"provided(?: that)?|on condition that|so long as)\b")


def hedged_problem(claim: str, cf: TextFeatures, evidence: str) -> str | None:
    """Why the evidence sentences that state the claim (at least half its content words) do
    not assert it as the claim does, or ``None``: a modal of possibility governing a word of
    the claim (``_MAY``: "may be issued") or a plan or hope before most of the claim's words
    (``_TENTATIVE``), where the claim has no modal, plan or hope; or a condition
    (``_CONDITION``) the claim lacks, on a clause that states three quarters of the claim's
    words besides it, of whose words the claim states none ("If you spend over $50, shipping
    is free" does not state "Shipping is free"; it states "Shipping is free on orders over
    $50")."""
    lower_claim = claim.lower()
    for sentence in SENTENCE_BREAK.split(evidence):
        lower = sentence.lower()
        sf = text_features(sentence, sentence_start_exempt=False)
        if len(cf.content & sf.content) * 2 < len(cf.content) or not cf.content:
            continue
        if not _TENTATIVE.search(lower_claim) and not strength_words(claim) & MODALS:
            for m in _MAY.finditer(lower):
                if stem_word(m.group(1)) in cf.content:  # "Refunds may be issued ..."
                    return f"says it may be so ({m.group(0)!r}) where the claim asserts it"
            for m in _TENTATIVE.finditer(lower):
                rest = text_features(CLAUSE_BREAK.split(lower[m.end():])[0],
                                     sentence_start_exempt=False).content
                if len(cf.content & rest) * 2 >= len(cf.content):
                    return (f"says it is planned or hoped for ({m.group(0)!r}) where the "
                            "claim asserts it")
        if _CONDITION.search(lower_claim):
            continue
        for clause in CLAUSE_BREAK.split(lower):
            for m in _CONDITION.finditer(clause):
                tail = PART_BREAK.split(clause[m.end():])[0]
                words = text_features(tail, sentence_start_exempt=False).content
                main = text_features(clause[:m.start()] + clause[m.end() + len(tail):],
                                     sentence_start_exempt=False).content
                if len(cf.content & main) * 4 < len(cf.content) * 3 or not words or covers_any(
                        words, cf.content) or any(stem_word(g.group(1)) not in cf.content
                                                  for g in _MAY.finditer(clause)):
                    continue  # the condition is on another clause or on a modal's other
                    # word ("if ..., the flat could be worth"), or the claim states it
                return (f"puts a condition on it ({m.group(0) + tail!r}) that the claim "
                        "drops")
    return None


#: How many words after an exception word ("except", "other than") name what is excepted.
EXCEPTION_REACH = 4


def excepted_name(claim: str, names: frozenset[str], evidence: str) -> str | None:
    """A name of the claim (``names``: stems) that the evidence names within
    ``EXCEPTION_REACH`` words after an exception word (``_EXCEPTION``: "All plans include SSO
    except the Basic plan", "Every plan other than Basic ..."), when the claim makes no
    exception itself; else ``None``."""
    if not names or _EXCEPTION.search(claim.lower()):
        return None
    lower = surface_form(evidence).lower()
    for m in _EXCEPTION.finditer(lower):
        for tok in TOKEN_PATTERN.findall(lower[m.end():])[:EXCEPTION_REACH]:
            if stem_word(tok) in names or tok in names:
                return tok
    return None


#: A phrase of more content words than this runs into what the claim says next: not read.
MAX_RIDER_WORDS = 3


def unsaid_phrase(claim: str, stated: frozenset[str]) -> str | None:
    """A prepositional phrase of the claim (``RIDER_OPENERS``; at most ``MAX_RIDER_WORDS``
    content words, none a number) of whose content words more than half are stated nowhere
    in the evidence (``stated``), while every other content word of the claim is stated: a
    rider without a comma, the evidence's statement with a phrase added ("Refunds are issued
    in cash within 14 days" against "Refunds are issued within 14 days"). A claim that
    words more than the phrase otherwise is a paraphrase, left to the part rule. Returns the
    phrase, or ``None``."""
    lower = fold_phrases(surface_form(claim).lower())
    rest = text_features(claim).content - FILLERS - DISCOURSE
    for part in CLAUSE_BREAK.split(lower):
        for sub in PART_BREAK.split(part or ""):
            tokens = TOKEN_PATTERN.findall(sub)
            i = 0
            while i < len(tokens):
                if tokens[i] not in RIDER_OPENERS:
                    i += 1
                    continue
                j = i + 1
                while j < len(tokens) and tokens[j] not in PREPOSITIONS \
                        and tokens[j] not in RIDER_ENDS:
                    j += 1
                words = [stem_word(t) for t in tokens[i + 1:j] if is_content(t)]
                if words and len(words) <= MAX_RIDER_WORDS and not set(words) & IDIOMS \
                        and not any(
                        w[0].isdigit() or w in UNITS or t in NUMBER_WORDS
                        for w, t in zip(words, tokens[i + 1:j])):
                    unsaid = [w for w in words if not is_stated(w, stated)]
                    if 2 * len(unsaid) > len(words) and all(
                            is_stated(w, stated) for w in rest - set(words)):
                        return " ".join(tokens[i:j])
                i = j
    return None


#: Words that make an exception to what a sentence says of all ("all plans except Free").
_EXCEPTION = re.compile(r"\b(?:except|excepting|excluding|other than|apart from|aside from|"
                        r"save for|unless|but not|with the exception of)\b")


def restates(claim: str, cf: TextFeatures, xf: TextFeatures, qf: TextFeatures,
             ev: QuotedEvidence) -> bool:
    """Whether the evidence (``xf``: quotes and their sentences; ``qf``: the quotes) says
    the claim as it is, so cannot carry ``contradicted``: it states every content word of the
    claim, with the claim's polarity (no word negated on one side only, no opposite word, no
    negation or negative word the claim lacks, no up/down), states the claim's numbers as
    quantities with no rival beside them (rules 5 and 9 of ``check_verdict``), and no
    quantifier other than the claim's."""
    stated = xf.content | qf.content
    if not all(is_stated(w, stated) for w in cf.content):
        return False
    if _EXCEPTION.search(ev.context.lower()) and not _EXCEPTION.search(claim.lower()):
        return False  # "included on all plans except Free" makes an exception to the claim
    if polarity_problem(cf, xf, claim) or particle_problem(claim, ev.context) \
            or clause_polarity_problem(cf, ev.context):
        return False
    negative = any(negated_inside(w) or w in NEGATIVE_WORDS for w in xf.words)
    if xf.negated != cf.negated or negative and not cf.negated:
        return False
    if number_problem(cf, xf, qf, claim) or rival_in_quotes(cf, qf, cf.mandatory - cf.numbers) \
            or unattached(cf, xf, None) or slot_rival(claim, list(ev.units), set()):
        return False
    return not quantifier_problem(claim, ev) and quantifiers(ev.quotes) <= quantifiers(claim)


def said_through_opposite(word: str, cf: TextFeatures, xf: TextFeatures,
                          claim: str | None = None) -> bool:
    """Whether the evidence ``xf`` states the claim's ``word`` as its opposite by a negating
    prefix with the other polarity ("not refundable" for "non-refundable", "non-refundable"
    for "not refundable"); a listed opposite ("earlier" / "later") does not count, as a
    negation's scope may not reach it."""
    claimed = {neg for w, neg in cf.scoped if w == word}
    listed = antonym_table().get(word, frozenset())
    first = negated_first(claim) if claim and any(v in listed for v, _ in xf.scoped) else set()
    if any(opposite(word, v) and (not neg) in claimed
           and (v not in listed or word in first and not neg) for v, neg in xf.scoped):
        return True  # a listed opposite too where the claim's "not" negates the word itself
    # "not refunded" states "non-refundable": the negated verb of a prefixed "-able" word
    base = next((word[len(p):] for p in NEGATING_PREFIXES if word.startswith(p)), "")
    return claimed == {False} and base.endswith(("abl", "ibl")) and len(base) >= 7 and any(
        neg and v == base[:-3] for v, neg in xf.scoped)


#: A part of a claim (clause or comma-separated part) with fewer content words than this is
#: read with the part before it ("insurance for home, auto, life" is one list).
MIN_PART_WORDS = 3


def unattached(cf: TextFeatures, xf: TextFeatures, tf: TextFeatures | None,
               opening: set[str] | frozenset[str] = frozenset()) -> str | None:
    """A number of the claim that the evidence states (rule 5) only in comma-separated parts
    holding none of the other content words of its part of the claim, while another part of
    the evidence states at least half of those words with a number of the claim's kind (year
    or not) that the claim does not give: "competed from 1985 to 1966" against "(born 8
    August 1966), ... who competed from 1985 to 1998" (1966 is there, said of the birth). The
    claim's names, its opening name (``opening``) too, are no words of what it says with the
    number; a parenthesis is a part of its own. A number in a cited title is let be. ``None``
    when no number is so detached."""
    title = tf.content if tf else frozenset()
    for part in cf.parts:
        for term in sorted(part & cf.numbers - title):
            others = part - cf.mandatory - opening - FILLERS - DISCOURSE
            if len(others) < 1:
                continue
            holding = [wc for wc in xf.parts if term in wc]
            if not holding or any(is_stated(o, wc) for wc in holding for o in others):
                continue
            need = max(1, math.ceil(len(others) / 2))
            year = looks_like_year(term)
            for wc in xf.parts:
                rivals = {n for n in wc & xf.numbers - cf.numbers if looks_like_year(n) == year}
                if rivals and sum(is_stated(o, wc) for o in others) >= need:
                    return term
    return None


def claim_parts(cf: TextFeatures) -> list[frozenset[str]]:
    """The content words (fillers and discourse words out) of each part of the claim, a part
    of fewer than ``MIN_PART_WORDS`` joined to the one before it (the first to the next)."""
    parts: list[frozenset[str]] = []
    for part in cf.parts:
        words = part - FILLERS - DISCOURSE
        if not words:
            continue
        if parts and (len(words) < MIN_PART_WORDS or len(parts[-1]) < MIN_PART_WORDS):
            parts[-1] = parts[-1] | words
        else:
            parts.append(words)
    return parts


def opening_name(claim: str, sources: Iterable[str] = ()) -> set[str]:
    """The stemmed words of the claim's first word when it is capitalised, no stop word and
    no common word (``text.is_common_word``) unless ``sources`` (the passages' texts and
    titles) write it capitalised away from a sentence start, as a name ("Hull" of "beat Hull
    2-0"): it may be a name ("Nani listed..."), so it is stated in the evidence, as a name or
    as the same word in any case (``is_stated``). A common word opening the claim ("Markup is
    shown...", "Unfortunately, ...") is read as any other word of its part."""
    tokens = TOKEN_PATTERN.findall(surface_form(claim))
    if not tokens or not tokens[0][:1].isupper() or tokens[0].lower() in STOP_WORDS:
        return set()
    first = tokens[0].lower()
    if first in CLAIM_OPENERS or stem_word(first) in DISCOURSE or (
            is_common_word(tokens[0]) and not _written_as_name(tokens[0], sources)) or (
            tokens[0][1:].islower() and first.endswith(("ing", "ed", "ly", "ers"))):
        return set()  # "After ...", "However ...", "Named after ...", "Sinking sand ..."
    return set(name_parts(tokens[0].lower()))


#: What may stand between a sentence start and its first word: spaces, quotes, a bullet.
_LEAD_IN = frozenset(" \t\"'\u201c\u2018(*#-")


def _written_as_name(word: str, sources: Iterable[str]) -> bool:
    """Whether one of ``sources`` writes the capitalised ``word`` away from a sentence start
    (after a word or a comma, not after ``.!?:``, a line break, a bullet or an opening quote,
    nor at the start of a source). Reads back from each occurrence only as far as the
    character before it: passages may be megabytes."""
    pattern = re.compile(rf"\b{re.escape(word)}\b")
    for text in sources:
        for m in pattern.finditer(text):
            i = m.start()
            while i > 0 and text[i - 1] in _LEAD_IN:
                i -= 1
            if i > 0 and text[i - 1] not in ".!?:\n|\u3002":
                return True
    return False


def negated_inside(word: str) -> bool:
    """Whether the stem ``word`` reads as another word with a negating prefix (other than
    ``in-``, too often a word's own start) or ``-less``: "unidentifi", "dislik", "impossibl"."""
    if word in NOT_NEGATED:
        return False
    if word.endswith("less") and len(word) > 7:
        return True
    return any(word.startswith(p) and len(word) - len(p) >= 3 for p in
               ("non", "un", "dis", "dys", "im", "ir", "il")) and not word.startswith(
        ("unit", "univers", "uniqu", "union", "under", "until", "unless", "imag", "immediat",
         "immun", "immigr", "immers", "impuls", "implem", "impli", "imply", "illumin", "irrit",
         "distr", "dismal", "display", "discov", "discuss", "dissert", "unanim", "uncl",
         "import", "impact", "improv", "impress", "illustrat", "dish", "disc", "disk", "dispos"))
