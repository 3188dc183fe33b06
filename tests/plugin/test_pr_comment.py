"""``--faithfulness-pr-comment PATH``: one sticky pull-request comment, always under GitHub's
65,536-character limit."""

from __future__ import annotations

import re

import pytest
from faithfulness_ci_suite import to_v2

from pytest_faithfulness.records import AnswerResult, ClaimResult, Passage, Verdict
from pytest_faithfulness.reports.pr_comment import GITHUB_LIMIT, MARKER, run_page_url
from pytest_faithfulness.runs.saved import list_runs, load_run
from pytest_faithfulness.run.finish import apply_thresholds, compare_with, new_outcome
from pytest_faithfulness.run.gate import GateConfig
from pytest_faithfulness.run.outputs import save_run, write_pr_comment
from pytest_faithfulness.run.results import ResultStore


def test_the_comment_puts_regressions_then_newly_failing_then_recovered(suite, monkeypatch):
    suite.runpytest("--faithfulness-save", "main")
    to_v2(suite)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/rag")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    result = suite.runpytest("--faithfulness-compare=main", "--faithfulness-compare-fail",
                             "mean:0.01", "--faithfulness-html", "report.html",
                             "--faithfulness-pr-comment", "comment.md")
    result.stdout.fnmatch_lines(["pull-request comment: comment.md"])
    text = (suite.path / "comment.md").read_text()
    assert text.splitlines()[0] == MARKER
    assert text.splitlines()[1].startswith("## Faithfulness: ❌ gate failed")
    order = [text.index(h) for h in ("**mean faithfulness ", "**Gate failed:**",
                                     "#### Regressions (", "#### Newly failing answers (",
                                     "Recovered answers (", "<details><summary>Figures",
                                     "**Verdict:**")]
    assert order == sorted(order)
    newly = text[text.index("#### Newly failing"):text.index("Recovered answers (")]
    assert "**unsupported** (was supported)" in newly or "(was absent)" in newly
    assert "judge calls: " in text
    assert "the HTML report `report.html`" in text
    assert "[this CI run](https://github.com/acme/rag/actions/runs/42)" in text
    assert len(text) < GITHUB_LIMIT


def test_without_a_base_run_the_comment_lists_the_failing_answers_with_quotes(pytester):
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful("The lamp has three levels. It weighs 9 kg.",
                            ["The lamp has three levels. It weighs 2 kg."])
    ''')
    pytester.runpytest("--faithfulness-pr-comment", "c.md")
    text = (pytester.path / "c.md").read_text()
    assert "### Answers that failed their own thresholds (1)" in text
    assert "**contradicted**: The lamp weighs 9 kg." in text
    assert "— passage p1: “" in text


def _answer(i: int, label: str, text_size: int) -> AnswerResult:
    words = ("word " * (text_size // 5)).strip()
    passage = Passage(id="p1", text=f"Passage {i}: {words}")
    claims = [ClaimResult(text=f"Claim {i}.{k} {words}",
                          verdict=Verdict(label=label if k else "supported",
                                          passage_ids=["p1"] if label != "unsupported" or not k
                                          else [], quote=passage.text[:80]
                                          if label != "unsupported" or not k else None))
              for k in range(5)]
    return AnswerResult(answer=f"Answer {i}. {words}", passages=[passage], status="scored",
                        claims=claims, test_id=f"tests/test_big.py::test_answer[{i}]",
                        judge="scripted")


@pytest.mark.parametrize("size", [1_500, 4_000])
def test_a_huge_run_is_cut_under_the_limit_with_a_note_and_a_pointer(tmp_path, size,
                                                                   monkeypatch):
    """Thousands of answers regress against the base run: the comment keeps the marker, the
    headline and as many items as fit, and says what was left out and where to look."""
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    base = ResultStore()
    for i in range(size):
        base.record(_answer(i, "supported", 60))
    based = new_outcome(base, GateConfig())
    apply_thresholds(based, GateConfig())
    path = save_run(base, based, tmp_path / "runs", "main")
    now = ResultStore()
    for i in range(size):
        now.record(_answer(i, "contradicted" if i % 2 else "unsupported", 60))
    outcome = new_outcome(now, GateConfig())
    apply_thresholds(outcome, GateConfig())
    from pytest_faithfulness.runs.compare import parse_compare_fail

    compare_with(now, outcome, load_run(path), parse_compare_fail("mean:0.01"),
                 baseline_path=path)
    written = write_pr_comment(outcome, tmp_path / "comment.md", html="out/report.html")
    text = written.read_text(encoding="utf-8")
    assert len(text) <= GITHUB_LIMIT
    assert text.startswith(MARKER + "\n## Faithfulness: ❌ gate failed")
    assert "**mean faithfulness 0.200 (95% CI 0.200–0.200)**" in text  # all answers 1 of 5
    assert "> ✂️ " in text and "item(s) left out to stay under GitHub's comment limit" in text
    assert "see every answer in the HTML report `report.html`" in text
    assert text.rstrip().splitlines()[-1].startswith("**Verdict:**")
    assert "regression against main: mean faithfulness dropped" in text
    assert list_runs(tmp_path / "runs")


def test_the_run_page_url_comes_from_github_actions_variables():
    env = {"GITHUB_SERVER_URL": "https://github.example/", "GITHUB_REPOSITORY": "o/r",
           "GITHUB_RUN_ID": "7"}
    assert run_page_url(env) == "https://github.example/o/r/actions/runs/7"
    assert run_page_url({"GITHUB_REPOSITORY": "o/r"}) is None


def test_confidence_intervals_are_shown_when_the_summary_has_them():
    from pytest_faithfulness.records import FigureIntervals
    from pytest_faithfulness.reports.pr_comment import pr_comment
    from pytest_faithfulness.reports.verdict import run_verdict

    session = ResultStore()
    session.record(_answer(1, "supported", 10))
    summary = session.summary().model_copy(update={"ci": FigureIntervals(
        mean=(0.71, 0.93), unsupported_rate=(0.0, 0.2))})
    text = pr_comment(session.results, summary, [], [], verdict=run_verdict([]))
    assert "**mean faithfulness 1.000 (95% CI 0.710–0.930)**" in text
    assert "not supported: 0.000 (95% CI 0.000–0.200)" in text
    plain = pr_comment(session.results, summary.model_copy(update={"ci": None}), [], [],
                       verdict=run_verdict([]))
    assert "CI" not in plain


def test_quoted_text_never_mentions_anyone_on_github():
    """Found by a new user: "@security-team" in a failing claim would notify the team."""
    from pytest_faithfulness.reports.markdown import md_escape

    for text in ("Escalate to @security-team now.", "Ask @octocat.", "mail a@b.example"):
        escaped = md_escape(text)
        assert not re.search(r"@[\w-]", escaped), escaped
        assert escaped.replace("\u200b", "") == text


LIVE_TEXT = ("Read https://evil.example/steal_it and www.evil.example, see acme/rag#12, #7 "
             "and GH-3; ask @octocat.")


def test_quoted_links_and_issue_references_are_inert_but_readable(pytester):
    """Issue 21 item 14: a failing claim, its passage quote and its answer's test id hold a
    bare URL, a www. address and issue references; in the comment none of them is a live
    link or a cross-reference (a zero-width space inside each), and the text reads the same
    once the zero-width spaces are taken out."""
    pytester.makepyfile(f'''
        import pytest

        @pytest.mark.parametrize("ref", ["acme/rag#12"])
        def test_it(assert_faithful, ref):
            assert_faithful({LIVE_TEXT!r}, [{{"id": "p1", "text": "The lamp weighs 2 kg."}}])
    ''')
    pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-pr-comment", "c.md")
    text = (pytester.path / "c.md").read_text(encoding="utf-8")
    claims = [line for line in text.splitlines() if line.startswith("  - **")]
    assert claims, text  # the failing claims are listed
    body = "\n".join(line for line in text.splitlines() if "[this CI run]" not in line)
    for live in (r"[A-Za-z]://", r"\bwww\.", r"#\d", r"\bGH-\d", r"@[\w-]"):
        assert not re.search(live, body, re.IGNORECASE), (live, body)
    plain = re.sub(r"\\(.)", r"\1", body.replace("\u200b", ""))  # Markdown escapes off
    for reference in ("https://evil.example/steal_it", "www.evil.example", "acme/rag#12",
                      "#7", "GH-3", "@octocat", "test_it[acme/rag#12]"):
        assert reference in plain, reference


def test_the_comment_lists_the_outcomes_failing_answers_as_the_other_reports_do():
    from pytest_faithfulness.reports.markdown import markdown_of
    from pytest_faithfulness.reports.pr_comment import pr_comment_of
    from pytest_faithfulness.run.outcome import RunOutcome

    session = ResultStore()
    failing = _answer(1, "unsupported", 10).model_copy(update={"max_unsupported": 0})
    session.record(failing)
    assert not failing.passed
    heading = "Answers that failed their own thresholds (1)"
    found = RunOutcome.of(session.results, session.summary(), [], [])
    assert heading in pr_comment_of(found) and found.failing == [failing]
    given = RunOutcome.of(session.results, session.summary(), [], [], failing=[])
    assert heading not in pr_comment_of(given)  # the outcome's list, not a rule of its own
    assert pr_comment_of(given).splitlines()[-1] == f"**Verdict:** {given.verdict().text}"
    assert markdown_of(given).splitlines()[-1].endswith(given.verdict().text)
