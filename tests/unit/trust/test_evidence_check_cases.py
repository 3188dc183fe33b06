"""The evidence-check benchmark's case list (``benchmarks/evidence_check.py``, part c): every
case runs through ``evaluate()`` with its scripted judge and is reported pass/fail; the list
holds each opposite pair in both directions. The figures themselves are the benchmark's, not a
test's (they measure whatever check is in place)."""

import importlib.util

from repo_paths import ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("evidence_check", ROOT / "benchmarks" / "evidence_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_case_runs_through_evaluate_and_is_reported():
    bench = _bench()
    report = bench.cases()
    expected = 1 + len(bench.FALSE_ALARMS) + len(bench.OPPOSITES)
    assert report["of"] == len(report["cases"]) == expected
    assert report["passed"] == sum(c["passed"] for c in report["cases"])
    for case in report["cases"]:
        assert isinstance(case["passed"], bool) and case["group"] in ("false alarm", "opposite")
        assert case["got"]
    # a refused verdict says why (the check's reason, kept in the rationale)
    refused = [c for c in report["cases"] if c["got"] == "refused"]
    assert all(c["reason"] for c in refused)


def test_opposite_pairs_both_directions():
    bench = _bench()
    assert len(bench.OPPOSITES) == 2 * len(bench._OPPOSITES)
    pairs = {(claim, passages[0]["text"]) for _, claim, passages, _ in bench.OPPOSITES}
    for a, b in bench._OPPOSITES:
        assert (a, b) in pairs and (b, a) in pairs


def test_scripted_judge_returns_the_given_verdicts():
    bench = _bench()
    verdict = bench._sup(("p1", "Refunds take 14 days."))
    judge = bench.ScriptedJudge(["Refunds take 14 days."], [verdict])
    assert judge.decompose("anything") == ["Refunds take 14 days."]
    assert judge.verify("Refunds take 14 days.", []) is verdict
