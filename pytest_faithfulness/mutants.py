"""Lying-judge mutants of a supported claim: the claim changed so that its original evidence no
longer supports it (a number, a unit, its polarity, a name, a quantifier, a clause added).

Used by ``benchmarks/evidence_check.py`` (a lying judge says ``supported`` to a mutant with the
original claim's evidence: the evidence check should refuse it) and, later, by judge canaries
(issue 23): both need the same generator.

Deterministic: every choice is seeded by the claim's text and the kind (SHA-256), never by call
order, so the same claim and passages give the same mutants in any process, shard or order.
Pure Python: no pytest, nothing of ours imported (a ``Passage`` is read by its attributes).

Example::

    from pytest_faithfulness.mutants import mutate
    for m in mutate("Refunds take 14 days.", ["Refunds take 14 days. Call 555 after 5 pm."]):
        print(m.kind, m.built, m.claim)       # number True "Refunds take 17 days." ...

Kinds (``KINDS``): ``number`` (a number changed to one its passages do not state), ``unit``
(a unit or currency changed within its dimension: days/weeks, kg/lb, $/EUR, per year/month),
``negation`` (a ``not`` added after the first auxiliary, or removed), ``negation_in_word``
(non-/un-/in-/im-/ir-/il-/dis-, -ful/-less: added or removed), ``antonym`` (a word of a curated
list replaced by its opposite), ``foreign_name`` (a name replaced by a name from another record),
``swap`` (a number or name replaced by another number or name of the same passages),
``quantifier`` (all/some/most/only/every/none, at least/up to, more/fewer than, maximum/minimum)
and ``appended_clause`` (an unsupported clause appended). A kind that does not apply to a claim
is returned with ``built=False`` and the reason in ``detail``.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "Mutant", "mutate", "names_in", "numbers_in"]

KINDS: tuple[str, ...] = ("number", "unit", "negation", "negation_in_word", "antonym",
                          "foreign_name", "swap", "quantifier", "appended_clause")


@dataclass(frozen=True)
class Mutant:
    """One mutant of a claim.

    Attributes:
        kind: one of ``KINDS``.
        built: whether the kind applied to this claim.
        claim: the mutated claim (``None`` when not built).
        detail: what changed (``"14 -> 17"``) or why the kind could not be built.
    """

    kind: str
    built: bool
    claim: str | None
    detail: str


# --- word lists -----------------------------------------------------------------------------

#: Auxiliaries that the negation mutant puts "not" after ("is" -> "is not"). Not the
#: decomposer's ``AUX``: no contractions ("isn't") and no "be", "been", "being", "am": the
#: finite forms after which "not" negates a third-person claim.
_NEGATABLE_AUX = ("is", "are", "was", "were", "has", "have", "had", "can", "could", "will",
                  "would", "should", "may", "might", "must", "does", "do", "did", "shall")

#: word -> its in-word negation (prefix or suffix). Both directions are used.
_IN_WORD: dict[str, str] = {
    "refundable": "non-refundable", "available": "unavailable", "able": "unable", "safe": "unsafe",
    "eligible": "ineligible", "compatible": "incompatible", "valid": "invalid",
    "active": "inactive", "encrypted": "unencrypted", "possible": "impossible", "legal": "illegal",
    "regular": "irregular", "responsible": "irresponsible", "agree": "disagree",
    "agreed": "disagreed", "like": "dislike", "liked": "disliked", "appear": "disappear",
    "appeared": "disappeared", "approve": "disapprove", "approved": "disapproved",
    "honest": "dishonest", "known": "unknown", "limited": "unlimited", "necessary": "unnecessary",
    "successful": "unsuccessful", "successfully": "unsuccessfully", "certain": "uncertain",
    "common": "uncommon", "usual": "unusual", "official": "unofficial", "stable": "unstable",
    "profitable": "unprofitable", "paid": "unpaid", "fair": "unfair", "happy": "unhappy",
    "popular": "unpopular", "familiar": "unfamiliar", "armed": "unarmed", "clear": "unclear",
    "aware": "unaware", "likely": "unlikely", "complete": "incomplete", "correct": "incorrect",
    "accurate": "inaccurate", "dependent": "independent", "visible": "invisible",
    "capable": "incapable", "sufficient": "insufficient", "effective": "ineffective",
    "formal": "informal", "mature": "immature", "moral": "immoral", "mobile": "immobile",
    "patient": "impatient", "perfect": "imperfect", "relevant": "irrelevant",
    "reversible": "irreversible", "logical": "illogical", "literate": "illiterate",
    "qualified": "disqualified", "connected": "disconnected", "continued": "discontinued",
    "locked": "unlocked", "healthy": "unhealthy", "affordable": "unaffordable",
    "acceptable": "unacceptable", "reliable": "unreliable", "predictable": "unpredictable",
    "employed": "unemployed", "expected": "unexpected", "identified": "unidentified",
    "married": "unmarried", "natural": "unnatural", "authorized": "unauthorized",
    "authorised": "unauthorised", "supported": "unsupported", "covered": "not covered",
    "friendly": "unfriendly", "comfortable": "uncomfortable", "lucky": "unlucky",
    "sustainable": "unsustainable", "secure": "insecure", "sensitive": "insensitive",
    "competent": "incompetent", "consistent": "inconsistent", "convenient": "inconvenient",
    "direct": "indirect", "flexible": "inflexible", "accessible": "inaccessible",
    "profit": "non-profit", "binding": "non-binding", "violent": "non-violent",
    "toxic": "non-toxic", "essential": "non-essential", "smoking": "non-smoking",
    "stop": "non-stop", "careful": "careless", "useful": "useless", "helpful": "unhelpful",
    "harmful": "harmless", "wired": "wireless", "obey": "disobey", "obeyed": "disobeyed",
    "trust": "distrust", "honor": "dishonor", "satisfied": "dissatisfied",
    "advantage": "disadvantage", "advantages": "disadvantages", "ability": "inability",
    "equality": "inequality", "justice": "injustice", "capacity": "incapacity",
}

#: curated opposite pairs; both directions are used.
_ANTONYMS: dict[str, str] = {
    "enabled": "disabled", "accepted": "rejected", "accept": "reject", "accepts": "rejects",
    "issued": "denied", "include": "exclude", "includes": "excludes", "included": "excluded",
    "incur": "avoid", "qualify": "are excluded", "always": "rarely", "never": "always",
    "increase": "decrease", "increased": "decreased", "increases": "decreases",
    "increasing": "decreasing", "rose": "fell", "rise": "fall", "rises": "falls",
    "risen": "fallen", "won": "lost", "win": "lose", "wins": "loses", "higher": "lower",
    "more": "less", "larger": "smaller", "bigger": "smaller", "before": "after",
    "first": "last", "open": "closed", "opened": "closed", "opens": "closes", "start": "end",
    "started": "ended", "began": "ended", "begins": "ends", "allowed": "banned",
    "allow": "forbid", "allows": "forbids", "permitted": "prohibited", "supports": "opposes",
    "supported": "opposed", "support": "oppose", "buy": "sell", "bought": "sold",
    "buys": "sells", "gain": "loss", "gained": "lost", "early": "late", "earlier": "later",
    "positive": "negative", "strong": "weak", "stronger": "weaker", "new": "old",
    "young": "old", "younger": "older", "maximum": "minimum", "above": "below",
    "inside": "outside", "north": "south", "northern": "southern", "east": "west",
    "eastern": "western", "alive": "dead", "died": "survived", "male": "female", "men": "women",
    "man": "woman", "boys": "girls", "boy": "girl", "success": "failure",
    "succeeded": "failed", "cheap": "expensive", "cheaper": "more expensive", "hot": "cold",
    "easy": "difficult", "fast": "slow", "faster": "slower", "best": "worst",
    "better": "worse", "major": "minor", "public": "private", "full": "empty", "true": "false",
    "internal": "external", "import": "export", "imports": "exports", "arrived": "departed",
    "entered": "left", "hired": "fired", "joined": "left", "agreed": "refused",
    "guilty": "innocent", "victory": "defeat", "ally": "enemy", "friend": "enemy",
    "friends": "enemies", "love": "hate", "loved": "hated", "loves": "hates", "wet": "dry",
    "heavy": "light", "long": "short", "longer": "shorter", "high": "low", "large": "small",
    "big": "small", "upper": "lower", "top": "bottom", "rich": "poor", "wealthy": "poor",
    "many": "few", "highest": "lowest", "largest": "smallest",
    "biggest": "smallest", "oldest": "youngest", "win's": "loss's", "lead": "trail",
    "led": "trailed", "leading": "trailing", "remove": "add", "removed": "added",
    "added": "removed", "add": "remove", "same": "different", "similar": "different",
    "raise": "lower", "raised": "lowered", "expand": "shrink", "expanded": "shrank",
    "ascending": "descending", "encrypted": "plaintext", "online": "offline",
    "inbound": "outbound", "input": "output", "mandatory": "optional", "required": "optional",
    "free": "paid", "summer": "winter", "morning": "evening", "day": "night",
    "increasingly": "decreasingly", "domestic": "foreign",
    "urban": "rural", "ancient": "modern", "arrive": "depart", "push": "pull",
    "attack": "defend", "attacked": "defended",
}

_QUANTIFIERS: list[tuple[str, str]] = [
    ("at least", "up to"), ("up to", "at least"), ("no more than", "at least"),
    ("more than", "fewer than"), ("fewer than", "more than"), ("less than", "more than"),
    ("over", "under"), ("under", "over"), ("within", "after"), ("all", "some"),
    ("every", "some"), ("each", "some"), ("most", "few"), ("some", "all"), ("only", "also"),
    ("none", "all"), ("no", "some"), ("many", "few"), ("several", "no"), ("always", "sometimes"),
    ("maximum", "minimum"), ("minimum", "maximum"), ("both", "neither"), ("entire", "partial"),
    ("nearly", "exactly"), ("almost", "exactly"), ("about", "exactly"), ("around", "exactly"),
]

_UNIT_GROUPS: list[list[str]] = [
    ["seconds", "minutes", "hours", "days", "weeks", "months", "years"],
    ["second", "minute", "hour", "day", "week", "month", "year"],
    ["mg", "g", "kg", "lb", "oz"], ["grams", "kilograms", "pounds", "ounces", "tonnes"],
    ["gram", "kilogram", "pound", "ounce", "tonne"],
    ["mm", "cm", "m", "km", "mi", "ft"], ["millimetres", "centimetres", "metres", "kilometres",
                                          "miles", "feet", "inches", "meters", "kilometers"],
    ["ml", "l"], ["millilitres", "litres", "liters", "gallons"],
    ["thousand", "million", "billion", "trillion"],
    ["mph", "km/h"], ["GB", "MB", "TB", "KB"], ["users", "seats", "devices"],
]
_PER = ["per year", "per month", "per week", "per day", "per hour", "a year", "a month",
        "a week", "a day", "annually", "monthly", "weekly", "daily"]
_CURRENCY = ["$", "€", "£", "¥"]

#: The small cardinals the number mutant swaps between, in counting order (index = value).
#: Not ``language.lexicon.NUMBER_WORDS`` (word -> digits, with ordinals, "dozen", "twice"):
#: a word mutated here must read as a plain count in any sentence. (This module imports
#: nothing of ours, so the lexicon's list is not read here.)
_SWAP_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                      "nine", "ten", "eleven", "twelve"]

_CLAUSES = [
    "and shipping is free worldwide", "and it was later cancelled by regulators",
    "according to a survey published in 2031", "and the offer ends on 31 March 2029",
    "and every customer receives a lifetime warranty", "after a vote by the Zorvath council",
    "and the company plans to double its staff in Oslo", "which cost 48 million kroner",
    "and a second edition follows in 2033", "and no fee is charged for the first 90 days",
]

_FALLBACK_NAMES = ["Quillan Orvath", "Marisol Teague", "Brightwater Holdings", "Vexley",
                   "Port Ardent", "Halvorsen Institute", "Tamsin Okoro", "Drennick County"]

_NAME_STOP = frozenset("""
The A An And But Or If In On At To For From By With Of As Is Are Was Were It Its This That These
Those He She They We You I His Her Their Our My Your There Here When Where What Who Why How
Also However Yes No Not Then So After Before During While Some All Most Many Each Every Both
""".split())

_NUM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
_NAME = re.compile(r"\b[A-Z][\w'’&.-]*[\w](?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'’&.-]*[\w])*")


# --- helpers --------------------------------------------------------------------------------

def _rng(claim: str, kind: str) -> random.Random:
    seed = hashlib.sha256(f"{kind}\x00{claim}".encode()).digest()
    return random.Random(int.from_bytes(seed[:8], "big"))


def _texts(passages: Iterable[Any]) -> list[str]:
    out = []
    for p in passages:
        if isinstance(p, str):
            out.append(p)
        else:
            title = getattr(p, "title", None) or (p.get("title") if isinstance(p, dict) else None)
            text = getattr(p, "text", None) if not isinstance(p, dict) else p.get("text")
            if not isinstance(text, str):
                raise TypeError(f"passage must be a string, a Passage or a dict with 'text', "
                                f"got {type(p).__name__}")
            out.append(f"{title}\n{text}" if title else text)
    return out


def numbers_in(text: str) -> list[str]:
    """The numbers written with digits in ``text``, as written (``"1,200"``, ``"3.5"``), in
    order."""
    return [m.group(0) for m in _NUM.finditer(text)]


def _starts_sentence(before: str) -> bool:
    """Whether text after ``before`` starts a sentence: ``before`` is blank, or ends in
    ``.``, ``!``, ``?`` or ``:``, closing quotes or brackets, then whitespace (the regex
    ``[.!?:]['"”’)]*\\s+$``, read from the end so that it costs the tail only)."""
    stripped = before.rstrip()
    if not stripped:
        return True
    if len(stripped) == len(before):
        return False
    return stripped.rstrip("'\"”’)").endswith((".", "!", "?", ":"))


def _later_uses(text: str, word: str) -> list[tuple[int, bool]]:
    """Every position where ``word`` occurs in ``text`` as a whole word, overlapping ones too,
    each with whether it does not follow a sentence end (``[.!?:]`` and one space). Found
    once per word, so that ``names_in`` asks whether a word is used after a point (not at a
    sentence start) without searching the rest of the text again for each use."""
    return [(m.start(), not (m.start() >= 2 and text[m.start() - 2] in ".!?:"
                             and text[m.start() - 1].isspace()))
            for m in re.finditer(r"(?=\b" + re.escape(word) + r"\b)", text)]


def names_in(text: str) -> list[str]:
    """Name phrases of ``text``: runs of capitalised words (a leading function word such as
    "The" dropped), and tokens mixing letters and digits (``S3``, ``A320``); in order, distinct."""
    out: list[str] = []
    later: dict[str, list[tuple[int, bool]]] = {}  # word -> its uses (``_later_uses``)
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        initial = _starts_sentence(text[:m.start()])
        if initial and words and words[0] not in _NAME_STOP:
            # a capitalised first word of a sentence is a name only when the text capitalises
            # it elsewhere too, or it starts a run of capitalised words
            if words[0] not in later:
                later[words[0]] = _later_uses(text, words[0])
            elsewhere = any(q > m.end() and (q == m.end() + 1 or ok) for q, ok in later[words[0]])
            if len(words) == 1 and not elsewhere:
                continue
        while words and words[0] in _NAME_STOP:
            words = words[1:]
        phrase = re.sub(r"['’]s$", "", " ".join(words).rstrip("."))
        if len(words) == 1 and (re.search(r"['’](m|re|ve|ll|d|t)$", phrase)
                                or re.search(r"\b" + re.escape(phrase.lower()) + r"\b", text)):
            continue  # "I'm"; "Month" where the text also writes "month"
        if phrase and phrase not in out and len(phrase) > 1:
            out.append(phrase)
    for m in re.finditer(r"\b(?=\w*\d)(?=\w*[A-Za-z])[A-Za-z0-9-]{2,}\b", text):
        if m.group(0) not in out and not re.fullmatch(r"\d+(st|nd|rd|th|s|m|bn|k|kg|g|km|ml)?",
                                                      m.group(0)):
            out.append(m.group(0))
    return out


def _value(num: str) -> float:
    return float(num.replace(",", ""))


def _format_like(template: str, value: float) -> str:
    decimals = len(template.split(".")[1]) if "." in template else 0
    if decimals:
        s = f"{value:.{decimals}f}"
    else:
        s = str(int(round(value)))
    if "," in template:
        head, _, tail = s.partition(".")
        head = f"{int(head):,}"
        s = head + ("." + tail if tail else "")
    return s


def _stated(number: str, haystack: str) -> bool:
    bare = number.replace(",", "")
    return any(n.replace(",", "") == bare for n in numbers_in(haystack))


def _sub_word(text: str, start: int, end: int, new: str) -> str:
    old = text[start:end]
    if old[:1].isupper() and new[:1].islower():
        new = new[0].upper() + new[1:]
    return text[:start] + new + text[end:]


def _built(kind: str, claim: str, detail: str) -> Mutant:
    return Mutant(kind=kind, built=True, claim=claim, detail=detail)


def _skip(kind: str, why: str) -> Mutant:
    return Mutant(kind=kind, built=False, claim=None, detail=why)


def _words(claim: str) -> list[re.Match[str]]:
    return list(re.finditer(r"[A-Za-z][A-Za-z'’-]*", claim))


# --- the kinds ------------------------------------------------------------------------------

def _number(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "number")
    found = list(_NUM.finditer(claim))
    if found:
        m = rng.choice(found)
        old = m.group(0)
        v = _value(old)
        is_year = "." not in old and "," not in old and 1800 <= v <= 2100
        steps = [1, 2, 3, 5] if is_year else ([1, 2, 3] if v < 10 else [])
        candidates = [v + s for s in steps] + [v - s for s in steps if v - s > 0]
        if not is_year:
            candidates += [v * 2, v * 3, v + max(1, round(v * 0.4)), v * 1.5]
        rng.shuffle(candidates)
        for c in candidates:
            new = _format_like(old, c)
            if new != old and not _stated(new, hay):
                return _built("number", claim[:m.start()] + new + claim[m.end():],
                              f"{old} -> {new}")
        return _skip("number", f"no new value for {old} that the passages do not state")
    for w in _words(claim):
        low = w.group(0).lower()
        if low in _SWAP_NUMBER_WORDS[1:]:
            i = _SWAP_NUMBER_WORDS.index(low)
            options = [n for n in _SWAP_NUMBER_WORDS[2:] if n != low and n not in hay.lower()]
            if i == 1:
                options = [n for n in options if n in ("two", "three")]  # keep grammar sane
            if options:
                new = rng.choice(options)
                return _built("number", _sub_word(claim, w.start(), w.end(), new),
                              f"{low} -> {new}")
    return _skip("number", "the claim states no number")


def _unit(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "unit")
    low_hay = hay.lower()
    # currency symbol before a number
    m = re.search(r"([$€£¥])\s?\d", claim)
    if m:
        new = rng.choice([c for c in _CURRENCY if c != m.group(1)])
        return _built("unit", claim[:m.start(1)] + new + claim[m.end(1):], f"{m.group(1)} -> {new}")
    for group in _UNIT_GROUPS:
        units = "|".join(re.escape(u) for u in sorted(group, key=len, reverse=True))
        pattern = r"(?<=\d)\s?(" + units + r")\b"
        found = re.search(pattern, claim, flags=re.IGNORECASE if group[0][0].islower() else 0)
        if found:
            old = found.group(1)
            options = [u for u in group if u.lower() != old.lower()]
            options.sort(key=lambda u: (u.lower() in low_hay, u))
            new = options[0] if not rng.random() < 0.3 else rng.choice(options)
            return _built("unit", claim[:found.start(1)] + new + claim[found.end(1):],
                          f"{old} -> {new}")
    for per in _PER:
        idx = claim.lower().find(per)
        if idx >= 0:
            options = [p for p in _PER if p != per and p.split()[-1] != per.split()[-1]]
            new = rng.choice(options)
            return _built("unit", claim[:idx] + new + claim[idx + len(per):], f"{per} -> {new}")
    return _skip("unit", "the claim states no quantity with a unit")


def _negation(claim: str, hay: str) -> Mutant:
    neg = re.search(r"\b(not|never|no longer)\s+|n['’]t\b", claim)
    if neg:
        head = claim[:neg.start()]
        # "isn't" -> "is", "can't" -> "can"
        if not neg.group(0).startswith(("not", "never", "no ")):
            head = re.sub(r"\b(ca|wo|sha)$",
                          lambda m: {"ca": "can", "wo": "will", "sha": "shall"}[m.group(1)], head)
        return _built("negation", head + claim[neg.end():], f"removed {neg.group(0).strip()!r}")
    for w in _words(claim):
        if w.group(0).lower() in _NEGATABLE_AUX:
            return _built("negation", claim[:w.end()] + " not" + claim[w.end():],
                          f"{w.group(0)} -> {w.group(0)} not")
    # a past-tense or present verb: "X launched Y" -> "X did not launch Y" is grammar work;
    # the plain and reliable form is the sentence-level negation.
    body = claim.strip()
    head = body.split(" ", 1)[0]
    first = body[:1].lower() + body[1:] if head in _NAME_STOP else body
    return _built("negation", f"It is not true that {first}", "sentence negated")


def _negation_in_word(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "negation_in_word")
    reverse = {v: k for k, v in _IN_WORD.items()}
    options = []
    for w in _words(claim):
        low = w.group(0).lower()
        if low in _IN_WORD:
            options.append((w, _IN_WORD[low]))
        elif low in reverse:
            options.append((w, reverse[low]))
    if not options:
        for w in _words(claim):
            low = w.group(0).lower()
            if len(low) > 5 and low.endswith(("able", "ible")) \
                    and not low.startswith(("un", "in", "im")):
                options.append((w, "un" + low))
    if not options:
        return _skip("negation_in_word", "no word with an in-word negation")
    w, new = rng.choice(options)
    return _built("negation_in_word", _sub_word(claim, w.start(), w.end(), new),
                  f"{w.group(0)} -> {new}")


def _antonym(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "antonym")
    reverse = {v: k for k, v in _ANTONYMS.items() if " " not in v}
    options = []
    for w in _words(claim):
        low = w.group(0).lower()
        if low in _ANTONYMS:
            options.append((w, _ANTONYMS[low]))
        elif low in reverse:
            options.append((w, reverse[low]))
    if not options:
        return _skip("antonym", "no word of the antonym list")
    w, new = rng.choice(options)
    return _built("antonym", _sub_word(claim, w.start(), w.end(), new), f"{w.group(0)} -> {new}")


def _replace_name(kind: str, claim: str, pool: list[str], hay: str) -> Mutant:
    rng = _rng(claim, kind)
    names = [n for n in names_in(claim) if not claim.startswith(n) or " " in n]
    names = names or names_in(claim)
    if not names:
        return _skip(kind, "the claim names nothing")
    low_claim, low_hay = claim.lower(), hay.lower()
    options = [p for p in pool if p.lower() not in low_claim and p.lower() not in low_hay
               ] if kind == "foreign_name" else [p for p in pool if p.lower() not in low_claim]
    if not options:
        return _skip(kind, "no other name to put in")
    old = rng.choice(names)
    new = rng.choice(options)
    idx = claim.find(old)
    return _built(kind, claim[:idx] + new + claim[idx + len(old):], f"{old} -> {new}")


def _swap(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "swap")
    found = list(_NUM.finditer(claim))
    if found:
        claim_numbers = {m.group(0).replace(",", "") for m in found}
        m = rng.choice(found)
        year = 1800 <= _value(m.group(0)) <= 2100 and "." not in m.group(0)
        pool = [n for n in dict.fromkeys(numbers_in(hay)) if n.replace(",", "") not in claim_numbers
                and (1800 <= _value(n) <= 2100 and "." not in n) == year]
        if pool:
            new = rng.choice(pool)
            return _built("swap", claim[:m.start()] + new + claim[m.end():],
                          f"{m.group(0)} -> {new} (number)")
    pool = [n for n in names_in(hay) if n.lower() not in claim.lower()
            and not any(part.lower() in claim.lower() for part in n.split())]
    if not pool:
        return _skip("swap", "the passages hold no other number or name")
    return _replace_name("swap", claim, pool, hay)


def _quantifier(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "quantifier")
    options = []
    numeric_only = {"over", "under", "about", "around", "nearly", "almost", "within"}
    number_ahead = r"(?=\s+(?:[$€£]?\d|" + "|".join(_SWAP_NUMBER_WORDS) + r")\b)"
    for old, new in _QUANTIFIERS:
        tail = number_ahead if old in numeric_only else ""
        for m in re.finditer(r"\b" + re.escape(old) + r"\b" + tail, claim, flags=re.IGNORECASE):
            if m.group(0) != m.group(0).lower() and claim[:m.start()].strip():
                continue  # "Stand Up To Ashley": part of a title or name, not a quantifier
            options.append((m, new))
    if not options:
        return _skip("quantifier", "no quantifier or bound")
    # prefer the longest phrase at a position ("at least" over "least")
    options.sort(key=lambda o: (o[0].start(), -len(o[0].group(0))))
    first_by_start: dict[int, tuple[re.Match[str], str]] = {}
    for m, new in options:
        first_by_start.setdefault(m.start(), (m, new))
    m, new = rng.choice(list(first_by_start.values()))
    return _built("quantifier", _sub_word(claim, m.start(), m.end(), new), f"{m.group(0)} -> {new}")


def _appended(claim: str, hay: str) -> Mutant:
    rng = _rng(claim, "appended_clause")
    low_hay = hay.lower()
    options = [c for c in _CLAUSES
               if not any(w in low_hay for w in re.findall(r"[a-z]{5,}", c.lower()))]
    clause = rng.choice(options or _CLAUSES)
    body = claim.rstrip()
    end = ""
    while body and body[-1] in ".!?\"'”’":
        end = body[-1] + end
        body = body[:-1].rstrip()
    if not body:
        return _skip("appended_clause", "empty claim")
    return _built("appended_clause", f"{body}, {clause}{end or '.'}", f"+ {clause!r}")


# --- public ---------------------------------------------------------------------------------

def mutate(claim: str, passages: Sequence[Any] = (), *, other_names: Sequence[str] = (),
           kinds: Sequence[str] = KINDS) -> list[Mutant]:
    """Lying-judge mutants of a supported ``claim``, one per kind, in ``kinds`` order.

    Args:
        claim: a claim its passages support (one sentence).
        passages: the claim's passages: strings, ``Passage`` objects or dicts with ``text``
            (and optionally ``title``). Used so that a changed number or name is one the
            passages do not state (``number``, ``foreign_name``), or is one they do (``swap``).
        other_names: names from another record, for ``foreign_name``; when empty a fixed list
            of invented names is used.
        kinds: which kinds to build (default ``KINDS``).

    Returns:
        one ``Mutant`` per kind; ``built=False`` with the reason when the kind does not apply.
        The same inputs give the same mutants (seeded by the claim's text and the kind).

    Raises:
        TypeError: ``claim`` is not a string, or a passage is none of the accepted shapes.
        ValueError: ``claim`` is empty, or a kind is not one of ``KINDS``.
    """
    if not isinstance(claim, str):
        raise TypeError(f"claim must be a string, got {type(claim).__name__}")
    if not claim.strip():
        raise ValueError("claim is empty: a mutant needs a claim to change")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown mutant kind(s) {unknown}; known: {', '.join(KINDS)}")
    hay = "\n".join(_texts(passages))
    foreign = [n for n in other_names if isinstance(n, str) and n.strip()] or _FALLBACK_NAMES
    makers = {
        "number": lambda: _number(claim, hay), "unit": lambda: _unit(claim, hay),
        "negation": lambda: _negation(claim, hay),
        "negation_in_word": lambda: _negation_in_word(claim, hay),
        "antonym": lambda: _antonym(claim, hay),
        "foreign_name": lambda: _replace_name("foreign_name", claim, list(foreign), hay),
        "swap": lambda: _swap(claim, hay), "quantifier": lambda: _quantifier(claim, hay),
        "appended_clause": lambda: _appended(claim, hay),
    }
    return [makers[k]() for k in kinds]
