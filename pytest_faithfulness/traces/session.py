"""``TraceCapture``: what the ``faithfulness_trace`` fixture returns (pytest-free).

It reads the spans of one capture window (a test, or a ``capture()`` block) into RAG turns
(``turns``), shows what was read (``explain``), and adds the processor to a private provider
(``attach``). ``cases`` is what ``assert_faithful_trace`` judges: one ``(answer, passages)``
per turn found, or an errored ``AnswerResult`` per trace that gives none.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import FaithfulnessError
from ..records import AnswerResult
from .spans import SpanInfo
from .turns import Context, Turn, TurnFailure, find_turns
from .window import Window


class TraceTurnError(FaithfulnessError):
    """``TraceCapture.turns()`` found a trace that gives no judgeable turn.

    Attributes:
        kind: the error kind (``trace_records.TRACE_ERROR_KINDS``); the message names the
            cause and the fix.
    """

    def __init__(self, failure: TurnFailure) -> None:
        super().__init__(f"{failure.code}: {failure.message}")
        self.kind = failure.kind
        self.failure = failure


class TraceCapture:
    """The spans one window captured, and the turns they hold.

    Args:
        window: the capture window (``window.Window``) filled by the span processor.
    """

    def __init__(self, window: Window) -> None:
        self.window = window

    @property
    def spans(self) -> list[Any]:
        """The ended spans (SDK ``ReadableSpan``), in the order they ended."""
        return list(self.window.finished)

    def read(self) -> list[SpanInfo]:
        """The ended spans, read by their conventions' readers (``readers.read_span``)."""
        from .readers import read_span

        return [read_span(span) for span in self.window.finished]

    @contextmanager
    def capture(self) -> Iterator[TraceCapture]:
        """A narrower window: ``with faithfulness_trace.capture() as cap: app(...)``, then
        ``cap.turns()``; its spans also count for the test's window. While it is open, a span
        started on any thread is credited to it (a server thread a fixture started, an app's
        own worker pool): the block says the call happens here."""
        from .capture import ensure_installed

        ensure_installed()
        inner = Window("capture()", parent=self.window, explicit=True)
        with inner:
            yield TraceCapture(inner)

    def attach(self, provider: Any) -> None:
        """Capture the spans of a private ``provider`` too (``capture.attach``).

        Raises:
            TracesUnavailable: ``provider`` is not an SDK tracer provider.
        """
        from .capture import attach

        attach(provider)

    def results(self, *, answer: str | None = None, context: Context = "auto",
                allow_no_retrieval: bool = False,
                allow_empty_retrieval: bool = False) -> list[Turn | TurnFailure]:
        """Every turn of the window, or the failure of each trace that gives none (a window
        with no span at all, or with overlapping tests, is one failure).

        Args:
            answer / context / allow_no_retrieval / allow_empty_retrieval: as for
                ``turns.find_turns``.
        """
        from .readers import read_span

        if context not in ("auto", "retrieved"):
            raise ValueError(f"context must be 'auto' or 'retrieved', got {context!r}")
        if self.window.overlapped:
            return [TurnFailure("trace_overlap", f"span(s) {self.window.overlapped[:5]} started "
                                "on a thread while two tests captured at once in this process, "
                                "so they cannot be attributed to either: run the app inside "
                                "faithfulness_trace.capture(), or do not run trace tests in "
                                "threads of one process (pytest-xdist processes are fine)",
                                answer=answer or "")]
        spans = self.read()
        opened = [read_span(span) for span in list(self.window.started.values())]
        foreign = self._foreign_note()
        if not spans and not opened:
            from .capture import installed_note, no_span_diagnosis

            note = installed_note()
            causes = f"{foreign}; " if foreign else ""
            return [TurnFailure("trace_no_spans", f"no span was captured in {self.window.name}"
                                f"; possible causes: {causes}{no_span_diagnosis()}"
                                + (f" ({note})" if note else ""), answer=answer or "")]
        found = find_turns(spans, answer=answer, context=context,
                           allow_no_retrieval=allow_no_retrieval,
                           allow_empty_retrieval=allow_empty_retrieval, open_spans=opened)
        from .capture import sampling_problem

        sampling = sampling_problem(self.window.sources)
        if sampling:  # the turns found are judged too; the window fails all the same
            found = [TurnFailure("trace_sampled", sampling, answer=answer or ""), *found]
        for item in found:
            if foreign and isinstance(item, Turn):
                item.warnings.append(foreign)
            elif foreign and isinstance(item, TurnFailure):
                item.message += f"; also, {foreign}"
        if not found:  # never an empty list: nothing judged would pass
            return [TurnFailure("trace_no_answer", f"{len(spans)} span(s) ended and "
                                f"{len(opened)} are open in {self.window.name}, and none "
                                "gives a turn: faithfulness_trace.explain() shows what was "
                                "read", answer=answer or "")]
        return found

    def _foreign_note(self) -> str | None:
        """The spans not credited to this window (``Window.foreign``), named with the fix."""
        count = sum(w.foreign_count for w in self.window.chain())
        if not count:
            return None
        names = [n for w in self.window.chain() for n in w.foreign]
        return (f"{count} span(s) started meanwhile on thread(s) that were already running "
                f"and carry no context of this test ({', '.join(names[:5])}) were not "
                "credited to it: a background thread (a session fixture's loop) is not the "
                "test's app call. If the app runs there for this test (a server or worker "
                "a fixture started), make the call inside 'with faithfulness_trace.capture():' "
                "(credits every thread while open), or start the thread in the test")

    def turns(self, *, answer: str | None = None, context: Context = "auto",
              allow_no_retrieval: bool = False, allow_empty_retrieval: bool = False) -> list[Turn]:
        """The RAG turns found (``Turn``: ``.answer``, ``.passages``, ``.trace_id`` ...), to
        inspect or to pass to ``assert_faithful(turn.answer, turn.passages)``.

        Raises:
            TraceTurnError: a trace gives no judgeable turn (the first such; its ``kind`` and
                message name the cause and the fix).
        """
        found = self.results(answer=answer, context=context,
                             allow_no_retrieval=allow_no_retrieval,
                             allow_empty_retrieval=allow_empty_retrieval)
        for item in found:
            if isinstance(item, TurnFailure):
                raise TraceTurnError(item)
        return [t for t in found if isinstance(t, Turn)]

    def cases(self, **options: Any) -> list[tuple[str, list[Any], Any] | AnswerResult]:
        """What ``assert_faithful_trace`` judges: ``(answer, passages, annotate)`` per turn
        (``annotate(result)`` adds the trace ids and warnings to the judged result), an errored
        ``AnswerResult`` per failure. ``options`` as for ``results``."""
        cases: list[tuple[str, list[Any], Any] | AnswerResult] = []
        for item in self.results(**options):
            if isinstance(item, TurnFailure):
                cases.append(item.result())
            else:
                cases.append((item.answer, item.passages, _annotator(item)))
        return cases

    def explain(self) -> str:
        """The span tree of the window: each span's name, kind, convention, ids, what the
        readers found (documents, output, prompt) and the attributes they read."""
        from .explain import explain

        return explain(self.read(), self.window)


def _annotator(turn: Turn) -> Any:
    def annotate(result: AnswerResult) -> None:
        result.trace = turn.ref()
        result.warnings = [*turn.warnings, *result.warnings]
    return annotate
