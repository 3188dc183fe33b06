"""``explain``: the span tree of a capture window as text (what ``faithfulness_trace.explain()``
prints): each span's name, kind, convention, ids, what the readers found and the attributes
they read."""

from __future__ import annotations

from typing import Any

from .spans import SpanInfo


def explain(spans: list[SpanInfo], window: Any = None) -> str:
    """The tree of ``spans`` grouped by trace, children under their parent, in start order.

    Args:
        spans: read spans (``readers.read_span``).
        window: the ``window.Window`` they came from (its open spans are listed too).

    Returns:
        lines of text, one per span, indented by depth; ``"no span captured"`` when empty.
    """
    lines: list[str] = []
    if window is not None:
        lines.append(f"window {window.name}: {len(spans)} span(s) ended, "
                     f"{len(window.started)} not ended")
        foreign = getattr(window, "foreign_count", 0)
        if foreign:
            lines.append(f"{foreign} span(s) not credited (threads already running, with no "
                         f"context of this window): {', '.join(window.foreign)}")
    if not spans:
        lines.append("no span captured")
        return "\n".join(lines)
    by_trace: dict[str, list[SpanInfo]] = {}
    for span in sorted(spans, key=lambda s: s.start):
        by_trace.setdefault(span.trace_id, []).append(span)
    for trace_id, members in by_trace.items():
        lines.append(f"trace {trace_id}")
        ids = {s.span_id for s in members}
        children: dict[str | None, list[SpanInfo]] = {}
        for span in members:
            children.setdefault(span.parent_id if span.parent_id in ids else None,
                                []).append(span)
        stack = [(span, 1) for span in reversed(children.get(None, []))]
        while stack:
            span, depth = stack.pop()
            lines.append("  " * depth + _describe(span))
            stack.extend((c, depth + 1) for c in reversed(children.get(span.span_id, [])))
    return "\n".join(lines)


def _describe(span: SpanInfo) -> str:
    found = []
    if span.documents is not None:
        with_text = sum(1 for d in span.documents if d.has_text)
        found.append(f"{len(span.documents)} document(s), {with_text} with text")
    if span.input_documents:
        found.append(f"reranked from {len(span.input_documents)}")
    if span.output_text is not None:
        found.append(f"output {span.output_text[:60]!r}")
    elif span.output_json is not None:
        found.append(f"JSON output with keys {sorted(span.output_json)[:8]}")
    if span.output_redacted:
        found.append("output redacted")
    if span.prompt_text is not None:
        found.append(f"prompt of {len(span.prompt_text)} chars")
    if span.tool_calls:
        found.append("tool calls")
    if span.dropped:
        found.append(f"{span.dropped} attribute(s) DROPPED by the limit")
    if span.end is None:
        found.append("NOT ENDED")
    if span.error:
        found.append(f"UNREADABLE: {span.error}")
    read = f"; read {', '.join(span.read)}" if span.read else "; nothing read"
    notes = "".join(f"; {n}" for n in span.notes)
    return (f"{span.name} [{span.kind}, {span.convention}] {span.span_id}: "
            f"{'; '.join(found) or 'no content'}{read}{notes}")
