"""RAG turns assembled from read spans (``find_turns``): per trace, the answer span, its
generation span and the passages the model saw.

The rules (``docs/traces.md``):

* **answers**: with ``answer=``, the span whose output equals it (in the last trace that has
  one), else that contains it (NFC, whitespace collapsed), the outermost such span. Without
  it, every answer of the trace: the outermost spans with an output (a root's, or a chain's
  or agent's under a root with none; a JSON object: its one string field among
  ``answer``/``output``/``response``/``result``/``content``/``text``), and each model output
  after a retrieval, with text and no tool calls, that none of them holds or contains (a
  second turn, a follow-up call): each is a turn of its own. A model call before any retrieval
  (a query rewrite) is a step, not an answer;
* **generation span**: the last LLM span, started before the answer span ended, whose output
  contains the answer (else the last LLM span that ended by then, with a warning that the
  answer was post-processed after the model);
* **passages**: every document of every retrieval span of the trace that ended before the
  generation began, in the order the spans ended; a reranker's output replaces the input it
  reranked; duplicates (same id and same text) once; never a span after the answer;
* **context**: by default only the passages that occur in the generation's recorded prompt
  (``context.in_prompt``; with the prompts of the drafts it rewrote); with no prompt
  recorded, every retrieved passage, and the turn says its context came from retrieval.

Every way this can fail is a ``TurnFailure`` with an error kind (``trace_records``) and a
message naming the cause and the fix; nothing is ever an empty context by accident.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..records import AnswerResult, Passage
from ..trace_records import TRACE_ERROR_CODES, TraceRef
from .context import context_prompt, in_prompt
from .spans import Document, SpanInfo, normal

#: Root output fields one of which may be the answer (a JSON root output).
ANSWER_FIELDS = ("answer", "output", "response", "result", "content", "text")
#: Fields of a JSON root output that hold the app's inputs or its sources, not text it shows.
NOT_SHOWN = frozenset({"question", "query", "input", "context", "documents", "sources",
                       "citations", "references", "history", "chat_history", "prompt"})
Context = Literal["auto", "retrieved"]


@dataclass
class Turn:
    """One RAG turn read from a trace, ready to judge.

    Args:
        answer: the answer text; ``passages``: what it is judged against (``Passage``, ids
            ``document.id`` or ``<retriever span name>#<i>``).
        trace_id / answer_span / generation_span: where it came from (``SpanInfo``;
            ``generation_span`` ``None`` when no LLM span produced it).
        retrievals: the retrieval spans whose documents were read, in the order they ended.
        context: ``"prompt"`` or ``"retrieval"`` (``TraceRef.context``).
        warnings: remarks carried into the answer's report.
    """

    answer: str
    passages: list[Passage]
    trace_id: str
    answer_span: SpanInfo
    generation_span: SpanInfo | None
    retrievals: list[SpanInfo]
    context: Literal["prompt", "retrieval"]
    warnings: list[str] = field(default_factory=list)

    def ref(self) -> TraceRef:
        """The ids carried into every report (``AnswerResult.trace``)."""
        return TraceRef(trace_id=self.trace_id, span_id=self.answer_span.span_id,
                        generation_span_id=self.generation_span.span_id
                        if self.generation_span else None,
                        retrieval_span_ids=[s.span_id for s in self.retrievals],
                        context=self.context)

    def source_text(self) -> str:
        """One line naming where the context came from, for the report."""
        names = ", ".join(f"{s.name!r} ({s.span_id})" for s in self.retrievals) or "none"
        where = ("the generation's recorded prompt" if self.context == "prompt" else
                 "retrieval (no prompt was recorded, or context='retrieved'), not the prompt")
        return (f"trace {self.trace_id}: answer from span {self.answer_span.name!r} "
                f"({self.answer_span.span_id}); {len(self.passages)} passage(s) from "
                f"retriever(s) {names}; context from {where}")


@dataclass
class TurnFailure:
    """A trace that gives no judgeable turn: an errored answer, never a pass.

    Args:
        kind: the error kind (``trace_records.TRACE_ERROR_KINDS``); ``message``: cause and fix.
        trace_id / span_id: where, when known; ``answer``: the answer text, when known.
    """

    kind: str
    message: str
    trace_id: str | None = None
    span_id: str | None = None
    answer: str = ""

    @property
    def code(self) -> str:
        """The error code (``E-NO-SPANS`` ...)."""
        return TRACE_ERROR_CODES[self.kind]

    def result(self) -> AnswerResult:
        """The errored ``AnswerResult`` recorded for the gate."""
        return AnswerResult(answer=self.answer, status="error",
                            error=f"{self.code}: {self.message}", error_kind=self.kind,  # type: ignore[arg-type]
                            trace=TraceRef(trace_id=self.trace_id, span_id=self.span_id,
                                           code=self.code))


def find_turns(spans: list[SpanInfo], *, answer: str | None = None, context: Context = "auto",
               allow_no_retrieval: bool = False, allow_empty_retrieval: bool = False,
               open_spans: Iterable[SpanInfo] = ()) -> list[Turn | TurnFailure]:
    """The turns of the captured spans, one per trace (with ``answer=``: the one turn whose
    answer it is).

    Args:
        spans: the finished spans of the window, read (``readers.read_span``).
        answer: the answer text to find (``None``: every trace's own answer).
        context: ``"auto"`` (passages in the recorded prompt, else all retrieved) or
            ``"retrieved"`` (every retrieved passage).
        allow_no_retrieval / allow_empty_retrieval: judge a turn with no retrieval span / zero
            documents against no passages instead of erroring.
        open_spans: spans started in the window and not ended (each trace with one fails).

    Returns:
        ``Turn`` or ``TurnFailure`` per trace, in the order the traces started; never empty
        (no span at all is a caller's ``trace_no_spans``, checked first).
    """
    traces: dict[str, list[SpanInfo]] = {}
    for span in sorted(spans, key=lambda s: s.start):
        traces.setdefault(span.trace_id, []).append(span)
    opened: dict[str, list[SpanInfo]] = {}
    open_spans = list(open_spans)
    parents = {s.span_id: s.parent_id for s in [*spans, *open_spans]}
    ancestors: set[str] = set()  # of the spans that ended
    for span in spans:
        parent = span.parent_id
        while parent is not None and parent not in ancestors:
            ancestors.add(parent)
            parent = parents.get(parent)
    for span in open_spans:  # an open retrieval or model call, or any open span below
        # (a stream not consumed, whose kind the instrumentation writes at its end); an open
        # ancestor of spans that ended (a span around the test's body) is fine
        if span.is_retrieval or span.kind == "llm" or span.span_id not in ancestors:
            opened.setdefault(span.trace_id, []).append(span)
            traces.setdefault(span.trace_id, [])
    if answer is not None:
        return _split_hint([_turn_for_answer(traces, opened, answer, context,
                                             allow_no_retrieval, allow_empty_retrieval)],
                           traces)
    found: list[Turn | TurnFailure] = []
    for tid, members in traces.items():
        answers = _trace_failure(tid, members, opened) or _answers_of(tid, members)
        if isinstance(answers, TurnFailure):
            found.append(answers)
            continue
        for span, text, note in answers:
            turn = _one_turn(tid, members, (span, text), context, allow_no_retrieval,
                             allow_empty_retrieval)
            if note and isinstance(turn, Turn):
                turn.warnings.append(note)
            found.append(turn)
    return _split_hint(found, traces)


def _split_hint(found: list[Turn | TurnFailure],
                traces: dict[str, list[SpanInfo]]) -> list[Turn | TurnFailure]:
    """Name the likely cause when a trace lacks a retrieval or an answer that another trace
    of the window has: the retriever and the model call are not under one parent span."""
    for item in found:
        if not isinstance(item, TurnFailure) or item.kind not in ("trace_no_retrieval",
                                                                  "trace_no_answer"):
            continue
        others = [s for tid, members in traces.items() if tid != item.trace_id
                  for s in members if (s.is_retrieval if item.kind == "trace_no_retrieval"
                                       else s.kind == "llm")]
        if others:
            names = ", ".join(f"{s.name!r} ({s.trace_id[:8]}...)" for s in others[:3])
            item.message += (f"; span(s) {names} of another trace of this test may be the "
                             "missing part: the retrieval and the model call are not under one "
                             "parent span, so they cannot be tied to one turn; wrap the app's "
                             "turn in one span (with tracer.start_as_current_span(\"turn\"): ...)")
    return found


def _turn_for_answer(traces: dict[str, list[SpanInfo]], opened: dict[str, list[SpanInfo]],
                     answer: str, context: Context, allow_none: bool,
                     allow_empty: bool) -> Turn | TurnFailure:
    wanted = normal(answer)
    for exact in (True, False):  # the last trace whose output is it, else that contains it
        for tid in reversed(list(traces)):
            members = traces[tid]
            matches = [s for s in members if s.output_text and wanted and (
                normal(s.output_text) == wanted if exact else wanted in normal(s.output_text))]
            if matches:
                by_id = {s.span_id: s for s in members}
                span = min(matches, key=lambda s: _depth(s, by_id))
                return _trace_failure(tid, members, opened) or _one_turn(
                    tid, members, (span, answer), context, allow_none, allow_empty)
    for tid, members in traces.items():
        failure = _trace_failure(tid, members, opened)
        if failure is not None:
            return failure
    cut = [s for members in traces.values() for s in members if s.output_text and s.cut_read()]
    if cut:  # the answer was longer than what the SDK kept
        return _cut_failure(cut[-1].trace_id, cut[-1:], answer)  # type: ignore[return-value]
    outputs = [s for members in traces.values() for s in members if s.output_text]
    shown = "; ".join(f"{s.name!r} ({s.span_id}): {s.output_text[:80]!r}"
                      for s in outputs[-5:] if s.output_text) or "no span has a text output"
    return TurnFailure("trace_answer_mismatch",
                       f"the answer given ({answer[:80]!r}) occurs in no span's output of "
                       f"the {len(traces)} trace(s) captured; the outputs are: {shown}. Pass the "
                       "text the app returned (not a reformatted copy), or leave answer= out "
                       "to judge each trace's own answer", answer=answer)


def _depth(span: SpanInfo, by_id: dict[str, SpanInfo]) -> int:
    """How many ancestors of ``span`` the trace's spans (``by_id``) hold."""
    depth, parent = 0, span.parent_id
    while parent in by_id and depth < 1000:
        depth, parent = depth + 1, by_id[parent].parent_id
    return depth


def _trace_failure(tid: str, members: list[SpanInfo],
                   opened: dict[str, list[SpanInfo]]) -> TurnFailure | None:
    """Why no turn of the trace can be read at all (a span that cannot be read, a span still
    open), checked once per trace before its answers are looked for, else ``None``."""
    return _read_errors(tid, members) or _open_failure(tid, opened.get(tid, []))


def _read_errors(tid: str, members: list[SpanInfo]) -> TurnFailure | None:
    bad = [s for s in members if s.error]
    if not bad:
        return None
    cut = _cut_failure(tid, bad, "")  # a JSON value cut by the length limit no longer parses
    if cut is not None:
        return cut
    return TurnFailure("trace_unreadable", f"{bad[0].error}; the span does not follow its "
                       "convention, so its documents or output cannot be read: fix the "
                       "instrumentation that wrote it (faithfulness_trace.explain() shows the "
                       "attributes)", trace_id=tid, span_id=bad[0].span_id)


def _cut_failure(tid: str, used: list[SpanInfo], answer: str) -> TurnFailure | None:
    """``trace_truncated`` when a text the turn is read from (answer, prompt, documents)
    reached the SDK's attribute value length limit: the SDK cut it and only logged it."""
    for span in used:
        keys = span.cut_read()
        if keys:
            return TurnFailure("trace_truncated", f"attribute(s) {', '.join(keys[:4])} of span "
                               f"{span.name!r} ({span.span_id}) reached the attribute value "
                               f"length limit ({span.limit} characters), so the SDK cut them "
                               "(and only logged it): the answer, prompt or documents read "
                               "from them may be incomplete. Raise or unset "
                               "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT / "
                               "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, or the provider's "
                               "SpanLimits(max_attribute_length=..., "
                               "max_span_attribute_length=...)", trace_id=tid,
                               span_id=span.span_id, answer=answer)
    return None


def _open_failure(tid: str, opened: list[SpanInfo]) -> TurnFailure | None:
    if not opened:
        return None
    names = ", ".join(f"{s.name!r} ({s.span_id})" for s in opened)
    return TurnFailure("trace_open_span", f"{len(opened)} span(s) started in the test had not "
                       f"ended when the trace was read: {names}. A stream not consumed? Read "
                       "the response to the end (or close it) before asserting, so that the "
                       "instrumentation ends its span", trace_id=tid, span_id=opened[0].span_id)


def _one_turn(tid: str, members: list[SpanInfo], given: tuple[SpanInfo, str],
              context: Context, allow_none: bool, allow_empty: bool) -> Turn | TurnFailure:
    """The turn of one answer (``given``: its span and text) of a trace that passed
    ``_trace_failure``."""
    answer_span, answer = given
    warnings: list[str] = []
    generation = _generation(members, answer_span, answer, warnings)
    before = generation.start if generation is not None else (answer_span.end or 0)
    if generation is None:
        warnings.append("no LLM span produced the answer: passages are those retrieved "
                        "before the answer span ended")
    retrievals = [s for s in members if s.is_retrieval and s.end is not None and s.end <= before
                  and s is not answer_span]
    # any span of the trace: the limit evicts the oldest attributes first, the span kind too
    truncated = [s for s in members if s.dropped]
    if truncated:
        s = truncated[0]
        return TurnFailure("trace_truncated", f"the span attribute limit evicted {s.dropped} "
                           f"attribute(s) of span {s.name!r} ({s.span_id}), so its documents "
                           "or messages may be incomplete: raise OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT "
                           "(default 128), or the provider's SpanLimits(max_attributes=...)",
                           trace_id=tid, span_id=s.span_id, answer=answer)
    read_from = [answer_span, *([generation] if generation is not None else []), *retrievals]
    cut = _cut_failure(tid, read_from, answer)
    if cut is not None:
        return cut
    ref = (tid, answer_span.span_id, answer)
    if not retrievals:
        if not allow_none:
            return _no_retrieval(members, answer_span, before, ref)
        warnings.append("no retrieval span (allow_no_retrieval=True): judged against no passage")
        return Turn(answer, [], tid, answer_span, generation, [], "retrieval", warnings)
    docs = _documents(retrievals)
    if isinstance(docs, TurnFailure):
        docs.trace_id, docs.span_id, docs.answer = ref
        return docs
    if not docs:
        if not allow_empty:
            names = ", ".join(f"{s.name!r} ({s.span_id})" for s in retrievals)
            unwritten = [s for s in retrievals if s.documents is None]
            also = (f" ({len(unwritten)} of them wrote no document attribute at all: a "
                    "hand-made retriever span needs its documents written, e.g. OpenInference "
                    "get_retriever_attributes(documents=...); GenAI gen_ai.retrieval.documents "
                    "is opt-in: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY)"
                    if unwritten else "")
            return TurnFailure("trace_empty_retrieval", f"the retrieval span(s) {names} "
                               f"returned zero documents{also}, so there is nothing to judge "
                               "the answer against: fix the retriever (an empty index? a "
                               "filter?), or pass allow_empty_retrieval=True to judge it against "
                               "no passage (every claim then fails)", *ref)
        warnings.append("zero documents retrieved (allow_empty_retrieval=True)")
    passages = _passages(docs)
    used: Literal["prompt", "retrieval"] = "retrieval"
    prompt, fed = (context_prompt(members, generation, passages) if generation is not None
                   else (None, []))
    if fed:
        warnings.append(f"the generation's prompt holds the output of earlier model call(s) "
                        f"{', '.join(fed)} (a draft it rewrote): their prompts count as context")
    if context == "auto" and prompt and passages:
        seen = in_prompt(passages, prompt, warnings)
        if not seen:
            return TurnFailure("trace_context_unused", f"{len(passages)} document(s) were "
                               f"retrieved by {', '.join(repr(s.name) for s in retrievals)} but "
                               f"none occurs in the prompt of LLM span {generation.name!r} "  # type: ignore[union-attr]
                               f"({generation.span_id}): the model never saw them (a RAG bug: "  # type: ignore[union-attr]
                               "the context is dropped or rewritten before the call); or pass "
                               "context='retrieved' to judge against what was retrieved", *ref)
        passages, used = seen, "prompt"
    elif context == "auto" and passages:
        warnings.append("no prompt was recorded on the generation span: the passages are "
                        "everything retrieved before it began (context from retrieval, not "
                        "from the prompt)")
    return Turn(answer, passages, tid, answer_span, generation, retrievals, used, warnings)


def _answers_of(tid: str,
                members: list[SpanInfo]) -> list[tuple[SpanInfo, str, str | None]] | TurnFailure:
    """Every answer of a trace (the module docstring's rule), as ``(span, text, note)`` in
    the order the spans started: the outermost outputs, then each model output after a
    retrieval that none of them holds (a second turn, a post-processed root, a follow-up
    call); ``note`` says why an extra one is judged on its own."""
    if not members:  # only open spans: _open_failure reported them
        return TurnFailure("trace_no_answer", "the trace has no ended span", trace_id=tid)
    by_id = {s.span_id: s for s in members}
    roots = [s for s in members if s.parent_id not in by_id]
    root_ids = {s.span_id for s in roots}
    retrieved = [s.end for s in members if s.is_retrieval and s.end is not None]

    def after_retrieval(span: SpanInfo) -> bool:  # not a query rewrite / HyDE step
        return span.kind not in ("llm", "agent") or not retrieved or any(
            end <= span.start for end in retrieved)

    found: list[tuple[SpanInfo, str, str | None]] = []
    tried: list[str] = []
    for span in sorted(members, key=lambda s: (_depth(s, by_id), s.start)):
        text = span.output_text if span.output_text and span.output_text.strip() else None
        if span.is_retrieval or span.kind == "llm" or _has_output_above(span, by_id):
            continue  # a model call's output is read below
        is_root = span.span_id in root_ids
        if is_root and text is None and span.output_json is not None:
            fields = [k for k in ANSWER_FIELDS if isinstance(span.output_json.get(k), str)]
            prose = [k for k, v in span.output_json.items() if k not in fields
                     and k not in NOT_SHOWN and isinstance(v, str) and v.count(" ") >= 2]
            if len(fields) == 1 and prose:
                return TurnFailure("trace_no_answer", f"the root span {span.name!r} "
                                   f"({span.span_id}) output a JSON object whose field "
                                   f"{fields[0]!r} is the answer, and whose field(s) "
                                   f"{prose[:5]} hold text as well, which your app may show "
                                   "too: judging the answer field alone could pass a claim "
                                   "made there. Pass answer= with the text your app shows",
                                   trace_id=tid, span_id=span.span_id)
            if len(fields) != 1:
                return TurnFailure("trace_no_answer", f"the root span {span.name!r} "
                                   f"({span.span_id}) output a JSON object with keys "
                                   f"{sorted(span.output_json)[:12]}, and "
                                   f"{'none' if not fields else 'more than one'} of "
                                   f"{list(ANSWER_FIELDS)} is a string, so the answer is "
                                   "ambiguous (judging the whole JSON would judge the sources "
                                   "too): pass answer= with the text your app returns",
                                   trace_id=tid, span_id=span.span_id)
            text = span.output_json[fields[0]]
        if text is not None and (is_root or span.kind in ("chain", "agent")):
            found.append((span, text, None))
        elif is_root:
            tried.append(f"root span {span.name!r} has no text output"
                         + (" (redacted: OPENINFERENCE_HIDE_OUTPUTS?)" if span.output_redacted
                            else ""))
    llms = [s for s in members if s.kind in ("llm", "agent") and s.end is not None
            and s.output_text and s.output_text.strip() and not s.tool_calls
            and after_retrieval(s)]
    if not retrieved and not found:
        llms = sorted(llms, key=lambda s: s.end or 0)[-1:]  # its failure names the retrieval
    held = [normal(text) for _, text, _ in found]
    outer = ", ".join(f"{s.name!r}" for s, _, _ in found)
    for span in sorted(llms, key=lambda s: s.end or 0, reverse=True):
        output = normal(span.output_text or "")
        if any(output in text or (text in output and _json_object(span)) for text in held):
            continue  # part of an answer already found, or the JSON it was taken from
        held.append(output)
        found.append((span, span.output_text or "", None if not outer else (
            f"judged as an answer of its own: the output of LLM span {span.name!r} "
            f"({span.span_id}) is not part of the output of {outer} (another turn, or a text "
            "the app also showed); pass answer= to judge only the text your app returned")))
    if found:
        return sorted(found, key=lambda item: item[0].start)
    redacted = any(s.output_redacted for s in members if s.kind in ("llm", "agent"))
    count = sum(1 for s in members if s.kind in ("llm", "agent") and s.end is not None)
    tried.append(f"{count} LLM span(s), none with a text output and no tool call"
                 + (" (output redacted)" if redacted else ""))
    root = roots[0] if roots else members[0]
    return TurnFailure("trace_no_answer", "no answer text in the trace: " + "; ".join(tried)
                       + ". Turn message content capture on (OpenInference: unset "
                       "OPENINFERENCE_HIDE_OUTPUTS / _HIDE_OUTPUT_MESSAGES; GenAI: "
                       "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY), or pass "
                       "answer= with the text your app returned", trace_id=tid,
                       span_id=root.span_id)


def _json_object(span: SpanInfo) -> bool:
    """Whether the span's output is a JSON object or string (a JSON-mode reply an answer was
    taken from, a quoted reply), not prose that holds the answer and says more."""
    if span.output_json is not None:
        return True
    try:
        return isinstance(json.loads(span.output_text or ""), (dict, str))
    except ValueError:
        return False


def _has_output_above(span: SpanInfo, by_id: dict[str, SpanInfo]) -> bool:
    """Whether an ancestor of ``span`` in the trace has an output (so ``span`` is a step
    inside an answer, not an answer)."""
    parent, depth = span.parent_id, 0
    while parent in by_id and depth < 1000:
        above = by_id[parent]
        if (above.output_text and above.output_text.strip()) or above.output_json is not None:
            return True
        parent, depth = above.parent_id, depth + 1
    return False


def _generation(members: list[SpanInfo], answer_span: SpanInfo, answer: str,
                warnings: list[str]) -> SpanInfo | None:
    if answer_span.kind == "llm":
        return answer_span
    limit = answer_span.end if answer_span.end is not None else float("inf")
    llms = [s for s in members if s.kind == "llm" and s.start <= limit]
    wanted = normal(answer)
    producing = [s for s in llms if s.output_text and wanted and wanted in normal(s.output_text)]
    if producing:
        return producing[-1]
    ended = [s for s in llms if s.end is not None and s.end <= limit]
    if ended:
        last = max(ended, key=lambda s: s.end or 0)
        warnings.append(f"no LLM output contains the answer: it was post-processed after the "
                        f"model; generation taken as the last LLM span {last.name!r} "
                        f"({last.span_id})")
        return last
    return None


def _no_retrieval(members: list[SpanInfo], answer_span: SpanInfo, before: int,
                  ref: tuple[str, str, str]) -> TurnFailure:
    kinds: dict[str, int] = {}
    for s in members:
        kinds[f"{s.kind}"] = kinds.get(s.kind, 0) + 1
    seen = ", ".join(f"{k}×{n}" for k, n in kinds.items())
    later = [s for s in members if s.is_retrieval and (s.end is None or s.end > before)]
    after = (f"; {len(later)} retrieval span(s) ended only after the generation began, so "
             "they cannot be what the model saw" if later else "")
    return TurnFailure("trace_no_retrieval", f"the answer's trace has no retrieval span that "
                       f"ended before the generation began (spans: {seen}){after}. Instrument "
                       "the retriever (an OpenInference RETRIEVER span with "
                       "retrieval.documents, e.g. @tracer.retriever plus "
                       "get_retriever_attributes(documents=...), or a GenAI retrieval span), "
                       "use assert_faithful(answer, passages) with the passages, or pass "
                       "allow_no_retrieval=True to judge against no passage (every claim "
                       "must then be absent)", *ref)


def _documents(retrievals: list[SpanInfo]) -> list[tuple[SpanInfo, int, Document]] | TurnFailure:
    docs: list[tuple[SpanInfo, int, Document]] = []
    for span in sorted(retrievals, key=lambda s: s.end or 0):
        if span.kind == "reranker":  # its output replaces the input it reranked
            ids = {d.id for d in span.input_documents if d.id is not None}
            texts = {normal(d.text) for d in span.input_documents if d.text}
            docs = [entry for entry in docs if entry[2].id not in ids
                    and normal(entry[2].text or "") not in texts]
        docs.extend((span, i, d) for i, d in enumerate(span.documents or ()))
    textless = [(s, i) for s, i, d in docs if not d.has_text]
    if textless:
        span, i = textless[0]
        return TurnFailure("trace_no_content", f"{len(textless)} of {len(docs)} retrieved "
                           f"document(s) have no text (first: document {i} of span "
                           f"{span.name!r} ({span.span_id})): document text was not recorded, "
                           "or was redacted. Turn content capture on "
                           "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY with "
                           "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental; "
                           "OpenInference writes document.content unless the document is empty)")
    return docs


def _key(doc: Document) -> str:
    """Duplicates are the same text under the same id (or no id): chunks of one source that
    share its id are different passages."""
    return f"{doc.id}\x00{normal(doc.text or '')}"


def _passages(docs: list[tuple[SpanInfo, int, Document]]) -> list[Passage]:
    seen: set[str] = set()
    passages: list[Passage] = []
    ids: set[str] = set()
    for span, i, doc in docs:
        key = _key(doc)
        if key in seen:
            continue
        seen.add(key)
        ident = doc.id if doc.id is not None else f"{span.name}#{i}"
        while ident in ids:
            ident += "'"
        ids.add(ident)
        passages.append(Passage(ident, doc.text or ""))
    return passages
