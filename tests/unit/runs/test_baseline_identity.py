"""What the baseline is: inputs and suite digests, answers added / removed / changed, figures
over the answers both runs share, and the baseline's age and ancestry read from real git
repositories under ``tmp_path`` (a shallow clone among them)."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from pytest_faithfulness import Passage
from pytest_faithfulness.runs.baseline_identity import (
    ancestry,
    check_baseline,
    compare_inputs,
    identity_lines,
    inputs_digest,
    suite_digest,
)
from pytest_faithfulness.runs.compare import check_regressions, compare_runs, parse_compare_fail
from pytest_faithfulness.runs.saved import GitInfo, SavedAnswer, SavedClaim, SavedRun

P1 = [Passage(id="p1", text="The Kestrel weighs 23 kg.")]
P2 = [Passage(id="p1", text="The Kestrel weighs 24 kg.")]


def _answer(test_id: str, labels: list[str], text: str = "A. B.",
            passages: list[Passage] = P1, *, old: bool = False) -> SavedAnswer:
    """A saved answer scored from ``labels`` (``old``: saved before inputs digests)."""
    claims = [SavedClaim(text=f"claim {i}", label=label) for i, label in enumerate(labels)]
    supported = sum(1 for label in labels if label == "supported")
    return SavedAnswer(
        test_id=test_id, status="scored", score=supported / len(labels), claims=claims,
        supported=supported, unsupported=sum(1 for x in labels if x == "unsupported"),
        contradicted=sum(1 for x in labels if x == "contradicted"), answer=text,
        passages_digest=None if old else "digest-" + passages[0].text,
        inputs_digest=None if old else inputs_digest(text, passages))


def _run(*answers: SavedAnswer, name: str = "run") -> SavedRun:
    from pytest_faithfulness.records import SessionSummary
    from pytest_faithfulness.runs.saved import RunFigures

    scored = [a for a in answers if a.score is not None]
    flagged = [a for a in scored if any(c.label != "supported" for c in a.claims)]
    summary = SessionSummary(
        answers=len(answers), scored=len(scored),
        mean_faithfulness=sum(a.score for a in scored if a.score is not None) / len(scored),
        unsupported_answer_rate=len(flagged) / len(scored),
        claims=sum(len(a.claims) for a in answers),
        supported=sum(a.supported for a in answers),
        unsupported=sum(a.unsupported for a in answers),
        contradicted=sum(a.contradicted for a in answers))
    return SavedRun(name=name, answers=list(answers), figures=RunFigures.of(summary),
                    suite_digest=suite_digest(answers))


# digests ---------------------------------------------------------------------------------------

def test_inputs_digest_changes_with_the_answer_and_every_part_of_every_passage():
    base = inputs_digest("A.", P1)
    assert base == inputs_digest("A.", [Passage(id="p1", text="The Kestrel weighs 23 kg.")])
    assert len(base) == 64
    others = {
        inputs_digest("A!", P1), inputs_digest("A.", P2),
        inputs_digest("A.", [Passage(id="p2", text=P1[0].text)]),
        inputs_digest("A.", [Passage(id="p1", text=P1[0].text, title="T")]),
        inputs_digest("A.", P1 + P2), inputs_digest("A.", P2 + P1),
    }
    assert base not in others and len(others) == 6


def test_suite_digest_ignores_order_and_is_unknown_for_runs_saved_before_digests():
    a, b = _answer("t::a", ["supported"]), _answer("t::b", ["supported"], text="Other.")
    assert suite_digest([a, b]) == suite_digest([b, a])
    assert suite_digest([a]) != suite_digest([a, b])
    assert suite_digest([a, _answer("t::b", ["supported"], text="Else.")]) != \
        suite_digest([a, b])
    assert suite_digest([a, _answer("t::c", ["supported"], old=True)]) is None


def test_saved_runs_record_inputs_and_suite_digests_and_older_files_still_load():
    from pytest_faithfulness import AnswerResult

    result = AnswerResult(answer="A.", passages=P1, test_id="t::a", status="unscored")
    saved = SavedRun.of([result], result_summary([result]))
    assert saved.answers[0].inputs_digest == inputs_digest("A.", P1)
    assert saved.suite_digest == suite_digest(saved.answers)
    data = saved.model_dump(mode="json")
    del data["suite_digest"], data["answers"][0]["inputs_digest"]
    older = SavedRun.model_validate(data)
    assert older.suite_digest is None and older.answers[0].inputs_digest is None


def result_summary(results):
    from pytest_faithfulness.records import SessionSummary

    return SessionSummary.of(results)


# added, removed, changed ---------------------------------------------------------------------

def test_comparison_lists_added_removed_and_changed_and_says_what_the_figures_cover():
    baseline = _run(_answer("t::same", ["supported"]), _answer("t::edited", ["supported"]),
                    _answer("t::gone", ["supported"]))
    current = _run(_answer("t::same", ["supported"]),
                   _answer("t::edited", ["supported"], passages=P2),
                   _answer("t::new", ["supported"]))
    comparison = compare_runs(baseline, current)
    assert comparison.added == ["t::new"] and comparison.removed == ["t::gone"]
    assert comparison.changed == ["t::edited"]
    assert comparison.shared is not None and comparison.shared.answers == 2
    assert comparison.shared.statement == (
        "figures over the 2 answers both runs share; 1 added, 1 removed, 1 changed")
    lines = identity_lines(comparison)
    assert lines[0].startswith(comparison.shared.statement)
    assert "changed (same test id, inputs differ): t::edited" in lines
    assert any(line.startswith("suite: differs from the baseline's") for line in lines)
    data = comparison.model_dump(mode="json")
    assert data["changed"] == ["t::edited"] and data["shared"]["answers"] == 2


def test_an_older_baseline_falls_back_to_the_answer_text_and_says_when_inputs_are_unknown():
    baseline = _run(_answer("t::a", ["supported"], old=True),
                    _answer("t::b", ["supported"], old=True))
    current = _run(_answer("t::a", ["supported"]),
                   _answer("t::b", ["supported"], text="Rewritten."))
    comparison = compare_runs(baseline, current)
    assert comparison.changed == ["t::b"]
    assert comparison.shared is not None and comparison.shared.unknown == ["t::a"]
    lines = identity_lines(comparison)
    assert any("inputs unknown for 1 shared answer(s)" in line for line in lines)
    assert "suite: unknown (a run saved before suite digests)" in lines
    # passages digests in both runs (inputs digests in neither): compared on those
    with_passages = SavedAnswer(test_id="t", status="scored", answer="A.",
                                passages_digest="x")
    assert compare_inputs(with_passages, with_passages.model_copy()) == "same"
    assert compare_inputs(with_passages,
                          with_passages.model_copy(update={"passages_digest": "y"})) == "changed"


def test_a_drop_hidden_by_removing_answers_still_fails_over_the_shared_answers():
    """Whole runs: 0.5 -> 0.5. The shared answer dropped 1.0 -> 0.5; the answer removed was
    the bad one. The bound is checked over the shared answers too, so it fails."""
    baseline = _run(_answer("t::kept", ["supported", "supported"]),
                    _answer("t::bad", ["unsupported", "unsupported"]))
    current = _run(_answer("t::kept", ["supported", "unsupported"]))
    comparison = compare_runs(baseline, current)
    assert comparison.figure("mean_faithfulness").delta == pytest.approx(0.0)
    failures = check_regressions(comparison, parse_compare_fail("mean:0.1"))
    assert len(failures) == 1
    assert "mean faithfulness dropped by 0.500 (1.000 -> 0.500)" in failures[0]
    assert "(over the 1 answers both runs share)" in failures[0]


def test_a_drop_hidden_by_adding_good_answers_fails_and_a_rename_still_counts():
    baseline = _run(_answer("t::a", ["supported"]), _answer("t::b", ["supported"]))
    # t::b renamed to t::b2 with an unsupported claim; good answers added
    current = _run(_answer("t::a", ["supported"]), _answer("t::b2", ["unsupported"]),
                   *[_answer(f"t::good{i}", ["supported"]) for i in range(8)])
    comparison = compare_runs(baseline, current)
    assert comparison.worsened == 1  # the renamed answer's claim counts as worsened
    # whole runs: 1.0 -> 0.9; shared (t::a): 1.0 -> 1.0
    failures = check_regressions(comparison, parse_compare_fail("mean:0.05,worsened:0"))
    assert any("(over the whole runs)" in f and "mean faithfulness dropped by 0.100" in f
               for f in failures)
    assert any("1 claims that became unsupported or contradicted > 0" in f for f in failures)


def test_same_answers_keep_the_bound_message_as_it_was():
    baseline = _run(_answer("t::a", ["supported"]), _answer("t::b", ["supported"]))
    current = _run(_answer("t::a", ["supported"]), _answer("t::b", ["unsupported"]))
    comparison = compare_runs(baseline, current)
    assert comparison.shared is not None and comparison.shared.same_set
    failures = check_regressions(comparison, parse_compare_fail("mean:0.1"))
    assert len(failures) == 1 and "over the" not in failures[0]
    assert identity_lines(comparison)[0].startswith(
        "figures over the 2 answers both runs share; 0 added, 0 removed, 0 changed")


# age and ancestry ------------------------------------------------------------------------------

def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always",
                           *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit(repo: Path, name: str) -> str:
    (repo / f"{name}.txt").write_text(name, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", name)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def history(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: a -> b -> c; side: a -> s (a branch off a)."""
    repo = tmp_path / "origin"
    repo.mkdir()
    _git(repo, "init", "-q")
    commits = {"a": _commit(repo, "a")}
    _git(repo, "checkout", "-q", "-b", "side")
    commits["s"] = _commit(repo, "s")
    _git(repo, "checkout", "-q", "main")
    commits["b"] = _commit(repo, "b")
    commits["c"] = _commit(repo, "c")
    return repo, commits


def test_ancestry_in_a_full_clone(history):
    repo, c = history
    assert ancestry(c["a"], c["c"], repo)[0] == "ancestor"
    assert ancestry(c["c"], c["c"], repo)[0] == "ancestor"
    state, why = ancestry(c["s"], c["c"], repo)
    assert state == "not-ancestor" and "is not an ancestor" in why
    assert ancestry(c["c"], c["a"], repo)[0] == "not-ancestor"  # a descendant is not one
    state, why = ancestry("0" * 40, c["c"], repo)
    assert state == "unknown" and "is not in this clone" in why


def test_ancestry_in_a_shallow_clone_is_unknown_rather_than_guessed(history, tmp_path):
    repo, c = history
    clone = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{repo}",
         str(clone))
    assert _git(clone, "rev-parse", "--is-shallow-repository") == "true"
    # the baseline's commit is not in the clone at all
    state, why = ancestry(c["a"], c["c"], clone)
    assert state == "unknown"
    assert "not in this shallow clone" in why and "fetch-depth: 0" in why
    # both tips are in the clone, but the history between them is cut: "no" is not known
    state, why = ancestry(c["s"], c["c"], clone)
    assert state == "unknown" and "shallow clone" in why
    assert ancestry(c["c"], c["c"], clone)[0] == "ancestor"  # the same commit is certain
    _git(clone, "fetch", "-q", "--unshallow")
    assert ancestry(c["s"], c["c"], clone)[0] == "not-ancestor"
    assert ancestry(c["a"], c["c"], clone)[0] == "ancestor"


def test_ancestry_outside_git_or_without_commits_is_unknown(tmp_path, history):
    _, c = history
    assert ancestry(c["a"], c["c"], tmp_path / "nowhere")[0] == "unknown"
    plain = tmp_path / "plain"
    plain.mkdir()
    state, why = ancestry(c["a"], c["c"], plain)
    assert state == "unknown" and "not a git checkout" in why
    assert ancestry(None, c["c"], plain) == ("unknown", "the baseline records no commit")
    assert ancestry(c["a"], None, plain)[0] == "unknown"


def test_check_baseline_names_a_stale_baseline_and_one_off_this_history(history):
    repo, c = history
    now = datetime(2026, 1, 31, tzinfo=timezone.utc)
    fresh = SavedRun(name="main", created=(now - timedelta(days=2)).isoformat(),
                     git=GitInfo(commit=c["a"]))
    check = check_baseline(fresh, c["c"], repo, max_age_days=7, now=now)
    assert check.problems == [] and check.ancestry == "ancestor"
    assert check.age_days == pytest.approx(2.0)
    stale = fresh.model_copy(update={"created": (now - timedelta(days=10)).isoformat()})
    check = check_baseline(stale, c["c"], repo, max_age_days=7, now=now)
    assert check.problems == ["baseline main is 10.0 days old, older than the 7 days allowed "
                              "(--faithfulness-max-baseline-age): save a newer one"]
    side = fresh.model_copy(update={"git": GitInfo(commit=c["s"])})
    check = check_baseline(side, c["c"], repo, max_age_days=7, now=now)
    assert check.ancestry == "not-ancestor" and len(check.problems) == 1
    assert "is not an ancestor of this run's commit" in check.problems[0]
    undated = SavedRun(name="old", git=GitInfo(commit=c["a"]))
    check = check_baseline(undated, c["c"], repo, max_age_days=7, now=now)
    assert check.age_days is None and "records no readable date" in check.problems[0]
    garbled = fresh.model_copy(update={"created": "yesterday-ish"})
    check = check_baseline(garbled, c["c"], repo, max_age_days=7, now=now)
    assert "no readable date" in check.problems[0] and "yesterday-ish" in check.problems[0]
    dirty = fresh.model_copy(update={"git": GitInfo(commit=c["c"], dirty=True)})
    check = check_baseline(dirty, c["c"], repo, max_age_days=7, now=now)
    assert len(check.problems) == 1 and "uncommitted changes" in check.problems[0]
    # a date in the future (an edited file) is never "fresh": a negative age is a problem
    future = fresh.model_copy(update={"created": (now + timedelta(days=400)).isoformat()})
    check = check_baseline(future, c["c"], repo, max_age_days=7, now=now)
    assert len(check.problems) == 1 and "in the future" in check.problems[0]
    # without a bound the age is reported but never a problem
    assert check_baseline(stale, c["c"], repo, now=now).problems == []
