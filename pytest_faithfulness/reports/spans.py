"""Where a claim sits in its answer, for the reports: its source text, its sentence, and the
evidence its verdict cites."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..language.text import sentence_spans
from ..records import AnswerResult, ClaimResult, Span

_MARKERS = re.compile(r"\[[^\]\n]*\]|\u3010[^\u3011\n]*\u3011|\((?:sources?|refs?)[^)\n]*\)",
                      re.IGNORECASE)


def source_text(answer: str, spans: Sequence[Span]) -> str:
    """The claim's source text, ``answer[s:e]`` of each span joined by `` … ``; empty when
    the claim has no span (its source was not found)."""
    return " … ".join(answer[s:e] for s, e in spans if 0 <= s < e <= len(answer))


def sentence_text(answer: str, spans: Sequence[Span]) -> str:
    """The sentence(s) of the answer (cut at line breaks too) that hold the claim's spans,
    joined by `` … ``; empty when the claim has no span."""
    spans = [(s, e) for s, e in spans if 0 <= s < e <= len(answer)]
    if not spans:
        return ""
    units = []
    for start, end in sentence_spans(answer):
        for m in re.finditer(r"[^\n]+", answer[start:end]):
            units.append((start + m.start(), start + m.end()))
    picked = [(a, b) for a, b in units if any(s < b and a < e for s, e in spans)]
    worded = [(a, b) for a, b in picked if re.search(r"\w", _MARKERS.sub("", answer[a:b]))]
    picked = worded or picked
    return " … ".join(answer[a:b].strip() for a, b in picked) or source_text(answer, spans)


def citation_text(claim: ClaimResult) -> str | None:
    """``cites p-1, p-2: correct`` for a claim that cites a passage, ``None`` otherwise."""
    if claim.citation in (None, "uncited"):
        return None
    cited = list(claim.cited_ids) + [f"{u} (no such passage)" for u in claim.unknown_citations]
    label = {"correct": "correctly cited", "misattributed": "MISATTRIBUTED",
             "unsupported": "cited but unsupported"}[claim.citation]
    return f"cites {', '.join(cited)}: {label}"


def turn_text(result: AnswerResult) -> str:
    """`` (conversation C, turn N)`` for a turn of a conversation, `` (trace T, span S)`` for
    a turn read from OpenTelemetry spans (``AnswerResult.trace``), else empty."""
    text = "" if result.conversation is None else \
        f" (conversation {result.conversation}, turn {result.turn})"
    if result.trace is not None and result.trace.trace_id:
        text += f" (trace {result.trace.trace_id}, span {result.trace.span_id})"
    return text


def evidence_lines(evidence: Sequence[Any]) -> list[str]:
    """One line per evidence item of a verdict (``records.Evidence`` or anything with
    ``passage_id`` and ``quote``), in order: ``passage p-2071: "quote"``, or ``passage
    p-2071`` for an item without a quote. Untrusted text: each report escapes it its way."""
    return [f'passage {item.passage_id or "-"}: "{item.quote}"' if item.quote
            else f"passage {item.passage_id or '-'}" for item in evidence]
