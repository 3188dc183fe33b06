"""Small text utilities shared by the decomposer, the verifier and the verdict check."""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})

#: Inline citation markers: ``[1]``, ``[1, 2]``, ``[p-2071, p-2072]``, ``[doc3]``, ``[^1]``,
#: ``【1】``. Bracketed ordinary words (``[sic]`` excepted) are not treated as citations unless
#: they carry a digit.
CITATION = re.compile(
    r"\s*(?:\[\^?\s*[A-Za-z_-]{0,12}\s*-?\d+[A-Za-z0-9_.:-]*"
    r"(?:\s*[,;]\s*[A-Za-z_-]{0,12}\s*-?\d+[A-Za-z0-9_.:-]*)*\s*\]|【\d+(?:[,;†\w]*)】)"
)

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def collapse_ws(text: str) -> str:
    """Collapse runs of whitespace to one space and strip both ends; nothing else changes."""
    return _WS.sub(" ", text).strip()


def normalize_ws(text: str) -> str:
    """NFKC-normalise, unify typographic quotes and collapse whitespace; strips both ends."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip()


def strip_citations(text: str) -> str:
    """Remove inline citation markers (see ``CITATION``) and tidy the space they leave."""
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
