"""The end of a session fails closed and always leaves its records: a run that judged
nothing cannot meet a session threshold, a gate hook's answer is read strictly, an error in
the gate phase never loses a report, answers that missed their own bounds never pass
silently, and a saved run that failed its gate is never the latest baseline. Real pytest
runs (``pytester``)."""

from __future__ import annotations

import html
import json

import pytest

OUTPUTS = ("--faithfulness-report", "r.json", "--faithfulness-markdown", "r.md",
           "--faithfulness-html", "r.html")

SKIPPED_WITHOUT_SECRET = '''
import os
import pytest

@pytest.mark.skipif(not os.environ.get("RAG_URL_NOT_SET_HERE"), reason="no RAG_URL")
def test_rag(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", ["The lamp has three brightness levels."])
'''

ONE_ANSWER = '''
import pytest

PASSAGES = [{"id": "kb-1", "text": "The lamp has three brightness levels."}]

@pytest.mark.rag
def test_rag(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", PASSAGES)

def test_plain():
    pass
'''


def _assert_failed_everywhere(pytester: pytest.Pytester, result, reason: str,
                              status: int = 1) -> dict:
    """The gate failed with ``reason`` in the terminal, the JSON, Markdown and HTML reports,
    and the run exited ``status`` (1: failed; 12: unmeasurable)."""
    assert result.ret == status
    result.stdout.fnmatch_lines(["*= faithfulness =*", f"GATE FAILED: *{reason}*",
                                 "*faithfulness: session gate failed*"])
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["gate"]["passed"] is False
    assert any(reason in r for r in report["verdict"]["gate_failures"])
    for name in ("r.md", "r.html"):
        text = html.unescape((pytester.path / name).read_text(encoding="utf-8"))
        text = text.replace("\\", "")  # Markdown escapes
        assert reason.replace("\\", "") in text and "gate passed" not in text, name
    return report


# Item 6: session thresholds on a run that judged nothing ----------------------------------------

NOTHING = "no answer was judged, so the session thresholds cannot be met"


@pytest.mark.parametrize("gate, how", [
    (["--faithfulness-min-mean", "0.9"], []),  # the report: every test skipped
    (["--faithfulness-max-unsupported-rate", "0.1"], ["-m", "not rag and not plain"]),
    (["--faithfulness-max-unscored-rate", "0.5"], ["-k", "nothing_matches_this"]),
    (["--faithfulness-min-mean", "0.9"], ["-n", "2"]),
])
def test_a_session_threshold_on_a_run_that_judged_nothing_fails_and_writes_every_output(
        pytester, gate, how):
    pytester.makepyfile(test_skip=SKIPPED_WITHOUT_SECRET, test_one=ONE_ANSWER)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                     "markers =\n    rag: needs the RAG service\n")
    if not how:
        how = ["test_skip.py"]
    if how == ["-n", "2"]:
        how = ["-n", "2", "test_skip.py"]
    result = pytester.runpytest(*gate, *OUTPUTS, "--faithfulness-save", "main", *how)
    report = _assert_failed_everywhere(pytester, result, NOTHING, 12)
    assert gate[0] in " ".join(report["verdict"]["gate_failures"])
    assert report["summary"]["answers"] == 0
    result.stdout.fnmatch_lines(["WARNING: run not saved as 'main': no answer was judged*"])
    assert not (pytester.path / ".faithfulness").exists()  # an empty run is never a baseline


def test_a_compare_fail_bound_on_a_run_that_judged_nothing_fails(pytester):
    pytester.makepyfile(test_skip=SKIPPED_WITHOUT_SECRET, test_one=ONE_ANSWER)
    assert pytester.runpytest("test_one.py", "--faithfulness-save", "main").ret == 0
    result = pytester.runpytest("test_skip.py", "--faithfulness-compare-fail", "mean:0.02",
                                *OUTPUTS)
    _assert_failed_everywhere(pytester, result, NOTHING + " (--faithfulness-compare-fail)", 12)


def test_without_a_threshold_a_run_that_judged_nothing_still_writes_what_was_asked(pytester):
    pytester.makepyfile(test_skip=SKIPPED_WITHOUT_SECRET)
    result = pytester.runpytest(*OUTPUTS)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["answers: 0 *", "*faithfulness: session gate passed*"])
    for name in ("r.json", "r.md", "r.html"):
        assert (pytester.path / name).is_file(), name


def test_a_run_with_no_threshold_and_no_output_stays_silent(pytester):
    pytester.makepyfile(test_skip=SKIPPED_WITHOUT_SECRET)
    result = pytester.runpytest()
    assert result.ret == 0
    # pytest's own warnings (an inline run in a process that imported the plugin before) may
    # name the module: only the run's own output counts
    own = result.stdout.str().split("short test summary")[0].split("warnings summary")[0]
    assert "faithfulness" not in own.split("collected")[-1]


# Item 8: a gate hook's answer is read strictly, and the gate phase never loses a report ---------

GATE_TESTS = '''
PASSAGES = [{"id": "kb-1", "text": "The lamp has three brightness levels."}]

def test_supported(assert_faithful):
    assert_faithful("The lamp has three brightness levels.", PASSAGES)
'''


@pytest.mark.parametrize("body, shown", [
    ("return True", "True (a bool)"),
    ("return False", "False (a bool)"),
    ("return 0", "0 (a int)"),
    ("return 1", "1 (a int)"),
    ("return {'reason': 'x'}", "{'reason': 'x'} (a dict)"),
    ("return ['']", "a list holding '' (a str)"),
    ("return [None]", "a list holding None (a NoneType)"),
    ("return ''", "'' (a str): an empty reason"),
    # invented: a float, and a list with a number among good reasons
    ("return 0.0", "0.0 (a float)"),
    ("return ['too many', 3]", "a list holding 3 (a int)"),
])
def test_a_gate_hook_answer_of_the_wrong_kind_fails_the_gate_and_loses_no_output(
        pytester, body, shown):
    pytester.makeconftest(f'''
def pytest_faithfulness_gate(summary):
    {body}
''')
    pytester.makepyfile(GATE_TESTS)
    result = pytester.runpytest(*OUTPUTS, "--faithfulness-save", "main")
    report = _assert_failed_everywhere(pytester, result,
                                       "a pytest_faithfulness_gate hook returned")
    assert any(shown in r for r in report["verdict"]["gate_failures"]), \
        report["verdict"]["gate_failures"]
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    assert len(list((pytester.path / ".faithfulness").glob("*_main.json"))) == 1


@pytest.mark.parametrize("body, reason", [
    # an iterable that raises while it is read
    ("def gen():\n        yield 'first'\n        raise RuntimeError('gate data gone')\n"
     "    return gen()", "that raised RuntimeError when read: gate data gone"),
    # a reason whose repr raises, inside a list
    ("class Odd:\n        def __repr__(self):\n            raise ValueError('no repr')\n"
     "    return [Odd()]", "<unprintable> (a Odd)"),
    # a hook that raises (already failed closed; still every output)
    ("raise KeyError('missing metric')",
     "a pytest_faithfulness_gate hook raised KeyError: 'missing metric'"),
])
def test_an_error_in_the_gate_phase_fails_the_gate_and_still_writes_every_output(
        pytester, body, reason):
    pytester.makeconftest(f'''
def pytest_faithfulness_gate(summary):
    {body}
''')
    pytester.makepyfile(GATE_TESTS)
    result = pytester.runpytest(*OUTPUTS)
    _assert_failed_everywhere(pytester, result, reason)


@pytest.mark.parametrize("body", ["return None", "return []", "return ()", "pass"])
def test_a_gate_hook_that_holds_passes(pytester, body):
    pytester.makeconftest(f'''
def pytest_faithfulness_gate(summary):
    {body}
''')
    pytester.makepyfile(GATE_TESTS)
    result = pytester.runpytest(*OUTPUTS)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*faithfulness: session gate passed*"])


# Item 9: answers that missed their own thresholds in tests that did not fail --------------------

PASSAGES = '[{"id": "kb-1", "text": "The lamp has three brightness levels."}]'
CONTRADICTED = '"The lamp has five brightness levels."'


@pytest.mark.parametrize("body", [
    # the report: the assertion's AssertionError caught
    f'''try:
        assert_faithful({CONTRADICTED}, {PASSAGES})
    except AssertionError:
        pass''',
    # the report: evaluate_many with a contradicted answer (strict default)
    f"assert_faithful.evaluate_many([({CONTRADICTED}, {PASSAGES})])",
    # invented: pytest.raises around the assertion
    f'''with pytest.raises(AssertionError):
        assert_faithful({CONTRADICTED}, {PASSAGES})''',
    # invented: evaluate_many with an explicit min_score the answer misses
    f"assert_faithful.evaluate_many([({CONTRADICTED}, {PASSAGES})], min_score=0.5)",
])
@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_an_answer_that_missed_its_bounds_in_a_passing_test_fails_the_gate_truthfully(
        pytester, body, xdist):
    pytester.makepyfile(f'''
import pytest

def test_one(assert_faithful):
    {body}

def test_two(assert_faithful):
    {body}
''')
    result = pytester.runpytest(*xdist, *OUTPUTS)
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "expected" not in out
    _assert_failed_everywhere(pytester, result,
                              "2 answer(s) missed their own thresholds without failing their "
                              "tests")
    result.stdout.fnmatch_lines(["*faithfulness: session gate failed (1 reason); 2 answers "
                                 "missed their own thresholds without failing their tests*"])


def test_only_an_xfail_tests_answer_is_described_as_expected(pytester):
    pytester.makepyfile(f'''
import pytest

@pytest.mark.xfail(strict=True, reason="a hallucination the judge must catch")
def test_caught(assert_faithful):
    assert_faithful({CONTRADICTED}, {PASSAGES})
''')
    result = pytester.runpytest()
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*faithfulness: session gate passed; 1 answer missed its own "
                                 "thresholds, as its xfail test expected*"])


@pytest.mark.parametrize("call", [
    "assert_faithful({a}, {p}, record_only=True)",
    "assert_faithful.evaluate_many([({a}, {p})], record_only=True)",
])
def test_record_only_records_without_a_bound_even_with_an_ini_bound(pytester, call):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                     "faithfulness_max_unsupported = 0\nfaithfulness_min_score = 0.9\n")
    pytester.makepyfile(f'''
def test_record(assert_faithful):
    {call.format(a=CONTRADICTED, p=PASSAGES)}
''')
    result = pytester.runpytest("--faithfulness-report", "r.json")
    assert result.ret == 0
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["summary"]["answers"] == 1 and report["summary"]["contradicted"] == 1


def test_min_score_zero_alone_still_asserts_an_ini_max_unsupported(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                     "faithfulness_max_unsupported = 0\n")
    pytester.makepyfile(f'''
import pytest

def test_zero(assert_faithful):
    assert_faithful({CONTRADICTED}, {PASSAGES}, min_score=0)

def test_record_only_with_a_bound_is_a_mistake(assert_faithful):
    with pytest.raises(ValueError, match="record_only=True takes no threshold, got min_score"):
        assert_faithful({CONTRADICTED}, {PASSAGES}, min_score=0, record_only=True)
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1, passed=1)


# Item 7: a saved run whose gate failed is never the latest baseline -----------------------------

RATCHET = '''
import os

PASSAGES = [{"id": "kb-1", "text": "The lamp has three brightness levels. It weighs two kilograms."}]
GOOD = "The lamp has three brightness levels. It weighs two kilograms."
BAD = "The lamp has three brightness levels. It weighs nine kilograms."

def test_answer(assert_faithful):
    answer = BAD if os.environ.get("REGRESS") else GOOD
    assert_faithful(answer, PASSAGES, record_only=True)
'''


@pytest.mark.parametrize("save", [
    ["--faithfulness-autosave"],  # the report: autosave plus compare-fail
    ["--faithfulness-save", "main"],  # invented: docs/ci.md's ratchet (a name, if: always())
    ["--faithfulness-save", "pr"],  # invented: a different name; the latest still skips it
])
def test_a_regressed_run_saved_anyway_never_becomes_the_baseline(pytester, monkeypatch, save):
    pytester.makepyfile(RATCHET)
    compare = ["--faithfulness-compare-fail", "mean:0.02"]
    assert pytester.runpytest(*save).ret == 0  # run 1: good, a baseline
    monkeypatch.setenv("REGRESS", "1")
    second = pytester.runpytest(*save, *compare)  # run 2: regressed, fails, saved anyway
    assert second.ret == 10  # regressed
    second.stdout.fnmatch_lines(["WARNING: saved run *0002_* failed its gate: it will never "
                                 "be picked as the latest baseline*", "GATE FAILED: *mean*"])
    third = pytester.runpytest(*save, *compare)  # run 3: same regression, re-run
    assert third.ret == 10  # regressed: still compared with run 1  # still compared with run 1
    third.stdout.fnmatch_lines(["note: the latest saved run skipped 1 newer run(s) that cannot "
                                "be a baseline: 0002_* (its gate failed)", "GATE FAILED: *mean*"])
    if save[-1] == "main":  # the PR side of docs/ci.md's workflow, by name
        by_name = pytester.runpytest("--faithfulness-compare=main", *compare)
        assert by_name.ret == 10  # regressed


def test_naming_a_failed_run_explicitly_compares_with_it_and_warns_loudly(pytester, monkeypatch):
    pytester.makepyfile(RATCHET)
    monkeypatch.setenv("REGRESS", "1")
    assert pytester.runpytest("--faithfulness-save", "bad",
                              "--faithfulness-min-mean", "0.9").ret == 1
    for ref in ("1", "0001_bad", ".faithfulness/0001_bad.json", "bad"):
        result = pytester.runpytest(f"--faithfulness-compare={ref}")
        assert result.ret == 0, ref
        result.stdout.fnmatch_lines(["WARNING: comparing with saved run 0001_bad, which FAILED "
                                     "its gate (mean faithfulness *"])
    latest = pytester.runpytest("--faithfulness-compare")
    latest.stdout.fnmatch_lines(["WARNING: nothing to compare with: no complete saved run * "
                                 "whose gate passed (1 skipped: 0001_bad (its gate failed))*"])


def test_a_collect_only_run_is_not_judged(pytester):
    pytester.makepyfile(test_skip=SKIPPED_WITHOUT_SECRET)
    result = pytester.runpytest("--co", "--faithfulness-min-mean", "0.9")
    assert result.ret == 0
    assert "GATE FAILED" not in result.stdout.str()


PASSING = '''
import pytest

@pytest.mark.parametrize("n", range(3))
def test_ok(assert_faithful, n):
    assert_faithful("The Vela lamp has three brightness levels.",
                    ["The Vela lamp has three brightness levels and a USB-C port."])
'''


def _no_larger_files_than(limit: int):
    """For ``subprocess.run(preexec_fn=...)``: the child may write no file past ``limit``
    bytes (RLIMIT_FSIZE; SIGXFSZ ignored, so the write fails with EFBIG, as on a full disk)."""
    def limit_files() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_files


def test_a_report_that_cannot_be_written_is_not_left_saying_the_gate_passed(pytester):
    """Issue 21 item 11: on a full disk the HTML report of an earlier, passing run was left
    saying "session gate passed" while this run failed. A report that cannot be written is
    removed (and the gate fails, naming it); no temporary file is left."""
    import subprocess
    import sys

    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(PASSING)
    outputs = ["--faithfulness-report", "r.json", "--faithfulness-html", "r.html"]
    assert pytester.runpytest(*outputs).ret == 0
    page, report = pytester.path / "r.html", pytester.path / "r.json"
    assert "session gate passed" in page.read_text("utf-8")
    sizes = page.stat().st_size, report.stat().st_size
    assert sizes[0] > sizes[1] + 4000  # room for a limit the JSON fits under, the HTML not
    limit = (sizes[0] + sizes[1]) // 2
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *outputs],
                          cwd=pytester.path, capture_output=True, text=True, timeout=300,
                          preexec_fn=_no_larger_files_than(limit))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "GATE FAILED: could not write the HTML report (r.html): OSError" in proc.stdout
    assert "the earlier file there was removed" in proc.stdout
    assert not page.exists()  # no stale page saying "passed"
    data = json.loads(report.read_text("utf-8"))  # the JSON report was written, and says so
    assert data["gate"]["status"] == "failed"
    assert any("could not write the HTML report" in f for f in data["gate"]["failures"])
    assert [p.name for p in pytester.path.iterdir() if p.name.endswith(".tmp")] == []


def test_on_a_full_disk_no_report_is_left_saying_the_gate_passed(pytester):
    """The same on a real full disk: a 64 KiB tmpfs (needs root; skipped elsewhere) that
    holds the earlier passing reports and is then filled, so the JSON report still fits and
    the HTML report does not."""
    import os
    import subprocess

    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = pytester.path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
        pytester.makepyfile(PASSING)
        outputs = ["--faithfulness-report", "disk/r.json", "--faithfulness-markdown",
                   "disk/r.md", "--faithfulness-html", "disk/r.html"]
        assert pytester.runpytest(*outputs).ret == 0
        page = disk / "r.html"
        assert "session gate passed" in page.read_text("utf-8")
        stat = os.statvfs(disk)
        free = stat.f_bavail * stat.f_frsize
        keep = max(page.stat().st_size - 4096, 8192) // 4096 * 4096
        with open(disk / "filler", "wb") as fh:  # leave less room than the page needs
            fh.write(b"\0" * max(free - keep, 0))
        result = pytester.runpytest(*outputs)
        assert result.ret == 1
        result.stdout.fnmatch_lines(["*GATE FAILED: could not write the * report (disk/r.*): "
                                     "OSError: [[]Errno 28[]] No space left on device; the "
                                     "earlier file there was removed"])
        left = [disk / n for n in ("r.json", "r.md", "r.html") if (disk / n).exists()]
        assert len(left) < 3  # the one that could not be written is gone
        for path in left:  # every report left says the gate failed
            text = path.read_text("utf-8")
            assert "gate passed" not in text and "could not write the" in text, path.name
        assert [p.name for p in disk.iterdir() if p.name.endswith(".tmp")] == []
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
