"""One assertion -> self-contained claims: coordinated assertions split ("X supports A and has
B" -> "X supports A." / "X has B."; ``split_coordination``), a subject-less bullet given the
topic of the heading above it (``attach_topic``), an opening pronoun or possessive resolved to
the subject of the claim before (``resolve_pronouns``), and the claim finished as a sentence
(``finish_claim``)."""

from __future__ import annotations

import re

from ....language.lexicon import NOUN_PHRASE_OPENERS
from ....language.text import has_cjk
from .words import (
    AUX,
    IMPERATIVES,
    LEAD_ADVERBIAL,
    SUBJECT_PRONOUNS,
    is_verb,
    subject_of,
)

_CLAUSE_SPLIT = re.compile(r"(\s*(?:;\s*|:\s+|\u2014\s*|(?<=\s)[\u2013-]{1,2}\s+|"
                           r",\s*(?:and|but|while|whereas)\s+|\s+(?:and|but)\s+))",
                           re.IGNORECASE)
#: The glue of ``_CLAUSE_SPLIT`` that sets one statement beside another (a semicolon, a colon,
#: a spaced dash) rather than joining two: the side after it may have a subject of its own
#: that is no pronoun or determiner ("Refunds take 14 days; returns are free.").
_BESIDE = re.compile(r"\s*(?:;|:|\u2014|[\u2013-]{1,2})\s*")


def attach_topic(text: str, topic: str) -> str:
    """A bullet's ``text`` with the ``topic`` of the heading above it, when it has no subject
    of its own: "Waterproof to 10 m" under "Pico 2" -> "Pico 2: Waterproof to 10 m", "Weighs
    3 kg" -> "Pico 2 weighs 3 kg"; ``text`` as written when it opens with a pronoun or a
    determiner, names the topic, or has a verb after its first word."""
    words = text.split()
    if not words:
        return text
    first = words[0].lower()
    if (first in SUBJECT_PRONOUNS or first in NOUN_PHRASE_OPENERS
            or topic.lower() in text.lower()):
        return text
    if any(is_verb(w) for w in words[1:]):  # it has a subject and a verb of its own
        return text
    if is_verb(first) or (first.endswith("s") and not first.endswith("ss") and len(first) > 3):
        return f"{topic} {first}{(' ' + ' '.join(words[1:])) if len(words) > 1 else ''}"
    return f"{topic}: {text}"


#: Words that open a subordinate clause (a condition, a time, a cause, a concession). A
#: sentence that opens with one ("If the item is unused, ...") keeps that clause whole and
#: gives it to every conjunct of the main clause after its comma; after a condition inside a
#: sentence (``_CONDITION``: "You get a refund if X and Y") nothing is split, so no conjunct
#: loses its condition.
_SUBORDINATOR = re.compile(
    r"\b(?:if|unless|when|whenever|once|provided(?: that)?|providing|as long as|so long as|"
    r"in case|only if|even if|after|before|until|till|because|since|although|though|"
    r"even though|whereas|wherever)\b", re.IGNORECASE)
#: The subordinators that bind a clause inside a sentence ("... if X and Y"); the others
#: ("since 2020", "after 30 days") are as often prepositions.
_CONDITION = re.compile(r"\b(?:if|unless|provided that|as long as|so long as|in case|"
                        r"only if|even if|whenever|although|though|even though)\b",
                        re.IGNORECASE)


def split_coordination(text: str) -> list[tuple[str, int, int]]:
    """Split coordinated assertions; conjuncts that share the subject get it copied.

    A sentence that opens with a subordinate clause ("If the item is unused, you get a refund
    and keep the tags.") keeps it whole: its main clause, after the comma, is split, and each
    conjunct gets the clause ("If the item is unused, you keep the tags."); without such a
    comma, or with a subordinate clause later in the sentence, the sentence is not split.

    Returns (clause, start, end): each clause with the part of ``text`` it was cut from (its
    own words; a copied subject, lead adverbial or subordinate clause is not part of that
    range).
    """
    if has_cjk(text):
        return [(text, 0, len(text))]
    opening = _SUBORDINATOR.match(text.lstrip())
    if opening:
        comma = text.find(", ")
        if comma < 0:
            return [(text, 0, len(text))]
        condition, main_at = text[:comma + 2], comma + 2
        parts = _split_main(text[main_at:])
        out = []
        for i, (clause, start, end) in enumerate(parts):
            clause = clause[:1].lower() + clause[1:] if _lower_ok(clause) else clause
            out.append((condition + clause, 0 if i == 0 else main_at + start, main_at + end))
        return out
    if _CONDITION.search(text):  # "A and B if C": which conjuncts C binds is unclear
        return [(text, 0, len(text))]
    return _split_main(text)


def _lower_ok(clause: str) -> bool:
    """Whether a main clause's first word may be lower-cased after a copied condition (not a
    name, an acronym or "I")."""
    first = clause.split()[0] if clause.split() else ""
    return first.lower() in SUBJECT_PRONOUNS - {"i"} or first.lower() in NOUN_PHRASE_OPENERS


def _split_main(text: str) -> list[tuple[str, int, int]]:
    """``split_coordination`` for a clause with no subordinate clause in front of it."""
    pieces = _CLAUSE_SPLIT.split(text)
    if len(pieces) == 1:
        return [(text, 0, len(text))]
    out: list[list] = [[pieces[0], 0, len(pieces[0])]]
    offset = len(pieces[0])
    for glue, part in zip(pieces[1::2], pieces[2::2]):
        start = offset + len(glue)
        offset = start + len(part)
        words = part.split()
        first = words[0].lower() if words else ""
        prev = out[-1][0]
        is_clause = False
        shared_subject = False
        if first in SUBJECT_PRONOUNS - {"that"}:
            is_clause = True
        elif first in NOUN_PHRASE_OPENERS and any(w.lower() in AUX for w in words[1:7]):
            is_clause = True
        elif _BESIDE.fullmatch(glue) and any(w.lower() in AUX for w in words[1:4]) and (
                glue.strip() == ";" or len(prev.split()) >= 3 or any(
                w.lower() in AUX or is_verb(w.lower()) for w in prev.split()[1:])):
            is_clause = True  # "...; returns are free": a statement with its own subject
        elif _BESIDE.fullmatch(glue) and glue.strip() != ";":
            is_clause = False  # "Includes: SSO and audit logs": no statement after a colon
        elif first in AUX or (is_verb(first) and first not in {"use", "work", "show", "sell",
                                                               "stay", "star"}):
            is_clause = True
            shared_subject = True
        elif first in IMPERATIVES and _starts_imperative(prev):
            is_clause = True
        if not is_clause:
            out[-1][0] = prev + glue + part  # not a clause: keep the original text
            out[-1][2] = offset
            continue
        if shared_subject:
            if _starts_imperative(prev):
                out.append([part, start, offset])
                continue
            parsed = subject_of(out[0][0])
            if parsed is None:
                out[-1][0] = prev + glue + part
                out[-1][2] = offset
                continue
            lead, subject, _ = parsed
            lead_cap = lead[:1].upper() + lead[1:] if lead else ""
            subj = subject if lead else subject[:1].upper() + subject[1:]
            if lead_cap:
                subj = subject
            out.append([f"{lead_cap}{subj} {part}", start, offset])
        else:
            adverbial = LEAD_ADVERBIAL.match(out[0][0])
            out.append([(adverbial.group(1) if adverbial else "") + part, start, offset])
    return [(c, s, e) for c, s, e in out]


def _starts_imperative(clause: str) -> bool:
    m = LEAD_ADVERBIAL.match(clause)
    words = (clause[m.end():] if m else clause).split()
    return bool(words) and words[0].lower() in IMPERATIVES


_PRONOUN_SUBJECT = re.compile(r"^(it|they|this|these)\b(?!\s*'s\b)(?=\s+\S)", re.IGNORECASE)
_PRONOUN_POSSESSIVE = re.compile(r"^(its|their)\b", re.IGNORECASE)


_CONTRACTION = re.compile(
    r"^(it|they|this)(?:'s|\u2019s|'re|\u2019re)\s+|^(its)\s+(?=(?:the|a|an)\s)", re.IGNORECASE)


def _expand_contraction(body: str) -> str:
    m = _CONTRACTION.match(body)
    if not m:
        return body
    pronoun = m.group(1) or m.group(2)[:2]
    verb = "are" if pronoun.lower() == "they" else "is"
    return f"{pronoun} {verb} " + body[m.end():]


def resolve_pronouns(clause: str, entity: str | None) -> tuple[str, str | None]:
    """Resolve an opening pronoun to ``entity``; return the clause and the new entity."""
    m = LEAD_ADVERBIAL.match(clause)
    lead, body = (m.group(1), clause[m.end():]) if m else ("", clause)
    if entity:
        body = _expand_contraction(body)
    if entity:
        pm = _PRONOUN_SUBJECT.match(body)
        nxt = body[pm.end():].split()[0].lower() if pm and body[pm.end():].split() else ""
        if pm and (pm.group(1).lower() in {"it", "they"} or is_verb(nxt)):
            body = _the(entity) + body[pm.end():]
        else:
            pp = _PRONOUN_POSSESSIVE.match(body)
            if pp:
                body = _possessive(_the(entity)) + body[pp.end():]
    if not lead:
        body = body[:1].upper() + body[1:]
    clause = lead + body
    parsed = subject_of(clause)
    if parsed is not None:
        subject = parsed[1]
        first = subject.split()[0].lower() if subject.split() else ""
        if (first not in SUBJECT_PRONOUNS and first not in {"its", "their", "his", "her"}
                and "," not in subject and len(subject.split()) <= 8):
            poss = re.match(r"^(.+?)'s?\s+\S", subject)
            entity = poss.group(1) if poss and "'" in subject else subject
    return clause, entity


def _the(entity: str) -> str:
    return (entity[:1].lower() + entity[1:] if entity.split()[0].lower() in NOUN_PHRASE_OPENERS
            else entity)


def _possessive(np: str) -> str:
    return np + ("'" if np.endswith("s") else "'s")


def finish_claim(clause: str) -> str:
    """``clause`` as a claim: stripped of surrounding ",;:", capitalized and ended with a full
    stop (a bracket of ids after the full stop stays there); CJK text as written; ``""``
    when it has no word."""
    clause = clause.strip().strip(",;:").strip()
    if not clause or not re.search(r"\w", clause):
        return ""
    if has_cjk(clause):
        return clause
    clause = clause[:1].upper() + clause[1:]
    if clause[-1] not in ".!?\u3002" and not re.search(r"[.!?]\s*(?:\[[^\]]*\]\s*)+$", clause):
        clause += "."  # a bracket of ids after the full stop stays there, for the pipeline
    return clause
