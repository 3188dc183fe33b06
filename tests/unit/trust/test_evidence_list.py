"""A verdict's evidence is a list of ``{passage_id, quote}`` items (issue: evidence a correct
judge can give): the record, the LLM reply, the older ``passage_ids`` + ``quote`` form, and
every output that shows a verdict carrying every item."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from pytest_faithfulness.judges.llm import VerifyReply
from pytest_faithfulness.records import (
    MAX_EVIDENCE_ITEMS,
    AnswerResult,
    ClaimResult,
    Evidence,
    Passage,
    SessionSummary,
    Verdict,
)
from pytest_faithfulness.reports.html import render_html
from pytest_faithfulness.reports.json import json_report
from pytest_faithfulness.reports.markdown import markdown_summary
from pytest_faithfulness.reports.pr_comment import pr_comment
from pytest_faithfulness.reports.terminal import format_answer
from pytest_faithfulness.reports.verdict import run_verdict
from pytest_faithfulness.runs.saved import SavedAnswer, SavedClaim

TWO = [{"passage_id": "p1", "quote": "Exports run hourly."},
       {"passage_id": "p2", "quote": "kept for 30 days"}]


def test_the_older_form_is_one_piece_of_evidence_cited_to_each_id():
    verdict = Verdict("supported", passage_ids=["p1", "p2"], quote="Exports run hourly.")
    assert verdict.evidence == [Evidence(passage_id="p1", quote="Exports run hourly."),
                                Evidence(passage_id="p2", quote="Exports run hourly.")]
    assert verdict.passage_ids == ["p1", "p2"] and verdict.quote == "Exports run hourly."


def test_a_dump_carries_the_list_and_the_older_fields_and_reads_back_as_it_was():
    verdict = Verdict("supported", evidence=TWO, rationale="both")
    data = json.loads(verdict.model_dump_json())
    assert data["evidence"] == TWO
    assert data["passage_ids"] == ["p1", "p2"] and data["quote"] == "Exports run hourly."
    assert Verdict.model_validate(data) == verdict


def test_more_items_than_the_limit_are_refused_with_a_clear_error():
    with pytest.raises(ValidationError, match="evidence"):
        Verdict("supported", evidence=[{"passage_id": f"p{i}", "quote": "q"}
                                       for i in range(MAX_EVIDENCE_ITEMS + 1)])


@pytest.mark.parametrize("reply, items", [
    ({"rationale": "r", "evidence": TWO, "label": "supported"}, TWO),
    ({"evidence": {"passage_id": 3, "quote": "x"}, "label": "contradicted"},
     [{"passage_id": "3", "quote": "x"}]),
    ({"passage_ids": ["p1"], "quote": "Exports run hourly.", "label": "supported"},
     [{"passage_id": "p1", "quote": "Exports run hourly."}]),
    ({"passage_ids": [], "quote": None, "label": "unsupported"}, []),
    ({"evidence": None, "label": "unsupported"}, []),
], ids=["list", "one-item-bare-numeric-id", "older-form", "older-empty", "null"])
def test_verify_replies_are_read_as_evidence_items(reply, items):
    read = VerifyReply.model_validate(reply)
    assert [item.model_dump() for item in read.evidence] == items


def test_the_verify_schema_asks_for_the_evidence_list_between_reason_and_label():
    schema = VerifyReply.model_json_schema()
    assert list(schema["properties"]) == ["rationale", "evidence", "label"]
    assert schema["properties"]["evidence"]["items"]["required"] == ["passage_id", "quote"]


def _results() -> list[AnswerResult]:
    claim = ClaimResult(text="Exports run hourly and are kept for 30 days.",
                        verdict=Verdict("contradicted", evidence=TWO))
    return [AnswerResult(answer="Exports run hourly and are kept for 30 days.",
                         status="scored", test_id="t::exports", claims=[claim],
                         passages=[Passage("p1", "Exports run hourly."),
                                   Passage("p2", "Exports are kept for 30 days.")])]


def test_every_output_shows_every_evidence_item():
    results = _results()
    summary = SessionSummary.of(results)
    args = (results, summary, ["j"], ["1 answer failed"])
    terminal = format_answer(results[0])
    assert 'passage p1: "Exports run hourly."' in terminal
    assert 'passage p2: "kept for 30 days"' in terminal
    data = json_report(*args, {})
    (claim,) = data["answers"][0]["claims"]
    assert claim["verdict"]["evidence"] == TWO
    assert claim["verdict"]["passage_ids"] == ["p1", "p2"]
    assert claim["verdict"]["quote"] == "Exports run hourly."
    md = markdown_summary(*args)
    assert "p1: “Exports run hourly.”; p2: “kept for 30 days”" in md
    page = render_html(*args)
    assert "&ldquo;Exports run hourly.&rdquo;" in page and "&ldquo;kept for 30 days&rdquo;" in page
    # each quote is highlighted in its own passage
    assert page.count('title="claim 1: contradicted"') == 2
    results[0].min_score = 1.0  # the PR comment lists answers that failed their thresholds
    comment = pr_comment(*args, verdict=run_verdict(["1 answer failed"]))
    assert "passage p1: “Exports run hourly.”; passage p2: “kept for 30 days”" in comment


def test_a_saved_run_keeps_every_item_and_reads_the_older_form():
    saved = SavedAnswer.of(_results()[0])
    assert [item.model_dump() for item in saved.claims[0].evidence] == TWO
    older = SavedClaim.model_validate({"text": "x", "label": "supported",
                                       "passage_ids": ["p1"], "quote": "Exports run hourly."})
    assert older.evidence == [Evidence(passage_id="p1", quote="Exports run hourly.")]
