"""Assertions embedded in a frame: a question or an offer of help that carries a fact of its own
after a cut ("Shall I also cancel your subscription, which renews daily?" -> the frame set aside,
"The subscription renews daily." kept as a claim).

``conjunct_cuts`` finds where such a clause starts (a comma-led clause, a relative clause, a
parenthetical, a causal clause, an appositive); ``relative_claim`` makes a statement of it with
the noun phrase the frame ends in; ``embedded_pieces`` does both for one sentence."""

from __future__ import annotations

import re

from ....language.lexicon import NOUN_PHRASE_OPENERS
from .frames import CONJUNCT, FRAME_WORDS, META_CLAUSE, has_number
from .mapped import Mapped
from .words import AUX, SUBJECT_PRONOUNS, WORD, finish_sentence, is_verb


def conjunct_cuts(text: str) -> list[tuple[int, int]]:
    """Cuts before a clause of its own inside a sentence, where a non-assertive frame (a
    question, an offer of help) may carry an assertion (see ``CONJUNCT`` and
    ``_EMBEDDED``): a comma-led clause whose words have a verb within six words (or a verb
    form right after its subject pronoun: "..., since it renews daily"); a relative clause
    ("..., which renews daily", "the subscription that renews daily", "(which includes
    SSO)": the relative pronoun, then a verb form); a causal clause without a comma ("...
    since it renews daily"); an appositive after a name or noun (", our plan with SSO").
    None opens with I/we/you (the frame's own talk: "..., and I'll help", "anything that
    you need") or talks about the answer itself. Returns the cuts' spans, in order."""
    out: list[tuple[int, int]] = []
    for c in list(CONJUNCT.finditer(text)) + list(_EMBEDDED.finditer(text)):
        after = text[c.end():]
        words = after.split()
        if not words or re.match(r"(?:i|we|you)(?:\b|['\u2019])", words[0], re.IGNORECASE):
            continue
        if META_CLAUSE.search(" ".join(words[:8])):  # talk about the answer itself
            continue
        if any(a < c.end() and c.start() < b for a, b in out):
            continue
        if c.re is _EMBEDDED and not _embedded_clause(c.lastgroup, text[:c.start()], after):
            continue
        if c.re is CONJUNCT:
            relative = words[0].lower() in {"which", "who"}
            rest = words[1 if relative else 0:][:6]
            if not (any(is_verb(w.strip(".!?\"')")) for w in rest)
                    or (relative and _verb_after_adverbs(words[1:]))
                    or (words[0].lower() in SUBJECT_PRONOUNS - {"i", "you", "we"}
                        and _verb_after_adverbs(words[1:]))
                    or (words[0].lower() in NOUN_PHRASE_OPENERS
                        and any(is_verb_form(w) for w in words[1:5]))):
                continue
        out.append(c.span())
    return sorted(out)


#: Where an assertion may sit inside a question or an offer without a comma-led conjunct: a
#: relative pronoun after a word ("the subscription that renews daily"), a parenthetical
#: ("Pro (which includes SSO)", "Pro (our plan with SSO)"), a causal clause ("... since it
#: renews daily"), an appositive (", our plan with SSO"). ``_embedded_clause`` decides.
_EMBEDDED = re.compile(
    r"(?P<relative>(?<=\w)\s+(?=(?:which|who|that)\s))|(?P<paren>\s*\(\s*)|"
    r"(?P<cause>(?<=\w)\s+(?:because|since|given that|now that|seeing that)\s+(?!of\b))|"
    r"(?P<appositive>,\s*(?=(?:the|our|your|their|its|a|an)\s))", re.IGNORECASE)
#: Words after which "that" opens a complement, not a relative clause ("confirm that ...",
#: "anything else that ...": the frame's own talk).
_NOT_ANTECEDENT = frozenset(
    "know see say said confirm confirmed mean think hope sure ensure check note notice tell told "
    "believe aware understand glad happy sorry so such is are was were be anything something "
    "everything nothing anyone someone else one ones like way fact".split())
#: A question about whether something exists ("Is there a plan that ...?", "Are there any
#: ..."): its relative clause asks, it does not assert.
_EXISTENTIAL = re.compile(r"^\W*(?:(?:is|are|was|were|isn't|aren't)\s+there|any(?:thing|one)?)\b",
                          re.IGNORECASE)
_ADVERBS = frozenset("also still only already always never now then not usually often "
                     "currently automatically just even".split())


def is_verb_form(word: str) -> bool:
    """A finite verb by its form: a known verb or auxiliary, or a word ending in -s or -ed
    that is not a plural or an adjective by its ending ("renews", "included"; not "days",
    "glass", "various")."""
    w = word.lower().strip(".,;:!?\"')\u2019")
    if is_verb(w) or w in AUX:
        return True
    return bool(len(w) >= 4 and re.fullmatch(r"[a-z]+(?:s|ed)", w)
                and not re.search(r"(?:ss|us|is|ous|ness|less|ics|ys|ings?|ments?|tions?|"
                                  r"ers|ors|als|ies)$", w))


def _verb_after_adverbs(words: list[str]) -> bool:
    """The first word that is not an adverb ("also", "automatically") is a verb form."""
    for w in words[:4]:
        bare = w.lower().strip(".,;:!?\"')")
        if bare in _ADVERBS or (bare.endswith("ly") and len(bare) > 4):
            continue
        return is_verb_form(w)
    return False


def _embedded_clause(kind: str | None, before: str, after: str) -> bool:
    """Whether the text ``after`` an ``_EMBEDDED`` cut is an assertion of its own: a relative
    clause (after a word that can be its antecedent, with a verb form next), a causal clause
    (a subject and a verb), a parenthetical relative clause or noun phrase, or an appositive
    noun phrase after a name or a noun (no verb in it, a word besides its determiner)."""
    words = after.split()
    first = words[0].lower().strip("(") if words else ""
    prev = before.split()[-1].lower().strip(",") if before.split() else ""
    if first in {"which", "who", "that"} and kind in {"relative", "paren"}:
        if (prev in _NOT_ANTECEDENT or prev in FRAME_WORDS or prev in {"whether", "but", "of"}
                or (first == "that" and is_verb(prev))):
            return False
        own = [w.lower() for w in re.findall(r"[\w'\u2019-]+", re.split(r"[,;)?!.]", after)[0])]
        if (_EXISTENTIAL.match(before) or "you" in own
                or all(w in FRAME_WORDS for w in own[1:])):
            return False  # "Is there a plan that interests you?", "..., who can help"
        return _verb_after_adverbs(words[1:])
    if kind == "relative":
        return False
    parts = re.split(r"([,;)?!.])", after, maxsplit=1)
    head = parts[0].split()
    if not head:
        return False
    if kind in {"appositive", "paren"} and first in NOUN_PHRASE_OPENERS:  # a noun phrase
        if re.match(r"\s*(?:or|and|nor)\b", "".join(parts[2:])) or re.search(
                r"\b(?:or|and)\b", parts[0]):
            return False  # a list of alternatives ("the refund, the store credit, or ...")
        return (len(head) >= 2 and not any(is_verb_form(w) for w in head[1:4])
                and bool(re.search(r"(?:[A-Z][\w-]*|[a-z]{3,})$", before.rstrip(" ,(")))
                and prev not in _NOT_ANTECEDENT and not is_verb(prev))
    if kind == "appositive":
        return False
    # a causal clause (or a parenthetical one): a subject, then a verb
    if first in SUBJECT_PRONOUNS - {"i", "you", "we"} or first in NOUN_PHRASE_OPENERS:
        return _verb_after_adverbs(head[1:]) or any(is_verb_form(w) for w in head[1:5])
    return any(is_verb(w) for w in head[:5])


def relative_claim(frame: str, clause: str) -> str | None:
    """ "... a refund on your sale item" + "which is refundable" -> "The sale item is
    refundable.", or ``None`` when the frame ends in no noun phrase. The same for the other
    assertions a frame may carry (``conjunct_cuts``): "... upgrade you to Pro" + "which
    includes SSO" -> "Pro includes SSO."; "... cancel the subscription" + "it renews daily"
    (the rest of a causal clause) -> "The subscription renews daily."; "... to Pro" + "our
    plan with SSO" (an appositive) -> "Pro is our plan with SSO."; ``None`` for any other
    clause (it is judged as written)."""
    frame = frame.rstrip(" ,(")
    np = re.search(r"\b(?:the|a|an|your|my|our|their|its|this|that|these|those)\s+"
                   r"((?:[\w-]+\s+){0,3}[\w-]+)\W*$", frame, re.IGNORECASE)
    name = re.search(r"(?<![\w-])((?:[A-Z][\w-]*|\d[\w.-]*)(?:\s+(?:[A-Z][\w-]*|\d[\w.-]*)){0,3})"
                     r"\W*$", frame)
    if np:
        subject = f"the {np.group(1)}"
    elif name and name.group(1).split()[0].lower() not in SUBJECT_PRONOUNS:
        subject = name.group(1)
    else:
        return None
    body = clause.strip().rstrip(" .?!)")
    words = body.split()
    if not words:
        return None
    first = words[0].lower()
    if first in {"which", "who", "that"}:
        rest = " ".join(words[1:])
    elif first in {"it", "they", "this", "these"} and len(words) > 1:
        rest = " ".join(words[1:])
    elif first in NOUN_PHRASE_OPENERS and not any(is_verb_form(w) for w in words[1:4]):
        number = "are" if subject.lower().endswith("s") and not subject.endswith("ss") else "is"
        rest = f"{number} {body}"
    else:
        return None
    return finish_sentence(f"{subject} {rest}")


def embedded_pieces(m: Mapped, reason: str):
    """A question or an offer that carries an assertion after a cut (``conjunct_cuts``:
    "Shall I also cancel your subscription, which renews daily?") -> the frame set aside
    (``reason``) and the assertion as a claim ("The subscription renews daily."; judged as
    written when no statement can be made of it); ``None`` when it carries none, or when
    its frame holds a number (then it is judged whole)."""
    text = m.text
    cuts = conjunct_cuts(text)
    if not cuts:
        return None
    start, end = cuts[0]
    frame = text[:start]
    if has_number(frame) or not WORD.search(frame):
        return None
    clause = m[end:]
    statement = relative_claim(frame, clause.text)
    if statement is None:
        body = clause.text.strip().rstrip(" ?!)")
        statement = finish_sentence(body) if WORD.search(body) else None
    if statement is None:
        return None
    return [("drop", reason, m[:start], None), ("claim", None, clause, statement)]
