"""``pytest-faithfulness cache merge SRC... DEST`` and ``cache stats``, on real diskcache
verdict caches written by ``CachedJudge``."""

from __future__ import annotations

import pytest

from pytest_faithfulness import Decomposition, Passage, Verdict
from pytest_faithfulness.cache import CACHE_KEY_ENV, CachedJudge, CacheMiss
from pytest_faithfulness.cli import main as cli_main

PASSAGES = [Passage(id="p1", text="The lamp has three brightness levels and a USB-C port.")]


class TableJudge:
    """A judge whose verdicts come from a table (what a shard's LLM judge answered)."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def decompose(self, answer):
        return Decomposition(claims=[s.strip() + "." for s in answer.split(".") if s.strip()])

    def verify(self, claim, passages):
        label = self.table.get(claim, "unsupported")
        if label == "supported":
            return Verdict(label="supported", passage_ids=["p1"], quote=passages[0].text)
        return Verdict(label=label)

    def fingerprint(self):
        return {"kind": "table", "prompts": "t-1"}


def _fill(directory, table, claims, monkeypatch, key=None):
    if key:
        monkeypatch.setenv(CACHE_KEY_ENV, key)
    else:
        monkeypatch.delenv(CACHE_KEY_ENV, raising=False)
    judge = CachedJudge(TableJudge(table), directory)
    for claim in claims:
        judge.verify(claim, PASSAGES)
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
    status = cli_main(["cache", "merge", str(tmp_path / "pr"), str(tmp_path / "pr2"),
                       str(tmp_path / "main")])
    out = capsys.readouterr().out
    assert status == 1
    assert "WARNING: 2 entries had the same key and a different value: the first value was " \
        "kept, not overwritten" in out
    assert out.count("conflict: key ") == 2 and str(tmp_path / "pr2") in out
    assert _replay(tmp_path / "main", A, monkeypatch).label == "supported"  # kept
    assert _replay(tmp_path / "main", C, monkeypatch).label == "unsupported"  # pr's, first


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
