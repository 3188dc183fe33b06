"""Readers of the conventions a RAG app's spans follow: OpenInference, the OpenTelemetry GenAI
semantic conventions, MLflow and TruLens (``read_span``).

Each reader reads every known shape of its convention and never treats a miss as empty: a
retriever span with no document attribute has ``documents=None`` (``trace_no_retrieval``
or ``trace_no_content`` later), a malformed JSON attribute sets ``SpanInfo.error``
(``trace_unreadable``), never an empty list. The attribute names are those of
``shared/design/traces.md`` (OpenInference ``spec/semantic_conventions.md``; GenAI
``gen-ai-spans.md`` and ``retrieval.md``; MLflow ``SpanAttributeKey``; TruLens
``otel/semconv/trace.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from .spans import (
    REDACTED,
    Document,
    Kind,
    SpanInfo,
    SpanReadError,
    at_limit,
    document_from,
    ids_of,
    loads,
)

_OI_KINDS: dict[str, Kind] = {"RETRIEVER": "retriever", "RERANKER": "reranker", "LLM": "llm",
                              "AGENT": "agent", "CHAIN": "chain", "TOOL": "tool"}
_GENAI_KINDS: dict[str, Kind] = {
    "retrieval": "retriever", "chat": "llm", "text_completion": "llm",
    "generate_content": "llm", "invoke_agent": "agent", "execute_tool": "tool",
    "invoke_workflow": "chain",
    "vector_db_retrieve": "retriever"}
_MLFLOW_KINDS: dict[str, Kind] = {"RETRIEVER": "retriever", "RERANKER": "reranker",
                                  "LLM": "llm", "CHAT_MODEL": "llm", "AGENT": "agent",
                                  "CHAIN": "chain", "TOOL": "tool"}
_TRULENS_KINDS: dict[str, Kind] = {"retrieval": "retriever", "generation": "llm",
                                   "record_root": "chain", "reranking": "reranker"}


def read_span(span: Any) -> SpanInfo:
    """Read one SDK span (``opentelemetry.sdk.trace.ReadableSpan`` or anything with its
    attributes) into a ``SpanInfo``: its kind, documents, output and prompt, and the names
    of the attributes read. A reader's failure is recorded on ``SpanInfo.error`` (never
    raised, never swallowed into an empty value)."""
    trace_id, span_id, parent_id = ids_of(span)
    info = SpanInfo(name=str(span.name), trace_id=trace_id, span_id=span_id,
                    parent_id=parent_id, start=int(span.start_time or 0),
                    end=None if span.end_time is None else int(span.end_time),
                    dropped=int(getattr(span, "dropped_attributes", 0) or 0))
    attrs: Mapping[str, Any] = dict(span.attributes or {})
    raw_events = list(getattr(span, "events", ()) or ())
    events = [(str(e.name), dict(e.attributes or {})) for e in raw_events]
    info.limit = _value_limit(span, getattr(span, "_attributes", None),
                              "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT")
    info.cut = at_limit(attrs, info.limit) + [
        f"event {name}: {key}" for (name, values), event in zip(events, raw_events)
        for key in at_limit(values, _value_limit(span, event.attributes, None))]
    reader = _reader_for(attrs)
    try:
        reader(info, attrs, events)
    except SpanReadError as exc:
        info.error = f"span {info.name!r} ({info.span_id}): {exc}"
    return info


def _value_limit(span: Any, attributes: Any, variable: str | None) -> int | None:
    """The SDK's attribute value length limit for ``attributes`` of ``span`` (characters;
    ``None``: none): the ``max_value_len`` of the SDK's ``BoundedAttributes``, else the span's
    ``SpanLimits``, else the environment (``variable``, then
    ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT``) for spans the SDK did not make."""
    bounded = getattr(attributes, "max_value_len", False)
    if bounded is not False:
        return bounded or None
    limits = getattr(span, "_limits", None)
    if limits is not None:
        return getattr(limits, "max_span_attribute_length" if variable
                       else "max_attribute_length", None)
    return (_env_int(variable) if variable else None) or _env_int(
        "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def _reader_for(attrs: Mapping[str, Any]) -> Callable[[SpanInfo, Mapping[str, Any], list], None]:
    if "openinference.span.kind" in attrs:
        return _openinference
    if "mlflow.spanType" in attrs or "mlflow.spanOutputs" in attrs:
        return _mlflow
    if "ai.observability.span_type" in attrs:
        return _trulens
    if "gen_ai.operation.name" in attrs or any(k.startswith("gen_ai.") for k in attrs):
        return _genai
    return _plain


# -- OpenInference ----------------------------------------------------------------------------

def _indexed(attrs: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``prefix.{i}.rest`` attributes grouped by ``i`` (``{i: {rest: value}}``)."""
    found: dict[int, dict[str, Any]] = {}
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)$")
    for key, value in attrs.items():
        match = pattern.match(key)
        if match:
            found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return dict(sorted(found.items()))


def _oi_documents(info: SpanInfo, attrs: Mapping[str, Any], prefix: str) -> list[Document] | None:
    items = _indexed(attrs, prefix)
    if not items:
        return None
    info.read.append(f"{prefix}.*")
    docs = []
    for fields in items.values():
        text = fields.get("document.content")
        ident = fields.get("document.id")
        score = fields.get("document.score")
        docs.append(Document(None if ident is None else str(ident),
                             text if isinstance(text, str) else None,
                             float(score) if isinstance(score, (int, float)) else None))
    return docs


def _oi_messages(attrs: Mapping[str, Any], prefix: str) -> tuple[list[str], bool, bool]:
    """The texts of ``prefix.{i}.message.*`` (content, or text parts), whether any message
    holds tool calls, and whether any text was redacted."""
    texts: list[str] = []
    tools, redacted = False, False
    for fields in _indexed(attrs, prefix).values():
        parts = [v for k, v in sorted(fields.items())
                 if (k == "message.content" or re.fullmatch(
                     r"message\.contents\.\d+\.message_content\.text", k))
                 and isinstance(v, str)]
        tools = tools or any(k.startswith("message.tool_calls.") for k in fields)
        redacted = redacted or any(p == REDACTED for p in parts)
        texts.extend(p for p in parts if p != REDACTED)
    return texts, tools, redacted


def _openinference(info: SpanInfo, attrs: Mapping[str, Any], _events: list) -> None:
    info.convention = "openinference"
    info.read.append("openinference.span.kind")
    info.kind = _OI_KINDS.get(str(attrs["openinference.span.kind"]).upper(), "other")
    if info.kind == "retriever":
        info.documents = _oi_documents(info, attrs, "retrieval.documents")
        if info.documents is None and "output.value" in attrs:
            parsed = _json_list(attrs["output.value"])
            if parsed is not None:
                info.documents = [document_from(item) for item in parsed]
                info.read.append("output.value")
                info.notes.append("documents read from output.value (no retrieval.documents.*)")
    elif info.kind == "reranker":
        info.input_documents = _oi_documents(info, attrs, "reranker.input_documents") or []
        info.documents = _oi_documents(info, attrs, "reranker.output_documents")
    if info.kind == "llm":
        texts, info.tool_calls, redacted = _oi_messages(attrs, "llm.output_messages")
        if texts or redacted:
            info.read.append("llm.output_messages.*")
        if not texts:
            choices = [f.get("completion.text") for f in _indexed(attrs, "llm.choices").values()]
            texts = [c for c in choices if isinstance(c, str)]
            if texts:
                info.read.append("llm.choices.*")
        info.output_text = texts[-1] if texts else None
        info.output_redacted = redacted and not texts
        prompt, _, _ = _oi_messages(attrs, "llm.input_messages")
        if prompt:
            info.read.append("llm.input_messages.*")
        prompts = attrs.get("llm.prompts")
        if isinstance(prompts, (list, tuple)):
            prompt += [p for p in prompts if isinstance(p, str)]
            info.read.append("llm.prompts")
        info.prompt_text = "\n".join(prompt) if prompt else None
        return
    if "output.value" in attrs:
        _output_value(info, attrs["output.value"], str(attrs.get("output.mime_type", "")),
                      "output.value")


def _json_list(value: Any) -> list[Any] | None:
    """A JSON list in an ``output.value`` (or a ``{"documents": [...]}`` envelope), else
    ``None`` (not a list: the span recorded no documents that way)."""
    if not isinstance(value, str) or not value.lstrip().startswith(("[", "{")):
        return None
    try:
        parsed = loads(value, "output.value")
    except SpanReadError:
        return None
    if isinstance(parsed, dict) and isinstance(parsed.get("documents"), list):
        parsed = parsed["documents"]
    return parsed if isinstance(parsed, list) else None


def _output_value(info: SpanInfo, value: Any, mime: str, name: str) -> None:
    """A span's output (``output.value`` and the like): text, or a JSON object kept for the
    root answer rule, or a JSON string unwrapped."""
    info.read.append(name)
    if not isinstance(value, str):
        value = str(value)
    if value.strip() == REDACTED:
        info.output_redacted = True
        return
    if "json" in mime or value.lstrip().startswith(("{", '"')):
        try:
            parsed = loads(value, name)
        except SpanReadError:
            if "json" in mime:
                raise
            parsed = value
        if isinstance(parsed, dict):
            info.output_json = parsed
            return
        if isinstance(parsed, str):
            value = parsed
    info.output_text = value


# -- OpenTelemetry GenAI ----------------------------------------------------------------------

def _genai_parts(messages: Any, what: str) -> tuple[list[str], bool]:
    """The text parts of GenAI messages (``[{"role", "parts": [{"type": "text", "content"}]}]``)
    and whether any part is a tool call."""
    messages = loads(messages, what)
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        raise SpanReadError(f"{what} is not a list of messages: {str(messages)[:120]!r}")
    texts, tools = [], False
    for message in messages:
        if isinstance(message, str):
            message = loads(message, what)
        if not isinstance(message, dict):
            continue
        parts = message.get("parts")
        if parts is None and isinstance(message.get("content"), str):
            parts = [{"type": "text", "content": message["content"]}]
        for part in parts or ():
            if not isinstance(part, dict):
                continue
            if part.get("type") == "tool_call":
                tools = True
            elif part.get("type") == "text" and isinstance(part.get("content"), str):
                texts.append(part["content"])
    return texts, tools


def _genai(info: SpanInfo, attrs: Mapping[str, Any], events: list) -> None:
    info.convention = "genai"
    operation = str(attrs.get("gen_ai.operation.name", ""))
    info.read.append("gen_ai.operation.name")
    info.kind = _GENAI_KINDS.get(operation, "other")
    if info.kind == "retriever":
        raw = attrs.get("gen_ai.retrieval.documents")
        if raw is not None:
            info.read.append("gen_ai.retrieval.documents")
            items = [loads(r, "gen_ai.retrieval.documents") for r in raw] \
                if isinstance(raw, (list, tuple)) else loads(raw, "gen_ai.retrieval.documents")
            if not isinstance(items, list):
                raise SpanReadError("gen_ai.retrieval.documents is not a list")
            info.documents = [document_from(item) for item in items]
        return
    inputs: list[str] = []
    outputs: list[str] = []
    sources = [("", attrs)] + [(f"event {name}: ", a) for name, a in events]
    for where, source in sources:
        for key, bucket in (("gen_ai.output.messages", outputs), ("gen_ai.input.messages", inputs),
                            ("gen_ai.system_instructions", inputs)):
            if key in source:
                info.read.append(where + key)
                texts, tools = _genai_parts(source[key], key)
                bucket.extend(texts)
                if key == "gen_ai.output.messages":
                    info.tool_calls = info.tool_calls or tools
    for prefix, bucket in (("gen_ai.prompt", inputs), ("gen_ai.completion", outputs)):
        legacy = [f.get("content") for f in _indexed(attrs, prefix).values()]
        if any(isinstance(t, str) for t in legacy):
            info.read.append(f"{prefix}.*")
            bucket.extend(t for t in legacy if isinstance(t, str))
    if any(k.endswith("_ref") for k in attrs if k.startswith("gen_ai.")):
        info.notes.append("message content uploaded to external storage (a *_ref attribute)")
    info.output_text = outputs[-1] if outputs else None
    info.prompt_text = "\n".join(inputs) if inputs else None


# -- MLflow -----------------------------------------------------------------------------------

def _mlflow(info: SpanInfo, attrs: Mapping[str, Any], _events: list) -> None:
    info.convention = "mlflow"
    kind = loads(attrs.get("mlflow.spanType", '"UNKNOWN"'), "mlflow.spanType")
    info.read.append("mlflow.spanType")
    info.kind = _MLFLOW_KINDS.get(str(kind).upper(), "other")
    if "mlflow.spanOutputs" not in attrs:
        return
    info.read.append("mlflow.spanOutputs")
    outputs = loads(attrs["mlflow.spanOutputs"], "mlflow.spanOutputs")
    if info.kind in ("retriever", "reranker"):
        if not isinstance(outputs, list):
            raise SpanReadError("mlflow.spanOutputs of a RETRIEVER span is not a list")
        info.documents = [document_from(item) for item in outputs]
        return
    if info.kind == "llm":
        info.output_text = _chat_text(outputs)
        if "mlflow.spanInputs" in attrs:
            info.read.append("mlflow.spanInputs")
            inputs = loads(attrs["mlflow.spanInputs"], "mlflow.spanInputs")
            messages = inputs.get("messages") if isinstance(inputs, dict) else inputs
            if isinstance(messages, list):
                texts = [m.get("content") for m in messages if isinstance(m, dict)]
                info.prompt_text = "\n".join(t for t in texts if isinstance(t, str)) or None
            elif isinstance(inputs, str):
                info.prompt_text = inputs
        return
    if isinstance(outputs, dict):
        text = _chat_text(outputs)
        if text is not None:
            info.output_text = text
        else:
            info.output_json = outputs
    elif isinstance(outputs, str):
        info.output_text = outputs


def _chat_text(outputs: Any) -> str | None:
    """The text of an OpenAI-style chat response (``choices[0].message.content``), a
    ``messages[-1].content``, or a plain string; ``None`` for anything else."""
    if isinstance(outputs, str):
        return outputs
    if not isinstance(outputs, dict):
        return None
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message") or {}
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, str) else None
    messages = outputs.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        content = messages[-1].get("content")
        return content if isinstance(content, str) else None
    return None


# -- TruLens ----------------------------------------------------------------------------------

def _trulens(info: SpanInfo, attrs: Mapping[str, Any], _events: list) -> None:
    info.convention = "trulens"
    info.read.append("ai.observability.span_type")
    info.kind = _TRULENS_KINDS.get(str(attrs["ai.observability.span_type"]), "other")
    if info.kind == "retriever":
        key = "ai.observability.retrieval.retrieved_contexts"
        if key in attrs:
            info.read.append(key)
            contexts = attrs[key]
            if isinstance(contexts, str):
                contexts = loads(contexts, key)
            info.documents = [document_from(c) for c in contexts or ()]
        return
    for key in ("ai.observability.record_root.output", "ai.observability.call.return"):
        if key in attrs:
            _output_value(info, attrs[key], "", key)
            return


def _plain(info: SpanInfo, attrs: Mapping[str, Any], _events: list) -> None:
    """A span of no known convention: kept for the tree (``explain``), read for nothing."""
