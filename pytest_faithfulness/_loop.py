"""One background event loop per process, for judge calls made from synchronous code.

pytest tests are synchronous, async tests run on their own (possibly closed or running)
loops, and async HTTP clients are bound to the loop they were created on. Running every
judge coroutine on one long-lived loop in a daemon thread avoids "This event loop is already
running", "Event loop is closed" and clients shared across loops, whatever the caller is.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed() or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="faithfulness-judge-loop",
                                      daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and block until it returns (or raises)."""
    loop = _get_loop()
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("run_sync called from the judge loop itself; "
                           "await the coroutine instead")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


def close_here_and_on_loop(close: Callable[[], Any]) -> None:
    """Call ``close()`` in this thread and again on the judge loop's thread.

    For diskcache ledgers, which keep one database connection per thread: the calling
    thread's and the judge loop's both need closing. From the judge loop itself only the
    first call is made.
    """
    close()

    async def on_loop() -> None:
        close()

    try:
        run_sync(on_loop())
    except RuntimeError:  # called from the judge loop itself
        pass


async def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the background loop from any other running loop."""
    loop = _get_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:  # pragma: no cover - only called from a coroutine
        running = None
    if running is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))
