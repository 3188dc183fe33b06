"""Citations: the answer's own inline citation markers, mapped to passages and to claims, and
checked against the verdicts.

``cite_claims(answer, passages, claim_spans, claim_texts)`` says, for each claim, which
passages the answer cites for it; ``citation_label(verdict, cited)`` classes the claim once
it is verified. Nothing here calls a judge; the pipeline (``pipeline``) verifies a cited claim
against its cited passages first and against all of them only when those do not support it.

Rules (this package's, stated so they can be argued with):

1. **Markers.** The styles recognised are those of ``markers.citation_markers``: ``[1]``,
   ``[1, 2]``, ``[1-3]``, ``[^1]``, ``【1】``, ``[p-2071]``, ``[p-2071, p-2072]``, a labelled
   parenthetical ``(Source 2)`` / ``(Sources 1, 3)`` / ``(source: p-2071)``, a line that lists
   sources (``Sources: p-2071, p-2072``, ``References: [1], [2]``; ``markers.source_line_refs``)
   and Markdown footnotes (``[^1]`` with a definition line ``[^1]: p-2071``).
2. **Mapping.** An id maps to the passage with exactly that id. A number ``N`` maps to the
   passage whose id is ``N`` when there is one, else to the ``N``-th passage (1-based, the
   order given); a range ``1-3`` is each number in it (at most ``MAX_RANGE``). A footnote
   ``[^N]`` with a definition line maps to what the definition names, resolved the same way
   (``[^1]: p-2071``, ``[^1]: 3``, ``[^1]: [3]``, ``[^1]: Source 3``, ``[^1]: Passage 3``;
   prose: the passage ids written in it); a definition that names no passage is an unknown
   citation (``^N``), never passage ``N``. A footnote without a definition is the number
   ``N``. A reference that maps to no passage (``... received. [7]`` with three passages,
   ``[p-9999]``) is an **unknown citation**: it is kept (``unknown``), it can never make a
   citation correct, and the claim's note says so. A bracket of numbers *inside* a sentence
   that maps to no passage ("weighs [800].") is a value, not a marker
   (``markers.citation_spans`` with ``passage_count``): it stays in the claim and is judged.
3. **Attachment.** A marker inside a sentence (before its closing punctuation) cites the clause
   it follows: the text of its sentence since the previous marker of that sentence. A marker
   after a sentence's closing punctuation (``... indefinitely. [p-2071]``) cites the text since
   the previous marker of its paragraph or list item (a block of sentences cited together). Of
   the markers whose cited text overlaps the claim's spans, a claim takes those whose cited text
   it states: that holds at least half of the cited text's content words in the claim, else the
   one that holds the largest share (an LLM's claim aligned to a whole sentence with two markers
   takes the one whose clause it states; a claim that states both clauses takes both). A claim
   no marker attaches to takes the references of the answer's lines that list sources, if any;
   else it is **uncited**.
4. **Classes** (``citation_label``): ``"correct"`` (a cited passage supports the claim, and
   it cites no unknown passage), ``"misattributed"`` (supported, but not by a passage it
   cites, or it also cites a passage that is not there), ``"unsupported"`` (cited, not
   supported: contradicted or unsupported), ``"uncited"``. Citation precision = correct /
   cited (correct + misattributed + unsupported). Faithfulness is unchanged by any of this:
   support by any passage counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..language.markers import (
    FOOTNOTE_DEFINITION,
    citation_markers,
    footnote_refs,
    source_line_refs,
)
from ..language.text import sentence_spans
from ..records import Passage, Span, Verdict

#: The most passages one range (``[1-40]``) stands for; a longer range is one unknown citation.
MAX_RANGE = 50

#: The classes of ``citation_label``.
CITATION_LABELS = ("correct", "misattributed", "unsupported", "uncited")

_WORD = re.compile(r"[^\W_]+")
#: Words left out when a claim's words are compared with a marker's cited text (which marker a
#: claim attaches to). Not ``language.lexicon.STOP_WORDS``: a 50-word subset of it, the list
#: the citation figures were measured with; the full list also drops words such as "about",
#: "only", "most", "per", "always", which would move markers.
_MARKER_STOP_WORDS = frozenset("""
a an the and or but of to in on at for by with from as is are was were be been
it its this that these those there their they we you your our can may will would should not no
yes so than then also any all each""".split())
#: A claim states a marker's cited text when it holds this share of its content words.
_STATES = 0.5
_URL = re.compile(r"https?://\S+")
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]*_]*[ \t]*$")


@dataclass(frozen=True)
class Marker:
    """One citation marker (or a run of adjacent markers) in the answer.

    Args:
        start / end: its span in the answer (``answer[start:end]`` is the marker).
        refs: the references as written (``"1"``, ``"1-3"``, ``"^1"``, ``"p-2071"``).
        passage_ids: the passages they map to (rule 2), in order, without repeats.
        unknown: the references that map to no passage.
        cites: the answer span whose claims it cites (rule 3); ``None`` for a sources line.
    """

    start: int
    end: int
    refs: tuple[str, ...]
    passage_ids: tuple[str, ...]
    unknown: tuple[str, ...]
    cites: Span | None = None


@dataclass
class ClaimCitation:
    """What the answer cites for one claim.

    Args:
        passage_ids: the cited passages that exist, in order of citation.
        unknown: references that name no passage (as written, e.g. ``"7"``, ``"p-9999"``).
    """

    passage_ids: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def cited(self) -> bool:
        """Whether the claim cites anything at all (an unknown reference included)."""
        return bool(self.passage_ids or self.unknown)

    def note(self) -> str | None:
        """The claim's note about unknown references, or ``None``."""
        if not self.unknown:
            return None
        shown = ", ".join(self.unknown)
        return (f"cites {shown}, which names no passage of this answer: counted as a citation "
                "that cannot be correct")


def find_markers(answer: str, passages: Sequence[Passage]) -> list[Marker]:
    """Every citation marker of ``answer`` with the passages it maps to and the span it cites
    (rules 1-3 of the module docstring); lines that list sources come last, with
    ``cites=None``."""
    ids = [p.id for p in passages]
    footnotes = _footnotes(answer, passages)
    raw: list[tuple[int, int, list[str]]] = []
    for start, end, refs in citation_markers(answer, ids, passage_count=len(ids)):
        if raw and not answer[raw[-1][1]:start].strip(" \t,"):
            raw[-1] = (raw[-1][0], end, raw[-1][2] + refs)  # "[1][2]", "[1], [2]": one run
        else:
            raw.append((start, end, list(refs)))
    lines = _source_lines(answer)
    in_lines = [(a, b) for a, b, _ in lines] + [(a, b) for a, b in _definition_lines(answer)]
    raw = [m for m in raw if not any(a <= m[0] < b for a, b in in_lines)]
    blocks = _blocks(answer)
    units = _units(answer)
    markers = []
    previous_end = 0
    for start, end, refs in raw:
        found, unknown = _resolve(refs, passages, footnotes)
        block_start = max((b for b in blocks if b <= start), default=0)
        after_sentence = bool(_SENTENCE_END.search(answer, max(0, start - 40), start))
        if after_sentence or _first_in_unit(answer, start, units):
            begin = max(block_start, previous_end)
        else:
            unit_start = max((a for a, b in units if a <= start), default=0)
            begin = max(unit_start, previous_end, block_start)
        markers.append(Marker(start, end, tuple(refs), tuple(found), tuple(unknown),
                              (begin, start)))
        previous_end = end
    for start, end, refs in lines:
        found, unknown = _resolve(refs, passages, footnotes)
        markers.append(Marker(start, end, tuple(refs), tuple(found), tuple(unknown), None))
    return markers


def cite_claims(answer: str, passages: Sequence[Passage], claim_spans: Sequence[Sequence[Span]],
                claim_texts: Sequence[str]) -> list[ClaimCitation]:
    """What the answer cites for each claim (rule 3), parallel to ``claim_spans``.

    Args:
        answer: the answer text.
        passages: its passages, in the order given (numbers map to positions).
        claim_spans: each claim's answer spans (``ClaimResult.spans``; may be empty).
        claim_texts: each claim's text.

    Returns:
        one ``ClaimCitation`` per claim.
    """
    markers = find_markers(answer, passages) if _may_cite(answer) else []
    inline = [m for m in markers if m.cites is not None]
    listed = [m for m in markers if m.cites is None]
    out = []
    for spans, text in zip(claim_spans, claim_texts):
        chosen = _attached(answer, inline, list(spans), text)
        if not chosen:
            chosen = listed
        citation = ClaimCitation()
        for m in chosen:
            citation.passage_ids += [i for i in m.passage_ids if i not in citation.passage_ids]
            citation.unknown += [u for u in m.unknown if u not in citation.unknown]
        out.append(citation)
    return out


def citation_label(verdict: Verdict | None, citation: ClaimCitation) -> str | None:
    """The claim's citation class (rule 4): ``"correct"``, ``"misattributed"``,
    ``"unsupported"`` or ``"uncited"``; ``None`` when there is no verdict (an errored answer:
    nothing to class)."""
    if not citation.cited:
        return "uncited"
    if verdict is None:
        return None
    if verdict.label != "supported":
        return "unsupported"
    if citation.unknown or not set(verdict.passage_ids) & set(citation.passage_ids):
        return "misattributed"
    return "correct"


# --------------------------------------------------------------------------------------------

def _attached(answer: str, markers: list[Marker], spans: list[Span], text: str) -> list[Marker]:
    candidates = [(m, m.cites) for m in markers if m.cites and m.cites[1] > m.cites[0]
                  and any(s < m.cites[1] and m.cites[0] < e for s, e in spans)]
    if not candidates:
        return []
    words = _content(text)
    scored = []
    for m, cites in candidates:
        cited = _content(answer[cites[0]:cites[1]])
        scored.append((len(words & cited) / len(cited) if cited else 0.0, m))
    best = max(score for score, _ in scored)
    if best == 0:  # no word in common (a resolved pronoun): the marker after the claim's start
        first = min(s for s, _ in spans)
        return ([m for m, cites in candidates if cites[0] <= first < cites[1]][:1]
                or [m for m, _ in candidates[:1]])
    return [m for score, m in scored if score == best or score >= _STATES]


def _may_cite(answer: str) -> bool:
    """A cheap pre-check: no bracket, no parenthesis and no line that lists sources, no
    marker (saves segmenting an answer that cites nothing)."""
    return any(ch in answer for ch in "[(\u3010") or bool(
        re.search(r"(?im)^\W*(?:sources?|references?|citations?|cited passages?)\W*:", answer))


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _MARKER_STOP_WORDS}


def _resolve(refs: Sequence[str], passages: Sequence[Passage],
             footnotes: dict[str, tuple[list[str], list[str]]]
             ) -> tuple[list[str], list[str]]:
    by_id = {p.id for p in passages}
    found: list[str] = []
    unknown: list[str] = []

    def add(target: list[str], value: str) -> None:
        if value not in target:
            target.append(value)

    for ref in refs:
        ref = ref.strip()
        if ref.startswith("^") and ref[1:] in footnotes:  # what its definition names
            named, missing = footnotes[ref[1:]]
            for pid in named:
                add(found, pid)
            for value in missing:
                add(unknown, value)
            continue
        bare = ref.lstrip("^").strip()
        if bare in by_id:
            add(found, bare)
            continue
        span = re.fullmatch(r"(\d{1,4})\s*[-\u2013]\s*(\d{1,4})", bare)
        if span:
            lo, hi = int(span.group(1)), int(span.group(2))
            if hi < lo or hi - lo + 1 > MAX_RANGE:
                add(unknown, bare)
                continue
            numbers = [str(n) for n in range(lo, hi + 1)]
        elif bare.isdigit():
            numbers = [bare]
        else:
            add(unknown, bare)
            continue
        for n in numbers:
            if n in by_id:
                add(found, n)
            elif 1 <= int(n) <= len(passages):
                add(found, passages[int(n) - 1].id)
            else:
                add(unknown, n)
    return found, unknown


def _footnotes(answer: str, passages: Sequence[Passage]
               ) -> dict[str, tuple[list[str], list[str]]]:
    """Footnote label -> (passage ids, unknown references) of what its definition line names.

    A definition that only names sources (``markers.footnote_refs``: ``p-2071``, ``3``, ``[3]``,
    ``Source 3``, ``Passage 3``) is resolved like an inline marker (rule 2: an id, else a
    number's id or position); one with prose in it names the passage ids written in it. A
    definition that names no passage at all is an unknown reference (``^1``): the footnote
    never falls back to the passage of its own number.
    """
    out: dict[str, tuple[list[str], list[str]]] = {}
    known = sorted((p.id for p in passages), key=len, reverse=True)
    for line in answer.splitlines():
        m = FOOTNOTE_DEFINITION.match(line)
        if not m:
            continue
        refs = footnote_refs(line)
        if refs is not None:
            refs = [r for r in refs if not _URL.fullmatch(r)]
        if refs:
            found, unknown = _resolve(refs, passages, {})
        else:
            body = m.group("body")
            found = sorted((i for i in known
                            if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", body)),
                           key=body.find)
            unknown = []
        if not found and not unknown:
            unknown = [f"^{m.group('label')}"]
        out[m.group("label")] = (found, unknown)
    return out


def _source_lines(answer: str) -> list[tuple[int, int, list[str]]]:
    out = []
    offset = 0
    for line in answer.splitlines(keepends=True):
        refs = source_line_refs(line.rstrip("\r\n"))
        if refs is not None:
            out.append((offset, offset + len(line.rstrip("\r\n")), refs))
        offset += len(line)
    return out


def _definition_lines(answer: str) -> list[Span]:
    out = []
    offset = 0
    for line in answer.splitlines(keepends=True):
        if FOOTNOTE_DEFINITION.match(line):
            out.append((offset, offset + len(line)))
        offset += len(line)
    return out


def _blocks(answer: str) -> list[int]:
    """Where each paragraph and each list item starts."""
    starts = [0]
    for m in re.finditer(r"\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])\s)", answer):
        starts.append(m.end())
    return starts


def _units(answer: str) -> list[Span]:
    """Sentences of the answer, cut again at line breaks."""
    units = []
    for start, end in sentence_spans(answer):
        for m in re.finditer(r"[^\n]+", answer[start:end]):
            units.append((start + m.start(), start + m.end()))
    return units


def _first_in_unit(answer: str, start: int, units: list[Span]) -> bool:
    """Whether the marker at ``start`` opens its sentence (pysbd made it a sentence alone)."""
    for a, b in units:
        if a <= start < b:
            return not answer[a:start].strip()
    return True
