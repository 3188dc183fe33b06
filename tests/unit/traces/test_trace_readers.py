"""The readers and the turn rules, on spans built with the real SDK, one convention at a time:
OpenInference, the OpenTelemetry GenAI conventions (attributes and events), MLflow, TruLens."""

from __future__ import annotations

import json

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder, genai_docs, genai_messages, oi_docs, oi_llm  # noqa: E402

from pytest_faithfulness.traces.turns import Turn  # noqa: E402

REFUND = "Refunds are issued within 14 days of a return being received."
SALE = "Items bought on sale can be exchanged but not refunded."
OTHER = "The warehouse in Leeds ships orders on weekdays only."
ANSWER = "Refunds are issued within 14 days."


def _turn(found):
    assert len(found) == 1 and isinstance(found[0], Turn), found
    return found[0]


def _oi_rag(b, docs, prompt, answer=ANSWER, root_output=None):
    with b.span("rag", **{"openinference.span.kind": "CHAIN"}) as root:
        with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"}, **oi_docs(*docs)):
            pass
        with b.span("llm", **oi_llm(prompt, answer)):
            pass
        root.set_attribute("output.value", answer if root_output is None else root_output)
        if root_output is not None:
            root.set_attribute("output.mime_type", "application/json")


def test_openinference_passages_are_the_documents_that_reached_the_prompt():
    b = SpanBuilder()
    with b.window() as cap:
        _oi_rag(b, [REFUND, OTHER], f"Answer from:\n{REFUND}\nQ: refunds?")
    turn = _turn(cap.results())
    assert turn.answer == ANSWER and turn.context == "prompt"
    assert [(p.id, p.text) for p in turn.passages] == [("d0", REFUND)]
    ref = turn.ref()
    assert ref.trace_id == turn.trace_id and len(ref.trace_id) == 32
    assert ref.span_id == turn.answer_span.span_id and turn.answer_span.name == "rag"
    assert ref.generation_span_id == turn.generation_span.span_id
    assert "retrieve [retriever, openinference]" in cap.explain()


def test_a_document_cut_short_in_the_prompt_counts_by_the_part_that_is_there():
    b = SpanBuilder()
    long_doc = REFUND + " " + OTHER + " " + SALE
    with b.window() as cap:
        _oi_rag(b, [long_doc], f"Context: {long_doc[:90]}\nQuestion: refunds?")
    turn = _turn(cap.results())
    assert turn.passages[0].text == long_doc[:90] and turn.context == "prompt"
    assert any("cut short in the prompt" in w for w in turn.warnings)


def test_documents_put_in_the_prompt_as_json_or_html_still_count_as_seen():
    """Attack 25 finding 6 (a false alarm): an app that writes its documents into the prompt
    with ``json.dumps`` (escaped quotes, ``\\u00e9``, ``\\n``), inside a JSON message, or
    through an autoescaping template, showed them to the model all the same."""
    quoted = 'The "K7" kettle holds 1.7 litres of water, says the café.\nIt boils in 90 s.'
    docs = [json.dumps([{"id": "kb-1", "text": quoted}]),
            json.dumps({"messages": [{"content": json.dumps([{"text": quoted}])}]}),
            quoted.replace('"', "&quot;").replace("é", "&eacute;")]
    for prompt in docs:
        b = SpanBuilder()
        with b.window() as cap:
            _oi_rag(b, [quoted, OTHER], f"Context: {prompt}\nQ: kettle?")
        turn = _turn(cap.results())
        assert turn.context == "prompt", prompt
        assert [p.text for p in turn.passages] == [quoted], (prompt, turn.warnings)
        assert not any("cut short" in w for w in turn.warnings), turn.warnings
    # both directions: a document the prompt does not hold, escaped or not, stays out
    b = SpanBuilder()
    with b.window() as cap:
        _oi_rag(b, [quoted, OTHER], "Context: " + json.dumps([{"text": OTHER}]))
    assert [p.text for p in _turn(cap.results()).passages] == [OTHER]


def test_no_prompt_recorded_means_every_retrieved_document_and_the_report_says_so():
    b = SpanBuilder()
    with b.window() as cap:
        _oi_rag(b, [REFUND, OTHER], prompt=None)
    turn = _turn(cap.results())
    assert [p.text for p in turn.passages] == [REFUND, OTHER]
    assert turn.context == "retrieval" and turn.ref().context == "retrieval"
    assert any("context from retrieval, not from the prompt" in w for w in turn.warnings)
    # context="retrieved" skips the prompt check even when there is one
    with b.window() as cap:
        _oi_rag(b, [REFUND, OTHER], f"{REFUND}")
    assert len(_turn(cap.results(context="retrieved")).passages) == 2


def test_a_reranker_output_replaces_its_input_and_spans_after_the_generation_are_not_context():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"},
                        **oi_docs(REFUND, OTHER, SALE)):
                pass
            with b.span("rerank", **{"openinference.span.kind": "RERANKER"},
                        **oi_docs(REFUND, OTHER, SALE, prefix="reranker.input_documents"),
                        **oi_docs(SALE, REFUND, prefix="reranker.output_documents")):
                pass
            with b.span("llm", **oi_llm(None, ANSWER)):
                pass
            # a retrieval after the generation (a follow-up lookup): never the answer's context
            with b.span("late", **{"openinference.span.kind": "RETRIEVER"},
                        **oi_docs("The answer itself: " + ANSWER)):
                pass
    turn = _turn(cap.results())
    assert [p.text for p in turn.passages] == [SALE, REFUND]
    assert [s.name for s in turn.retrievals] == ["retrieve", "rerank"]


def test_hand_made_retriever_span_documents_from_a_json_output_value():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("search", **{"openinference.span.kind": "RETRIEVER",
                                     "output.value": json.dumps([{"page_content": REFUND}])}):
                pass
            with b.span("llm", **oi_llm(REFUND, ANSWER)):
                pass
    turn = _turn(cap.results())
    assert [p.text for p in turn.passages] == [REFUND]
    assert "documents read from output.value" in cap.explain()


def test_a_json_root_output_gives_its_one_text_field_never_the_sources_in_it():
    b = SpanBuilder()
    root = json.dumps({"answer": ANSWER, "sources": [REFUND], "score": 0.9})
    with b.window() as cap:
        _oi_rag(b, [REFUND], REFUND, root_output=root)
    assert _turn(cap.results()).answer == ANSWER


def test_answer_given_picks_its_trace_among_several():
    b = SpanBuilder()
    with b.window() as cap:
        _oi_rag(b, [REFUND], REFUND, answer=ANSWER)
        _oi_rag(b, [SALE], SALE, answer="Sale items can be exchanged.")
    assert len(cap.results()) == 2  # every trace is a turn
    turn = _turn(cap.results(answer="Sale items can be exchanged."))
    assert [p.text for p in turn.passages] == [SALE]


def test_the_last_llm_output_is_the_answer_when_the_root_has_none():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("agent", **{"openinference.span.kind": "AGENT"}):
            with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"},
                        **oi_docs(REFUND)):
                pass
            with b.span("llm-1", **oi_llm(REFUND, "thinking"),
                        **{"llm.output_messages.0.message.tool_calls.0.tool_call.function.name":
                           "lookup"}):
                pass
            with b.span("llm-2", **oi_llm(REFUND, ANSWER)):
                pass
    turn = _turn(cap.results())
    assert turn.answer == ANSWER and turn.answer_span.name == "llm-2"


def test_genai_documents_and_messages_from_attributes():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("invoke_agent rag", **{"gen_ai.operation.name": "invoke_agent",
                                           "gen_ai.output.messages":
                                               genai_messages("assistant", ANSWER)}):
            with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                        "gen_ai.retrieval.documents": genai_docs(
                                            {"id": "kb-1", "score": 0.9, "content": REFUND},
                                            {"id": "kb-2", "text": OTHER})}):
                pass
            with b.span("chat gpt", **{"gen_ai.operation.name": "chat",
                                       "gen_ai.input.messages": genai_messages("user", REFUND),
                                       "gen_ai.output.messages":
                                           genai_messages("assistant", ANSWER)}):
                pass
    turn = _turn(cap.results())
    assert [(p.id, p.text) for p in turn.passages] == [("kb-1", REFUND)]
    assert turn.answer_span.convention == "genai" and turn.generation_span.name == "chat gpt"


def test_genai_messages_from_the_operation_details_event():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                    "gen_ai.retrieval.documents": genai_docs(
                                        {"page_content": REFUND})}):
            pass
        # retrieval and chat in one trace: under a parent
    with b.window() as cap:
        with b.span("root", **{"gen_ai.operation.name": "invoke_agent"}):
            with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                        "gen_ai.retrieval.documents": genai_docs(
                                            {"page_content": REFUND})}):
                pass
            with b.span("chat", **{"gen_ai.operation.name": "chat"}) as chat:
                chat.add_event("gen_ai.client.inference.operation.details", {
                    "gen_ai.input.messages": genai_messages("user", f"Use: {REFUND}"),
                    "gen_ai.output.messages": genai_messages("assistant", ANSWER)})
    turn = _turn(cap.results())
    assert turn.answer == ANSWER and turn.context == "prompt"
    assert [p.text for p in turn.passages] == [REFUND]


def test_mlflow_spans():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("predict", **{"mlflow.spanType": '"CHAIN"',
                                  "mlflow.spanOutputs": json.dumps(ANSWER)}):
            with b.span("retriever", **{"mlflow.spanType": '"RETRIEVER"',
                                        "mlflow.spanOutputs": json.dumps([
                                            {"page_content": REFUND, "metadata": {},
                                             "id": "m1"}])}):
                pass
            with b.span("chat", **{"mlflow.spanType": '"CHAT_MODEL"',
                                   "mlflow.spanInputs": json.dumps(
                                       {"messages": [{"role": "user", "content": REFUND}]}),
                                   "mlflow.spanOutputs": json.dumps(
                                       {"choices": [{"message": {"content": ANSWER}}]})}):
                pass
    turn = _turn(cap.results())
    assert [(p.id, p.text) for p in turn.passages] == [("m1", REFUND)]
    assert turn.answer == ANSWER and turn.context == "prompt"


def test_trulens_spans():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("query", **{"ai.observability.span_type": "record_root",
                                "ai.observability.record_root.output": ANSWER}):
            with b.span("retrieve", **{"ai.observability.span_type": "retrieval",
                                       "ai.observability.retrieval.retrieved_contexts":
                                           (REFUND, OTHER)}):
                pass
    turn = _turn(cap.results())
    assert [p.text for p in turn.passages] == [REFUND, OTHER]
    assert turn.generation_span is None and turn.context == "retrieval"
