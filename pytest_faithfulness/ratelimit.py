"""One request and token rate for every process of a run (``--faithfulness-max-rpm`` /
``--faithfulness-max-tpm``): the rate limit of one API key, shared by pytest-xdist workers.

Like the run-wide budget (``accounting.Budget``), the state lives in a diskcache ledger that
every process of the run opens (a temporary folder the plugin creates for the run and removes
at its end: a later run, or a CI machine that restores the verdict cache, starts afresh), so
``-n 8`` keeps to the same rate as one process. Updates are diskcache transactions (sqlite, atomic across processes).

Requests: each request reserves the next free start time, spaced ``60 / max_rpm`` seconds
after the one before (no burst), and waits until then; so between any two requests of the
run the start times are at least that far apart, and the requests in any minute never
exceed ``max_rpm`` (+1 for the one that opens the window).

Tokens: the tokens of a request are known when its reply comes; each reply pushes the time
at which the next request may start by ``tokens * 60 / max_tpm`` seconds (a token debt paid
off at the allowed rate). Over a run the tokens per minute stay at ``max_tpm``, overshooting
by at most the replies in flight.

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
