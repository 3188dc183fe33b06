"""The checks' signed memo (``checkmemo``): a cached re-run still checks every entry, through a
memo of the checks' results that only this user's key can vouch for; a tampered entry is
checked in full, and an edited memo entry is not used."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import diskcache
import pytest
from scripted_model import AUDIT_ANSWER, AUDIT_CLAIMS, AUDIT_PASSAGES, audit_handler, make_judge

from pytest_faithfulness import evaluate
from pytest_faithfulness.cache import CachedJudge
from pytest_faithfulness.checkmemo import KEY_FILE, MEMO_FILENAME, memo_key

FORGED = {"label": "supported", "passage_ids": ["p-2071"], "quote": "."}


def _run(server, directory: Path, mode: str = "rw"):
    judge = CachedJudge(make_judge(server), directory, mode=mode, signing_key=None)
    try:
        return evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge), judge
    finally:
        judge.close()


def _claims(result) -> list[dict]:
    return [c.model_dump(mode="json") for c in result.claims]


def _rewrite(directory: Path, pick, new) -> int:
    n = 0
    with diskcache.Cache(str(directory), disk=diskcache.JSONDisk) as cache:
        for key in list(cache.iterkeys()):
            if pick(cache[key]):
                cache[key] = new(cache[key])
                n += 1
    return n


def test_a_cached_rerun_takes_the_checks_from_the_memo_and_gives_the_same_result(
        chat_server, tmp_path):
    chat_server.handler = audit_handler()
    first, judge = _run(chat_server, tmp_path / "c")
    assert judge.check_memo is not None and judge.check_memo.hits == 0
    assert judge.check_memo.misses == 2 + len(AUDIT_CLAIMS)  # profile, alignment, verdicts
    again, judge = _run(chat_server, tmp_path / "c")
    assert len(chat_server.requests) == 1 + len(AUDIT_CLAIMS)  # no judge call the second time
    assert judge.check_memo.hits == 2 + len(AUDIT_CLAIMS) and judge.check_memo.misses == 0
    assert _claims(again) == _claims(first) and again.score == first.score
    assert again.dropped == first.dropped and again.warnings == first.warnings


def test_a_tampered_verdict_is_checked_in_full_though_the_memo_holds_the_true_one(
        chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _run(chat_server, tmp_path / "c")
    assert _rewrite(tmp_path / "c", lambda v: "label" in v, lambda v: FORGED) == len(AUDIT_CLAIMS)
    result, judge = _run(chat_server, tmp_path / "c", mode="replay")
    assert judge.check_memo.misses == len(AUDIT_CLAIMS)  # other inputs: checked afresh
    for claim in result.claims:
        assert claim.label == "unsupported" and claim.judge_verdict.label == "supported"
    assert result.score == 0.0


def test_a_memo_entry_edited_to_accept_a_tampered_verdict_is_not_used(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _run(chat_server, tmp_path / "c")
    _rewrite(tmp_path / "c", lambda v: "label" in v, lambda v: FORGED)
    refused, _ = _run(chat_server, tmp_path / "c")  # the refusals go into the memo
    assert refused.score == 0.0
    # whoever can write the cache directory says every check passed, keeping the MACs
    with sqlite3.connect(tmp_path / "c" / MEMO_FILENAME) as con:
        edited = con.execute("""UPDATE memo SET value = '{"accepted":null,"coverage":1.0,"""
                             """"reason":null}' WHERE value LIKE '{"accepted":%'""").rowcount
    con.close()
    assert edited == 2 * len(AUDIT_CLAIMS)  # the true verdicts' checks and the forged ones'
    result, judge = _run(chat_server, tmp_path / "c")
    assert judge.check_memo.misses == len(AUDIT_CLAIMS)
    assert result.score == 0.0 and _claims(result) == _claims(refused)


def test_replay_reads_the_memo_and_writes_nothing(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    _, judge = _run(chat_server, tmp_path / "c", mode="rw")
    before = _files(tmp_path / "c")
    _, judge = _run(chat_server, tmp_path / "c", mode="replay")
    assert judge.check_memo.hits == 2 + len(AUDIT_CLAIMS)
    assert _files(tmp_path / "c") == before


def _files(directory: Path) -> dict[str, bytes]:
    """The files and their bytes, sqlite's -wal / -shm side files aside (a reader may create
    them where the directory is writable)."""
    return {str(p): p.read_bytes() for p in sorted(directory.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def test_the_memo_key_is_private_to_this_user_and_never_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    key = memo_key()
    path = tmp_path / "xdg" / KEY_FILE
    assert key is not None and len(key) == 32 and path.read_bytes() == key
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert memo_key() == key  # the same key for every later process
    os.chmod(path, 0o644)  # readable by others: not a secret any more, so no memo
    assert memo_key() is None
    assert memo_key(b"team-cache-key") not in (None, key)  # derived from the signing key


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX file modes")
def test_without_a_usable_key_every_check_is_computed(chat_server, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert memo_key() is not None
    os.chmod(tmp_path / "xdg" / KEY_FILE, 0o666)
    chat_server.handler = audit_handler()
    first, judge = _run(chat_server, tmp_path / "c")
    assert judge.check_memo is None
    again, _ = _run(chat_server, tmp_path / "c")
    assert _claims(again) == _claims(first)


def test_the_answer_profile_comes_from_the_memo_equal_to_the_computed_one(tmp_path):
    from pytest_faithfulness.checkmemo import CheckMemo, profiled
    from pytest_faithfulness.language.content import profile

    memo = CheckMemo(tmp_path, b"k" * 32)
    answers = [AUDIT_ANSWER,
               "Le colis part de l'entrepôt sous deux jours ouvrés, sauf le samedi.", "short",
               "```python\nx = 1\nprint(x)\n```", '{"a": 1}', "| a | b |\n|---|---|\n| 1 | 2 |"]
    for identify in (True, False):
        for answer in answers:
            assert profiled(memo, answer, identify=identify) == profile(answer, identify=identify)
    computed = memo.misses
    memo.close()
    again = CheckMemo(tmp_path, b"k" * 32)
    for identify in (True, False):
        for answer in answers:
            assert profiled(again, answer, identify=identify) == profile(answer, identify=identify)
    assert again.hits == computed and again.misses == 0
    again.close()
    assert profiled(None, AUDIT_ANSWER) == profile(AUDIT_ANSWER)
