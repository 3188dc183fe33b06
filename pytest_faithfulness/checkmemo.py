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
* Entries live in a diskcache of their own, ``<cache directory>/check-memo``. Any failure to
  open, read or write it means the check is computed, never skipped.

``CachedJudge`` opens one (``CachedJudge.check_memo``); the pipeline asks ``memo_of(judge)``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .records import DroppedText, Passage, Verdict

#: The memo's diskcache, under the verdict cache's directory.
MEMO_DIRNAME = "check-memo"
#: The per-user key file, under ``$XDG_CACHE_HOME`` (``~/.cache``).
KEY_FILE = Path("pytest-faithfulness") / "check-memo.key"
_KEY_BYTES = 32

_digest_lock = threading.Lock()
_code_digest: str | None = None


def code_digest() -> str:
    """The hex SHA-256 of every file of this package (path and bytes, ``__pycache__`` left
    out), Python's version and pysbd's version: a memo entry made by other code is never
    used. Computed once per process (a few milliseconds)."""
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

    Args:
        directory: the verdict cache's directory; entries go to ``directory/check-memo``.
        key: the memo key (``memo_key()``), at least 16 bytes.
        read_only: read entries, never write or create anything (the cache's ``replay`` mode,
            which changes nothing on disk).

    Attributes:
        hits / misses: memo entries used / checks computed (this process).

    Raises:
        ValueError: ``key`` is shorter than 16 bytes.
    """

    def __init__(self, directory: str | Path, key: bytes, *, read_only: bool = False) -> None:
        if len(key) < 16:
            raise ValueError("the memo key must be at least 16 bytes")
        self.directory = Path(directory) / MEMO_DIRNAME
        self._key = key
        self.read_only = read_only
        self._lock = threading.Lock()
        self._cache: Any = None
        self._broken = False
        self._seen: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0

    def _store(self) -> Any:
        if self._cache is None and not self._broken:
            try:
                from .cache import open_cache

                self._cache = open_cache(self.directory, read_only=self.read_only)
            except Exception:
                self._broken = True
        return self._cache

    def _entry_key(self, op: str, inputs: Any) -> str:
        return hmac.new(self._key, _canonical({"code": code_digest(), "op": op, "in": inputs}),
                        hashlib.sha256).hexdigest()

    def _mac(self, key: str, value: Any) -> str:
        return hmac.new(self._key, _canonical({"key": key, "value": value}),
                        hashlib.sha256).hexdigest()

    def memoised(self, op: str, inputs: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``'s JSON value for ``(op, inputs)``: from the memo when a signed entry
        made by this code for exactly these inputs is there, else computed and stored.

        Raises:
            whatever ``compute`` raises (nothing is stored then)."""
        key = self._entry_key(op, inputs)
        if key in self._seen:
            with self._lock:
                self.hits += 1
            return self._seen[key]
        store = self._store()
        raw = None
        if store is not None:
            try:
                raw = store.get(key)
            except Exception:
                raw = None
        if (isinstance(raw, dict) and set(raw) == {"value", "mac"}
                and isinstance(raw["mac"], str)
                and hmac.compare_digest(raw["mac"], self._mac(key, raw["value"]))):
            with self._lock:
                self.hits += 1
            self._seen[key] = raw["value"]
            return raw["value"]
        value = compute()
        with self._lock:
            self.misses += 1
        self._seen[key] = value
        if store is not None:
            try:
                store.set(key, {"value": value, "mac": self._mac(key, value)})
            except Exception:  # a read-only or full disk: the memo is only an economy
                pass
        return value

    def close(self) -> None:
        """Close this thread's database connection (diskcache keeps one per thread)."""
        if self._cache is not None:
            self._cache.close()


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
