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

import json
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


_OI_PART = re.compile(r"message\.contents\.(\d+)\.message_content\.text")


def _oi_messages(attrs: Mapping[str, Any], prefix: str,
                 sep: str) -> tuple[list[str], bool, bool]:
    """The texts of the messages ``prefix.{i}.message.*``, one per message with text, in
    message order: its ``message.content``, else its text parts
    (``message.contents.{j}.message_content.text``, in ``j`` order) joined with ``sep``;
    whether any message holds tool calls; whether any text was redacted."""
    texts: list[str] = []
    tools, redacted = False, False
    for fields in _indexed(attrs, prefix).values():
        content = fields.get("message.content")
        if isinstance(content, str) and content.strip():
            parts = [content]
        else:
            numbered = sorted((int(m.group(1)), v) for k, v in fields.items()
                              if (m := _OI_PART.fullmatch(k)) and isinstance(v, str))
            parts = [v for _, v in numbered]
        tools = tools or any(k.startswith("message.tool_calls.") for k in fields)
        redacted = redacted or any(p.strip() == REDACTED for p in parts)
        text = sep.join(p for p in parts if p.strip() != REDACTED)
        if text.strip():
            texts.append(text)
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
        _oi_llm(info, attrs)
        return
    if "output.value" in attrs:
        _output_value(info, attrs["output.value"], str(attrs.get("output.mime_type", "")),
                      "output.value")


def _oi_llm(info: SpanInfo, attrs: Mapping[str, Any]) -> None:
    """An OpenInference LLM span: its output is the FIRST output message's text (its text
    parts concatenated in order, as LangChain's ``AIMessage.text``; with several choices,
    ``choices[0]``, what an app shows), else the first ``llm.choices.{i}.completion.text``,
    else, on a span with no message attribute (OpenInference's ``@tracer.llm`` decorator),
    ``output.value``; its prompt is every input message (and ``llm.prompts``), else
    ``input.value``."""
    texts, info.tool_calls, redacted = _oi_messages(attrs, "llm.output_messages", "")
    has_messages = any(k.startswith("llm.output_messages.") for k in attrs)
    if texts or redacted:
        info.read.append("llm.output_messages.*")
    if not texts:
        choices = [f.get("completion.text") for f in _indexed(attrs, "llm.choices").values()]
        texts = [c for c in choices if isinstance(c, str) and c.strip()]
        has_messages = has_messages or bool(choices)
        if texts:
            info.read.append("llm.choices.*")
    info.output_text = texts[0] if texts else None
    info.output_redacted = redacted and not texts
    if not has_messages and "output.value" in attrs:
        _output_value(info, attrs["output.value"], str(attrs.get("output.mime_type", "")),
                      "output.value", chat=True)
    prompt, _, _ = _oi_messages(attrs, "llm.input_messages", "\n")
    if prompt:
        info.read.append("llm.input_messages.*")
    prompts = attrs.get("llm.prompts")
    if isinstance(prompts, (list, tuple)):
        prompt += [p for p in prompts if isinstance(p, str)]
        info.read.append("llm.prompts")
    if not prompt and "input.value" in attrs and not any(
            k.startswith("llm.input_messages.") for k in attrs):
        text = _input_text(attrs["input.value"])
        if text is not None:
            info.read.append("input.value")
            prompt = [text]
    info.prompt_text = "\n".join(prompt) if prompt else None


def _input_text(value: Any) -> str | None:
    """The prompt an LLM span's ``input.value`` records: a JSON list of chat messages (or
    ``{"messages": [...]}``): their contents joined; other JSON: its strings joined (the
    decorator's ``{"prompt": ...}``); a JSON string unwrapped; else the text itself.
    ``None`` for no text or a redacted one (``OPENINFERENCE_HIDE_INPUTS``: no prompt recorded,
    never an empty prompt that no document occurs in)."""
    if not isinstance(value, str):
        value = str(value)
    if _no_output(value) or value.strip() == REDACTED:
        return None
    if not value.lstrip().startswith(("{", "[", '"')):
        return value
    try:
        parsed = loads(value, "input.value")
    except SpanReadError:
        return value
    messages = parsed.get("messages") if isinstance(parsed, dict) else parsed
    if isinstance(messages, list) and messages and all(
            isinstance(m, dict) and "content" in m for m in messages):
        texts = [_content_text(m["content"]) for m in messages]
        return "\n".join(t for t in texts if t) or None
    return "\n".join(_strings(parsed)) or None


def _strings(value: Any) -> list[str]:
    """Every string inside a parsed JSON value, in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _no_output(text: str) -> bool:
    """An output that records no output: empty, whitespace, ``None`` (what a decorator
    writes for a function that returned ``None``) or JSON ``null``."""
    return text.strip() in ("", "None", "null")


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


def _output_value(info: SpanInfo, value: Any, mime: str, name: str,
                  chat: bool = False) -> None:
    """A span's output (``output.value`` and the like): text, or a JSON object kept for the
    root answer rule, or a JSON string unwrapped. ``None`` / ``null`` / empty is no output
    (``output_text`` stays ``None``, with a note). ``chat``: an LLM span's output, where a
    chat-completion-like object gives its ``choices[0].message.content``."""
    info.read.append(name)
    if not isinstance(value, str):
        value = str(value)
    if value.strip() == REDACTED:
        info.output_redacted = True
        return
    if _no_output(value):
        info.notes.append(f"{name} {value.strip()!r} read as no output")
        return
    if "json" in mime or value.lstrip().startswith(("{", '"')) or (
            chat and value.lstrip().startswith("[")):
        try:
            parsed = loads(value, name)
        except SpanReadError:
            if "json" in mime:
                raise
            parsed = value
        if chat and not isinstance(parsed, str):
            text = _chat_text(parsed)
            if text is not None:
                parsed = text
        if isinstance(parsed, dict):
            info.output_json = parsed
            return
        if isinstance(parsed, str):
            value = parsed
        if parsed is None or _no_output(value):
            info.notes.append(f"{name} {value.strip()!r} read as no output")
            return
    info.output_text = value


# -- OpenTelemetry GenAI ----------------------------------------------------------------------

def _genai_messages(messages: Any, what: str, responses: bool) -> tuple[list[list[str]], bool]:
    """The texts of GenAI messages (``[{"role", "parts": [{"type": "text", "content"}]}]``,
    or a message's plain ``content`` string), one list of text parts per message in order,
    and whether any part is a tool call. ``responses``: a ``tool_call_response`` part's
    ``response`` (a string, or JSON dumped to text) counts as text too: the tool results
    (e.g. a search tool's documents) a model was given are part of its prompt."""
    messages = loads(messages, what)
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        raise SpanReadError(f"{what} is not a list of messages: {str(messages)[:120]!r}")
    found: list[list[str]] = []
    tools = False
    for message in messages:
        if isinstance(message, str):
            message = loads(message, what)
        if not isinstance(message, dict):
            continue
        parts = message.get("parts")
        if parts is None and isinstance(message.get("content"), str):
            parts = [{"type": "text", "content": message["content"]}]
        texts = []
        for part in parts or ():
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "tool_call":
                tools = True
            elif kind == "text" and isinstance(part.get("content"), str):
                texts.append(part["content"])
            elif kind == "tool_call_response" and responses and part.get("response") is not None:
                response = part["response"]
                texts.append(response if isinstance(response, str)
                             else json.dumps(response, ensure_ascii=False))
        found.append(texts)
    return found, tools


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
    outputs: list[str] = []  # one text per output message (choice), its parts concatenated
    sources = [("", attrs)] + [(f"event {name}: ", a) for name, a in events]
    for where, source in sources:
        for key in ("gen_ai.output.messages", "gen_ai.input.messages",
                    "gen_ai.system_instructions"):
            if key not in source:
                continue
            info.read.append(where + key)
            output = key == "gen_ai.output.messages"
            messages, tools = _genai_messages(source[key], key, responses=not output)
            if output:
                info.tool_calls = info.tool_calls or tools
                outputs.extend(t for t in ("".join(m) for m in messages) if t.strip())
            else:
                inputs.extend(t for m in messages for t in m)
    for prefix, bucket in (("gen_ai.prompt", inputs), ("gen_ai.completion", outputs)):
        legacy = [f.get("content") for f in _indexed(attrs, prefix).values()]
        if any(isinstance(t, str) for t in legacy):
            info.read.append(f"{prefix}.*")
            bucket.extend(t for t in legacy if isinstance(t, str) and t.strip())
    if any(k.endswith("_ref") for k in attrs if k.startswith("gen_ai.")):
        info.notes.append("message content uploaded to external storage (a *_ref attribute)")
    info.output_text = outputs[0] if outputs else None
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
        info.output_text = _text_or_none(_chat_text(outputs))
        if "mlflow.spanInputs" in attrs:
            info.read.append("mlflow.spanInputs")
            inputs = loads(attrs["mlflow.spanInputs"], "mlflow.spanInputs")
            messages = inputs.get("messages") if isinstance(inputs, dict) else inputs
            if isinstance(messages, list):
                texts = [_content_text(m.get("content")) for m in messages
                         if isinstance(m, dict)]
                info.prompt_text = "\n".join(t for t in texts if t) or None
            elif isinstance(inputs, str):
                info.prompt_text = inputs
        return
    if isinstance(outputs, dict):
        text = _chat_text(outputs)
        if text is not None:
            info.output_text = _text_or_none(text)
        else:
            info.output_json = outputs
    elif isinstance(outputs, str):
        info.output_text = _text_or_none(outputs)


def _text_or_none(text: str | None) -> str | None:
    """``text``, or ``None`` when it records no output (``_no_output``)."""
    return None if text is None or _no_output(text) else text


def _chat_text(outputs: Any) -> str | None:
    """The text of an OpenAI-style chat response (``choices[0].message.content``, or a
    completion's ``choices[0].text``), a LangChain ``LLMResult``
    (``generations[0][0].text``), a ``messages[-1].content``, or a plain string; a content
    given as a list of parts is its text parts concatenated. ``None`` for anything else."""
    if isinstance(outputs, str):
        return outputs
    if not isinstance(outputs, dict):
        return None
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return _content_text(message.get("content"))
        text = choices[0].get("text")
        return text if isinstance(text, str) else None
    generations = outputs.get("generations")
    if (isinstance(generations, list) and generations and isinstance(generations[0], list)
            and generations[0] and isinstance(generations[0][0], dict)):
        text = generations[0][0].get("text")
        return text if isinstance(text, str) else None
    messages = outputs.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return _content_text(messages[-1].get("content"))
    return None


def _content_text(content: Any) -> str | None:
    """A chat message's ``content``: a string, or a list of parts whose text parts (strings,
    ``{"type": "text", "text"|"content": ...}``) are concatenated in order; else ``None``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type", "text") == "text":
            text = part.get("text", part.get("content"))
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts) if texts else None


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
