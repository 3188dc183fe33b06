"""Which texts of a trace are judged as answers (``turns.find_turns``): every answer the user
may have been shown is judged, whatever else is in the trace (attack 26 findings 1, 2, 3, 5,
8, 11), and steps inside an answer are not judged as answers of their own (both directions)."""

from __future__ import annotations

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder, oi_docs, oi_llm  # noqa: E402

from pytest_faithfulness.traces.turns import Turn, TurnFailure  # noqa: E402

REFUND = "Refunds are issued within 14 days of a return being received."
SALE = "Items bought on sale can be exchanged but not refunded."
BAD = "Items bought on sale can be refunded in cash."
GOOD = "Refunds are issued within 14 days."


def _retrieve(b, *docs, name="search", ids=None):
    attrs = {}
    for i, text in enumerate(docs):
        attrs[f"retrieval.documents.{i}.document.content"] = text
        attrs[f"retrieval.documents.{i}.document.id"] = ids[i] if ids else f"d{i}"
    with b.span(name, **{"openinference.span.kind": "RETRIEVER"}, **attrs):
        pass


def _llm(b, prompt, output, name="llm"):
    with b.span(name, **oi_llm(prompt, output)):
        pass


def _app(b, question, reply, *docs, shown=None, name="app"):
    with b.span(name, **{"openinference.span.kind": "CHAIN"}) as root:
        _retrieve(b, *docs)
        _llm(b, "Context:\n" + "\n".join(docs) + "\nQ: " + question, reply)
        root.set_attribute("output.value", reply if shown is None else shown)


def _turns(found):
    assert all(isinstance(t, Turn) for t in found), found
    return found


def test_spans_of_a_test_tracer_beside_the_app_do_not_hide_its_answer():
    """Finding 1: pytest-opentelemetry's fixture spans share the test's trace, so the trace
    had several roots, the root rule was skipped and only the last LLM output was judged: an
    appended sentence and a first app call were never judged."""
    b = SpanBuilder()
    outer = b.tracer.start_span("test_x::setup")  # started before the window: not captured
    from opentelemetry import trace

    with trace.use_span(outer, end_on_exit=True), b.window() as cap:
        with b.span("faithfulness_trace setup"):
            pass
        _app(b, "sale refund?", BAD, SALE)
        _app(b, "refunds?", GOOD, REFUND, shown=GOOD + " " + BAD)
    turns = _turns(cap.results())
    assert [t.answer for t in turns] == [BAD, GOOD + " " + BAD]
    assert [[p.text for p in t.passages] for t in turns] == [[SALE], [REFUND]]


def test_a_root_without_output_judges_every_answer_below_it():
    """Finding 2: a server span with no output; the answer (a chain's output) was skipped
    and the last LLM output (a follow-up suggestion) judged instead."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("GET /chat", **{"http.method": "GET"}):
            _app(b, "sale refund?", BAD, SALE, name="rag")
            _llm(b, "Context:\n" + SALE + "\nAnswer: " + BAD + "\nSuggest a follow-up question.",
                 "Would you like to know how to start a return?", name="followup")
    turns = _turns(cap.results())
    assert [t.answer for t in turns] == [BAD, "Would you like to know how to start a return?"]
    assert turns[0].answer_span.name == "rag" and [p.text for p in turns[0].passages] == [SALE]
    assert any("judged as an answer of its own" in w for w in turns[1].warnings)


def test_every_turn_of_a_conversation_span_is_judged():
    """Finding 3: two turns in one trace (a conversation span with the last answer as its
    output): only the last was judged."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("conversation", **{"openinference.span.kind": "CHAIN"}) as conv:
            _retrieve(b, SALE, name="retr1")
            _llm(b, "Context:\n" + SALE + "\nQ: sale refund?", BAD, name="llm1")
            _retrieve(b, REFUND, name="retr2", ids=["r0"])
            _llm(b, "Context:\n" + REFUND + "\nQ: refunds?", GOOD, name="llm2")
            conv.set_attribute("output.value", GOOD)
    turns = _turns(cap.results())
    assert [t.answer for t in turns] == [GOOD, BAD]  # in the order their spans started
    by_answer = {t.answer: [p.text for p in t.passages] for t in turns}
    assert by_answer == {BAD: [SALE], GOOD: [REFUND]}


def test_steps_inside_an_answer_are_not_answers_of_their_own():
    """Both directions: a query rewrite before retrieval (HyDE) and a chain's inner steps are
    not answers; the model's raw output, which says more than the root returns, is judged too
    (attack 27: prose holding a later answer's text is not dropped as its "raw form")."""
    hyde = "A hypothetical refund policy: refunds are issued within 30 days in cash."
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("app", **{"openinference.span.kind": "CHAIN"}) as root:
            _llm(b, "Write a passage that answers: refunds?", hyde, name="hyde")
            _retrieve(b, REFUND)
            with b.span("format", **{"openinference.span.kind": "CHAIN",
                                     "output.value": REFUND}):
                pass
            _llm(b, "Context:\n" + REFUND + "\nQ: refunds?", "Answer: " + GOOD + " [1]")
            root.set_attribute("output.value", GOOD)
    root_turn, raw_turn = _turns(cap.results())
    assert root_turn.answer == GOOD and not any("of its own" in w for w in root_turn.warnings)
    assert raw_turn.answer == "Answer: " + GOOD + " [1]"
    assert hyde not in [root_turn.answer, raw_turn.answer]
    # a JSON-mode reply whose answer field the root returns is not judged whole
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("app", **{"openinference.span.kind": "CHAIN"}) as root:
            _retrieve(b, REFUND)
            _llm(b, "Context:\n" + REFUND + "\nQ: refunds?",
                 '{"answer": "' + GOOD + '", "sources": ["d0"]}')
            root.set_attribute("output.value", GOOD)
    [turn] = _turns(cap.results())
    assert turn.answer == GOOD


def test_answer_matching_prefers_the_trace_whose_output_is_the_answer():
    """Finding 5: ``answer=`` was matched in the last trace containing it, so reply 1 was
    judged against the second trace's passages."""
    b = SpanBuilder()
    delivery = "Standard delivery within Germany takes two to four working days."
    with b.window() as cap:
        _app(b, "sale refund?", SALE, delivery)
        _app(b, "rules?", REFUND + " " + SALE, REFUND, SALE)
    [turn] = _turns(cap.results(answer=SALE))
    assert [p.text for p in turn.passages] == [delivery]


def test_chunks_that_share_a_document_id_are_all_passages():
    """Finding 8: passages were de-duplicated by id, so a source's second chunk was dropped
    and a verbatim quote of it judged unsupported."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("app", **{"openinference.span.kind": "CHAIN"}) as root:
            _retrieve(b, REFUND, SALE, REFUND, ids=["policy.md", "policy.md", "policy.md"])
            _llm(b, "Context:\n" + REFUND + "\n" + SALE + "\nQ: sale?", SALE)
            root.set_attribute("output.value", SALE)
    [turn] = _turns(cap.results())
    assert [(p.id, p.text) for p in turn.passages] == [("policy.md", REFUND),
                                                      ("policy.md'", SALE)]


def test_a_stream_read_part_way_is_an_open_span_error():
    """Finding 11: the model span of a stream not read to the end had no kind yet, so it
    was ignored and the error said to turn content capture on."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("RunnableSequence"):
            _retrieve(b, SALE)
            model = b.tracer.start_span("FakeListChatModel")  # its kind is written at the end
            cap_results = cap.results()
            model.end()
    assert len(cap_results) == 1 and isinstance(cap_results[0], TurnFailure)
    assert cap_results[0].kind == "trace_open_span" and "FakeListChatModel" in cap_results[0].message


def test_a_retriever_and_a_model_call_in_two_traces_are_named_as_such():
    """Finding 18: with no span around the turn, retrieval and model call are two traces;
    the errors said to instrument the retriever and to turn content capture on."""
    b = SpanBuilder()
    with b.window() as cap:
        _retrieve(b, SALE)
        _llm(b, "Context:\n" + SALE + "\nQ: sale?", SALE)
    found = cap.results(answer=SALE)
    assert [f.kind for f in found] == ["trace_no_retrieval"]
    assert "'search'" in found[0].message and "not under one parent span" in found[0].message


def test_a_json_answer_beside_other_text_fields_is_not_judged_alone():
    """Attack 27 finding 4: {"answer": ..., "explanation": ...}: only the answer was judged,
    the explanation (which the app may show) never was."""
    import json

    b = SpanBuilder()
    with b.window() as cap:
        with b.span("app", **{"openinference.span.kind": "CHAIN"}) as root:
            _retrieve(b, REFUND)
            _llm(b, "Context:\n" + REFUND + "\nQ: refunds?", GOOD)
            root.set_attribute("output.value", json.dumps(
                {"answer": GOOD, "explanation": "Premium members get free express shipping.",
                 "question": "refunds?", "sources": ["d0"]}))
            root.set_attribute("output.mime_type", "application/json")
    [failure] = cap.results()
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_no_answer"
    assert "['explanation']" in failure.message and "answer=" in failure.message


def test_an_earlier_turn_that_holds_a_later_turns_text_is_still_judged():
    """Attack 27 finding 6: turn 1 said more than turn 2 (and held it), so it was dropped as
    a "raw form" of turn 2's answer."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("conversation", **{"openinference.span.kind": "CHAIN"}) as conv:
            _retrieve(b, REFUND, name="retr1")
            _llm(b, "Context:\n" + REFUND + "\nQ: refunds?", GOOD + " " + BAD, name="llm1")
            _retrieve(b, REFUND, name="retr2", ids=["r0"])
            _llm(b, "Context:\n" + REFUND + "\nQ: again?", GOOD, name="llm2")
            conv.set_attribute("output.value", GOOD)
    answers = [t.answer for t in _turns(cap.results())]
    assert GOOD + " " + BAD in answers and GOOD in answers
