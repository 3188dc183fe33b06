"""The heuristic verifier: the offline rules of ``verification`` alone, no model file.

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

The rules themselves (``_features``, ``_support_problem``, ``_contradiction``) live in
``verification``, beside the quote check that uses the same tokenisation.
"""

from __future__ import annotations

import re

from ...records import Passage, Verdict
from ...language.text import is_common_word
from ...trust.quote_check import (
    _DIMENSIONS,
    _NUMBER_WORDS,
    _PHRASES,
    _TOKEN,
    _UNIT_IMPLIES,
    CONTRADICTION_COVERAGE,
    HEURISTIC_VERSION,
    SUPPORT_COVERAGE,
    TOPIC_COVERAGE,
    _contradiction,
    _Features,
    _features,
    _opposites,
    _slot_rival,
    _stem,
    _support_problem,
    _surface,
    _title_speaks,
    _table_headers,
    _windows,
    table_readings,
    _with_header,
    _with_title,
    said_otherwise,
)
from ...language.text import passage_sentence_spans

#: Content words ``_features`` can produce from text that does not spell them: the words a
#: phrase is rewritten to ("percent" from "%", "hour" from "hrs") and the quantities a unit
#: implies ("speed" from "rpm"). Any window may hold them.
_DERIVED = frozenset({_stem(tok) for _, repl in _PHRASES for tok in _TOKEN.findall(repl)}
                     | set(_UNIT_IMPLIES.values()))
#: The number words ``_features`` reads as each number ("1": "one", "once", "single").
_DIGITS_OF_WORDS = {digits: tuple(w for w, d in _NUMBER_WORDS.items() if d == digits)
                    for digits in set(_NUMBER_WORDS.values())}


def _spellings(content_word: str) -> tuple[str, ...] | None:
    """Strings one of which a text's lower-cased ``_surface`` must contain for ``_features``
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


def _candidate_windows(claim: _Features, text: str, title: str | None = None,
                       headers: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """The windows of ``text`` (``_windows``, same order) that may reach either threshold.

    A window matters to ``HeuristicVerifier.verify`` only if it covers at least
    ``SUPPORT_COVERAGE`` of the claim's content words or ``TOPIC_COVERAGE`` of its
    non-numeric ones. Before the costly ``_features`` of each window, this counts per sentence
    which claim words it may contain (``_spellings``, a plain substring test) and drops the
    windows whose count cannot reach either share. The test over-counts, never under-counts,
    so no window that could change a verdict is dropped. ``title``: the passage's title when
    its words count with every window (``verification._with_title``); ``headers``: the
    header row (sentence index) of each Markdown table row (``verification._table_headers``).
    """
    windows = _windows(text)
    if not windows:
        return []
    bits = {word: 1 << i for i, word in enumerate(sorted(claim.content))}
    word_bits = sum(bits[w] for w in claim.words)
    always = 0
    probes = []
    # a quantity a window may state in another unit, a word it may write with or without a
    # hyphen (``said_otherwise``): no substring test
    otherwise = {w for n, u in claim.number_units if u in _DIMENSIONS or u == "oclock"
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
        surface = _surface(title).lower()
        always |= sum(bit for bit, spellings in probes if any(x in surface for x in spellings))
    n_sentences = (len(windows) + 1) // 2
    masks = []
    for start, end in windows[:n_sentences]:
        surface = _surface(text[start:end]).lower()
        mask = always
        for bit, spellings in probes:
            if any(s in surface for s in spellings):
                mask |= bit
        masks.append(mask)
    for row, header in (headers or {}).items():  # a table row speaks with its header's words
        masks[row] |= masks[header]
    keep = [w for w, mask in zip(windows, masks) if may_matter(mask)]
    rows = headers or {}
    keep += [w for i, (w, a, b) in enumerate(zip(windows[n_sentences:], masks, masks[1:]))
             if may_matter(a | b) and i not in rows and i + 1 not in rows  # a row on its own
             and not stitches(claim, text[slice(*windows[i])], text[slice(*windows[i + 1])])]
    return keep


def stitches(claim: _Features, first: str, second: str) -> bool:
    """Whether reading the neighbouring sentences ``first`` and ``second`` as one window would
    stitch the claim together from two things: each writes a name of the claim (a capitalised
    word that is no common word, ``text.is_common_word``, or any capitalised word after the
    sentence's first: "the Tigers") the other lacks and ``second`` does not go on from
    ``first`` (``continues``; a ``second`` opening with a determiner and a name that is no
    word of the claim, "The Lions beat...", does not): "Acme was founded in
    2001." / "Globex was acquired by Initech in 2021." for "Acme acquired Globex in 2021."."""
    def names(sentence: str) -> set[str]:  # the claim's words it writes as names
        opening = _FIRST_WORD.search(sentence)
        return {_stem(m.group(0).lower()) for m in _CAPITALISED.finditer(sentence)
                if not is_common_word(m.group(0))
                or opening is not None and m.start() > opening.start()} & claim.content
    one, two = names(first), names(second)
    if not (one - two and two - one):
        return False
    # "Leo Park coaches the Lions. The Lions beat the Tigers." for "Leo Park coaches the
    # Tigers": a sentence about another named thing ("The Lions", "The Basic plan", none of
    # the claim's words) does not go on from the one before for this claim
    opening = _DETERMINER_NAME.match(second)
    if opening and _stem(opening.group(1).lower()) not in claim.content:
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
    label ("Price: $49"), or names something ``first`` names, or opens with a word ``first`` states ("Exchanges" after
    "... can be exchanged"); or ``first`` is a heading of at
    most ``_HEADING_WORDS`` words. Two sentences about different things ("Acme was founded in
    2001." / "Globex was acquired by Initech in 2021.") are no window: their words together
    would say what neither says ("Acme acquired Globex in 2021.")."""
    opening = _FIRST_WORD.search(second)
    if opening is None or opening.group(0).lower() in _REFERRING or _LABEL.match(second):
        return True
    if _stem(opening.group(0).lower()) in _features(first, sentence_start_exempt=False).content:
        return True  # "... exchanged but not refunded. Exchanges are accepted within 30 days."
    if len(first.split()) <= _HEADING_WORDS:
        return True
    names = {m.group(0) for m in _CAPITALISED.finditer(first)}
    return any(m.group(0) in names for m in _CAPITALISED.finditer(second))


def _passage_windows(passage: Passage, claim: _Features):
    """The evidence windows of one passage for ``claim`` as ``(quote, features)``: its title,
    when it has one, then the one- and two-sentence windows of its text that may reach a
    threshold (``_candidate_windows``), each read with the title when the title states a name
    of the claim (``verification._with_title``: "Pro plan" over "Price: $12 per month")."""
    title = title_f = None
    if passage.title is not None and passage.title.strip():
        title = passage.title.strip()
        title_f = _features(title, sentence_start_exempt=False)
        yield title, title_f
        if not _title_speaks(claim, title_f):
            title = title_f = None
    text = passage.text
    rows, readings, headers = {}, {}, None
    if "|" in text and "---" in text:  # a Markdown table: each row read with its header
        spans = passage_sentence_spans(text)
        headers = _table_headers(text, spans)
        rows = {spans[k]: spans[h] for k, h in headers.items()}
        readings = {spans[k]: r for k, r in table_readings(text, spans, headers).items()}
    for start, end in _candidate_windows(claim, text, title, headers):
        window = text[start:end]
        if (reading := readings.get((start, end))) is not None:  # "SSO: No" is "not SSO"
            wf = _with_title(claim, _features(reading, sentence_start_exempt=False), title_f)
            yield window, wf
            continue
        wf = _with_title(claim, _features(window, sentence_start_exempt=False), title_f)
        if (header := rows.get((start, end))) is not None:
            wf = _with_header(wf, _features(text[header[0]:header[1]],
                                            sentence_start_exempt=False))
        yield window, wf


def _named_apart(claim: str, window: str) -> bool:
    """Whether a window of two sentences states the claim's name in one and the rest of the
    claim beside another name in the other ("The Pro plan costs $20 per month. The Basic plan
    includes SSO." for "The Basic plan costs $20 per month": ``verification._slot_rival``
    read sentence by sentence, as the quote check reads the quote)."""
    spans = passage_sentence_spans(window)
    return len(spans) > 1 and _slot_rival(claim, [window[a:b] for a, b in spans],
                                          set()) is not None


class HeuristicVerifier:
    """Offline verifier: content-word coverage plus number and polarity checks. Not NLI.

    ``verify(claim, passages)`` returns a ``Verdict``; ``supported`` and ``contradicted``
    verdicts carry the passage id and a verbatim quote (a one- or two-sentence window of the
    text, or the passage's title, which counts as one window of its own).
    Deterministic; no network, no model. Windows that cannot reach either threshold are
    skipped before they are scored (``_candidate_windows``), so the time grows with the
    passages' length at about 0.2 CPU seconds per MB (``benchmarks/passage_speed.py``).

    Raises:
        TypeError: ``claim`` is not a string.
    """

    version = HEURISTIC_VERSION

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Judge one claim against the passages (see the module docstring for the rules)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, got {type(claim).__name__}")
        cf = _features(claim)
        if not cf.content or not passages:
            return Verdict("unsupported", rationale="no passage speaks to this claim")
        best_support = None  # (coverage, -length, pid, quote)
        best_contra = None
        for passage in passages:
            for window, wf in _passage_windows(passage, cf):
                covered = cf.content & wf.content | said_otherwise(cf, wf)
                coverage = len(covered) / len(cf.content)
                key = (coverage, -len(window))
                if coverage >= CONTRADICTION_COVERAGE and _support_problem(cf, wf) is None \
                        and not _named_apart(claim, window):
                    if best_support is None or key > best_support[0]:
                        best_support = (key, passage.id, window)
                    continue
                topic = (len(cf.words & wf.words) / len(cf.words)) if cf.words else 0.0
                if topic < TOPIC_COVERAGE and covered and cf.words:
                    # a word the window states by its opposite ("non-refundable" for
                    # "refundable") is on the topic too
                    opposed = {a for a, _ in _opposites(cf, wf)}
                    topic = len(cf.words & (wf.words | opposed)) / len(cf.words)
                    coverage = len(covered | opposed) / len(cf.content)
                if topic < TOPIC_COVERAGE:
                    continue
                reason = _contradiction(cf, wf, coverage)
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
