"""The union of verdict caches, and a quick look at one (``pytest-faithfulness cache ...``).

CI workflow: each shard restores the base branch's cache, judges its slice and uploads its
cache directory; the merge job unions the shards' caches into one and saves it for the next
run. ``merge_caches`` copies entries verbatim (key and stored JSON value), so a signed entry
(``cache.sign_entry``: HMAC over its key and value) stays verifiable under the same key, and
no signing key is needed to merge. An entry already in the destination (or in an earlier
source) with the same key and a different value is never overwritten: it is reported as a
conflict, and the first value stays. With a signing key (``FAITHFULNESS_CACHE_KEY``) an entry
that is unsigned or mis-signed is not copied: it would be refused on read anyway.

Nothing here imports pytest or litellm.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import _DBNAME, _SIGNATURE, _SIGNED, sign_entry

__all__ = ["CacheMergeReport", "CacheStats", "merge_caches", "cache_stats"]


class CacheToolError(ValueError):
    """A cache directory that is not there or cannot be read; the message names it."""


@dataclass
class CacheMergeReport:
    """What ``merge_caches`` did.

    Attributes:
        copied: entries written to the destination.
        same: entries already there with the same value.
        conflicts: ``(key, source directory)`` of entries whose key was already there with a
            different value (the value there was kept).
        refused: ``(key, source directory, why)`` of entries not copied under a signing key.
        sources: the source directories read.
    """

    copied: int = 0
    same: int = 0
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report for people, conflicts first (``WARNING`` lines)."""
        out = [f"WARNING: {len(self.conflicts)} entr{'y' if len(self.conflicts) == 1 else 'ies'}"
               " had the same key and a different value: the first value was kept, not "
               "overwritten"] if self.conflicts else []
        out += [f"  conflict: key {k} from {src}" for k, src in self.conflicts[:20]]
        if len(self.conflicts) > 20:
            out.append(f"  ...and {len(self.conflicts) - 20} more")
        if self.refused:
            out.append(f"WARNING: {len(self.refused)} entr"
                       f"{'y' if len(self.refused) == 1 else 'ies'} not copied under the "
                       "signing key (FAITHFULNESS_CACHE_KEY)")
            out += [f"  refused: key {k} from {src}: {why}" for k, src, why in self.refused[:20]]
        out.append(f"merged {len(self.sources)} cache(s): {self.copied} entries copied, "
                   f"{self.same} already there")
        return out


def _open(directory: Path, *, create: bool) -> Any:
    import diskcache

    if not create and not (directory / _DBNAME).is_file():
        raise CacheToolError(f"{directory}: no verdict cache there (no {_DBNAME})")
    try:
        return diskcache.Cache(str(directory), disk=diskcache.JSONDisk)
    except Exception as exc:  # sqlite's errors, a file where a folder is needed, permissions
        raise CacheToolError(f"{directory}: cannot open the cache: {type(exc).__name__}: "
                             f"{exc}") from None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _signature_problem(key: str, value: Any, signing_key: bytes) -> str | None:
    if not (isinstance(value, dict) and set(value) == {_SIGNED, _SIGNATURE}):
        return "it is not signed"
    expected = sign_entry(signing_key, key, value[_SIGNED])
    signature = value.get(_SIGNATURE)
    if not (isinstance(signature, str) and hmac.compare_digest(signature, expected)):
        return "its signature does not match"
    return None


def merge_caches(sources: Iterable[str | Path], dest: str | Path, *,
                 signing_key: bytes | None = None) -> CacheMergeReport:
    """Copy every entry of the ``sources`` caches into ``dest`` (created if missing).

    Args:
        sources: verdict cache directories (``--faithfulness-cache-dir``).
        dest: the cache directory to merge into; may be one of the sources' union target
            and may already hold entries.
        signing_key: when given, entries that are unsigned or whose HMAC does not match are
            not copied (``refused``).

    Returns:
        a ``CacheMergeReport``; conflicts are reported there, never overwritten.

    Raises:
        CacheToolError: a source with no cache, or a cache that cannot be opened.
    """
    dest = Path(dest)
    report = CacheMergeReport()
    sources = [Path(s) for s in sources]
    for src in sources:  # every source checked before anything is written
        if not (src / _DBNAME).is_file():
            raise CacheToolError(f"{src}: no verdict cache there (no {_DBNAME})")
    target = _open(dest, create=True)
    try:
        for src in sources:
            if src.resolve() == dest.resolve():
                continue
            report.sources.append(str(src))
            cache = _open(src, create=False)
            try:
                for key in cache.iterkeys():
                    if not isinstance(key, str) or key == "__probe__":
                        continue
                    value = cache.get(key)
                    if value is None:
                        continue
                    if signing_key is not None:
                        why = _signature_problem(key, value, signing_key)
                        if why is not None:
                            report.refused.append((key, str(src), why))
                            continue
                    there = target.get(key)
                    if there is None:
                        target.set(key, value)
                        report.copied += 1
                    elif _canonical(there) == _canonical(value):
                        report.same += 1
                    else:
                        report.conflicts.append((key, str(src)))
            finally:
                cache.close()
    finally:
        target.close()
    return report


@dataclass
class CacheStats:
    """A quick look at one verdict cache.

    Attributes:
        directory: the cache directory.
        entries: entries stored.
        verdicts: verify entries by label (``supported``, ``contradicted``, ``unsupported``),
            as the judge replied: the cache keeps replies, and the quote check that may turn
            a reply's ``supported`` into ``unsupported`` runs each time one is used.
        decompositions: decompose entries.
        other: entries that are neither (invalid, or of another schema).
        signed: entries stored signed.
        bad_signatures: with a signing key, signed entries whose HMAC does not match.
        size_bytes: the bytes the cache takes on disk.
    """

    directory: str
    entries: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    decompositions: int = 0
    other: int = 0
    signed: int = 0
    bad_signatures: int | None = None
    size_bytes: int = 0

    def lines(self) -> list[str]:
        """The figures for people, one line each."""
        labels = ", ".join(f"{n} {label}" for label, n in sorted(self.verdicts.items())) \
            or "none"
        out = [f"cache: {self.directory}",
               f"entries: {self.entries} ({sum(self.verdicts.values())} verdicts: {labels}; "
               f"{self.decompositions} decompositions; {self.other} other)",
               "verdicts are counted as the judge gave them, before the quote check each run "
               "holds them to",
               f"signed: {self.signed} of {self.entries}"]
        if self.bad_signatures is not None:
            out.append(f"signatures that do not match the signing key: {self.bad_signatures}")
        out.append(f"size on disk: {self.size_bytes / 1e6:.2f} MB")
        return out


def cache_stats(directory: str | Path, *, signing_key: bytes | None = None) -> CacheStats:
    """Count the entries of the cache at ``directory`` by kind, signature and size.

    Raises:
        CacheToolError: no cache there, or it cannot be opened.
    """
    directory = Path(directory)
    cache = _open(directory, create=False)
    stats = CacheStats(str(directory), bad_signatures=0 if signing_key is not None else None)
    try:
        for key in cache.iterkeys():
            if not isinstance(key, str) or key == "__probe__":
                continue
            value = cache.get(key)
            stats.entries += 1
            signed = isinstance(value, dict) and set(value) == {_SIGNED, _SIGNATURE}
            if signed:
                stats.signed += 1
                if signing_key is not None and _signature_problem(key, value, signing_key):
                    stats.bad_signatures = (stats.bad_signatures or 0) + 1
                value = value[_SIGNED]
            if isinstance(value, dict) and isinstance(value.get("label"), str):
                stats.verdicts[value["label"]] = stats.verdicts.get(value["label"], 0) + 1
            elif isinstance(value, dict) and isinstance(value.get("claims"), list):
                stats.decompositions += 1
            else:
                stats.other += 1
        stats.size_bytes = int(cache.volume())
    finally:
        cache.close()
    return stats
