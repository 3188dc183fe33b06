"""Text with its place in the answer: ``Mapped`` (a string and each character's offset in the
answer), the sentences of such a text, and the trimmed span of a stretch of the answer.

Every claim and every set-aside piece is built from ``Mapped`` text, so the decomposer can
give each its span of the answer (the coverage property in ``rules``)."""

from __future__ import annotations

import re

from ....language.markers import citation_spans
from ....language.text import sentence_spans
from .words import WORD


class Mapped:
    """A string and, for each of its characters, its offset in the answer (-1: written by us)."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: list[int]) -> None:
        self.text, self.pos = text, pos

    @classmethod
    def of(cls, answer: str, start: int, end: int) -> Mapped:
        """``answer[start:end]``, each character mapped to its own offset."""
        return cls(answer[start:end], list(range(start, end)))

    @classmethod
    def literal(cls, text: str) -> Mapped:
        """``text`` written by the decomposer (a space, a "; "), mapped to no offset (-1)."""
        return cls(text, [-1] * len(text))

    def __add__(self, other: Mapped) -> Mapped:
        return Mapped(self.text + other.text, self.pos + other.pos)

    def __getitem__(self, index: slice) -> Mapped:
        return Mapped(self.text[index], self.pos[index])

    def without(self, spans) -> Mapped:
        """This text with the characters in ``spans`` (offsets into ``self.text``) removed."""
        keep = [True] * len(self.text)
        for start, end in spans:
            keep[start:end] = [False] * (end - start)
        return Mapped("".join(c for c, k in zip(self.text, keep) if k),
                      [p for p, k in zip(self.pos, keep) if k])

    def remove(self, pattern: re.Pattern[str]) -> Mapped:
        """This text without every match of ``pattern``."""
        return self.without([m.span() for m in pattern.finditer(self.text)])

    def collapsed(self) -> Mapped:
        """Whitespace runs -> one space (mapped to the run's first character), ends stripped."""
        text: list[str] = []
        pos: list[int] = []
        for ch, p in zip(self.text, self.pos):
            if ch.isspace():
                if text and text[-1] != " ":
                    text.append(" ")
                    pos.append(p)
            else:
                text.append(ch)
                pos.append(p)
        if text and text[-1] == " ":
            text.pop()
            pos.pop()
        return Mapped("".join(text), pos)

    def strip(self) -> Mapped:
        """This text without whitespace at either end."""
        start, end = 0, len(self.text)
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return self[start:end]

    def first(self) -> int | None:
        """The answer offset of the first character that came from the answer."""
        return next((p for p in self.pos if p >= 0), None)


def split_sentences(m: Mapped) -> list[Mapped]:
    """Sentences of ``m``; they cover all of it (text pysbd leaves out joins the sentence
    before it), and a sentence that is only bracket markers joins the one before it."""
    starts = sorted({s for s, _ in sentence_spans(m.text)} | {0})
    parts = [m[a:b].strip() for a, b in zip(starts, starts[1:] + [len(m.text)])]
    out: list[Mapped] = []
    for part in parts:
        if not part.text:
            continue
        if out and not WORD.search(re.sub(r"\[[^\]]*\]|【[^】]*】", "", part.text)):
            out[-1] = out[-1] + Mapped.literal(" ") + part
        else:
            out.append(part)
    return out


def without_citations(m: Mapped) -> Mapped:
    """``m`` without its citation markers (``text.citation_spans``: "[1]", "[^2]"), stripped."""
    return m.without(citation_spans(m.text)).strip()


def trim_span(answer: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` narrowed to begin and end on a non-whitespace character of ``answer``;
    ``None`` when ``answer[start:end]`` is all whitespace."""
    while start < end and answer[start].isspace():
        start += 1
    while end > start and answer[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None
