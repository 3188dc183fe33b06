"""Nothing read from the verdict cache is believed without a check: tampered entries,
signed entries (FAITHFULNESS_CACHE_KEY), and caches this process may read but not write."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from contextlib import contextmanager
from pathlib import Path

import diskcache
import pytest
from scripted_model import (
    AUDIT_ANSWER,
    AUDIT_CLAIMS,
    AUDIT_PASSAGES,
    audit_handler,
    make_judge,
)

from pytest_faithfulness import evaluate
from pytest_faithfulness.cache import (
    CACHE_KEY_ENV,
    CacheCorruptWarning,
    CachedJudge,
    CacheIntegrityWarning,
    CacheMiss,
    CacheReadOnlyWarning,
)

KEY = "team-cache-key-7d1f0c-NEVER-IN-OUTPUT"
AUDIT_SCORE = 0.6  # three of the five audit claims are supported


def _record(server, directory: Path, **options) -> None:
    """Record the audit answer's verdicts in ``directory`` (rw mode)."""
    judge = CachedJudge(make_judge(server), directory, **options)
    assert evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge).score == pytest.approx(AUDIT_SCORE)
    judge.close()


def _entries(directory: Path) -> dict[str, dict]:
    """Every entry of the cache, read with diskcache itself: {key: stored value}."""
    with diskcache.Cache(str(directory), disk=diskcache.JSONDisk) as cache:
        return {key: cache[key] for key in cache.iterkeys()}


def _payload(value: dict) -> dict:
    return value.get("signed", value)


def _rewrite(directory: Path, pick, new) -> int:
    """Overwrite the entries whose stored payload satisfies ``pick`` with ``new(value)``;
    returns how many were rewritten."""
    n = 0
    with diskcache.Cache(str(directory), disk=diskcache.JSONDisk) as cache:
        for key in list(cache.iterkeys()):
            value = cache[key]
            if pick(_payload(value)):
                cache[key] = new(value)
                n += 1
    return n


def _is_verdict(payload: dict) -> bool:
    return "label" in payload


def _is_decomposition(payload: dict) -> bool:
    return "claims" in payload


def _replay(server, directory: Path, **options):
    judge = CachedJudge(make_judge(server), directory, mode="replay", **options)
    try:
        return evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge), judge
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CacheIntegrityWarning)
            judge.close()


# ---------------------------------------------------------------------------------------------
# Without a key: a cached verdict is checked against the passages like a fresh one.

TAMPERED_VERDICTS = {
    "quote not in the passage": {"label": "supported", "passage_ids": ["p-2071"],
                                 "quote": "Exports run hourly and are retained indefinitely"},
    "unknown passage id": {"label": "supported", "passage_ids": ["p-9999"],
                           "quote": "Audit log export is available"},
    "no passage id": {"label": "supported", "passage_ids": [],
                      "quote": "Audit log export is available"},
    "contradicted without a quote": {"label": "contradicted", "passage_ids": ["p-2072"],
                                     "quote": ""},
    "a lone full stop as the quote": {"label": "supported", "passage_ids": ["p-2071"],
                                      "quote": "."},
}


@pytest.mark.parametrize("tampered", list(TAMPERED_VERDICTS.values()),
                         ids=list(TAMPERED_VERDICTS))
def test_a_tampered_cached_verdict_is_checked_like_a_fresh_one(chat_server, tmp_path, tampered):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c")
    assert _rewrite(tmp_path / "c", _is_verdict, lambda value: tampered) == len(AUDIT_CLAIMS)
    result, judge = _replay(chat_server, tmp_path / "c", signing_key=None)
    assert judge.hits == 1 + len(AUDIT_CLAIMS)  # served from the cache, no judge call ...
    assert len(chat_server.requests) == 1 + len(AUDIT_CLAIMS)
    for claim in result.claims:  # ... and still not believed
        assert claim.label == "unsupported", claim
        assert claim.judge_verdict.label == tampered["label"] and claim.note
    assert result.score == 0.0  # tampered to "supported", it would have been 1.0


def test_an_emptied_decomposition_does_not_pass_without_a_key(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c")
    assert _rewrite(tmp_path / "c", _is_decomposition,
                    lambda value: {"claims": [], "dropped": []}) == 1
    result, _ = _replay(chat_server, tmp_path / "c", signing_key=None)
    assert not result.passed


# ---------------------------------------------------------------------------------------------
# With a key: unsigned and mis-signed entries are refused, counted, and errors in replay.

def _edit_signed_value(value: dict) -> dict:
    """Keep the signature, change the verdict under it."""
    return {**value, "signed": {**value["signed"], "label": "supported",
                                "passage_ids": ["p-2071"], "quote": "Audit log export"}}


def _unsigned_empty_decomposition(value: dict) -> dict:
    return {"claims": []}


TAMPERINGS = {
    "an unsigned {'claims': []}": (_is_decomposition, _unsigned_empty_decomposition),
    "a signed verdict edited under its signature": (_is_verdict, _edit_signed_value),
    "a signature made with another key": (
        _is_verdict, lambda value: {**value, "hmac-sha256": "0" * 64}),
    "an unsigned verdict": (_is_verdict, lambda value: value["signed"]),
}


@pytest.mark.parametrize("pick, new", list(TAMPERINGS.values()), ids=list(TAMPERINGS))
def test_with_a_key_a_tampered_entry_is_an_error_in_replay(chat_server, tmp_path, pick, new):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c", signing_key=KEY)
    assert all(set(value) == {"signed", "hmac-sha256"}
               for value in _entries(tmp_path / "c").values())
    tampered = _rewrite(tmp_path / "c", pick, new)
    assert tampered >= 1
    result, judge = _replay(chat_server, tmp_path / "c", signing_key=KEY)
    assert result.status == "error" and result.score is None and not result.passed
    assert "CacheRejected" in result.error
    assert "signature does not match" in result.error or "it is not signed" in result.error
    assert judge.rejected >= 1
    assert KEY not in result.model_dump_json()


def test_with_a_key_a_signed_entry_moved_to_another_key_is_refused(chat_server, tmp_path):
    """The signature covers the cache key too: a genuine 'supported' verdict copied onto an
    unsupported claim's entry is refused."""
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c", signing_key=KEY)
    with diskcache.Cache(str(tmp_path / "c"), disk=diskcache.JSONDisk) as cache:
        verdicts = {k: cache[k] for k in cache.iterkeys() if _is_verdict(_payload(cache[k]))}
        good = next(v for v in verdicts.values() if v["signed"]["label"] == "supported")
        for key, value in verdicts.items():
            if value["signed"]["label"] == "unsupported":
                cache[key] = good
    result, judge = _replay(chat_server, tmp_path / "c", signing_key=KEY)
    assert result.status == "error" and judge.rejected == 2  # both moved entries
    assert "signature does not match" in result.error


def test_with_a_key_rw_mode_rejudges_refused_entries_and_counts_them(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c", signing_key=KEY)
    _rewrite(tmp_path / "c", _is_verdict, _edit_signed_value)
    requests = len(chat_server.requests)
    judge = CachedJudge(make_judge(chat_server), tmp_path / "c", signing_key=KEY)
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    assert result.score == pytest.approx(AUDIT_SCORE)
    assert judge.rejected == len(AUDIT_CLAIMS) and judge.hits == 1
    assert len(chat_server.requests) == requests + len(AUDIT_CLAIMS)
    assert judge.integrity_lines() == [
        f"cache: 5 entries refused: unsigned or signature mismatch ({CACHE_KEY_ENV} is set)"]
    with pytest.warns(CacheIntegrityWarning, match="5 entries refused"):
        judge.close()
    again, judge = _replay(chat_server, tmp_path / "c", signing_key=KEY)  # re-signed on write
    assert again.score == pytest.approx(AUDIT_SCORE) and judge.rejected == 0


def test_a_cache_recorded_without_a_key_is_refused_when_a_key_is_set(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c", signing_key=None)
    result, judge = _replay(chat_server, tmp_path / "c", signing_key=KEY)
    assert result.status == "error" and "it is not signed" in result.error
    assert judge.rejected == 1 and judge.hits == 0


def test_signed_entries_replay_and_are_still_read_without_the_key(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c", signing_key=KEY)
    for key in (KEY, None):
        result, judge = _replay(chat_server, tmp_path / "c", signing_key=key)
        assert result.score == pytest.approx(AUDIT_SCORE) and judge.rejected == 0


SUITE = f'''
ANSWER = {AUDIT_ANSWER!r}
PASSAGES = {AUDIT_PASSAGES!r}
def test_audit(assert_faithful):
    assert assert_faithful(ANSWER, PASSAGES, min_score=0).score == 0.6
'''


def test_the_key_comes_from_the_environment_and_is_never_written(pytester, chat_server,
                                                                  monkeypatch):
    monkeypatch.setenv(CACHE_KEY_ENV, KEY)
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_suite=SUITE)
    args = ["-v", "--faithfulness-judge", "openai/scripted", "--faithfulness-api-base",
            chat_server.base_url, "--faithfulness-cache-dir", "c"]
    first = pytester.runpytest(*args, "--faithfulness-report", "r.json",
                               "--faithfulness-save", "main", "--faithfulness-html", "r.html",
                               "--faithfulness-markdown", "r.md")
    first.assert_outcomes(passed=1)
    entries = _entries(pytester.path / "c")
    assert entries and all(set(v) == {"signed", "hmac-sha256"} for v in entries.values())
    written = [p for p in pytester.path.rglob("*") if p.is_file()]
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in first.stdout.str() + first.stderr.str()
    # Tamper one verdict; the plugin's replay run refuses it and the gate fails.
    _rewrite(pytester.path / "c", _is_verdict, _edit_signed_value)
    replay = pytester.runpytest(*args, "--faithfulness-cache-mode", "replay")
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(["*CacheRejected: verify: the cached entry is refused in replay "
                                 f"mode: its signature does not match ({CACHE_KEY_ENV} is set)*",
                                 "GATE FAILED: 1 answer(s) errored*"])
    assert KEY not in replay.stdout.str() + replay.stderr.str()


# ---------------------------------------------------------------------------------------------
# A cache that cannot be written is not corrupt.

@contextmanager
def unwritable(*paths: Path):
    """Make ``paths`` (directories and files) really refuse writes, root included: the
    permission bits for an ordinary user; for root, whom the bits do not stop, the immutable
    attribute (``chattr +i``). A probe write must fail, or the test is skipped: nothing here
    can deny this user writes."""
    saved = {p: p.stat().st_mode for p in paths}
    immutable = os.geteuid() == 0
    if immutable:
        if shutil.which("chattr") is None or subprocess.run(
                ["chattr", "+i", *map(str, paths)], capture_output=True).returncode != 0:
            subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)
            pytest.skip("running as root and `chattr +i` is not available here")
    else:
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        for p in paths:
            probe = p / "probe" if p.is_dir() else p
            try:
                with open(probe, "a"):
                    pass
            except OSError:
                continue
            pytest.skip(f"cannot deny writes to {p} here")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
        for p, mode in saved.items():
            p.chmod(mode)


def _files(directory: Path) -> dict[str, bytes]:
    """The cache's files and their bytes (sqlite's -wal / -shm side files aside: a reader
    may create them where the directory is writable)."""
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


@pytest.mark.parametrize("what", ["directory and database", "database only"])
def test_a_read_only_cache_serves_replay_and_is_never_moved(chat_server, tmp_path, what):
    chat_server.handler = audit_handler()
    cache = tmp_path / "c"
    _record(chat_server, cache)
    before = _files(cache)
    paths = [cache, *cache.iterdir()] if what == "directory and database" else [cache / "cache.db"]
    requests = len(chat_server.requests)
    with unwritable(*paths), warnings.catch_warnings():
        warnings.simplefilter("error")  # no corrupt-cache (or any other) warning in replay
        result, judge = _replay(chat_server, cache)
        assert result.score == pytest.approx(AUDIT_SCORE) and judge.hits == 6
        assert judge.read_only  # why it cannot be written: sqlite's own words
    assert len(chat_server.requests) == requests
    assert not list(tmp_path.glob("c.corrupt-*")) and _files(cache) == before


def test_a_read_only_cache_in_rw_mode_serves_hits_and_reports_the_lost_write_once(
        chat_server, tmp_path):
    chat_server.handler = audit_handler()
    cache = tmp_path / "c"
    _record(chat_server, cache)
    before = _files(cache)
    with unwritable(cache, *cache.iterdir()):
        judge = CachedJudge(make_judge(chat_server), cache)
        with pytest.warns(CacheReadOnlyWarning, match="cannot be written") as caught:
            first = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)  # all hits
            other = evaluate(AUDIT_ANSWER + " Exports are encrypted.", AUDIT_PASSAGES, judge)
        judge.close()
    assert first.score == pytest.approx(AUDIT_SCORE) and other.status == "scored"
    assert len([w for w in caught if w.category is CacheReadOnlyWarning]) == 1
    assert judge.unsaved >= 1 and judge.hits >= 6
    assert judge.integrity_lines()[-1].startswith(f"cache: {judge.unsaved} new verdict(s) not "
                                                  "saved: ")
    assert not list(tmp_path.glob("c.corrupt-*")) and _files(cache) == before


def test_a_cache_directory_that_cannot_be_created_is_reported_not_fatal(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    parent = tmp_path / "ro"
    parent.mkdir()
    with unwritable(parent):
        judge = CachedJudge(make_judge(chat_server), parent / "c")
        with pytest.warns(CacheReadOnlyWarning):
            result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
        assert result.score == pytest.approx(AUDIT_SCORE)
        replay = CachedJudge(make_judge(chat_server), parent / "c", mode="replay")
        with pytest.raises(CacheMiss, match="which cannot be used"):
            replay.decompose(AUDIT_ANSWER)
    assert list(parent.iterdir()) == []


def test_a_corrupt_cache_that_cannot_be_moved_is_not_used(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    parent = tmp_path / "ro"
    (parent / "c").mkdir(parents=True)
    (parent / "c" / "cache.db").write_bytes(b"this is not a sqlite database" * 100)
    with unwritable(parent, parent / "c", parent / "c" / "cache.db"):
        with pytest.warns(CacheCorruptWarning, match="cannot be moved aside"):
            judge = CachedJudge(make_judge(chat_server), parent / "c", mode="rw")
        judge.decompose(AUDIT_ANSWER)  # judged, never served from the corrupt file
        assert judge.hits == 0 and len(chat_server.requests) == 1
    assert sorted(p.name for p in parent.iterdir()) == ["c"]


def test_replay_reads_a_cache_without_writing_a_byte_and_never_moves_a_corrupt_one(
        chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _record(chat_server, tmp_path / "c")
    before = {f.name: f.read_bytes() for f in (tmp_path / "c").iterdir() if f.is_file()}
    result, judge = _replay(chat_server, tmp_path / "c", signing_key=None)
    assert result.status == "scored" and judge.hits == 1 + len(AUDIT_CLAIMS)
    after = {name: (tmp_path / "c" / name).read_bytes() for name in before}
    assert after == before  # not even diskcache's settings rows (sqlite may add its -shm)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "cache.db").write_bytes(b"this is not a sqlite database" * 100)
    with pytest.warns(CacheCorruptWarning, match="replay mode leaves it as it is"):
        bad = CachedJudge(make_judge(chat_server), tmp_path / "bad", mode="replay")
    with pytest.raises(CacheMiss):
        bad.decompose(AUDIT_ANSWER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "c"]


def test_a_read_only_cache_through_the_plugin_replays(pytester, chat_server):
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_suite=SUITE)
    args = ["--faithfulness-judge", "openai/scripted", "--faithfulness-api-base",
            chat_server.base_url, "--faithfulness-cache-dir", "c"]
    pytester.runpytest(*args).assert_outcomes(passed=1)
    cache = pytester.path / "c"
    with unwritable(cache, *cache.iterdir()):
        replay = pytester.runpytest(*args, "--faithfulness-cache-mode", "replay",
                                    "-W", "error::UserWarning")
    replay.assert_outcomes(passed=1)
    assert replay.ret == 0
    assert "corrupt" not in replay.stdout.str() and not list(pytester.path.glob("c.corrupt-*"))


def test_refused_entries_are_reported_by_count_in_a_pytest_run(pytester, chat_server,
                                                              monkeypatch):
    monkeypatch.setenv(CACHE_KEY_ENV, KEY)
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_suite=SUITE)
    args = ["--faithfulness-judge", "openai/scripted", "--faithfulness-api-base",
            chat_server.base_url, "--faithfulness-cache-dir", "c"]
    pytester.runpytest(*args).assert_outcomes(passed=1)
    _rewrite(pytester.path / "c", _is_verdict, _edit_signed_value)
    again = pytester.runpytest(*args)  # rw: the refused entries are judged again
    again.assert_outcomes(passed=1)  # other warnings (a dependency's, by test order) not counted
    assert again.stdout.str().count("CacheIntegrityWarning") == 1  # one warning, by count
    again.stdout.fnmatch_lines(["*CacheIntegrityWarning: faithfulness cache at * 5 entries "
                                f"refused: unsigned or signature mismatch ({CACHE_KEY_ENV} is set)"])
    assert len(chat_server.requests) == 6 + 5
