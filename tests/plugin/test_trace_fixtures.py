"""The trace fixtures in real pytest runs: ``assert_faithful_trace`` judges the turns an
instrumented app's spans recorded, each recorded for the session gate with its trace ids;
an errored turn fails the test and the gate; under ``-n 2`` each worker attributes its own
spans; the provider cases (the app's own SDK provider, a no-op one, no SDK at all)."""

from __future__ import annotations

import json

from otel_spans import require_otel

require_otel()

from otel_spans import TOY_APP  # noqa: E402


def test_assert_faithful_trace_records_each_turn_with_its_trace_ids(pytester):
    pytester.makepyfile(rag_app=TOY_APP, test_rag='''
        from rag_app import ask

        def test_refund(assert_faithful_trace):
            reply = ask("Can I get a refund?", "refund")
            [result] = assert_faithful_trace(answer=reply, min_score=1.0)
            assert result.trace.context == "prompt" and len(result.trace.trace_id) == 32

        def test_every_turn(assert_faithful_trace, faithfulness_trace):
            ask("Can I get a refund?", "refund")
            ask("How heavy is the Kestrel?", "kestrel")
            results = assert_faithful_trace()
            assert len(results) == 2 and len({r.trace.trace_id for r in results}) == 2
            assert "retrieve [retriever, openinference]" in faithfulness_trace.explain()
            assert [t.answer for t in faithfulness_trace.turns()] == [r.answer for r in results]

        def test_unfaithful(assert_faithful_trace):
            ask("Can I refund a sale item?", "sale")
            assert_faithful_trace()
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-report", "r.json",
                                "--faithfulness-markdown", "r.md", "--junitxml", "j.xml")
    result.assert_outcomes(passed=2, failed=1)
    junit = (pytester.path / "j.xml").read_text()
    assert junit.count('name="faithfulness_trace_id"') == 3  # one per test, _2: the 2nd turn
    assert "(trace " in (pytester.path / "r.md").read_text()
    report = json.loads((pytester.path / "r.json").read_text())
    answers = {a["test_id"]: a for a in report["answers"]}
    assert set(answers) == {"test_rag.py::test_refund", "test_rag.py::test_every_turn#1",
                            "test_rag.py::test_every_turn#2", "test_rag.py::test_unfaithful"}
    for answer in answers.values():
        assert len(answer["trace"]["trace_id"]) == 32 and len(answer["trace"]["span_id"]) == 16
    sale = answers["test_rag.py::test_unfaithful"]
    assert sale["passages"] == [{"id": "kb-2", "text": "Items bought on sale can be exchanged "
                                 "but not refunded.", "title": None}]
    assert sale["status"] == "scored" and sale["score"] < 1
    result.stdout.fnmatch_lines(["*(trace *, span *)*",
                                 "*context from prompt (passages from span(s) *)"])


def test_a_trace_that_gives_no_turn_fails_the_test_and_the_gate(pytester):
    pytester.makepyfile(test_none='''
        def test_nothing_instrumented(assert_faithful_trace):
            assert_faithful_trace(record_only=True)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-report", "r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*E-NO-SPANS: no span was captured in test_none.py::*"])
    [answer] = json.loads((pytester.path / "r.json").read_text())["answers"]
    assert answer["status"] == "error" and answer["error_kind"] == "trace_no_spans"
    assert result.ret != 0


def test_each_xdist_worker_attributes_its_own_spans(pytester):
    tests = "\n".join(f'''
def test_{i}(faithfulness_trace, assert_faithful_trace):
    with tracer.start_as_current_span("span-of-{i}"):
        time.sleep(0.02)
    assert [s.name for s in faithfulness_trace.spans] == ["span-of-{i}"]
''' for i in range(8))
    pytester.makepyfile(test_workers="import time\nfrom opentelemetry import trace\n"
                     "tracer = trace.get_tracer('t')\n" + tests)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=8)


def test_an_async_test_and_a_thread_pool_app_are_attributed_to_the_test(pytester):
    pytester.makepyfile(rag_app=TOY_APP, test_async='''
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        import pytest
        from rag_app import ask

        @pytest.mark.asyncio
        async def test_async(assert_faithful_trace):
            loop = asyncio.get_running_loop()
            reply = await loop.run_in_executor(None, ask, "Can I get a refund?", "refund")
            await asyncio.gather(asyncio.to_thread(ask, "How heavy?", "kestrel"))
            assert len(assert_faithful_trace()) == 2
            assert_faithful_trace(answer=reply)

        def test_threads(faithfulness_trace):
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(ask, ["refund?", "Kestrel?"], ["refund", "kestrel"]))
            assert len(faithfulness_trace.turns()) == 2
    ''')
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_the_apps_own_provider_keeps_its_exporter_and_the_processor_is_added(pytester):
    pytester.makeconftest('''
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        EXPORTER = InMemorySpanExporter()
        PROVIDER = TracerProvider()
        PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(PROVIDER)
    ''')
    pytester.makepyfile(rag_app=TOY_APP, test_own='''
        from opentelemetry import trace
        from conftest import EXPORTER, PROVIDER
        from rag_app import ask

        def test_own(assert_faithful_trace):
            assert trace.get_tracer_provider() is PROVIDER
            ask("How heavy is the Kestrel?", "kestrel")
            assert_faithful_trace()
            assert len(EXPORTER.get_finished_spans()) == 3
    ''')
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_provider_that_cannot_take_a_processor_is_named_with_the_fix(pytester):
    pytester.makeconftest('''
        from opentelemetry import trace
        trace.set_tracer_provider(trace.NoOpTracerProvider())
    ''')
    pytester.makepyfile(rag_app=TOY_APP, test_noop='''
        from rag_app import ask

        def test_noop(assert_faithful_trace):
            ask("How heavy is the Kestrel?", "kestrel")
            assert_faithful_trace()
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*E-NO-SPANS*the global tracer provider is a "
                                 "NoOpTracerProvider*faithfulness_trace.attach(provider)*"])


def test_without_the_otel_extra_the_fixture_names_it(pytester):
    pytester.makeconftest('''
        import sys
        sys.modules["opentelemetry.sdk"] = None  # as if opentelemetry-sdk were not installed
    ''')
    pytester.makepyfile(test_bare='''
        def test_bare(assert_faithful_trace):
            assert_faithful_trace()
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:langsmith_plugin")
    result.assert_outcomes(errors=1)
    assert ("TracesUnavailable: judging the app from its spans needs the otel extra: pip "
            "install 'pytest-faithfulness[otel]'") in result.stdout.str()


def test_a_session_fixtures_background_thread_does_not_pass_a_test_where_the_app_never_ran(
        pytester):
    """Attack 25 finding 5: the keep-alive loop's turns were credited to whichever test was
    open, so ``test_no_app_ran`` passed. Now it fails (E-NO-SPANS, naming the thread); the
    test that calls the app is judged on its own turn; ``capture()`` credits the thread."""
    pytester.makepyfile(rag_app=TOY_APP, test_loop='''
        import threading
        import pytest
        from rag_app import ask

        @pytest.fixture(scope="session")
        def warm_app():
            stop = threading.Event()
            def loop():
                while not stop.is_set():
                    ask("Can I get a refund?", "refund")
                    stop.wait(0.005)
            thread = threading.Thread(target=loop, name="keep-alive", daemon=True)
            thread.start()
            yield
            stop.set()
            thread.join()

        def test_no_app_ran(warm_app, assert_faithful_trace):
            threading.Event().wait(0.1)
            assert_faithful_trace()

        def test_app_ran(warm_app, assert_faithful_trace):
            threading.Event().wait(0.05)
            reply = ask("How heavy is the Kestrel?", "kestrel")
            [result] = assert_faithful_trace()
            assert result.answer == reply
            assert any("keep-alive" in w for w in result.warnings)

        def test_bracketed(warm_app, faithfulness_trace):
            with faithfulness_trace.capture() as cap:
                threading.Event().wait(0.1)
            assert cap.turns()
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_loop.py::test_no_app_ran*",
                                 "*E-NO-SPANS*on thread 'keep-alive'*"])


def test_an_answer_cut_by_the_sdks_value_length_limit_fails_closed(pytester, monkeypatch):
    """Attack 25 finding 1: with ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` the SDK cut the answer
    and the kept start passed; the unfaithful rest was never judged."""
    pytester.makepyfile(rag_app=TOY_APP.replace(
        '"sale": "Items bought on sale can be refunded within 30 days."',
        '"sale": "Items bought on sale can be exchanged but not refunded. '
        'Gift cards can be exchanged for cash at any store worldwide."'), test_cut='''
        from rag_app import ask

        def test_cut(assert_faithful_trace):
            ask("Can I refund a sale item?", "sale")
            assert_faithful_trace()
    ''')
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "60")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*E-TRUNCATED*length limit (60 characters)*"])
    monkeypatch.delenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)  # judged whole: the gift-card claim is unsupported
    result.stdout.fnmatch_lines(["*Gift cards*"])


def test_slips_with_the_fixture_are_named(pytester):
    """Attack 26: ``capture=`` given the context manager crashed with an AttributeError; a
    test that requested ``assert_faithful_trace`` and never called it passed in silence."""
    pytester.makepyfile(rag_app=TOY_APP, test_slips='''
        import pytest
        from rag_app import ask

        def test_capture_slip(faithfulness_trace, assert_faithful_trace):
            block = faithfulness_trace.capture()
            with block:
                ask("How heavy is the Kestrel?", "kestrel")
            with pytest.raises(TypeError, match="capture= takes the object bound by"):
                assert_faithful_trace(capture=block)
            assert_faithful_trace()

        def test_never_called(assert_faithful_trace):
            ask("How heavy is the Kestrel?", "kestrel")
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*FaithfulnessWarning: assert_faithful_trace was requested "
                                 "but never called: the 3 span(s) captured were not judged*"])
