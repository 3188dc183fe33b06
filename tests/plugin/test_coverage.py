"""The coverage guard through real pytest runs (issue 23, part 2): answers outside the offline
judge's coverage (another language, a code block, JSON) are ``unverified`` in every report,
the gate fails with an ``unmeasurable`` reason over ``--faithfulness-max-unverified-rate``,
``assert_faithful`` never passes one, ``--faithfulness-judge-covers`` declares more, a
calibration run reports per-language and per-kind rows, and a merge keeps the status."""

from __future__ import annotations

import json

import pytest

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.runs.saved import list_runs

PASSAGES = ["The Pico costs $99 and is waterproof to 10 metres.",
            "Le Pico coûte 99 dollars et il est étanche jusqu'à 10 mètres."]
ANSWERS = {
    "french": "Le Pico coûte 99 dollars et il est étanche jusqu'à dix mètres de profondeur.",
    "code": "```python\nimport pico\nfor depth in range(10):\n    pico.dive(depth)\n```",
    "json": '{"price": 99, "waterproof_m": 10}',
    "english": "The Pico costs $99. It is waterproof to 10 metres.",
    "short": "Yes.",
}
SUITE = f'''
import pytest

PASSAGES = {PASSAGES!r}
ANSWERS = {ANSWERS!r}

@pytest.mark.parametrize("name", list(ANSWERS))
def test_recorded(name, assert_faithful):
    assert_faithful(ANSWERS[name], PASSAGES, record_only=True)
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def test_other_language_code_and_json_answers_are_unverified_and_fail_the_gate(suite):
    result = suite.runpytest("--faithfulness-min-mean", "0", "--faithfulness-report", "r.json",
                             "--faithfulness-markdown", "s.md", "--faithfulness-html", "r.html",
                             "--faithfulness-pr-comment", "c.md")
    result.assert_outcomes(passed=5)
    assert result.ret == 12  # unmeasurable
    result.stdout.fnmatch_lines([
        "answers: 5 (1 scored, 1 unscored, 0 errored, 3 unverified)",
        "unverified answers (outside the judge's coverage, not judged, not in the mean): 3",
        "  - test_suite.py::test_recorded[[]code]: the answer is a code block*",
        "  - test_suite.py::test_recorded[[]french]: the answer's language is 'fr'*",
        "  - test_suite.py::test_recorded[[]json]: the answer is JSON*",
        "GATE FAILED: share of unverified answers (outside their judge's coverage, not judged) "
        "0.600 (3 of 5) > max unverified rate 0.000 (the default when a session threshold is "
        "set)*",
    ])
    report = json.loads((suite.path / "r.json").read_text())
    status = {a["test_id"].split("[")[1][:-1]: a["status"] for a in report["answers"]}
    assert status == {"french": "unverified", "code": "unverified", "json": "unverified",
                      "english": "scored", "short": "unscored"}  # short and English: judged
    french = next(a for a in report["answers"] if "french" in a["test_id"])
    assert french["score"] is None and "--faithfulness-judge-covers" in \
        french["unverified_reason"]
    assert report["summary"]["unverified"] == 3 and report["summary"]["scored"] == 1
    assert sorted(report["gate"]["unverified"]) == [f"test_suite.py::test_recorded[{n}]"
                                                    for n in ("code", "french", "json")]
    assert report["gate"]["max_unverified_rate"] == 0.0
    markdown = (suite.path / "s.md").read_text()
    assert "### Unverified answers (3)" in markdown
    assert "3 unverified" in (suite.path / "c.md").read_text()
    html = (suite.path / "r.html").read_text()
    assert 'id="unverified-answers"' in html and "b-unverified" in html


def test_the_unverified_bound_can_be_lifted_and_without_thresholds_names_only(suite):
    lifted = suite.runpytest("--faithfulness-min-mean", "0",
                             "--faithfulness-max-unverified-rate", "0.6")
    assert lifted.ret == 0, lifted.stdout.str()
    plain = suite.runpytest()
    assert plain.ret == 0
    plain.stdout.fnmatch_lines(["unverified answers (*): 3"])
    alone = suite.runpytest("--faithfulness-max-unverified-rate", "0.5")
    assert alone.ret == 12  # unmeasurable
    alone.stdout.fnmatch_lines(["session thresholds: *max unverified rate 0.50",
                                "GATE FAILED: share of unverified answers *> max unverified "
                                "rate 0.500: declare*"])


def test_assert_faithful_never_passes_an_unverified_answer_and_covers_declares_more(pytester):
    pytester.makepyfile(test_one=f'''
        PASSAGES = {PASSAGES!r}

        def test_french(assert_faithful):
            assert_faithful({ANSWERS["french"]!r}, PASSAGES)
    ''')
    failed = pytester.runpytest()
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines([
        "*AssertionError: answer not verified: it is outside the judge's coverage, so it was "
        "not judged and cannot pass*",
        "*FAILED: unverified: the answer's language is 'fr'*--faithfulness-judge-covers*",
    ])
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                     "addopts = -p no:hypothesispytest\nfaithfulness_judge_covers = fr\n")
    declared = pytester.runpytest("--faithfulness-report", "r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["answers"][0]["status"] == "scored", declared.stdout.str()
    bad = pytester.runpytest("--faithfulness-judge-covers", "fr,python")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--faithfulness-judge-covers (ini faithfulness_judge_covers) "
                              "must be comma-separated ISO 639-1 language codes*"])


def test_a_calibration_run_judges_every_language_and_reports_per_language_and_kind(pytester):
    records = [
        {"id": "en-1", "claim": "The Pico costs $99 and is waterproof to 10 metres.",
         "passages": PASSAGES[:1], "human_label": "supported"},
        {"id": "en-2", "claim": "The Pico is sold in a red box with two spare straps.",
         "passages": PASSAGES[:1], "human_label": "unsupported"},
        {"id": "fr-1", "answer": ANSWERS["french"], "passages": PASSAGES[1:],
         "human_label": "faithful"},
        {"id": "code-1", "answer": ANSWERS["code"], "passages": PASSAGES[:1],
         "human_label": "hallucinated"},
    ]
    (pytester.path / "labels.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    result = pytester.runpytest("--faithfulness-calibrate", "labels.jsonl",
                                "--faithfulness-report", "r.json")
    result.stdout.fnmatch_lines(["*language en (claim): 2 records*",
                                 "*language fr (answer): 1 records*",
                                 "*kind code (answer): 1 records*"])
    report = json.loads((pytester.path / "r.json").read_text())["calibration"]
    assert set(report["per_language"]) == {"en", "fr", "unknown"}
    assert report["per_kind"]["prose"]["claim"]["records"] == 2
    assert not report["errors"]


def test_a_merge_of_saved_runs_keeps_the_unverified_status_and_bound(
        suite: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    for n, name in enumerate(("french", "english"), start=1):
        suite.runpytest("-k", name, "--faithfulness-min-mean", "0",
                        "--faithfulness-save", f"shard{n}")
    shards = [str(p) for p in list_runs(suite.path / ".faithfulness")]
    assert len(shards) == 2
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(suite.path)
        status = cli_main(["merge", *shards, "--faithfulness-report", "m.json"])
    printed = capsys.readouterr().out
    assert status == 12, printed
    report = json.loads((suite.path / "m.json").read_text())
    assert {a["test_id"]: a["status"] for a in report["answers"]} == {
        "test_suite.py::test_recorded[french]": "unverified",
        "test_suite.py::test_recorded[english]": "scored"}
    assert report["summary"]["unverified"] == 1
    assert report["gate"]["max_unverified_rate_is_default"] is True
    assert any("> max unverified rate 0.000" in f for f in report["gate"]["failures"])
