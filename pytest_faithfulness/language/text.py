"""Small text utilities shared by the decomposer, the verifier and the verdict check.

Whitespace and typography normalisation (``normalize_ws``, ``fold_typography``,
``quote_in_passage``), sentence spans of an answer (``sentence_spans``) and of a passage
(``passage_sentence_spans``), Markdown line patterns and common-word lookup. The answer's
citation markers, source lines and footnotes live in ``markers``.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

_WS = re.compile(r"\s+")
#: Typographic quotes to ASCII, no-break space to space.
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})

#: Markdown line structure, shared by the offline decomposer and the pipeline's alignment:
#: a list item's marker, a heading's hashes, a fence (its language tag in group 2) and a
#: table's separator row.
MD_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u25aa\u2023]|\d{1,3}[.)])\s+")
MD_HEADING = re.compile(r"^\s*#{1,6}\s+")
MD_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+#.-]*)")
MD_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")

#: Chinese, Japanese (kana) and Korean characters, as a regex character-class body.
CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = re.compile(f"[{CJK_CLASS}]")


def collapse_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and strip both ends; nothing else changes."""
    return _WS.sub(" ", text).strip()


def normalize_ws(text: str) -> str:
    """NFKC-normalise, unify typographic quotes and collapse whitespace; strips both ends."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).translate(QUOTES)).strip()


def has_cjk(text: str) -> bool:
    """True when the text contains Chinese, Japanese or Korean characters."""
    return bool(_CJK.search(text))


#: Invisible characters that split no word (soft hyphen, zero-width spaces and joiners, word
#: joiner, BOM): typography, dropped by ``fold_typography``.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
#: Every quotation mark drawn as ``'`` or ``"``, and every dash, hyphen or minus drawn as ``-``.
_TYPOGRAPHY = str.maketrans({
    **{c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u0060\u00b4\u02bc"},
    **{c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
    **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"},
})
#: A dash between words, however spaced or doubled ("a -- b", "a \u2014 b", "a-b").
_DASH_RUN = re.compile(r"\s*-+\s*")
#: Superscript digits and signs: NFKC would make "10\u00b2" the number "102"; they are written
#: as an exponent instead ("10^2", "m^2", "10^-3").
_SUPERSCRIPT_RUN = re.compile("[\u2070\u00b9\u00b2\u00b3\u2074-\u207b]+")
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
                              "\u207a\u207b", "0123456789+-")


def fold_superscripts(text: str) -> str:
    """``text`` with each run of superscript digits written as an exponent: "10\u00b2" ->
    "10^2", "m\u00b3" -> "m^3" (NFKC alone would read "10\u00b2" as "102")."""
    if text.isascii():
        return text
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPTS), text)


def _dash(match: re.Match[str]) -> str:
    """A dash run as ``fold_typography`` writes it: one ``-`` with no space around, except a
    minus sign: a dash after a space, straight before a digit and not after a number ("at -20",
    "at \u221220", not "3 - 5"), keeps its space, so the sign stays the number's."""
    run, text, start, end = match.group(0), match.string, match.start(), match.end()
    if (run[0].isspace() and run[-1] == "-" and run.count("-") == 1
            and text[end:end + 1].isdigit() and not text[start - 1:start].isdigit()):
        return " -"
    return "-"


#: Inline emphasis: Markdown ``**bold**``, ``__bold__``, ``*italic*``, ``_italic_``,
#: ```code```, and the HTML tags that only style a run of text (not ``<sup>``/``<sub>``,
#: whose removal would join "10<sup>2</sup>" into "102").
_EMPHASIS = (
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<!\w)_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?!\w)"), r"\1"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"</?(?:b|strong|i|em|u|mark|code|span|font|small)(?:\s[^<>]*)?>",
                re.IGNORECASE), ""),
)


def fold_typography(text: str) -> str:
    """``text`` with its typography unified, nothing else: Unicode NFKC (ligatures, full-width
    forms, no-break spaces), invisible characters dropped, curly and straight quotes one mark
    each, dashes, hyphens and minus signs one ``-`` (the spaces around a dash dropped, but for
    the space before a minus sign: "at -20"), superscript digits an exponent ("10\u00b2" ->
    "10^2", not NFKC's "102"), inline emphasis dropped (Markdown ``**``/``__``/``*``/``_``/
    backticks around a run of text, HTML ``<b>``, ``<strong>``, ``<i>``, ``<em>``, ``<u>``,
    ``<mark>``, ``<code>``, ``<span>``: a judge quotes "free returns" from "**free** returns")
    and runs of whitespace one space. Case, letters, digits and other punctuation are kept as
    they are.
    """
    folded = unicodedata.normalize("NFKC", fold_superscripts(_INVISIBLE.sub("", text)))
    if any(c in folded for c in "*_`<"):
        for pattern, repl in _EMPHASIS:
            folded = pattern.sub(repl, folded)
    return _WS.sub(" ", _DASH_RUN.sub(_dash, folded.translate(_TYPOGRAPHY))).strip()


def quote_in_passage(quote: str, passage_text: str) -> bool:
    """True when ``quote`` occurs verbatim in ``passage_text`` at word boundaries, up to
    typography (``fold_typography``): "within 1" does not occur in "within 14 days", nor "und"
    in "refund" (a CJK character needs no boundary, its script does not space words).

    Both sides are folded the same way: NFKC, curly/straight quotes, dashes and hyphens,
    no-break and zero-width spaces, ligatures, inline emphasis markup and whitespace unified;
    nothing else is forgiven
    (the comparison is case-sensitive, words and punctuation must match). An empty quote never
    matches.
    """
    q = fold_typography(quote)
    if not q:
        return False
    text = fold_typography(passage_text)
    start = text.find(q)
    while start != -1:
        end = start + len(q)
        if not (_inside_word(text, start - 1, start) or _inside_word(text, end - 1, end)):
            return True
        start = text.find(q, start + 1)
    return False


def _inside_word(text: str, left: int, right: int) -> bool:
    """True when ``text[left]`` and ``text[right]`` are both letters or digits of a script
    that spaces its words, so a cut between them splits a word ("1" of "14")."""
    if left < 0 or right >= len(text):
        return False
    a, b = text[left], text[right]
    if a.isdigit() and b in ".," and text[right + 1:right + 2].isdigit():
        return True  # "1" of "1.5"
    if b.isdigit() and a in ".," and text[left - 1:left].isdigit():
        return True  # "5" of "1.5"
    return a.isalnum() and b.isalnum() and not (_CJK.match(a) or _CJK.match(b))


#: pysbd's cost grows faster than linearly with the length of the text it is given, so long
#: texts are cut into chunks of about this many characters at paragraph or sentence breaks
#: first and each chunk is segmented on its own (linear overall).
SEGMENT_CHUNK = 3000
_BREAK = re.compile(r"\n\s*\n|(?<=[.!?\u3002])\s+")


def language_of(text: str) -> str:
    """pysbd language code from the script: ``ja`` (kana), ``zh`` (han only), else ``en``."""
    if has_cjk(text):
        return "ja" if re.search(r"[\u3040-\u30ff]", text) else "zh"
    return "en"


@lru_cache(maxsize=4)
def _segmenter(language: str, char_span: bool):
    import pysbd

    return pysbd.Segmenter(language=language, clean=False, char_span=char_span)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, whitespace trimmed.

    Sentences come from pysbd (Sadvilkar & Neumann 2020); texts longer than
    ``SEGMENT_CHUNK`` are first cut at paragraph or sentence breaks so the time stays linear.
    ``text[start:end]`` is always a verbatim substring, and a word is never cut in two (a chunk
    cut inside a word with no space for thousands of characters is joined back). Used for
    answers; passages, which can run to megabytes, go through the faster
    ``passage_sentence_spans``. The spans of the last few texts are remembered: alignment,
    citations and the reports all cut the same answer.
    """
    return list(_sentence_spans(text))


@lru_cache(maxsize=32)
def _sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    for offset, chunk in _chunks(text):
        segmenter = _segmenter(language_of(chunk), True)
        for span in segmenter.segment(chunk):
            start, end = offset + span.start, offset + span.end
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end <= start:
                continue
            if spans and spans[-1][1] == start and text[start - 1].isalnum() \
                    and text[start].isalnum():
                spans[-1] = (spans[-1][0], end)  # a hard chunk cut inside one word
            else:
                spans.append((start, end))
    return tuple(spans)


def _chunks(text: str):
    if len(text) <= SEGMENT_CHUNK:
        yield 0, text
        return
    start = 0
    while start < len(text):
        if len(text) - start <= SEGMENT_CHUNK:
            yield start, text[start:]
            return
        limit = start + SEGMENT_CHUNK
        cut = None
        for m in _BREAK.finditer(text, start + SEGMENT_CHUNK // 3, limit):
            cut = m.end()
        if cut is None:  # no break at all: cut at whitespace, else hard
            space = text.rfind(" ", start + SEGMENT_CHUNK // 3, limit)
            cut = space + 1 if space > start else limit
        yield start, text[start:cut]
        start = cut


# --------------------------------------------------------------------------------------------
# Passage sentences: a regular-expression splitter, linear and fast on megabytes of passages.

#: Words (lower case, without their final period) after which a period does not end a
#: sentence: titles, reference words and month names, which precede a name or a number.
#: Single letters (initials such as ``J. R. R.``) and dotted forms (``U.S.``, ``e.g.``,
#: ``Ph.D.``) are recognised by shape.
ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr prof st mt ft sen rep gov gen lt col capt cmdr sgt cpl adm rev hon
    pres supt insp messrs mme mlle no nos vol vols fig figs eq eqs ch sec pp pg ca cf vs
    approx est al jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
#: Abbreviations that often end a sentence too: their period ends one unless the next word
#: starts in lower case ("etc. and" continues, "etc. The" does not).
ABBREVIATIONS_AT_END = frozenset(
    "etc inc ltd co corp bros jr sr esq incl excl esp dept govt univ assn min max".split()
)

#: A passage sentence longer than this many characters is cut at the last whitespace before
#: the limit (or at the limit when it has none), so a passage without punctuation still
#: yields windows of bounded size.
MAX_SENTENCE_CHARS = 1000

_CLOSERS = "\"'\u201d\u2019\u00bb)\\]\u300d\u300f\uff09"
_CJK_STOPS = "\u3002\uff01\uff1f"  # 。！？
# A newline; or a word ending in terminal punctuation (plus closing quotes or brackets)
# before whitespace or the end; or CJK terminal punctuation, which needs no whitespace.
_PASSAGE_BREAK = re.compile(
    rf"\n|(?<!\S)([^\s{_CJK_STOPS}]*?)([.!?\u2026]+[{_CLOSERS}]*)(?=\s|\Z)"
    rf"|[{_CJK_STOPS}]+[{_CLOSERS}]*"
)
_NEXT_CHAR = re.compile(r"\s*(\S)")
_DOTTED = re.compile(r"(?:[^\W\d_]{1,3}\.)+[^\W\d_]{1,3}")
_OPENERS = "\"'\u201c\u2018([{\u00ab"
_SPACE_BEFORE_END = re.compile(r"\s(?=\S*\Z)")


def passage_sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of a passage, whitespace trimmed.

    A fast splitter for passages (megabytes of retrieved text); answers, which are short and
    where sentence boundaries matter most, go through ``sentence_spans`` (pysbd). A sentence
    ends at a newline; at ``!``, ``?`` or ``…`` (with any closing quotes or brackets) followed
    by whitespace and a word not in lower case; at ``.`` followed by whitespace, unless the
    period follows an abbreviation (``ABBREVIATIONS``; ``ABBREVIATIONS_AT_END`` before a word
    in lower case), an initial, a dotted form such as ``U.S.`` or a list number such as
    ``2.``, or comes before a digit or ``,;:%``; and at ``。``, ``！`` or ``？``. Sentences
    longer than ``MAX_SENTENCE_CHARS`` are cut at whitespace. Linear in ``len(text)``.

    The spans are in order, do not overlap, and together cover every non-whitespace
    character of ``text``; ``text[start:end]`` is always a verbatim substring.
    """
    cuts = [0]
    for m in _PASSAGE_BREAK.finditer(text):
        if m.group(2) is None or _ends_sentence(text, m, cuts[-1]):
            cuts.append(m.end())
    cuts.append(len(text))
    spans: list[tuple[int, int]] = []
    for a, b in zip(cuts, cuts[1:]):
        piece = text[a:b]
        start = a + len(piece) - len(piece.lstrip())
        end = a + len(piece.rstrip())
        while end - start > MAX_SENTENCE_CHARS:
            space = _SPACE_BEFORE_END.search(text, start + MAX_SENTENCE_CHARS // 2,
                                             start + MAX_SENTENCE_CHARS)
            cut = space.start() if space else start + MAX_SENTENCE_CHARS
            head = text[start:cut].rstrip()
            spans.append((start, start + len(head)))
            start = cut + len(text[cut:end]) - len(text[cut:end].lstrip())
        if end > start:
            spans.append((start, end))
    return spans


def _ends_sentence(text: str, m: re.Match, last_cut: int) -> bool:
    """Whether the terminal punctuation matched by ``m`` (groups: word, punctuation) ends a
    sentence; ``last_cut`` is where the current sentence began."""
    following = _NEXT_CHAR.match(text, m.end())
    if following is None:
        return True
    nxt = following.group(1)
    if m.group(2).rstrip(_CLOSERS) != ".":  # ! ? ... and the like
        return not nxt.islower()
    if nxt.isdigit() or nxt in ",;:%":
        return False
    word = m.group(1).lstrip(_OPENERS)
    if not word:
        return True
    lowered = word.lower()
    if (len(word) == 1 and word.isalpha() or lowered in ABBREVIATIONS
            or _DOTTED.fullmatch(word)):
        return False
    if nxt.islower():
        return lowered not in ABBREVIATIONS_AT_END
    # a list number ("2.") alone at the start of a sentence
    return not (word.isdigit() and len(word) <= 3 and not text[last_cut:m.start()].strip())


#: The common-word list (``training/build_common_words.py``: lower-case words that the NLI
#: training sentences write in lower case away from a sentence start at least as often as
#: capitalised there).
COMMON_WORDS_FILE = Path(__file__).resolve().parents[1] / "models" / "common_words.txt.gz"


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    with gzip.open(COMMON_WORDS_FILE, "rt", encoding="utf-8") as fh:
        return frozenset(line.strip() for line in fh if line.strip())


def is_common_word(word: str) -> bool:
    """Whether ``word`` (any case) is an everyday English word rather than a name: it, or it
    without a plural or possessive ending ("Refunds", "Tag's"), is on the common-word list
    (``models/common_words.txt.gz``, about 19,000 words). A capitalised word that opens a
    sentence is a name only when it is not common ("Markup", "Unfortunately" are common;
    "Nani", "Vela" are not). Raises ``OSError`` if the packaged list is missing."""
    lowered = word.lower().replace("\u2019", "'")
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    words = _common_words()
    return lowered in words or any(
        lowered.endswith(end) and lowered[:-len(end)] in words for end in ("s", "es"))
