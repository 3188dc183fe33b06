"""The judge canaries' figures (``canary_report``), their bounds, and the gate step in
``finish_run`` (issue 23): Wilson intervals, shards added up on sums, errors as misses, the
``unmeasurable`` kind, and a step that raises failing closed."""

from __future__ import annotations

import pytest

from pytest_faithfulness import OfflineJudge
from pytest_faithfulness.canaries import build_canaries
from pytest_faithfulness.canary_report import CanaryReport, CanaryResult, wilson
from pytest_faithfulness.run.canaries import fitted_on_canaries, judge_canaries
from pytest_faithfulness.run.finish import RunFaces, finish_run
from pytest_faithfulness.run.results import ResultStore
from pytest_faithfulness.settings import Settings


def _result(role: str, kind: str, judge_label: str | None, label: str | None = None,
            error: str | None = None) -> CanaryResult:
    return CanaryResult(role=role, kind=kind, claim=f"{role} {kind}", passage_id="p1",
                        expected="supported" if role == "control" else "not supported",
                        judge_label=judge_label, label=label or judge_label, error=error)


@pytest.mark.parametrize("correct, total, low, high", [
    (0, 5, 0.0, 0.4345), (5, 5, 0.5655, 1.0), (19, 20, 0.7639, 0.9911), (0, 1, 0.0, 0.7935)])
def test_wilson_interval(correct, total, low, high):
    got = wilson(correct, total)
    assert got is not None
    assert got[0] == pytest.approx(low, abs=1e-4) and got[1] == pytest.approx(high, abs=1e-4)


def test_wilson_of_nothing_is_none_and_bad_counts_are_named():
    assert wilson(0, 0) is None
    with pytest.raises(ValueError, match="0 <= correct <= total"):
        wilson(3, 2)


def test_figures_read_the_judges_own_verdicts_and_after_the_check_beside_them():
    report = CanaryReport.of([
        _result("control", "verbatim", "supported"),
        _result("control", "synonym", "supported", "unsupported"),  # refused by the check only
        _result("mutant", "number", "supported", "unsupported"),    # the judge said yes
        _result("mutant", "negation", "contradicted"),
        _result("mutant", "antonym", None, None, error="JudgeError: timed out"),
    ], asked=6)
    assert (report.keep_rate.correct, report.keep_rate.total) == (2, 2)
    assert (report.keep_rate_checked.correct, report.keep_rate_checked.total) == (1, 2)
    assert (report.recall.correct, report.recall.total) == (1, 3)  # the error is a miss
    assert (report.recall_checked.correct, report.recall_checked.total) == (2, 3)
    assert report.errors == 1 and report.built == 5 and report.asked == 6
    assert [m.kind for m in report.missed] == ["synonym", "number", "antonym"]


def test_bounds_read_the_upper_end_of_the_interval():
    # 17 of 20 mutants refused: 0.85 < 0.9, but the interval's upper end (0.95) is not: held
    near = CanaryReport.of([_result("mutant", "number", "unsupported")] * 17
                           + [_result("mutant", "number", "supported")] * 3
                           + [_result("control", "verbatim", "supported")] * 20, asked=40)
    assert near.recall.value == 0.85 and near.bound_failures(0.9, 0.8) == []
    bad = CanaryReport.of([_result("mutant", "number", "supported")] * 20
                          + [_result("control", "verbatim", "unsupported")] * 20, asked=40)
    reasons = bad.bound_failures(0.9, 0.8)
    assert len(reasons) == 2
    assert "canary recall 0.000 (0/20; 95% CI 0.000-0.161)" in reasons[0]
    assert "--faithfulness-min-canary-recall 0.9" in reasons[0]
    assert "control keep-rate" in reasons[1] and "--faithfulness-min-control-keep 0.8" in reasons[1]
    assert bad.bound_failures(None, None) == []


def test_shards_add_up_on_the_sums_never_averaged():
    one = CanaryReport.of([_result("mutant", "number", "supported")]
                          + [_result("control", "verbatim", "supported")], asked=2)
    two = CanaryReport.of([_result("mutant", "number", "unsupported")] * 9
                          + [_result("control", "verbatim", "supported")] * 9, asked=18)
    merged = CanaryReport.merged([one, two])
    assert merged.shards == 2 and merged.asked == 20 and merged.built == 20
    assert (merged.recall.correct, merged.recall.total) == (9, 10)
    assert merged.recall.interval == wilson(9, 10)
    assert len(merged.missed) == 1


def test_a_report_round_trips_through_json():
    report = CanaryReport.of([_result("mutant", "number", "supported")], asked=2,
                             notes=["too few"], smoke_test=True, judge="j")
    again = CanaryReport.model_validate_json(report.model_dump_json())
    assert again == report


def _finish(report_or_error) -> object:
    def canaries():
        if isinstance(report_or_error, Exception):
            raise report_or_error
        return report_or_error

    settings = Settings.from_mapping({})
    return finish_run(ResultStore(), settings, faces=RunFaces(canaries=canaries))


def test_the_gate_step_makes_the_run_unmeasurable():
    bad = CanaryReport.of([_result("mutant", "number", "supported")] * 10, asked=10)
    outcome = _finish(bad)
    assert outcome.canaries is bad
    assert outcome.failures and all(outcome.kind_of(f) == "unmeasurable"
                                    for f in outcome.failures)
    assert outcome.kind == "unmeasurable" and outcome.exitstatus == 12


def test_a_merge_applies_the_strictest_canary_bound_a_shard_ran_with():
    """Found by a new user: a shard gated at min-canary-recall 0.995 (unmeasurable) merged
    with the default 0.9 to a pass. The report keeps the bounds it was gated with."""
    shard = CanaryReport.of([_result("mutant", "number", "unsupported")] * 19
                            + [_result("mutant", "number", "supported")], asked=20)
    shard.min_recall = 0.995  # as apply_canaries leaves it in the shard's saved run
    merged = CanaryReport.merged([shard, CanaryReport.of([], asked=0)])
    outcome = _finish(merged)  # merge's own settings: the default 0.9
    assert outcome.kind == "unmeasurable", outcome.failures
    assert merged.min_recall == 0.995


def test_canaries_asked_but_none_built_are_never_a_plain_pass():
    outcome = _finish(CanaryReport.of([], asked=40, notes=["too few passage sentences"]))
    assert outcome.kind == "passed-with-tolerated" and outcome.exitstatus == 0
    assert any("none built" in t for t in outcome.tolerated)


def test_a_canary_step_that_raises_fails_closed_and_is_kept_for_merge():
    outcome = _finish(RuntimeError("the judge loop broke"))
    assert outcome.failures == ["the faithfulness gate could not judge the canaries: "
                                "RuntimeError: the judge loop broke"]
    assert outcome.kind_of(outcome.failures[0]) == "unmeasurable"
    assert outcome.local_failures == outcome.failures  # a merge cannot recompute it


def test_no_canaries_leave_the_outcome_alone():
    outcome = _finish(None)
    assert outcome.canaries is None and outcome.failures == []


def test_the_offline_judge_is_flagged_a_smoke_test():
    built = build_canaries([[{"id": "p1", "text": "Refunds are issued within 14 days of a "
                                                  "return being received."}]], 2)
    report = judge_canaries(built, OfflineJudge())
    assert fitted_on_canaries(OfflineJudge()) and report.smoke_test
    assert report.usage.calls == 2 and report.errors == 0
