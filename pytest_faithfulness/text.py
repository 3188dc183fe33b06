"""Small text utilities shared by the decomposer, the verifier and the verdict check."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})

#: Inline citation markers: ``[1]``, ``[1, 2]``, ``[p-2071, p-2072]``, ``[doc3]``, ``[^1]``,
#: ``【1】``. Bracketed ordinary words (``[sic]`` excepted) are not treated as citations unless
#: they carry a digit.
CITATION = re.compile(
    r"\s*(?:\[\^?\s*[A-Za-z_-]{0,12}\s*-?\d+[A-Za-z0-9_.:-]*"
    r"(?:\s*[,;]\s*[A-Za-z_-]{0,12}\s*-?\d+[A-Za-z0-9_.:-]*)*\s*\]|【\d+(?:[,;†\w]*)】)"
)

#: Chinese, Japanese (kana) and Korean characters, as a regex character-class body.
CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK = re.compile(f"[{CJK_CLASS}]")


def collapse_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and strip both ends; nothing else changes."""
    return _WS.sub(" ", text).strip()


def normalize_ws(text: str) -> str:
    """NFKC-normalise, unify typographic quotes and collapse whitespace; strips both ends."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()


def strip_citations(text: str, passage_ids=()) -> str:
    """Remove inline citation markers (see ``CITATION``) and tidy the space they leave.

    ``passage_ids`` (the answer's passage ids) is accepted and not used yet.
    """
    text = CITATION.sub("", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", text).strip()


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
