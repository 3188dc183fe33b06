"""The embedded offline judge: decomposition rules, heuristic verdicts, and the failure cases
from ../shared/cases (real reports against other tools) as regression tests."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from repo_paths import ROOT
from scripted_model import AUDIT_ANSWER, AUDIT_PASSAGES

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.judges.coverage import EVERYTHING
from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer

# ../shared/cases beside the checkout (or beside a folder of worktrees).
CASES_FILE = next((d / "shared" / "cases" / "cases.jsonl" for d in Path(__file__).resolve().parents
                   if (d / "shared" / "cases" / "cases.jsonl").exists()),
                  ROOT.parent / "shared" / "cases" / "cases.jsonl")

@pytest.fixture(scope="module")
def judge():
    return OfflineJudge()


def decompose(answer: str):
    return RuleDecomposer().decompose(answer)


def test_audit_log_example(judge):
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    assert [c.text for c in result.claims] == [
        "Audit log export to S3 is available on the Business plan.",
        "Configure the destination under Settings > Security > Audit Log Export.",
        "Make sure the bucket policy allows s3:PutObject for our export role.",
        "Exports run hourly.",
        "Exports are retained in your bucket indefinitely.",
    ]
    assert [c.label for c in result.claims] == ["supported"] * 3 + ["unsupported"] * 2
    assert result.score == pytest.approx(0.6)
    for claim in result.claims[:3]:
        passage = next(p for p in AUDIT_PASSAGES if p["id"] == claim.verdict.passage_ids[0])
        assert claim.verdict.quote in passage["text"]


@pytest.mark.parametrize("answer, claims, dropped", [
    ("Hi there! Happy to help. The Aria 3 router supports Wi-Fi 6. It has four gigabit LAN ports. "
     "Let me know if that helps!",
     ["The Aria 3 router supports Wi-Fi 6.", "The Aria 3 router has four gigabit LAN ports."],
     ["Hi there!", "Happy to help.", "Let me know if that helps!"]),
    ("I'm sorry, I couldn't find any warranty information for the Model K7.", [],
     ["I'm sorry, I couldn't find any warranty information for the Model K7."]),
    ("Good morning! What a great question. Thanks for asking!", [],
     ["Good morning!", "What a great question.", "Thanks for asking!"]),
    ("You asked about the warranty. The warranty lasts two years.",
     ["The warranty lasts two years."], ["You asked about the warranty."]),
    ("The order is typically delivered within an hour.",
     ["The order is typically delivered within an hour."], []),
    ("The Lumo 2 supports 1080p input [1]. Its brightness is 900 lumens [1].",
     ["The Lumo 2 supports 1080p input.", "The Lumo 2's brightness is 900 lumens."], []),
    ("In profile B, the pump's maximum speed is 3,200 revolutions per minute and it runs at a 40 "
     "percent duty cycle.",
     ["In profile B, the pump's maximum speed is 3,200 revolutions per minute.",
      "In profile B, the pump runs at a 40 percent duty cycle."], []),
    ("Exports run hourly and are retained in your bucket indefinitely.",
     ["Exports run hourly.", "Exports are retained in your bucket indefinitely."], []),
    ("The kit includes salt and pepper.", ["The kit includes salt and pepper."], []),
    ("", [], []),
    ("   \n  ", [], []),
])
def test_decomposition_rules(answer, claims, dropped):
    result = decompose(answer)
    assert result.claims == claims
    assert [d.text for d in result.dropped] == dropped


def test_markdown_bullets_headings_and_code():
    answer = ("**Nimbus 4 at a glance**\n\n- Covers rooms up to 40 m²\n- Filter replacement every "
              "12 months\n- Night mode at 22 dB\n\n```bash\nnimbus --reset\n```")
    result = decompose(answer)
    assert result.claims == ["Nimbus 4 covers rooms up to 40 m².",
                             "Nimbus 4: Filter replacement every 12 months.",
                             "Nimbus 4: Night mode at 22 dB."]
    assert result.dropped[0].text == "**Nimbus 4 at a glance**"  # verbatim: answer[s:e]
    assert "nimbus --reset" in result.dropped[1].text


def test_markdown_tables_are_read_row_by_row():
    answer = ("| Plan | Audit log export |\n|---|---|\n| Business | yes |\n| Free | no |\n\n"
              "Exports go to S3.")
    result = decompose(answer)
    assert result.claims == ["Plan: Business; Audit log export: yes.",
                             "Plan: Free; Audit log export: no.", "Exports go to S3."]
    assert [d.reason for d in result.dropped] == ["table header"]
    assert result.dropped[0].text == "| Plan | Audit log export |\n|---|---|"


def test_empty_passage_texts_are_warned_about_and_support_nothing(judge):
    r = evaluate("The Vela desk lamp has three brightness levels.", ["", "   "], judge)
    assert r.claims[0].label == "unsupported"
    assert r.warnings == ["empty passage text: p1, p2"]


def test_decomposer_sees_only_the_answer():
    import inspect

    for method in (RuleDecomposer.decompose, OfflineJudge.decompose):
        params = list(inspect.signature(method).parameters)
        assert params == ["self", "answer"]


def test_decomposer_rejects_non_strings():
    with pytest.raises(TypeError, match="answer must be a string"):
        decompose(None)  # type: ignore[arg-type]


def test_number_and_negation_mismatches_are_contradictions(judge):
    passages = ["The Orbit blender has a 1.5-litre jar. The blender is not dishwasher safe."]
    r = evaluate("The Orbit blender has a 2-litre jar. The blender is dishwasher safe.", passages, judge)
    assert [c.label for c in r.claims] == ["contradicted", "contradicted"]
    assert all(c.verdict.quote and c.verdict.passage_ids == ["p1"] for c in r.claims)


def test_a_swapped_name_is_not_supported(judge):
    r = evaluate("Audit log export is available on the Free plan.", AUDIT_PASSAGES, judge)
    assert r.claims[0].label != "supported"


def test_deterministic(judge):
    a = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    b = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, OfflineJudge())
    assert a.model_dump() == b.model_dump()


def _cases():
    if not CASES_FILE.exists():
        return []
    return [json.loads(line) for line in CASES_FILE.read_text().splitlines() if line.strip()]


def _expected_claims(expected: dict):
    for key in ("claims", "claims_after_run2"):
        if key in expected:
            return expected[key]
    for key in ("with_real_judge", "with_stub"):
        if "claims" in expected.get(key, {}):
            return expected[key]["claims"]
    return None


@pytest.mark.skipif(not CASES_FILE.exists(), reason="../shared/cases is not beside this checkout")
@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c['case_id']}-{c['kind']}")
def test_shared_failure_case_with_the_offline_judge(case, judge):
    """Every case's correct outcome with a correct judge; the offline judge must reach it."""
    passages = [{"id": str(p["id"]), "text": p["text"]} for p in case["passages"]]
    expected = case["expected"]
    claims = _expected_claims(expected)
    budget = expected.get("config", {}).get("judge_context_budget_chars")
    result = evaluate(case["answer"], passages, judge, context_budget_chars=budget,
                      coverage=EVERYTHING)  # the judge's own reading, past the guard
    assert result.score is None or not math.isnan(result.score)
    if claims is None:  # cases about judge output only: the offline judge still scores it
        assert result.status == "scored"
        return
    assert len(result.claims) == len(claims), [c.text for c in result.claims]
    assert [c.label for c in result.claims] == [c["verdict"] for c in claims]
    for got, want in zip(result.claims, claims):
        if want["verdict"] != "unsupported":
            assert got.verdict.passage_ids == [str(i) for i in want["passage_ids"]]
        assert "[" not in got.text
    if not claims:
        assert result.status == "unscored" and result.score is None
        assert result.dropped
    else:
        want_score = sum(c["verdict"] == "supported" for c in claims) / len(claims)
        assert result.score == pytest.approx(want_score)
    if "dropped_text" in expected:
        dropped = [d.text for d in result.dropped]
        assert dropped == expected["dropped_text"] or (
            [d.strip("*") for d in dropped] == expected["dropped_text"])
    if "warning" in expected:
        assert expected["warning"] in result.warnings
