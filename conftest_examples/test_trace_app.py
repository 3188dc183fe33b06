"""Judge the app as it runs: a toy RAG app that records OpenTelemetry spans (OpenInference
attributes, as its auto-instrumentors write them), judged from its spans, not from passages
threaded through the test by hand (docs/traces.md).

Needs the ``otel`` extra (``pip install ".[otel]"``); skipped without it. Written for this
project.
"""

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="needs the otel extra: "
                    "pip install '.[otel]' (opentelemetry-sdk)")

from opentelemetry import trace  # noqa: E402

KNOWLEDGE_BASE = {
    "faq-3": "Orders over 50 euros ship free within Germany.",
    "faq-4": "Standard delivery within Germany takes two to four working days.",
    "faq-9": "Gift cards cannot be exchanged for cash.",
}
tracer = trace.get_tracer("toy_shop_assistant")


def model(prompt):
    """The shop assistant's "model": a canned reply (a real app calls an LLM here)."""
    return "Orders over 50 euros ship free within Germany."


def ask(question):
    """The app as shipped: retrieve, build the prompt, call the model; every step a span."""
    with tracer.start_as_current_span("assistant", attributes={
            "openinference.span.kind": "CHAIN", "input.value": question}) as root:
        words = {w.strip("?.,").lower() for w in question.split()}
        with tracer.start_as_current_span("search_faq", attributes={
                "openinference.span.kind": "RETRIEVER", "input.value": question}) as span:
            found = [(key, text) for key, text in KNOWLEDGE_BASE.items()
                     if words & {w.strip(".,").lower() for w in text.split()} - {"within"}]
            for i, (key, text) in enumerate(found):
                span.set_attribute(f"retrieval.documents.{i}.document.id", key)
                span.set_attribute(f"retrieval.documents.{i}.document.content", text)
        prompt = "Answer from the FAQ:\n" + "\n".join(text for _, text in found[:1])
        prompt += f"\nQuestion: {question}"
        with tracer.start_as_current_span("llm", attributes={
                "openinference.span.kind": "LLM",
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": prompt}) as llm:
            reply = model(prompt)
            llm.set_attribute("llm.output_messages.0.message.role", "assistant")
            llm.set_attribute("llm.output_messages.0.message.content", reply)
        root.set_attribute("output.value", reply)
        return reply


def test_shipping_answer_judged_from_the_apps_spans(assert_faithful_trace):
    reply = ask("Do orders ship free?")
    [result] = assert_faithful_trace(answer=reply, min_score=1.0)
    # only the document that reached the prompt is the context (faq-4 was retrieved, not used)
    assert [p.id for p in result.passages] == ["faq-3"]
    assert result.trace.context == "prompt"
