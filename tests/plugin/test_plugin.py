"""The plugin end to end, through real pytest runs (pytester)."""

from __future__ import annotations

import json

import pytest
from conftest import INI

AUDIT_CONFTEST = '''
import pytest
from pytest_faithfulness import Decomposition, Verdict

CLAIMS = [
    "Audit log export to S3 is available on the Business plan.",
    "The audit log export destination is configured under Settings > Security > Audit Log Export.",
    "The bucket policy must allow s3:PutObject for the export role.",
    "Audit log exports run hourly.",
    "Audit log exports are retained in the customer's bucket indefinitely.",
]
SUPPORT = {
    CLAIMS[0]: ("p-2071", "Audit log export is available on the Business and Enterprise plans. Exports are delivered to a customer-owned S3 bucket."),
    CLAIMS[1]: ("p-2072", "Configure the destination bucket under Settings > Security > Audit Log Export."),
    CLAIMS[2]: ("p-2072", "The bucket policy must allow s3:PutObject for our export role."),
}

class ScriptedJudge:
    """Scripted like a careful human judge of the audit-log example."""
    def __init__(self):
        self.calls = 0
    def decompose(self, answer):
        self.calls += 1
        if "audit log" in answer.lower():
            return Decomposition(claims=CLAIMS, dropped=["Yes"])
        return Decomposition(claims=[], dropped=[answer])
    def verify(self, claim, passages):
        self.calls += 1
        if claim in SUPPORT:
            pid, quote = SUPPORT[claim]
            return Verdict("supported", passage_ids=[pid], quote=quote)
        return Verdict("unsupported")

@pytest.fixture(scope="session")
def faithfulness_judge():
    return ScriptedJudge()
'''

AUDIT_TEST = '''
PASSAGES = [
    {"id": "p-2071", "text": "Audit log export is available on the Business and Enterprise plans. Exports are delivered to a customer-owned S3 bucket."},
    {"id": "p-2072", "text": "Configure the destination bucket under Settings > Security > Audit Log Export. The bucket policy must allow s3:PutObject for our export role."},
]
ANSWER = ("Yes — audit log export to S3 is available on the Business plan. Configure the destination "
          "under Settings > Security > Audit Log Export, and make sure the bucket policy allows "
          "s3:PutObject for our export role. Exports run hourly and are retained in your bucket "
          "indefinitely. [p-2071, p-2072]")

def test_audit_log(assert_faithful):
    result = assert_faithful(ANSWER, PASSAGES)
    assert result.score == 0.6
    assert [c.label for c in result.claims] == ["supported"] * 3 + ["unsupported"] * 2

def test_pleasantries(assert_faithful):
    result = assert_faithful("Hi there! Happy to help. Let me know if that helps!", PASSAGES)
    assert result.status == "unscored" and result.score is None
'''


#: The audit-log answer scores 0.6: its tests pass with this per-answer bound (with none, an
#: assertion requires every claim to be supported).
AUDIT_INI = INI + "faithfulness_min_score = 0.5\n"


@pytest.fixture
def audit_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(AUDIT_CONFTEST)
    pytester.makepyfile(test_audit=AUDIT_TEST)
    pytester.makeini(AUDIT_INI)
    return pytester


def test_scripted_judge_reproduces_audit_log_and_gate_passes_without_threshold(audit_suite):
    report = audit_suite.path / "report.json"
    result = audit_suite.runpytest("--faithfulness-report", str(report))
    result.assert_outcomes(passed=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*faithfulness*",
        "answers: 2 (1 scored, 1 unscored, 0 errored)",
        "mean faithfulness: 0.60",
        "claims: 5 (3 supported, 0 contradicted, 2 unsupported)",
        "*test_audit.py::test_audit_log: faithfulness 0.60*",
        "*[[]4] UNSUPPORTED: Audit log exports run hourly.",
        "*[[]5] UNSUPPORTED: Audit log exports are retained in the customer's bucket indefinitely.",
        "*= faithfulness: session gate passed; 1 answer not scored (no claims) =*",
    ])
    data = json.loads(report.read_text())
    answers = {a["test_id"].split("::")[-1]: a for a in data["answers"]}
    assert answers["test_audit_log"]["score"] == 0.6
    assert [c["verdict"]["label"] for c in answers["test_audit_log"]["claims"]] == \
        ["supported"] * 3 + ["unsupported"] * 2
    assert answers["test_pleasantries"]["status"] == "unscored"
    assert answers["test_pleasantries"]["score"] is None
    assert data["summary"]["mean_faithfulness"] == 0.6
    assert data["summary"]["unscored"] == 1
    assert data["gate"]["passed"] is True


def test_session_gate_fails_below_min_mean(audit_suite):
    result = audit_suite.runpytest("--faithfulness-min-mean", "0.9")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["GATE FAILED: mean faithfulness 0.600 < min mean 0.900"])


def test_ini_key_sets_the_gate_and_the_flag_wins(audit_suite):
    audit_suite.makeini(AUDIT_INI + "faithfulness_min_mean = 0.9\n")
    assert audit_suite.runpytest().ret == pytest.ExitCode.TESTS_FAILED
    assert audit_suite.runpytest("--faithfulness-min-mean", "0.5").ret == 0


def test_max_unsupported_rate_gate(audit_suite):
    result = audit_suite.runpytest("--faithfulness-max-unsupported-rate", "0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["GATE FAILED: share of answers with an unsupported claim*"])


def test_per_answer_thresholds_fail_the_test_with_a_per_claim_report(audit_suite):
    result = audit_suite.runpytest("--faithfulness-min-score", "0.8", "-k", "audit_log")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*AssertionError: answer is not faithful enough*",
        "*FAILED: faithfulness 0.60 < min_score 0.80*",
        "*[[]4] UNSUPPORTED: Audit log exports run hourly.*",
    ])


def test_max_unsupported_counts_contradicted_and_unsupported(pytester):
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful(
                "The Kestrel e-bike weighs 23 kg. Its top assisted speed is 32 km/h. "
                "It comes in four colours.",
                ["The Kestrel e-bike weighs 23 kg.", "The Kestrel e-bike's top assisted speed is 25 km/h."],
                max_unsupported=1,
            )
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*2 claim(s) not supported > max_unsupported 1*",
                                 "*CONTRADICTED: The Kestrel e-bike's top assisted speed is 32 km/h.*"])


def test_a_judge_that_raises_fails_the_session(pytester):
    pytester.makeconftest('''
        import pytest
        class BrokenJudge:
            def decompose(self, answer):
                return ["The lamp has three brightness levels."]
            def verify(self, claim, passages):
                raise ConnectionError("judge unreachable")
        @pytest.fixture(scope="session")
        def faithfulness_judge():
            return BrokenJudge()
    ''')
    pytester.makepyfile('''
        import pytest
        def test_it(assert_faithful):
            with pytest.raises(AssertionError, match="judge unreachable"):
                assert_faithful("The lamp has three brightness levels.", ["The lamp has three brightness levels."])
    ''')
    result = pytester.runpytest("--faithfulness-report", "r.json")
    result.assert_outcomes(passed=1)  # the test swallowed the error; the gate must not
    assert result.ret == 12  # unmeasurable: an answer errored
    result.stdout.fnmatch_lines(["answers: 1 (0 scored, 0 unscored, 1 errored)",
                                 "GATE FAILED: 1 answer(s) errored*"])
    data = json.loads((pytester.path / "r.json").read_text())
    assert data["answers"][0]["status"] == "error"
    assert data["answers"][0]["score"] is None
    assert "judge unreachable" in data["answers"][0]["error"]


def test_missing_verdict_is_an_error_not_a_pass(pytester):
    pytester.makeconftest('''
        import pytest
        class ShortJudge:
            def decompose(self, answer):
                return ["A.", "B."]
            def verify(self, claim, passages):
                return None
        @pytest.fixture(scope="session")
        def faithfulness_judge():
            return ShortJudge()
    ''')
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful("A. B.", ["A. B."])
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*judge returned no verdict for 2 of 2 claim(s)*"])


def test_bad_input_is_a_clear_error_and_is_recorded(pytester):
    pytester.makepyfile('''
        import pytest
        def test_it(assert_faithful):
            with pytest.raises(TypeError, match="answer must be a string"):
                assert_faithful(42, ["x"])
            with pytest.raises(ValueError, match="duplicate passage id 'a'"):
                assert_faithful("x", [{"id": "a", "text": "1"}, {"id": "a", "text": "2"}])
    ''')
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert result.ret == 12  # unmeasurable: an answer errored
    result.stdout.fnmatch_lines(["answers: 2 (0 scored, 0 unscored, 2 errored)"])


def test_offline_judge_is_the_default_and_runs_the_audit_log(pytester):
    pytester.makepyfile(test_audit=AUDIT_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-min-score", "0.5")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["judge: offline calibrated judge*not NLI",
                                 "mean faithfulness: 0.60"])


def test_plugin_can_be_disabled(pytester):
    pytester.makepyfile('''
        def test_it(request):
            assert "assert_faithful" not in request.fixturenames
    ''')
    result = pytester.runpytest("-p", "no:faithfulness")
    result.assert_outcomes(passed=1)


def test_unused_plugin_prints_nothing(pytester):
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "= faithfulness =" not in result.stdout.str()


def test_bad_option_value_is_a_usage_error(pytester):
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("--faithfulness-min-mean", "high")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-min-mean (ini faithfulness_min_mean) must be a "
                                 "number, got 'high'*"])
    for bad in ("nan", "inf", "1.5", "-0.1"):
        result = pytester.runpytest("--faithfulness-min-mean", bad)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, bad
    for flag, value in (("--faithfulness-timeout", "0"), ("--faithfulness-max-unsupported", "-1"),
                        ("--faithfulness-report", "."), ("--faithfulness-cache-mode", "often")):
        result = pytester.runpytest(flag, value)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, (flag, value)


def test_require_claims_fails_an_answer_with_nothing_to_score(pytester):
    pytester.makepyfile('''
        import pytest
        def test_flag(assert_faithful):
            assert_faithful("Hi there! Let me know if that helps.", ["x"])
        def test_kwarg_wins(assert_faithful):
            assert_faithful("", ["x"], require_claims=False)
    ''')
    pytester.runpytest().assert_outcomes(passed=2)
    result = pytester.runpytest("--faithfulness-require-claims")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*no claims to score (require_claims is set)*"])


def test_a_typo_of_a_builtin_judge_is_a_usage_error(pytester):
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("--faithfulness-judge", "offlin")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown judge; did you mean 'offline'?*"])


def test_batches_take_require_claims_too(pytester):
    pytester.makepyfile('''
        import pytest
        def test_it(assert_faithful):
            with pytest.raises(AssertionError, match="no claims to score"):
                assert_faithful.assert_many([("Hello!", ["x"])], require_claims=True)
            assert assert_faithful.assert_many([("Hello!", ["x"])])[0].status == "unscored"
    ''')
    pytester.runpytest().assert_outcomes(passed=1)


def test_bad_input_answer_is_recorded_as_what_it_was(pytester):
    pytester.makepyfile('''
        import pytest
        def test_it(assert_faithful):
            with pytest.raises(TypeError):
                assert_faithful(42, ["x"])
    ''')
    pytester.runpytest("--faithfulness-report", "r.json")
    import json
    data = json.loads((pytester.path / "r.json").read_text())
    assert data["answers"][0]["answer"] == "<not a string: int 42>"
    assert data["answers"][0]["status"] == "error"


def test_xdist_workers_report_to_the_controller(audit_suite):
    audit_suite.makepyfile(test_more='''
        from test_audit import ANSWER, PASSAGES
        def test_again(assert_faithful):
            assert assert_faithful(ANSWER, PASSAGES).score == 0.6
    ''')
    single = audit_suite.runpytest("--faithfulness-report", "single.json",
                                   "--faithfulness-min-mean", "0.9")
    double = audit_suite.runpytest("-n", "2", "--faithfulness-report", "double.json",
                                   "--faithfulness-min-mean", "0.9")
    single.assert_outcomes(passed=3)
    double.assert_outcomes(passed=3)
    assert single.ret == double.ret == pytest.ExitCode.TESTS_FAILED
    for run in (single, double):
        run.stdout.fnmatch_lines(["GATE FAILED: mean faithfulness 0.600 < min mean 0.900"])
    a = json.loads((audit_suite.path / "single.json").read_text())
    b = json.loads((audit_suite.path / "double.json").read_text())
    key = lambda r: r["test_id"]  # noqa: E731
    assert sorted(a["answers"], key=key) == sorted(b["answers"], key=key)
    assert a["summary"] == b["summary"]
    assert a["gate"] == b["gate"]
