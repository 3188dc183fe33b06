"""Small text utilities shared by the decomposer, the verifier and the verdict check."""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections.abc import Iterable
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


#: One bracketed inline marker: ``[...]`` (``[^...]`` for a footnote) or ``【...】``, on one line.
#: Whether it is a citation depends on its content and position, see ``citation_spans``.
CITATION = re.compile(r"\[(?P<body>\^?[^\[\]\n]{1,80})\]|【(?P<cjk>[^【】\n]{1,40})】")
_NUMBER = r"\^?\d{1,4}(?:\s*[-\u2013]\s*\d{1,4})?"
_NUMBERS = re.compile(rf"\s*{_NUMBER}(?:\s*[,;]\s*{_NUMBER})*\s*")
_CJK_NUMBER = re.compile(r"\d{1,4}(?::\d{1,4})?(?:\u2020[^】]*)?")
#: What may follow a citation marker: the end of the text or line, sentence punctuation, a
#: closing bracket or quote, or a word that starts a new clause.
_CITATION_AFTER = re.compile(
    r"[ \t]*(?:$|\n|[.,;:!?)\]\u3002\u3001\uff01\uff1f\uff0c\u2026\"'\u201d\u2019]|"
    r"(?:and|but|or|while|whereas|which|so|because|although|though)\b)")
_SENTENCE_END_BEFORE = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)]?\s*$")


def _binds_next(text: str, start: int) -> bool:
    """True when the character before ``start`` (spaces and tabs skipped) binds the token after
    it, so a bracket there is that token, not a citation: a currency or math symbol
    (``$[500]``, ``€【20】``, ``<[5]``), ``#`` or ``№``, a range dash after a digit
    (``10-[20]``). (A bracket inside a word or number, ``ab[1]cd``, fails on what follows it.)"""
    i = start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i == 0:
        return False
    prev = text[i - 1]
    if unicodedata.category(prev) in {"Sc", "Sm"} or prev in "#\u2116":
        return True
    if prev in "-\u2013\u2212" and i > 1 and text[i - 2].isdigit():
        return True
    return False


def _marker_kind(match: re.Match[str], passage_ids: frozenset[str],
                 shapes: re.Pattern[str] | None = None) -> str | None:
    """``"number"``, ``"id"`` (every id inside is a passage id, or has the shape of one: see
    ``id_shapes``) or ``None`` (ordinary text)."""
    if match.group("cjk") is not None:
        return "number" if _CJK_NUMBER.fullmatch(match.group("cjk").strip()) else None
    body = match.group("body")
    if _NUMBERS.fullmatch(body):
        return "number"
    ids = [part.strip().lstrip("^").strip() for part in re.split(r"[,;]", body)]
    if passage_ids and all(ids) and any(_is_id(i, passage_ids, shapes) for i in ids) and all(
            _is_id(i, passage_ids, shapes) or _NUMBERS.fullmatch(i) for i in ids):
        return "id"
    return None


def _is_id(item: str, passage_ids: frozenset[str], shapes: re.Pattern[str] | None) -> bool:
    return item in passage_ids or (shapes is not None and bool(shapes.fullmatch(item)))


def id_shapes(passage_ids: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for ids shaped like the given passage ids with other digits: ``p-2071`` gives
    ``p-\\d+``, so ``[p-9999]`` reads as a citation of a passage that is not there (its id
    names no passage) rather than as text. Ids without a digit give no shape; ``None`` when no
    id has one."""
    shapes = sorted({re.sub(r"\d+", lambda _: r"\d+", re.escape(i)) for i in passage_ids
                     if re.search(r"\d", i) and re.search(r"[^\W\d_]", i)})
    return re.compile("|".join(shapes)) if shapes else None


#: A labelled parenthetical citation: ``(Source 2)``, ``(Sources 1, 3)``, ``(source: p-2071)``.
SOURCE_PAREN = re.compile(
    r"\((?:sources?|refs?\.?|references?|passages?|docs?\.?|documents?)\s*:?\s*"
    r"(?P<items>[^()\n]{1,80}?)\s*\)", re.IGNORECASE)
_ITEM_SPLIT = re.compile(r"\s*(?:[,;&]|\band\b)\s*", re.IGNORECASE)


def citation_refs(body: str) -> list[str]:
    """The references inside one marker's body, as written: ``"1, 2"`` -> ``["1", "2"]``,
    ``"^1"`` -> ``["^1"]``, ``"1-3"`` -> ``["1-3"]``, ``"p-2071; p-2072"`` ->
    ``["p-2071", "p-2072"]``, ``"4:2†source"`` (a 【】 marker) -> ``["4"]``."""
    if "\u2020" in body or re.fullmatch(r"\s*\d{1,4}:\d{1,4}.*", body):
        return [body.split(":")[0].strip()]
    return [part.strip() for part in _ITEM_SPLIT.split(body) if part.strip()]


def _paren_markers(text: str, ids: frozenset[str], shapes: re.Pattern[str] | None
                   ) -> list[tuple[int, int, list[str]]]:
    out = []
    for m in SOURCE_PAREN.finditer(text):
        refs = citation_refs(m.group("items"))
        if refs and all(_NUMBERS.fullmatch(r) or _is_id(r, ids, shapes) for r in refs):
            out.append((m.start(), m.end(), refs))
    return out


def citation_spans(text: str, passage_ids: Iterable[str] = (), *,
                   passage_count: int | None = None) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the citation markers in ``text``.

    A bracket is a citation marker only when (rules of this package):

    * its content is a number, a list of numbers or a range (``[1]``, ``[1, 2]``, ``[1-3]``,
      ``[^1]``, ``【1】``, ``【4:2†source】``) **and** it stands in citation position: what follows
      it (after any further markers) is the end of the text or line, sentence punctuation, a
      closing bracket or quote, or a clause-opening word (and, but, or, which, ...), or it comes
      right after the end of a sentence, **and** what precedes it does not bind it to a value:
      after a currency or math symbol, ``#``, or a range dash after a digit (``$[500]``,
      ``$[^500]``, ``$【500】``, ``10-[20]``) a bracket is the value itself. ``[3] years`` is
      text, not a citation;
    * or every comma-separated item inside it is one of ``passage_ids`` (``[p-2071, p-2072]``)
      or has the shape of one with other digits (``[p-9999]`` beside ``p-2071``: see
      ``id_shapes``), or is a number beside such an id (``[1, p-9]``), wherever it stands.
      A number is judged by position only, never as an id.

    When ``passage_count`` (the number of the answer's passages) is given, a bracket of numbers
    inside a sentence (before its closing punctuation: ``weighs [800].``) none of whose numbers
    is a passage id or a position ``1..passage_count`` is a value, not a citation: it is text,
    kept in the claim. After a sentence's closing punctuation (``... refunded. [7]``) a
    bracket stays a citation (of a passage that is not there). A footnote (``[^7]``) is always
    a citation.

    A labelled parenthetical, ``(Source 2)``, ``(Sources 1, 3)``, ``(source: p-2071)``
    (labels: source, ref, reference, passage, doc, document), is a marker too when every item
    in it is a number, a range or an id as above.

    Anything else in brackets (``[3-year]``, ``[USD 99]``, ``[sic]``) is text. Each span also
    takes in the spaces and tabs just before the marker, so removing the spans leaves no space
    before the punctuation that follows.
    """
    return [(s, e) for s, e, _ in citation_markers(text, passage_ids,
                                                   passage_count=passage_count)]


def _names_no_passage(refs: list[str], ids: frozenset[str], count: int) -> bool:
    """True when no reference of a number marker is a passage id or a position ``1..count``
    (a footnote reference always counts as a citation)."""
    for ref in refs:
        if ref.startswith("^") or ref in ids:
            return False
        numbers = [int(n) for n in re.findall(r"\d+", ref)]
        if len(numbers) == 2:  # a range
            numbers = list(range(numbers[0], min(numbers[1], numbers[0] + 60) + 1))
        if any(str(n) in ids or 1 <= n <= count for n in numbers):
            return False
    return True


def citation_markers(text: str, passage_ids: Iterable[str] = (), *,
                     passage_count: int | None = None) -> list[tuple[int, int, list[str]]]:
    """The citation markers of ``text`` (the rules of ``citation_spans``) with what each
    cites: ``(start, end, refs)``, ``refs`` as written (``citation_refs``). In text order;
    spans do not overlap. ``passage_count``: see ``citation_spans`` (a bracketed value)."""
    ids = frozenset(passage_ids)
    shapes = id_shapes(ids)
    parens = _paren_markers(text, ids, shapes)
    found = [(m, _marker_kind(m, ids, shapes)) for m in CITATION.finditer(text)
             if not any(a <= m.start() < b for a, b, _ in parens)]
    markers: list[tuple[int, int, list[str]]] = []
    i = 0
    while i < len(found):
        # a run of markers separated only by spaces or commas is judged together
        j = i
        while (j + 1 < len(found) and found[j + 1][1] is not None
               and re.fullmatch(r"[ \t,]*", text[found[j][0].end():found[j + 1][0].start()])):
            j += 1
        run = found[i:j + 1]
        end = run[-1][0].end()
        start = run[0][0].start()
        after_sentence = start > 0 and bool(_SENTENCE_END_BEFORE.search(text, 0, start))
        in_position = not _binds_next(text, start) and (
            bool(_CITATION_AFTER.match(text, end)) or after_sentence)
        for m, kind in run:
            body = m.group("body") if m.group("body") is not None else m.group("cjk")
            if kind == "number" and in_position and passage_count is not None and (
                    not after_sentence and _names_no_passage(citation_refs(body), ids,
                                                             passage_count)):
                continue  # "weighs [800].": a value, not a citation of a passage
            if kind == "id" or (kind == "number" and in_position):
                markers.append((m.start(), m.end(), citation_refs(body)))
        i = j + 1
    markers += parens
    markers.sort()
    spans: list[tuple[int, int, list[str]]] = []
    for s, e, refs in markers:
        while s > 0 and text[s - 1] in " \t":
            s -= 1
        if spans and s < spans[-1][1]:
            s = spans[-1][1]
        spans.append((s, e, refs))
    return spans


#: A line that lists the answer's sources: ``Sources: p-2071, p-2072``, ``References: [1],
#: [2]``, ``**Source:** 3``. Every item is one token (an id, a number, a bracket marker).
SOURCE_LINE = re.compile(
    r"^\s*(?:[*_]{1,2})?(?:sources?|references?|citations?|cited passages?)(?:[*_]{1,2})?\s*:"
    r"(?:[*_]{1,2})?\s*(?P<items>\S.*?)\s*$", re.IGNORECASE)
_SOURCE_ITEM = re.compile(r"\[?\^?[\w.:#/-]{1,40}\]?")
#: A Markdown footnote definition: ``[^1]: p-2071`` (the label in group ``label``).
FOOTNOTE_DEFINITION = re.compile(r"^\s*\[\^(?P<label>[^\]\s]{1,20})\]:\s*(?P<body>.*?)\s*$")


def source_line_refs(line: str) -> list[str] | None:
    """The references of a line that lists sources (``SOURCE_LINE``), as written without
    brackets (``"Sources: [1], p-2"`` -> ``["1", "p-2"]``); ``None`` when ``line`` is not such a
    line (an item of several words, ``Sources: our annual report``, is text)."""
    m = SOURCE_LINE.match(line)
    if not m:
        return None
    items = [i for i in _ITEM_SPLIT.split(m.group("items").rstrip(".")) if i]
    if not items or not all(_SOURCE_ITEM.fullmatch(i) for i in items):
        return None
    return [i.strip("[]").lstrip("^") for i in items]


_URL_ITEM = re.compile(r"<?https?://[^\s<>]+>?")
#: A labelled item of a footnote definition: ``Source 3``, ``Passage 3``, ``source: p-2071``.
_LABELLED_ITEM = re.compile(
    r"(?:sources?|passages?|refs?\.?|references?|docs?\.?|documents?)\s*:?\s*"
    r"(?P<item>\[?\^?[\w.:#/-]{1,40}\]?)", re.IGNORECASE)


def footnote_refs(line: str) -> list[str] | None:
    """The references of a Markdown footnote definition whose body only names sources
    (``[^1]: p-2071``, ``[^2]: 3, p-9``, ``[^3]: [3]``, ``[^4]: Source 3``, ``[^5]: Passage
    3``, ``[^6]: https://...``), as written without brackets or label (``"3"``); ``None`` for
    any other line. A definition with prose in it (``[^9]: The Pico 2 exploded in 2024.``) is
    answer text a reader sees, so it is judged like any other text."""
    m = FOOTNOTE_DEFINITION.match(line)
    if not m:
        return None
    items = [i for i in _ITEM_SPLIT.split(m.group("body").rstrip(".")) if i]
    items = [labelled.group("item") if (labelled := _LABELLED_ITEM.fullmatch(i)) else i
             for i in items]
    if not items or not all(_SOURCE_ITEM.fullmatch(i) or _URL_ITEM.fullmatch(i)
                            for i in items):
        return None
    return [i.strip("[]<>").lstrip("^") for i in items]


def is_source_line(line: str) -> bool:
    """True for a line that lists sources (``source_line_refs``) or defines a Markdown
    footnote that only names sources (``footnote_refs``): a reference, not an assertion; set
    aside as ``"list of sources"`` by the decomposer and the pipeline."""
    return source_line_refs(line) is not None or footnote_refs(line) is not None


def strip_citations(text: str, passage_ids: Iterable[str] = (), *,
                    passage_count: int | None = None) -> str:
    """``text`` without its citation markers (see ``citation_spans``), both ends stripped.

    Args:
        text: a claim or sentence.
        passage_ids: the ids of the answer's passages; a bracket of ids is removed only when
            every id in it is one of these.
        passage_count: the number of the answer's passages, when known: a bracket of numbers
            inside a sentence that names no passage is then a value, kept (``citation_spans``).
    """
    out, last = [], 0
    for start, end in citation_spans(text, passage_ids, passage_count=passage_count):
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return "".join(out).strip()


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
