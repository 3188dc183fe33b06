"""Settings checked at start-up (judge names, the offline extra), the assertion's strict
default, and the session thresholds (the unscored rate), through real pytest runs."""

from __future__ import annotations

import json

import pytest
from conftest import INI
from judges import QUOTING_CONFTEST

from pytest_faithfulness.settings import Settings

TRIVIAL = "def test_it():\n    pass\n"


# Item 19: judge names --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["nli", "heuristic", "llm", "rules", "model"])
def test_a_name_that_is_neither_builtin_nor_a_litellm_model_is_a_usage_error(pytester, name):
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--faithfulness-judge", name)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--faithfulness-judge {name!r}: unknown judge;*the built-in "
                                 "judges are offline, offline-heuristic, offline-nli*"])


def test_an_unknown_provider_is_a_usage_error_and_known_names_pass(pytester):
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--faithfulness-judge", "openia/gpt-4o-mini")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'openia' is not a provider litellm knows*"])
    for name in ("gpt-4o-mini", "openai/any-model-name", "ollama/llama3", "OFFLINE"):
        assert pytester.runpytest("--faithfulness-judge", name).ret == 0, name


def test_offline_nli_without_its_extra_is_a_usage_error_naming_the_pip_command(pytester):
    pytester.makeconftest('''
        import sys
        sys.modules["onnxruntime"] = None  # as if the [offline] extra were not installed
    ''')
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--faithfulness-judge", "offline-nli")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*offline-nli needs the [[]offline] extra: pip install "
                                 "'pytest-faithfulness[[]offline]' (missing: onnxruntime)*"])


def test_a_make_judge_hook_may_read_the_judge_name_its_own_way(pytester):
    pytester.makeconftest('''
        def pytest_faithfulness_make_judge(config):
            return None
    ''')
    pytester.makepyfile(TRIVIAL)
    assert pytester.runpytest("--faithfulness-judge", "house-v7").ret == 0


def test_start_up_checks_and_the_header_import_neither_litellm_nor_pydantic(pytester):
    pytester.makeconftest('''
        import json, sys
        def pytest_collection_finish(session):
            with open("loaded.json", "w") as out:
                json.dump({m: m in sys.modules for m in ("litellm", "pydantic")}, out)
    ''')
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest_subprocess("--faithfulness-judge", "gpt-4o-mini",
                                           "--faithfulness-min-mean", "0.8", "--co",
                                           "-p", "no:asyncio", "-p", "no:hypothesispytest")
    assert result.ret == 0
    # the header's lines (issue 23) are written from the settings alone: no judge is built
    result.stdout.fnmatch_lines(["faithfulness: judge gpt-4o-mini; fingerprint *; prompts *",
                                 "faithfulness: cache rw at *; session thresholds min-mean 0.8*"])
    loaded = json.loads((pytester.path / "loaded.json").read_text())
    assert loaded == {"litellm": False, "pydantic": False}


def test_every_option_has_a_flag_and_an_ini_key_named_alike(pytester):
    names = [opt.name for opt in Settings.options()]
    assert "max-unscored-rate" in names and len(names) == len(set(names))
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--help")
    for opt in Settings.options():
        result.stdout.fnmatch_lines([f"*--faithfulness-{opt.name}*"])
        assert f"faithfulness_{opt.name.replace('-', '_')} " in result.stdout.str(), opt.name


def test_a_bad_ini_value_names_the_flag_and_the_ini_key(pytester):
    pytester.makepyfile(TRIVIAL)
    pytester.makeini(INI + "faithfulness_max_unscored_rate = most\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-max-unscored-rate (ini "
                                 "faithfulness_max_unscored_rate) must be a number, got 'most'*"])


# Item 9: an assertion asserts ---------------------------------------------------------------

STRICT_TESTS = '''
import pytest
PASSAGES = ["The Kestrel e-bike weighs 23 kg.",
            "The Kestrel e-bike's top assisted speed is 25 km/h."]

@pytest.mark.parametrize("answer", [
    "The Kestrel e-bike's top assisted speed is 32 km/h.",               # contradicted, 0.0
    "The Kestrel e-bike comes in four colours.",                         # unsupported, 0.0
    "The Kestrel e-bike weighs 23 kg. It comes in four colours.",        # one of two, 0.5
], ids=["contradicted", "unsupported", "half"])
def test_not_faithful(assert_faithful, answer):
    assert_faithful(answer, PASSAGES)

def test_faithful(assert_faithful):
    assert_faithful("The Kestrel e-bike weighs 23 kg.", PASSAGES)
'''


def test_with_no_threshold_anywhere_every_claim_must_be_supported(pytester):
    pytester.makepyfile(STRICT_TESTS)
    result = pytester.runpytest("--faithfulness-report", "r.json")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(["*answer is not faithful enough (no min_score or "
                                 "max_unsupported was set*every claim must be supported)*",
                                 "session thresholds: none"])
    answers = json.loads((pytester.path / "r.json").read_text())["answers"]
    assert {a["max_unsupported"] for a in answers} == {0}
    # an explicit bound anywhere replaces the strict default
    pytester.runpytest("--faithfulness-min-score", "0").assert_outcomes(passed=4)
    pytester.makeini(INI + "faithfulness_max_unsupported = 1\n")
    pytester.runpytest().assert_outcomes(passed=4)


# Item 11: unscored answers and the session gate ----------------------------------------------

FIVE_ANSWERS = '''
import pytest
PASSAGES = ["The lamp has three brightness levels."]

@pytest.mark.parametrize("n", range(5))
def test_answer(assert_faithful, n):
    assert_faithful("The lamp has three brightness levels." if n == 0 else "Hi!", PASSAGES)
'''


@pytest.fixture
def five(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_five=FIVE_ANSWERS)
    return pytester


def test_one_scored_answer_of_five_does_not_meet_the_session_gate(five):
    result = five.runpytest("--faithfulness-min-mean", "0.8",
                            "--faithfulness-max-unscored-rate", "0.5",
                            "--faithfulness-report", "r.json")
    result.assert_outcomes(passed=5)
    assert result.ret == 12  # unmeasurable
    result.stdout.fnmatch_lines([
        "session thresholds: min mean 0.80, max unsupported rate none, max unscored rate 0.50",
        "unscored answers (no claims to score, not in the mean): 4",
        "  - test_five.py::test_answer[[]1]",
        "  - test_five.py::test_answer[[]4]",
        "GATE FAILED: share of answers with no claim to score 0.800 (4 of 5) > max unscored "
        "rate 0.500",
        "*faithfulness: session gate failed (1 reason); 4 answers not scored (no claims)*",
    ])
    verdict = json.loads((five.path / "r.json").read_text())["verdict"]
    assert verdict["unscored_answers"] == [f"test_five.py::test_answer[{n}]" for n in (1, 2, 3, 4)]


def test_a_session_threshold_bounds_the_unscored_rate_by_default(five):
    result = five.runpytest("--faithfulness-max-unsupported-rate", "0")
    assert result.ret == 12  # unmeasurable
    result.stdout.fnmatch_lines(["*max unscored rate 0.50 (default with a session threshold)*",
                                 "GATE FAILED: share of answers with no claim to score 0.800 "
                                 "(4 of 5) > max unscored rate 0.500 (the default when a "
                                 "session threshold is set)"])


def test_the_unscored_bound_can_be_lifted_or_set_alone(five):
    lifted = five.runpytest("--faithfulness-min-mean", "0.8",
                            "--faithfulness-max-unscored-rate", "1")
    assert lifted.ret == 0
    alone = five.runpytest("--faithfulness-max-unscored-rate", "0.75")
    assert alone.ret == 12  # unmeasurable
    alone.stdout.fnmatch_lines(["session thresholds: min mean none, max unsupported rate none, "
                                "max unscored rate 0.75"])
    assert five.runpytest().ret == 0  # no session threshold: unscored answers are named only


# Options the judge does not read, and API base URLs --------------------------------------------

@pytest.mark.parametrize("args, named", [
    (["--faithfulness-cache-mode", "replay"], "--faithfulness-cache-mode replay"),
    (["--faithfulness-api-base", "http://127.0.0.1:18081/v1"], "--faithfulness-api-base"),
    # invented: a timeout and a budget are LLM-only too
    (["--faithfulness-timeout", "5"], "--faithfulness-timeout"),
    (["--faithfulness-budget-usd", "1", "--faithfulness-judge", "offline-nli"],
     "--faithfulness-budget-usd"),
])
def test_options_the_offline_judge_ignores_are_named_once_at_start_up(pytester, args, named):
    pytester.makepyfile(TRIVIAL)
    if "offline-nli" in args:
        pytest.importorskip("onnxruntime")
    result = pytester.runpytest(*args)
    assert result.ret == 0
    out = result.stdout.str()
    assert out.count("not apply to the") == 1
    result.stdout.fnmatch_lines([f"*{named}* not apply to the 'offline*' judge: it runs "
                                 "locally, makes no network call*"])


def test_an_llm_judge_gets_no_such_warning(pytester):
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--faithfulness-judge", "openai/gpt-4o-mini",
                                "--faithfulness-api-base", "http://127.0.0.1:9/v1",
                                "--faithfulness-cache-mode", "replay")
    assert result.ret == 0
    assert "not apply to the" not in result.stdout.str()


@pytest.mark.parametrize("base", ["127.0.0.1:18081/v1", "localhost:8080",  # no scheme
                                  "ftp://127.0.0.1/v1", "http://", "http://host:port/v1"])
def test_an_api_base_that_is_not_an_http_url_is_a_usage_error(pytester, base):
    pytester.makepyfile(TRIVIAL)
    result = pytester.runpytest("--faithfulness-judge", "openai/gpt-4o-mini",
                                "--faithfulness-api-base", base)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-api-base (ini faithfulness_api_base) must be "
                                 "an http:// or https:// URL*"])


def test_pytest_asyncio_loop_scope_is_set_so_runs_here_print_no_deprecation(pytestconfig):
    """This repository's own pytest run reads the key from pyproject.toml (pytest-asyncio
    warns on every run when it is unset)."""
    pytest.importorskip("pytest_asyncio")
    assert pytestconfig.getini("asyncio_default_fixture_loop_scope") == "function"


def test_a_replay_miss_names_both_ways_to_record(tmp_path):
    from pytest_faithfulness.cache import CachedJudge, CacheMiss
    from pytest_faithfulness.judges.llm import LiteLLMJudge

    judge = CachedJudge(LiteLLMJudge("openai/scripted", api_base="http://127.0.0.1:9/v1"),
                        tmp_path / "cache", mode="replay")
    with pytest.raises(CacheMiss, match=r"--faithfulness-cache-mode rw \(fills misses\) or "
                                        r"refresh \(judges everything again\)"):
        judge.decompose("The lamp has three levels.")
    judge.close()


# Issue 22: one way to read the settings, pytest-free ---------------------------------------

def test_settings_parse_from_a_mapping_without_pytest(tmp_path):
    """``Settings.from_mapping`` is what the plugin and ``merge`` both feed: a bad value is a
    ``ConfigError`` naming the flag and the ini key; relative folders resolve against the
    rootdir; and neither it nor ``cli`` imports pytest."""
    import subprocess
    import sys

    from pytest_faithfulness.settings import ConfigError

    settings = Settings.from_mapping({"min_mean": "0.8", "autosave": True,
                                      "compare_fail": ["mean:0.02"]}, rootdir=tmp_path)
    assert settings.min_mean == 0.8 and settings.autosave
    assert settings.storage_path == tmp_path / ".faithfulness"
    assert [b.metric for b in settings.compare_bounds] == ["mean"]
    with pytest.raises(ConfigError, match=r"--faithfulness-max-unscored-rate \(ini "
                       r"faithfulness_max_unscored_rate\) must be a number, got 'most'"):
        Settings.from_mapping({"max_unscored_rate": "most"}, rootdir=tmp_path)
    code = ("import sys, pytest_faithfulness.cli as cli, pytest_faithfulness.run.finish; "
            "cli.build_parser(); assert 'pytest' not in sys.modules, 'pytest imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_merge_reads_the_options_marked_for_it_and_the_gate_takes_every_threshold():
    """``merge``'s options come from the option metadata (``option(..., merge=True)``), and
    ``GateConfig`` is built from the one threshold table (``gate.THRESHOLDS``): every
    threshold is a ``GateConfig`` field, a ``Settings`` option and a ``merge`` option."""
    from pytest_faithfulness.cli import MERGE_OPTIONS, build_parser
    from pytest_faithfulness.run.gate import THRESHOLDS, GateConfig

    merged = {opt.dest[len("faithfulness_"):] for opt in Settings.merge_options()}
    assert set(MERGE_OPTIONS) == merged and set(THRESHOLDS) <= merged
    assert set(THRESHOLDS) | {"max_unscored_rate_is_default", "max_unverified_rate_is_default"} \
        == set(GateConfig.model_fields)
    values = {name: 0.5 for name in THRESHOLDS}
    values.update(max_misattributed=1, max_unstable=2)
    gate = Settings(**values).gate_config()
    assert all(getattr(gate, name) == value for name, value in values.items())
    usage = build_parser()._subparsers._group_actions[0].choices["merge"].format_help()
    for name in merged:
        assert f"--faithfulness-{name.replace('_', '-')}" in usage
