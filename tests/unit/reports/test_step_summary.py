"""The job summary stays under GitHub's 1 MiB per step (issue 23): a huge run's Markdown is cut
in the middle, keeping its head and its verdict, with a line saying what was cut and where the
full report is; the Markdown file itself is written whole."""

from __future__ import annotations

import pytest

from pytest_faithfulness.records import AnswerResult, ClaimResult, Passage, Verdict
from pytest_faithfulness.reports.markdown import STEP_SUMMARY_LIMIT, fit_markdown, markdown_of
from pytest_faithfulness.run.finish import compare_with, new_outcome
from pytest_faithfulness.run.gate import GateConfig
from pytest_faithfulness.run.outcome import RunOutcome
from pytest_faithfulness.run.outputs import OutputFiles, saved_run, write_outputs
from pytest_faithfulness.run.results import ResultStore

ANSWERS, CLAIMS = 300, 30


def _result(i: int, label: str) -> AnswerResult:
    text = " ".join(f"word{i}x{k}" for k in range(40))
    claims = [ClaimResult(text=f"Claim {j} of answer {i}: {text}.",
                          verdict=Verdict(label, rationale=f"No passage says so: {text}"))
              for j in range(CLAIMS)]
    return AnswerResult(answer=text, passages=[Passage(id="p1", text=text)], status="scored",
                        claims=claims, test_id=f"tests/test_big.py::test_answer[{i}]",
                        max_unsupported=0)


@pytest.fixture(scope="module")
def huge() -> tuple[ResultStore, RunOutcome]:
    """300 answers of 30 claims, every claim supported in the saved run and unsupported now:
    the comparison alone lists 9,000 claims that got worse."""
    before = ResultStore()
    for i in range(ANSWERS):
        before.record(_result(i, "supported"))
    baseline = saved_run(before, new_outcome(before, GateConfig()), "main")
    store = ResultStore()
    for i in range(ANSWERS):
        store.record(_result(i, "unsupported"))
    outcome = new_outcome(store, GateConfig())
    compare_with(store, outcome, baseline)
    return store, outcome


def test_a_huge_runs_step_summary_is_cut_under_1_mib(huge, tmp_path):
    store, outcome = huge
    full = markdown_of(outcome)
    assert len(full.encode("utf-8")) > STEP_SUMMARY_LIMIT
    step = tmp_path / "step_summary.md"
    write_outputs(store, outcome, OutputFiles(markdown=tmp_path / "full.md", step_summary=step))
    # the Markdown file is whole; the step summary is cut
    assert (tmp_path / "full.md").read_text(encoding="utf-8") == full
    data = step.read_bytes()
    assert STEP_SUMMARY_LIMIT - 32 * 1024 < len(data) <= STEP_SUMMARY_LIMIT
    text = data.decode("utf-8")
    head = full[: full.index("### Compared with main")]
    assert text.startswith(head)  # the outcome, figures and gate reasons are all there
    assert text.rstrip("\n").endswith(full.rstrip("\n").splitlines()[-1])  # and the verdict
    assert text.rstrip("\n").splitlines()[-1].startswith("**Verdict:**")
    note = next(line for line in text.splitlines() if "**Truncated:**" in line)
    # the lines added: the note's 3 and the 2 that close the <details> block
    cut = len(full.split("\n")) - len(text.split("\n")) + 5
    assert f" {cut} line(s) (" in note
    assert 'from the section "Compared with main (saved ' in note
    assert f"the full report: `{(tmp_path / 'full.md')}`" in note.replace("\\", "")
    # the cut fell inside the <details> of the changed answers: it is closed
    assert text.count("<details>") == text.count("</details>") == 1


def test_what_earlier_steps_wrote_counts_against_the_limit(huge, tmp_path):
    store, outcome = huge
    step = tmp_path / "step_summary.md"
    earlier = "# an earlier step\n" + "x" * 999_000 + "\n"
    step.write_text(earlier, encoding="utf-8")
    write_outputs(store, outcome, OutputFiles(step_summary=step))
    text = step.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= STEP_SUMMARY_LIMIT
    assert text.startswith(earlier + "\n## Faithfulness: ")
    assert "the full report: not written (--faithfulness-markdown, --faithfulness-html or " \
           "--faithfulness-report write it)." in text
    assert text.rstrip("\n").splitlines()[-1].startswith("**Verdict:**")


def test_fit_markdown_leaves_a_summary_that_fits_alone_and_never_exceeds_the_bound():
    text = "\n".join(["## Faithfulness: ✅ gate passed", "", "| a | b |", "|---|---|"]
                     + [f"| row {i} é | ✓ |" for i in range(200)]
                     + ["", "**Verdict:** passed", ""])
    size = len(text.encode("utf-8"))
    assert fit_markdown(text, size) == text
    for bound in (-5, 0, 1, 10, 100, 400, 600, 1000, size - 1):
        fitted = fit_markdown(text, bound, full_report="out/s.md")
        assert len(fitted.encode("utf-8")) <= max(bound, 0), bound
    fitted = fit_markdown(text, 1000, full_report="out/s.md")
    assert fitted.startswith("## Faithfulness: ✅ gate passed\n\n| a | b |")
    assert fitted.endswith("\n**Verdict:** passed\n")
    assert 'were cut here, from the section "Faithfulness: ✅ gate passed" on' in fitted
    assert "the full report: `out/s.md`." in fitted
