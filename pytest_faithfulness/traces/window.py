"""Which test a span belongs to: capture windows and the span processor that fills them.

Pure Python (no ``opentelemetry`` import): the processor has the methods an SDK
``TracerProvider`` calls on its span processors (``on_start``, ``on_end``, ``shutdown``,
``force_flush``), so the plugin can start a window for every test without importing the SDK.

A span is attributed to the window current **when it started**: the context variable first
(it follows asyncio tasks), else the innermost window open in the process (threads such as a
``ThreadPoolExecutor``'s do not inherit context variables). A window's spans also count for
the windows it is nested in (``capture()`` inside a test). Two windows open at once in one
process that are not nested (tests run in threads) cannot be told apart for a span started
on a bare thread: both are marked ``overlapped`` (``trace_overlap``). Nothing is ever
written onto the app's spans.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar, Token
from typing import Any

_CURRENT: ContextVar[Window | None] = ContextVar("faithfulness_trace_window", default=None)
_LOCK = threading.Lock()
_OPEN: list[Window] = []  # every open window of the process, in the order they opened


class Window:
    """The spans started while a test (or a ``capture()`` block) ran.

    Args:
        name: what it captures for (a test's node id, or ``capture()``).
        parent: the window it is nested in, whose spans it also adds to.

    Attributes:
        finished: the ended spans (SDK ``ReadableSpan``), in the order they ended.
        started: spans started here and not ended yet, by span id.
        overlapped: a span started on a thread while another, unrelated window was open.
    """

    def __init__(self, name: str, parent: Window | None = None) -> None:
        self.name = name
        self.parent = parent
        self.finished: list[Any] = []
        self.started: dict[int, Any] = {}
        self.overlapped: list[str] = []
        self._token: Token[Window | None] | None = None
        self.closed = False

    def chain(self) -> list[Window]:
        """This window and the ones it is nested in, innermost first."""
        found: list[Window] = []
        window: Window | None = self
        while window is not None:
            found.append(window)
            window = window.parent
        return found

    def open(self) -> Window:
        """Make this the current window (context variable and process list); returns it."""
        self._token = _CURRENT.set(self)
        with _LOCK:
            _OPEN.append(self)
        return self

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
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        window = _CURRENT.get()
        if window is None or window.closed:
            with _LOCK:
                if not _OPEN:
                    return
                window = _OPEN[-1]
                roots = {id(w.chain()[-1]) for w in _OPEN}
            if len(roots) > 1:
                for other in list(_OPEN):
                    other.overlapped.append(str(getattr(span, "name", "?")))
        chain = window.chain()
        span_id = span.context.span_id
        with self._lock:
            self._owner[span_id] = chain
        for owner in chain:
            owner.started[span_id] = span

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
