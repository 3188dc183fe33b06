"""The union of verdict caches, and a quick look at one (``pytest-faithfulness cache ...``).

CI workflow: each shard restores the base branch's cache, judges its slice and uploads its
cache directory; the merge job unions the shards' caches into one and saves it for the next
run. ``merge_caches`` copies entries verbatim (key and stored JSON value), so a signed entry
(``cache.sign_entry``: HMAC over its key and value) stays verifiable under the same key, and
no signing key is needed to merge. Rules:

* Entries with the same key are compared on what the cache is for: a verdict's label and
  evidence (passage id and quote of each item), a decomposition's claims and set-aside text
  (not the reasons given for it). Two entries that agree there are the same entry (the first
  one is kept), however their rationale or confidence is worded and whoever signed them. Two
  that do not agree are a conflict: reported by key, source and what differs; the first
  value stays, never overwritten. A conflict is a warning (exit 0); ``--strict`` makes it a
  failure (exit 1).
* With a signing key (``FAITHFULNESS_CACHE_KEY``) an entry that is unsigned or mis-signed is
  not copied: it would be refused on read anyway. An entry already there that does not check
  out under the key (signed with the key before a rotation, say) is replaced by a source's
  entry that does (``replaced``).
* A source that cannot be read (a corrupt database) is skipped with a warning naming it, and
  none of its entries is written (``--strict``: exit 1). A path that holds no cache at all is
  a usage error (exit 4), found before anything is written: most likely a mistyped path.
* The destination is never left half-written: the union is built in a new directory beside
  it and moved into its place once complete; a failure leaves the destination as it was.
  A destination that cannot be read (corrupt) is moved aside to ``<dest>.corrupt-N``, as the
  cache itself does, and the union built without it.

Nothing here imports pytest or litellm.
"""

from __future__ import annotations

import hmac
import json
import os
import shutil
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import DBNAME, SIGNATURE_FIELD, SIGNED_FIELD, ReadOnlyCache, sign_entry
from .errors import CacheToolError as CacheToolError  # re-exported: its home before errors.py

__all__ = ["CacheMergeReport", "CacheStats", "merge_caches", "cache_stats"]

#: Conflicts (and refusals, skipped sources) listed one per line before "...and N more".
_SHOWN = 20


def _listed(what: str, rows: list[tuple[str, str, str]]) -> list[str]:
    """The first ``_SHOWN`` ``(key, source, why)`` rows as report lines, and how many more."""
    out = [f"  {what}: key {k} from {src}: {why}" for k, src, why in rows[:_SHOWN]]
    if len(rows) > _SHOWN:
        out.append(f"  ...and {len(rows) - _SHOWN} more")
    return out


@dataclass
class CacheMergeReport:
    """What ``merge_caches`` did.

    Attributes:
        copied: entries written to the destination that it did not hold.
        same: entries already there with the same value, or one that agrees with it (same
            label and evidence, same claims and set-aside text) in other words.
        reworded: of ``same``, those that agree but are stored differently (a rationale
            worded otherwise, another signature); the first one was kept.
        conflicts: ``(key, source directory, what differs)`` of entries whose key was
            already there with a value that does not agree (the value there was kept).
        refused: ``(key, source directory, why)`` of entries not copied under a signing key.
        replaced: ``(key, source directory)`` of entries there that did not check out under
            the signing key, replaced by the source's, which does.
        skipped: ``(source directory, why)`` of sources that could not be read (nothing of
            them was copied).
        set_aside: where an unreadable destination was moved, or ``None``.
        sources: the source directories read.
    """

    copied: int = 0
    same: int = 0
    reworded: int = 0
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    replaced: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    set_aside: str | None = None
    sources: list[str] = field(default_factory=list)

    def failed(self, strict: bool) -> bool:
        """Whether the merge fails (exit 1): under ``strict`` only, on a conflict or a
        skipped source."""
        return strict and bool(self.conflicts or self.skipped)

    def lines(self) -> list[str]:
        """The report for people, warnings first (``WARNING`` lines)."""
        out = []
        for src, why in self.skipped:
            out.append(f"WARNING: source {src} skipped, nothing of it copied: {why}")
        if self.set_aside:
            out.append(f"WARNING: the destination could not be read; moved to "
                       f"{self.set_aside} and the union built without it")
        if self.conflicts:
            n = len(self.conflicts)
            out.append(f"WARNING: {n} entr{'y' if n == 1 else 'ies'} had the same key and a "
                       "value that does not agree: the first value was kept, not overwritten")
            out += _listed("conflict", self.conflicts)
        if self.refused:
            n = len(self.refused)
            out.append(f"WARNING: {n} entr{'y' if n == 1 else 'ies'} not copied under the "
                       "signing key (FAITHFULNESS_CACHE_KEY)")
            out += _listed("refused", self.refused)
        if self.replaced:
            out.append(f"{len(self.replaced)} entries that did not check out under the "
                       "signing key were replaced by ones that do")
        reworded = f" ({self.reworded} worded differently, the first kept)" \
            if self.reworded else ""
        out.append(f"merged {len(self.sources)} cache(s): {self.copied} entries copied, "
                   f"{self.same} already there{reworded}")
        return out


def _open(directory: Path, *, create: bool) -> Any:
    import diskcache

    if not create and not (directory / DBNAME).is_file():
        raise CacheToolError(f"{directory}: no verdict cache there (no {DBNAME})")
    try:
        return diskcache.Cache(str(directory), disk=diskcache.JSONDisk)
    except Exception as exc:  # sqlite's errors, a file where a folder is needed, permissions
        raise CacheToolError(f"{directory}: cannot open the cache: {type(exc).__name__}: "
                             f"{exc}") from None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _signature_problem(key: str, value: Any, signing_key: bytes) -> str | None:
    if not (isinstance(value, dict) and set(value) == {SIGNED_FIELD, SIGNATURE_FIELD}):
        return "it is not signed"
    expected = sign_entry(signing_key, key, value[SIGNED_FIELD])
    signature = value.get(SIGNATURE_FIELD)
    if not (isinstance(signature, str) and hmac.compare_digest(signature, expected)):
        return "its signature does not match"
    return None


def _substance(value: Any) -> Any:
    """What a cache entry is for, to compare two entries: a verdict's label and evidence
    (``(passage id, quote)`` items), a decomposition's claims and set-aside text; the
    signature, rationale and confidence left out. A value that is neither: itself."""
    from .records import Decomposition, Verdict

    signed = isinstance(value, dict) and set(value) == {SIGNED_FIELD, SIGNATURE_FIELD}
    inner = value[SIGNED_FIELD] if signed else value
    if isinstance(inner, dict) and "label" in inner:
        try:
            verdict = Verdict.model_validate(inner)
        except Exception:  # not a valid verdict: compared as stored
            return inner
        return {"label": verdict.label,
                "evidence": [[e.passage_id, e.quote] for e in verdict.evidence]}
    if isinstance(inner, dict) and "claims" in inner:
        try:
            decomposition = Decomposition.model_validate(inner)
        except Exception:
            return inner
        return {"claims": list(decomposition.claims),
                "dropped": [d.text for d in decomposition.dropped]}
    return inner


def _difference(there: Any, value: Any) -> str:
    """What differs between two entries' substance, in a few words."""
    a, b = _substance(there), _substance(value)
    if isinstance(a, dict) and isinstance(b, dict):
        if "label" in a and "label" in b:
            if a["label"] != b["label"]:
                return f"verdict {a['label']} there, {b['label']} here"
            return f"{a['label']} on other evidence"
        if "claims" in a and "claims" in b:
            if a["claims"] != b["claims"]:
                return f"{len(a['claims'])} claims there, {len(b['claims'])} here, not the same"
            return "other text set aside"
    return "another value"


def _read(src: Path) -> list[tuple[Any, Any]]:
    """Every entry of the cache at ``src``, read without writing to it.

    Raises:
        CacheToolError: it cannot be read (the message says why).
    """
    try:
        cache = ReadOnlyCache(src, "a merge source")
    except (sqlite3.Error, OSError, ValueError) as exc:
        raise CacheToolError(f"cannot be read: {type(exc).__name__}: {exc}") from None
    try:
        return cache.items()
    except (sqlite3.Error, OSError, ValueError, UnicodeDecodeError) as exc:
        raise CacheToolError(f"cannot be read: {type(exc).__name__}: {exc}") from None
    finally:
        cache.close()


def merge_caches(sources: Iterable[str | Path], dest: str | Path, *,
                 signing_key: bytes | None = None) -> CacheMergeReport:
    """Copy every entry of the ``sources`` caches into ``dest`` (created if missing), by the
    rules of the module docstring.

    Args:
        sources: verdict cache directories (``--faithfulness-cache-dir``).
        dest: the cache directory to merge into; may already hold entries, and may be one of
            the sources (then it is read once, as the destination).
        signing_key: when given, entries that are unsigned or whose HMAC does not match are
            not copied (``refused``), and such entries already in ``dest`` are replaced by a
            source's valid one.

    Returns:
        a ``CacheMergeReport``; conflicts and unreadable sources are reported there.

    Raises:
        CacheToolError: a source path that holds no cache, or the union that cannot be
            written; ``dest`` is then as it was.
    """
    dest = Path(dest)
    report = CacheMergeReport()
    source_dirs = [Path(s) for s in sources]
    for src in source_dirs:  # every source checked before anything is written
        if not (src / DBNAME).is_file():
            raise CacheToolError(f"{src}: no verdict cache there (no {DBNAME})")
    if dest.exists() and not dest.is_dir():
        raise CacheToolError(f"{dest}: not a directory")
    existing: list[tuple[Any, Any]] = []
    if (dest / DBNAME).is_file():
        try:
            existing = _read(dest)
        except CacheToolError:
            existing = []
            report.set_aside = "pending"
    entries: dict[str, Any] = {}
    for key, value in existing:
        if isinstance(key, str) and key != "__probe__" and value is not None:
            entries[key] = value
    for src in source_dirs:
        if dest.exists() and src.resolve() == dest.resolve():
            continue
        try:
            read = _read(src)
        except CacheToolError as exc:
            report.skipped.append((str(src), str(exc)))
            continue
        report.sources.append(str(src))
        for key, value in read:
            if not isinstance(key, str) or key == "__probe__" or value is None:
                continue
            if signing_key is not None:
                why = _signature_problem(key, value, signing_key)
                if why is not None:
                    report.refused.append((key, str(src), why))
                    continue
            there = entries.get(key)
            if there is None:
                entries[key] = value
                report.copied += 1
            elif _canonical(there) == _canonical(value):
                report.same += 1
            elif signing_key is not None and _signature_problem(key, there, signing_key):
                entries[key] = value
                report.replaced.append((key, str(src)))
            elif _canonical(_substance(there)) == _canonical(_substance(value)):
                report.same += 1
                report.reworded += 1
            else:
                report.conflicts.append((key, str(src), _difference(there, value)))
    _write_whole(dest, entries, report)
    return report


def _write_whole(dest: Path, entries: dict[str, Any], report: CacheMergeReport) -> None:
    """Write ``entries`` as the cache at ``dest``: into a new directory beside it, then moved
    into its place (the old one moved aside first, removed after; an unreadable one kept as
    ``<dest>.corrupt-N``). On any failure ``dest`` is as it was.

    Raises:
        CacheToolError: the union cannot be written or moved into place.
    """
    dest = dest.absolute()
    dest.parent.mkdir(parents=True, exist_ok=True)
    building = dest.with_name(f".{dest.name}.merging-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    try:
        target = _open(building, create=True)
        try:
            for key, value in entries.items():
                target.set(key, value)
        finally:
            target.close()
    except (CacheToolError, sqlite3.Error, OSError) as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise CacheToolError(f"{dest}: the merged cache could not be written "
                             f"({type(exc).__name__}: {exc}); {dest} is unchanged") from None
    old: Path | None = None
    if dest.exists():
        if report.set_aside is not None:
            n = 1
            while dest.with_name(f"{dest.name}.corrupt-{n}").exists():
                n += 1
            old = dest.with_name(f"{dest.name}.corrupt-{n}")
            report.set_aside = str(old)
        else:
            old = dest.with_name(f".{dest.name}.replaced-{os.getpid()}")
            shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
    try:
        os.replace(building, dest)
    except OSError as exc:
        if old is not None:
            os.replace(old, dest)
        shutil.rmtree(building, ignore_errors=True)
        raise CacheToolError(f"{dest}: the merged cache could not be moved into place "
                             f"({exc}); {dest} is unchanged") from None
    if old is not None and report.set_aside is None:
        shutil.rmtree(old, ignore_errors=True)


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
            signed = isinstance(value, dict) and set(value) == {SIGNED_FIELD, SIGNATURE_FIELD}
            if signed:
                stats.signed += 1
                if signing_key is not None and _signature_problem(key, value, signing_key):
                    stats.bad_signatures = (stats.bad_signatures or 0) + 1
                value = value[SIGNED_FIELD]
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
