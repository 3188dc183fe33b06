"""The draft labels of a run (``runs.promote``) through its own API: which claims become
drafts, their stable ids, and ``accept`` refusing what it cannot trust."""

from __future__ import annotations

import json

import pytest

from pytest_faithfulness.errors import UsageError
from pytest_faithfulness.records import AnswerResult, ClaimResult, Passage, Verdict
from pytest_faithfulness.runs.promote import accept, draft_id, draft_labels, write_drafts

PASSAGES = [Passage(id="p1", text="The lamp has three levels.")]


def _result(test_id: str, claims: list[ClaimResult], status: str = "scored") -> AnswerResult:
    return AnswerResult(answer="The lamp ...", passages=PASSAGES, status=status, claims=claims,
                        test_id=test_id)


def _claim(text: str, label: str | None, **extra) -> ClaimResult:
    return ClaimResult(text=text, verdict=Verdict(label) if label else None, **extra)


def test_an_id_is_the_same_for_the_same_test_claim_and_passages_only():
    first = draft_id("t::a", "The lamp is red.", PASSAGES)
    assert first == draft_id("t::a", "The lamp is red.",
                             [{"id": "p1", "text": "The lamp has three levels."}])
    assert len(first) == 12 and int(first, 16) >= 0
    others = {draft_id("t::b", "The lamp is red.", PASSAGES),
              draft_id("t::a", "The lamp is blue.", PASSAGES),
              draft_id("t::a", "The lamp is red.", [Passage(id="p1", text="Other text.")]),
              draft_id("t::a", "The lamp is red.", [Passage(id="p2", text=PASSAGES[0].text)])}
    assert first not in others and len(others) == 4


def test_failing_and_unstable_claims_are_drafts_and_unjudged_answers_are_not():
    results = [
        _result("t::ok", [_claim("Supported.", "supported")]),
        _result("t::bad", [_claim("Unsupported.", "unsupported"),
                           _claim("Contradicted.", "contradicted"),
                           _claim("No verdict.", None),
                           _claim("Voted.", "supported", unstable=True),
                           _claim("Unsupported.", "unsupported")]),  # the same claim twice
        _result("t::down", [_claim("Outage.", None)], status="error"),
        _result("t::outside", [_claim("Uncovered.", None)], status="unverified"),
    ]
    drafts = draft_labels(results)
    assert [(d.test_id, d.claim, d.judge_label, d.why) for d in drafts] == [
        ("t::bad", "Unsupported.", "unsupported", ["failing"]),
        ("t::bad", "Contradicted.", "contradicted", ["failing"]),
        ("t::bad", "No verdict.", None, ["failing"]),
        ("t::bad", "Voted.", "supported", ["unstable"]),
    ]


def test_accept_refuses_a_bad_label_an_empty_list_and_a_broken_labels_file(tmp_path):
    drafts = draft_labels([_result("t::bad", [_claim("Unsupported.", "unsupported")])])
    path = write_drafts(drafts, tmp_path / "drafts.jsonl")
    assert path is not None
    with pytest.raises(UsageError, match="--label 'hallucinated' is not one of supported"):
        accept(path, [drafts[0].id], "hallucinated", tmp_path / "labels.jsonl")
    with pytest.raises(UsageError, match="at least one"):
        accept(path, [], "unsupported", tmp_path / "labels.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x", "claim": "c", "passages": [], "human_label": "maybe"}\n',
                      encoding="utf-8")
    with pytest.raises(UsageError, match=r"broken.jsonl:1: human_label 'maybe'"):
        accept(path, [drafts[0].id], "unsupported", broken)
    assert "maybe" in broken.read_text(encoding="utf-8")  # left as it was
    (tmp_path / "junk.jsonl").write_text("not json\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"junk.jsonl:1: not a draft label"):
        accept(tmp_path / "junk.jsonl", ["x"], "unsupported", tmp_path / "labels.jsonl")
    assert not (tmp_path / "labels.jsonl").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    done = accept(path, [drafts[0].id], "unsupported", tmp_path / "new" / "labels.jsonl")
    assert done.added == [drafts[0].id]
    record = json.loads((tmp_path / "new" / "labels.jsonl").read_text(encoding="utf-8"))
    assert record["human_label"] == "unsupported" and record["judge_label"] == "unsupported"


def test_an_edited_draft_or_a_repeated_id_is_refused(tmp_path):
    """An id is the digest of what it labels: a draft whose claim was edited after the run
    wrote it, or two drafts under one id, are refused and nothing is written."""
    drafts = draft_labels([_result("t.py::test_a", [_claim("The lamp is blue.", "unsupported")])])
    path = write_drafts(drafts, tmp_path / "drafts.jsonl")
    line = json.loads(path.read_text(encoding="utf-8"))
    edited = {**line, "claim": "The lamp has three levels."}
    path.write_text(json.dumps(edited) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match="does not match its claim"):
        accept(path, [line["id"]], "supported", tmp_path / "labels.jsonl")
    path.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match="also on line 1"):
        accept(path, [line["id"]], "supported", tmp_path / "labels.jsonl")
    assert not (tmp_path / "labels.jsonl").exists()
