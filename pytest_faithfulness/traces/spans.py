"""One captured span, read into what the turn assembly needs (``SpanInfo``, ``Document``).

Pure Python: a span is read through the attributes every OpenTelemetry SDK ``ReadableSpan``
has (``name``, ``context``, ``parent``, ``start_time``, ``end_time``, ``attributes``,
``events``, ``dropped_attributes``), so nothing here imports ``opentelemetry``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import FaithfulnessError

#: What a span is for the turn assembly, whatever its convention called it.
Kind = Literal["retriever", "reranker", "llm", "agent", "chain", "tool", "other"]

#: OpenInference's redaction marker (``OPENINFERENCE_HIDE_*``): content hidden, not missing.
REDACTED = "__REDACTED__"


class SpanReadError(FaithfulnessError, ValueError):
    """A span's attribute holds what its convention does not allow (malformed JSON where JSON
    is written); the turn it belongs to errors as ``trace_unreadable``."""


@dataclass
class Document:
    """One retrieved document as a span recorded it.

    Args:
        id: the document id the producer wrote, if any.
        text: its text (``None``: not recorded; ``REDACTED`` when redacted).
        score: its retrieval score, if recorded.
    """

    id: str | None
    text: str | None
    score: float | None = None

    @property
    def has_text(self) -> bool:
        """Whether real text was recorded (not missing, empty or ``__REDACTED__``)."""
        return bool(self.text and self.text.strip() and self.text.strip() != REDACTED)


@dataclass
class SpanInfo:
    """A captured span, normalised by the reader of its convention.

    Args:
        name: the span name.
        trace_id / span_id / parent_id: lowercase hex (32 / 16 / 16 digits; ``parent_id``
            ``None`` for a root).
        start / end: nanoseconds since the epoch (``end`` ``None``: not ended).
        kind: ``Kind``; ``convention``: the reader that recognised it (``"openinference"``,
            ``"genai"``, ``"mlflow"``, ``"trulens"`` or ``"otel"`` for none).
        documents: a retriever's documents, or a reranker's output documents (``None``: the
            span recorded none at all; ``[]``: it recorded zero).
        input_documents: a reranker's input documents (what its output replaces).
        output_text: the span's text output (answer candidate), ``None`` when absent.
        output_json: the output parsed as JSON when it was a JSON object (root answer rule).
        output_redacted: the output was recorded as ``__REDACTED__`` or hidden.
        prompt_text: what the model saw (an LLM span's input messages joined), if recorded.
        tool_calls: the LLM output holds tool calls.
        dropped: attributes the SDK's attribute limit evicted from this span.
        cut: the attributes (``"event <name>: <key>"`` for an event's) whose text reached the
            SDK's attribute value length limit, so it may have been cut; ``limit``: that limit.
        read: the attribute (or event) names the reader used, for ``explain()``.
        notes: remarks for the report (e.g. "documents read from output.value").
        error: why reading failed (``SpanReadError``), else ``None``.
    """

    name: str
    trace_id: str
    span_id: str
    parent_id: str | None
    start: int
    end: int | None
    kind: Kind = "other"
    convention: str = "otel"
    documents: list[Document] | None = None
    input_documents: list[Document] = field(default_factory=list)
    output_text: str | None = None
    output_json: dict[str, Any] | None = None
    output_redacted: bool = False
    prompt_text: str | None = None
    tool_calls: bool = False
    dropped: int = 0
    cut: list[str] = field(default_factory=list)
    limit: int | None = None
    read: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    def cut_read(self) -> list[str]:
        """The attributes the reader used whose text may have been cut (``cut`` that match
        ``read``, where ``"x.*"`` covers every ``x.`` key)."""
        return [key for key in self.cut if any(
            key == name or (name.endswith(".*") and key.startswith(name[:-1]))
            for name in self.read)]

    @property
    def is_retrieval(self) -> bool:
        """A retriever or a reranker: a span whose documents may become passages."""
        return self.kind in ("retriever", "reranker")


def at_limit(attrs: Any, limit: int | None) -> list[str]:
    """The keys of ``attrs`` whose string value (or a string in a sequence value) is exactly
    ``limit`` characters long: the SDK cuts longer values to ``limit`` (and only logs it), so
    such a value may have been cut. ``limit`` ``None``: no limit, nothing cut."""
    if not limit:
        return []
    found = []
    for key, value in dict(attrs or {}).items():
        values = value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(v, str) and len(v) == limit for v in values):
            found.append(str(key))
    return found


def ids_of(span: Any) -> tuple[str, str, str | None]:
    """``(trace_id, span_id, parent_id)`` of an SDK span, as lowercase hex."""
    context = span.context
    parent = getattr(span, "parent", None)
    return (f"{context.trace_id:032x}", f"{context.span_id:016x}",
            None if parent is None else f"{parent.span_id:016x}")


def loads(value: Any, what: str) -> Any:
    """``value`` parsed as JSON when it is a string (a structured value as is).

    Raises:
        SpanReadError: a string that is not JSON, naming ``what``.
    """
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError as exc:
        raise SpanReadError(f"{what} is not JSON ({exc}): {value[:120]!r}") from None


_SPACE = re.compile(r"\s+")


def normal(text: str) -> str:
    """Text compared across spans: NFC, whitespace runs collapsed, stripped."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def document_from(item: Any) -> Document:
    """A document from one JSON item of a retrieval list: a string, or an object whose text
    is ``content``, then ``text``, then ``page_content`` (also inside ``document``)."""
    if isinstance(item, str):
        return Document(None, item)
    if not isinstance(item, dict):
        return Document(None, None)
    if isinstance(item.get("document"), dict):
        item = {**item, **item["document"]}
    text = next((item[k] for k in ("content", "text", "page_content")
                 if isinstance(item.get(k), str)), None)
    ident = item.get("id", (item.get("metadata") or {}).get("id")
                     if isinstance(item.get("metadata"), dict) else None)
    score = item.get("score")
    return Document(None if ident is None else str(ident), text,
                    float(score) if isinstance(score, (int, float)) else None)
