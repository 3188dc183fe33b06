"""Words of a text: tokens, stems, number tokens, phrase folding, negation words and opposites.

The smallest pieces the rest of the language layer builds on: ``TOKEN_PATTERN`` (how a text
splits into tokens), ``stem_word`` (a cheap suffix stemmer), ``fold_phrases`` (units and
multi-word phrases to one token), ``negates``, ``is_content``, ``is_stated`` (a word stated by a
set of words: same stem, long common prefix or synonym) and ``opposite`` (two stems that are
opposites: a negating prefix, ``-less`` or an antonym pair).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from .lexicon import (
    ANTONYM_PAIRS,
    BRITISH,
    CJK_NEGATION,
    DE_VERB_ENDS,
    NEGATING_PREFIXES,
    NEGATIONS,
    NOT_NEGATED,
    OPPOSITE_FAMILIES,
    OPPOSITE_WORDS,
    SAME_STEM,
    STOP_WORDS,
    SYNONYMS,
)
from .text import CJK_CLASS, normalize_ws


def is_stated(word: str, have: frozenset[str] | set[str]) -> bool:
    """Whether the stemmed ``word`` is among ``have``: the same stem, the same first five
    letters of two long stems ("configur" / "configuration"; never an opposite word), or a
    ``SYNONYMS`` word."""
    if word in have:
        return True
    if len(word) >= 5 and not word[0].isdigit():
        head = word[:5]
        if any(len(h) >= 5 and h[:5] == head and not opposite(word, h) for h in have):
            return True
    return bool(SYNONYMS.get(word, set()) & have)


def covers_any(words: frozenset[str], have: frozenset[str]) -> bool:
    """Whether any of the stems ``words`` is stated by the stems ``have`` (``is_stated``)."""
    return any(is_stated(w, have) for w in words)


#: The curated (domain) opposites' stems: a claim word among them is stated as it is.
CURATED = frozenset(w for pair in ANTONYM_PAIRS for w in pair) - {
    "add", "keep", "open", "more", "less", "first", "last", "before", "after", "same", "start",
    "win", "on", "pass", "rise", "fall", "allow", "permit", "includ", "requir", "free"}


@cache
def antonym_table() -> dict[str, frozenset[str]]:
    """Stem -> its opposite stems, both ways (``ANTONYM_PAIRS``, ``OPPOSITE_WORDS`` and
    every cross pair of ``OPPOSITE_FAMILIES``)."""
    table: dict[str, set[str]] = {}
    families = tuple((stem_word(a), stem_word(b)) for up, down in OPPOSITE_FAMILIES
                     for a in up.split() for b in down.split())
    for a, b in ANTONYM_PAIRS + tuple((stem_word(a), stem_word(b)) for a, b in
                                      (pair.split() for pair in OPPOSITE_WORDS)) + families:
        if a != b:
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


@cache
def kin_table() -> dict[str, frozenset[str]]:
    """Stem -> the stems on its side of its ``OPPOSITE_FAMILIES`` family (itself included):
    words that say the same direction ("drop", "fell", "declin")."""
    table: dict[str, set[str]] = {}
    for family in OPPOSITE_FAMILIES:
        for side in family:
            stems = {stem_word(w) for w in side.split()}
            for w in stems:
                table.setdefault(w, set()).update(stems)
    return {k: frozenset(v) for k, v in table.items()}


@lru_cache(maxsize=65536)
def opposite(a: str, b: str) -> bool:
    """Whether the stems ``a`` and ``b`` are opposites: one is the other with a negating
    prefix ("refundabl" / "nonrefundabl", "encrypt" / "unencrypt"), or with ``-less``
    ("cord" / "cordless"), or they are an ``ANTONYM_PAIRS`` pair ("enabl" / "disabl")."""
    if a == b:
        return False
    if b in antonym_table().get(a, ()):
        return True
    for x, y in ((a, b), (b, a)):
        if x in NOT_NEGATED:  # the prefixed word only: "uninsur" is "insur" negated
            continue
        for prefix in NEGATING_PREFIXES:
            if x.startswith(prefix) and len(y) >= 4 and \
                    x[len(prefix):].rstrip("e") == y.rstrip("e"):
                return True
        if x.startswith("de") and x[2:] == y and y.endswith(DE_VERB_ENDS) and len(y) >= 5:
            return True  # "deactivat" / "activat", "decentraliz" / "centraliz"
        if x.endswith("less") and len(x) > 7 and (x[:-4].rstrip("e") == y.rstrip("e") or
                                                   y.endswith("ful") and x[:-4] == y[:-3]):
            return True
    return False


LETTERS = re.compile(r"[a-z]+")


def bare_quote(text: str) -> str:
    """Whitespace-normalised, without the punctuation that may end or open a quote."""
    return normalize_ws(text).strip(" .,;:!?\"'()[]\u3002\uff0c")


def clip(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis, for a reason."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def negates(token: str) -> bool:
    """Whether ``token`` (lower-cased) is a negation: an English, German, French or Spanish
    negation word, ``...n't``, or a Chinese/Japanese run holding a negation."""
    return (token in NEGATIONS or token.endswith("n't")
            or (token[0] >= "\u3040" and bool(CJK_NEGATION.search(token))))


PHRASES = (
    (re.compile(r"revolutions? per minute"), " rpm "),
    (re.compile(r"\bper ?cent\b|%"), " percent "),
    # "2x faster", "3\u00d7 the price": a multiplier, not a bare 2 ("2x" is not "2%")
    (re.compile(r"(?<=\d) ?[x\u00d7](?=[\s.,;:!?)]|$)"), " times "),
    (re.compile(r"kilomet(?:re|er)s? per hour|km ?/ ?h\b|kph\b"), " kmh "),
    (re.compile(r"miles? per hour|\bmph\b"), " mph "),
    (re.compile(r"\bkilograms?\b|\bkilos?\b"), " kg "),
    (re.compile(r"\bmilligrams?\b"), " mg "),
    (re.compile(r"\bgrams?\b|(?<=\d)\s?gr?\b"), " g "),
    (re.compile(r"\bmillilit(?:re|er)s?\b"), " ml "),
    (re.compile(r"\blbs?\b"), " lb "),
    (re.compile(r"\bounces?\b"), " oz "),
    (re.compile(r"\beuros?\b"), " eur "),
    (re.compile(r"(?<=\d) ?(?:us )?dollars?\b|\busd\b"), " usd "),
    (re.compile(r"\bmillimet(?:re|er)s?\b"), " mm "),
    (re.compile(r"\bcentimet(?:re|er)s?\b"), " cm "),
    (re.compile(r"\bkilomet(?:re|er)s?\b"), " km "),
    (re.compile(r"\bmet(?:re|er)s?\b"), " m "),
    (re.compile(r"\blit(?:re|er)s?\b"), " l "),
    (re.compile(r"\bdecibels?\b"), " db "),
    # a temperature scale is a unit: "-20 \u00b0C", "-20 degrees Celsius", "-20 C"
    (re.compile(r"\u00b0\s?c\b|\bdegrees? (?:celsius|centigrade|c)\b|\b(?:celsius|centigrade)\b"
                r"|(?<=\d) c\b"), " degree celsius "),
    (re.compile(r"\u00b0\s?f\b|\bdegrees? (?:fahrenheit|f)\b|\bfahrenheit\b|(?<=\d) f\b"),
     " degree fahrenheit "),
    (re.compile(r"\u00b0"), " degree "),
    # one bound said several ways: "at most 5", "a maximum of 5", "no more than 5" are "up to
    # 5"; "a minimum of 5", "no less than 5" are "at least 5"
    (re.compile(r"\b(?:at most|(?:a )?maximum of|(?:no|not) more than)\s+(?=[\d-]|(?:one|two|three|"
                r"four|five|six|seven|eight|nine|ten|a|an)\b)"), " up to "),
    (re.compile(r"\b(?:(?:a )?minimum of|(?:no|not) (?:less|fewer) than)\s+(?=[\d-]|(?:one|two|"
                r"three|four|five|six|seven|eight|nine|ten|a|an)\b)"), " at least "),
    (re.compile(r"\bwatts?\b"), " w "),
    (re.compile(r"(?<=\d)\s*([ap])\.?\s?m\b\.?"), r" \1m "),  # "9 a.m." -> "9 am"
    # "10 h", "24h", "14 d", "30 s": a unit only right after a number ("3D", "the 1990s" not)
    (re.compile(r"(?<=\d) ?h\b"), " hour "),
    (re.compile(r"(?<=\d) d\b"), " day "),
    (re.compile(r"(?<=\d) s\b"), " second "),
    (re.compile(r"\bhrs?\b"), " hour "),
    (re.compile(r"\bmins?\b(?!imum)"), " minute "),
    (re.compile(r"\bsecs?\b"), " second "),
    (re.compile(r"\byrs?\b"), " year "),
    (re.compile(r"\bmax\b"), " maximum "),
    (re.compile(r"\bqty\b"), " quantity "),
    (re.compile(r"\bapprox\.?"), " approximately "),
    (re.compile(r"\bu\.s\.(?:a\.)?|\bunited states(?: of america)?\b|\busa\b"), " us "),
    (re.compile(r"\bu\.k\.|\bunited kingdom\b"), " uk "),
    (re.compile(r"\bchief executive(?: officer)?\b"), " ceo "),
    (re.compile(r"\bchief financial officer\b"), " cfo "),
    (re.compile(r"\bchief technology officer\b"), " cto "),
    (re.compile(r"\bchief operating officer\b"), " coo "),
    (re.compile(r"\bn'(?=[aeiouyh\u00e9\u00e8\u00ea])"), " ne "),  # French "n'est"
    # "it is false that P" negates P as "not" does ("it is not true that" has its "not");
    # so do the other framings that call P false: "it is a myth that P", "we deny that P",
    # "contrary to rumours that P", "there is no evidence that P", "reports that P are wrong"
    (re.compile(r"\bit(?: is|'s| was) (?:false|untrue|incorrect|wrong|not true|not the case"
                r"|not correct|an? (?:common |popular )?(?:myth|misconception|fallacy)) that\b"
                # "a common misconception is that P", "the myth that P persists"
                r"|\b(?:an?|the) (?:(?:common|popular|widespread|persistent|old) )?(?:myth|"
                r"misconception|fallacy|misunderstanding)(?: is)? that\b"
                # "some users wrongly believe (that) P", "an older FAQ incorrectly states P"
                r"|\b(?:wrongly|mistakenly|falsely|incorrectly|erroneously) (?:believ|think|"
                r"thought|claim|stat|say|said|assum|report|suggest|assert|list|show|describ|"
                r"impl)\w*(?: that)?\b"
                # "it is unclear whether P": P is not stated
                r"|\bit(?: is|'s| was| remains) (?:unclear|uncertain|not clear|not known|unknown"
                r"|not yet known|unconfirmed|undecided) (?:whether|if)\b"
                r"|\b(?:den(?:y|ies|ied|ying)|disput(?:e|es|ed|ing)|refut(?:e|es|ed|ing)|"
                r"reject(?:s|ed|ing)?) (?:the (?:claims?|reports?|rumou?rs?|suggestions?|"
                r"allegations?|idea|notion) )?that\b"
                r"|\bcontrary to (?:\w+ ){0,2}?(?:rumou?rs?|reports?|claims?|beliefs?|reviews?|"
                r"posts?|articles?|suggestions?|speculation|allegations?)"
                r" (?:that|claiming|saying|suggesting|stating)(?: that)?\b"
                r"|\bthere (?:is|was|'s) no (?:evidence|proof|truth to the (?:claims?|reports?|"
                r"rumou?rs?)) that\b"
                r"|\b(?:the )?(?:reports?|claims?|rumou?rs?|suggestions?|allegations?|stor(?:y|ies)"
                r"|idea|notion|belief|assertion)s? that(?=[^.;!?]+? (?:is|are|was|were|have been"
                r"|has been|proved|proven|remain|remains|remained) (?:\w+ )?(?:wrong|false|untrue|"
                r"incorrect|unfounded|baseless|mistaken|inaccurate|a myth|myths|not true|"
                r"debunked|groundless|unconfirmed|unverified|unsubstantiated|unproven)\b)"),
     " notthat "),
    # "Many think P, but it is not." / "..., but that is false.": the closing clause denies
    # the clause before it, as "it is not true that P" does
    (re.compile(r"(?<![^.!?;\n])([^.!?;\n]+?),? but (?:it|that|this|they|he|she)"
                r"(?:'s| is| are| was| were| does| do| did| has| have| can| will| would)?"
                r"(?: not(?: true| the case| so| correct)?|n't(?: true| the case| so)?| false"
                r"| untrue| wrong| incorrect| a myth|not| cannot| can't| won't)\s*(?=[.!?;]|$)"),
     r" notthat \1 , but it is not"),
    # degree negations: "hardly waterproof", "far from waterproof", "anything but
    # waterproof" say "not waterproof"; "too fragile to be waterproof" negates what follows;
    # "ceased to support" / "stopped supporting" / "used to be" (no longer) say "not"
    (re.compile(r"\bhardly\b(?! ever\b| any)|\banything but\b|\bfar from\b(?! (?:the|a|an|"
                r"our|your|my|his|her|its|their|this|that|these|those|here|there|home|"
                r"town|\d)\b)|\bceas(?:e|es|ed|ing) to\b|\bstop(?:s|ped) (?=\w+ing\b)"
                r"|(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bbe )(?<!\bbeen )(?<!\balso )"
                r"\bused to (?=be\b)"), " not "),
    (re.compile(r"\btoo (\w+) to be\b"), r"too \1 , not be"),
    # "no fee for returns", "at no extra charge": free ("Returns are free")
    (re.compile(r"\b(?:at )?no (?:additional |extra )?(?:fees?|charges?)\b"), " free "),
    # "at no extra cost", "costs nothing", "free of charge": free ("Shipping is free")
    (re.compile(r"\b(?:at|for) no (?:additional |extra )?cost\b|\bcost(?:s|ing)? nothing\b"
                r"|\bfree of charge\b"), " free "),
    # "no limit on the number of users" is "unlimited users"
    (re.compile(r"\b(?:there is |there's )?no (?:limit|cap|maximum)s? (?:on|to) (?:the (?:number|"
                r"amount) of )?"), " unlimited "),
    # "excluded" is "not included", "lacks" is "does not have" ("Accidental damage is
    # excluded" states "The warranty does not cover accidental damage")
    (re.compile(r"\bexclud(?:e|es|ed|ing)\b"), " not include "),
    (re.compile(r"\black(?:s|ed|ing)?\b(?: of\b)?"), " not have "),
    # "failed to get the balance right" says "did not get the balance right"
    (re.compile(r"\bfail(?:s|ed|ing)? to\b"), " not "),
    # "A rather than B", "A instead of B": B is negated, in a part of its own
    (re.compile(r"\brather than\b|\binstead of\b"), " , not "),
)

#: Any of ``PHRASES``: when none occurs in a text, folding the phrases changes nothing (each
#: substitution could only act on what an earlier one wrote), so the loop is skipped.
_ANY_PHRASE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in PHRASES))


def fold_phrases(lower: str) -> str:
    """``lower`` with every ``PHRASES`` pattern replaced by its unit or word, in order."""
    if _ANY_PHRASE.search(lower) is None:
        return lower
    for pattern, repl in PHRASES:
        lower = pattern.sub(repl, lower)
    return lower


_CJK_CLASS = CJK_CLASS

CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")

#: A number as ``TOKEN_PATTERN`` reads it: a sign that is no hyphen ("-20", not the "-5" of "3-5"),
#: digits with dots (a decimal "2.5", a dotted "1.2.3", a version or date ``surface_form`` marked
#: with U+2024: "2\u202410"), an ordinal ending ("3rd") and an exponent ("10^2").
NUMBER_PATTERN = (r"(?:(?<![\w.])-)?\d+(?:[.\u2024]\d+)*"
                  r"(?:(?:(?<=1)st|(?<=2)nd|(?<=3)rd|th)(?![^\W_]))?"
                  r"(?:\^-?\d+)?")

#: A token: a letter-led word with a digit in it (a name: "S3", "A320", "mp3"), a number, a
#: CJK run, or a word.
TOKEN_PATTERN = re.compile(rf"(?:(?![{_CJK_CLASS}])[^\W\d_])+\d(?:(?![{_CJK_CLASS}])[^\W_])*"
                           rf"|{NUMBER_PATTERN}|[{_CJK_CLASS}]+|(?:(?![{_CJK_CLASS}])[^\W\d_])+(?:'t)?")


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    """A cheap stem of the lower-cased ``word``: British spellings to American (``BRITISH``),
    then "-ies" to "y", "-s", "-ing", "-ed" or a final "e" dropped, and a few stems joined
    (``SAME_STEM``): "flies" -> "fly", "refunded" -> "refund", "configure" -> "configur"."""
    for pattern, repl in BRITISH:
        word = pattern.sub(repl, word)
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
    return SAME_STEM.get(word, word)


def is_content(tok: str) -> bool:
    """Whether the lower-cased token ``tok`` is a content word: not a stop word, not a
    negation, and not a single letter other than a unit-like one."""
    return not (tok in STOP_WORDS or tok in NEGATIONS or tok.endswith("n't")
                or len(tok) < 2 and tok not in "bcdefghjklmnpqrvwxyz")


ORDINAL = re.compile(r"(-?\d+)(?:st|nd|rd|th)")

#: A number that is a value (compared as one: "2.50" is "2.5"); any other (a version, a date,
#: an ordinal, a power) is compared as written.
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def is_number_token(tok: str) -> bool:
    """Whether the token ``tok`` is a number (``NUMBER_PATTERN``), signed or not."""
    return tok[0].isdigit() or tok[0] == "-" and tok[1:2].isdigit()


def is_plain_number(number: str) -> bool:
    """Whether ``number`` (as ``canonical_number`` writes it) is a value: "-20", "2.5"; not
    "2.10" of a version, "3rd", "10^2", "03.04.2025"."""
    return _PLAIN_NUMBER.fullmatch(number) is not None


def canonical_number(tok: str) -> str:
    """A number token as the check compares it: a decimal without trailing zeros ("2.50" ->
    "2.5"); a version, dotted number or date (U+2024 marks, several dots) as written; an
    ordinal with the ending of its number ("11st" -> "11th")."""
    if "\u2024" in tok or tok.count(".") > 1 or "^" in tok:
        return tok.replace("\u2024", ".")
    if m := ORDINAL.fullmatch(tok):
        n = int(m.group(1))
        end = "th" if 10 <= abs(n) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
            abs(n) % 10, "th")
        return f"{n}{end}"
    return tok.rstrip("0").rstrip(".") if "." in tok else tok
