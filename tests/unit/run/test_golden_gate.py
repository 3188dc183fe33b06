"""``run.golden`` without pytest: the marker's arguments, the patterns, the statuses a merge
keeps, what counts as fully supported (fail closed), the gate through ``finish_run`` and the
golden flag through the xdist payload and a saved run."""

from __future__ import annotations

import pytest

from pytest_faithfulness.records import AnswerResult, ClaimResult, Verdict
from pytest_faithfulness.run.finish import finish_run
from pytest_faithfulness.run.golden import (
    GoldenMarkerError,
    GoldenTests,
    answer_problem,
    is_golden,
    marker_golden,
    matches,
)
from pytest_faithfulness.run.results import ResultStore
from pytest_faithfulness.runs.saved import SavedRun, load_run, save_run
from pytest_faithfulness.settings import Settings


def _answer(test_id: str, *labels: str | None, golden: bool = True, **fields) -> AnswerResult:
    claims = [ClaimResult(text=f"claim {i}", verdict=Verdict(label) if label else None)
              for i, label in enumerate(labels)]
    fields.setdefault("status", "scored" if claims else "unscored")
    return AnswerResult(answer="a", claims=claims, test_id=test_id, golden=golden, **fields)


@pytest.mark.parametrize("args, kwargs, message", [
    ((True,), {}, "keyword arguments only"),
    ((), {"golden": True, "gold": 1}, "unknown keyword argument(s) gold"),
    ((), {"golden": "true"}, "must be True or False, got 'true'"),
    ((), {"golden": 1}, "must be True or False, got 1"),
    ((), {"golden": None}, "must be True or False, got None"),
])
def test_bad_marker_arguments_name_the_test(args, kwargs, message):
    with pytest.raises(GoldenMarkerError, match="^t.py::test_x: ") as info:
        marker_golden("t.py::test_x", args, kwargs)
    assert message in str(info.value)


def test_the_nearest_marker_that_says_wins_over_the_patterns():
    assert marker_golden("t", (), {}) is None
    assert is_golden("t.py::test_a", [((), {})], ["*::test_a"])  # bare marker: the pattern
    assert not is_golden("t.py::test_a", [((), {"golden": False}), ((), {"golden": True})],
                         ["*"])
    assert is_golden("t.py::test_a", [((), {}), ((), {"golden": True})], [])
    with pytest.raises(GoldenMarkerError):  # every marker is checked, not only the nearest
        is_golden("t.py::test_a", [((), {"golden": True}), ((), {"golden": "x"})], [])
    assert matches("tests/test_rag.py::test_refund[en]", ["tests/*::test_refund*"])
    assert not matches("tests/test_rag.py::test_refund", ["test_refund"])


def test_merged_statuses_keep_the_strongest():
    golden = GoldenTests({"a": "deselected", "b": "selected"})
    golden.merge({"a": "selected", "b": "ran", "c": "skipped", "d": "from-the-future"})
    golden.merge(GoldenTests({"a": "deselected", "c": "ran"}))
    golden.update("e", "ran")  # not golden here: left alone
    assert golden.to_dict() == {"a": "selected", "b": "ran", "c": "ran", "d": "selected"}
    with pytest.raises(ValueError, match="unknown golden test status 'gone'"):
        golden.note("a", "gone")


@pytest.mark.parametrize("result, problem", [
    (_answer("t", "supported", "supported"), None),
    (_answer("t", "supported", "contradicted"), "1 of 2 claim(s) not supported "
                                                "(contradicted: 'claim 1')"),
    (_answer("t", "supported", None), "1 of 2 claim(s) not supported (no verdict: 'claim 1')"),
    (_answer("t"), "unscored: no claim to check"),
    (_answer("t", status="error", error="HTTP 500", error_kind="judge"),
     "errored (judge: HTTP 500)"),
    (_answer("t", status="unverified", unverified_reason="Spanish"),
     "unverified, not judged (Spanish)"),
])
def test_only_every_claim_supported_is_fully_supported(result, problem):
    assert answer_problem(result) == problem


def _finish(store: ResultStore, **options) -> object:
    return finish_run(store, Settings(**options))


def test_a_golden_failure_fails_a_run_whose_thresholds_pass():
    store = ResultStore()
    for n in range(9):
        store.record(_answer(f"t.py::test_{n}", "supported", golden=False))
    store.record(_answer("t.py::test_9", "supported", "unsupported", "supported"))
    store.golden.note("t.py::test_9", "ran")
    outcome = _finish(store, min_mean=0.9)
    assert outcome.summary.mean_faithfulness > 0.9
    assert [outcome.kind_of(f) for f in outcome.failures] == ["golden"]
    assert outcome.kind == "failed" and outcome.exitstatus == 1
    assert outcome.golden.failing == ["t.py::test_9: 1 of 3 claim(s) not supported "
                                      "(unsupported: 'claim 1')"]
    assert outcome.decision()["reasons"][0]["kind"] == "golden"


def test_a_run_without_golden_tests_is_untouched():
    store = ResultStore()
    store.record(_answer("t.py::test_0", "supported", golden=False))
    outcome = _finish(store)
    assert outcome.failures == [] and outcome.kind == "passed"
    assert outcome.golden.lines() == []


def test_the_flag_and_the_tests_survive_the_payload_and_a_saved_run(tmp_path):
    worker = ResultStore()
    worker.record(_answer("t.py::test_g#2", "supported"))
    worker.golden.note("t.py::test_g", "ran")
    worker.golden.note("t.py::test_s", "skipped")
    controller = ResultStore()
    controller.merge_payload(worker.to_payload())
    assert controller.results[0].golden is True
    assert controller.golden.to_dict() == {"t.py::test_g": "ran", "t.py::test_s": "skipped"}
    outcome = _finish(controller)
    assert outcome.golden.not_checked == ["t.py::test_s (skipped)"]  # tolerated, not failed
    assert outcome.failures == [] and outcome.kind == "passed-with-tolerated"
    from pytest_faithfulness.run.outputs import saved_run

    path = save_run(saved_run(controller, outcome, "main"), tmp_path, signing_key=None)
    loaded = load_run(path)
    assert loaded.golden_tests == controller.golden.to_dict()
    assert loaded.answers[0].golden is True
    assert AnswerResult.model_validate(loaded.results[0]).golden is True
    assert SavedRun.model_validate({"name": "old"}).golden_tests == {}  # older runs load
