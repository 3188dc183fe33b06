"""``pytest-faithfulness cache merge SRC... DEST`` and ``cache stats``, on real diskcache
verdict caches written by ``CachedJudge``."""

from __future__ import annotations

import diskcache
import pytest

from pytest_faithfulness import Decomposition, Passage, Verdict
from pytest_faithfulness.cache import CACHE_KEY_ENV, CachedJudge, CacheMiss, ReadOnlyCache
from pytest_faithfulness.cli import main as cli_main

PASSAGES = [Passage(id="p1", text="The lamp has three brightness levels and a USB-C port.")]


class TableJudge:
    """A judge whose verdicts come from a table (what a shard's LLM judge answered), each
    with ``rationale`` (a sampled judge words it differently every time)."""

    def __init__(self, table: dict[str, str], rationale: str | None = None) -> None:
        self.table = table
        self.rationale = rationale

    def decompose(self, answer):
        return Decomposition(claims=[s.strip() + "." for s in answer.split(".") if s.strip()])

    def verify(self, claim, passages):
        label = self.table.get(claim, "unsupported")
        if label == "supported":
            return Verdict(label="supported", passage_ids=["p1"], quote=passages[0].text,
                           rationale=self.rationale, confidence=0.9 if self.rationale else None)
        return Verdict(label=label, rationale=self.rationale)

    def fingerprint(self):
        return {"kind": "table", "prompts": "t-1"}


def _fill(directory, table, claims, monkeypatch, key=None, rationale=None, answer=None):
    if key:
        monkeypatch.setenv(CACHE_KEY_ENV, key)
    else:
        monkeypatch.delenv(CACHE_KEY_ENV, raising=False)
    judge = CachedJudge(TableJudge(table, rationale), directory)
    for claim in claims:
        judge.verify(claim, PASSAGES)
    if answer is not None:
        judge.decompose(answer)
    judge.close()


def _replay(directory, claim, monkeypatch, key=None):
    if key:
        monkeypatch.setenv(CACHE_KEY_ENV, key)
    judge = CachedJudge(TableJudge({}), directory, mode="replay")  # a miss raises
    try:
        return judge.verify(claim, PASSAGES)
    finally:
        judge.close()


A, B, C = ("The lamp has three brightness levels.", "The lamp has a USB-C port.",
           "The lamp is waterproof.")


def test_cache_merge_unions_shard_caches_and_signed_entries_stay_verifiable(
        tmp_path, monkeypatch, capsys):
    key = "ci-secret"
    table = {A: "supported", B: "supported"}
    _fill(tmp_path / "shard1", table, [A, C], monkeypatch, key)
    _fill(tmp_path / "shard2", table, [B, C], monkeypatch, key)
    assert cli_main(["cache", "merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"),
                     str(tmp_path / "main")]) == 0
    out = capsys.readouterr().out
    assert "merged 2 cache(s): 3 entries copied, 1 already there" in out
    for claim, label in ((A, "supported"), (B, "supported"), (C, "unsupported")):
        assert _replay(tmp_path / "main", claim, monkeypatch, key).label == label
    # the signature binds the entry to the key: a different key refuses every entry
    with pytest.raises(CacheMiss, match="signature does not match"):
        _replay(tmp_path / "main", A, monkeypatch, "another-key")
    assert cli_main(["cache", "stats", str(tmp_path / "main")]) == 0
    stats = capsys.readouterr().out
    assert "entries: 3 (3 verdicts: 1 unsupported, 2 supported; 0 decompositions; 0 other)" \
        in stats.replace("2 supported, 1 unsupported", "1 unsupported, 2 supported")
    assert "signed: 3 of 3" in stats


def test_same_key_with_a_different_value_is_reported_never_overwritten(
        tmp_path, monkeypatch, capsys):
    _fill(tmp_path / "main", {A: "supported"}, [A, B], monkeypatch)
    _fill(tmp_path / "pr", {A: "contradicted", B: "unsupported"}, [A, B, C], monkeypatch)
    _fill(tmp_path / "pr2", {C: "supported"}, [C], monkeypatch)
    paths = [str(tmp_path / "pr"), str(tmp_path / "pr2"), str(tmp_path / "main")]
    status = cli_main(["cache", "merge", *paths])
    out = capsys.readouterr().out
    assert status == 0  # a warning: the documented workflow goes on
    assert "WARNING: 2 entries had the same key and a value that does not agree: the first " \
        "value was kept, not overwritten" in out
    assert out.count("conflict: key ") == 2 and str(tmp_path / "pr2") in out
    assert "verdict supported there, contradicted here" in out
    assert _replay(tmp_path / "main", A, monkeypatch).label == "supported"  # kept
    assert _replay(tmp_path / "main", C, monkeypatch).label == "unsupported"  # pr's, first
    assert cli_main(["cache", "merge", "--strict", *paths]) == 1  # --strict: a failure
    assert "WARNING: 2 entries" in capsys.readouterr().out


def test_under_a_signing_key_unsigned_entries_are_not_copied(tmp_path, monkeypatch, capsys):
    _fill(tmp_path / "unsigned", {A: "supported"}, [A, B], monkeypatch)
    _fill(tmp_path / "signed", {C: "supported"}, [C], monkeypatch, "k")
    monkeypatch.setenv(CACHE_KEY_ENV, "k")
    assert cli_main(["cache", "merge", str(tmp_path / "unsigned"), str(tmp_path / "signed"),
                     str(tmp_path / "dest")]) == 0
    out = capsys.readouterr().out
    assert "WARNING: 2 entries not copied under the signing key" in out
    assert out.count("it is not signed") == 2
    assert "1 entries copied" in out


@pytest.mark.parametrize("args", [["cache", "merge", "only-one"],
                                  ["cache", "merge", "missing-src", "dest"],
                                  ["cache", "stats", "not-a-cache"],
                                  ["cache"], ["nonsense"]])
def test_cache_commands_name_what_is_wrong_with_exit_status_4(tmp_path, monkeypatch, capsys,
                                                              args):
    monkeypatch.chdir(tmp_path)
    assert cli_main(args) == 4
    err = capsys.readouterr().err
    if args[:2] == ["cache", "merge"] and len(args) == 3:
        assert "cache merge needs at least one SRC and a DEST" in err
    elif len(args) > 2:
        assert "no verdict cache there (no cache.db)" in err
    assert not (tmp_path / "dest").exists()


# --------------------------------------------------------------------------------------------
# The documented workflow on benign input (issue 21, item 9).

def _entries(directory):
    cache = ReadOnlyCache(directory, "test")
    try:
        return dict(cache.items())
    finally:
        cache.close()


def test_verdicts_that_agree_in_other_words_are_one_entry(tmp_path, monkeypatch, capsys):
    """A sampled judge words its rationale differently in every shard: same label, same
    evidence, same claims is the same entry (no conflict, exit 0 even with --strict)."""
    table = {A: "supported", B: "supported", C: "unsupported"}
    _fill(tmp_path / "s1", table, [A, C], monkeypatch, rationale="p1 says so",
          answer=f"{A} {B}")
    _fill(tmp_path / "s2", table, [A, B, C], monkeypatch, rationale="The passage states it.",
          answer=f"{A} {B}")
    assert cli_main(["cache", "merge", "--strict", str(tmp_path / "s1"), str(tmp_path / "s2"),
                     str(tmp_path / "main")]) == 0
    out = capsys.readouterr().out
    assert "WARNING" not in out and "conflict" not in out
    # the decomposition's claims agree (split the same way in both shards)
    assert "merged 2 cache(s): 4 entries copied, 3 already there (2 worded differently, " \
        "the first kept)" in out
    assert _replay(tmp_path / "main", A, monkeypatch).rationale == "p1 says so"  # the first
    # other evidence for the same label is not the same entry
    _fill(tmp_path / "s3", table, [A], monkeypatch, rationale="p1 says so")
    cache_dir = tmp_path / "s3"
    edited = diskcache.Cache(str(cache_dir), disk=diskcache.JSONDisk)
    for key in list(edited.iterkeys()):
        value = edited[key]
        if isinstance(value, dict) and value.get("label") == "supported":
            value["evidence"] = [{"passage_id": "p1", "quote": "a USB-C port"}]
            value.pop("passage_ids", None)
            value.pop("quote", None)
            edited[key] = value
    edited.close()
    assert cli_main(["cache", "merge", str(cache_dir), str(tmp_path / "main")]) == 0
    assert "supported on other evidence" in capsys.readouterr().out


def test_after_a_key_rotation_old_key_entries_are_replaced_not_conflicts(
        tmp_path, monkeypatch, capsys):
    """main's cache was signed with the old key; the shards sign with the new one."""
    _fill(tmp_path / "main", {A: "supported"}, [A, B], monkeypatch, "old-key")
    _fill(tmp_path / "shard", {A: "supported"}, [A, B, C], monkeypatch, "new-key",
          rationale="reworded")
    monkeypatch.setenv(CACHE_KEY_ENV, "new-key")
    assert cli_main(["cache", "merge", "--strict", str(tmp_path / "shard"),
                     str(tmp_path / "main")]) == 0
    out = capsys.readouterr().out
    assert "2 entries that did not check out under the signing key were replaced" in out
    assert "conflict" not in out
    for claim, label in ((A, "supported"), (B, "unsupported"), (C, "unsupported")):
        assert _replay(tmp_path / "main", claim, monkeypatch, "new-key").label == label
    # merged where no key is set: differently signed entries that agree are one entry
    _fill(tmp_path / "other", {A: "supported"}, [A], monkeypatch, "old-key")
    monkeypatch.delenv(CACHE_KEY_ENV)
    assert cli_main(["cache", "merge", "--strict", str(tmp_path / "other"),
                     str(tmp_path / "main")]) == 0
    assert "1 already there (1 worded differently" in capsys.readouterr().out


def _corrupt(directory):
    (directory / "cache.db").write_bytes(b"this is not a database" * 100)


def test_an_unreadable_source_is_skipped_and_the_destination_is_written_whole(
        tmp_path, monkeypatch, capsys):
    _fill(tmp_path / "main", {A: "supported"}, [A], monkeypatch)
    _fill(tmp_path / "s1", {B: "supported"}, [B], monkeypatch)
    _fill(tmp_path / "s2", {C: "supported"}, [C], monkeypatch)
    _fill(tmp_path / "s3", {}, ["The lamp is red."], monkeypatch)
    _corrupt(tmp_path / "s2")
    before = _entries(tmp_path / "main")
    args = ["cache", "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), str(tmp_path / "s3"),
            str(tmp_path / "main")]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    assert f"WARNING: source {tmp_path / 's2'} skipped, nothing of it copied: cannot be " \
        "read: DatabaseError" in out
    assert "merged 2 cache(s): 2 entries copied, 0 already there" in out
    after = _entries(tmp_path / "main")
    assert len(after) == 3 and all(after[k] == v for k, v in before.items())
    assert _replay(tmp_path / "main", A, monkeypatch).label == "supported"
    assert _replay(tmp_path / "main", B, monkeypatch).label == "supported"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main", "s1", "s2", "s3"]  # no litter
    assert cli_main(["cache", "merge", "--strict", *args[2:]]) == 1
    assert "skipped" in capsys.readouterr().out


def test_an_unreadable_destination_is_set_aside_and_the_union_built(tmp_path, monkeypatch,
                                                                   capsys):
    _fill(tmp_path / "main", {A: "supported"}, [A], monkeypatch)
    _fill(tmp_path / "s1", {B: "supported"}, [B], monkeypatch)
    _corrupt(tmp_path / "main")
    assert cli_main(["cache", "merge", str(tmp_path / "s1"), str(tmp_path / "main")]) == 0
    out = capsys.readouterr().out
    assert f"moved to {tmp_path / 'main.corrupt-1'}" in out
    assert (tmp_path / "main.corrupt-1" / "cache.db").read_bytes().startswith(b"this is not")
    assert _replay(tmp_path / "main", B, monkeypatch).label == "supported"
