"""The records of turns read from OpenTelemetry spans: ``TraceRef`` and the trace error kinds.

A sibling of ``records`` (same layer; it imports nothing of ours): ``AnswerResult.trace``
holds a ``TraceRef``, and ``records.ErrorKind`` lists the kinds below.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: Why a turn read from spans is ``error`` (``AnswerResult.error_kind``), each with the design
#: note's code; never a pass:
#:
#: * ``trace_no_spans`` (``E-NO-SPANS``): no span was captured in the window (the SDK disabled,
#:   a non-SDK, isolated or sampling provider, the app not instrumented);
#: * ``trace_no_retrieval`` (``E-NO-RETRIEVAL``): the answer's trace has no retrieval span
#:   that ended before its generation began;
#: * ``trace_empty_retrieval`` (``E-EMPTY-RETRIEVAL``): the retrieval spans returned zero
#:   documents;
#: * ``trace_no_content`` (``E-NO-CONTENT``): documents were recorded without their text
#:   (content capture off, ``__REDACTED__``, only ids and scores);
#: * ``trace_truncated`` (``E-TRUNCATED``): the span attribute count limit dropped attributes
#:   of a span of the trace, or a text read from the retrieval, generation or answer span
#:   reached the attribute value length limit (the SDK cut it);
#: * ``trace_no_answer`` (``E-NO-ANSWER``): no answer text could be read (redacted, tool calls
#:   only, a JSON root output with no single text field);
#: * ``trace_open_span`` (``E-OPEN-SPAN``): a span started in the window had not ended (a
#:   stream not consumed?);
#: * ``trace_answer_mismatch`` (``E-ANSWER-MISMATCH``): the ``answer=`` given occurs in no
#:   span's output;
#: * ``trace_context_unused`` (``E-CONTEXT-UNUSED``): documents were retrieved but none
#:   occurs in the generation's recorded prompt;
#: * ``trace_overlap`` (``E-OVERLAP``): two tests captured at once in one process, so a span
#:   started on another thread could not be attributed;
#: * ``trace_unreadable`` (``E-UNREADABLE``): a span's attributes could not be read (malformed
#:   JSON where a convention has JSON);
#: * ``trace_sampled`` (``E-SAMPLED``): the tracer provider's sampler drops some traces, so
#:   the app calls it dropped were never judged.
TRACE_ERROR_KINDS: tuple[str, ...] = (
    "trace_no_spans", "trace_no_retrieval", "trace_empty_retrieval", "trace_no_content",
    "trace_truncated", "trace_no_answer", "trace_open_span", "trace_answer_mismatch",
    "trace_context_unused", "trace_overlap", "trace_unreadable", "trace_sampled")

#: The design note's code of each kind (``TraceRef.code``, the first word of the message).
TRACE_ERROR_CODES: dict[str, str] = {
    kind: "E-" + kind.removeprefix("trace_").replace("_", "-").upper()
    for kind in TRACE_ERROR_KINDS}


class TraceRef(BaseModel):
    """Where a turn judged from OpenTelemetry spans came from (``assert_faithful_trace``).

    Args:
        trace_id: the trace's id, 32 lowercase hex digits (``None``: no trace was found).
        span_id: the answer span's id, 16 lowercase hex digits (``None``: no answer span).
        generation_span_id: the span of the model call that produced the answer, if found.
        retrieval_span_ids: the retrieval (and reranker) spans whose documents are the
            passages, in the order they ended.
        context: ``"prompt"`` (passages kept because they occur in the generation's recorded
            prompt), ``"retrieval"`` (no prompt was recorded, or ``context="retrieved"``:
            every document retrieved before the generation began) or ``None`` (the turn
            errored before its context was read).
        code: the error code (``E-NO-SPANS`` ...: ``TRACE_ERROR_CODES``) when it errored.
    """

    model_config = ConfigDict(extra="forbid")

    trace_id: str | None = None
    span_id: str | None = None
    generation_span_id: str | None = None
    retrieval_span_ids: list[str] = Field(default_factory=list)
    context: Literal["prompt", "retrieval"] | None = None
    code: str | None = None
