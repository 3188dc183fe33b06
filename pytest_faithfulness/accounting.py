"""Token, cost and call accounting for judge calls, and the spending budget.

A ``Usage`` accumulator is bound to the current context (``contextvars``) while one answer is
evaluated; judges and the cache add to whatever accumulator is current, so usage is
attributed per answer even when claims of many answers are verified concurrently (asyncio
tasks and ``asyncio.to_thread`` copy the context). Costs come from litellm's bundled price
map (``litellm.completion_cost``), never fetched over the network.

The spending budget (``Budget``) is one for a whole run: with a ``ledger`` directory, every
process of the run (pytest-xdist workers) adds its spend to the same sqlite counter
(diskcache), so a budget reached on one worker stops new calls on all. ``model_is_priced``
says, before any call, whether litellm's bundled price map knows a model (a budget cannot
apply to a model it cannot price).
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BudgetExceeded as BudgetExceeded  # re-exported: its home before errors.py

if TYPE_CHECKING:  # pragma: no cover - records (pydantic) is not imported at start-up
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


#: Stands in the text of a judge error when the provider or a judge gateway (a litellm proxy)
#: refused the call because a budget or quota of its own is spent (``judges.llm``); the gate
#: names that budget among its reasons (``gate.gate_failures``).
GATEWAY_BUDGET_SPENT = "budget or quota spent at the judge's provider or gateway"


class Budget:
    """A spending limit in US dollars shared by every judge call of a run.

    Args:
        limit_usd: the most to spend; ``None`` for no limit.
        ledger: a directory holding the run's shared spend (a diskcache counter, created if
            missing): every ``Budget`` opened on the same ledger, in any process, shares one
            total. ``None``: the total is this object's own (one process).

    ``check()`` raises ``BudgetExceeded`` once ``spent_usd >= limit_usd``; ``charge(usd)``
    adds a call's cost. A call in flight when the limit is reached still completes, so the
    overshoot is at most the calls in flight at that moment, across all processes.

    Raises:
        ValueError: a negative limit.
    """

    #: the ledger counts integer nano-dollars (diskcache's ``incr`` is atomic across
    #: processes; costs per call are far above a nano-dollar).
    _UNIT = 1e-9
    _COUNTER = "spent_nano_usd"
    _UNPRICED = "unpriced_calls"

    def __init__(self, limit_usd: float | None = None, ledger: str | Path | None = None) -> None:
        if limit_usd is not None and limit_usd < 0:
            raise ValueError(f"budget must be >= 0 USD, got {limit_usd!r}")
        self.limit_usd = limit_usd
        self.refused = 0
        self._spent = 0.0
        self._unpriced = False
        self._lock = threading.Lock()
        self._ledger = None
        if ledger is not None:
            import diskcache

            self._ledger = diskcache.Cache(str(ledger))

    @property
    def spent_usd(self) -> float:
        """US dollars spent so far (by the whole run, with a ledger)."""
        if self._ledger is None:
            return self._spent
        return int(self._ledger.get(self._COUNTER, 0)) * self._UNIT

    def check(self) -> None:
        """Raise ``BudgetExceeded`` when the budget is spent, or when a call's cost could not
        be priced (the budget can no longer be kept, so no further call goes out)."""
        if self.limit_usd is None:
            return
        with self._lock:
            if self._unpriced or (self._ledger is not None and self._ledger.get(self._UNPRICED)):
                self.refused += 1
                raise BudgetExceeded(f"judge budget of ${self.limit_usd:.6f} cannot be kept: "
                                     "a judge call's cost is not in litellm's price map, so "
                                     "no new judge calls")
            spent = self.spent_usd
            if spent >= self.limit_usd:
                self.refused += 1
                raise BudgetExceeded(f"judge budget of ${self.limit_usd:.6f} spent "
                                     f"(${spent:.6f}): no new judge calls")

    def charge_unpriced(self) -> None:
        """Record a call whose cost is unknown. With a limit, every later ``check()`` refuses
        (fail closed: spend that cannot be counted cannot be bounded)."""
        if self.limit_usd is None:
            return
        with self._lock:
            self._unpriced = True
            if self._ledger is not None:
                self._ledger.set(self._UNPRICED, 1)

    def charge(self, usd: float) -> None:
        """Add the cost of one call."""
        with self._lock:
            if self._ledger is None:
                self._spent += usd
            elif usd > 0:
                self._ledger.incr(self._COUNTER, round(usd / self._UNIT), default=0)

    def close(self) -> None:
        """Close the ledger's database connections (diskcache keeps one per thread: this
        thread's and the judge loop's)."""
        if self._ledger is None:
            return
        from . import _loop

        _loop.close_here_and_on_loop(self._ledger.close)


_PRICE_MAP = "model_prices_and_context_window_backup.json"


def model_is_priced(model: str) -> bool:
    """Whether litellm's bundled price map has a price for ``model`` (a litellm model string).

    Looks up ``model`` and, for ``provider/name``, ``name`` (as litellm's cost lookup does),
    in the JSON price map shipped inside the litellm package, found without importing
    litellm; only where that file is missing is litellm imported (with its local map) and
    ``litellm.model_cost`` consulted. A model priced at 0 (a local model) is priced.
    Returns ``False`` when litellm is not installed.
    """
    prices = _bundled_prices()
    names = [model.strip()]
    if "/" in names[0]:
        names.append(names[0].split("/", 1)[1])
    for name in names:
        entry = prices.get(name) if name != "sample_spec" else None
        if isinstance(entry, dict) and ("input_cost_per_token" in entry
                                        or "output_cost_per_token" in entry):
            return True
    return False


@lru_cache(maxsize=1)
def _bundled_prices() -> dict[str, Any]:
    import importlib.util

    spec = importlib.util.find_spec("litellm")  # locates the package, does not import it
    if spec is None:
        return {}
    for location in spec.submodule_search_locations or []:
        path = Path(location) / _PRICE_MAP
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return dict(litellm.model_cost)
