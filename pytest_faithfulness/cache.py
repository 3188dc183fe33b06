"""The verdict cache: one diskcache entry per judge call, stored as JSON.

``CachedJudge(judge, directory)`` follows the judge protocol and wraps any judge that has a
``fingerprint()``. Key = SHA-256 of the cache schema version, the judge's fingerprint (kind,
model, endpoint, prompt version and hash, parameters), the operation and its exact inputs
(the answer for ``decompose``; the claim and every passage id, text and title for ``verify``).
Values are JSON (diskcache's ``JSONDisk``): nothing is unpickled from disk. A hit makes no
judge call and so never imports litellm.

Trust: nothing read from the cache is believed without a check.

* Every entry is validated as a ``Verdict`` / ``Decomposition`` on read; one that does not
  validate is a miss (an error in ``replay`` mode), counted in ``invalid``.
* A cached verdict goes through the same check as a fresh one (the pipeline's
  ``trust.quote_check.check_verdict``: the cited passage ids must exist and the quote must occur
  in them), because ``CachedJudge`` is a judge like any other.
* With a signing key (``signing_key=`` or the ``FAITHFULNESS_CACHE_KEY`` environment
  variable) every entry written is signed: HMAC-SHA-256 under the key over the canonical JSON
  of the entry's cache key and its value, so an entry can neither be edited nor moved to
  another key. An unsigned or mis-signed entry is then a miss (an error in ``replay`` mode),
  counted in ``rejected``. The key itself is never written anywhere (not in the fingerprint,
  the description, an entry or a message). Without a key, whoever can write the cache
  directory decides the verdicts it serves, as whoever can write the tests decides them.

Only a cache that is really corrupt (sqlite: "file is not a database", "database disk image
is malformed") is moved aside. A cache that cannot be written (another user's directory, a
read-only mount) is opened read-only: hits are served, ``replay`` works, nothing is renamed,
and the first write that cannot happen is reported once (``CacheReadOnlyWarning``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .accounting import record as record_usage
from .checkmemo import CheckMemo, memo_key

# defined in errors.py; importable from here as before
from .errors import (
    CacheCorruptWarning,
    CacheIntegrityWarning,
    CacheMiss,
    CacheReadOnlyWarning,
    CacheRejected,
)
from .records import Decomposition, Passage, Verdict

if TYPE_CHECKING:  # pragma: no cover - the judges package loads only when a judge is used
    from .judges.protocol import Judge

CACHE_SCHEMA = "pytest-faithfulness-cache-1"

#: The environment variable that holds the cache signing key (any non-empty string).
CACHE_KEY_ENV = "FAITHFULNESS_CACHE_KEY"

#: Cache modes, after pytest-recording's record modes:
#: ``rw`` reads hits and writes misses; ``replay`` reads only, and a miss is an error (CI with
#: no network and no spend, verdicts committed with the repository); ``refresh`` never reads,
#: calls the judge for everything and overwrites the entries.
CACHE_MODES = ("rw", "replay", "refresh")

#: A signed entry is ``{SIGNED_FIELD: <value>, SIGNATURE_FIELD: <hex HMAC-SHA-256>}``
#: (``sign_entry``); ``cachemerge`` reads entries the same way.
SIGNED_FIELD = "signed"
SIGNATURE_FIELD = "hmac-sha256"
#: diskcache's database file in a cache directory.
DBNAME = "cache.db"


def cache_key(fingerprint: dict[str, Any], op: str, payload: dict[str, Any]) -> str:
    """The hex SHA-256 key of one judge call (see the module docstring)."""
    return hashlib.sha256(_canonical({"schema": CACHE_SCHEMA, "judge": fingerprint, "op": op,
                                      **payload})).hexdigest()


def sign_entry(signing_key: bytes, key: str, value: Any) -> str:
    """The hex HMAC-SHA-256 of one cache entry: under ``signing_key``, over the canonical
    JSON (sorted keys, no spaces, UTF-8) of ``{"key": key, "value": value}``."""
    return hmac.new(signing_key, _canonical({"key": key, "value": value}),
                    hashlib.sha256).hexdigest()


def signing_key_from_env() -> bytes | None:
    """The signing key from ``FAITHFULNESS_CACHE_KEY`` as UTF-8 bytes; ``None`` when the
    variable is unset or empty."""
    value = os.environ.get(CACHE_KEY_ENV, "")
    return value.encode("utf-8") if value else None


def _canonical(value: Any) -> bytes:
    # surrogatepass: a lone surrogate (text that is not valid Unicode, kept as it was given)
    # has bytes of its own, so any text can be keyed and signed; valid text is plain UTF-8
    return json.dumps(value, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8", errors="surrogatepass")


def open_cache(directory: str | Path, *, read_only: bool = False):
    """Open (creating if needed) a JSON diskcache at ``directory``.

    With ``read_only`` (replay mode) nothing on disk is created or changed, not even
    diskcache's settings rows: an existing cache is read through ``ReadOnlyCache``; a missing
    or unreadable one is an ``UnavailableCache`` (every read misses).

    Returns:
        a ``diskcache.Cache``; a ``ReadOnlyCache`` when the directory holds a cache that this
        process may read but not write; an ``UnavailableCache`` (every read misses, every
        write fails) when there is no cache and none can be created, or a corrupt one cannot
        be moved aside.

    Only corruption (sqlite's "file is not a database", "database disk image is malformed")
    moves the directory aside, to ``<dir>.corrupt-N``, with a ``CacheCorruptWarning``; a fresh
    cache is then created in its place. Permission errors are never taken for corruption.
    """
    import diskcache

    directory = Path(directory)
    if read_only:
        if not (directory / DBNAME).is_file():
            return UnavailableCache(directory, "no cache has been recorded there")
        try:
            return ReadOnlyCache(directory, "replay mode reads only")
        except (sqlite3.DatabaseError, OSError) as exc:
            warnings.warn(f"faithfulness cache at {directory} is unreadable ({exc}); replay "
                          "mode leaves it as it is and reads nothing from it",
                          CacheCorruptWarning, stacklevel=2)
            return UnavailableCache(directory, f"not readable: {type(exc).__name__}: {exc}")
    try:
        cache = diskcache.Cache(str(directory), disk=diskcache.JSONDisk)
        cache.get("__probe__")
        return cache
    except (sqlite3.DatabaseError, OSError, ValueError) as exc:
        problem = exc
    if not _is_corruption(problem):  # cannot write here: read what is there, if anything
        reason = f"{type(problem).__name__}: {problem}"
        if not (directory / DBNAME).is_file():
            return UnavailableCache(directory, reason)
        try:
            return ReadOnlyCache(directory, reason)
        except (sqlite3.DatabaseError, OSError) as exc:
            if not _is_corruption(exc):
                return UnavailableCache(directory, f"{reason}; not readable either: {exc}")
            problem = exc
    n = 1
    while directory.with_name(f"{directory.name}.corrupt-{n}").exists():
        n += 1
    aside = directory.with_name(f"{directory.name}.corrupt-{n}")
    try:
        shutil.move(str(directory), str(aside))
    except OSError as exc:
        warnings.warn(f"faithfulness cache at {directory} is unreadable ({problem}) and cannot "
                      f"be moved aside ({exc}): it is not used", CacheCorruptWarning, stacklevel=2)
        return UnavailableCache(directory, f"unreadable ({problem})")
    warnings.warn(f"faithfulness cache at {directory} is unreadable ({problem}); moved to "
                  f"{aside} and rebuilt", CacheCorruptWarning, stacklevel=2)
    return diskcache.Cache(str(directory), disk=diskcache.JSONDisk)


def _is_corruption(exc: BaseException) -> bool:
    """sqlite's NOTADB / CORRUPT (a plain ``DatabaseError``); ``OperationalError`` (read-only,
    cannot open, locked) and ``OSError`` (permissions) are not corruption."""
    name = getattr(exc, "sqlite_errorname", None)  # Python 3.11+
    if name is not None:
        return name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT"))
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)


def _connect_read_only(db: Path) -> sqlite3.Connection:
    """A read-only sqlite connection: ``mode=ro``, else ``immutable=1`` (a WAL database in
    a directory where sqlite cannot create its ``-shm`` file opens only that way)."""
    last: sqlite3.Error | None = None
    for flag in ("mode=ro", "immutable=1"):
        try:
            con = sqlite3.connect(f"{db.resolve().as_uri()}?{flag}", uri=True,
                                  check_same_thread=False)
            con.execute("SELECT count(*) FROM Settings").fetchone()
            return con
        except sqlite3.OperationalError as exc:
            last = exc
    assert last is not None
    raise last


class ReadOnlyCache:
    """A diskcache directory read without writing anything (for a cache this process may
    not write: another user's, a read-only mount).

    Reads the diskcache schema through sqlite's read-only modes and decodes keys and values
    with diskcache's own ``JSONDisk``. ``get`` is ``diskcache.Cache.get``; ``set`` raises
    ``PermissionError`` naming why the cache is read-only (``reason``).

    Raises:
        sqlite3.DatabaseError: the database cannot be read (corrupt, or not a diskcache).
    """

    def __init__(self, directory: str | Path, reason: str) -> None:
        import diskcache

        self.directory = Path(directory)
        self.reason = reason
        self._lock = threading.Lock()
        self._con = _connect_read_only(self.directory / DBNAME)
        settings = dict(self._con.execute("SELECT key, value FROM Settings").fetchall())
        self._disk = diskcache.JSONDisk(str(self.directory), **{
            name[len("disk_"):]: value for name, value in settings.items()
            if name.startswith("disk_")})

    def get(self, key: Any, default: Any = None) -> Any:
        """The value stored under ``key``, or ``default``."""
        db_key, raw = self._disk.put(key)
        with self._lock:
            row = self._con.execute(
                "SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = ?"
                " AND (expire_time IS NULL OR expire_time > ?)",
                (db_key, raw, time.time())).fetchone()
        if row is None:
            return default
        mode, filename, value = row
        return self._disk.fetch(mode, filename, value, False)

    def items(self) -> list[tuple[Any, Any]]:
        """Every unexpired ``(key, value)`` stored, in insertion order, decoded as ``get``
        does (``cache merge`` reads its sources this way, never writing to them).

        Raises:
            sqlite3.DatabaseError / OSError / ValueError: the database or a value file
            cannot be read or decoded.
        """
        with self._lock:
            rows = self._con.execute(
                "SELECT key, raw, mode, filename, value FROM Cache"
                " WHERE expire_time IS NULL OR expire_time > ? ORDER BY rowid",
                (time.time(),)).fetchall()
        return [(self._disk.get(key, raw), self._disk.fetch(mode, filename, value, False))
                for key, raw, mode, filename, value in rows]

    def set(self, key: Any, value: Any, **_: Any) -> bool:
        """Always raises ``PermissionError``: this cache is read-only."""
        raise PermissionError(f"read-only ({self.reason})")

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._con.close()


class UnavailableCache:
    """No cache: every read misses, every write raises ``PermissionError`` (the cache
    directory cannot be created, or it is corrupt and cannot be moved aside)."""

    def __init__(self, directory: str | Path, reason: str) -> None:
        self.directory = Path(directory)
        self.reason = reason

    def get(self, key: Any, default: Any = None) -> Any:
        """Always ``default``."""
        return default

    def set(self, key: Any, value: Any, **_: Any) -> bool:
        """Always raises ``PermissionError``."""
        raise PermissionError(f"unavailable ({self.reason})")

    def close(self) -> None:
        """Nothing to close."""


class CachedJudge:
    """A judge wrapped in the disk cache (follows the judge protocol).

    Args:
        judge: the judge to wrap; it must have ``fingerprint() -> dict``.
        directory: the cache directory (created if missing).
        mode: ``"rw"`` (default), ``"replay"`` or ``"refresh"`` (see ``CACHE_MODES``).
        signing_key: sign entries on write and refuse unsigned or mis-signed ones on read
            (bytes or a string, used as UTF-8). Default: ``FAITHFULNESS_CACHE_KEY`` from the
            environment; no signing when that is unset or empty.

    Attributes:
        hits / misses: judge calls served from the cache / passed to the wrapped judge.
        rejected: entries refused because they are unsigned or their signature does not
            match (only with a signing key).
        invalid: entries refused because they are not a valid ``Verdict`` / ``Decomposition``.
        unsaved: verdicts that could not be written (a read-only or unavailable cache, a full
            disk); the first such failure warns once (``CacheReadOnlyWarning``).
        signed: whether a signing key is in use.

    Raises:
        TypeError: the judge has no ``fingerprint()`` (its verdicts could not be keyed safely).
        ValueError: unknown ``mode``.
        CacheMiss: (from a call) a miss in ``replay`` mode; ``CacheRejected`` when an entry
            exists but is refused.
    """

    cacheable = True
    accounts_usage = True

    def __init__(self, judge: Judge, directory: str | Path, mode: str = "rw", *,
                 signing_key: bytes | str | None = None) -> None:
        from .judges.protocol import fingerprint_of

        fingerprint = fingerprint_of(judge)
        if fingerprint is None:
            raise TypeError(f"{type(judge).__name__} has no fingerprint(): cannot key its cache")
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode must be one of {', '.join(CACHE_MODES)}, got {mode!r}")
        if isinstance(signing_key, str):
            signing_key = signing_key.encode("utf-8")
        self._signing_key: bytes | None = signing_key or signing_key_from_env()
        self.mode = mode
        self.judge = judge
        self.directory = Path(directory)
        self._fingerprint: dict[str, Any] = fingerprint
        self._cache = open_cache(self.directory, read_only=mode == "replay")
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.rejected = 0
        self.invalid = 0
        self.unsaved = 0
        self._write_problem: str | None = None
        self._vote_views: dict[int, CachedJudge] = {}
        key = memo_key(self._signing_key)
        #: the signed memo of the checks of what this cache serves (``checkmemo``); ``None``
        #: when no memo key can be had
        self.check_memo: CheckMemo | None = CheckMemo(
            self.directory, key, read_only=mode == "replay") if key else None

    def __repr__(self) -> str:  # never shows the signing key
        return f"CachedJudge({self.judge!r}, {str(self.directory)!r}, mode={self.mode!r}, " \
               f"signed={self.signed})"

    @property
    def signed(self) -> bool:
        """Whether entries are signed and checked (a signing key is in use)."""
        return self._signing_key is not None

    @property
    def read_only(self) -> str | None:
        """Why the cache cannot be written (``None`` when it can, as far as is known)."""
        return getattr(self._cache, "reason", None) or self._write_problem

    @property
    def context_budget_chars(self) -> int | None:
        """The wrapped judge's budget."""
        from .judges.protocol import context_budget_of

        return context_budget_of(self.judge)

    @property
    def coverage(self) -> Any:
        """The wrapped judge's coverage declaration (``None`` when it declares none)."""
        return getattr(self.judge, "coverage", None)

    def fingerprint(self) -> dict[str, Any]:
        """The wrapped judge's fingerprint."""
        return self._fingerprint

    def describe(self) -> str:
        """The wrapped judge's description, with the cache directory."""
        from .judges.protocol import judge_description

        signed = ", signed entries" if self.signed else ""
        return f"{judge_description(self.judge)}; cache {self.directory}{signed}"

    def for_vote(self, vote: int) -> CachedJudge:
        """This cache for vote ``vote`` (2, 3, ...) of a claim (``judges.votes``): the wrapped
        judge's vote variant (its ``for_vote``, when it has one) over the same cache
        directory, keyed with the vote number in the fingerprint, so that every vote is its
        own entry. Entries are checked and signed as any other; the view's refusals are
        counted in this cache's ``integrity_lines``. One view per vote number."""
        import copy

        with self._lock:
            view = self._vote_views.get(vote)
            if view is None:
                from .judges.protocol import fingerprint_of, vote_variant

                view = copy.copy(self)
                view.judge = vote_variant(self.judge, vote)
                inner = fingerprint_of(view.judge)
                view._fingerprint = {**(inner if inner is not None else self._fingerprint),
                                     "vote": vote}
                view._lock = threading.Lock()
                view._vote_views = {}
                view.hits = view.misses = view.rejected = view.invalid = view.unsaved = 0
                self._vote_views[vote] = view
        return view

    def _count(self, name: str) -> int:
        return getattr(self, name) + sum(v._count(name) for v in self._vote_views.values())

    def integrity_lines(self) -> list[str]:
        """Short lines for the session report: entries refused and verdicts not saved
        (empty when there is nothing to report), the vote views' included."""
        lines = []
        rejected, invalid, unsaved = (self._count(n) for n in ("rejected", "invalid", "unsaved"))
        if rejected:
            lines.append(f"cache: {rejected} entr{'y' if rejected == 1 else 'ies'} "
                         f"refused: unsigned or signature mismatch ({CACHE_KEY_ENV} is set)")
        if invalid:
            lines.append(f"cache: {invalid} entr{'y' if invalid == 1 else 'ies'} "
                         "refused: not a valid record")
        if unsaved:
            lines.append(f"cache: {unsaved} new verdict(s) not saved: {self.read_only}")
        return lines

    def close(self) -> None:
        """Close the cache's database connections; warn once (``CacheIntegrityWarning``)
        when entries were refused."""
        self._cache.close()
        _close_on_judge_loop(self._cache)
        if self.check_memo is not None:
            self.check_memo.close()  # one connection, any thread
        refused = [line for line in self.integrity_lines() if "refused" in line]
        if refused:
            warnings.warn(f"faithfulness cache at {self.directory}: " + "; ".join(refused),
                          CacheIntegrityWarning, stacklevel=2)

    # protocol -------------------------------------------------------------------------------
    def decompose(self, answer: str) -> Decomposition:
        """Cached ``decompose``."""
        key = self._key("decompose", {"answer": answer})
        hit = self._get(key, Decomposition, "decompose")
        if hit is not None:
            return hit
        from .judges.protocol import as_decomposition

        value = as_decomposition(self.judge.decompose(answer))
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
        from .judges.protocol import as_decomposition, call_judge

        value = as_decomposition(await call_judge(self.judge, "decompose", answer))
        self._put(key, value)
        return value

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Cached ``averify`` (falls back to the wrapped judge's sync method in a thread)."""
        key = self._key("verify", _verify_payload(claim, passages))
        hit = self._get(key, Verdict, "verify")
        if hit is not None:
            return hit
        from .judges.protocol import as_verdict, call_judge

        value = as_verdict(await call_judge(self.judge, "verify", claim, passages))
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
        except (sqlite3.DatabaseError, OSError, ValueError) as exc:
            warnings.warn(f"faithfulness cache read failed ({exc}); calling the judge",
                          CacheCorruptWarning, stacklevel=3)
            raw = None
        refusal = None
        if raw is not None:
            value, refusal = self._unseal(key, raw, model)
            if value is not None:
                with self._lock:
                    self.hits += 1
                record_usage(cache_hits=1)
                return value
        with self._lock:
            self.misses += 1
        if self.mode == "replay":
            if refusal is not None:
                raise CacheRejected(f"{op}: the cached entry is refused in replay mode: "
                                    f"{refusal} (cache {self.directory}); record it again with "
                                    "--faithfulness-cache-mode rw (or refresh)")
            unusable = f", which cannot be used: {self._cache.reason}" \
                if isinstance(self._cache, UnavailableCache) else ""
            raise CacheMiss(f"{op}: no cached verdict in replay mode (cache {self.directory}"
                            f"{unusable}); record it first with --faithfulness-cache-mode rw "
                            "(fills misses) or refresh (judges everything again)")
        return None

    def _unseal(self, key: str, raw: Any, model) -> tuple[Any, str | None]:
        """``(value, None)`` for an entry that checks out, else ``(None, why it is refused)``;
        counts the refusal."""
        signed = isinstance(raw, dict) and set(raw) == {SIGNED_FIELD, SIGNATURE_FIELD}
        if self._signing_key is not None:
            signature = raw.get(SIGNATURE_FIELD) if signed else None
            expected = sign_entry(self._signing_key, key, raw[SIGNED_FIELD]) if signed else ""
            if not (isinstance(signature, str) and hmac.compare_digest(signature, expected)):
                with self._lock:
                    self.rejected += 1
                why = "its signature does not match" if signed else "it is not signed"
                return None, f"{why} ({CACHE_KEY_ENV} is set)"
        try:
            return model.model_validate(raw[SIGNED_FIELD] if signed else raw), None
        except Exception:  # a stale or garbled entry is refused, never served
            with self._lock:
                self.invalid += 1
            return None, f"it is not a valid {model.__name__}"

    def _put(self, key: str, value) -> None:
        data = value.model_dump(mode="json")
        if self._signing_key is not None:
            data = {SIGNED_FIELD: data, SIGNATURE_FIELD: sign_entry(self._signing_key, key, data)}
        try:
            self._cache.set(key, data)
        except (sqlite3.DatabaseError, OSError) as exc:
            with self._lock:
                self.unsaved += 1
                first = self._write_problem is None
                if first:
                    self._write_problem = getattr(self._cache, "reason", None) or str(exc)
            if first:
                warnings.warn(f"faithfulness cache at {self.directory} cannot be written "
                              f"({self._write_problem}): hits are served, new verdicts are "
                              "not saved (reported once)", CacheReadOnlyWarning, stacklevel=3)


def _close_on_judge_loop(cache: Any) -> None:
    """Close the judge loop thread's connection too: diskcache keeps one sqlite connection
    per thread and ``close()`` closes the calling thread's only."""
    from . import _loop

    async def close() -> None:
        cache.close()

    try:
        _loop.run_sync(close())
    except RuntimeError:  # called from the judge loop itself: its connection is closed
        pass


def _verify_payload(claim: str, passages: list[Passage]) -> dict[str, Any]:
    return {"claim": claim, "passages": [[p.id, p.text] if p.title is None
                                         else [p.id, p.text, p.title] for p in passages]}

