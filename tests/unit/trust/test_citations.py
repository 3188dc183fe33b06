"""Citations checked: each inline style recognised and mapped, classed correct / misattributed /
cited but unsupported / uncited, unknown ids failing closed, the cited-first verification
costing no more calls, and the figures, reports and gate options through real pytest runs."""

from __future__ import annotations

import json

import pytest
from scripted_model import (
    AUDIT_ANSWER,
    AUDIT_CLAIMS,
    AUDIT_PASSAGES,
    AUDIT_SUPPORT,
    claims_reply,
    evidence_verifier,
    judge_model,
    make_judge,
    ops,
)

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.records import SessionSummary

PASSAGES = [
    {"id": "kb-1", "text": "Refunds are issued within 14 days of a return being received."},
    {"id": "kb-2", "text": "Items bought on sale can be exchanged but not refunded."},
    {"id": "kb-3", "text": "Gift cards are valid for three years from the date of purchase."},
]
REFUND = "Refunds are issued within 14 days of a return being received"
SALE = "Items bought on sale can be exchanged but not refunded"
GIFT = "Gift cards are valid for three years from the date of purchase"


def judged(answer: str, passages=PASSAGES):
    judge = OfflineJudge()
    result = evaluate(answer, passages, judge)
    return result, judge.calls


def view(result):
    return [(c.label, c.citation, c.cited_ids) for c in result.claims]


# --------------------------------------------------------------------------------------------
# Every style of the issue, each mapped to the right passages.

@pytest.mark.parametrize("answer, expected", [
    # [1]: a number is the N-th passage
    (f"{REFUND} [1]. {SALE} [2].",
     [("supported", "correct", ["kb-1"]), ("supported", "correct", ["kb-2"])]),
    # [1, 2]: a list
    (f"{REFUND} [1, 2].", [("supported", "correct", ["kb-1", "kb-2"])]),
    # [1-3]: a range
    (f"{GIFT} [1-3].", [("supported", "correct", ["kb-1", "kb-2", "kb-3"])]),
    # [kb-2]: an id
    (f"{SALE} [kb-2].", [("supported", "correct", ["kb-2"])]),
    # [kb-1, kb-3]: ids
    (f"{GIFT} [kb-1, kb-3].", [("supported", "correct", ["kb-1", "kb-3"])]),
    # (Source 2): a labelled parenthetical
    (f"{SALE} (Source 2).", [("supported", "correct", ["kb-2"])]),
    (f"{GIFT} (sources: kb-1, kb-3).", [("supported", "correct", ["kb-1", "kb-3"])]),
    # [^1]: a Markdown footnote, by number, or by the ids its definition names
    (f"{REFUND}.[^1]", [("supported", "correct", ["kb-1"])]),
    (f"{GIFT}.[^1]\n\n[^1]: kb-3",
     [("supported", "correct", ["kb-3"])]),
    # words beside the ids in a definition are answer text: judged (fail closed), not hidden
    (f"{GIFT}.[^1]\n\n[^1]: kb-3, the gift card terms",
     [("supported", "correct", ["kb-3"]), ("unsupported", "uncited", [])]),
    # a trailing "Sources:" line cites every claim that has no marker of its own
    (f"{REFUND}. {SALE}.\n\nSources: kb-1, kb-2",
     [("supported", "correct", ["kb-1", "kb-2"]), ("supported", "correct", ["kb-1", "kb-2"])]),
    (f"{REFUND}. {GIFT} [3].\n\nReferences: [1]",
     [("supported", "correct", ["kb-1"]), ("supported", "correct", ["kb-3"])]),
    # after the sentence: cites the sentences since the previous marker of the paragraph
    (f"{REFUND}. {SALE}. [1, 2]",
     [("supported", "correct", ["kb-1", "kb-2"]), ("supported", "correct", ["kb-1", "kb-2"])]),
    # no marker
    (f"{REFUND}.", [("supported", "uncited", [])]),
])
def test_each_citation_style_is_recognised_and_mapped(answer, expected):
    result, _ = judged(answer)
    assert view(result) == expected
    assert not any("[" in c.text or "Source" in c.text for c in result.claims)


CLAUSES = f"{REFUND} [1], and gift cards are valid for three years from the date of purchase [3]."


def test_a_claim_that_states_two_cited_clauses_cites_both():
    result, _ = judged(CLAUSES)
    assert [c.cited_ids for c in result.claims] == [["kb-1", "kb-3"]]


def test_a_marker_cites_the_clause_it_follows(chat_server):
    """An LLM's claims are aligned to the whole sentence: each still takes its own clause's
    marker (the second cites the wrong passage on purpose)."""
    claims = [REFUND + ".", "Gift cards are valid for three years from the date of purchase."]
    chat_server.handler = judge_model(claims_reply(claims), lambda passages, claim: (
        {"label": "supported", "passage_ids": ["kb-1"], "quote": REFUND} if "Refunds" in claim
        and any(p["id"] == "kb-1" for p in passages) else
        {"label": "supported", "passage_ids": ["kb-3"], "quote": GIFT} if "Gift" in claim
        and any(p["id"] == "kb-3" for p in passages) else
        {"label": "unsupported", "passage_ids": [], "quote": None, "rationale": "none"}))
    result = evaluate(CLAUSES.replace("[3]", "[2]"), PASSAGES, make_judge(chat_server))
    assert [c.cited_ids for c in result.claims] == [["kb-1"], ["kb-2"]]
    assert [c.citation for c in result.claims] == ["correct", "misattributed"]


def test_a_number_that_is_a_passage_id_maps_to_that_passage():
    passages = [{"id": "7", "text": PASSAGES[1]["text"]}, {"id": "2", "text": PASSAGES[0]["text"]}]
    result, _ = judged(f"{SALE} [7]. {REFUND} [2].", passages)
    assert view(result) == [("supported", "correct", ["7"]), ("supported", "correct", ["2"])]


# --------------------------------------------------------------------------------------------
# Classes: misattributed, cited but unsupported; faithfulness unchanged.

@pytest.mark.parametrize("answer", [
    f"{REFUND} [2].",                       # a number pointing at the wrong passage
    f"{REFUND} [kb-3].",                    # an id pointing at the wrong passage
    f"{REFUND}.\n\nSources: kb-2",          # a sources line naming the wrong passage
])
def test_support_by_a_passage_it_does_not_cite_is_misattributed(answer):
    result, _ = judged(answer)
    claim = result.claims[0]
    assert (claim.label, claim.citation) == ("supported", "misattributed")
    assert claim.verdict.passage_ids == ["kb-1"]
    assert "misattributed: supported by kb-1, which it does not cite" in claim.note
    assert result.score == 1.0  # faithfulness counts support by any passage
    assert (result.citation_precision, result.misattributed) == (0.0, 1)


@pytest.mark.parametrize("answer", [
    "Refunds are issued within 30 days of a return being received [1].",
    "Gift cards never expire [kb-3].",
    "Sale items can be refunded in cash (Source 2).",
])
def test_cited_but_unsupported_is_still_a_faithfulness_failure(answer):
    result, _ = judged(answer)
    assert [c.citation for c in result.claims] == ["unsupported"]
    assert not result.claims[0].supported and result.score == 0.0
    bare, _ = judged(answer.replace(" [1]", "").replace(" [kb-3]", "").replace(" (Source 2)", ""))
    assert [c.label for c in bare.claims] == [c.label for c in result.claims]


@pytest.mark.parametrize("marked, bare", [
    (f"{REFUND} [2]. {SALE} [2]. Gift cards never expire [3].",
     f"{REFUND}. {SALE}. Gift cards never expire."),
    (AUDIT_ANSWER, AUDIT_ANSWER.replace(" [p-2071, p-2072]", "")),
    (f"{GIFT}.\n\nSources: kb-1", f"{GIFT}."),
])
def test_faithfulness_is_the_same_with_or_without_citations(marked, bare):
    passages = AUDIT_PASSAGES if "p-2071" in marked else PASSAGES
    with_markers, _ = judged(marked, passages)
    without, _ = judged(bare, passages)
    assert with_markers.score == without.score
    assert [c.label for c in with_markers.claims] == [c.label for c in without.claims]


# --------------------------------------------------------------------------------------------
# Fail closed: a marker that names no passage is a citation that cannot be correct.

@pytest.mark.parametrize("answer, unknown", [
    (f"{REFUND}. [7]", ["7"]),                        # a number past the last passage
    # (inside the sentence, "received [7].", a bracket that names no passage is a value of
    # the claim: test_citation_values.py)
    (f"{REFUND} [kb-9].", ["kb-9"]),                  # an id shaped like theirs, not there
    (f"{REFUND} [1, kb-9].", ["kb-9"]),               # beside a correct one
    (f"{REFUND}.[^4]", ["4"]),                        # a footnote past the last passage
    (f"{REFUND}.\n\nSources: kb-1, kb-77", ["kb-77"]),
])
def test_an_unknown_citation_is_never_correct_and_is_noted(answer, unknown):
    result, _ = judged(answer)
    claim = result.claims[0]
    assert claim.unknown_citations == unknown
    assert claim.citation == "misattributed"  # supported, but its citation is not right
    assert f"cites {', '.join(unknown)}, which names no passage" in claim.note
    assert result.citation_precision == 0.0
    assert claim.supported  # faithfulness is not touched by the marker


# --------------------------------------------------------------------------------------------
# A well-cited answer costs no more judge calls than an uncited one.

def test_well_cited_answer_costs_no_more_offline_judge_calls():
    cited, cited_calls = judged(f"{REFUND} [1]. {SALE} [2]. {GIFT} [3].")
    bare, bare_calls = judged(f"{REFUND}. {SALE}. {GIFT}.")
    assert cited_calls == bare_calls == 4  # one decompose, one verify per claim
    assert cited.citation_precision == 1.0 and cited.usage.calls == bare.usage.calls
    wrong, wrong_calls = judged(f"{REFUND} [2]. {SALE} [1]. {GIFT} [3].")
    assert wrong_calls == 6  # a misattributed claim: its cited passage, then all of them


WELL_CITED = ("Audit log export to S3 is available on the Business plan [p-2071]. The audit log "
              "export destination is configured under Settings > Security > Audit Log Export "
              "[p-2072]. The bucket policy must allow s3:PutObject for the export role [2].")


def test_well_cited_answer_costs_no_more_calls_at_the_chat_server(chat_server):
    chat_server.handler = judge_model(claims_reply(AUDIT_CLAIMS[:3]),
                                      evidence_verifier(AUDIT_SUPPORT))
    judge = make_judge(chat_server)
    cited = evaluate(WELL_CITED, AUDIT_PASSAGES, judge)
    cited_ops = ops(chat_server)
    chat_server.clear()
    bare = evaluate(WELL_CITED.replace(" [p-2071]", "").replace(" [p-2072]", "")
                    .replace(" [2]", ""), AUDIT_PASSAGES, judge)
    assert cited_ops == ops(chat_server) == ["decompose"] + ["verify"] * 3
    assert [c.citation for c in cited.claims] == ["correct"] * 3
    assert [c.cited_ids for c in cited.claims] == [["p-2071"], ["p-2072"], ["p-2072"]]
    assert cited.score == bare.score == 1.0


def test_misattributed_claim_at_the_chat_server_is_checked_against_all_passages(chat_server):
    chat_server.handler = judge_model(claims_reply(AUDIT_CLAIMS[:1]),
                                      evidence_verifier(AUDIT_SUPPORT))
    result = evaluate("Audit log export to S3 is available on the Business plan [p-2072].",
                      AUDIT_PASSAGES, make_judge(chat_server))
    assert ops(chat_server) == ["decompose", "verify", "verify"]
    assert (result.claims[0].label, result.claims[0].citation) == ("supported", "misattributed")


# --------------------------------------------------------------------------------------------
# The audit-log example: claims 1-3 correctly cited, 4-5 cited but unsupported.

def test_audit_log_citations_with_the_offline_judge():
    result, _ = judged(AUDIT_ANSWER, AUDIT_PASSAGES)
    assert [c.citation for c in result.claims] == ["correct"] * 3 + ["unsupported"] * 2
    assert all(c.cited_ids == ["p-2071", "p-2072"] for c in result.claims)
    assert result.citation_precision == pytest.approx(0.6) and result.misattributed == 0
    summary = SessionSummary.of([result])
    assert (summary.cited, summary.correctly_cited, summary.misattributed) == (5, 3, 0)
    assert summary.citation_precision == pytest.approx(0.6)


def test_audit_log_citations_with_the_llm_judge(chat_server):
    chat_server.handler = judge_model(claims_reply(AUDIT_CLAIMS, dropped=["Yes"]),
                                      evidence_verifier(AUDIT_SUPPORT))
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server))
    assert [c.citation for c in result.claims] == ["correct"] * 3 + ["unsupported"] * 2
    assert ops(chat_server) == ["decompose"] + ["verify"] * 5  # as many calls as without


# --------------------------------------------------------------------------------------------
# Through pytest: the JSON report, the reports' figures, the gate options, assert_faithful.

CITED_SUITE = f'''
PASSAGES = {PASSAGES!r}

def test_correct(assert_faithful):
    assert_faithful("{REFUND} [1]. {SALE} [2].", PASSAGES)

def test_misattributed(assert_faithful):
    assert_faithful("{GIFT} [1].", PASSAGES)
'''


def test_json_report_has_citation_fields_and_figures(pytester, tmp_path):
    pytester.makepyfile(CITED_SUITE)
    report = tmp_path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--faithfulness-report={report}")
    result.assert_outcomes(passed=2)
    data = json.loads(report.read_text())
    claims = [c for a in data["answers"] for c in a["claims"]]
    assert [c["citation"] for c in claims] == ["correct", "correct", "misattributed"]
    assert [c["cited_ids"] for c in claims] == [["kb-1"], ["kb-2"], ["kb-1"]]
    summary = data["summary"]
    assert summary["citation_precision"] == pytest.approx(2 / 3)
    assert (summary["misattributed"], summary["cited"]) == (1, 3)
    assert [a["citation_precision"] for a in data["answers"]] == [1.0, 0.0]
    result.stdout.fnmatch_lines(["*citation precision: 0.67 (2 of 3 cited claims correctly "
                                 "cited), 1 misattributed*"])


def test_markdown_html_and_junit_carry_the_citation_figures(pytester, tmp_path):
    pytester.makepyfile(CITED_SUITE)
    md, page, xml = tmp_path / "s.md", tmp_path / "r.html", tmp_path / "j.xml"
    pytester.runpytest("-p", "no:cacheprovider", f"--faithfulness-markdown={md}",
                       f"--faithfulness-html={page}", f"--junitxml={xml}"
                       ).assert_outcomes(passed=2)
    assert "citation precision: 0.67 (2 of 3 cited claims correctly cited), 1 misattributed" \
        in md.read_text()
    html = page.read_text()
    assert 'id="fig-citation-precision"' in html and 'id="fig-misattributed"' in html
    assert "cites kb-1: MISATTRIBUTED" in html
    junit = xml.read_text()
    assert 'name="faithfulness_citation_precision" value="0.000"' in junit
    assert 'name="faithfulness_misattributed" value="1"' in junit


@pytest.mark.parametrize("args, ini, reason", [
    (["--faithfulness-min-citation-precision", "0.9"], "",
     "*GATE FAILED: citation precision 0.667 (2 of 3 cited claims correctly cited) < min "
     "citation precision 0.900*"),
    (["--faithfulness-max-misattributed", "0"], "",
     "*GATE FAILED: 1 misattributed claim(s) (supported, but not by a passage they cite) > "
     "max misattributed 0*"),
    ([], "faithfulness_min_citation_precision = 0.8",
     "*GATE FAILED: citation precision 0.667*"),
    ([], "faithfulness_max_misattributed = 0", "*GATE FAILED: 1 misattributed claim(s)*"),
])
def test_session_gate_on_citations(pytester, args, ini, reason):
    pytester.makepyfile(CITED_SUITE)
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([reason])


def test_session_gate_on_citations_passes_when_met(pytester):
    pytester.makepyfile(CITED_SUITE)
    result = pytester.runpytest("-p", "no:cacheprovider",
                                "--faithfulness-min-citation-precision", "0.6",
                                "--faithfulness-max-misattributed", "1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*min citation precision 0.60, max misattributed 1*"])


def test_min_citation_precision_with_no_cited_claim_fails_the_gate(pytester):
    pytester.makepyfile(f'''
        def test_it(assert_faithful):
            assert_faithful("{REFUND}.", {PASSAGES!r})
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider",
                                "--faithfulness-min-citation-precision", "0.5")
    assert result.ret == 12  # unmeasurable: no cited claim
    result.stdout.fnmatch_lines(["*GATE FAILED: no claim cites a passage, so the min citation "
                                 "precision 0.500 cannot be met*"])


def test_bad_citation_options_are_usage_errors(pytester):
    pytester.makepyfile("def test_it(): pass")
    for args in (["--faithfulness-min-citation-precision", "1.5"],
                 ["--faithfulness-max-misattributed", "-1"]):
        result = pytester.runpytest("-p", "no:cacheprovider", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_assert_faithful_min_citation_precision(pytester):
    pytester.makepyfile(f'''
        import pytest
        PASSAGES = {PASSAGES!r}

        def test_well_cited(assert_faithful):
            result = assert_faithful("{REFUND} [1].", PASSAGES, min_citation_precision=1.0)
            assert result.citation_precision == 1.0

        def test_misattributed(assert_faithful):
            assert_faithful("{REFUND} [2]. {SALE} [2].", PASSAGES, min_citation_precision=0.8)

        def test_uncited(assert_faithful):
            assert_faithful("{REFUND}.", PASSAGES, min_citation_precision=0.5)

        def test_bad_value(assert_faithful):
            with pytest.raises(ValueError, match="min_citation_precision"):
                assert_faithful("{REFUND}.", PASSAGES, min_citation_precision=2)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*FAILED: citation precision 0.50 (1 of 2 cited claims) < min_citation_precision 0.80*",
        "*MISATTRIBUTED*"])
    result.stdout.fnmatch_lines(["*FAILED: no claim cites a passage, so min_citation_precision "
                                 "0.50 cannot be met*"])
