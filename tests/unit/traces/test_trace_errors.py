"""Never a silent pass: every way a trace fails to give a judgeable turn is an errored answer
with its own ``error_kind`` and a message naming the cause and the fix (one test per kind of
``trace_records.TRACE_ERROR_KINDS``; ``test_every_trace_error_kind_is_tested_here`` keeps it so)."""

from __future__ import annotations

import inspect
import sys
import threading

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder, genai_docs, oi_docs, oi_llm  # noqa: E402

from pytest_faithfulness.records import AnswerResult  # noqa: E402
from pytest_faithfulness.trace_records import TRACE_ERROR_CODES, TRACE_ERROR_KINDS  # noqa: E402
from pytest_faithfulness.traces.turns import TurnFailure  # noqa: E402
from pytest_faithfulness.traces.window import Window  # noqa: E402

REFUND = "Refunds are issued within 14 days of a return being received."
ANSWER = "Refunds are issued within 14 days."


def _failure(found, kind, *words):
    assert len(found) == 1 and isinstance(found[0], TurnFailure), found
    failure = found[0]
    assert failure.kind == kind, failure.message
    for word in words:
        assert word in failure.message, failure.message
    result = failure.result()
    assert isinstance(result, AnswerResult) and result.status == "error"
    assert result.error_kind == kind and result.error.startswith(TRACE_ERROR_CODES[kind] + ":")
    assert result.trace is not None and result.trace.code == TRACE_ERROR_CODES[kind]
    return failure


def _rag(b, retriever_attrs, llm_attrs=None, root_output=ANSWER):
    with b.span("rag", **{"openinference.span.kind": "CHAIN"}) as root:
        with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"}, **retriever_attrs):
            pass
        with b.span("llm", **(llm_attrs or oi_llm(REFUND, ANSWER))):
            pass
        if root_output is not None:
            root.set_attribute("output.value", root_output)


def test_trace_no_spans():
    b = SpanBuilder()
    with b.window("test_x") as cap:
        pass
    failure = _failure(cap.results(), "trace_no_spans", "no span was captured in test_x",
                       "is the app instrumented", "attach(provider)",
                       "MLFLOW_USE_DEFAULT_TRACER_PROVIDER=false")
    assert failure.code == "E-NO-SPANS"


def test_trace_no_spans_names_a_sampler_that_drops_spans():
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    b = SpanBuilder(sampler=ALWAYS_OFF)
    with b.window() as cap:
        _rag(b, oi_docs(REFUND))
    _failure(cap.results(), "trace_no_spans", "sampler is AlwaysOffSampler",
             "OTEL_TRACES_SAMPLER=always_on")


def test_trace_no_spans_names_a_disabled_sdk(monkeypatch):
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    b = SpanBuilder()  # the SDK hands out no-op tracers
    with b.window() as cap:
        _rag(b, oi_docs(REFUND))
    _failure(cap.results(), "trace_no_spans", "OTEL_SDK_DISABLED=true", "unset it")


def test_trace_no_retrieval():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("llm", **oi_llm(REFUND, ANSWER)):
                pass
    _failure(cap.results(), "trace_no_retrieval", "chain×1, llm×1", "allow_no_retrieval=True",
             "get_retriever_attributes")
    # allowed: judged against no passage, with a warning
    b2 = SpanBuilder()
    with b2.window() as cap:
        with b2.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            pass
    turn = cap.results(allow_no_retrieval=True)[0]
    assert turn.passages == [] and any("no retrieval span" in w for w in turn.warnings)


def test_trace_empty_retrieval():
    b = SpanBuilder()
    with b.window() as cap:
        _rag(b, {"output.value": "[]"})
    _failure(cap.results(), "trace_empty_retrieval", "returned zero documents",
             "allow_empty_retrieval=True")
    with b.window() as cap:  # a retriever span that wrote no document attribute at all
        _rag(b, {})
    _failure(cap.results(), "trace_empty_retrieval", "wrote no document attribute at all")
    assert cap.results(allow_empty_retrieval=True)[0].passages == []


def test_trace_no_content():
    b = SpanBuilder()
    with b.window() as cap:  # GenAI documents with ids and scores only (content capture off)
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                        "gen_ai.retrieval.documents": genai_docs(
                                            {"id": "a", "score": 0.5})}):
                pass
            with b.span("llm", **oi_llm(REFUND, ANSWER)):
                pass
    _failure(cap.results(), "trace_no_content", "have no text",
             "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY")
    with b.window() as cap:  # redacted text
        _rag(b, oi_docs("__REDACTED__"))
    _failure(cap.results(), "trace_no_content", "redacted")


def test_trace_truncated():
    b = SpanBuilder(max_attributes=6)
    with b.window() as cap:
        _rag(b, oi_docs(*[f"{REFUND} ({i})" for i in range(5)]))
    _failure(cap.results(), "trace_truncated", "evicted", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT")


def test_trace_no_answer():
    b = SpanBuilder()
    with b.window() as cap:  # a JSON root output with two text fields
        _rag(b, oi_docs(REFUND), root_output='{"answer": "a", "text": "b"}')
    _failure(cap.results(), "trace_no_answer", "more than one", "pass answer=")
    with b.window() as cap:  # no root output, the LLM output redacted
        _rag(b, oi_docs(REFUND), llm_attrs={
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.content": "__REDACTED__"}, root_output=None)
    _failure(cap.results(), "trace_no_answer", "output redacted", "OPENINFERENCE_HIDE_OUTPUTS")


def test_trace_open_span():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"},
                        **oi_docs(REFUND)):
                pass
            stream = b.tracer.start_span("llm-stream", attributes=oi_llm(REFUND, ANSWER))
    _failure(cap.results(), "trace_open_span", "'llm-stream'", "stream not consumed")
    stream.end()


def test_an_open_span_around_the_whole_test_is_no_error_and_its_trace_still_gives_the_turn():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("test body", **{"openinference.span.kind": "CHAIN"}):
            _rag(b, oi_docs(REFUND), root_output=None)
            found = cap.results()
    assert found[0].answer == ANSWER and [p.text for p in found[0].passages] == [REFUND]


def test_trace_answer_mismatch():
    b = SpanBuilder()
    with b.window() as cap:
        _rag(b, oi_docs(REFUND))
    _failure(cap.results(answer="Refunds take 30 days."), "trace_answer_mismatch",
             "Refunds take 30 days.", repr(ANSWER)[:20])


def test_trace_context_unused():
    b = SpanBuilder()
    with b.window() as cap:
        _rag(b, oi_docs(REFUND), llm_attrs=oi_llm("Answer briefly: refunds?", ANSWER))
    _failure(cap.results(), "trace_context_unused", "none occurs in the prompt",
             "context='retrieved'")


def test_trace_overlap():
    """Two tests capture at once in one process (in threads); a span started on a third thread
    with no context cannot be attributed: both windows error."""
    b = SpanBuilder()
    opened, release, caps = threading.Barrier(3), threading.Event(), {}

    def run_test(name):
        with Window(name) as window:
            from pytest_faithfulness.traces.session import TraceCapture

            caps[name] = TraceCapture(window)
            opened.wait()
            release.wait()

    threads = [threading.Thread(target=run_test, args=(n,)) for n in ("t1", "t2")]
    for t in threads:
        t.start()
    opened.wait()
    bare = threading.Thread(target=lambda: b.tracer.start_span("orphan").end())
    bare.start()
    bare.join()
    release.set()
    for t in threads:
        t.join()
    for name in ("t1", "t2"):
        _failure(caps[name].results(), "trace_overlap", "'orphan'", "capture()")


def test_trace_unreadable():
    b = SpanBuilder()
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN", "output.value": ANSWER}):
            with b.span("retrieval", **{"gen_ai.operation.name": "retrieval",
                                        "gen_ai.retrieval.documents": "[{not json"}):
                pass
    _failure(cap.results(), "trace_unreadable", "gen_ai.retrieval.documents is not JSON",
             "explain()")


def test_trace_sampled():
    """Attack 26 finding 14: a ratio sampler on the app's provider dropped some app calls,
    and the test judged only those it kept (it passed in about half the runs)."""
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    b = SpanBuilder(sampler=ParentBased(TraceIdRatioBased(0.5)))
    with b.window() as cap:
        for _ in range(40):
            _rag(b, oi_docs(REFUND))
    found = cap.results()
    assert isinstance(found[0], TurnFailure) and len(found) > 1  # the kept turns are judged too
    _failure(found[:1], "trace_sampled", "TraceIdRatioBased", "ALWAYS_ON")
    # a custom sampler that states a percentage (attack 27 finding 9)
    from pytest_faithfulness.traces.capture import _may_drop

    class KeepPercent:
        def get_description(self):
            return "KeepPercent{25%}"

    assert _may_drop(KeepPercent()) and not _may_drop(TraceIdRatioBased(1.0))
    # both directions: the SDK's default sampler (ParentBased, root always on) is no error
    b = SpanBuilder()
    with b.window() as cap:
        _rag(b, oi_docs(REFUND))
    assert not any(isinstance(f, TurnFailure) for f in cap.results())


def test_every_trace_error_kind_is_tested_here():
    source = inspect.getsource(sys.modules[__name__])
    for kind in TRACE_ERROR_KINDS:
        assert f"def test_{kind}(" in source, kind


def test_trace_truncated_by_the_value_length_limit_is_never_judged_by_the_kept_start():
    """Attack 25 finding 1: the SDK cuts a long answer to ``max_attribute_length`` and only
    logs it; judging the kept start would pass a turn whose unfaithful tail nobody read."""
    tail = " Gift cards can be exchanged for cash at any store worldwide."
    answer = REFUND + tail
    b = SpanBuilder(max_value_length=len(REFUND) + 5)
    with b.window() as cap:  # answer=None: the root's output, cut
        _rag(b, oi_docs(REFUND), llm_attrs=oi_llm(None, answer), root_output=answer)
    _failure(cap.results(), "trace_truncated", "output.value", "length limit",
             f"({len(REFUND) + 5} characters)", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
    # answer= given: the cut output does not hold it; the cause named is the cut, not a typo
    _failure(cap.results(answer=answer), "trace_truncated", "length limit")
    # a cut document or prompt is as incomplete: the turn errors, it is not judged by a part
    with b.window() as cap:
        _rag(b, oi_docs(REFUND + " " + REFUND), llm_attrs=oi_llm("short prompt", "Yes."),
             root_output="Yes.")
    _failure(cap.results(), "trace_truncated", "retrieval.documents.0.document.content")


def test_an_attribute_cut_that_the_turn_does_not_read_is_no_error():
    """Both directions: a long ``input.value`` (the question) cut by the limit is not what the
    answer is judged by, so the turn is judged as usual."""
    b = SpanBuilder(max_value_length=len(REFUND) + 5)
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN",
                              "input__value": "q" * 500}) as root:
            with b.span("retrieve", **{"openinference.span.kind": "RETRIEVER"},
                        **oi_docs(REFUND)):
                pass
            with b.span("llm", **oi_llm(None, ANSWER)):
                pass
            root.set_attribute("output.value", ANSWER)
    found = cap.results()
    assert len(found) == 1 and not isinstance(found[0], TurnFailure), found
    assert found[0].answer == ANSWER


def test_a_json_value_cut_by_the_length_limit_is_named_as_cut_not_as_malformed():
    b = SpanBuilder(max_value_length=60)
    docs = genai_docs({"id": "d0", "content": REFUND}, {"id": "d1", "content": REFUND})
    with b.window() as cap:
        with b.span("rag", **{"openinference.span.kind": "CHAIN"}) as root:
            with b.span("search", **{"gen_ai.operation.name": "retrieval",
                                     "gen_ai.retrieval.documents": docs}):
                pass
            with b.span("llm", **oi_llm(None, ANSWER)):
                pass
            root.set_attribute("output.value", ANSWER)
    _failure(cap.results(), "trace_truncated", "gen_ai.retrieval.documents", "length limit")


def test_a_trace_none_of_whose_spans_ended_is_an_open_span_error_not_an_empty_pass():
    """Found trying MLflow (its processor failed after ours had seen the spans start): a
    window whose only spans never ended gave no turn and no failure, so
    ``assert_faithful_trace()`` judged nothing and passed."""
    b = SpanBuilder()
    with b.window() as cap:
        root = b.tracer.start_span("rag", attributes={"openinference.span.kind": "CHAIN"})
    _failure(cap.results(), "trace_open_span", "'rag'", "had not ended")
    _failure(cap.results(answer=ANSWER), "trace_open_span", "'rag'")
    root.end()
