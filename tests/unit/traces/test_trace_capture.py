"""Attribution: a span belongs to the window current when it started, through asyncio tasks
(context variables) and thread pools (the process fallback); ``capture()`` narrows a window."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder  # noqa: E402


def test_spans_of_asyncio_tasks_belong_to_the_window_they_started_in():
    b = SpanBuilder()

    async def step(name):
        with b.span(name):
            await asyncio.sleep(0.01)

    async def main():
        await asyncio.gather(*(step(f"task-{i}") for i in range(4)))

    with b.window() as cap:
        asyncio.run(main())
    assert sorted(s.name for s in cap.spans) == [f"task-{i}" for i in range(4)]


def test_spans_of_a_thread_pool_belong_to_the_open_window():
    b = SpanBuilder()

    def work(i):
        with b.span(f"thread-{i}"):
            pass

    with b.window() as cap, ThreadPoolExecutor(3) as pool:
        list(pool.map(work, range(6)))
    assert len(cap.spans) == 6
    with b.span("outside"):  # no window open: captured nowhere
        pass
    assert len(cap.spans) == 6


def test_capture_narrows_the_window_and_its_spans_count_for_the_test_too():
    b = SpanBuilder()
    with b.window() as test:
        with b.span("setup"):
            pass
        with test.capture() as cap:
            with b.span("inside"):
                pass
        with b.span("after"):
            pass
    assert [s.name for s in cap.spans] == ["inside"]
    assert [s.name for s in test.spans] == ["setup", "inside", "after"]


def test_importing_the_package_and_starting_pytest_import_no_opentelemetry(tmp_path):
    code = ("import sys, pytest_faithfulness, pytest_faithfulness.plugin, "
            "pytest_faithfulness.plugin.traces, pytest_faithfulness.traces.window; "
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
    (tmp_path / "test_plain.py").write_text(
        "import sys\n"
        "def test_plain():\n"
        "    assert not [m for m in sys.modules if m.startswith('opentelemetry.sdk')]\n")
    # only this plugin (langsmith's, from langchain-core in the test extra, imports the SDK)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "pytest_faithfulness.plugin", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout[-2000:]


def _loop(b, stop, name="background"):
    """A keep-alive loop on its own thread (a session fixture's), one span per turn."""
    while not stop.is_set():
        with b.span(name):
            pass
        stop.wait(0.002)


def test_a_thread_already_running_is_not_credited_to_the_window():
    """Attack 25 finding 5: a session fixture's background thread handed its turns to
    whichever test was open, so a test in which the app never ran passed on them."""
    from pytest_faithfulness.traces.session import TraceCapture
    from pytest_faithfulness.traces.turns import TurnFailure
    from pytest_faithfulness.traces.window import Window

    b = SpanBuilder()
    stop = threading.Event()
    worker = threading.Thread(target=_loop, args=(b, stop), name="keep-alive")
    with Window("test_setup").open(credit_new_threads=False) as window:  # a test's setup
        worker.start()  # the fixture starts its loop: not the test's body
        window.credit_new_threads()  # the body begins
        stop.wait(0.05)
        cap = TraceCapture(window)
        found = cap.results()
    stop.set()
    worker.join()
    assert window.finished == [] and window.foreign_count > 0
    assert len(found) == 1 and isinstance(found[0], TurnFailure), found
    assert found[0].kind == "trace_no_spans"
    assert "'background' on thread 'keep-alive'" in found[0].message
    assert "faithfulness_trace.capture()" in found[0].message
    assert "span(s) not credited (threads already running" in cap.explain()


def test_capture_credits_every_thread_and_a_child_goes_with_its_parent():
    """Both directions: inside an explicit ``capture()`` a server thread a fixture started is
    credited (the user bracketed the call); a child span started on a bare thread under a
    parent the test started belongs to the test."""
    b = SpanBuilder()
    stop = threading.Event()
    worker = threading.Thread(target=_loop, args=(b, stop, "server"), name="server")
    worker.start()
    with b.window() as test:
        with test.capture() as cap:
            stop.wait(0.05)
        stop.set()
        worker.join()
        with b.span("parent") as parent:
            from opentelemetry import trace

            context = trace.set_span_in_context(parent)
            bare = threading.Thread(target=lambda: b.tracer.start_span(
                "child", context=context).end(), name="old")
            bare.start()
            bare.join()
    assert cap.spans and {s.name for s in cap.spans} == {"server"}
    names = [s.name for s in test.spans]
    assert "child" in names and "parent" in names


def test_a_context_carrying_an_earlier_tests_window_is_not_credited_to_the_next():
    """Attack 26 finding 6: an asyncio task a session fixture created during test 1 carries
    test 1's (closed) window in its context; its spans during test 2 were credited to test 2
    by the process fallback, so a test in which the app never ran passed on them."""
    import contextvars

    from pytest_faithfulness.traces.window import Window

    b = SpanBuilder()
    with Window("test_1"):
        task_context = contextvars.copy_context()  # what create_task copies
    with Window("test_2") as second:
        task_context.run(lambda: b.tracer.start_span("warm_cache").end())
        with b.span("own"):
            pass
    assert [s.name for s in second.finished] == ["own"]
    assert second.foreign_count == 1 and "'warm_cache'" in second.foreign[0]


def test_every_failure_names_the_spans_not_credited_and_a_wider_fixtures_run():
    """Attack 26 findings 10 and 16: a failure other than E-NO-SPANS did not name the spans
    a pool started by an earlier test made; E-NO-SPANS listed no cause that applied to an
    app run once in a module-scoped fixture."""
    from pytest_faithfulness.traces.window import Window

    b = SpanBuilder()
    stop = threading.Event()
    worker = threading.Thread(target=_loop, args=(b, stop), name="pool-0")
    worker.start()
    with Window("test_2") as window:
        stop.wait(0.02)
        with b.span("GET /ask"):  # the request on the test's thread; the work on the pool
            pass
        from pytest_faithfulness.traces.session import TraceCapture

        found = TraceCapture(window).results(answer="x")
    stop.set()
    worker.join()
    assert found[0].kind == "trace_answer_mismatch"
    assert "on thread 'pool-0'" in found[0].message and "capture()" in found[0].message
    with Window("test_3") as window:
        found = TraceCapture(window).results()
    assert "fixture of wider scope (module, session)" in found[0].message
