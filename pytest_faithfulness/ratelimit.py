"""One request and token rate for every process of a run (``--faithfulness-max-rpm`` /
``--faithfulness-max-tpm``): the rate limit of one API key, shared by pytest-xdist workers.

Like the run-wide budget (``accounting.Budget``), the state lives in a diskcache ledger that
every process of the run opens (a temporary folder the plugin creates for the run and removes
at its end: a later run, or a CI machine that restores the verdict cache, starts afresh), so
``-n 8`` keeps to the same rate as one process. Updates are diskcache transactions (sqlite,
atomic across processes).

Requests: each request reserves the next free start time, spaced ``60 / max_rpm`` seconds
after the one before (no burst), and waits until then; so between any two requests of the
run the start times are at least that far apart, and the requests in any minute never
exceed ``max_rpm`` (+1 for the one that opens the window).

Tokens: the tokens of a request are known when its reply comes; each reply pushes the time
at which the next request may start by ``tokens * 60 / max_tpm`` seconds (a token debt paid
off at the allowed rate). Over a run the tokens per minute stay at ``max_tpm``, overshooting
by at most the replies in flight.

Waits on "limit reached" answers (HTTP 429): ``RateLimitWait`` is one budget of seconds for
the whole run (default 120 s of waiting with no judge call answered in between), on a ledger
of its own shared the same way, after which each call answered 429 fails at once and the
gate names it.

The clock is ``time.time()`` (shared by the processes of one machine). Nothing here imports
pytest or litellm.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

#: A name for the ledger's folder (the plugin uses a temporary folder of its own per run).
LEDGER_DIR = "rate-ledger"
_NEXT_REQUEST = "next_request_at"
_TOKENS_FREE = "tokens_free_at"


class RateLimiter:
    """A shared request and token rate.

    Args:
        max_rpm: most requests per minute (``None``: no limit); must be > 0.
        max_tpm: most tokens (input + output) per minute (``None``: no limit); > 0.
        ledger: the folder of the shared state (created if missing); ``None``: this object's
            own state (one process).

    Raises:
        ValueError: a limit that is not a positive number.
    """

    def __init__(self, max_rpm: float | None = None, max_tpm: float | None = None,
                 ledger: str | Path | None = None) -> None:
        for name, value in (("max_rpm", max_rpm), ("max_tpm", max_tpm)):
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be a number > 0, got {value!r}")
        self.max_rpm = max_rpm
        self.max_tpm = max_tpm
        self.waited_s = 0.0  # seconds this process waited for the rate
        self._lock = threading.Lock()
        self._local: dict[str, float] = {}
        self._ledger: Any = None
        if ledger is not None and self.active:
            import diskcache

            Path(ledger).mkdir(parents=True, exist_ok=True)
            self._ledger = diskcache.Cache(str(ledger))

    @property
    def active(self) -> bool:
        """Whether any limit is set."""
        return self.max_rpm is not None or self.max_tpm is not None

    def _get(self, key: str) -> float:
        if self._ledger is None:
            return self._local.get(key, 0.0)
        return float(self._ledger.get(key, 0.0))

    def _set(self, key: str, value: float) -> None:
        if self._ledger is None:
            self._local[key] = value
        else:
            self._ledger.set(key, value)

    def _transact(self) -> Any:
        if self._ledger is None:
            return self._lock
        return _Both(self._lock, self._ledger.transact())

    def reserve(self, now: float | None = None) -> float:
        """Reserve the next request's start time (``time.time()`` seconds); returns it. The
        caller waits until then (``acquire`` / ``aacquire`` do)."""
        if not self.active:
            return time.time() if now is None else now
        with self._transact():
            now = time.time() if now is None else now
            start = max(now, self._get(_NEXT_REQUEST), self._get(_TOKENS_FREE))
            if self.max_rpm is not None:
                self._set(_NEXT_REQUEST, start + 60.0 / self.max_rpm)
            return start

    def acquire(self) -> float:
        """Wait (blocking) until a request may go out; returns the seconds waited."""
        wait = max(0.0, self.reserve() - time.time())
        if wait:
            time.sleep(wait)
            self.waited_s += wait
        return wait

    async def aacquire(self) -> float:
        """Wait (without blocking the event loop) until a request may go out; returns the
        seconds waited."""
        wait = max(0.0, self.reserve() - time.time())
        if wait:
            await asyncio.sleep(wait)
            self.waited_s += wait
        return wait

    def charge_tokens(self, tokens: int, now: float | None = None) -> None:
        """Count a reply's tokens (input + output) against ``max_tpm``."""
        if self.max_tpm is None or tokens <= 0:
            return
        with self._transact():
            now = time.time() if now is None else now
            free = max(now, self._get(_TOKENS_FREE))
            self._set(_TOKENS_FREE, free + tokens * 60.0 / self.max_tpm)

    def close(self) -> None:
        """Close the ledger's database connection (this thread's)."""
        if self._ledger is not None:
            self._ledger.close()


class _Both:
    """Two context managers as one (a thread lock, then the ledger's transaction)."""

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second

    def __enter__(self) -> None:
        self.first.__enter__()
        try:
            self.second.__enter__()
        except BaseException:
            self.first.__exit__(None, None, None)
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            self.second.__exit__(*exc)
        finally:
            self.first.__exit__(*exc)


#: Seconds a whole run may spend waiting out "limit reached" answers by default
#: (``--faithfulness-max-rate-limit-wait``, ini ``faithfulness_max_rate_limit_wait``).
DEFAULT_RUN_WAIT_S = 120.0
#: Stands in the text of a judge error once the run's wait budget is spent; the gate names
#: it among its reasons (``gate.gate_failures``).
RATE_LIMIT_WAIT_SPENT = "the run's wait budget for rate-limited judge calls is spent"
_WAITED_UNTIL = "rate_limit_waited_until"
_WAITED_TOTAL = "rate_limit_waited_total"


class RateLimitWait:
    """One budget of seconds for a whole run to spend waiting out "limit reached" answers
    (HTTP 429 from the provider or a judge gateway), shared by every judge call of every
    process on the same ``ledger`` (pytest-xdist workers), like ``RateLimiter``.

    What is counted is the run's time held by such waits since a judge call of the run was
    last answered (``answered``), not the sum over calls: calls waiting side by side count
    once (the union of their waits, in ``time.time()`` seconds; each wait is charged when it
    starts, so its interval extends the union by at most its length). A provider that keeps
    serving the run now and then (a rate limit below the run's demand, waited out call
    after call) therefore never spends it; one that answers nothing but 429 does, after
    ``limit_s``. Once it is used up, ``spent`` is true and ``grant`` gives nothing: the judge
    then fails each call answered 429 at once (``RATE_LIMIT_WAIT_SPENT`` in its error)
    rather than holding the run for minutes per answer.

    Args:
        limit_s: the most seconds (``>= 0``; 0: never wait on a 429). Default 120.
        ledger: the folder of the shared state (created if missing); ``None``: this object's
            own state (one process; a ``LiteLLMJudge`` made without one has its own).

    Raises:
        ValueError: a limit that is not a finite number >= 0.
    """

    def __init__(self, limit_s: float = DEFAULT_RUN_WAIT_S,
                 ledger: str | Path | None = None) -> None:
        if (isinstance(limit_s, bool) or not isinstance(limit_s, (int, float))
                or not 0 <= limit_s < float("inf")):
            raise ValueError(f"the run's rate-limit wait must be a finite number of seconds "
                             f">= 0, got {limit_s!r}")
        self.limit_s = float(limit_s)
        self._lock = threading.Lock()
        self._local: dict[str, float] = {}
        self._folder = None if ledger is None else str(ledger)
        self._ledger: Any = None  # opened on first use: a run with no 429 never opens it

    def _db(self) -> Any:
        if self._folder is not None and self._ledger is None:
            import diskcache

            Path(self._folder).mkdir(parents=True, exist_ok=True)
            self._ledger = diskcache.Cache(self._folder)
        return self._ledger

    def _get(self, key: str) -> float:
        db = self._db()
        return self._local.get(key, 0.0) if db is None else float(db.get(key, 0.0))

    def _set(self, key: str, value: float) -> None:
        db = self._db()
        if db is None:
            self._local[key] = value
        else:
            db.set(key, value)

    def _transact(self) -> Any:
        db = self._db()
        return self._lock if db is None else _Both(self._lock, db.transact())

    @property
    def waited_s(self) -> float:
        """Seconds of the run held by rate-limit waits so far (every process on the ledger)."""
        return self._get(_WAITED_TOTAL)

    @property
    def spent(self) -> bool:
        """Whether the budget is used up (every remaining call then fails at once)."""
        return self.waited_s >= self.limit_s

    def grant(self, delay: float, now: float | None = None) -> float:
        """Charge a wait of ``delay`` seconds starting now; returns the seconds the caller may
        wait (``delay``, less where the budget runs out; 0 once it is spent)."""
        if delay <= 0:
            return 0.0
        with self._transact():
            now = time.time() if now is None else now
            total = self._get(_WAITED_TOTAL)
            remaining = self.limit_s - total
            if remaining <= 0:
                return 0.0
            start = max(now, self._get(_WAITED_UNTIL))  # the part not held already
            added = max(0.0, now + delay - start)
            if added > remaining:
                delay, added = start + remaining - now, remaining
            self._set(_WAITED_TOTAL, total + added)
            self._set(_WAITED_UNTIL, max(start, now + delay))
            return delay

    def answered(self) -> None:
        """A judge call of the run was answered: the provider is serving the run, so the
        waits so far no longer count."""
        if self._get(_WAITED_TOTAL) <= 0:  # the common case: one read, no transaction
            return
        with self._transact():
            self._set(_WAITED_TOTAL, 0.0)

    def close(self) -> None:
        """Close the ledger's database connections (this thread's and the judge loop's)."""
        if self._ledger is not None:
            from . import _loop

            _loop.close_here_and_on_loop(self._ledger.close)
