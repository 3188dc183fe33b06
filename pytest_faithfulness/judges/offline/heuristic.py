"""The heuristic verifier: the offline support rules alone, no model file.

``HeuristicVerifier``: the verifier of the ``offline-heuristic`` judge. It is a cheap first
filter, not natural language inference. A one- or two-sentence window of a passage (or its
title) supports a claim when it holds all of the claim's content words (a claim of ``n``
content words may miss ``(n - 2) // MISSING_WORD_PER`` that are neither names nor numbers, or
one filler word), every name and number, each word with the claim's negation (per clause part),
each quantity with its unit, or as the same quantity in another unit or writing, as the
evidence check compares them ("0.8 kg" / "800 grams", "two weeks" / "14 days", "9:00" / "9 am";
a hyphenated word written as one, "water-proof" / "waterproof": ``said_otherwise``)
("50 million", "$5" and "50k" are numbers with units: magnitudes
fold into the number, currency signs are units, "am"/"pm" and a month name before or after a
day number are units too, and "per" binds a rate's unit: "$20 per month"), each count with the
word right after it ("20 users": the window says 20 just before or after "users"; a number
after a name, "Nimbus 4", is not a count), each bound ("within 14", "more than 14") as the
claim states it, and no number the claim ties to a name that the window ties to another number
of that unit ("Pro costs $20, Basic $5" does not support "Basic costs $20"). Invisible format
characters (Unicode category Cf: soft hyphen, zero-width space, word joiner) are dropped on
both sides before tokenising. A window about the same thing (``TOPIC_COVERAGE``) with a
different number in the same unit or with the same counted word, or, at
``CONTRADICTION_COVERAGE``, a claim word negated on one side only, decides ``contradicted``
(also when it covers more of the claim than the best supporting window); anything else is
``unsupported``. Not handled without a parser: who did what to whom ("Bob founded Acme" against
"Alice founded Acme; Bob joined"), model names with digits ("K2"), and a claim of five or more
words adding one adjective (not right after a number).

The support rules (``support_problem``, ``statement_problem``, ``contradiction``) live here; the
calibrated and embedding verifiers read them too. They read the words of a text as the language
layer does (``language.features.text_features``), the same tokenisation as the quote check.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ...language.features import (
    TextFeatures,
    evidence_spans,
    quantities,
    table_headers,
    text_features,
    unmatched_quantities,
)
from ...language.lexicon import (
    BOUND_NOUNS,
    CLOCK_CLOSING_WORDS,
    CLOCK_OPENING_WORDS,
    FILLERS,
    NUMBER_WORDS,
    QUANTIFIERS,
    UNIT_IMPLIES,
    UNITS,
)
from ...language.quantities import DIMENSIONS, surface_form
from ...language.text import is_common_word, passage_sentence_spans
from ...language.words import PHRASES, TOKEN_PATTERN, is_stated, opposite, stem_word
from ...records import Passage, Verdict
from ...trust.evidence import table_readings
from ...trust.name_rules import slot_rival
from ...trust.number_rules import bound_by_value, said_by_bound, said_by_clock_range
from ...trust.polarity_rules import hedge_classes, said_by_kin

# issue 20 round 4: numbers in words/groups, clock ranges, rates, framings, clause polarity,
# conditions, clause parts
HEURISTIC_VERSION = "heuristic-2026.12-11"

#: Measured balanced accuracy (supported vs not) of the offline judge with this verifier on
#: the public development data (``../shared/data``; measurement only, never tuned on), from
#: ``python benchmarks/measure_offline_verifier.py --only heuristic``.
DEV_BALANCED_ACCURACY = {"claims": 0.620, "answers": 0.700}


#: Minimum share of the claim's content words that one evidence window must contain for
#: ``supported``: all of them...
SUPPORT_COVERAGE = 1.0

#: ... except at most this many that are fillers (``FILLERS``: words that add no fact).
MAX_MISSING_FILLERS = 1

#: A claim of ``n`` content words may miss ``(n - 2) // MISSING_WORD_PER`` of them that are
#: neither names nor numbers (none up to 4 words, one from 5, two from 8).
MISSING_WORD_PER = 3

#: Minimum share of the claim's content words in a window for a polarity mismatch to make
#: the claim ``contradicted``.
CONTRADICTION_COVERAGE = 0.75

#: Minimum share of the claim's non-numeric content words for a window to be "about the same
#: thing" when judging a number or polarity mismatch as a contradiction.
TOPIC_COVERAGE = 0.6


def title_speaks(cf: TextFeatures, title: TextFeatures | None) -> bool:
    """Whether a passage's title names what the claim is about: it states a name of the
    claim, or every word of it is a word of the claim ("Starter kit" for "The starter kit
    weighs 680 grams")."""
    return title is not None and bool((cf.mandatory - cf.numbers) & title.content
                                      or title.words and title.words <= cf.words)


def with_title(cf: TextFeatures, wf: TextFeatures, title: TextFeatures | None) -> TextFeatures:
    """The window ``wf`` read with its passage's title, when the title names what the claim
    is about (``title_speaks``: "three brightness levels" under the title "Vela lamp" speaks
    of the Vela lamp): the title's words count as the window's, with the title's polarity.
    Numbers, units, bounds and clause parts stay the window's own; any other title adds
    nothing (a "Refund policy" title does not make every sentence say "refund")."""
    if title is None or not title_speaks(cf, title):
        return wf
    extra = title.words - wf.content
    if not extra:
        return wf
    return replace(wf, content=wf.content | extra, words=wf.words | extra,
                   mandatory=wf.mandatory | (title.mandatory & extra),
                   polar=wf.polar | {(w, n) for w, n in title.polar if w in extra},
                   scoped=wf.scoped | {(w, n) for w, n in title.scoped if w in extra})


def with_header(wf: TextFeatures, header: TextFeatures) -> TextFeatures:
    """A Markdown table row's window read with its table's header row: the column names
    count as the row's words ("| Basic | 50 GB |" under "| Plan | Storage |" speaks of the
    Basic plan's storage); numbers, units and clause parts stay the row's own."""
    extra = header.words - wf.content
    if not extra:
        return wf
    return replace(wf, content=wf.content | extra, words=wf.words | extra,
                   polar=wf.polar | {(w, n) for w, n in header.polar if w in extra},
                   scoped=wf.scoped | {(w, n) for w, n in header.scoped if w in extra})


def said_otherwise(cf: TextFeatures, wf: TextFeatures) -> frozenset[str]:
    """The claim's content words the window states in another form: the number and unit of a
    quantity it states in another unit or spelling ("0.8 kg" / "800 grams", "two weeks" /
    "14 days", "9:00" / "9 am"), and the parts of a hyphenated word it writes as one
    ("water-proof" / "waterproof"), or a word it hyphenates. Counted as covered by the
    offline judges' coverage, as the evidence check compares them."""
    out: set[str] = set()
    for n, u in quantities(cf) - unmatched_quantities(cf, wf):
        if (n, u) not in wf.number_labels:
            out |= {n, u} - wf.content
    for a, b, ab in cf.joined:
        if ab in wf.content:
            out |= {a, b} - wf.content
    out |= {ab for _, _, ab in wf.joined} & cf.content
    out |= {w for w in ("minimum", "maximum") if said_by_bound(w, cf, wf)}
    if wf.clock_ranges:  # "closes at 5 pm" / "open 9 am to 5 pm"
        out |= {w for w in cf.words & (CLOCK_OPENING_WORDS | CLOCK_CLOSING_WORDS)
                if said_by_clock_range(w, cf, wf)}
    return frozenset(out & cf.content)


def support_problem(cf: TextFeatures, wf: TextFeatures) -> str | None:
    """Why the window ``wf`` does not support the claim ``cf``, or ``None`` when it does.

    The rules of the module docstring, in order: coverage of the claim's content words,
    names and numbers, negation per word, quantities and bounds, what is said together."""
    missing = cf.content - wf.content - said_otherwise(cf, wf)
    if cf.mandatory & missing:
        return f"the passage does not state {', '.join(sorted(cf.mandatory & missing))}"
    if len(missing) > max(MAX_MISSING_FILLERS if not missing - FILLERS else 0,
                          (len(cf.content) - 2) // MISSING_WORD_PER):
        return f"the passage does not say {', '.join(sorted(missing))}"
    return statement_problem(cf, wf)


#: Frequency words that a claim's frequency word is not ("always" is not "rarely"), by the
#: class ``QUANTIFIERS`` gives them.
_FREQUENCY_CLASH = {"always": {"rarely", "sometimes", "often", "usually", "never"},
                    "usually": {"rarely", "never"}, "often": {"rarely", "never"},
                    "rarely": {"always", "usually", "often"},
                    "never": {"always", "usually", "often", "sometimes"}}

_FREQUENCY = {stem_word(w): c for w, c in QUANTIFIERS.items() if c in _FREQUENCY_CLASH}


def opposite_pairs(cf: TextFeatures, wf: TextFeatures) -> list[tuple[str, str]]:
    """Pairs (claim word, window word) that state opposites with the same polarity
    ("enabled" / "disabled", "refundable" / "non-refundable", "always" / "rarely"), where the
    window does not also state the claim's word with the claim's polarity. A negated opposite
    agrees ("not disabled" / "enabled") and is not listed."""
    out = []
    window: dict[str, set[bool]] = {}
    for w, neg in wf.scoped:
        window.setdefault(w, set()).add(neg)
    said = {(_FREQUENCY[w], neg) for w, neg in wf.scoped if w in _FREQUENCY}
    for a, neg in sorted(cf.scoped):
        if a[0].isdigit() or neg in window.get(a, ()) or said_by_kin(a, {neg}, window) \
                or said_by_clock_range(a, cf, wf):
            continue
        if a in _FREQUENCY and (_FREQUENCY[a], neg) not in said:
            if clash := sorted(c for c, n in said if n == neg
                               and c in _FREQUENCY_CLASH[_FREQUENCY[a]]):
                out.append((a, clash[0]))
                continue
        for b, negs in window.items():
            if neg in negs and opposite(a, b):
                out.append((a, b))
                break
    return out


def flipped_words(cf: TextFeatures, wf: TextFeatures) -> list[str]:
    """The claim's content words that the window states only with the other polarity (per
    clause part, ``polar``), less those a negation's scope excuses: a word outside the scope
    on the negated side (its subject, an adjunct after it) is no flip when the other side does
    not assert any word in that scope. "Items bought on sale cannot be refunded" is not
    opposed by "Sale items can be exchanged but not refunded" (the window negates "refunded"
    too); "The warranty covers the screen" is opposed by "The screen is not covered" (the
    claim asserts "covered")."""
    part = [w for w, neg in cf.polar if w in wf.content and (w, neg) not in wf.polar]
    return sorted(w for w in part if not _excused(w, *((cf, wf) if (w, True) in cf.polar
                                                         else (wf, cf))))


def _excused(word: str, negating: TextFeatures, other: TextFeatures) -> bool:
    """Whether ``negating`` negates ``word`` only as a word outside its negations' scope,
    each scope's words not asserted by ``other`` (see ``flipped_words``)."""
    for content, scope in negating.negated_parts:
        if word not in content:
            continue
        if word in scope or any(_asserts(other, x) for x in scope):
            return False
    return True


def _asserts(f: TextFeatures, word: str) -> bool:
    """Whether ``f`` states ``word`` (``is_stated``: its stem, a long common prefix as in
    "renew" / "renewal", or a synonym) outside any negation."""
    return is_stated(word, {w for w in f.content if (w, True) not in f.polar})


def _loose_bounds(cf: TextFeatures, wf: TextFeatures) -> list[str]:
    """Numbers of the claim the window bounds from below ("10+ users", "at least 10") while
    the claim states them without a bound ("10 users"), unless the claim names the bound
    apart ("the minimum order is $10": ``BOUND_NOUNS``)."""
    bounded = {n for n, _ in cf.bounds}
    if BOUND_NOUNS[">="] & {w for w, _ in cf.scoped}:
        return []
    return sorted(n for n, b in wf.bounds if b == ">=" and n in cf.numbers and n not in bounded)


def statement_problem(cf: TextFeatures, wf: TextFeatures) -> str | None:
    """Why the window ``wf`` does not state what it shares with the claim ``cf`` as the claim
    does, whatever its coverage, or ``None``: a word negated on one side only, a quantity not
    stated with its unit, a bound or a count not stated, a number said with another name."""
    if flipped := flipped_words(cf, wf):
        return f"negated on one side only: {', '.join(flipped)}"
    if opposed := opposite_pairs(cf, wf):
        return "opposite words: " + ", ".join(f"{a} / {b}" for a, b in opposed)
    if hedges := sorted(hedge_classes(cf) - hedge_classes(wf, evidence=True)):
        return f"the passage does not say {', '.join(hedges)} (how often or how much)"
    if loose := _loose_bounds(cf, wf):
        return f"the passage says at least {', '.join(loose)} where the claim says exactly"
    if unmatched_quantities(cf, wf):
        return "a quantity is not stated with its unit"
    if any(not bound_by_value(n, b, cf, wf) for n, b in cf.bounds - wf.bounds):
        return "a bound (within, more than) is not stated"
    if unsaid := sorted(cf.number_nouns - wf.number_labels):
        return "not stated with its number: " + ", ".join(f"{n} {w}" for n, w in unsaid)
    names = cf.mandatory - cf.numbers
    for part in cf.parts:
        for number in part & cf.numbers:
            named = part & names - UNITS  # "GB" is a unit, not the name a number belongs to
            units = {u for n, u in cf.number_units if n == number and u in UNITS}
            rivals = {n for n, u in wf.number_labels if u in units and n != number}
            if named and not any(number in wp and wp & named for wp in wf.parts) and any(
                    wp & named & names and wp & rivals for wp in wf.parts):
                return f"{number} is not said with {', '.join(sorted(part & names))}"
    return None


def contradiction(cf: TextFeatures, wf: TextFeatures, coverage: float) -> str | None:
    """Why the window ``wf`` contradicts the claim ``cf``, or ``None``: a different count of
    the same word, a different number in the claim's unit, or (when ``coverage``, the share of
    the claim's content words the window holds, reaches ``CONTRADICTION_COVERAGE``) a claim word
    said with the other polarity or an opposite word (``opposite_pairs``)."""
    for number, word in sorted(cf.number_nouns - wf.number_labels):
        other = sorted(n for n, w in wf.number_nouns if w == word and n != number)
        if other:
            return (f"number mismatch: the claim says {number} {word}, the passage says "
                    f"{', '.join(other)} {word}")
    for number, unit in sorted(unmatched_quantities(cf, wf)):
        other = sorted(n for n, u in quantities(wf) if u == unit and n != number)
        if other:
            return (f"number mismatch: the claim says {number} {unit}, the passage says "
                    f"{', '.join(other)} {unit}")
    missing_numbers = cf.numbers - wf.numbers - said_otherwise(cf, wf)
    if missing_numbers and wf.numbers:
        claim_units = {u for n, u in cf.number_units if n in missing_numbers}
        window_units = {u for n, u in wf.number_units if n not in cf.numbers}
        shared = claim_units & window_units & UNITS
        if shared or (not claim_units and wf.numbers - cf.numbers):
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
        if cf.words and len(cf.words & wf.words) == len(cf.words) and wf.numbers - cf.numbers:
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
    if coverage >= CONTRADICTION_COVERAGE:
        if flipped := flipped_words(cf, wf):
            return f"polarity mismatch: negated on one side only ({', '.join(flipped)})"
        if opposed := opposite_pairs(cf, wf):
            return ("polarity mismatch: opposite words ("
                    + ", ".join(f"{a} / {b}" for a, b in opposed) + ")")
    return None


#: Content words ``text_features`` can produce from text that does not spell them: the words a
#: phrase is rewritten to ("percent" from "%", "hour" from "hrs") and the quantities a unit
#: implies ("speed" from "rpm"). Any window may hold them.
_DERIVED = frozenset({stem_word(tok) for _, repl in PHRASES for tok in TOKEN_PATTERN.findall(repl)}
                     | set(UNIT_IMPLIES.values()))
#: The number words ``text_features`` reads as each number ("1": "one", "once", "single").
_DIGITS_OF_WORDS = {digits: tuple(w for w, d in NUMBER_WORDS.items() if d == digits)
                    for digits in set(NUMBER_WORDS.values())}


def _spellings(content_word: str) -> tuple[str, ...] | None:
    """Strings one of which a text's lower-cased ``surface_form`` must contain for ``text_features``
    to find ``content_word`` in it; ``None`` when it may appear in any text (``_DERIVED``).

    A stem is a prefix of the token it came from (``fly`` from ``flies``: all but the ``y``);
    a number is in its digits (``2.5`` in ``2.50``) or one of its number words."""
    if content_word in _DERIVED:
        return None
    if content_word[0].isdigit():
        return (content_word, *_DIGITS_OF_WORDS.get(content_word, ()))
    if len(content_word) > 1 and content_word.endswith("y"):
        return (content_word[:-1],)
    return (content_word,)


def candidate_windows(claim: TextFeatures, text: str, title: str | None = None,
                      headers: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """The windows of ``text`` (``evidence_spans``, same order) that may reach either threshold.

    A window matters to ``HeuristicVerifier.verify`` only if it covers at least
    ``SUPPORT_COVERAGE`` of the claim's content words or ``TOPIC_COVERAGE`` of its
    non-numeric ones. Before the costly ``text_features`` of each window, this counts per sentence
    which claim words it may contain (``_spellings``, a plain substring test) and drops the
    windows whose count cannot reach either share. The test over-counts, never under-counts,
    so no window that could change a verdict is dropped. ``title``: the passage's title when
    its words count with every window (``with_title``); ``headers``: the
    header row (sentence index) of each Markdown table row (``language.features.table_headers``).
    """
    windows = evidence_spans(text)
    if not windows:
        return []
    bits = {word: 1 << i for i, word in enumerate(sorted(claim.content))}
    word_bits = sum(bits[w] for w in claim.words)
    always = 0
    probes = []
    # a quantity a window may state in another unit, a word it may write with or without a
    # hyphen (``said_otherwise``): no substring test
    otherwise = {w for n, u in claim.number_units if u in DIMENSIONS or u == "oclock"
                 for w in (n, u)} | {w for parts in claim.joined for w in parts}
    for word, bit in bits.items():
        spellings = None if word in otherwise else _spellings(word)
        if spellings is None:
            always |= bit
        else:
            probes.append((bit, spellings))
    n_content, n_words = len(claim.content), len(claim.words)

    def may_matter(mask: int) -> bool:
        if (mask.bit_count() / n_content) >= min(SUPPORT_COVERAGE, CONTRADICTION_COVERAGE):
            return True
        return bool(n_words) and (mask & word_bits).bit_count() / n_words >= TOPIC_COVERAGE

    if title:
        surface = surface_form(title).lower()
        always |= sum(bit for bit, spellings in probes if any(x in surface for x in spellings))
    def mask_of(start: int, end: int) -> int:
        surface = surface_form(text[start:end]).lower()
        mask = always
        for bit, spellings in probes:
            if any(s in surface for s in spellings):
                mask |= bit
        return mask

    n_sentences = (len(windows) + 1) // 2
    masks = [mask_of(start, end) for start, end in windows[:n_sentences]]
    for row, header in (headers or {}).items():  # a table row speaks with its header's words
        masks[row] |= masks[header]
    keep = [w for w, mask in zip(windows, masks) if may_matter(mask)]
    rows = headers or {}
    # a pair's words are its sentences' and those it writes across the break ("12" /
    # "thousand": 12000), hence its own surface too
    keep += [w for i, (w, a, b) in enumerate(zip(windows[n_sentences:], masks, masks[1:]))
             if may_matter(a | b | mask_of(*w)) and i not in rows and i + 1 not in rows
             and not stitches(claim, text[slice(*windows[i])], text[slice(*windows[i + 1])])]
    return keep


def stitches(claim: TextFeatures, first: str, second: str) -> bool:
    """Whether reading the neighbouring sentences ``first`` and ``second`` as one window would
    stitch the claim together from two things: each writes a name of the claim (a capitalised
    word that is no common word, ``text.is_common_word``, or any capitalised word after the
    sentence's first: "the Tigers") the other lacks and ``second`` does not go on from
    ``first`` (``continues``; a ``second`` opening with a determiner and a name that is no
    word of the claim, "The Lions beat...", does not): "Acme was founded in
    2001." / "Globex was acquired by Initech in 2021." for "Acme acquired Globex in 2021."."""
    def names(sentence: str) -> set[str]:  # the claim's words it writes as names
        opening = _FIRST_WORD.search(sentence)
        return {stem_word(m.group(0).lower()) for m in _CAPITALISED.finditer(sentence)
                if not is_common_word(m.group(0))
                or opening is not None and m.start() > opening.start()} & claim.content
    one, two = names(first), names(second)
    if not (one - two and two - one):
        return False
    # "Leo Park coaches the Lions. The Lions beat the Tigers." for "Leo Park coaches the
    # Tigers": a sentence about another named thing ("The Lions", "The Basic plan", none of
    # the claim's words) does not go on from the one before for this claim
    opening = _DETERMINER_NAME.match(second)
    if opening and stem_word(opening.group(1).lower()) not in claim.content:
        return True
    return not continues(first, second)


#: Words that open a sentence which goes on from the one before ("It also has...").
_REFERRING = frozenset({
    "it", "its", "they", "their", "them", "he", "she", "his", "her", "this", "these", "that",
    "those", "the", "such", "both", "there", "also", "then", "however", "but", "and", "so",
    "each", "all", "which", "here", "we", "our", "you", "your", "a", "an", "in", "at", "on",
    "for", "with", "by", "from", "after", "before", "since", "during", "as", "when", "if",
    "only", "no", "not", "yes", "i", "my", "me", "us", "one"})
_FIRST_WORD = re.compile(r"[^\W\d_][\w'-]*")
_LABEL = re.compile(r"^\W*[A-Z][\w ]{0,30}:")
_CAPITALISED = re.compile(r"\b[A-Z][\w-]+")
#: A sentence opening with a determiner and a name: "The Lions beat...", "The Basic plan...".
_DETERMINER_NAME = re.compile(r"\W*(?:The|A|An|This|That|These|Those)\s+([A-Z][\w-]*)")
#: A sentence of at most this many words is a heading or a label ("Basic plan."): the
#: sentence after it speaks of it.
_HEADING_WORDS = 3


def continues(first: str, second: str) -> bool:
    """Whether the sentence ``second`` goes on from ``first``, so that the two read as one
    window: ``second`` opens with a referring word ("It", "They", "The", "Also"...), is a
    label ("Price: $49"), or names something ``first`` names, or opens with a word ``first``
    states ("Exchanges" after "... can be exchanged"); or ``first`` is a heading of at
    most ``_HEADING_WORDS`` words. Two sentences about different things ("Acme was founded in
    2001." / "Globex was acquired by Initech in 2021.") are no window: their words together
    would say what neither says ("Acme acquired Globex in 2021.")."""
    opening = _FIRST_WORD.search(second)
    if opening is None or opening.group(0).lower() in _REFERRING or _LABEL.match(second):
        return True
    first_content = text_features(first, sentence_start_exempt=False).content
    if stem_word(opening.group(0).lower()) in first_content:
        return True  # "... exchanged but not refunded. Exchanges are accepted within 30 days."
    if len(first.split()) <= _HEADING_WORDS:
        return True
    names = {m.group(0) for m in _CAPITALISED.finditer(first)}
    return any(m.group(0) in names for m in _CAPITALISED.finditer(second))


def _passage_windows(passage: Passage, claim: TextFeatures):
    """The evidence windows of one passage for ``claim`` as ``(quote, features)``: its title,
    when it has one, then the one- and two-sentence windows of its text that may reach a
    threshold (``candidate_windows``), each read with the title when the title states a name
    of the claim (``with_title``: "Pro plan" over "Price: $12 per month")."""
    title = title_f = None
    if passage.title is not None and passage.title.strip():
        title = passage.title.strip()
        title_f = text_features(title, sentence_start_exempt=False)
        yield title, title_f
        if not title_speaks(claim, title_f):
            title = title_f = None
    text = passage.text
    rows, readings, headers = {}, {}, None
    if "|" in text and "---" in text:  # a Markdown table: each row read with its header
        spans = passage_sentence_spans(text)
        headers = table_headers(text, spans)
        rows = {spans[k]: spans[h] for k, h in headers.items()}
        readings = {spans[k]: r for k, r in table_readings(text, spans, headers).items()}
    for start, end in candidate_windows(claim, text, title, headers):
        window = text[start:end]
        if (reading := readings.get((start, end))) is not None:  # "SSO: No" is "not SSO"
            wf = with_title(claim, text_features(reading, sentence_start_exempt=False), title_f)
            yield window, wf
            continue
        wf = with_title(claim, text_features(window, sentence_start_exempt=False), title_f)
        if (header := rows.get((start, end))) is not None:
            wf = with_header(wf, text_features(text[header[0]:header[1]],
                                               sentence_start_exempt=False))
        yield window, wf


def _named_apart(claim: str, window: str) -> bool:
    """Whether a window of two sentences states the claim's name in one and the rest of the
    claim beside another name in the other ("The Pro plan costs $20 per month. The Basic plan
    includes SSO." for "The Basic plan costs $20 per month": ``trust.name_rules.slot_rival``
    read sentence by sentence, as the quote check reads the quote)."""
    spans = passage_sentence_spans(window)
    return len(spans) > 1 and slot_rival(claim, [window[a:b] for a, b in spans],
                                         set()) is not None


class HeuristicVerifier:
    """Offline verifier: content-word coverage plus number and polarity checks. Not NLI.

    ``verify(claim, passages)`` returns a ``Verdict``; ``supported`` and ``contradicted``
    verdicts carry the passage id and a verbatim quote (a one- or two-sentence window of the
    text, or the passage's title, which counts as one window of its own).
    Deterministic; no network, no model. Windows that cannot reach either threshold are
    skipped before they are scored (``candidate_windows``), so the time grows with the
    passages' length at about 0.2 CPU seconds per MB (``benchmarks/passage_speed.py``).

    Raises:
        TypeError: ``claim`` is not a string.
    """

    version = HEURISTIC_VERSION

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Judge one claim against the passages (see the module docstring for the rules)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, got {type(claim).__name__}")
        cf = text_features(claim)
        if not cf.content or not passages:
            return Verdict("unsupported", rationale="no passage speaks to this claim")
        best_support = None  # (coverage, -length, pid, quote)
        best_contra = None
        for passage in passages:
            for window, wf in _passage_windows(passage, cf):
                covered = cf.content & wf.content | said_otherwise(cf, wf)
                coverage = len(covered) / len(cf.content)
                key = (coverage, -len(window))
                if coverage >= CONTRADICTION_COVERAGE and support_problem(cf, wf) is None \
                        and not _named_apart(claim, window):
                    if best_support is None or key > best_support[0]:
                        best_support = (key, passage.id, window)
                    continue
                topic = (len(cf.words & wf.words) / len(cf.words)) if cf.words else 0.0
                if topic < TOPIC_COVERAGE and covered and cf.words:
                    # a word the window states by its opposite ("non-refundable" for
                    # "refundable") is on the topic too
                    opposed = {a for a, _ in opposite_pairs(cf, wf)}
                    topic = len(cf.words & (wf.words | opposed)) / len(cf.words)
                    coverage = len(covered | opposed) / len(cf.content)
                if topic < TOPIC_COVERAGE:
                    continue
                reason = contradiction(cf, wf, coverage)
                if reason and (best_contra is None or (topic, key) > best_contra[0]):
                    best_contra = ((topic, key), passage.id, window, reason)
        if best_support is not None and (best_contra is None
                                         or best_support[0][0] >= best_contra[0][1][0]):
            _, pid, quote = best_support
            return Verdict("supported", passage_ids=[pid], quote=quote,
                           rationale=f"content-word coverage {best_support[0][0]:.2f}")
        if best_contra is not None:
            _, pid, quote, reason = best_contra
            return Verdict("contradicted", passage_ids=[pid], quote=quote, rationale=reason)
        return Verdict("unsupported", rationale="no passage window covers this claim")
