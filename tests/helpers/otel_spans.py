"""Spans built with the real OpenTelemetry SDK for the trace readers' tests (the ``otel``
extra; a test module that imports this skips without it, unless ``FAITHFULNESS_REQUIRE_OTEL``
is set, as ``.ci/run`` does).

``SpanBuilder()``: a private SDK ``TracerProvider`` with the plugin's processor attached
(``traces.capture.attach``), its ``tracer``, and ``window()``: a capture window as a
``TraceCapture``. ``oi_docs`` / ``genai_docs`` write documents in each convention.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def require_otel(*modules: str) -> None:
    """Skip the calling module when ``modules`` (default: the SDK) cannot be imported; fail
    instead when ``FAITHFULNESS_REQUIRE_OTEL=1`` (CI must run these tests)."""
    for name in modules or ("opentelemetry.sdk.trace",):
        try:
            __import__(name)
        except ImportError as exc:
            if os.environ.get("FAITHFULNESS_REQUIRE_OTEL") == "1":
                raise RuntimeError(f"FAITHFULNESS_REQUIRE_OTEL=1 but {name} is missing: "
                                   "pip install -e '.[test]'") from exc
            pytest.skip(f"{name} is not installed (the test extra)", allow_module_level=True)


class SpanBuilder:
    """A private provider whose spans the plugin's processor captures (``max_attributes``,
    ``max_value_length``: the SDK's attribute count and value length limits)."""

    def __init__(self, max_attributes: int | None = None, sampler: Any = None,
                 max_value_length: int | None = None) -> None:
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider

        from pytest_faithfulness.traces.capture import attach

        limits = (SpanLimits(max_span_attributes=max_attributes,
                             max_attribute_length=max_value_length)
                  if max_attributes or max_value_length else None)
        kwargs: dict[str, Any] = {"span_limits": limits} if limits else {}
        if sampler is not None:
            kwargs["sampler"] = sampler
        self.provider = TracerProvider(**kwargs)
        attach(self.provider)
        self.tracer = self.provider.get_tracer("faithfulness-tests")

    @contextmanager
    def window(self, name: str = "test") -> Iterator[Any]:
        from pytest_faithfulness.traces.session import TraceCapture
        from pytest_faithfulness.traces.window import Window

        with Window(name) as window:
            yield TraceCapture(window)

    def span(self, name: str, **attributes: Any) -> Any:
        """``with builder.span("retrieve", **{"a.b": 1}):`` (dots written as ``__``)."""
        return self.tracer.start_as_current_span(
            name, attributes={k.replace("__", "."): v for k, v in attributes.items()})


def oi_docs(*texts: str, prefix: str = "retrieval.documents", ids: bool = True) -> dict[str, Any]:
    """OpenInference flattened documents."""
    attrs: dict[str, Any] = {}
    for i, text in enumerate(texts):
        attrs[f"{prefix}.{i}.document.content"] = text
        if ids:
            attrs[f"{prefix}.{i}.document.id"] = f"d{i}"
    return attrs


def oi_llm(prompt: str | None, output: str) -> dict[str, Any]:
    attrs = {"openinference.span.kind": "LLM",
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": output}
    if prompt is not None:
        attrs["llm.input_messages.0.message.role"] = "user"
        attrs["llm.input_messages.0.message.content"] = prompt
    return attrs


def genai_docs(*docs: dict[str, Any]) -> str:
    return json.dumps(list(docs))


def genai_messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}],
                        **({"finish_reason": "stop"} if role == "assistant" else {})}])


#: A toy RAG app instrumented by hand with OpenInference attributes on the global tracer
#: provider (``rag_app.py`` in an inner pytester run): ``ask(question)`` retrieves the
#: passages whose words overlap the question, puts them in the prompt, and answers with
#: ``reply`` (a fixed text per question, the "model").
TOY_APP = '''
import json
from opentelemetry import trace

KB = {
    "kb-1": "Refunds are issued within 14 days of a return being received.",
    "kb-2": "Items bought on sale can be exchanged but not refunded.",
    "kb-3": "The Kestrel e-bike weighs 23 kg.",
}
REPLIES = {
    "refund": "Refunds are issued within 14 days of a return being received.",
    "sale": "Items bought on sale can be refunded within 30 days.",
    "kestrel": "The Kestrel e-bike weighs 23 kg.",
}
tracer = trace.get_tracer("rag_app")


def ask(question, key):
    with tracer.start_as_current_span("rag", attributes={
            "openinference.span.kind": "CHAIN", "input.value": question}) as root:
        with tracer.start_as_current_span("retrieve", attributes={
                "openinference.span.kind": "RETRIEVER", "input.value": question}) as span:
            docs = [(i, t) for i, t in KB.items() if key in t.lower()]
            for n, (i, t) in enumerate(docs):
                span.set_attribute(f"retrieval.documents.{n}.document.id", i)
                span.set_attribute(f"retrieval.documents.{n}.document.content", t)
        prompt = "Answer from these passages:\\n" + "\\n".join(t for _, t in docs)
        with tracer.start_as_current_span("llm", attributes={
                "openinference.span.kind": "LLM",
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": prompt + "\\n" + question,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": REPLIES[key]}):
            pass
        root.set_attribute("output.value", REPLIES[key])
        return REPLIES[key]
'''


#: A small LangChain RAG chain built from LangChain's own docs (LCEL: retriever | format |
#: prompt | chat model | parser) on offline parts: ``FakeListChatModel`` answers ``reply``,
#: ``KB`` is an in-memory retriever (``langchain_app.py`` in inner runs; the tests import it
#: from here).
LANGCHAIN_APP = '''
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough

DOCS = [
    Document(page_content="Refunds are issued within 14 days of a return being received.",
             id="kb-1"),
    Document(page_content="Items bought on sale can be exchanged but not refunded.",
             id="kb-2"),
    Document(page_content="The Kestrel e-bike weighs 23 kg.", id="kb-3"),
]


class KB(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        words = {w.strip("?.,").lower() for w in query.split() if len(w) > 3}
        return [d for d in DOCS if words & {w.strip(".,").lower()
                                            for w in d.page_content.split()}]


def make_chain(reply):
    prompt = ChatPromptTemplate.from_template(
        "Answer from the context only.\\nContext:\\n{context}\\n\\nQuestion: {question}")
    fmt = lambda docs: "\\n\\n".join(d.page_content for d in docs)  # noqa: E731
    return ({"context": KB() | fmt, "question": RunnablePassthrough()} | prompt
            | FakeListChatModel(responses=[reply]) | StrOutputParser())
'''
