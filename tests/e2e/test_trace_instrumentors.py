"""The trace readers on spans their real producers write, with no network: the OpenInference
LangChain instrumentor on a LangChain chain (LangChain's fake chat model, an in-memory
retriever), and the official OpenTelemetry GenAI instrumentation of the OpenAI client talking
to the loopback chat server, with a retrieval span from ``opentelemetry-util-genai`` (what
the official instrumentations write retrievals with). They need the test extra; with
``FAITHFULNESS_REQUIRE_OTEL=1`` (``.ci/run``) a missing package fails instead of skipping."""

from __future__ import annotations

import json
import types

import pytest
from otel_spans import require_otel

require_otel("opentelemetry.sdk.trace", "openinference.instrumentation.langchain",
             "langchain_core", "opentelemetry.instrumentation.genai.openai",
             "opentelemetry.util.genai.handler", "openai")

from otel_spans import LANGCHAIN_APP  # noqa: E402

REFUND = "Refunds are issued within 14 days of a return being received."


def _module(name, source):
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


@pytest.fixture
def provider():
    from opentelemetry.sdk.trace import TracerProvider

    return TracerProvider()


@pytest.fixture
def langchain_instrumented(provider, faithfulness_trace):
    from openinference.instrumentation.langchain import LangChainInstrumentor

    faithfulness_trace.attach(provider)  # the instrumentor's own provider, not the global one
    LangChainInstrumentor().instrument(tracer_provider=provider)
    yield _module("langchain_app", LANGCHAIN_APP)
    LangChainInstrumentor().uninstrument()


def test_openinference_langchain_spans_give_the_turn_the_model_saw(langchain_instrumented,
                                                                   faithfulness_trace):
    app = langchain_instrumented
    reply = "Refunds are issued within 14 days."
    assert app.make_chain(reply).invoke("When are refunds issued?") == reply
    [turn] = faithfulness_trace.turns(answer=reply)
    assert turn.answer == reply and turn.context == "prompt"
    assert [p.text for p in turn.passages] == [REFUND]  # no document.id: "<span>#<i>"
    assert turn.passages[0].id == "KB#0"
    assert turn.generation_span.name == "FakeListChatModel"
    assert turn.answer_span.name == "RunnableSequence"  # the root chain's output.value
    explained = faithfulness_trace.explain()
    assert "KB [retriever, openinference]" in explained
    assert "retrieval.documents.*" in explained
    # with no answer= the root's output is the answer: the same turn
    assert [t.answer for t in faithfulness_trace.turns()] == [reply]


def test_openinference_langchain_a_retriever_that_finds_nothing(langchain_instrumented,
                                                                faithfulness_trace):
    app = langchain_instrumented
    app.make_chain("Yes.").invoke("Zzzz qqqq?")
    [failure] = faithfulness_trace.results()
    assert failure.kind == "trace_empty_retrieval", failure.message


@pytest.fixture
def genai(provider, faithfulness_trace, monkeypatch, chat_server):
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    import openai
    from opentelemetry.instrumentation.genai.openai import OpenAIInstrumentor
    from opentelemetry.util.genai.handler import TelemetryHandler

    faithfulness_trace.attach(provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    chat_server.handler = lambda request: "Refunds are issued within 14 days."
    client = openai.OpenAI(base_url=chat_server.base_url, api_key="test-key")
    yield TelemetryHandler(tracer_provider=provider), client
    OpenAIInstrumentor().uninstrument()


def _rag(handler, client, documents, question="When are refunds issued?"):
    with handler.workflow("rag"):
        with handler.retrieval(data_source_id="kb") as retrieval:
            retrieval.documents = documents
        # the app puts only its best document in the prompt
        context = next((d["content"] for d in documents if isinstance(d, dict)), "")
        reply = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": f"Context:\n{context}\n\n{question}"}])
    return reply.choices[0].message.content


def test_genai_official_openai_instrumentation_spans_give_the_turn(genai, faithfulness_trace,
                                                                   chat_server):
    handler, client = genai
    answer = _rag(handler, client, [{"id": "kb-1", "content": REFUND},
                                    {"id": "kb-3", "content": "The Kestrel weighs 23 kg."}])
    assert len(chat_server.requests) == 1
    [turn] = faithfulness_trace.turns(answer=answer)
    assert turn.generation_span.convention == "genai"
    assert turn.generation_span.name == "chat gpt-4o-mini"
    assert [(p.id, p.text) for p in turn.passages] == [("kb-1", REFUND)]
    assert turn.context == "prompt"
    # no answer=: the workflow root has no output, so the last LLM output is the answer
    assert [t.answer for t in faithfulness_trace.turns()] == [answer]


def test_genai_retrieval_documents_without_text_are_no_content(genai, faithfulness_trace):
    """``RetrievalDocument`` has only ``id`` and ``score``: what the official model writes."""
    from opentelemetry.util.genai.types import RetrievalDocument

    handler, client = genai
    _rag(handler, client, [RetrievalDocument(id="kb-1", score=0.9)])
    [span] = [s for s in faithfulness_trace.spans if s.name == "retrieval kb"]
    assert json.loads(span.attributes["gen_ai.retrieval.documents"]) == [
        {"id": "kb-1", "score": 0.9}]
    [failure] = faithfulness_trace.results()
    assert failure.kind == "trace_no_content", failure.message


def test_genai_content_capture_off_is_no_answer(provider, faithfulness_trace, monkeypatch,
                                                chat_server):
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    import openai
    from opentelemetry.instrumentation.genai.openai import OpenAIInstrumentor

    faithfulness_trace.attach(provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    try:
        chat_server.handler = lambda request: "Refunds are issued within 14 days."
        client = openai.OpenAI(base_url=chat_server.base_url, api_key="test-key")
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    finally:
        OpenAIInstrumentor().uninstrument()
    [failure] = faithfulness_trace.results()
    assert failure.kind == "trace_no_answer", failure.message
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in failure.message


def test_a_langchain_app_judged_end_to_end_with_assert_faithful_trace(pytester):
    """As a user would: the app instrumented in conftest.py on the global provider, the
    fixture pointed at it, the offline judge."""
    pytester.makepyfile(langchain_app=LANGCHAIN_APP)
    pytester.makeconftest('''
        from openinference.instrumentation.langchain import LangChainInstrumentor
        LangChainInstrumentor().instrument()
    ''')
    pytester.makepyfile(test_app='''
        from langchain_app import make_chain

        def test_faithful(assert_faithful_trace):
            reply = make_chain("Refunds are issued within 14 days of a return being "
                               "received.").invoke("When are refunds issued?")
            assert_faithful_trace(answer=reply)

        def test_unfaithful(assert_faithful_trace):
            make_chain("The Kestrel e-bike weighs 19 kg and folds flat.").invoke(
                "How heavy is the Kestrel?")
            assert_faithful_trace()
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:langsmith_plugin")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*1 of 1 turns of the trace are not faithful enough*",
                                 "*(trace *, span *)*",
                                 "*context from prompt (passages from span(s) *)"])
