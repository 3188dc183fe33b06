"""Where text sits in an answer: locating a decomposer's text, the answer's sentences and structure.

The spans ``alignment.align`` works on: ``locate`` finds a claim's or set-aside item's text in
the answer after normalisation (``canonical_map``), ``answer_units`` splits the answer into
sentences and list items, ``markdown_structure`` marks its headings, fences, tables and
quotes, and ``set_aside_label`` says why a part of it may be set aside. ``AlignedClaim`` is one
claim with the answer spans it came from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from ..judges.offline.decomposer import (
    RECAP_OPENER,
    answered_question,
    is_topic_label,
    non_assertive_reason,
    reads_as_code,
    set_aside_parts,
)
from ..language.features import text_features
from ..language.markers import is_source_line, strip_citations
from ..language.text import (
    MD_BULLET,
    MD_FENCE,
    MD_HEADING,
    MD_TABLE_SEP,
    QUOTES,
    collapse_ws,
    sentence_spans,
)
from ..records import Span

#: Share of a sentence's content words the claims aligned to it must contain (every number and
#: name of it always). All of them: a decomposer that leaves out part of a sentence ("the screen
#: and battery" -> "the battery") has not covered it.
COVERAGE = 1.0

#: Most words of a heading, label line or table header row (rule 4).
_LABEL_WORDS = 8

#: Weights of a shared word when a claim is aligned to a sentence.
NUMBER_WEIGHT, NAME_WEIGHT = 3, 2

_MD_MARKS = set("*_`#|>")
_WHOLE_BOLD = re.compile(r"^\s*(\*\*|__)[^*_]+\1:?\s*$")
#: An attribution lead-in ("According to the docs,") and the interjections opening a sentence
#: ("Yeah, ", "No, "), which coverage leaves out of a sentence (``bare_sentence``). Not the
#: decomposer's opener lists (``judges.offline.decomposer.frames``), which split an opener
#: off its assertion: these strip only what carries no fact at the start of any sentence
#: ("no" only as a reply: "No immediate injuries" keeps it), and one list for both jobs would
#: change verdicts.
_COVERAGE_ATTRIBUTION = re.compile(
    r"\b(?:according to|based on|as (?:stated|mentioned|noted|shown|described) in)\s+"
    r"(?:the\s+)?(?:\w+\s+)?(?:documents?|context|passages?|sources?|information|"
    r"documentation|docs|text|data|results?)\b\s*,?",
    re.IGNORECASE,
)
_COVERAGE_INTERJECTION = re.compile(
    r"^(?:(?:(?:yes|yeah|yep|yup|sure|ok|okay|well|oh|ah|hmm+|wow|indeed|certainly|"
    r"absolutely|of course|great question|good question|" + RECAP_OPENER +
    r")\b\s*[,!.:;\u2013\u2014-]*|"
    # "No immediate injuries": a determiner
    r"(?:no|nope|nah)\b(?:\s*[,!.:;\u2013\u2014-]+|(?=\s+(?:but|and|so)\b)))\s*)+",
    re.IGNORECASE,
)
PUNCT = re.compile(r"[^\w\s]")
#: Words that join clauses; a decomposer that splits a sentence at one need not repeat it.
CONNECTIVES = ("while whereas although though however also yet so thus therefore hence "
               "meanwhile moreover furthermore additionally besides still whilst respectively")
_GENERIC = "set aside by the decomposer"  # records' reason for a plain-string dropped item


@dataclass
class AlignedClaim:
    """One claim to verify: its text, its answer spans, and a note when it was not taken from
    the decomposer as given (or its source was not found)."""

    text: str
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    added: bool = False  # made by the pipeline, not the decomposer
    #: why the claim is not grounded in the answer (rule 7), else ``None``: the pipeline
    #: scores such a claim ``unsupported`` without asking the judge
    ungrounded: str | None = None

    @property
    def note(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None


# --------------------------------------------------------------------------------------------
# Locating text in the answer.

@lru_cache(maxsize=4096)
def _canon_char(ch: str) -> str:
    if ch in _MD_MARKS:
        return ""
    if ch.isspace():
        return " "
    if unicodedata.category(ch) in ("Cc", "Cf"):  # controls, bidi and zero-width marks
        return ""
    return unicodedata.normalize("NFKC", ch).translate(QUOTES).casefold()


def canonical_map(text: str) -> tuple[str, list[int]]:
    """The normalised text (see the module docstring, rule 2) and, for each of its characters,
    the offset of the answer character it came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        for c in _canon_char(ch):
            if c == " " and (not out or out[-1] == " "):
                continue
            out.append(c)
            where.append(i)
    while out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


def canonical_text(text: str) -> str:
    """``text`` normalised as ``canonical_map`` does, without the offset map."""
    return canonical_map(text)[0]


def locate(text: str, canon: str, where: list[int], used: list[Span]) -> Span | None:
    """The answer span of ``text`` (normalised, whole words), preferring an occurrence not
    in ``used``."""
    needle = canonical_text(text)
    if not needle:
        return None
    found: Span | None = None
    start = 0
    while True:
        i = canon.find(needle, start)
        if i < 0:
            return found
        start = i + 1
        j = i + len(needle)
        if (needle[0].isalnum() and i > 0 and canon[i - 1].isalnum()) or (
                needle[-1].isalnum() and j < len(canon) and canon[j].isalnum()):
            continue  # inside a word
        span = (where[i], where[j - 1] + 1)
        if not any(overlaps(span, u) for u in used):
            return span
        found = found or span


def in_bounds(spans: list[Span], answer: str) -> list[Span] | None:
    """``spans`` (half-open character offsets) as a new list when every one lies inside
    ``answer`` and is not empty; ``None`` otherwise (a decomposer's spans are not trusted)."""
    if all(0 <= s < e <= len(answer) for s, e in spans):
        return [(s, e) for s, e in spans]
    return None


def overlaps(a: Span, b: Span) -> bool:
    """Whether the half-open spans ``a`` and ``b`` share a character."""
    return a[0] < b[1] and b[0] < a[1]


# --------------------------------------------------------------------------------------------
# Sentences, structure, set-aside text.

def answer_units(answer: str) -> list[Span]:
    """Sentence spans of the answer, cut again at line breaks, whitespace trimmed."""
    units: list[Span] = []
    for start, end in sentence_spans(answer):
        for m in re.finditer(r"[^\n]+", answer[start:end]):
            s, e = start + m.start(), start + m.end()
            while s < e and answer[s].isspace():
                s += 1
            while e > s and answer[e - 1].isspace():
                e -= 1
            if e > s:
                units.append((s, e))
    return units


def markdown_structure(answer: str) -> list[tuple[int, int, str]]:
    """Markdown structure of the answer: ``(start, end, kind)`` for code blocks, headings,
    label lines, whole-bold lines, table header rows and lines that list sources
    ("Sources: p-1, p-2", "[^1]: p-1") (rule 4)."""
    lines: list[tuple[int, int, str]] = []
    offset = 0
    for line in answer.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        lines.append((offset, offset + len(body), body))
        offset += len(line)
    regions: list[tuple[int, int, str]] = []
    # fences: a block that reads as code is set aside whole; one of prose sentences
    # (``decomposition.reads_as_code``) is read as text, only its fence lines set aside
    prose_fence: set[int] = set()  # indices of the fence lines of prose blocks

    def prose(opened: int, close: int) -> bool:  # the block between two fence lines
        inner = [b for _, _, b in lines[opened + 1:close]]
        if not inner:
            return False
        fence = MD_FENCE.match(lines[opened][2])
        assert fence is not None  # ``opened`` is a fence line
        return not reads_as_code(fence.group(2), inner)

    opened: int | None = None
    for i, (_, _, body) in enumerate(lines):
        if not MD_FENCE.match(body):
            continue
        if opened is None:
            opened = i
            continue
        if prose(opened, i):
            prose_fence |= {opened, i}
        opened = None
    if opened is not None and prose(opened, len(lines)):  # an unclosed fence runs to the end
        prose_fence.add(opened)
    fence_start: int | None = None
    for i, (start, end, body) in enumerate(lines):
        if i in prose_fence:
            lead = len(body) - len(body.lstrip())
            regions.append((start + lead, start + len(body.rstrip()), "markup"))
            continue
        if MD_FENCE.match(body):
            if fence_start is None:
                fence_start = start
            else:
                regions.append((fence_start, end, "code block"))
                fence_start = None
            continue
        stripped = body.strip()
        if fence_start is None and stripped and is_source_line(body):
            lead = len(body) - len(body.lstrip())
            regions.append((start + lead, start + len(body.rstrip()), "list of sources"))
            continue
        if fence_start is not None or not stripped or len(stripped.split()) > _LABEL_WORDS:
            continue
        kind = None
        if MD_HEADING.match(body) or _WHOLE_BOLD.match(body):
            kind = "heading"
        elif stripped.endswith(":") and not MD_BULLET.match(body):
            kind = "label"
        elif stripped.startswith("|") and not MD_TABLE_SEP.match(body):
            following = next((b for _, _, b in lines[i + 1:] if b.strip()), "")
            if MD_TABLE_SEP.match(following):
                kind = "table header"
        if kind == "heading" and not is_topic_label(
                re.sub(r"[*_`]", "", MD_HEADING.sub("", body)).strip()):
            kind = None  # "## Sale items refundable for 90 days" asserts
        if kind:
            lead = len(body) - len(body.lstrip())
            regions.append((start + lead, start + len(body.rstrip()), kind))
    if fence_start is not None:
        regions.append((fence_start, len(answer), "code block"))
    return regions


def inside_structure(start: int, end: int, structure: list[tuple[int, int, str]]) -> bool:
    """Whether ``start..end`` lies inside one of the ``markdown_structure`` spans."""
    return any(s <= start and end <= e for s, e, _ in structure)


def sentence_parts(answer: str, span: Span) -> list[Span]:
    """The sentences (cut at line breaks) of the answer text at ``span``."""
    start, end = span
    out = [(start + s, start + e) for s, e in answer_units(answer[start:end])]
    return out or [span]


def set_aside_reason(text: str, span: Span, structure: list[tuple[int, int, str]]
                     ) -> str | None:
    """Why this sentence of set-aside text may stay set aside, or ``None`` if it asserts."""
    for s, e, kind in structure:
        if s <= span[0] and span[1] <= e:
            return kind
    reason = non_assertive_reason(text)
    if reason is not None:
        return reason
    features = text_features(strip_citations(text))
    if not features.content and not features.negated:
        return "no content words"
    return None


def frame_of(answer: str, part: Span, units: list[Span]) -> str | None:
    """The reason the local rules set aside ``part`` for, when it is a piece of a sentence
    that they set aside in that sentence (``decomposition.set_aside_parts``: the frame of a
    question or offer that carries an assertion), else ``None``."""
    unit = next((u for u in units if u[0] <= part[0] and part[1] <= u[1]), None)
    if unit is None or unit == part:
        return None
    for s, e, reason in set_aside_parts(answer[unit[0]:unit[1]]):
        s, e = unit[0] + s, unit[0] + e
        outside = answer[part[0]:max(part[0], min(s, part[1]))] + answer[min(max(e, part[0]),
                                                                             part[1]):part[1]]
        if part[0] < e and s < part[1] and not re.search(r"\w", outside):
            return reason  # the part is that piece, give or take punctuation around it
    return None


def set_aside_label(given: str, verdicts: list[tuple[Span, str | None]]) -> str:
    """The decomposer's reason, or the local one when the decomposer gave none of its own."""
    if given != _GENERIC:
        return given
    local = sorted({r for _, r in verdicts if r})
    return ", ".join(local) if local else given


def bare_sentence(text: str, ids: tuple[str, ...]) -> str:
    """A sentence as coverage measures it: no list marker, citation markers, opening
    interjection ("Yeah, ...", "No, ...") or attribution lead-in ("According to the docs,")."""
    text = MD_BULLET.sub("", collapse_ws(text))
    text = strip_citations(text, passage_ids=ids, passage_count=len(ids))
    text = _COVERAGE_ATTRIBUTION.sub(" ", _COVERAGE_INTERJECTION.sub("", text.strip()))
    return collapse_ws(text)


def given_reason(reason: str) -> str:
    """The decomposer's own reason for setting text aside, as " (reason)" after a message; empty
    when it gave none (a plain-string dropped item)."""
    return "" if reason == _GENERIC else f" ({reason})"


def answered_in_answer(answer: str, part: Span, units: list[Span]) -> str | None:
    """The statement the yes/no question at ``part`` and the reply right after it make
    together ("Can X be Y? No." -> "X cannot be Y.", see ``decomposition.answered_question``),
    else ``None``."""
    following = next((u for u in units if u[0] >= part[1]), None)
    if following is None:
        return None
    return answered_question(answer[part[0]:part[1]], answer[following[0]:following[1]])


def remainder_text(answer: str, start: int, end: int, dropped: list[Span]) -> str:
    """``answer[start:end]`` with set-aside spans blanked out."""
    chars = list(answer[start:end])
    for s, e in dropped:
        for i in range(max(s, start), min(e, end)):
            chars[i - start] = " "
    return "".join(chars)
