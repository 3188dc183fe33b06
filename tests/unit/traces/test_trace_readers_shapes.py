"""The readers on output and prompt shapes real producers write (attack 26, findings 4, 7, 9,
13): an LLM reply in several text parts or several choices, an OpenInference LLM span that
records only ``input.value`` / ``output.value`` (the ``@tracer.llm`` decorator), a GenAI tool
result in the prompt, and an output that records no output (``None``, ``null``, empty).
Each shape in both directions: what the app showed is judged (an unfaithful part is not
skipped) and ``answer=`` given as the whole reply matches (a faithful app is not blocked)."""

from __future__ import annotations

import json

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder, genai_docs, genai_messages, oi_docs, oi_llm  # noqa: E402

from pytest_faithfulness.traces.turns import Turn, TurnFailure  # noqa: E402

REFUND = "Refunds are issued within 14 days of a return being received."
SALE = "Items bought on sale can be exchanged but not refunded."
BAD = "Items bought on sale can be refunded in cash."
PROMPT = f"Context:\n{REFUND}\n{SALE}\nQ: refund on a sale item?"


def _turn(found):
    assert len(found) == 1 and isinstance(found[0], Turn), found
    return found[0]


def _oi_parts(prefix: str, *parts: str, message: int = 0) -> dict[str, str]:
    attrs = {f"{prefix}.{message}.message.role": "assistant"}
    for j, text in enumerate(parts):
        attrs[f"{prefix}.{message}.message.contents.{j}.message_content.type"] = "text"
        attrs[f"{prefix}.{message}.message.contents.{j}.message_content.text"] = text
    return attrs


def _oi_turn(b, llm_attrs, docs=(REFUND, SALE), root_output=None):
    with b.span("turn", **{"openinference.span.kind": "CHAIN"}) as root:
        with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"}, **oi_docs(*docs)):
            pass
        with b.span("model", **llm_attrs):
            pass
        if root_output is not None:
            root.set_attribute("output.value", root_output)


# -- finding 4: an LLM output is its first message's text parts, concatenated ---------------

def test_openinference_text_parts_are_one_output_joined_in_order():
    """The real openinference-instrumentation-langchain writes an AIMessage with a list
    content as ``message.contents.{j}``; the app shows ``AIMessage.text`` (parts joined)."""
    parts = [BAD, " " + REFUND]
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, {"openinference.span.kind": "LLM",
                     "llm.input_messages.0.message.role": "user",
                     "llm.input_messages.0.message.content": PROMPT,
                     **_oi_parts("llm.output_messages", *parts)})
    turn = _turn(cap.results())
    assert turn.answer == BAD + " " + REFUND  # the unfaithful first part is judged
    assert turn.context == "prompt" and turn.answer_span.name == "model"
    # the whole reply given as answer= matches the span (was E-ANSWER-MISMATCH)
    assert _turn(cap.results(answer="".join(parts))).answer == "".join(parts)


def test_openinference_parts_beyond_ten_keep_their_numeric_order():
    parts = [f"Part {j}. " for j in range(12)]
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("model", **{"openinference.span.kind": "LLM",
                                **_oi_parts("llm.output_messages", *parts)}):
            pass
    [info] = cap.read()
    assert info.output_text == "".join(parts)


def test_several_choices_give_the_first_not_the_last():
    """OpenAI ``n=2``: an app shows ``choices[0]``; the reader took the last one."""
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, {**oi_llm(PROMPT, BAD),
                     "llm.output_messages.1.message.role": "assistant",
                     "llm.output_messages.1.message.content": REFUND})
    assert _turn(cap.results()).answer == BAD
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, {"openinference.span.kind": "LLM",
                     "llm.input_messages.0.message.content": PROMPT,
                     "llm.choices.0.completion.text": BAD,
                     "llm.choices.1.completion.text": REFUND})
    assert _turn(cap.results()).answer == BAD


def test_genai_text_parts_are_one_output_and_the_first_message_wins():
    two_parts = json.dumps([{"role": "assistant", "finish_reason": "stop", "parts": [
        {"type": "text", "content": BAD}, {"type": "text", "content": " " + REFUND}]}])
    two_choices = json.dumps([
        {"role": "assistant", "parts": [{"type": "text", "content": BAD}]},
        {"role": "assistant", "parts": [{"type": "text", "content": REFUND}]}])
    for output, expected in ((two_parts, BAD + " " + REFUND), (two_choices, BAD)):
        b = SpanBuilder()
        with b.window() as cap:
            with b.span("invoke_agent rag", **{"gen_ai.operation.name": "invoke_agent"}):
                with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                            "gen_ai.retrieval.documents": genai_docs(
                                                {"id": "kb-1", "content": REFUND},
                                                {"id": "kb-2", "content": SALE})}):
                    pass
                with b.span("chat", **{"gen_ai.operation.name": "chat",
                                       "gen_ai.input.messages": genai_messages("user", PROMPT),
                                       "gen_ai.output.messages": output}):
                    pass
        turn = _turn(cap.results())
        assert turn.answer == expected and turn.context == "prompt"
        assert _turn(cap.results(answer=expected)).answer == expected


def test_genai_legacy_completions_give_the_first():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("chat", **{"gen_ai.system": "openai", "gen_ai.prompt.0.content": PROMPT,
                               "gen_ai.completion.0.content": BAD,
                               "gen_ai.completion.1.content": REFUND}):
            pass
    [info] = cap.read()
    assert info.output_text == BAD


# -- finding 7: an OpenInference LLM span with only input.value / output.value --------------

def _decorated_llm(prompt_value: str, output_value: str, mime: str = "text/plain"):
    """What OITracer's ``@tracer.llm`` writes: no llm.*_messages."""
    return {"openinference.span.kind": "LLM", "input.value": prompt_value,
            "input.mime_type": "application/json", "output.value": output_value,
            "output.mime_type": mime}


def test_llm_output_value_is_the_output_and_input_value_the_prompt():
    only_refund = json.dumps({"prompt": f"Context:\n{REFUND}\nQ: refund on a sale item?"})
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, _decorated_llm(only_refund, SALE))
    turn = _turn(cap.results())
    assert turn.answer == SALE and turn.answer_span.name == "model"  # was E-NO-ANSWER
    # the recorded prompt drives the context rule: the document the model never saw is out
    assert turn.context == "prompt" and [p.text for p in turn.passages] == [REFUND]
    assert "input.value" in turn.generation_span.read


def test_llm_output_value_as_a_chat_completion_and_input_value_as_messages():
    completion = json.dumps({"choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": REFUND}]}}]})
    messages = json.dumps({"messages": [{"role": "system", "content": f"Context: {REFUND}"},
                                        {"role": "user", "content": "How fast are refunds?"}]})
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, _decorated_llm(messages, completion, "application/json"))
    turn = _turn(cap.results())
    assert turn.answer == REFUND and turn.context == "prompt"
    assert turn.generation_span.prompt_text == f"Context: {REFUND}\nHow fast are refunds?"
    assert [p.text for p in turn.passages] == [REFUND]


def test_llm_output_value_as_a_json_string_and_a_langchain_result():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("a", **_decorated_llm("q", json.dumps(REFUND), "application/json")):
            pass
        with b.span("b", **_decorated_llm("q", json.dumps(
                {"generations": [[{"text": SALE}]]}), "application/json")):
            pass
    assert [s.output_text for s in cap.read()] == [REFUND, SALE]


def test_a_redacted_input_value_is_no_prompt_not_an_empty_one():
    """``OPENINFERENCE_HIDE_INPUTS``: the context falls back to retrieval (with the report's
    note), never to "no document reached the model"."""
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, _decorated_llm("__REDACTED__", REFUND), docs=(REFUND,))
    turn = _turn(cap.results())
    assert turn.generation_span.prompt_text is None and turn.context == "retrieval"
    assert [p.text for p in turn.passages] == [REFUND]


def test_llm_messages_win_over_output_value():
    """LangChain's instrumentor writes both; the messages are the model's reply."""
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("m", **oi_llm(PROMPT, REFUND), **{"output.value": '{"generations": []}',
                                                      "input.value": "other"}):
            pass
    [info] = cap.read()
    assert info.output_text == REFUND and info.prompt_text == PROMPT


# -- finding 9: GenAI tool results are prompt text -----------------------------------------

def _agent(b, response, answer):
    docs = [{"id": "kb-2", "content": SALE}]
    call = {"type": "tool_call", "id": "c1", "name": "search", "arguments": {"q": "sale"}}
    with b.span("invoke_agent support", **{"gen_ai.operation.name": "invoke_agent"}):
        with b.span("chat 1", **{
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": genai_messages("user", "Refund on a sale item?"),
                "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                       "parts": [call]}])}):
            pass
        with b.span("execute_tool search", **{"gen_ai.operation.name": "execute_tool"}):
            with b.span("retrieval kb", **{"gen_ai.operation.name": "retrieval",
                                           "gen_ai.retrieval.documents": genai_docs(*docs)}):
                pass
        with b.span("chat 2", **{
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps([
                    {"role": "user", "parts": [{"type": "text",
                                                "content": "Refund on a sale item?"}]},
                    {"role": "assistant", "parts": [call]},
                    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                                                "response": response(docs)}]}]),
                "gen_ai.output.messages": genai_messages("assistant", answer)}):
            pass


def test_genai_tool_call_response_documents_are_in_the_prompt():
    for response in (json.dumps, lambda docs: docs, lambda docs: docs[0]["content"]):
        b = SpanBuilder()
        with b.window() as cap:
            _agent(b, response, SALE)
        turn = _turn(cap.results(answer=SALE))  # was E-CONTEXT-UNUSED
        assert turn.context == "prompt" and [p.text for p in turn.passages] == [SALE]
        assert turn.generation_span.name == "chat 2" and not turn.generation_span.tool_calls
    # the other direction: the answer is the model's text, never the tool call or result
    b = SpanBuilder()
    with b.window() as cap:
        _agent(b, json.dumps, BAD)
    turn = _turn(cap.results())
    assert turn.answer == BAD and [p.text for p in turn.passages] == [SALE]


def test_openinference_tool_messages_are_in_the_prompt():
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, {**oi_llm("Refund on a sale item?", SALE),
                     "llm.input_messages.1.message.role": "tool",
                     "llm.input_messages.1.message.content": json.dumps([{"text": SALE}])},
                 docs=(SALE,))
    turn = _turn(cap.results(answer=SALE))
    assert turn.context == "prompt" and [p.text for p in turn.passages] == [SALE]


def test_a_tool_result_in_an_output_message_is_not_the_answer():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("chat", **{"gen_ai.operation.name": "chat", "gen_ai.output.messages":
                               json.dumps([{"role": "assistant", "parts": [
                                   {"type": "tool_call_response", "response": SALE}]}])}):
            pass
    [info] = cap.read()
    assert info.output_text is None


# -- finding 13: an output of None / null / empty is no output ------------------------------

def test_a_root_output_of_none_null_or_empty_falls_through_to_the_llm_output():
    for none in ("None", "null", "", "   ", '"None"'):
        b = SpanBuilder()
        with b.window() as cap:
            _oi_turn(b, oi_llm(PROMPT, SALE), root_output=none)
        turn = _turn(cap.results())
        assert turn.answer == SALE and turn.answer_span.name == "model", repr(none)
        root = next(s for s in cap.read() if s.name == "turn")
        assert root.output_text is None and root.output_json is None, repr(none)
        assert any("read as no output" in n for n in root.notes) or not none.strip()
    # the other direction: a real root output is still the answer, however short
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, oi_llm(PROMPT, SALE), root_output="No.")
    root_turn, model_turn = cap.results()  # the model's own output, not in "No.", is judged too
    assert root_turn.answer == "No." and model_turn.answer == SALE


def test_no_output_in_every_convention():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("oi-llm", **_decorated_llm("q", "None")):
            pass
        with b.span("mlflow", **{"mlflow.spanType": '"CHAIN"', "mlflow.spanOutputs": '"None"'}):
            pass
        with b.span("mlflow-llm", **{"mlflow.spanType": '"LLM"', "mlflow.spanOutputs": "null"}):
            pass
        with b.span("trulens", **{"ai.observability.span_type": "record_root",
                                  "ai.observability.record_root.output": "None"}):
            pass
        with b.span("genai", **{"gen_ai.operation.name": "chat",
                                "gen_ai.output.messages": genai_messages("assistant", " ")}):
            pass
    infos = cap.read()
    assert [(i.name, i.output_text) for i in infos] == [
        (name, None) for name in ("oi-llm", "mlflow", "mlflow-llm", "trulens", "genai")]


def test_a_decorated_handler_returning_none_is_judged_by_its_model_reply():
    """The shape ``@tracer.chain def on_message(q) -> None`` writes: no E-NO-ANSWER, no
    'None.' judged; without any LLM text the turn still fails (never a pass)."""
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, oi_llm(PROMPT, BAD), root_output="None")
    assert _turn(cap.results()).answer == BAD
    b = SpanBuilder()
    with b.window() as cap:
        _oi_turn(b, {"openinference.span.kind": "LLM",
                     "llm.input_messages.0.message.content": PROMPT}, root_output="None")
    [failure] = cap.results()
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_no_answer"


# -- both directions through the plugin and its judge ---------------------------------------

SHAPES_APP = '''
import json
from opentelemetry import trace

REFUND = "Refunds are issued within 14 days of a return being received."
SALE = "Items bought on sale can be exchanged but not refunded."
BAD = "Items bought on sale can be refunded in cash."
tracer = trace.get_tracer("shapes")


def span(name, **attrs):
    return tracer.start_as_current_span(name, attributes={k.replace("__", "."): v
                                                          for k, v in attrs.items()})


def retrieve(*docs):
    attrs = {"openinference.span.kind": "RETRIEVER"}
    for i, d in enumerate(docs):
        attrs[f"retrieval.documents.{i}.document.id"] = f"kb-{i}"
        attrs[f"retrieval.documents.{i}.document.content"] = d
    with tracer.start_as_current_span("retrieve", attributes=attrs):
        pass


def parts_app(*parts):
    """finding 4: a reply of several text blocks; the app shows them joined."""
    with span("app", openinference__span__kind="AGENT"):
        retrieve(REFUND, SALE)
        attrs = {"openinference.span.kind": "LLM",
                 "llm.input_messages.0.message.content": f"Context: {REFUND} {SALE}"}
        for j, p in enumerate(parts):
            attrs[f"llm.output_messages.0.message.contents.{j}.message_content.text"] = p
        with tracer.start_as_current_span("model", attributes=attrs):
            pass
    return "".join(parts)


def decorated_app(reply):
    """finding 7: @tracer.llm records input.value / output.value only; the model sees only
    the first document."""
    with span("app", openinference__span__kind="CHAIN"):
        retrieve(REFUND, SALE)
        with span("generate", openinference__span__kind="LLM", output__mime_type="text/plain",
                  input__value=json.dumps({"prompt": f"Context: {REFUND}"}),
                  input__mime_type="application/json", output__value=reply):
            pass
    return reply


def tool_app(reply):
    """finding 9: GenAI agent whose search results reach the model as a tool result."""
    docs = json.dumps([{"id": "kb-2", "content": SALE}])
    with span("invoke_agent", gen_ai__operation__name="invoke_agent"):
        with span("execute_tool search", gen_ai__operation__name="execute_tool"):
            with span("retrieval", gen_ai__operation__name="retrieval",
                      gen_ai__retrieval__documents=docs):
                pass
        messages = [{"role": "user", "parts": [{"type": "text", "content": "Sale refund?"}]},
                    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                                                "response": docs}]}]
        with span("chat", gen_ai__operation__name="chat",
                  gen_ai__input__messages=json.dumps(messages),
                  gen_ai__output__messages=json.dumps([{"role": "assistant", "parts": [
                      {"type": "text", "content": reply}]}])):
            pass
    return reply


def none_app(reply):
    """finding 13: a handler that posts the reply by callback and returns None."""
    with span("on_message", openinference__span__kind="CHAIN", output__value="None"):
        retrieve(SALE)
        with span("model", openinference__span__kind="LLM",
                  llm__input_messages__0__message__content=f"Context: {SALE}",
                  llm__output_messages__0__message__content=reply):
            pass
'''


def test_each_shape_passes_a_faithful_app_and_fails_an_unfaithful_one(pytester):
    pytester.makepyfile(shapes_app=SHAPES_APP, test_shapes='''
        from shapes_app import *

        def test_parts_faithful(assert_faithful_trace):
            assert_faithful_trace(answer=parts_app(REFUND, " " + SALE))

        def test_parts_unfaithful(assert_faithful_trace):
            parts_app(BAD, " " + REFUND)
            assert_faithful_trace()

        def test_decorated_faithful(assert_faithful_trace):
            assert_faithful_trace(answer=decorated_app(REFUND))

        def test_decorated_unfaithful(assert_faithful_trace):
            assert_faithful_trace(answer=decorated_app(SALE))  # a document it never saw

        def test_tool_faithful(assert_faithful_trace):
            assert_faithful_trace(answer=tool_app(SALE))

        def test_tool_unfaithful(assert_faithful_trace):
            tool_app(BAD)
            assert_faithful_trace()

        def test_none_faithful(assert_faithful_trace):
            none_app(SALE)
            assert_faithful_trace()

        def test_none_unfaithful(assert_faithful_trace):
            none_app(BAD)
            assert_faithful_trace()
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-canaries", "0",
                                "-rf")
    result.assert_outcomes(passed=4, failed=4)
    failed = {line.split("::")[1].split()[0] for line in result.outlines
              if line.startswith("FAILED test_shapes.py::")}
    assert failed == {"test_parts_unfaithful", "test_decorated_unfaithful",
                      "test_tool_unfaithful", "test_none_unfaithful"}, result.outlines[-20:]
    result.stdout.no_fnmatch_line("*E-NO-ANSWER*")
    result.stdout.no_fnmatch_line("*E-CONTEXT-UNUSED*")
    result.stdout.no_fnmatch_line("*E-ANSWER-MISMATCH*")
    result.stdout.no_fnmatch_line("*UNSUPPORTED: None*")
