"""Token, cost and call accounting for judge calls, and the spending budget.

A ``Usage`` accumulator is bound to the current context (``contextvars``) while one answer is
evaluated; judges and the cache add to whatever accumulator is current, so usage is
attributed per answer even when claims of many answers are verified concurrently (asyncio
tasks and ``asyncio.to_thread`` copy the context). Costs come from litellm's bundled price
map (``litellm.completion_cost``), never fetched over the network.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .records import Usage

_current: contextvars.ContextVar[Usage | None] = contextvars.ContextVar(
    "faithfulness_usage", default=None)
_lock = threading.Lock()


@contextmanager
def usage_scope(usage: Usage) -> Iterator[Usage]:
    """Bind ``usage`` as the accumulator for judge calls made in this context."""
    token = _current.set(usage)
    try:
        yield usage
    finally:
        _current.reset(token)


def record(**counts: float) -> None:
    """Add counts (field names of ``Usage``) to the current accumulator, if any."""
    usage = _current.get()
    if usage is None:
        return
    with _lock:
        for name, value in counts.items():
            setattr(usage, name, getattr(usage, name) + value)


class BudgetExceeded(RuntimeError):
    """The session's judge budget is spent: no new judge call is made."""


class Budget:
    """A spending limit in US dollars shared by every judge call of a process.

    Args:
        limit_usd: the most to spend; ``None`` for no limit.

    ``check()`` raises ``BudgetExceeded`` once ``spent_usd >= limit_usd``; ``charge(usd)``
    adds a call's cost. A call in flight when the limit is reached still completes, so the
    overshoot is at most the calls in flight at that moment.
    """

    def __init__(self, limit_usd: float | None = None) -> None:
        if limit_usd is not None and limit_usd < 0:
            raise ValueError(f"budget must be >= 0 USD, got {limit_usd!r}")
        self.limit_usd = limit_usd
        self.spent_usd = 0.0
        self.refused = 0
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise ``BudgetExceeded`` when the budget is spent."""
        if self.limit_usd is None:
            return
        with self._lock:
            if self.spent_usd >= self.limit_usd:
                self.refused += 1
                raise BudgetExceeded(f"judge budget of ${self.limit_usd:.6f} spent "
                                     f"(${self.spent_usd:.6f}): no new judge calls")

    def charge(self, usd: float) -> None:
        """Add the cost of one call."""
        with self._lock:
            self.spent_usd += usd
