"""``pytest-faithfulness merge``: a sharded suite merged gives what one run of it gives.

Real pytest runs (``pytester``) of a suite judged by the offline judge, split into 3 shards by
test file; the shards' saved runs are merged by the real console entry point (``cli.main``,
and once through ``python -m pytest_faithfulness`` in a subprocess).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.runs.saved import list_runs

PASSAGES = [
    "The Kestrel e-bike weighs 23 kg and its battery lasts 80 km on eco mode.",
    "The Kestrel's top assisted speed is 25 km/h. It comes in three colours.",
]
#: (answer, how it is asserted): ``assert`` fails the test when a claim is not supported,
#: ``record`` records it only, ``xfail`` is a known failure, ``silent`` misses its own bound
#: in a test that passes (evaluate_many), a gate failure.
VARIANTS = [
    ("The Kestrel e-bike weighs 23 kg. Its battery lasts 80 km on eco mode.", "assert"),
    ("The Kestrel e-bike weighs 23 kg. Its top assisted speed is 32 km/h.", "record"),
    ("The Kestrel's top assisted speed is 25 km/h. It comes in three colours.", "assert"),
    ("Thanks for asking!", "record"),
    ("The Kestrel e-bike weighs 23 kg. It comes in five colours.", "xfail"),
    ("The Kestrel's battery lasts 80 km on eco mode. It weighs 40 kg.", "assert"),
    ("The Kestrel e-bike weighs 23 kg. It is made in Norway.", "silent"),
]

TEST_FILE = '''
import json
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent
CASES = json.loads((HERE / "cases_{name}.json").read_text())
PASSAGES = json.loads((HERE / "passages.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_answer(case, assert_faithful, request):
    how = case["how"]
    if how == "xfail":
        request.applymarker(pytest.mark.xfail(reason="known", strict=True))
    if how == "record":
        assert_faithful(case["answer"], PASSAGES, record_only=True)
    elif how == "silent":
        assert_faithful.evaluate_many([(case["answer"], PASSAGES)], min_score=1.0)
    else:
        assert_faithful(case["answer"], PASSAGES)
'''

FILES = ("a", "b", "c")
OUTPUTS = ("report.json", "summary.md", "report.html", "comment.md")


def _write_suite(pytester: pytest.Pytester, version: int = 1) -> None:
    (pytester.path / "passages.json").write_text(json.dumps(PASSAGES))
    for f_index, name in enumerate(FILES):
        cases = []
        for i in range(7):  # ids c0..c6 sort naturally in definition order
            answer, how = VARIANTS[(i + f_index + version) % len(VARIANTS)]
            if how == "silent" and (f_index, version) != (1, 2):
                how = "record"  # one silent miss, in one shard, in the second version
            cases.append({"id": f"c{i}", "answer": answer, "how": how})
        (pytester.path / f"cases_{name}.json").write_text(json.dumps(cases))
        (pytester.path / f"test_{name}.py").write_text(TEST_FILE.replace("{name}", name))


@pytest.fixture
def sharded(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nfaithfulness_canaries = 0\nasyncio_default_fixture_loop_scope = function\n"
                     "faithfulness_min_mean = 0.5\nfaithfulness_max_unscored_rate = 0.3\n")
    _write_suite(pytester, 1)
    base = pytester.runpytest("--faithfulness-save", "base")
    assert list_runs(pytester.path / ".faithfulness"), base.stdout.str()
    _write_suite(pytester, 2)
    return pytester


def _outputs(prefix: str) -> list[str]:
    return ["--faithfulness-report", f"{prefix}report.json",
            "--faithfulness-markdown", f"{prefix}summary.md",
            "--faithfulness-html", f"{prefix}report.html",
            "--faithfulness-pr-comment", f"{prefix}comment.md"]


def _saved(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("created")  # when it was saved
    return data


def _html(text: str) -> str:
    # the generation time is the only difference (one <p class="meta"> line)
    return re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated TIME", text)


def _compare_dirs(path: Path, whole: str, merged: str) -> None:
    for name in OUTPUTS:
        a, b = (path / f"{whole}{name}").read_text(), (path / f"{merged}{name}").read_text()
        if name.endswith(".html"):
            a, b = _html(a), _html(b)
        a = a.replace(f"{whole}report.html", f"{merged}report.html")  # the pointer's file name
        assert a == b, name


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_three_shards_merge_to_the_figures_gate_reports_and_saved_run_of_one_run(
        sharded: pytest.Pytester, xdist: list[str], capsys: pytest.CaptureFixture) -> None:
    compare = ["--faithfulness-compare=base", "--faithfulness-compare-fail", "worsened:0"]
    whole = sharded.runpytest(*compare, "--faithfulness-save", "all", *_outputs("whole-"))
    assert whole.ret == 1  # failing tests, a silent miss and a regression
    for n, name in enumerate(FILES, start=1):
        shard = sharded.runpytest(*xdist, f"test_{name}.py", "--faithfulness-storage", "shards",
                                  "--faithfulness-save", f"shard{n}")
        assert shard.ret in (0, 1), shard.stdout.str()
    shards = [str(p) for p in list_runs(sharded.path / "shards")]
    assert len(shards) == 3
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sharded.path)
        status = cli_main(["merge", *reversed(shards), "--expect", "3", *compare,
                           "--faithfulness-save", "all", *_outputs("merged-")])
    printed = capsys.readouterr().out
    assert status == 1, printed
    _compare_dirs(sharded.path, "whole-", "merged-")
    report = json.loads((sharded.path / "merged-report.json").read_text())
    assert report["summary"]["answers"] == 21
    assert report["gate"]["status"] == "failed"
    failures = report["gate"]["failures"]
    assert any("missed their own thresholds without failing" in f for f in failures)
    assert any(f.startswith("regression against base") for f in failures)
    runs = list_runs(sharded.path / ".faithfulness")
    assert [p.stem for p in runs] == ["0001_base", "0002_all", "0003_all"]
    assert _saved(runs[1]) == _saved(runs[2])
    assert "GATE FAILED" in printed


def test_merge_reads_the_thresholds_of_the_ini_and_a_flag_overrides_them(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    for n, name in enumerate(FILES, start=1):
        sharded.runpytest(f"test_{name}.py", "--faithfulness-save", f"shard{n}")
    shards = [str(p) for p in list_runs(sharded.path / ".faithfulness")[1:]]
    sharded.makeini("[pytest]\nfaithfulness_canaries = 0\nfaithfulness_min_mean = 0.99\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sharded.path)
        assert cli_main(["merge", *shards, "--faithfulness-report", "r.json"]) == 1
        strict = json.loads((sharded.path / "r.json").read_text())
        assert strict["gate"]["min_mean"] == 0.99
        assert any("< min mean 0.990" in f for f in strict["gate"]["failures"])
        assert cli_main(["merge", *shards, "--min-mean", "0.1", "--faithfulness-report",
                         "r.json"]) == 1  # the shards' tests failed: still 1
        loose = json.loads((sharded.path / "r.json").read_text())
        assert loose["gate"]["min_mean"] == 0.1
        assert not any("min mean" in f for f in loose["gate"]["failures"])
    # pyproject.toml is read as pytest reads it (before tox.ini, which pytester wrote)
    (sharded.path / "tox.ini").unlink()
    (sharded.path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nfaithfulness_min_mean = "0.98"\n'
        'faithfulness_compare_fail = ["mean:0.5"]\n')
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sharded.path)
        assert cli_main(["merge", *shards, "--faithfulness-report", "r.json"]) == 1
    toml = json.loads((sharded.path / "r.json").read_text())
    assert toml["gate"]["min_mean"] == 0.98


def _shards(sharded: pytest.Pytester, *extra: str) -> list[str]:
    for n, name in enumerate(FILES, start=1):
        sharded.runpytest(f"test_{name}.py", "--faithfulness-storage", "shards",
                          "--faithfulness-save", f"shard{n}", *extra)
    return [str(p) for p in list_runs(sharded.path / "shards")]


def _refused(path: Path, args: list[str], capsys: pytest.CaptureFixture) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(path)
        assert cli_main(["merge", *args, "--faithfulness-report", "r.json"]) == 4
    assert not (path / "r.json").exists()  # nothing written on a usage error
    return capsys.readouterr().err


def _edited(shard: str, folder: Path, edit) -> str:
    folder.mkdir(exist_ok=True)
    data = json.loads(Path(shard).read_text())
    edit(data)
    target = folder / Path(shard).name
    target.write_text(json.dumps(data))
    return str(target)


def test_merge_refuses_missing_extra_overlapping_incomplete_or_unreadable_shards(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    shards = _shards(sharded)
    path = sharded.path
    capsys.readouterr()
    # one extra is refused (a shard missing, or an incomplete shard, merges as an incomplete
    # run: tests/plugin/test_outcomes.py)
    assert "expected 3 shard(s), got 4" in _refused(path, [*shards, shards[0], "--expect", "3"],
                                                    capsys)
    err = _refused(path, shards + shards[:1], capsys)  # the same file twice
    assert "appear in more than one shard" in err and "test_a.py::test_answer[c0]" in err
    sharded.runpytest("test_a.py", "test_b.py", "--faithfulness-storage", "ab",
                      "--faithfulness-save", "ab")
    overlap = [str(p) for p in list_runs(path / "ab")] + shards[2:]
    err = _refused(path, [*shards[:1], *overlap], capsys)  # shards that overlap
    assert "7 test id(s) appear in more than one shard (test_a.py::test_answer[c0] in " \
        "0001_shard1.json, 0001_ab.json" in err

    cases = [(lambda data: data.clear() or data.update(schema="x"),
              "is not a saved faithfulness run"),
             (lambda data: data.pop("results"), "has no full answer records")]
    for n, (edit, expected) in enumerate(cases):
        broken = _edited(shards[0], path / f"broken{n}", edit)
        assert expected in _refused(path, [broken, *shards[1:]], capsys)
    for flag, expected in ((["--faithfulness-min-mean", "1.5"], "--faithfulness-min-mean (ini "
                            "faithfulness_min_mean) must be between 0 and 1"),
                           (["--faithfulness-compare-fail", "mean"], "bad compare-fail "
                            "expression 'mean'"),
                           (["--faithfulness-compare", "nosuchrun"], "no saved run matches "
                            "'nosuchrun'")):
        assert expected in _refused(path, [*shards, *flag], capsys)


def test_merge_refuses_shards_of_different_judges_prompts_or_commits_unless_allowed(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    shards = _shards(sharded)

    def judge(data):
        data["judges"] = [{"description": "openai/gpt-4o-mini",
                           "fingerprint": {"kind": "litellm", "model": "openai/gpt-4o-mini"}}]

    def prompt(data):
        data["judges"][0]["fingerprint"]["prompts"] = "v999"

    def commit(data):
        data["git"]["commit"] = "f" * 40

    capsys.readouterr()
    for edit, word in ((judge, "were judged by different judges"),
                       (prompt, "were judged by different prompt versions"),
                       (commit, "ran on different commits")):
        other = _edited(shards[2], sharded.path / edit.__name__, edit)
        err = _refused(sharded.path, [*shards[:2], other], capsys)
        assert word in err and "--allow-mixed" in err
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(sharded.path)
            assert cli_main(["merge", *shards[:2], other, "--allow-mixed"]) == 1  # tests failed
        assert f"WARNING: the shards {word}" in capsys.readouterr().out


def test_merge_runs_as_a_module_and_a_passing_gate_exits_0(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nfaithfulness_canaries = 0\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_ok='''
        import pytest
        @pytest.mark.parametrize("n", range(3))
        def test_ok(assert_faithful, n):
            assert_faithful("The lamp has three levels.", ["The lamp has three levels."])
    ''')
    for n in range(3):
        pytester.runpytest(f"test_ok.py::test_ok[{n}]", "--faithfulness-save", f"s{n}")
    proc = subprocess.run([sys.executable, "-m", "pytest_faithfulness", "merge",
                           ".faithfulness", "--expect", "3", "--faithfulness-min-mean", "0.9",
                           "--faithfulness-html", "merged.html"],
                          cwd=pytester.path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "faithfulness: session gate passed" in proc.stdout
    assert (pytester.path / "merged.html").is_file()


@pytest.mark.parametrize("forged, reason", [
    ({"passage_ids": ["p1"], "quote": None}, "supported verdict gives no quote"),
    ({"passage_ids": ["p9"], "quote": "made in Norway"}, "unknown passage id(s) p9"),
    ({"passage_ids": ["p1"], "quote": "The Kestrel e-bike is made in Norway"},
     "quote does not occur in passage(s) p1"),
    ({"passage_ids": ["p1"], "quote": "The Kestrel e-bike weighs 23 kg"}, ""),
], ids=["no-quote", "unknown-passage", "quote-not-in-passage", "quote-off-the-claim"])
def test_a_supported_verdict_edited_into_a_shard_is_not_believed(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture, forged: dict,
        reason: str) -> None:
    shards = _shards(sharded)
    path = sharded.path
    target: dict = {}

    def forge(data):
        for result in data["results"]:
            for n, claim in enumerate(result["claims"], start=1):
                verdict = claim.get("verdict") or {}
                if verdict.get("label") != "supported" and "Norway" in claim["text"] \
                        and not target:
                    claim["verdict"] = {**verdict, "label": "supported",
                                        "rationale": "forged", **forged}
                    claim["judge_verdict"], claim["note"] = None, None
                    target.update(test_id=result["test_id"], claim=n)
        _consistent(data)  # the answer list and figures agree: only the quote check is left

    edited = _edited(shards[0], path / "edited", forge)
    assert target, "the suite has an unsupported Norway claim in shard 1"
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(path)
        status = cli_main(["merge", edited, *shards[1:], "--faithfulness-report", "m.json"])
    printed = capsys.readouterr().out
    assert status == 12, printed  # unmeasurable: a verdict not believed
    report = json.loads((path / "m.json").read_text())
    failures = [f for f in report["gate"]["failures"] if "does not check out" in f]
    assert len(failures) == 1, report["gate"]["failures"]
    assert failures[0].startswith(f"{edited}: {target['test_id']} holds a supported verdict")
    assert f"claim {target['claim']} (" in failures[0] and reason in failures[0]
    answer = next(a for a in report["answers"] if a["test_id"] == target["test_id"])
    claim = answer["claims"][target["claim"] - 1]
    assert claim["verdict"]["label"] == "unsupported"
    assert claim["judge_verdict"]["rationale"] == "forged"
    assert "GATE FAILED" in printed and "does not check out" in printed
    # an answer's claims print on their own lines, as pytest prints them (found by a new user)
    assert re.search(r"^  \[\d+\] (?:UNSUPPORTED|CONTRADICTED): ", printed, flags=re.M)


CITED = '''
PASSAGES = [
    {"id": "doc-11", "text": "The Model K7 kettle holds 1.7 litres of water."},
    {"id": "doc-12", "text": "The Model K7 kettle comes with a 2-year warranty."},
]
ANSWER = ("The Model K7 kettle holds 1.7 litres of water [doc-12]. "
          "The Model K7 kettle comes with a 2-year warranty [doc-12].")


def test_cited(assert_faithful):
    assert_faithful(ANSWER, PASSAGES)
'''


@pytest.mark.parametrize("where", ["ini", "addopts", "one-job-flag"])
@pytest.mark.parametrize("threshold, value, failure", [
    ("max-misattributed", "1", "misattributed"),
    ("min-citation-precision", "0.9", "citation precision"),
    ("min-mean", "0.99", "min mean"),
])
def test_merge_applies_every_threshold_the_shards_ran_with(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture, where: str, threshold: str,
        value: str, failure: str) -> None:
    """Found by a new user: merge dropped the citation thresholds and any threshold set in
    ``addopts`` or on one job's command line, so every job and the merge passed while one run
    of the whole suite failed."""
    key = "faithfulness_" + threshold.replace("-", "_")
    ini = {"ini": f"{key} = {value}\n",
           "addopts": f"addopts = --faithfulness-{threshold} {value}\n",
           "one-job-flag": ""}[where]
    pytester.makeini("[pytest]\nfaithfulness_canaries = 0\nasyncio_default_fixture_loop_scope = function\n" + ini)
    for name in ("s1", "s2"):
        (pytester.path / f"test_{name}.py").write_text(CITED)
    pytester.makepyfile(test_wrong='''
        def test_wrong(assert_faithful):  # recorded only: its test passes, the mean drops
            assert_faithful("The Model K7 kettle holds 1.7 litres of water. It is made of glass.",
                            [{"id": "p1", "text": "The Model K7 kettle holds 1.7 litres of water."}],
                            record_only=True)
    ''')
    whole = pytester.runpytest(*(["--faithfulness-" + threshold, value]
                                 if where == "one-job-flag" else []))
    assert whole.ret == 1, whole.stdout.str()
    assert failure in whole.stdout.str()
    jobs = [("test_s1.py", []), ("test_s2.py", []), ("test_wrong.py", [])]
    if where == "one-job-flag":
        jobs[0] = ("test_s1.py", ["--faithfulness-" + threshold, value])
    for n, (path, extra) in enumerate(jobs, start=1):
        pytester.runpytest(path, *extra, "--faithfulness-storage", "shards",
                           "--faithfulness-save", f"shard{n}")
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        status = cli_main(["merge", "shards", "--expect", "3", "--faithfulness-report", "m.json"])
    report = json.loads((pytester.path / "m.json").read_text())
    assert status == 1, capsys.readouterr().out
    assert report["gate"][key.removeprefix("faithfulness_")] == float(value)
    assert any(failure in f for f in report["gate"]["failures"]), report["gate"]["failures"]


def test_merge_refuses_a_run_whose_answer_list_and_records_disagree(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    shards = _shards(sharded)

    def swap(data):
        data["results"][0]["test_id"] = "test_z.py::test_elsewhere"

    broken = _edited(shards[0], sharded.path / "swapped", swap)
    err = _refused(sharded.path, [broken, *shards[1:]], capsys)
    assert "its answer list and its full answer records name different tests" in err


HOOK_SUITE = {
    "conftest": '''
def pytest_faithfulness_gate(summary, results, config):
    if any("test_s2" in (r.test_id or "") for r in results):
        return "release freeze: the s2 answers need a review"
''',
    "test_s1": '''
def test_one(assert_faithful):
    assert_faithful("The lamp has three levels.", ["The lamp has three levels."])
''',
    "test_s2": '''
def test_two(assert_faithful):
    assert_faithful("The lamp has three levels.", ["The lamp has three levels."])
''',
}


def test_a_shards_gate_hook_failure_fails_the_merged_gate_and_never_becomes_the_baseline(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    """Issue 21 item 1: a conftest gate hook failed shard 2 (exit 1) and one run of the whole
    suite, yet the merge exited 0, its PR comment said "gate passed" and its saved run became
    the next baseline."""
    from pytest_faithfulness.runs.saved import BaselineError, find_run

    pytester.makeini("[pytest]\nfaithfulness_canaries = 0\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(**HOOK_SUITE)
    assert pytester.runpytest().ret == 1  # one run of the whole suite fails on the hook
    assert pytester.runpytest("test_s1.py", "--faithfulness-storage", "shards",
                              "--faithfulness-save", "shard-1").ret == 0
    assert pytester.runpytest("test_s2.py", "--faithfulness-storage", "shards",
                              "--faithfulness-save", "shard-2").ret == 1
    shard2 = str(list_runs(pytester.path / "shards")[1])
    assert _saved(Path(shard2))["local_failures"] == [
        "release freeze: the s2 answers need a review"]
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        status = cli_main(["merge", "shards", "--expect", "2", "--faithfulness-pr-comment",
                           "comment.md", "--faithfulness-report", "m.json",
                           "--faithfulness-save", "main"])
    printed = capsys.readouterr().out
    assert status == 1, printed
    carried = "shards/0002_shard-2.json: the shard's gate failed (a gate merge cannot recompute): release " \
        "freeze: the s2 answers need a review"
    assert json.loads((pytester.path / "m.json").read_text())["gate"]["failures"] == [carried]
    comment = (pytester.path / "comment.md").read_text()
    assert "gate passed" not in comment and "release freeze" in comment
    assert f"GATE FAILED: {carried}" in printed
    merged = list_runs(pytester.path / ".faithfulness")
    assert [p.stem for p in merged] == ["0001_main"]
    assert _saved(merged[0])["local_failures"] == [carried]  # a merge of merges keeps it
    with pytest.raises(BaselineError, match="its gate failed"):
        find_run(pytester.path / ".faithfulness")  # never the next baseline
    # a shard saved before runs told the failures merge recomputes apart: all are kept
    old = _edited(shard2, pytester.path / "old", lambda data: data.pop("local_failures"))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        assert cli_main(["merge", str(list_runs(pytester.path / "shards")[0]), old]) == 1
    assert "did not tell the gates merge recomputes apart" in capsys.readouterr().out


def _consistent(data: dict) -> None:
    """Make the answer list and the figures agree with the (edited) full answer records, as
    a careful editor would."""
    from pytest_faithfulness.records import AnswerResult, SessionSummary
    from pytest_faithfulness.runs.saved import RunFigures, SavedAnswer

    results = [AnswerResult.model_validate(r) for r in data["results"]]
    data["answers"] = [SavedAnswer.of(r, n).model_dump(mode="json")
                       for n, r in enumerate(results, start=1)]
    data["figures"] = RunFigures.of(SessionSummary.of(results)).model_dump(mode="json")


def _norway(data: dict) -> tuple[dict, dict]:
    """The answer record and the claim of shard 1 that says "made in Norway" (unsupported)."""
    for result in data["results"]:
        for claim in result["claims"]:
            if "Norway" in claim["text"]:
                return result, claim
    raise AssertionError("shard 1 has the Norway answer")


def _unscored(data: dict) -> None:
    result, _ = _norway(data)
    result["status"] = "unscored"
    _consistent(data)


def _vaguer(data: dict) -> None:  # the failing claim becomes a true one, its quote checks out
    _, claim = _norway(data)
    claim["text"] = "The Kestrel e-bike weighs 23 kg."
    claim["verdict"] = {"label": "supported", "rationale": "edited",
                        "evidence": [{"passage_id": "p1",
                                      "quote": "The Kestrel e-bike weighs 23 kg"}]}
    claim["judge_verdict"], claim["note"] = None, None
    _consistent(data)


def _passage(data: dict) -> None:  # the passage now says it, and so does the verdict
    result, claim = _norway(data)
    result["passages"][0]["text"] += " It is made in Norway."
    claim["verdict"] = {"label": "supported", "rationale": "edited",
                        "evidence": [{"passage_id": "p1", "quote": "It is made in Norway"}]}
    claim["judge_verdict"], claim["note"] = None, None


def _deleted(data: dict) -> None:
    result, _ = _norway(data)
    index = data["results"].index(result)
    del data["results"][index], data["answers"][index]


EDITS = [(_unscored, 4, "is 'unscored' but has 2 claim(s)"),
         (_vaguer, 12, "but its claims do not cover the answer: 'It is made in Norway.'"),
         (_passage, 4, "the answer list says passages_digest"),
         (_deleted, 4, "the figures say answers 7, the answer records give 6")]


def test_edited_saved_runs_are_refused_or_fail_the_merged_gate(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21 item 6: a status set to unscored, a failing claim replaced by a vaguer true
    one, an edited passage, a deleted answer each merged with exit 0. Unsigned, each is caught
    by a check named in docs/ci.md ("What merge re-checks"); signed, each is refused by its
    signature."""
    shards = _shards(sharded)
    path = sharded.path
    capsys.readouterr()
    for edit, status, expected in EDITS:
        edited = _edited(shards[0], path / f"unsigned-{edit.__name__}", edit)
        monkeypatch.chdir(path)
        assert cli_main(["merge", edited, *shards[1:]]) == status, edit.__name__
        out = capsys.readouterr()
        assert expected in (out.err if status == 4 else out.out), (edit.__name__, out)
        assert f"{edited}" in (out.err if status == 4 else out.out)
    # signed under FAITHFULNESS_CACHE_KEY: every edit is refused, naming the file
    monkeypatch.setenv("FAITHFULNESS_CACHE_KEY", "merge-test-key")
    signed = _shards(sharded, "--faithfulness-storage", "signed")
    signed = [str(p) for p in list_runs(path / "signed")]
    assert all(_saved(Path(s))["signature"] for s in signed)
    monkeypatch.chdir(path)
    capsys.readouterr()
    assert cli_main(["merge", *signed, "--faithfulness-require-signed-runs"]) == 1  # tests failed
    assert "not signed" not in capsys.readouterr().out
    for edit, _, _ in EDITS:
        edited = _edited(signed[0], path / f"signed-{edit.__name__}", edit)
        assert cli_main(["merge", edited, *signed[1:]]) == 4
        err = capsys.readouterr().err
        assert f"ERROR: saved run {edited}: its signature does not match" in err
    # under another key, the signature cannot match either
    monkeypatch.setenv("FAITHFULNESS_CACHE_KEY", "another-key")
    assert cli_main(["merge", *signed]) == 4
    assert "signature does not match" in capsys.readouterr().err
    # without the key: signed runs cannot be checked (a warning; refused when required)
    monkeypatch.delenv("FAITHFULNESS_CACHE_KEY")
    assert cli_main(["merge", *signed]) == 1
    assert "are signed but cannot be checked" in capsys.readouterr().out
    assert cli_main(["merge", *signed, "--require-signed-runs"]) == 4
    assert "FAITHFULNESS_CACHE_KEY is not set" in capsys.readouterr().err
    # unsigned runs: a warning naming them, refused when required (flag or ini key)
    assert cli_main(["merge", *shards]) == 1
    assert f"WARNING: 3 saved run(s) are not signed ({', '.join(shards)})" in \
        capsys.readouterr().out
    sharded.makeini("[pytest]\nfaithfulness_canaries = 0\nfaithfulness_require_signed_runs = true\n")
    assert cli_main(["merge", *shards]) == 4
    assert "are not signed" in capsys.readouterr().err


def test_malformed_shards_are_usage_errors_naming_the_file(
        sharded: pytest.Pytester, capsys: pytest.CaptureFixture) -> None:
    """Issue 21 item 10: malformed shards crashed merge (ZeroDivisionError, TypeError,
    ValidationError, RecursionError); each is one ERROR line naming the file, exit 4."""
    shards = _shards(sharded)
    path = sharded.path
    (path / "bad").mkdir()

    def write(name: str, text: str) -> str:
        (path / "bad" / name).write_text(text)
        return str(path / "bad" / name)

    data = json.loads(Path(shards[0]).read_text())
    nest = 200_000
    cases = [
        (write("empty.json", ""), "cannot read saved run"),
        (write("list.json", "[1, 2]"), "is not a saved faithfulness run (JSON list"),
        (write("deep.json", '{"format": "pytest-faithfulness-run-1", "answers": '
               + "[" * nest + "]" * nest + "}"), "nested too deeply"),
        (write("deep-list.json", "[" * nest + "]" * nest), "nested too deeply"),
        (write("answers-text.json", json.dumps({**data, "answers": "many"})),
         "answers: Input should be a valid list (got 'many')"),
        (write("results-int.json", json.dumps({**data, "results": [5] * 7})),
         "results.0: Input should be a valid dictionary (got 5)"),
        (write("figures-text.json", json.dumps({**data, "figures": {"answers": "x"}})),
         "figures.answers: Input should be a valid integer"),
        (write("gate-text.json", json.dumps({**data, "gate": {"min_mean": "high"}})),
         "gate.min_mean is 'high', not a number"),
        (write("misses.json", json.dumps({**data, "silent_misses": [99]})),
         "silent_misses names answer record(s) [99] of 7"),
        (write("zero-answers.json", json.dumps({**data, "answers": [], "results": []})),
         "the figures say answers 7, the answer records give 0"),
        (write("record-type.json", json.dumps({**data, "results": [
            {**r, "claims": "none"} for r in data["results"]]})),
         "answer record 1 is malformed: claims: Input should be a valid list"),
        (write("signature-int.json", json.dumps({**data, "signature": 5})),
         "its signature is not a hex string"),
    ]
    capsys.readouterr()
    for bad, expected in cases:
        err = _refused(path, [bad, *shards[1:]], capsys)
        assert err.startswith("ERROR: ") and bad in err and expected in err, (bad, err)
        assert "Traceback" not in err
    # and through the console script: no traceback, exit 4
    proc = subprocess.run([sys.executable, "-m", "pytest_faithfulness", "merge",
                           str(path / "bad" / "deep.json")], cwd=path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 4 and "Traceback" not in proc.stderr, proc.stderr
