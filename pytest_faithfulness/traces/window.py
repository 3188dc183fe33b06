"""Which test a span belongs to: capture windows and the span processor that fills them.

Pure Python (no ``opentelemetry`` import): the processor has the methods an SDK
``TracerProvider`` calls on its span processors (``on_start``, ``on_end``, ``shutdown``,
``force_flush``), so the plugin can start a window for every test without importing the SDK.

A span is attributed to the window current **when it started**: the context variable first
(it follows asyncio tasks), else the window of its parent span (a child started on another
thread under a parent of the test), else the innermost window open in the process, but only
for a thread the window may credit: one started after the window began crediting threads (a
``ThreadPoolExecutor`` the test's body uses: its threads do not inherit context variables),
or any thread inside an explicit ``capture()`` block. A context that carries the window of an
earlier test (an asyncio task a session fixture created then) is that test's. A thread that
was already running (a session fixture's keep-alive loop, a server started by a fixture)
carries nothing that ties its spans to this test, so they are not credited: they are listed
in ``Window.foreign`` and named in the report. A window's spans also count for the windows it
is nested in (``capture()`` inside a test). Two windows open at once in one process that are
not nested (tests run in threads) cannot be told apart for a span started on a bare thread:
both are marked ``overlapped`` (``trace_overlap``). Nothing is ever written onto the app's
spans.
"""

from __future__ import annotations

import threading
import weakref
from contextvars import ContextVar, Token
from typing import Any

_CURRENT: ContextVar[Window | None] = ContextVar("faithfulness_trace_window", default=None)
_LOCK = threading.Lock()
_OPEN: list[Window] = []  # every open window of the process, in the order they opened
#: At most this many uncredited spans are named per window (the count is always exact).
FOREIGN_SHOWN = 10


class Window:
    """The spans started while a test (or a ``capture()`` block) ran.

    Args:
        name: what it captures for (a test's node id, or ``capture()``).
        parent: the window it is nested in, whose spans it also adds to.
        explicit: a ``capture()`` block: a span started on any thread while it is the
            innermost open window is credited to it (the user bracketed the call).

    Attributes:
        finished: the ended spans (SDK ``ReadableSpan``), in the order they ended.
        started: spans started here and not ended yet, by span id.
        overlapped: a span started on a thread while another, unrelated window was open.
        foreign: ``"<span name>" on thread '<thread name>'`` for the first ``FOREIGN_SHOWN``
            spans not credited (a thread already running, with no context of this window);
            ``foreign_count``: how many there were.
        sources: ``id()`` of the span processor (one per tracer provider) of each span
            credited here (``capture.sampling_problem``).
    """

    def __init__(self, name: str, parent: Window | None = None, *,
                 explicit: bool = False) -> None:
        self.name = name
        self.parent = parent
        self.explicit = explicit
        self.finished: list[Any] = []
        self.started: dict[int, Any] = {}
        self.overlapped: list[str] = []
        self.foreign: list[str] = []
        self.foreign_count = 0
        self.sources: set[int] = set()  # id() of the span processors of the spans' providers
        self._token: Token[Window | None] | None = None
        self._running: weakref.WeakSet[threading.Thread] | None = None
        self.closed = False

    def chain(self) -> list[Window]:
        """This window and the ones it is nested in, innermost first."""
        found: list[Window] = []
        window: Window | None = self
        while window is not None:
            found.append(window)
            window = window.parent
        return found

    def open(self, *, credit_new_threads: bool = True) -> Window:
        """Make this the current window (context variable and process list); returns it.

        Args:
            credit_new_threads: credit spans of threads started from now on (see
                ``credit_new_threads``); ``False`` (a test's setup): no bare thread's span is
                credited until ``credit_new_threads()`` is called (when the test's body starts).
        """
        if credit_new_threads:
            self.credit_new_threads()
        self._token = _CURRENT.set(self)
        with _LOCK:
            _OPEN.append(self)
        return self

    def credit_new_threads(self) -> None:
        """From now on credit spans of threads started after this call (and not those of
        threads already running) when they carry no window of their own."""
        self._running = weakref.WeakSet(threading.enumerate())

    def credits(self, thread: threading.Thread) -> bool:
        """Whether a span started on ``thread`` with no window in its context is this
        window's (the module docstring's rule)."""
        if self.explicit:
            return True
        return self._running is not None and thread not in self._running

    def note_foreign(self, span_name: str, thread: threading.Thread) -> None:
        """Record a span not credited to this window (``foreign``)."""
        self.foreign_count += 1
        if len(self.foreign) < FOREIGN_SHOWN:
            self.foreign.append(f"{span_name!r} on thread {thread.name!r}")

    def close(self) -> None:
        """Stop capturing into this window (spans already started still end into it)."""
        if self.closed:
            return
        self.closed = True
        with _LOCK:
            if self in _OPEN:
                _OPEN.remove(self)
        if self._token is not None:
            try:
                _CURRENT.reset(self._token)
            except ValueError:  # closed from another context: leave that context alone
                _CURRENT.set(self.parent)
            self._token = None

    def __enter__(self) -> Window:
        return self if self._token is not None else self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_part(window: Window) -> list[Window] | None:
    """The still open windows of ``window``'s chain (a ``capture()`` block that closed inside
    a test that is still running gives the test), else ``None``."""
    chain = [w for w in window.chain() if not w.closed]
    return chain or None


def current_window() -> Window | None:
    """The window current in this context, else ``None``."""
    return _CURRENT.get()


class FaithfulnessSpanProcessor:
    """The one span processor added to the app's tracer provider (once per provider).

    It keeps each span in the window current when the span started and passes nothing on;
    the app's own processors and exporters see every span as before. There is no way to
    remove a processor from an SDK provider, so it stays added; between windows it only
    looks at a context variable.

    Attributes:
        shut_down: the provider was shut down (the app's teardown?): nothing is captured after.
    """

    def __init__(self) -> None:
        self.shut_down = False
        self._owner: dict[int, list[Window]] = {}
        self._lock = threading.Lock()

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        """Attribute ``span`` to the current window (see the module docstring)."""
        span_id = span.context.span_id
        window = _CURRENT.get()
        chain = None if window is None else _open_part(window)
        if chain is None:
            chain = self._parent_chain(span)
        if chain is None:
            thread = threading.current_thread()
            with _LOCK:
                if not _OPEN:
                    return
                innermost = _OPEN[-1]
                roots = {id(w.chain()[-1]) for w in _OPEN}
            # a context that carries a window of an earlier test (a task a fixture of wider
            # scope created then) is that test's, never the one open now
            if window is not None or not innermost.credits(thread):
                innermost.note_foreign(str(getattr(span, "name", "?")), thread)
                return
            window = innermost
            if len(roots) > 1:
                for other in list(_OPEN):
                    other.overlapped.append(str(getattr(span, "name", "?")))
            chain = window.chain()
        with self._lock:
            self._owner[span_id] = chain
        source = id(getattr(span, "_span_processor", None))  # which provider made it
        for owner in chain:
            owner.started[span_id] = span
            owner.sources.add(source)

    def _parent_chain(self, span: Any) -> list[Window] | None:
        """The open windows of ``span``'s parent when the parent was credited to one."""
        parent = getattr(span, "parent", None)
        if parent is None:
            return None
        with self._lock:
            chain = self._owner.get(parent.span_id)
        if not chain or chain[0].closed:
            return None
        return chain

    def on_end(self, span: Any) -> None:
        """File the ended span into the windows it started in."""
        span_id = span.context.span_id
        with self._lock:
            chain = self._owner.pop(span_id, None)
        for owner in chain or ():
            owner.started.pop(span_id, None)
            owner.finished.append(span)

    def _on_ending(self, span: Any) -> None:  # newer SDKs call this before on_end
        return None

    def shutdown(self) -> None:
        """The provider shut down."""
        self.shut_down = True

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing is buffered: always ``True``."""
        return True
