"""Markdown structure: an answer's lines -> blocks (``markdown_blocks``), each read as one unit.

A bullet or numbered item, a table row (read as ``header: cell; ...``) and a ``key: value`` line
are units of their own; a heading or lead-in line that is a topic label (``is_topic_label``) is
set aside and gives its topic to the items below it (``_list_topic``); a fenced block is set
aside only when it reads as code (``reads_as_code``); a line that lists sources is set aside;
the other lines form paragraphs. Blockquote marks and emphasis are not part of the text."""

from __future__ import annotations

import re

from ....language.content import KEY_VALUE_LINE as _KEY_VALUE
from ....language.content import reads_as_code as reads_as_code
from ....language.markers import is_source_line
from ....language.text import MD_BULLET, MD_FENCE, MD_HEADING, MD_TABLE_SEP, has_cjk
from .mapped import Mapped
from .words import PREDICATE_WORD, WH_WORDS, is_verb, subject_of

#: A lead-in line that announces a list: "Here is how returns work:", "Here are the Pico's
#: specs:", "Returns work like this:", "The steps are below:" (see ``_list_topic``).
_HERE = re.compile(r"^(?:so,? )?here(?:'s| is| are)\s+", re.IGNORECASE)
_ANNOUNCED = re.compile(r"^(?P<topic>.*?)\s*\b(?:(?:works?|goes|go|happens?|is done|are done|"
                        r"are|is)\s+)?(?:as follows|like this|like so|below)\W*$",
                        re.IGNORECASE)


def _list_topic(lead_in: str) -> str | None:
    """The topic the items under a lead-in line carry: the lead-in without its announcing
    frame ("Here are the Pico's specs" -> "The Pico's specs", "Returns work like this" ->
    "Returns"); ``None`` when nothing but the frame is left ("Here is how returns work": a
    wh-clause names no topic an item could carry). Any other lead-in is its own topic."""
    here = _HERE.match(lead_in)
    if here:
        rest = lead_in[here.end():].strip()
        if not rest or rest.split()[0].lower() in WH_WORDS:
            return None
        return rest[:1].upper() + rest[1:]
    announced = _ANNOUNCED.match(lead_in)
    if announced:
        topic = announced.group("topic").strip()
        if re.fullmatch(r"(?:the )?(?:steps?|details?|options?|following|answer|list)", topic,
                        re.IGNORECASE):
            return None  # "The steps are below:" names no topic of its own
        return topic or None
    return lead_in


_QUOTE_MARK = re.compile(r"^\s*(?:>\s*)+")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
_TOPIC_SUFFIX = re.compile(
    r"\s*(?:at a glance|overview|summary|key (?:specs|features|facts|points)|specs|features|"
    r"details|highlights)\s*:?\s*$",
    re.IGNORECASE,
)
class Block:
    """A run of answer lines read as one unit: ``kind`` is ``"text" | "bullet" | "heading" |
    "table" | "code" | "group"`` (a fence read as text).

    ``start`` and ``end`` are its offsets in the answer; ``text`` its ``Mapped`` text (text,
    bullet, heading); ``topic`` the topic a heading gives (or a bullet borrows); ``rows`` a
    table's ``(kind, Mapped text or None, offset of the line)`` rows; ``children`` a group's
    blocks; ``label`` a set-aside heading's reason (``"heading"``, ``"lead-in"``, ``"list of
    sources"``)."""

    __slots__ = ("kind", "start", "end", "text", "topic", "rows", "children", "label")

    def __init__(self, kind, start, end, text=None, topic=None, rows=None, children=None,
                 label=None):
        self.kind, self.start, self.end = kind, start, end
        self.text, self.topic, self.rows, self.children = text, topic, rows, children
        self.label = label


def _lines(answer: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(start, end) of each line in ``answer[lo:hi]``, newline excluded."""
    out, start = [], lo
    while start < hi:
        nl = answer.find("\n", start, hi)
        end = hi if nl < 0 else nl
        out.append((start, end))
        start = end + 1
    return out


def _clean_line(answer: str, start: int, end: int, *prefixes: re.Pattern[str]) -> Mapped:
    m = Mapped.of(answer, start, end)
    for prefix in prefixes:
        pm = prefix.match(m.text)
        if pm:
            m = m[pm.end():]
    return m.remove(_EMPHASIS).collapsed()



def markdown_blocks(answer: str, lo: int, hi: int) -> list[Block]:
    """The blocks of ``answer[lo:hi]``, in order (see the module docstring); a fence read as
    text is a ``"group"`` of the blocks inside it."""
    lines = _lines(answer, lo, hi)
    blocks: list[Block] = []
    paragraph: list[tuple[int, int]] = []
    topic: str | None = None

    def flush():
        if paragraph:
            text = Mapped.literal("")
            for i, (s, e) in enumerate(paragraph):
                part = _clean_line(answer, s, e, _QUOTE_MARK)
                text = text + (Mapped.literal(" ") if i else Mapped.literal("")) + part
            blocks.append(Block("text", paragraph[0][0], paragraph[-1][1], text.collapsed()))
            paragraph.clear()

    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = answer[s:e]
        stripped = line.strip()
        fence = MD_FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            j = i + 1
            while j < len(lines) and not answer[lines[j][0]:lines[j][1]].strip().startswith(marker):
                j += 1
            inner = lines[i + 1:j]
            end = lines[min(j, len(lines) - 1)][1]
            inner_text = [answer[a:b] for a, b in inner]
            if reads_as_code(fence.group(2), inner_text) or not inner:
                blocks.append(Block("code", s, end))
            else:
                blocks.append(Block("group", s, end,
                                    children=markdown_blocks(answer, inner[0][0], inner[-1][1])))
            i = j + 1
            continue
        if not stripped:
            flush()
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            j = i
            while j < len(lines) and answer[lines[j][0]:lines[j][1]].strip().startswith("|"):
                j += 1
            blocks.append(_table(answer, lines[i:j]))
            i = j
            continue
        if is_source_line(line):  # "Sources: p-1, p-2", "[^1]: p-1": references, not claims
            flush()
            blocks.append(Block("heading", s, e, _clean_line(answer, s, e),
                                label="list of sources"))
            i += 1
            continue
        is_heading = bool(MD_HEADING.match(line))
        plain = _clean_line(answer, s, e, _QUOTE_MARK, MD_HEADING)
        whole_bold = bool(re.fullmatch(r"(\*\*|__).+?\1:?", stripped))
        lead_in = (plain.text.endswith(":") and len(plain.text.split()) <= 8
                   and not MD_BULLET.match(line) and not is_heading and not whole_bold)
        if is_heading or whole_bold or lead_in:
            flush()
            label = is_topic_label(plain.text) if not lead_in else None
            blocks.append(Block("heading", s, e, plain, label=("lead-in" if lead_in else
                                                                "heading" if label else None)))
            if label or lead_in:
                topic = _TOPIC_SUFFIX.sub("", plain.text.rstrip(":")).strip() or None
                if topic and lead_in:  # "Here is how returns work:" gives no topic
                    topic = _list_topic(topic)
                    topic = re.sub(r"['\u2019]s$", "", topic) if topic else None
                blocks[-1].topic = topic
            else:
                parsed = subject_of(plain.text)
                topic = parsed[1] if parsed else None
            i += 1
            continue
        if MD_BULLET.match(line):
            flush()
            blocks.append(Block("bullet", s, e, _clean_line(answer, s, e, _QUOTE_MARK, MD_BULLET),
                                topic=topic))
            i += 1
            continue
        if _KEY_VALUE.match(_QUOTE_MARK.sub("", line)) and len(stripped.split()) <= 16:
            flush()
            blocks.append(Block("text", s, e, _clean_line(answer, s, e, _QUOTE_MARK)))
            i += 1
            continue
        paragraph.append((s, e))
        i += 1
    flush()
    return blocks


def is_topic_label(text: str) -> bool:
    """True when a heading's text (no ``#`` or emphasis marks) is a topic label, not an
    assertion: no verb after its first word, no predicative adjective (``refundable``,
    ``available``) and no quantity (a number not part of a name such as ``Nimbus 4``), and not
    ``key: value`` with a number. Shared by the offline decomposer and the pipeline's
    alignment, so neither sets aside "## Sale items refundable for 90 days"."""
    words = text.rstrip(":").split()
    if has_cjk(text):
        return not re.search(r"\d|です|ます|。$", text)
    if re.match(r"^[^:]{1,40}:\s+\S*\d", text):  # "Warranty: 3 years"
        return False
    if (len(words) >= 3 and not _TOPIC_SUFFIX.search(text)
            and any(re.match(r"\d", w) and not (i and words[i - 1][:1].isupper())
                    for i, w in enumerate(words))):  # "Nimbus 4", "Step 2": a name's number
        return False  # "Sale items refundable for 90 days"
    return not (len(words) >= 3 and any(is_verb(w) or PREDICATE_WORD.match(w.strip(",;"))
                                        for w in words[1:]))


def _table(answer: str, lines: list[tuple[int, int]]) -> Block:
    """A table: the row above a ``|---|`` rule is its header; each row is read as
    ``header: cell; ...`` (or its cells joined by commas when there is no header)."""
    # ("header" | "row", text, offset of the line's first character)
    rows: list[tuple[str, Mapped | None, int | None]] = []
    header: list[str] | None = None
    pending = None
    for s, e in lines:
        line = answer[s:e]
        if MD_TABLE_SEP.match(line):
            if pending is not None and header is None:
                header = [c.text for c in pending[1]]
                rows.append(("header", None, pending[0]))
                pending = None
            continue
        if pending is not None:
            rows.append(("row", _row_text(pending[1], None), pending[0]))
        cells = _cells(answer, s, e)
        first = Mapped.of(answer, s, e).strip().first()
        if header is not None and len(cells) == len(header):
            rows.append(("row", _row_text(cells, header), first))
            pending = None
        else:
            pending = (first, cells)
    if pending is not None:
        rows.append(("row", _row_text(pending[1], None), pending[0]))
    return Block("table", lines[0][0], lines[-1][1], rows=rows)


def _cells(answer: str, start: int, end: int) -> list[Mapped]:
    m = Mapped.of(answer, start, end)
    cells, last = [], 0
    for bar in [i for i, c in enumerate(m.text) if c == "|"] + [len(m.text)]:
        cells.append(m[last:bar].remove(_EMPHASIS).collapsed())
        last = bar + 1
    if cells and not cells[0].text:
        cells = cells[1:]
    if cells and not cells[-1].text:
        cells = cells[:-1]
    return cells


def _row_text(cells: list[Mapped], header: list[str] | None) -> Mapped:
    out = Mapped.literal("")
    if header is not None:
        pairs = [(h, c) for h, c in zip(header, cells) if h and c.text]
        for i, (h, c) in enumerate(pairs):
            out = out + Mapped.literal(("; " if i else "") + f"{h}: ") + c
    else:
        for i, c in enumerate(c for c in cells if c.text):
            out = out + Mapped.literal(", " if i else "") + c
    return out + Mapped.literal(".") if out.text else out
