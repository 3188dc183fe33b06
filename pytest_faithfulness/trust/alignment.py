"""Alignment: hold any decomposer's claims and set-aside text against the answer itself.

A decomposer (offline rules, an LLM, a user's own) is not believed about what it left out.
``align(answer, decomposition, passage_ids)`` checks its output against the answer text and
returns the claims to verify, each with the answer spans it came from, plus the text set
aside with reasons. Rules, in order:

1. **Claims.** Citation markers are removed from each claim (``text.strip_citations`` with the
   answer's passage ids); a claim left with no text is recorded as set aside ("only citation
   markers"), never dropped silently. A claim that is only a subject and an auxiliary ("The
   Pico 2 sure is.", ``decomposition.elliptical_claim``) asserts nothing of its own: it is
   recorded as set aside, and its sentence is judged by the coverage rule (5) with the
   question it answers.
2. **Set-aside text is checked.** Each ``dropped`` item must be text of the answer: it is
   looked up after normalisation (NFKC, typographic quotes unified, Markdown emphasis, heading,
   table and quote marks removed, whitespace collapsed, case folded). An item that is not
   found is not trusted: it is recorded with that reason, a warning says so, and the text it
   claimed to stand for stays uncovered (rule 5). An item that is found is split into
   sentences (``text.sentence_spans``) and each sentence must be non-assertive by the local
   test (``decomposition.non_assertive_reason``), have no content words at all ("Yes"), lie
   in Markdown structure (rule 4), or be a piece of a sentence that the local rules set aside
   in it (``decomposition.set_aside_parts``: "Shall I also cancel your subscription," before
   "which renews daily?", whose relative clause is a claim). A sentence that fails is not set aside: it must be covered
   by claims like any other sentence (rule 5), and when it is not, it becomes a claim with a
   note saying the decomposer had set it aside. A yes/no question followed by an affirmative
   or negative reply ("Yes.", "Absolutely!", "They can.", "No.") is not set aside: the pair
   asserts the question's proposition (or its negation), and the question's sentence is
   covered only by claims that match that statement, negation included
   (``decomposition.answered_question``). A sentence of declarative word order with a question
   mark ("Sale items can be refunded?") is a claim, not a question.
3. **Sources of claims.** A claim's spans are the decomposer's ``claim_spans`` when given and
   inside the answer; otherwise a claim that is text of the answer word for word (normalised
   as in rule 2) gets that text's span, and any other claim is aligned to the answer sentence
   that holds most of its content words, weighing first the words no other claim has (so "The Kestrel e-bike
   is red." goes to "It is red.", not to the sentence that named the e-bike), numbers three
   times and names twice. A claim whose words or numbers are not in the answer gets no spans
   and a note saying its source was not found. A bracket of numbers inside a sentence that
   names no passage ("weighs [800]." with three passages: ``text.citation_spans``) is a value,
   not a citation: a claim aligned to that text that holds the word before it and not the
   value gets the value back, after that word, with a note.
4. **Structure.** HTML comments and tags (``<!-- ... -->``, ``<br>``) are markup, set aside
   (``"markup"``) and left out of every sentence; only tags of HTML elements count
   (``decomposition.markup_spans``): other text in angle brackets, and the value of an
   attribute a reader sees (``alt``, ``title``), is text and judged. Fenced blocks that read
   as code (``decomposition.reads_as_code``; a fence of prose sentences, "The API allows 100
   requests per minute.", is text and judged, only its fence lines are markup), and headings, label lines ("Key features:"), whole-bold
   lines and table header rows of at most eight words are Markdown structure (the offline
   decomposer's rule 1), not assertions: they
   need no claim and, when the decomposer did not list them, are recorded as set aside by
   the pipeline. So are lines that list sources ("Sources: p-1, p-2") and Markdown footnote
   definitions ("[^1]: p-1"), reason ``"list of sources"`` (``text.is_source_line``).
5. **Coverage.** The answer is cut into sentences (``text.sentence_spans``, then at line
   breaks). The part of a sentence not set aside (rule 2), without its list marker, citation
   markers, an opening interjection ("Yeah, ...", "No, ...") and attribution lead-ins
   ("According to the documents,"), is *covered* when the claims aligned
   to it - or one single claim anywhere - contain every number and name of it and all
   (``COVERAGE``) of its content words (the offline verifier's content words: stop words out,
   stems, number words as digits, CJK as character bigrams), and when their polarity matches
   the sentence's both ways: a negated sentence has a negated claim among them, and a sentence
   that is not negated has none; and when they hold every quantifier and modal verb of it
   (``_strength``: "All plans include SSO." is not covered by "Some plans include SSO."). A part with no content words needs nothing. An uncovered part
   that the local test finds non-assertive is recorded as set aside by the pipeline with that
   reason; any other uncovered part becomes a claim of its own, verified like the others,
   with a note saying why.
6. **Duplicates.** Claims identical after normalisation (case, whitespace, punctuation,
   quotes) are one claim; each later copy is recorded as set aside ("duplicate of claim N")
   with its spans. Paraphrases of one sentence must not outweigh it, so near-duplicates are
   merged by content: a decomposer's claim aligned to the same answer sentence as another,
   with the same polarity, quantifiers and modals, and no content word the other lacks ("has
   three levels" / "has 3 levels" / "There are three levels on it", or a fragment of it), is
   recorded as set aside ("restates claim N ... counted once"); the one with more content
   words stays.
7. **Grounding.** A decomposer's claim must be grounded in the answer: each of its content
   words (stems, numbers, names) in the sentence it is aligned to or in the answer before it
   (so "It comes with ..." -> "The Vela lamp comes with ..." is grounded once the answer named
   the Vela lamp). A claim that is not ("sold in black", aligned to "comes with a 5-year
   warranty" because they share a word), or whose source was not found, keeps the reason
   (``AlignedClaim.ungrounded``, in its note) and the pipeline scores it ``unsupported``
   without a judge call: a claim the answer never made can lift no score. So is a claim that
   changes what the sentences it is aligned to say: a quantifier or modal verb they do not
   hold ("Some plans include SSO." from "All plans include SSO."; "may" from "must"; modal
   verbs read by what they say, so "must allow" is "make sure ... allows"), or a negation
   where they hold none (the statement of an answered yes/no question counts as its
   sentence); the sentence itself is then judged (rule 5). Grounding is
   checked before rule 6's merge by content, so an ungrounded claim absorbs no other.

The result keeps the decomposer's claims in their order, with added claims placed by their
position in the answer.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from ..decomposition import (
    RECAP_OPENER,
    answered_question,
    elliptical_claim,
    is_topic_label,
    markup_spans,
    non_assertive_reason,
    reads_as_code,
    set_aside_parts,
)
from ..records import Decomposition, DroppedText, Span
from ..language.text import (
    MD_BULLET,
    MD_FENCE,
    MD_HEADING,
    MD_TABLE_SEP,
    QUOTES,
    citation_spans,
    collapse_ws,
    is_source_line,
    sentence_spans,
    strip_citations,
)
from ..language.features import text_features
from .polarity_rules import strength_words

#: Share of a sentence's content words the claims aligned to it must contain (every number and
#: name of it always). All of them: a decomposer that leaves out part of a sentence ("the screen
#: and battery" -> "the battery") has not covered it.
COVERAGE = 1.0

#: Most words of a heading, label line or table header row (rule 4).
_LABEL_WORDS = 8

#: Weights of a shared word when a claim is aligned to a sentence.
_NUMBER_WEIGHT, _NAME_WEIGHT = 3, 2

_MD_MARKS = set("*_`#|>")
_WHOLE_BOLD = re.compile(r"^\s*(\*\*|__)[^*_]+\1:?\s*$")
_ATTRIBUTION = re.compile(
    r"\b(?:according to|based on|as (?:stated|mentioned|noted|shown|described) in)\s+"
    r"(?:the\s+)?(?:\w+\s+)?(?:documents?|context|passages?|sources?|information|"
    r"documentation|docs|text|data|results?)\b\s*,?",
    re.IGNORECASE,
)
_INTERJECTION = re.compile(
    r"^(?:(?:(?:yes|yeah|yep|yup|sure|ok|okay|well|oh|ah|hmm+|wow|indeed|certainly|"
    r"absolutely|of course|great question|good question|" + RECAP_OPENER +
    r")\b\s*[,!.:;\u2013\u2014-]*|"
    r"(?:no|nope|nah)\b(?:\s*[,!.:;\u2013\u2014-]+|(?=\s+(?:but|and|so)\b)))\s*)+",  # "No immediate injuries": a determiner
    re.IGNORECASE,
)
_PUNCT = re.compile(r"[^\w\s]")
#: Words that join clauses; a decomposer that splits a sentence at one need not repeat it.
_CONNECTIVES = ("while whereas although though however also yet so thus therefore hence "
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


@dataclass
class Alignment:
    """What ``align`` made of a decomposition: the claims to verify (in order), the text set
    aside with its reasons, and warnings for the answer's result."""

    claims: list[AlignedClaim]
    dropped: list[DroppedText]
    warnings: list[str]


def align(answer: str, decomposition: Decomposition, passage_ids: tuple[str, ...] = ()
          ) -> Alignment:
    """Check ``decomposition`` against ``answer`` (see the module docstring for the rules).

    Args:
        answer: the answer text.
        decomposition: what the decomposer returned for it.
        passage_ids: the ids of the answer's passages (for citation markers).

    Returns:
        an ``Alignment``; every sentence of the answer ends up in a claim or in the set-aside
        text with a reason.
    """
    ids = tuple(passage_ids)
    dropped: list[DroppedText] = []
    warnings: list[str] = []
    claims: list[AlignedClaim] = []

    # 1. claims, citation markers out
    given = decomposition.claim_spans
    for index, raw in enumerate(decomposition.claims):
        text = collapse_ws(strip_citations(raw, passage_ids=ids, passage_count=len(ids)))
        spans = list(given[index]) if given else []
        if not re.search(r"\w", text):
            dropped.append(DroppedText(text=raw, reason="claim holds only citation markers",
                                       spans=_in_bounds(spans, answer) or []))
            continue
        if elliptical_claim(text):  # "The Pico 2 sure is.": nothing of its own to judge
            dropped.append(DroppedText(text=raw, spans=[], reason=(
                "a subject and an auxiliary with no predicate, so not a claim; its sentence "
                "is judged with the question it answers")))
            continue
        claim = AlignedClaim(text=text)
        if spans:
            checked = _in_bounds(spans, answer)
            if checked is None:
                claim.notes.append(f"the decomposer's spans {spans} are outside the answer "
                                   f"({len(answer)} characters): ignored")
            else:
                claim.spans = checked
        claims.append(claim)

    canon, where = _canonical_map(answer)
    markup = markup_spans(answer)
    structure = _structure(answer) + [(s, e, "markup") for s, e in markup]
    all_units = _units(answer)

    # 2. set-aside text
    trusted: list[DroppedText] = []
    flagged: list[tuple[Span, str]] = []  # set aside by the decomposer, yet assertive
    used: list[Span] = []
    for item in decomposition.dropped:
        span = _locate(item.text, canon, where, used)
        own = _in_bounds(item.spans, answer) if len(item.spans) == 1 else None
        if (span is not None and own and own[0][0] <= span[0] and span[1] <= own[0][1]
                and _canonical(answer[own[0][0]:own[0][1]]) == _canonical(item.text)
                and not any(_overlaps(own[0], u) for u in used)):
            span = own[0]  # its own span, with the markup (a fence) the search skips
        if span is None:
            dropped.append(DroppedText(text=item.text, reason=f"{item.reason}; not text of the "
                                       "answer, so not trusted", spans=[]))
            warnings.append(f"the decomposer set aside text that is not in the answer: "
                            f"{_clip(item.text)!r}")
            continue
        used.append(span)
        parts = _parts(answer, span)
        verdicts = [(p, _set_aside_reason(answer[p[0]:p[1]], p, structure)
                     or _frame_of(answer, p, all_units)) for p in parts]
        verdicts = [(p, None if reason == "question" and _answered(answer, p, all_units)
                     else reason) for p, reason in verdicts]
        if all(reason is not None for _, reason in verdicts):
            trusted.append(DroppedText(text=item.text, reason=_reason(item.reason, verdicts),
                                       spans=[span]))
            continue
        for part, reason in verdicts:
            if reason is not None:
                trusted.append(DroppedText(text=answer[part[0]:part[1]],
                                           reason=_reason(item.reason, [(part, reason)]),
                                           spans=[part]))
            else:  # not trusted: its sentence must be covered by claims like any other
                flagged.append((part, item.reason))
    dropped[:0] = trusted

    # 3. sources of claims; bracketed values kept in them
    units = _units(answer)
    _align_claims(answer, claims, units)
    _keep_values(answer, claims, ids, units)

    # 4 + 5. structure and coverage
    dropped_spans = [s for d in trusted for s in d.spans]
    coverage = _Coverage(units, claims)
    for unit, (start, end) in enumerate(units):
        if _inside(start, end, structure):
            continue
        part = _bare_sentence(_remainder(answer, start, end, dropped_spans + markup), ids)
        statement = _answered(answer, (start, end), units)
        if statement:  # "Can X be Y? No." is covered by "X cannot be Y.", not by the question
            part = statement
        features = text_features(part)
        if not features.content or coverage.covered(features, unit, _strength(part)):
            continue
        reason = None if statement else non_assertive_reason(part)
        if reason is not None:  # the local test sets it aside itself, on the record
            dropped.append(DroppedText(text=answer[start:end], spans=[(start, end)],
                                       reason=f"{reason} (set aside by the pipeline)"))
            continue
        why = next((f"set aside by the decomposer{_given(reason)} but it asserts something"
                    for span, reason in flagged if _overlaps(span, (start, end))),
                   "in no claim of the decomposer and not set aside")
        claims.append(AlignedClaim(text=part, spans=[(start, end)], added=True,
                                   notes=[f"sentence of the answer {why}: judged as a claim"]))
        coverage.add(claims[-1])
    for start, end, kind in structure:
        if any(_overlaps((start, end), s) for s in dropped_spans):
            continue
        if any(_overlaps((start, end), s) for c in claims for s in c.spans):
            continue
        dropped.append(DroppedText(text=answer[start:end], reason=f"{kind} (set aside by the "
                                   "pipeline)", spans=[(start, end)]))

    ordered = _in_answer_order(claims)

    # 6. duplicates, word for word and by content
    kept: list[AlignedClaim] = []
    first: dict[str, int] = {}
    for claim in ordered:
        key = _dedupe_key(claim.text)
        if key in first:
            dropped.append(DroppedText(text=claim.text, reason=f"duplicate of claim {first[key]}",
                                       spans=claim.spans))
            continue
        kept.append(claim)
        first[key] = len(kept)
    # 7. grounding (before restatements are merged: an ungrounded claim absorbs none)
    for claim in kept:
        if not claim.spans:
            claim.notes.append("its source was not found in the answer")
        claim.ungrounded = _ungrounded(answer, claim, units)
        if claim.ungrounded and claim.spans:
            claim.notes.append(claim.ungrounded)
    kept = _merge_restatements(kept, units, dropped)
    dropped.sort(key=lambda d: d.spans[0][0] if d.spans else len(answer) + 1)
    return Alignment(claims=kept, dropped=dropped, warnings=warnings)


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


def _canonical_map(text: str) -> tuple[str, list[int]]:
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


def _canonical(text: str) -> str:
    return _canonical_map(text)[0]


def _locate(text: str, canon: str, where: list[int], used: list[Span]) -> Span | None:
    """The answer span of ``text`` (normalised, whole words), preferring an occurrence not
    in ``used``."""
    needle = _canonical(text)
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
        if not any(_overlaps(span, u) for u in used):
            return span
        found = found or span


def _in_bounds(spans: list[Span], answer: str) -> list[Span] | None:
    if all(0 <= s < e <= len(answer) for s, e in spans):
        return [(s, e) for s, e in spans]
    return None


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --------------------------------------------------------------------------------------------
# Sentences, structure, set-aside text.

def _units(answer: str) -> list[Span]:
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


def _structure(answer: str) -> list[tuple[int, int, str]]:
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
        return bool(inner) and not reads_as_code(MD_FENCE.match(lines[opened][2]).group(2),
                                                 inner)

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


def _inside(start: int, end: int, structure: list[tuple[int, int, str]]) -> bool:
    return any(s <= start and end <= e for s, e, _ in structure)


def _parts(answer: str, span: Span) -> list[Span]:
    """The sentences (cut at line breaks) of the answer text at ``span``."""
    start, end = span
    out = [(start + s, start + e) for s, e in _units(answer[start:end])]
    return out or [span]


def _set_aside_reason(text: str, span: Span, structure: list[tuple[int, int, str]]
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


def _frame_of(answer: str, part: Span, units: list[Span]) -> str | None:
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


def _reason(given: str, verdicts: list[tuple[Span, str | None]]) -> str:
    """The decomposer's reason, or the local one when the decomposer gave none of its own."""
    if given != _GENERIC:
        return given
    local = sorted({r for _, r in verdicts if r})
    return ", ".join(local) if local else given


def _bare_sentence(text: str, ids: tuple[str, ...]) -> str:
    """A sentence as coverage measures it: no list marker, citation markers, opening
    interjection ("Yeah, ...", "No, ...") or attribution lead-in ("According to the docs,")."""
    text = MD_BULLET.sub("", collapse_ws(text))
    text = strip_citations(text, passage_ids=ids, passage_count=len(ids))
    text = _ATTRIBUTION.sub(" ", _INTERJECTION.sub("", text.strip()))
    return collapse_ws(text)


def _given(reason: str) -> str:
    return "" if reason == _GENERIC else f" ({reason})"


def _answered(answer: str, part: Span, units: list[Span]) -> str | None:
    """The statement the yes/no question at ``part`` and the reply right after it make
    together ("Can X be Y? No." -> "X cannot be Y.", see ``decomposition.answered_question``),
    else ``None``."""
    following = next((u for u in units if u[0] >= part[1]), None)
    if following is None:
        return None
    return answered_question(answer[part[0]:part[1]], answer[following[0]:following[1]])


def _remainder(answer: str, start: int, end: int, dropped: list[Span]) -> str:
    """``answer[start:end]`` with set-aside spans blanked out."""
    chars = list(answer[start:end])
    for s, e in dropped:
        for i in range(max(s, start), min(e, end)):
            chars[i - start] = " "
    return "".join(chars)


# --------------------------------------------------------------------------------------------
# Claims to sentences.

def _weight(word: str, numbers: frozenset[str], names: frozenset[str]) -> int:
    if word in numbers:
        return _NUMBER_WEIGHT
    if word in names:
        return _NAME_WEIGHT
    return 1


def _overlapping(span: Span, units: list[Span], starts: list[int], ends: list[int]) -> range:
    """Indices of the (sorted, disjoint) ``units`` that overlap ``span``."""
    return range(bisect_right(ends, span[0]), bisect_left(starts, span[1]))


def _align_claims(answer: str, claims: list[AlignedClaim], units: list[Span]) -> None:
    """Give each claim without spans the answer sentence it came from (rule 3)."""
    if not units:
        return
    canon, where = _canonical_map(answer)
    located: list[Span] = []
    for claim in claims:  # a claim that is text of the answer word for word
        if not claim.spans:
            bare = claim.text.rstrip(".!?;:\u3002")
            span = _locate(bare, canon, where, located)
            if span is not None:
                end = span[1]
                if claim.text[len(bare):len(bare) + 1] == answer[end:end + 1]:
                    span = (span[0], end + 1)  # with its closing punctuation
                claim.spans = [span]
                located.append(span)
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    unit_features = [text_features(answer[s:e]) for s, e in units]
    units_by_word: dict[str, list[int]] = {}
    for k, uf in enumerate(unit_features):
        for w in uf.content:
            units_by_word.setdefault(w, []).append(k)
    claim_features = [text_features(c.text) for c in claims]
    counts = Counter(w for f in claim_features for w in f.content)
    answer_numbers = text_features(answer).numbers
    taken: set[int] = set()
    previous = 0
    for i, claim in enumerate(claims):
        if claim.spans:
            for span in claim.spans:
                taken.update(_overlapping(span, units, starts, ends))
            continue
        cf = claim_features[i]
        if cf.numbers - answer_numbers:
            continue  # a number the answer does not hold: no source (``align`` notes it)
        distinctive = {w for w in cf.content if counts[w] == 1}  # in no other claim
        # a sentence sharing a distinctive word always outranks one that shares none
        candidates = ({k for w in distinctive for k in units_by_word.get(w, ())}
                      or {k for w in cf.content for k in units_by_word.get(w, ())})
        best_key, best = None, None
        for k in candidates:
            shared = cf.content & unit_features[k].content
            key = (sum(_weight(w, cf.numbers, cf.mandatory) for w in distinctive & shared),
                   sum(_weight(w, cf.numbers, cf.mandatory) for w in shared),
                   k not in taken, k >= previous, -k)
            if best_key is None or key > best_key:
                best_key, best = key, k
        if best is None:
            continue
        claim.spans = [units[best]]
        taken.add(best)
        previous = best


class _Coverage:
    """Rule 5 over a growing list of claims: which claims are aligned to each sentence, and
    which claims hold each content word."""

    def __init__(self, units: list[Span], claims: list[AlignedClaim]) -> None:
        self.units = units
        self.starts, self.ends = [u[0] for u in units], [u[1] for u in units]
        self.features: list = []
        self.strength: list[frozenset[str]] = []
        self.by_unit: dict[int, list[int]] = {}
        self.by_word: dict[str, list[int]] = {}
        for claim in claims:
            self.add(claim)

    def add(self, claim: AlignedClaim) -> None:
        index = len(self.features)
        features = text_features(claim.text)
        self.features.append(features)
        self.strength.append(_strength(claim.text))
        for span in claim.spans:
            for k in _overlapping(span, self.units, self.starts, self.ends):
                self.by_unit.setdefault(k, []).append(index)
        for w in features.content:
            self.by_word.setdefault(w, []).append(index)

    def covered(self, sentence, unit: int, strength: frozenset[str] = frozenset()) -> bool:
        """The claims aligned to sentence ``unit``, or one single claim, cover ``sentence``
        (its content words, its polarity, and its quantifiers and modal verbs ``strength``:
        "All plans include SSO." is not covered by "Some plans include SSO.")."""
        aligned = self.by_unit.get(unit, [])
        if aligned and _covers(sentence, [self.features[i] for i in aligned]) and (
                strength <= frozenset().union(*(self.strength[i] for i in aligned))):
            return True
        candidates = {i for w in sentence.content for i in self.by_word.get(w, ())}
        return any(_covers(sentence, [self.features[i]]) and strength <= self.strength[i]
                   for i in sorted(candidates))


@lru_cache(maxsize=1)
def _connective_stems() -> frozenset[str]:
    return frozenset(w for word in _CONNECTIVES.split() for w in text_features(word).content)


def _covers(sentence, claim_features) -> bool:
    union = set().union(*(f.content for f in claim_features))
    if sentence.mandatory - union:
        return False
    content = sentence.content - (_connective_stems() - sentence.mandatory)
    if len(content & union) < COVERAGE * len(content):
        return False
    # polarity both ways: a negated sentence needs a negated claim, and a sentence that is not
    # negated is not covered by a negated claim ("The screen is covered." / "... is not ...")
    return sentence.negated == any(f.negated for f in claim_features)


def _in_answer_order(claims: list[AlignedClaim]) -> list[AlignedClaim]:
    """The decomposer's claims in their order; each added claim placed before the first
    decomposer claim that starts after it in the answer."""
    own = [c for c in claims if not c.added]
    added = sorted((c for c in claims if c.added), key=lambda c: c.spans[0][0])
    out: list[AlignedClaim] = []
    for claim in own:
        while added and claim.spans and added[0].spans[0][0] < claim.spans[0][0]:
            out.append(added.pop(0))
        out.append(claim)
    out.extend(added)
    return out


def _dedupe_key(text: str) -> str:
    norm = unicodedata.normalize("NFKC", text).translate(QUOTES).casefold()
    return " ".join(_PUNCT.sub(" ", norm).split())


# --------------------------------------------------------------------------------------------
# Bracketed values (rule 3), restatements (rule 6), grounding (rule 7).

def _keep_values(answer: str, claims: list[AlignedClaim], ids: tuple[str, ...],
                 units: list[Span]) -> None:
    """Put back a bracketed value a decomposer took for a citation marker ("weighs [800]."
    with no passage 800: ``text.citation_spans``): after the word it follows in the answer,
    in a claim whose spans reach the value and that holds the word, or in a claim of the same
    sentence that ends with that word ("The Kestrel e-bike weighs.")."""
    if "[" not in answer and "\u3010" not in answer:
        return
    markers = citation_spans(answer)  # brackets in citation position, passages unknown
    real = {e for _, e in citation_spans(answer, ids, passage_count=len(ids))}
    values = [(s, e) for s, e in markers if e not in real]
    for start, end in values:
        value = answer[start:end].strip()
        before = re.findall(r"[\w'\u2019-]+", answer[max(0, start - 60):start])
        if not before:
            continue
        anchor = before[-1]
        unit = next(((a, b) for a, b in units if a <= end and start < b), (start, end))
        for claim in claims:
            if value in claim.text:
                continue
            reaches = any(s <= start <= e for s, e in claim.spans)
            if not reaches and not any(_overlaps(sp, unit) for sp in claim.spans):
                continue
            hits = list(re.finditer(rf"(?<![\w-]){re.escape(anchor)}(?![\w-])", claim.text,
                                    re.IGNORECASE))
            if not hits or not (reaches or not re.search(r"\w", claim.text[hits[-1].end():])):
                continue
            at = hits[-1].end()
            claim.text = f"{claim.text[:at]} {value}{claim.text[at:]}"
            claim.notes.append(f"{value} names no passage of this answer: read as a value of "
                               "the claim, not as a citation")


def _units_of(claim: AlignedClaim, units: list[Span]) -> set[int]:
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    return {k for span in claim.spans for k in _overlapping(span, units, starts, ends)}


def _merge_restatements(claims: list[AlignedClaim], units: list[Span],
                        dropped: list[DroppedText]) -> list[AlignedClaim]:
    """Rule 6, by content: a claim from the same answer sentence as another, with the same
    polarity, the same quantifiers and modal verbs (``trust.polarity_rules.strength_words``: "Only
    the Business plan ..." does not restate "The Business plan ...") and no content word
    (number, name, stem) the other lacks, restates it ("has
    three levels" / "has 3 levels" / "There are three levels on it", or a fragment of it): it
    is recorded as set aside ("restates claim N") and counted once, so paraphrases of one
    sentence cannot outweigh it. The claim with more content words is kept (the earlier on a
    tie). Claims the pipeline added, ungrounded claims (rule 7), claims without spans and
    claims of no content word (nothing to restate: "A." beside "B.") are left as they are,
    and judged."""
    features = [text_features(c.text) for c in claims]
    where = [_units_of(c, units) for c in claims]
    gone: dict[int, int] = {}
    order = sorted(range(len(claims)), key=lambda i: (-len(features[i].content), i))
    for rank, i in enumerate(order):
        if (i in gone or claims[i].added or claims[i].ungrounded or not where[i]
                or not features[i].content):
            continue
        for j in order[rank + 1:]:
            if (j in gone or claims[j].added or claims[j].ungrounded
                    or not features[j].content or not (where[j] & where[i])):
                continue  # a claim of no content word restates nothing: it is judged
            if (features[j].content <= features[i].content
                    and features[j].negated == features[i].negated
                    and strength_words(claims[j].text) == strength_words(claims[i].text)):
                gone[j] = i
    kept = [c for k, c in enumerate(claims) if k not in gone]
    number = {id(c): n for n, c in enumerate(kept, start=1)}
    for j, i in sorted(gone.items()):
        dropped.append(DroppedText(text=claims[j].text, spans=claims[j].spans,
                                   reason=f"restates claim {number[id(claims[i])]} (no content "
                                   "word it lacks, from the same sentence): counted once"))
    return kept


#: Words a decomposer may write that are in no answer: the frame of a statement made from a
#: yes/no question and its reply ("It is not the case that ...").
_FRAME_STEMS = ("case",)
#: Who "you" / "your" is, as a decomposer may write it once the answer addresses the reader
#: ("retained in your bucket" -> "retained in the customer's bucket").
_READER_STEMS = ("customer", "user", "client", "buyer", "purchaser", "shopper", "owner",
                 "member", "subscriber", "reader", "account", "holder")
_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)


def _ungrounded(answer: str, claim: AlignedClaim, units: list[Span]) -> str | None:
    """Why ``claim`` is not grounded in the answer, else ``None`` (rule 7): every content word
    of it (stems, numbers, names; CJK bigrams are not held to this) must be in the sentence it
    is aligned to or in the answer before it, so "It comes with ..." may become "The Vela
    lamp comes with ..." when the answer named the Vela lamp before. Allowed besides: the
    frame of a statement made from a yes/no question ("It is not the case that"); once the
    answer says "you"/"your", a word for the reader ("customer", "user", ...: a resolved
    "your"); and the one word right after a name, its kind ("The Lumo 2 projector" for "The
    Lumo 2", ``_name_kinds``). A claim without a source in the answer is not grounded."""
    if not claim.spans:
        return "its source was not found in the answer"
    if claim.added:
        return None
    end = max(e for _, e in claim.spans)
    covering = [u for u in units if u[0] < end <= u[1]]
    if covering:
        end = covering[0][1]
    context = _context_words(answer[:end])
    if _YOU.search(answer[:end]):
        context = context | _frame_stems(_READER_STEMS)
    words = {w for w in text_features(claim.text).content if not _CJK_BIGRAM.fullmatch(w)}
    missing = sorted(words - context - _frame_stems(_FRAME_STEMS) - _name_kinds(claim.text, _context_names(answer[:end])))
    if missing:
        return ("not grounded in the answer: " + ", ".join(repr(w) for w in missing[:5])
                + (" ..." if len(missing) > 5 else "") + " in neither the sentence it is "
                "aligned to nor the answer before it")
    return _changed_strength(answer, claim, units)


#: Words of ``trust.polarity_rules.strength_words`` a decomposer may add or leave out: "will",
#: "would" and "shall" (tense and politeness more than strength), "also" and "both".
_LOOSE_STRENGTH = frozenset({"will", "would", "shall", "also", "both"})
_CONTRACTED = (
    (re.compile(r"\bwon['\u2019]t\b", re.IGNORECASE), "will not"),
    (re.compile(r"\bshan['\u2019]t\b", re.IGNORECASE), "shall not"),
    (re.compile(r"\bcan(?:['\u2019]t|not)\b", re.IGNORECASE), "can not"),
    (re.compile(r"['\u2019]ll\b", re.IGNORECASE), " will"),
)
#: Modal verbs by what they say, and the other words that say it: necessity ("make sure the
#: policy allows" is "the policy must allow"), advice, possibility or permission ("may",
#: "can", "refundable": a decomposer may say one for another).
_MODAL_CLASS = {"must": "must", "should": "should", "ought": "should", "may": "can",
                "might": "can", "could": "can", "can": "can"}
_MODAL_WORDS = (
    (re.compile(r"\b(?:make sure|ensure|needs? to|have to|has to|had to|required|requires?|"
                r"mandatory|necessary)\b", re.IGNORECASE), "must"),
    (re.compile(r"\b(?:recommended|advised|ought to)\b", re.IGNORECASE), "should"),
    (re.compile(r"\b(?:[a-z]{3,}(?:able|ible)|allowed|permitted|possible|optional)\b",
                re.IGNORECASE), "can"),
)


def _strength(text: str) -> frozenset[str]:
    """The quantifiers and modal verbs of ``text`` that a claim must keep as its sentence
    says them (``trust.polarity_rules.strength_words`` less ``_LOOSE_STRENGTH``), modal verbs read
    by what they say (``_MODAL_CLASS``, ``_MODAL_WORDS``: "must" and "make sure", "may" and
    "can" and "refundable"); "can't" and "cannot" are "can" with a negation, "won't" and
    "'ll" are "will"."""
    for pattern, repl in _CONTRACTED:
        text = pattern.sub(repl, text)
    words = {_MODAL_CLASS.get(w, w) for w in strength_words(text) - _LOOSE_STRENGTH}
    words |= {name for pattern, name in _MODAL_WORDS if pattern.search(text)}
    return frozenset(words)


def _changed_strength(answer: str, claim: AlignedClaim, units: list[Span]) -> str | None:
    """Why a decomposer's claim does not say what the answer text it came from says, else
    ``None`` (rule 7): a quantifier or modal verb (``_strength``) that the sentences it is
    aligned to do not hold ("Some plans include SSO." from "All plans include SSO."; "may"
    from "must"), or a negation where they hold none. For a yes/no question answered in the
    answer ("Can X be Y? No."), the statement the pair makes counts as the sentence."""
    starts, ends = [u[0] for u in units], [u[1] for u in units]
    source = []
    for k in sorted({k for span in claim.spans
                     for k in _overlapping(span, units, starts, ends)}):
        source.append(answer[units[k][0]:units[k][1]])
        statement = _answered(answer, units[k], units)
        if statement:
            source.append(statement)
    if not source:
        return None
    said = " ".join(source)
    extra = sorted(_strength(claim.text) - _strength(said))
    if extra:
        stated = sorted(_strength(said))
        return ("changes what the answer says: " + ", ".join(repr(w) for w in extra)
                + " is not in the sentence it is aligned to"
                + (f" (which says {', '.join(repr(w) for w in stated)})" if stated else ""))
    if text_features(claim.text).negated and not text_features(said).negated:
        return ("changes what the answer says: it is negated, and the sentence it is aligned "
                "to is not")
    return None


_CJK_BIGRAM = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{1,2}")


@lru_cache(maxsize=256)
def _context_words(text: str) -> frozenset[str]:
    return text_features(text).content


@lru_cache(maxsize=4)
def _frame_stems(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for word in words for w in text_features(word).content)


_TOKEN_RUN = re.compile(r"[\w][\w.'\u2019-]*")


@lru_cache(maxsize=256)
def _context_names(text: str) -> frozenset[str]:
    return text_features(text).mandatory


def _name_kinds(claim: str, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Stems of the word right after each name in ``claim``: its kind, which a decomposer may
    add when it writes the name out ("The Lumo 2 projector", "the Vela desk lamp"). A name is
    a run of capitalised words and numbers that holds a capitalised word other than a stop
    word (the claim's first word only when it is a name of the answer, ``names``: "Sale
    items" is no name); a word after a bare number ("3 levels") is not a kind."""
    from ..language.lexicon import STOP_WORDS

    tokens = _TOKEN_RUN.findall(claim)
    kinds: set[str] = set()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word[:1].isupper() and word.lower() not in STOP_WORDS and (
                i > 0 or word.lower() in names):
            j = i + 1
            while j < len(tokens) and (tokens[j][:1].isupper() or tokens[j][:1].isdigit()):
                j += 1
            if j < len(tokens) and tokens[j][:1].islower():
                kinds |= text_features(tokens[j]).content
            i = j
            continue
        i += 1
    return frozenset(kinds)
