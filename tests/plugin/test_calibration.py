"""Calibration against human labels: figures checked against a hand-computed confusion matrix,
through real pytest runs of ``--faithfulness-calibrate``."""

from __future__ import annotations

import json

import pytest

from pytest_faithfulness.calibration import (
    Outcome,
    balanced_accuracy,
    bootstrap_ci,
    cohen_kappa,
    load_labelled,
    report,
)

# The scripted judge quotes the claim itself for a supported verdict, so the passage holds
# each claim it judges supported (check_verdict accepts only a quote that states the claim);
# a contradicted verdict quotes the sentence that says otherwise (one that restates the
# claim is refused).
PASSAGE = [{"id": "e1", "text": "Alpha is red. Beta is blue. Gamma is green. c1 Alpha is red. "
                                "c2 Beta is blue. c4 Alpha is blue. c7 Omega is gold. "
                                "a1 ok claim a4 missed claim"}]
# (claim, human label, what the scripted judge says)
CLAIMS = [
    ("c1 Alpha is red.", "supported", "supported"),
    ("c2 Beta is blue.", "supported", "supported"),
    ("c3 Gamma is green.", "supported", "unsupported"),
    ("c4 Alpha is blue.", "contradicted", "contradicted"),
    ("c5 Beta is red.", "contradicted", "unsupported"),
    ("c6 Delta is grey.", "unsupported", "unsupported"),
    ("c7 Omega is gold.", "unsupported", "supported"),
    ("c8 Sigma is pink.", "unsupported", "unsupported"),
]
# (answer, human label, claims the scripted judge finds, the label it gives every claim)
ANSWERS = [
    ("a1 ok", "faithful", "supported"),
    ("a2 flagged", "faithful", "unsupported"),
    ("a3 flagged", "hallucinated", "unsupported"),
    ("a4 missed", "hallucinated", "supported"),
]

JUDGE_CONFTEST = '''
import pytest
from pytest_faithfulness import Verdict

LABELS = %r

class ScriptedJudge:
    def decompose(self, answer):
        return [answer]
    def verify(self, claim, passages):
        label = LABELS[claim.split()[0]]
        if label == "unsupported":
            return Verdict("unsupported")
        quote = "Alpha is red." if label == "contradicted" else claim
        return Verdict(label, passage_ids=["e1"], quote=quote)
    def describe(self):
        return "scripted"

@pytest.fixture(scope="session")
def faithfulness_judge():
    return ScriptedJudge()
'''


def _labels() -> dict[str, str]:
    out = {c.split()[0]: judge for c, _, judge in CLAIMS}
    out.update({a.split()[0]: judge for a, _, judge in ANSWERS})
    return out


@pytest.fixture
def labelled(pytester: pytest.Pytester):
    lines = [{"id": claim.split()[0], "claim": claim, "passages": PASSAGE, "human_label": human,
              "source_dataset": "src-a" if i < 4 else "src-b"}
             for i, (claim, human, _) in enumerate(CLAIMS)]
    lines += [{"id": answer.split()[0], "answer": answer, "passages": PASSAGE, "human_label": human}
              for answer, human, _ in ANSWERS]
    pytester.makefile(".jsonl", labels="\n".join(json.dumps(x) for x in lines))
    pytester.makeconftest(JUDGE_CONFTEST % _labels())
    pytester.makepyfile(test_other="import not_installed_anywhere  # never imported by a "
                                   "calibration run\n")
    return pytester


def test_figures_match_the_hand_computed_confusion_matrix(labelled):
    result = labelled.runpytest("--faithfulness-calibrate", "labels.jsonl", "--faithfulness-report",
                                "r.json")
    result.assert_outcomes(passed=12)  # test_other.py is not even collected
    assert result.ret == 0
    data = json.loads((labelled.path / "r.json").read_text())["calibration"]
    claim = data["overall"]["claim"]
    assert claim["confusion"] == {
        "supported": {"supported": 2, "contradicted": 0, "unsupported": 1},
        "contradicted": {"supported": 0, "contradicted": 1, "unsupported": 1},
        "unsupported": {"supported": 1, "contradicted": 0, "unsupported": 2},
    }
    assert claim["precision"] == pytest.approx({"supported": 2 / 3, "contradicted": 1.0,
                                                "unsupported": 0.5})
    assert claim["recall"] == pytest.approx({"supported": 2 / 3, "contradicted": 0.5,
                                             "unsupported": 2 / 3})
    assert claim["balanced_accuracy"] == pytest.approx((2 / 3 + 4 / 5) / 2)
    assert claim["kappa"] == pytest.approx((5 / 8 - 23 / 64) / (1 - 23 / 64))
    low, high = claim["balanced_accuracy_ci95"]
    assert 0 <= low <= claim["balanced_accuracy"] <= high <= 1
    answer = data["overall"]["answer"]
    assert answer["confusion"] == {"faithful": {"faithful": 1, "hallucinated": 1},
                                   "hallucinated": {"faithful": 1, "hallucinated": 1}}
    assert answer["balanced_accuracy"] == 0.5 and answer["kappa"] == 0.0
    assert data["per_source"]["src-a"]["claim"]["records"] == 4
    assert data["per_source"]["src-b"]["claim"]["confusion"]["unsupported"]["supported"] == 1
    assert sorted(d["id"] for d in data["disagreements"]) == ["a2", "a4", "c3", "c5", "c7"]
    result.stdout.fnmatch_lines([
        "*faithfulness calibration*",
        "answer level: 4 records, 0 errored; balanced accuracy (faithful vs hallucinated) 0.500*",
        "claim level: 8 records, 0 errored; balanced accuracy (supported vs not) 0.733*",
        "  c7: human unsupported, judge supported: quote \"c7 Omega is gold.\" | c7 Omega is gold.",
    ])


def test_min_agreement_gates_the_session(labelled):
    passing = labelled.runpytest("--faithfulness-calibrate", "labels.jsonl",
                                 "--faithfulness-min-agreement", "0.5")
    assert passing.ret == 0
    failing = labelled.runpytest("--faithfulness-calibrate", "labels.jsonl",
                                 "--faithfulness-min-agreement", "0.6")
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["*judge agreement with human labels (balanced accuracy) 0.500 < "
                                  "min agreement 0.600*"])


def test_same_figures_under_xdist(labelled):
    labelled.runpytest("--faithfulness-calibrate", "labels.jsonl", "--faithfulness-report", "a.json")
    labelled.runpytest("-n", "2", "--faithfulness-calibrate", "labels.jsonl",
                       "--faithfulness-report", "b.json")
    a = json.loads((labelled.path / "a.json").read_text())["calibration"]
    b = json.loads((labelled.path / "b.json").read_text())["calibration"]
    assert a == b


def test_a_judge_error_fails_the_item_and_the_gate(pytester):
    pytester.makefile(".jsonl", labels=json.dumps(
        {"id": "x", "claim": "A is B.", "passages": ["A is B."], "human_label": "supported"}))
    pytester.makeconftest('''
        import pytest
        class Broken:
            def decompose(self, answer):
                return [answer]
            def verify(self, claim, passages):
                raise TimeoutError("judge timed out")
        @pytest.fixture(scope="session")
        def faithfulness_judge():
            return Broken()
    ''')
    result = pytester.runpytest("--faithfulness-calibrate", "labels.jsonl")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*judge timed out*", "*1 calibration record(s) errored*"])


@pytest.mark.parametrize("line, message", [
    ('{"id": "x", "claim": "c", "passages": [], "human_label": "maybe"}', "human_label 'maybe'"),
    ('{"id": "x", "passages": [], "human_label": "faithful"}', "needs a 'claim' or an 'answer'"),
    ("not json", "labels.jsonl:1: not a labelled record"),
])
def test_a_bad_labelled_file_is_a_usage_error(pytester, line, message):
    pytester.makefile(".jsonl", labels=line)
    result = pytester.runpytest("--faithfulness-calibrate", "labels.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_missing_file_is_a_usage_error(pytester):
    result = pytester.runpytest("--faithfulness-calibrate", "nope.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_metric_functions_on_known_values():
    assert balanced_accuracy([(True, True), (True, False), (False, False), (False, False)]) == 0.75
    assert balanced_accuracy([(True, True)]) is None  # one class only: undefined, not 1.0
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None
    pairs = [(True, True)] * 30 + [(False, False)] * 30 + [(True, False)] * 10
    low, high = bootstrap_ci(pairs)
    assert low < balanced_accuracy(pairs) < high
    assert bootstrap_ci(pairs) == (low, high)  # seeded: reproducible


def test_shipped_example_labels_load():
    from repo_paths import ROOT

    records = load_labelled(ROOT / "conftest_examples" / "labels.jsonl")
    assert {r.level for r in records} == {"claim", "answer"}
    outcome = Outcome(id="x", level="claim", human_label="supported", judge_label="supported",
                      text="t")
    assert report([outcome]).disagreements == []
