"""The trace fixtures (``faithfulness_trace``, ``assert_faithful_trace``) and the hooks that
open each test's capture window.

Registered by ``pytest_configure``. Importing it imports no ``opentelemetry``: a test that
uses neither fixture costs one set-membership test; one that does gets a window from the
start of its setup (fixtures that call the app count) to the end of its call, and the span
processor is hooked into the app's tracer provider then (``traces.capture``). Spans of a
thread that carries no context of the test are credited only when the test's body started
that thread (``traces.window``).
"""

from __future__ import annotations

from typing import Any

import pytest

FIXTURES = frozenset({"faithfulness_trace", "assert_faithful_trace"})
WINDOW_KEY = pytest.StashKey[Any]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Open the test's window before its fixtures are set up."""
    if FIXTURES.intersection(getattr(item, "fixturenames", ())):
        from ..traces.capture import TracesUnavailable, ensure_installed
        from ..traces.window import Window

        try:
            ensure_installed()
        except TracesUnavailable:
            pass  # the fixture raises it, in the test's setup, with the fix
        # a thread a fixture starts (a session fixture's keep-alive loop) is not the test's
        item.stash[WINDOW_KEY] = Window(item.nodeid).open(credit_new_threads=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Credit the spans of threads the test's body starts (a thread pool it uses)."""
    window = item.stash.get(WINDOW_KEY, None)
    if window is not None:
        window.credit_new_threads()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: Any) -> None:
    """Close the test's window before its teardown (teardown spans are not the test's)."""
    window = item.stash.get(WINDOW_KEY, None)
    if window is not None:
        window.close()


@pytest.fixture
def faithfulness_trace(request: pytest.FixtureRequest):
    """The spans the app produced during this test, read into RAG turns
    (``traces.session.TraceCapture``): ``.spans``, ``.capture()``, ``.turns()``,
    ``.attach(provider)``, ``.explain()``.

    Needs the ``otel`` extra (``pip install 'pytest-faithfulness[otel]'``); without it the
    test errors in setup naming the extra.
    """
    from ..traces.capture import require_otel
    from ..traces.session import TraceCapture
    from ..traces.window import Window

    require_otel()
    window = request.node.stash.get(WINDOW_KEY, None)
    if window is None:  # requested dynamically (getfixturevalue): from now on
        from ..traces.capture import ensure_installed

        ensure_installed()
        window = request.node.stash[WINDOW_KEY] = Window(request.node.nodeid).open()
    return TraceCapture(window)


@pytest.fixture
def assert_faithful_trace(faithfulness_trace: Any, assert_faithful: Any):
    """Judge every RAG turn the app's spans recorded during this test, record each for the
    session gate, and assert each is faithful enough.

    ``assert_faithful_trace(answer=None, *, min_score=None, max_unsupported=None,
    require_claims=None, record_only=False, context="auto", allow_no_retrieval=False,
    allow_empty_retrieval=False, capture=None) -> list[AnswerResult]``

    ``answer``: the text the app returned (judge the turn whose answer it is), else every
    trace's own answer. ``context``: ``"auto"`` (the passages that reached the generation's
    recorded prompt, else all retrieved) or ``"retrieved"``. ``capture``: a
    ``faithfulness_trace.capture()`` block's capture instead of the whole test. A trace that
    gives no judgeable turn is an errored answer (its ``error_kind`` one of
    ``trace_records.TRACE_ERROR_KINDS``), never a pass. Each result carries its trace and span
    ids (``AnswerResult.trace``).

    Raises:
        AssertionError: a turn errored or missed a threshold (every failing turn's report).
        TypeError: ``answer`` is not a string, or ``capture`` is not a ``capture()`` block's
            capture.

    Warns:
        FaithfulnessWarning: at teardown, when it was never called though spans were captured.
    """
    called: list[bool] = []

    def check(answer: str | None = None, *, min_score: float | None = None,
              max_unsupported: int | None = None, require_claims: bool | None = None,
              record_only: bool = False, min_citation_precision: float | None = None,
              context: str = "auto", allow_no_retrieval: bool = False,
              allow_empty_retrieval: bool = False, capture: Any = None) -> list[Any]:
        __tracebackhide__ = True
        called.append(True)
        if answer is not None and not isinstance(answer, str):
            raise TypeError(f"answer must be a string or None, got {type(answer).__name__}")
        if capture is not None and not hasattr(capture, "cases"):
            raise TypeError("capture= takes the object bound by 'with "
                            "faithfulness_trace.capture() as cap:' (cap), got "
                            f"{type(capture).__name__}")
        source = capture if capture is not None else faithfulness_trace
        cases = source.cases(answer=answer, context=context,
                             allow_no_retrieval=allow_no_retrieval,
                             allow_empty_retrieval=allow_empty_retrieval)
        return assert_faithful.assert_prepared(
            cases, what="turns of the trace", min_score=min_score,
            max_unsupported=max_unsupported, require_claims=require_claims,
            record_only=record_only, min_citation_precision=min_citation_precision)
    yield check
    if not called and faithfulness_trace.window.finished:
        import warnings

        from ..errors import FaithfulnessWarning

        warnings.warn(FaithfulnessWarning(
            f"assert_faithful_trace was requested but never called: the "
            f"{len(faithfulness_trace.window.finished)} span(s) captured were not judged "
            "(call assert_faithful_trace() after the app ran)"), stacklevel=1)
