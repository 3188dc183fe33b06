"""The verdict cache: one diskcache entry per judge call, stored as JSON.

``CachedJudge(judge, directory)`` follows the judge protocol and wraps any judge that has a
``fingerprint()``. Key = SHA-256 of the cache schema version, the judge's fingerprint (kind,
model, endpoint, prompt version and hash, parameters), the operation and its exact inputs
(the answer for ``decompose``; the claim and every passage id, text and title for ``verify``).
Values are JSON (diskcache's ``JSONDisk``): nothing is unpickled from disk. A hit makes no
judge call and so never imports litellm.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Any

from .accounting import record as record_usage
from .records import Decomposition, Passage, Verdict

CACHE_SCHEMA = "pytest-faithfulness-cache-1"

#: Cache modes, after pytest-recording's record modes:
#: ``rw`` reads hits and writes misses; ``replay`` reads only, and a miss is an error (CI with
#: no network and no spend, verdicts committed with the repository); ``refresh`` never reads,
#: calls the judge for everything and overwrites the entries.
CACHE_MODES = ("rw", "replay", "refresh")


class CacheMiss(LookupError):
    """A judge call missed the cache in ``replay`` mode (no judge call is made)."""


class CacheCorruptWarning(UserWarning):
    """The cache directory could not be read and was set aside and rebuilt."""


def cache_key(fingerprint: dict[str, Any], op: str, payload: dict[str, Any]) -> str:
    """The hex SHA-256 key of one judge call (see the module docstring)."""
    blob = json.dumps({"schema": CACHE_SCHEMA, "judge": fingerprint, "op": op, **payload},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def open_cache(directory: str | Path):
    """Open (creating if needed) a JSON diskcache at ``directory``.

    A directory that cannot be opened as a cache is moved aside to ``<dir>.corrupt-N`` with a
    ``CacheCorruptWarning`` and a fresh cache is created in its place.
    """
    import diskcache

    directory = Path(directory)
    try:
        cache = diskcache.Cache(str(directory), disk=diskcache.JSONDisk)
        cache.get("__probe__")
        return cache
    except (sqlite3.DatabaseError, OSError, ValueError) as exc:
        n = 1
        while directory.with_name(f"{directory.name}.corrupt-{n}").exists():
            n += 1
        aside = directory.with_name(f"{directory.name}.corrupt-{n}")
        shutil.move(str(directory), str(aside))
        warnings.warn(f"faithfulness cache at {directory} is unreadable ({exc}); moved to "
                      f"{aside} and rebuilt", CacheCorruptWarning, stacklevel=2)
        return diskcache.Cache(str(directory), disk=diskcache.JSONDisk)


class CachedJudge:
    """A judge wrapped in the disk cache (follows the judge protocol).

    Args:
        judge: the judge to wrap; it must have ``fingerprint() -> dict``.
        directory: the cache directory (created if missing).
        mode: ``"rw"`` (default), ``"replay"`` or ``"refresh"`` (see ``CACHE_MODES``).

    Attributes:
        hits / misses: judge calls served from the cache / passed to the wrapped judge.

    Raises:
        TypeError: the judge has no ``fingerprint()`` (its verdicts could not be keyed safely).
        ValueError: unknown ``mode``.
        CacheMiss: (from a call) a miss in ``replay`` mode.
    """

    cacheable = True
    accounts_usage = True

    def __init__(self, judge: Any, directory: str | Path, mode: str = "rw") -> None:
        fingerprint = getattr(judge, "fingerprint", None)
        if not callable(fingerprint):
            raise TypeError(f"{type(judge).__name__} has no fingerprint(): cannot key its cache")
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode must be one of {', '.join(CACHE_MODES)}, got {mode!r}")
        self.mode = mode
        self.judge = judge
        self.directory = Path(directory)
        self._fingerprint = fingerprint()
        self._cache = open_cache(self.directory)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def context_budget_chars(self) -> int | None:
        """The wrapped judge's budget."""
        return getattr(self.judge, "context_budget_chars", None)

    def fingerprint(self) -> dict[str, Any]:
        """The wrapped judge's fingerprint."""
        return self._fingerprint

    def describe(self) -> str:
        """The wrapped judge's description, with the cache directory."""
        from .judges import judge_description

        return f"{judge_description(self.judge)}; cache {self.directory}"

    def close(self) -> None:
        """Close the cache's database connections."""
        self._cache.close()

    # protocol -------------------------------------------------------------------------------
    def decompose(self, answer: str) -> Decomposition:
        """Cached ``decompose``."""
        key = self._key("decompose", {"answer": answer})
        hit = self._get(key, Decomposition, "decompose")
        if hit is not None:
            return hit
        value = _to_decomposition(self.judge.decompose(answer))
        self._put(key, value)
        return value

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Cached ``verify``."""
        key = self._key("verify", _verify_payload(claim, passages))
        hit = self._get(key, Verdict, "verify")
        if hit is not None:
            return hit
        value = self.judge.verify(claim, passages)
        self._put(key, value)
        return value

    async def adecompose(self, answer: str) -> Decomposition:
        """Cached ``adecompose`` (falls back to the wrapped judge's sync method in a thread)."""
        key = self._key("decompose", {"answer": answer})
        hit = self._get(key, Decomposition, "decompose")
        if hit is not None:
            return hit
        from .pipeline import _call

        value = _to_decomposition(await _call(self.judge, "decompose", answer))
        self._put(key, value)
        return value

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Cached ``averify`` (falls back to the wrapped judge's sync method in a thread)."""
        key = self._key("verify", _verify_payload(claim, passages))
        hit = self._get(key, Verdict, "verify")
        if hit is not None:
            return hit
        from .pipeline import _as_verdict, _call

        value = _as_verdict(await _call(self.judge, "verify", claim, passages))
        self._put(key, value)
        return value

    # internals ------------------------------------------------------------------------------
    def _key(self, op: str, payload: dict[str, Any]) -> str:
        return cache_key(self._fingerprint, op, payload)

    def _get(self, key: str, model, op: str):
        if self.mode == "refresh":
            with self._lock:
                self.misses += 1
            return None
        try:
            raw = self._cache.get(key)
        except (sqlite3.DatabaseError, OSError, ValueError, json.JSONDecodeError) as exc:
            warnings.warn(f"faithfulness cache read failed ({exc}); calling the judge",
                          CacheCorruptWarning, stacklevel=3)
            raw = None
        if raw is not None:
            try:
                value = model.model_validate(raw)
            except Exception:
                value = None  # a stale or garbled entry is a miss, never served
            if value is not None:
                with self._lock:
                    self.hits += 1
                record_usage(cache_hits=1)
                return value
        with self._lock:
            self.misses += 1
        if self.mode == "replay":
            raise CacheMiss(f"{op}: no cached verdict in replay mode (cache {self.directory}); "
                            "record it first with --faithfulness-cache-mode rw")
        return None

    def _put(self, key: str, value) -> None:
        try:
            self._cache.set(key, value.model_dump(mode="json"))
        except (sqlite3.DatabaseError, OSError) as exc:
            warnings.warn(f"faithfulness cache write failed ({exc})", CacheCorruptWarning,
                          stacklevel=3)


def _verify_payload(claim: str, passages: list[Passage]) -> dict[str, Any]:
    return {"claim": claim, "passages": [[p.id, p.text] if p.title is None
                                         else [p.id, p.text, p.title] for p in passages]}


def _to_decomposition(value: Any) -> Decomposition:
    from .pipeline import _as_decomposition

    return _as_decomposition(value)
