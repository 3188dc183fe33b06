"""Small text utilities shared by the decomposer, the verifier and the verdict check."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})

#: Chinese, Japanese (kana) and Korean characters, as a regex character-class body.
CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = re.compile(f"[{CJK_CLASS}]")


def collapse_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and strip both ends; nothing else changes."""
    return _WS.sub(" ", text).strip()


def normalize_ws(text: str) -> str:
    """NFKC-normalise, unify typographic quotes and collapse whitespace; strips both ends."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()


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


def _marker_kind(match: re.Match[str], passage_ids: frozenset[str]) -> str | None:
    """``"number"``, ``"id"`` (every id inside is a passage id) or ``None`` (ordinary text)."""
    if match.group("cjk") is not None:
        return "number" if _CJK_NUMBER.fullmatch(match.group("cjk").strip()) else None
    body = match.group("body")
    if _NUMBERS.fullmatch(body):
        return "number"
    ids = [part.strip().lstrip("^").strip() for part in re.split(r"[,;]", body)]
    if passage_ids and all(ids) and all(i in passage_ids for i in ids):
        return "id"
    return None


def citation_spans(text: str, passage_ids: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the citation markers in ``text``.

    A bracket is a citation marker only when (rules of this package):

    * its content is a number, a list of numbers or a range (``[1]``, ``[1, 2]``, ``[1-3]``,
      ``[^1]``, ``【1】``, ``【4:2†source】``) **and** it stands in citation position: what follows
      it (after any further markers) is the end of the text or line, sentence punctuation, a
      closing bracket or quote, or a clause-opening word (and, but, or, which, ...), or it comes
      right after the end of a sentence. ``[3] years`` is text, not a citation;
    * or every comma-separated id inside it is one of ``passage_ids`` (``[p-2071, p-2072]``),
      wherever it stands. A number is judged by position only, never as an id.

    Anything else in brackets (``[3-year]``, ``[USD 99]``, ``[sic]``) is text. Each span also
    takes in the spaces and tabs just before the marker, so removing the spans leaves no space
    before the punctuation that follows.
    """
    ids = frozenset(passage_ids)
    found = [(m, _marker_kind(m, ids)) for m in CITATION.finditer(text)]
    spans: list[tuple[int, int]] = []
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
        in_position = bool(_CITATION_AFTER.match(text, end)) or (
            start > 0 and bool(_SENTENCE_END_BEFORE.search(text, 0, start)))
        for m, kind in run:
            if kind == "id" or (kind == "number" and in_position):
                s = m.start()
                while s > 0 and text[s - 1] in " \t":
                    s -= 1
                if spans and s < spans[-1][1]:
                    s = spans[-1][1]
                spans.append((s, m.end()))
        i = j + 1
    return spans


def strip_citations(text: str, passage_ids: Iterable[str] = ()) -> str:
    """``text`` without its citation markers (see ``citation_spans``), both ends stripped.

    Args:
        text: a claim or sentence.
        passage_ids: the ids of the answer's passages; a bracket of ids is removed only when
            every id in it is one of these.
    """
    out, last = [], 0
    for start, end in citation_spans(text, passage_ids):
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return "".join(out).strip()


def has_cjk(text: str) -> bool:
    """True when the text contains Chinese, Japanese or Korean characters."""
    return bool(_CJK.search(text))


def quote_in_passage(quote: str, passage_text: str) -> bool:
    """True when ``quote`` occurs in ``passage_text`` after whitespace normalisation.

    Both sides are NFKC-normalised, typographic quotes are unified and runs of whitespace
    collapse to one space; the comparison is case-sensitive. An empty quote never matches.
    """
    q = normalize_ws(quote)
    return bool(q) and q in normalize_ws(passage_text)


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
    ``text[start:end]`` is always a verbatim substring.
    """
    spans: list[tuple[int, int]] = []
    for offset, chunk in _chunks(text):
        segmenter = _segmenter(language_of(chunk), True)
        for span in segmenter.segment(chunk):
            start, end = offset + span.start, offset + span.end
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                spans.append((start, end))
    return spans


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
