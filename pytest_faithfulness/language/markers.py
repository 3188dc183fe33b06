"""Citation markers, source lines and footnotes: how an answer cites its passages.

``citation_spans`` / ``citation_markers`` find the markers of a text that name passages
(``[1]``, ``[1-3]``, ``[^1]``, ``【4:2†source】``, ``[p-2071]``, ``(Source 2)``),
``strip_citations`` removes them,
``is_source_line`` / ``source_line_refs`` / ``footnote_refs`` read a "Sources: ..." line or a
footnote definition. Used by the decomposer, the citation check and the alignment.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

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
